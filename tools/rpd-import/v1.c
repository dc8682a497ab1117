/* v1.c - rpd-import: rocprof v1 output (the reference's
 * rocpd.rocprofiler_import input): the rpl text traces of a run directory
 * (NNN_hip_api_trace.txt, NNN_hcc_ops_trace.txt, NNN_hsa_api_trace.txt,
 * NNN_roctx_trace.txt) and the results.db SQLite file (tables HIP, HSA,
 * OPS, COPY).  Line formats:
 *   hip_api   BEGIN:END PID:TID NAME(ARGS)[ kernel=KERNEL] :CORR
 *   hsa_api   BEGIN:END PID:TID NAME(ARGS) = RET
 *   hcc_ops   BEGIN:END GPU:QUEUE NAME:CORR:PID
 *   roctx     TS PID:TID TYPE:ID:"MESSAGE"   (TYPE 0 mark, 1 push, 2 pop) */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rpd.h"
#include "import.h"
#include "kinds.h"   /* args_size shared with v1_json.c */

enum { V_HIP, V_OPS, V_HSA, V_ROCTX, V_NKINDS };

static const char *const v1_suffix[V_NKINDS] = {
  "hip_api_trace.txt", "hcc_ops_trace.txt", "hsa_api_trace.txt", "roctx_trace.txt"
};

/* ----------------------------------------------------------- text lines */

/* "A:B" integers at *p (then spaces); 0 = ok. */
static int pair(const char **p, int64_t *a, int64_t *b)
{
  char *e;
  errno = 0;
  *a = strtoll(*p, &e, 10);
  if (e == *p || *e != ':' || errno)
    return -1;
  const char *q = e + 1;
  *b = strtoll(q, &e, 10);
  if (e == q || errno || (*e && !isspace((unsigned char)*e)))
    return -1;
  while (isspace((unsigned char)*e))
    e++;
  *p = e;
  return 0;
}

typedef struct v1file {
  FILE *f;
  const char *path;
  char *line;
  size_t cap;
  int64_t lineno;
} v1file;

/* Next line without its newline (CR dropped); 1 = got one, 0 = EOF. */
static int v1_line(v1file *v)
{
  ssize_t n = getline(&v->line, &v->cap, v->f);
  if (n < 0)
    return 0;
  v->lineno++;
  while (n > 0 && (v->line[n - 1] == '\n' || v->line[n - 1] == '\r'))
    v->line[--n] = '\0';
  if ((size_t)n != strlen(v->line))
    return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": NUL byte", v->path,
                      v->lineno), -1;
  return 1;
}

static int bad_line(const v1file *v, const char *what)
{
  return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": not a rocprof %s line: '%.60s'",
                    v->path, v->lineno, what, v->line);
}

/* What the api lines of a run tell its ops (by correlation id). */
typedef struct v1run {
  imap knames;              /* launch -> rocpd_string id of its kernel= name */
  imap sizes;               /* copy call -> its sizeBytes */
} v1run;

/* The value of "sizeBytes=N" (text) or "sizeBytes(N)" (results.db) in
 * args, or -1. */
int64_t args_size(const char *args)   /* v1_json.c uses it too */
{
  const char *p = args ? strstr(args, "sizeBytes") : NULL;
  if (!p || (p[9] != '=' && p[9] != '('))
    return -1;
  char *e;
  long long v = strtoll(p + 10, &e, 10);
  return e == p + 10 ? -1 : v;
}

/* hip_api / hsa_api line -> api row; kernel names of launches go to knames
 * (correlation id -> rocpd_string id). */
static int v1_api_line(imp *m, v1file *v, int hsa, v1run *run)
{
  apirec a = {0};
  const char *p = v->line;
  if (pair(&p, &a.start, &a.end) || pair(&p, &a.pid, &a.tid))
    return bad_line(v, hsa ? "hsa_api" : "hip_api");
  const char *open = strchr(p, '(');
  if (!open || open == p)
    return bad_line(v, hsa ? "hsa_api" : "hip_api");
  char *name = rpd_xstrdup(p);
  name[open - p] = '\0';
  char *rest = name + (open - p) + 1;     /* after '(' */
  char *kernel = NULL;
  int rc = RPD_OK, closed = 0;      /* closed: the ')' is cut already */
  if (!hsa) {
    /* the correlation id: the digits after the last " :" */
    char *c = strrchr(rest, ':');
    char *e;
    if (!c || c == rest || c[-1] != ' ' || !isdigit((unsigned char)c[1]) ||
        (a.corr = strtoll(c + 1, &e, 10), *e))
      rc = bad_line(v, "hip_api");
    else {
      c[-1] = '\0';
      char *k = strstr(rest, ") kernel=");
      if (k) {
        *k = '\0';
        kernel = k + 9;
        closed = 1;
      }
    }
  } else {
    char *eq = strstr(rest, ") = ");
    if (eq) {
      *eq = '\0';
      closed = 1;
    }
  }
  if (!rc) {
    size_t n = strlen(rest);
    while (n && rest[n - 1] == ' ')
      rest[--n] = '\0';
    if (n && rest[n - 1] == ')' && !closed)
      rest[--n] = '\0';      /* the call's closing parenthesis */
    a.domain = hsa ? "HSA" : "HIP";
    a.category = hsa ? "HSA_API" : "HIP_API";
    a.name = name;
    a.args = rest;
    rc = w_api(m, &a);
  }
  if (!rc && kernel && *kernel) {
    int64_t id;
    rc = w_string_id(m, kernel, &id);
    if (!rc)
      imap_put(&run->knames, a.corr, id);
  }
  int64_t size = rc || hsa ? -1 : args_size(rest);
  if (size >= 0)
    imap_put(&run->sizes, a.corr, size);
  free(name);
  return rc;
}

/* hcc_ops line -> kernel or copy op linked by correlation id. */
static int v1_op_line(imp *m, v1file *v, const v1run *run)
{
  int64_t start, end, gpu, queue;
  const char *p = v->line;
  if (pair(&p, &start, &end) || pair(&p, &gpu, &queue) || !*p)
    return bad_line(v, "hcc_ops");
  /* NAME:CORR:PID, read from the end (names may hold ':') */
  char *name = rpd_xstrdup(p), *c2 = strrchr(name, ':'), *c1, *e;
  int64_t corr = 0;
  int rc = RPD_OK;
  if (!c2 || c2 == name)
    rc = bad_line(v, "hcc_ops");
  else {
    *c2 = '\0';
    c1 = strrchr(name, ':');
    if (!c1 || c1 == name || (corr = strtoll(c1 + 1, &e, 10), *e || e == c1 + 1))
      rc = bad_line(v, "hcc_ops");
    else
      *c1 = '\0';
  }
  int kind = rc ? -1 : copy_kind(name);
  if (!rc && kind >= 0 && !strncmp(name, "Copy", 4)) {
    copyrec cp = {0};
    cp.kind = kind;
    cp.src_gpu = kind == 2 || kind == 3 ? gpu : -1;
    cp.dst_gpu = kind == 1 || kind == 3 ? gpu : -1;
    cp.start = start;
    cp.end = end;
    cp.corr = corr;
    if (!imap_get(&run->sizes, corr, &cp.bytes))
      cp.bytes = 0;
    rc = w_copy(m, &cp);
  } else if (!rc) {
    kern k = {0};
    int64_t full;
    k.gpu = gpu;
    k.queue = queue;
    k.start = start;
    k.end = end;
    k.corr = corr;
    if (imap_get(&run->knames, corr, &full)) {
      k.desc_id = k.name_id = full;     /* the launch's kernel= full name */
    } else
      rc = w_kernel_name(m, name, NULL, &k.desc_id, &k.name_id);
    if (!rc)
      rc = w_kernel(m, &k);
  }
  free(name);
  return rc;
}

/* roctx line; push/pop pair up on one stack per file (as the reference). */
typedef struct rstack {
  char **msg;
  int64_t *ts;
  int n, cap;
} rstack;

static int v1_roctx_line(imp *m, v1file *v, rstack *st, int64_t *unmatched)
{
  int64_t ts, pid, tid, type;
  const char *p = v->line;
  char *e;
  errno = 0;
  ts = strtoll(p, &e, 10);
  if (e == p || !isspace((unsigned char)*e))
    return bad_line(v, "roctx");
  p = e;
  while (isspace((unsigned char)*p))
    p++;
  if (pair(&p, &pid, &tid))
    return bad_line(v, "roctx");
  type = strtoll(p, &e, 10);
  if (e == p || *e != ':')
    return bad_line(v, "roctx");
  const char *q = strchr(e + 1, ':');
  if (!q || q[1] != '"')
    return bad_line(v, "roctx");
  char *msg = rpd_xstrdup(q + 2);
  char *end = strrchr(msg, '"');
  if (end)
    *end = '\0';
  apirec a = {0};
  a.pid = pid;
  a.tid = tid;
  a.domain = "ROCTX";
  a.category = "MARKER_CORE_API";
  a.name = "UserMarker";
  int rc = RPD_OK;
  if (type == 1) {
    if (st->n == st->cap) {
      st->cap = st->cap ? 2 * st->cap : 16;
      st->msg = rpd_xrealloc(st->msg, st->cap * sizeof *st->msg);
      st->ts = rpd_xrealloc(st->ts, st->cap * sizeof *st->ts);
    }
    st->msg[st->n] = msg;
    st->ts[st->n++] = ts;
    return RPD_OK;
  }
  if (type == 2) {
    if (!st->n) {
      (*unmatched)++;
      free(msg);
      return RPD_OK;
    }
    st->n--;
    a.start = st->ts[st->n];
    a.end = ts;
    a.args = st->msg[st->n];
    rc = w_api(m, &a);
    free(st->msg[st->n]);
  } else {
    a.start = a.end = ts;
    a.args = msg;
    rc = w_api(m, &a);
  }
  free(msg);
  return rc;
}

static const char *const v1_kindname[V_NKINDS] = {
  "v1 hip_api", "v1 hcc_ops", "v1 hsa_api", "v1 roctx"
};

/* One text file of kind k. */
static int v1_text(imp *m, const char *path, FILE *f, int k, v1run *run)
{
  v1file v = {0};
  rstack st = {0};
  int64_t unmatched = 0;
  int rc = RPD_OK, g;
  v.path = path;
  v.f = f ? f : fopen(path, "r");
  if (!v.f)
    return rpd_seterr(RPD_EIO, "cannot read '%s': %s", path, strerror(errno));
  while (!rc && (g = v1_line(&v)) != 0) {
    if (g < 0) {
      rc = RPD_EPARSE;
      break;
    }
    if (!v.line[0])
      continue;
    count_read(m, v1_kindname[k], 1);
    if (k == V_HIP || k == V_HSA)
      rc = v1_api_line(m, &v, k == V_HSA, run);
    else if (k == V_OPS)
      rc = v1_op_line(m, &v, run);
    else
      rc = v1_roctx_line(m, &v, &st, &unmatched);
  }
  if (!rc && (unmatched || st.n))
    m->n_v1_unmatched += unmatched + st.n;
  for (int i = 0; i < st.n; i++)
    free(st.msg[i]);
  free(st.msg);
  free(st.ts);
  free(v.line);
  fclose(v.f);
  return rc;
}

int import_v1_stream(imp *m, FILE *f, const char *name, int which)
{
  v1run run;
  memset(&run, 0, sizeof run);
  int rc = v1_text(m, name, f, ((which % V_NKINDS) + V_NKINDS) % V_NKINDS, &run);
  imap_free(&run.knames);
  imap_free(&run.sizes);
  return rc;
}

/* ------------------------------------------------------- the directory */

static int strcmp_p(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

void v1_free(v1set *s)
{
  for (int i = 0; i < s->n; i++)
    free(s->f[i]);
  free(s->f);
  memset(s, 0, sizeof *s);
}

int v1_collect(const char *input, v1set *s)
{
  struct stat sb;
  char *dir;
  memset(s, 0, sizeof *s);
  if (stat(input, &sb))
    return 0;
  if (S_ISDIR(sb.st_mode))
    dir = rpd_xstrdup(input);
  else {
    int ok = 0;
    for (int k = 0; k < V_NKINDS; k++)
      ok |= endswith(input, v1_suffix[k]);
    if (!ok)
      return 0;
    dir = rpd_xstrdup(input);
    char *sl = strrchr(dir, '/');
    if (sl)
      *sl = '\0';
    else
      strcpy(dir, ".");
  }
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)))
    for (int k = 0; k < V_NKINDS; k++)
      if (endswith(e->d_name, v1_suffix[k])) {
        s->f = rpd_xrealloc(s->f, (s->n + 1) * sizeof *s->f);
        s->f[s->n++] = rpd_xasprintf("%s/%s", dir, e->d_name);
      }
  if (d)
    closedir(d);
  free(dir);
  if (s->n > 1)
    qsort(s->f, s->n, sizeof *s->f, strcmp_p);
  return s->n;
}

/* The kind of a file name and the length of its run prefix. */
static int v1_kind(const char *path, size_t *plen)
{
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  for (int k = 0; k < V_NKINDS; k++)
    if (endswith(base, v1_suffix[k])) {
      *plen = (size_t)(base - path) + strlen(base) - strlen(v1_suffix[k]);
      return k;
    }
  return -1;
}

int import_v1_text(imp *m, v1set *s)
{
  int rc = RPD_OK;
  /* per run prefix (one process): hip api first (kernel names), then the
   * ops, hsa and roctx */
  for (int i = 0; i < s->n && !rc;) {
    size_t plen, pl2;
    v1_kind(s->f[i], &plen);
    int j = i;
    while (j < s->n && v1_kind(s->f[j], &pl2) >= 0 && pl2 == plen &&
           !strncmp(s->f[j], s->f[i], plen))
      j++;
    v1run run;
    memset(&run, 0, sizeof run);
    if (i)
      new_section(m);
    for (int k = 0; k < V_NKINDS && !rc; k++)
      for (int x = i; x < j && !rc; x++)
        if (v1_kind(s->f[x], &pl2) == k)
          rc = v1_text(m, s->f[x], NULL, k, &run);
    imap_free(&run.knames);
    imap_free(&run.sizes);
    i = j;
  }
  return rc;
}

/* ------------------------------------------------------------ results.db */

/* A kernel-only run (rocprof --stats or -i counters, no --hip-trace)
 * leaves a results.db with just the KERN table. */
static int v1_kern_only(rpd *in)
{
  return rpd_table_exists(in, "KERN") && !rpd_table_exists(in, "OPS") &&
         !rpd_table_exists(in, "HIP");
}

int v1_is_db(rpd *in)
{
  return ((rpd_table_exists(in, "OPS") && rpd_table_exists(in, "HIP")) || v1_kern_only(in)) &&
         !rpd_table_exists(in, "rocpd_region") && !rpd_table_exists(in, "rocpd_op");
}

/* Rows of table `tab` of the v1 database; kind 0 api (HIP/HSA), 1 ops/copies;
 * sizes: copy call -> sizeBytes (filled from HIP, read for COPY). */
static int v1_db_table(imp *m, rpd *in, const char *tab, int kind, imap *sizes)
{
  sqlite3_stmt *st = NULL;
  char *sql = kind == 0 ?
    sqlite3_mprintf("SELECT BeginNs, EndNs, pid, tid, Name, args, \"Index\" FROM \"%w\"", tab) :
    sqlite3_mprintf("SELECT BeginNs, EndNs, \"dev-id\", \"queue-id\", Name, \"Index\" FROM \"%w\"",
                    tab);
  char *kindname = rpd_xasprintf("v1 %s", tab);
  int rc = rpd_prepare(in, sql, &st), s = 0;
  while (!rc && (s = rpd_step(in, st)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 4);
    count_read(m, kindname, 1);
    int64_t t0, t1;
    if ((rc = db_time(st, 0, tab, &t0)) || (rc = db_time(st, 1, tab, &t1)))
      break;
    if (kind == 0) {
      apirec a = {0};
      const char *args = (const char *)sqlite3_column_text(st, 5);
      a.start = t0;
      a.end = t1;
      a.pid = sqlite3_column_int64(st, 2);
      a.tid = sqlite3_column_int64(st, 3);
      a.corr = sqlite3_column_int64(st, 6);
      a.domain = !strcmp(tab, "HSA") ? "HSA" : "HIP";
      a.category = !strcmp(tab, "HSA") ? "HSA_API" : "HIP_API";
      a.name = name ? name : "";
      a.args = args ? args : "";
      rc = w_api(m, &a);
      int64_t size = args_size(args);
      if (!rc && size >= 0)
        imap_put(sizes, a.corr, size);
      continue;
    }
    int ck = copy_kind(name);
    int64_t gpu = sqlite3_column_int64(st, 2);
    if (!strcmp(tab, "COPY") || (ck >= 0 && name && !strncmp(name, "Copy", 4))) {
      copyrec cp = {0};
      cp.kind = ck;
      cp.src_gpu = ck == 2 || ck == 3 ? gpu : -1;
      cp.dst_gpu = ck == 1 || ck == 3 ? gpu : -1;
      cp.start = t0;
      cp.end = t1;
      cp.corr = sqlite3_column_int64(st, 5);
      if (!imap_get(sizes, cp.corr, &cp.bytes))
        cp.bytes = 0;
      rc = w_copy(m, &cp);
    } else {
      kern k = {0};
      k.gpu = gpu;
      k.queue = sqlite3_column_int64(st, 3);
      k.start = t0;
      k.end = t1;
      k.corr = sqlite3_column_int64(st, 5);
      rc = w_kernel_name(m, name ? name : "", NULL, &k.desc_id, &k.name_id);
      if (!rc)
        rc = w_kernel(m, &k);
    }
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  sqlite3_free(sql);
  free(kindname);
  return rc;
}

/* KERN: one row per dispatch with results.csv's columns (Index,
 * KernelName, gpu-id, queue-id, BeginNs, EndNs, grd, wgr, lds, scr, ...),
 * its counters in the columns v1_is_fixed does not know.  Without
 * BeginNs/EndNs (no --timestamp on) the op has start = end = 0. */
static int v1_db_kern(imp *m, rpd *in)
{
  static const char *const want[] = {
    "Index", "KernelName", "gpu-id", "queue-id", "BeginNs", "EndNs", "grd", "wgr", "lds", "scr"
  };
  enum { NWANT = sizeof want / sizeof want[0] };
  int col[NWANT], ncol, s = 0;
  sqlite3_stmt *st = NULL;
  int rc = rpd_prepare(in, "SELECT * FROM KERN ORDER BY rowid", &st);

  ncol = rc ? 0 : sqlite3_column_count(st);
  for (int w = 0; w < NWANT; w++) {
    col[w] = -1;
    for (int i = 0; i < ncol; i++)
      if (!strcmp(sqlite3_column_name(st, i), want[w]))
        col[w] = i;
  }
  for (int w = 0; w < 2 && !rc; w++)
    if (col[w] < 0)
      rc = rpd_seterr(RPD_EPARSE, "rocprof v1 KERN table: missing column '%s'", want[w]);
  while (!rc && (s = rpd_step(in, st)) == SQLITE_ROW) {
    int64_t v[NWANT] = {0};
    const char *name = (const char *)sqlite3_column_text(st, col[1]);
    kern k = {0};
    count_read(m, "v1 KERN", 1);
    for (int w = 2; w < NWANT; w++)
      if (col[w] >= 0)
        v[w] = sqlite3_column_int64(st, col[w]);
    k.seq = sqlite3_column_int64(st, col[0]);
    k.gpu = v[2];
    k.queue = v[3];
    k.start = v[4];
    k.end = v[5];
    k.grid[0] = v[6];
    k.wg[0] = v[7];
    k.lds = v[8];
    k.scratch = v[9];
    if (col[4] < 0 || col[5] < 0)
      m->n_v1_untimed++;
    rc = w_kernel_name(m, name ? name : "", NULL, &k.desc_id, &k.name_id);
    if (!rc)
      rc = w_kernel(m, &k);
    int64_t op_id = m->last_op;
    for (int i = 0; i < ncol && !rc; i++) {
      int t = sqlite3_column_type(st, i);
      const char *h = sqlite3_column_name(st, i);
      if (v1_is_fixed(h) || t == SQLITE_NULL)
        continue;
      if (t == SQLITE_INTEGER || t == SQLITE_FLOAT)
        rc = w_counter(m, op_id, h, sqlite3_column_double(st, i));
      else
        rc = rpd_seterr(RPD_EPARSE, "rocprof v1 KERN table: row %" PRId64 ": counter '%s' is "
                        "not a number", k.seq, h);
    }
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  return rc;
}

int import_v1_db(imp *m, rpd *in)
{
  if (v1_kern_only(in))
    return v1_db_kern(m, in);

  static const struct { const char *tab; int kind; } tabs[] = {
    {"HIP", 0}, {"HSA", 0}, {"OPS", 1}, {"COPY", 1}
  };
  int rc = RPD_OK;
  imap sizes = {0};
  for (size_t i = 0; i < sizeof tabs / sizeof tabs[0] && !rc; i++)
    if (rpd_table_exists(in, tabs[i].tab))
      rc = v1_db_table(m, in, tabs[i].tab, tabs[i].kind, &sizes);
  imap_free(&sizes);
  return rc;
}
