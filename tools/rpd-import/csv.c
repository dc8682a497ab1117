/* csv.c - rpd-import: a rocprofv3 CSV set (kernel_trace, *_api_trace,
 * memory_copy_trace, agent_info), one record at a time. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "rpd.h"
#include "import.h"
#include "pipe.h"    /* the writer thread */
#include "strictint.h"

/* ------------------------------------------------------------ CSV input */

typedef struct csv {
  FILE *f;
  const char *path;
  int64_t line;         /* line of the current record's start */
  int64_t nextline;
  char *buf;            /* read buffer: buf[pos..len) not consumed yet */
  size_t pos, len;
  char *rec;            /* the current record's fields, each NUL-ended */
  size_t rlen, rcap;
  size_t *off;          /* field i starts at rec + off[i] */
  int nfld, capfld;
  char **hdr;
  int nhdr;
  int keep;             /* > 0: keep the first `keep` fields of each
                         * record, skip the rest unparsed (a column scan) */
} csv;

enum { CSV_CHUNK = 1 << 18 };

/* The import whose progress line counts the bytes read (import_csv sets
 * it for the duration of a set; NULL otherwise). */
static imp *csv_prog;

/* Read the next block: 1 when there are bytes, 0 at the end. */
static int csv_refill(csv *c)
{
  if (!c->buf)
    c->buf = rpd_xmalloc(CSV_CHUNK);
  c->len = fread(c->buf, 1, CSV_CHUNK, c->f);
  c->pos = 0;
  if (csv_prog)
    prog_add(csv_prog, (int64_t)c->len);
  return c->len > 0;
}

/* Room for n more bytes in the record (and its final NUL). */
static void rec_reserve(csv *c, size_t n)
{
  if (c->rlen + n + 1 > c->rcap) {
    while (c->rlen + n + 1 > c->rcap)
      c->rcap = c->rcap ? 2 * c->rcap : 1024;
    c->rec = rpd_xrealloc(c->rec, c->rcap);
  }
}

/* Room for one more field offset. */
static void fld_reserve(csv *c)
{
  if (c->nfld == c->capfld) {
    c->capfld = c->capfld ? 2 * c->capfld : 32;
    c->off = rpd_xrealloc(c->off, c->capfld * sizeof *c->off);
  }
}

/* Scanner states of csv_next, kept across buffer refills. */
enum { CS_PLAIN, CS_QUOTED, CS_QUOTE_SEEN, CS_SKIP, CS_SKIP_QUOTED };

/* Read one RFC 4180 record into c->rec/off; 1 = got one, 0 = EOF,
 * -1 = error.  Quoted fields may hold commas, "" and newlines; CR is
 * dropped outside quotes.  One pass over the read buffer with a write
 * pointer into the record: the record has room for the whole buffered
 * rest before the scan, so the inner loop checks no capacity. */
static int csv_next(csv *c)
{
  int st = CS_PLAIN, any = 0;
  size_t fstart = 0;        /* start of the current field in rec */
  c->rlen = 0;
  c->nfld = 0;
  c->line = c->nextline;
  fld_reserve(c);
  c->off[c->nfld++] = 0;
  for (;;) {
    if (c->pos >= c->len && !csv_refill(c)) {
      if (st == CS_QUOTED || st == CS_SKIP_QUOTED)
        return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": unterminated quoted "
                          "field at end of file", c->path, c->line), -1;
      if (!any)
        return 0;
      rec_reserve(c, 0);
      c->rec[c->rlen] = '\0';
      return 1;
    }
    any = 1;
    rec_reserve(c, c->len - c->pos);
    const char *p = c->buf + c->pos, *e = c->buf + c->len;
    char *w = c->rec + c->rlen;
    int64_t nl = 0;
    while (p < e) {
      if (st >= CS_SKIP) {
        /* the fields after c->keep: find the record's end, minding
         * quotes ("" toggles twice), copying nothing */
        if (st == CS_SKIP_QUOTED) {
          const char *q = memchr(p, '"', (size_t)(e - p));
          for (const char *x = p; x < (q ? q : e); x++)
            nl += *x == '\n';
          p = q ? q + 1 : e;
          if (q)
            st = CS_SKIP;
          continue;
        }
        while (p < e && *p != '\n' && *p != '"')
          p++;
        if (p < e && *p == '"') {
          p++;
          st = CS_SKIP_QUOTED;
          continue;
        }
        if (p == e)
          continue;
      }
      char ch = *p++;
      if (st == CS_QUOTED) {
        /* the run up to the closing quote */
        const char *q = p - 1;
        while (q < e && *q != '"') {
          nl += *q == '\n';
          *w++ = *q++;
        }
        p = q + (q < e);
        if (q < e)
          st = CS_QUOTE_SEEN;
        continue;
      }
      if (st == CS_QUOTE_SEEN) {
        if (ch == '"') {          /* "" inside quotes */
          *w++ = '"';
          st = CS_QUOTED;
          continue;
        }
        st = CS_PLAIN;
      }
      if (ch == ',') {
        *w++ = '\0';
        c->rlen = (size_t)(w - c->rec);
        fld_reserve(c);
        c->off[c->nfld++] = c->rlen;
        fstart = c->rlen;
        if (c->keep && c->nfld > c->keep)
          st = CS_SKIP;
      } else if (ch == '"' && (size_t)(w - c->rec) == fstart) {
        st = CS_QUOTED;
      } else if (ch == '\n') {
        *w = '\0';
        c->rlen = (size_t)(w - c->rec);
        c->pos = (size_t)(p - c->buf);
        c->nextline += nl + 1;
        return 1;
      } else if (ch != '\r') {
        *w++ = ch;
      }
    }
    c->rlen = (size_t)(w - c->rec);
    c->pos = c->len;
    c->nextline += nl;
  }
}

static void csv_close(csv *c)
{
  if (c->f)
    fclose(c->f);
  free(c->buf);
  free(c->rec);
  free(c->off);
  for (int i = 0; i < c->nhdr; i++)
    free(c->hdr[i]);
  free(c->hdr);
  memset(c, 0, sizeof *c);
}

/* Open the CSV file path -- or read the stream f (taken over) when not
 * NULL -- and read its header. */
static int csv_open(csv *c, const char *path, FILE *f)
{
  memset(c, 0, sizeof *c);
  c->path = path;
  c->nextline = 1;
  c->f = f ? f : fopen(path, "r");
  if (!c->f)
    return rpd_seterr(RPD_EIO, "cannot read '%s': %s", path, strerror(errno));
  int g = csv_next(c);
  if (g < 0)
    return RPD_EPARSE;
  if (g == 0)
    return rpd_seterr(RPD_EPARSE, "%s: empty file (no header line)", path);
  c->nhdr = c->nfld;
  c->hdr = rpd_xcalloc(c->nhdr, sizeof *c->hdr);
  for (int i = 0; i < c->nhdr; i++)
    c->hdr[i] = rpd_xstrdup(c->rec + c->off[i]);
  return RPD_OK;
}

/* Column index of the first of the '|'-separated names, or -1. */
static int csv_col(const csv *c, const char *names)
{
  const char *p = names;
  while (*p) {
    size_t len = strcspn(p, "|");
    for (int i = 0; i < c->nhdr; i++)
      if (strlen(c->hdr[i]) == len && !strncasecmp(c->hdr[i], p, len))
        return i;
    p += len;
    if (*p)
      p++;
  }
  return -1;
}

static const char *cval(const csv *c, int col)
{
  return col >= 0 && col < c->nfld ? c->rec + c->off[col] : "";
}

/* Integer field, read by the strict reader (common/util/strictint.h) after an
 * "Agent 3" style prefix and before trailing spaces.  An empty cell is 0,
 * except in a *_Timestamp column: a time that is not there is refused. */
static int cint(const csv *c, int col, int64_t *v)
{
  const char *s = cval(c, col), *p = s;
  *v = 0;
  if (col < 0)
    return RPD_OK;
  if (!*s) {
    size_t hl = strlen(c->hdr[col]);
    if (hl < 10 || strcasecmp(c->hdr[col] + hl - 10, "_Timestamp"))
      return RPD_OK;
    return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": column '%s' is empty",
                      c->path, c->line, c->hdr[col]);
  }
  while (*p && !isdigit((unsigned char)*p) && *p != '-')
    p++;
  size_t n = strlen(p);
  while (n && p[n - 1] == ' ')
    n--;
  if (rpd_int_text(p, n, v))
    return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": column '%s': not a "
                      "number: '%.40s'", c->path, c->line, c->hdr[col], s);
  return RPD_OK;
}

/* Floating-point field ("16384.000000", "1.5e+03"; empty = 0). */
static int cdbl(const csv *c, int col, double *v)
{
  const char *s = cval(c, col);
  char *e;
  *v = 0;
  if (col < 0 || !*s)
    return RPD_OK;
  *v = strtod(s, &e);
  while (*e == ' ')
    e++;
  if (e == s || *e || *v != *v)
    return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": column '%s': not a "
                      "number: '%.40s'", c->path, c->line, c->hdr[col], s);
  return RPD_OK;
}

static int need_cols(const csv *c, const char *const *names, int *cols, int n)
{
  for (int i = 0; i < n; i++) {
    int optional = names[i][0] == '?';
    cols[i] = csv_col(c, names[i] + optional);
    if (cols[i] < 0 && !optional)
      return rpd_seterr(RPD_EPARSE, "%s: missing column '%s'", c->path, names[i]);
  }
  return RPD_OK;
}

static int check_width(const csv *c)
{
  if (c->nfld != c->nhdr)
    return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": %d fields, header has %d",
                      c->path, c->line, c->nfld, c->nhdr);
  return RPD_OK;
}

/* CSV agent numbers -> gpu index. */
typedef struct agentmap {
  imap gpu;        /* agent number -> gpu index, -1 = CPU */
  int known;
} agentmap;

static int csv_agent_info(const char *path, FILE *f, agentmap *am)
{
  csv c;
  int rc = csv_open(&c, path, f), g;
  int col_node = -1, col_type = -1, col_tidx = -1;
  if (!rc) {
    col_node = csv_col(&c, "Logical_Node_Id|Node_Id");
    col_type = csv_col(&c, "Agent_Type|Type");
    col_tidx = csv_col(&c, "Logical_Node_Type_Id");
    if (col_node < 0 || col_type < 0)
      rc = rpd_seterr(RPD_EPARSE, "%s: missing Logical_Node_Id/Agent_Type", path);
  }
  while (!rc && (g = csv_next(&c)) > 0) {
    int64_t node, tidx = 0;
    rc = cint(&c, col_node, &node);
    if (!rc && col_tidx >= 0)
      rc = cint(&c, col_tidx, &tidx);
    if (!rc)
      imap_put(&am->gpu, node, strstr(cval(&c, col_type), "GPU") ? tidx : -1);
  }
  if (!rc && g < 0)
    rc = RPD_EPARSE;
  if (!rc)
    am->known = 1;
  csv_close(&c);
  return rc;
}

/* Without agent_info.csv: GPU agents are the agents that ran kernels (or
 * whose kernels had counters collected), numbered 0.. in ascending agent
 * order.  files: the n file lists to scan. */
static int csv_agent_scan(char **const *files, const int *nfiles, int n, agentmap *am)
{
  int64_t ids[256];
  int nids = 0, rc = RPD_OK, g;
  for (int l = 0; l < n; l++)
    for (int i = 0; i < nfiles[l] && !rc; i++) {
      csv c;
      rc = csv_open(&c, files[l][i], NULL);
      int col = rc ? -1 : csv_col(&c, "Agent_Id");
      c.keep = col + 1;         /* only the fields up to Agent_Id */
      while (!rc && col >= 0 && (g = csv_next(&c)) > 0) {
        int64_t a;
        rc = cint(&c, col, &a);
        int seen = 0;
        for (int k = 0; k < nids; k++)
          seen |= ids[k] == a;
        if (!rc && !seen && nids < 256)
          ids[nids++] = a;
      }
      csv_close(&c);
    }
  for (int i = 0; i < nids; i++) {
    int rank = 0;
    for (int k = 0; k < nids; k++)
      rank += ids[k] < ids[i];
    imap_put(&am->gpu, ids[i], rank);
  }
  return rc;
}

static int64_t csv_gpu(const agentmap *am, int64_t agent)
{
  int64_t g;
  return imap_get(&am->gpu, agent, &g) ? g : -1;
}

/* One record of a CSV section; col[] are the indexes of its column names. */
typedef int (*csv_row_fn)(imp *m, const csv *c, const int *col, const void *arg);

enum { CSV_MAXCOLS = 16 };

/* Read every record of the CSV file `path`, which must have the columns
 * `names` (n <= CSV_MAXCOLS, see need_cols): count it as `kind`, check its
 * width and hand it to row(m, c, col, arg). */
static int csv_each(imp *m, const char *path, FILE *f, const char *kind,
                    const char *const *names, int n, csv_row_fn row, const void *arg)
{
  int col[CSV_MAXCOLS], g = 0;
  csv c;
  int rc = csv_open(&c, path, f);
  if (!rc)
    rc = need_cols(&c, names, col, n);
  while (!rc && (g = csv_next(&c)) > 0) {
    if (c.nfld == 1 && !c.rec[0] && c.nhdr > 1) {
      m->n_blank++;             /* a blank line (some samples end with one) */
      continue;
    }
    count_read(m, kind, 1);
    rc = check_width(&c);
    if (!rc)
      rc = row(m, &c, col, arg);
  }
  if (!rc && g < 0)
    rc = RPD_EPARSE;
  csv_close(&c);
  return rc;
}

static const char *const csv_kernel_cols[] = {
  "Agent_Id", "?Queue_Id", "?Stream_Id", "?Dispatch_Id", "Kernel_Name",
  "Correlation_Id", "Start_Timestamp", "End_Timestamp",
  "?LDS_Block_Size|Group_Segment_Size|LDS_Size", "?Scratch_Size|Private_Segment_Size",
  "?Workgroup_Size_X", "?Workgroup_Size_Y", "?Workgroup_Size_Z",
  "?Grid_Size_X", "?Grid_Size_Y", "?Grid_Size_Z"
};
enum { NKERNEL_COLS = sizeof csv_kernel_cols / sizeof csv_kernel_cols[0] };

static int csv_kernel_row(imp *m, const csv *c, const int *col, const void *arg)
{
  const agentmap *am = arg;
  kern k = {0};
  int64_t v[NKERNEL_COLS];
  int rc = RPD_OK;
  for (int i = 0; i < NKERNEL_COLS && !rc; i++)
    rc = i == 4 ? RPD_OK : cint(c, col[i], &v[i]);
  if (rc)
    return rc;
  k.gpu = csv_gpu(am, v[0]);
  k.queue = v[1];
  k.stream = v[2];
  k.seq = v[3];
  k.corr = v[5];
  k.start = v[6];
  k.end = v[7];
  k.lds = v[8];
  k.scratch = v[9];
  for (int i = 0; i < 3; i++) {
    k.wg[i] = v[10 + i];
    k.grid[i] = v[13 + i];
  }
  /* CSV has one name: the full one unless rocprofv3 ran with
   * --truncate-kernels (then main records that the names are short) */
  rc = w_kernel_name(m, cval(c, col[4]), NULL, &k.desc_id, &k.name_id);
  if (!rc)
    rc = w_kernel(m, &k);
  return rc;
}

static int csv_kernels(imp *m, const char *path, FILE *f, const agentmap *am)
{
  return csv_each(m, path, f, "kernel_dispatch", csv_kernel_cols, NKERNEL_COLS,
                  csv_kernel_row, am);
}

static const char *const csv_api_cols[] = {
  "?Domain", "Function", "?Process_Id", "Thread_Id", "Correlation_Id",
  "Start_Timestamp", "End_Timestamp", "?Args|Arguments"
};

/* What the api rows of one CSV file are. */
typedef struct apisrc {
  const char *domain;  /* NULL: from each row's Domain column */
  int marker;          /* marker_api: the Function column is the message */
} apisrc;

/* The rpd domain of a rocprofv3 category (HIP_RUNTIME_API_EXT -> HIP);
 * *marker = 1 for the marker (roctx) categories. */
static const char *domain_of(const char *category, int *marker)
{
  static const char *const map[][2] = {
    {"HIP_", "HIP"}, {"HSA_", "HSA"}, {"MARKER_", "ROCTX"}, {"RCCL_", "RCCL"},
    {"ROCDECODE_", "ROCDECODE"}, {"ROCJPEG_", "ROCJPEG"}, {"KFD_", "KFD"},
    {"OMPT", "OMPT"}
  };
  *marker = !strncmp(category, "MARKER_", 7);
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strncmp(category, map[i][0], strlen(map[i][0])))
      return map[i][1];
  return category;
}

static int csv_api_row(imp *m, const csv *c, const int *col, const void *arg)
{
  const apisrc *src = arg;
  apirec a = {0};
  int rc = cint(c, col[2], &a.pid);
  if (!rc) rc = cint(c, col[3], &a.tid);
  if (!rc) rc = cint(c, col[4], &a.corr);
  if (!rc) rc = cint(c, col[5], &a.start);
  if (!rc) rc = cint(c, col[6], &a.end);
  if (rc)
    return rc;
  int marker = src->marker;
  a.category = cval(c, col[0]);
  a.domain = src->domain ? src->domain : domain_of(a.category, &marker);
  a.name = marker ? "UserMarker" : cval(c, col[1]);
  a.args = marker ? cval(c, col[1]) : cval(c, col[7]);
  return w_api(m, &a);
}

static int csv_apis(imp *m, const char *path, FILE *f, const char *kind,
                    const char *domain)
{
  apisrc src = {domain, !strcmp(kind, "marker_api")};
  if (!domain)
    src.marker = 0;
  return csv_each(m, path, f, kind, csv_api_cols,
                  sizeof csv_api_cols / sizeof csv_api_cols[0], csv_api_row, &src);
}

static const char *const csv_copy_cols[] = {
  "?Direction|Operation", "Source_Agent_Id|Src_Agent_Id",
  "Destination_Agent_Id|Dst_Agent_Id", "Correlation_Id", "Start_Timestamp",
  "End_Timestamp", "?Size|Bytes|Copy_Bytes", "?Stream_Id"
};

static int csv_copy_row(imp *m, const csv *c, const int *col, const void *arg)
{
  const agentmap *am = arg;
  copyrec cp = {0};
  int64_t src, dst;
  int rc = cint(c, col[1], &src);
  if (!rc) rc = cint(c, col[2], &dst);
  if (!rc) rc = cint(c, col[3], &cp.corr);
  if (!rc) rc = cint(c, col[4], &cp.start);
  if (!rc) rc = cint(c, col[5], &cp.end);
  if (!rc) rc = cint(c, col[6], &cp.bytes);
  if (!rc) rc = cint(c, col[7], &cp.stream);
  if (rc)
    return rc;
  cp.kind = copy_kind(cval(c, col[0]));
  cp.src_gpu = csv_gpu(am, src);
  cp.dst_gpu = csv_gpu(am, dst);
  return w_copy(m, &cp);
}

static int csv_copies(imp *m, const char *path, FILE *f, const agentmap *am)
{
  return csv_each(m, path, f, "memory_copy", csv_copy_cols,
                  sizeof csv_copy_cols / sizeof csv_copy_cols[0], csv_copy_row, am);
}

static const char *const csv_counter_cols[] = {
  "?Correlation_Id", "Dispatch_Id", "Agent_Id", "?Queue_Id", "?Kernel_Name",
  "Counter_Name", "Counter_Value", "?Start_Timestamp", "?End_Timestamp",
  "?Grid_Size", "?Workgroup_Size", "?LDS_Block_Size", "?Scratch_Size"
};

/* counter_collection.csv: one row per (dispatch, counter); the value goes
 * to rocpd_counter on the dispatch's op (from kernel_trace.csv, else made
 * here from the row). */
static int csv_counter_row(imp *m, const csv *c, const int *col, const void *arg)
{
  const agentmap *am = arg;
  kern k = {0};
  int64_t agent, op_id;
  double v;
  int rc = cint(c, col[0], &k.corr);
  if (!rc) rc = cint(c, col[1], &k.seq);
  if (!rc) rc = cint(c, col[2], &agent);
  if (!rc) rc = cint(c, col[3], &k.queue);
  if (!rc) rc = cint(c, col[7], &k.start);
  if (!rc) rc = cint(c, col[8], &k.end);
  if (!rc) rc = cint(c, col[9], &k.grid[0]);
  if (!rc) rc = cint(c, col[10], &k.wg[0]);
  if (!rc) rc = cint(c, col[11], &k.lds);
  if (!rc) rc = cint(c, col[12], &k.scratch);
  if (!rc) rc = cdbl(c, col[6], &v);
  if (rc)
    return rc;
  if (!*cval(c, col[5]))
    return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": empty Counter_Name",
                      c->path, c->line);
  k.gpu = csv_gpu(am, agent);
  if (!imap_get(&m->disp_op, k.seq, &op_id)) {
    rc = w_kernel_name(m, cval(c, col[4]), NULL, &k.desc_id, &k.name_id);
    if (rc)
      return rc;
  }
  rc = w_counter_op(m, k.seq, &k, &op_id);
  if (!rc)
    rc = w_counter(m, op_id, cval(c, col[5]), v);
  return rc;
}

static int csv_counters(imp *m, const char *path, FILE *f, const agentmap *am)
{
  return csv_each(m, path, f, "counter_collection", csv_counter_cols,
                  sizeof csv_counter_cols / sizeof csv_counter_cols[0],
                  csv_counter_row, am);
}

static const char *const csv_alloc_cols[] = {
  "Operation", "?Agent_Id", "?Allocation_Size|Size", "?Address", "?Correlation_Id",
  "Start_Timestamp", "End_Timestamp"
};

static int csv_alloc_row(imp *m, const csv *c, const int *col, const void *arg)
{
  const agentmap *am = arg;
  allocrec a = {0};
  int64_t agent;
  int rc = cint(c, col[1], &agent);
  if (!rc) rc = cint(c, col[2], &a.size);
  if (!rc) rc = cint(c, col[4], &a.corr);
  if (!rc) rc = cint(c, col[5], &a.start);
  if (!rc) rc = cint(c, col[6], &a.end);
  if (rc)
    return rc;
  a.operation = cval(c, col[0]);
  a.agent = cval(c, col[1]);
  a.address = cval(c, col[3]);
  a.gpu = col[1] >= 0 && *a.agent ? csv_gpu(am, agent) : -1;
  return w_alloc(m, &a);
}

static const char *const csv_scratch_cols[] = {
  "Operation", "?Agent_Id", "?Queue_Id", "?Thread_Id", "?Alloc_Flags|Flags",
  "Start_Timestamp", "End_Timestamp"
};

static int csv_scratch_row(imp *m, const csv *c, const int *col, const void *arg)
{
  const agentmap *am = arg;
  scratchrec r = {0};
  int64_t agent;
  int rc = cint(c, col[1], &agent);
  if (!rc) rc = cint(c, col[2], &r.queue);
  if (!rc) rc = cint(c, col[3], &r.tid);
  if (!rc) rc = cint(c, col[4], &r.flags);
  if (!rc) rc = cint(c, col[5], &r.start);
  if (!rc) rc = cint(c, col[6], &r.end);
  if (rc)
    return rc;
  r.operation = cval(c, col[0]);
  r.agent = cval(c, col[1]);
  r.gpu = col[1] >= 0 && *r.agent ? csv_gpu(am, agent) : -1;
  return w_scratch(m, &r);
}

/* rocprof v1 results.csv: one row per dispatch, its counters in the
 * columns after the fixed ones (every column not in v1_fixed). */
static const char *const csv_v1res_cols[] = {
  "Index", "KernelName", "gpu-id", "?queue-id", "?BeginNs", "?EndNs", "?grd",
  "?wgr", "?lds", "?scr"
};

static const char *const v1_fixed[] = {
  "Index", "KernelName", "gpu-id", "queue-id", "queue-index", "pid", "tid", "grd",
  "wgr", "lds", "scr", "arch_vgpr", "accum_vgpr", "vgpr", "sgpr", "wave_size",
  "fbar", "sig", "obj", "DispatchNs", "BeginNs", "EndNs", "CompleteNs",
  "DurationNs", NULL          /* EndNs - BeginNs: rocprof's timing, not a counter */
};

int v1_is_fixed(const char *h)
{
  for (int i = 0; v1_fixed[i]; i++)
    if (!strcmp(h, v1_fixed[i]))
      return 1;
  return 0;
}

static int csv_v1res_row(imp *m, const csv *c, const int *col, const void *arg)
{
  (void)arg;
  kern k = {0};
  int64_t op_id;
  int rc = cint(c, col[0], &k.seq);
  if (!rc) rc = cint(c, col[2], &k.gpu);
  if (!rc) rc = cint(c, col[3], &k.queue);
  if (!rc) rc = cint(c, col[4], &k.start);
  if (!rc) rc = cint(c, col[5], &k.end);
  if (!rc) rc = cint(c, col[6], &k.grid[0]);
  if (!rc) rc = cint(c, col[7], &k.wg[0]);
  if (!rc) rc = cint(c, col[8], &k.lds);
  if (!rc) rc = cint(c, col[9], &k.scratch);
  if (!rc)
    rc = w_kernel_name(m, cval(c, col[1]), NULL, &k.desc_id, &k.name_id);
  if (!rc)
    rc = w_kernel(m, &k);
  op_id = m->last_op;
  for (int i = 0; i < c->nhdr && !rc; i++) {
    double v;
    if (v1_is_fixed(c->hdr[i]) || !*cval(c, i))
      continue;
    rc = cdbl(c, i, &v);
    if (!rc)
      rc = w_counter(m, op_id, c->hdr[i], v);
  }
  return rc;
}

/* The CSV kinds by slot of csvset (import_csv_stream's `which`). */
enum {
  K_KERNEL, K_HIP, K_HSA, K_MARKER, K_RCCL, K_COPY, K_AGENT, K_ROCDECODE,
  K_ROCJPEG, K_COUNTER, K_ALLOC, K_SCRATCH, K_API_ANY, K_V1RESULTS, K_NKINDS
};

static const char *const csv_suffix[CSV_KINDS] = {
  "kernel_trace.csv", "hip_api_trace.csv", "hsa_api_trace.csv",
  "marker_api_trace.csv", "rccl_api_trace.csv", "memory_copy_trace.csv",
  "agent_info.csv", "rocdecode_api_trace.csv", "rocjpeg_api_trace.csv",
  "counter_collection.csv", "memory_allocation_trace.csv",
  "scratch_memory_trace.csv", NULL
};

/* api files: record kind and rpd domain by slot (NULL domain: per row) */
static const char *const api_kind[K_NKINDS] = {
  [K_HIP] = "hip_api", [K_HSA] = "hsa_api", [K_MARKER] = "marker_api",
  [K_RCCL] = "rccl_api", [K_ROCDECODE] = "rocdecode_api",
  [K_ROCJPEG] = "rocjpeg_api", [K_API_ANY] = "api"
};
static const char *const api_domain[K_NKINDS] = {
  [K_HIP] = "HIP", [K_HSA] = "HSA", [K_MARKER] = "ROCTX", [K_RCCL] = "RCCL",
  [K_ROCDECODE] = "ROCDECODE", [K_ROCJPEG] = "ROCJPEG"
};

/* Read one file of kind `which` (see the enum). */
static int csv_read_one(imp *m, const char *path, FILE *f, int which, agentmap *am)
{
  if (which == K_KERNEL)
    return csv_kernels(m, path, f, am);
  if (which == K_COPY)
    return csv_copies(m, path, f, am);
  if (which == K_AGENT)
    return csv_agent_info(path, f, am);
  if (which == K_COUNTER)
    return csv_counters(m, path, f, am);
  if (which == K_ALLOC)
    return csv_each(m, path, f, "memory_allocation", csv_alloc_cols,
                    sizeof csv_alloc_cols / sizeof csv_alloc_cols[0], csv_alloc_row, am);
  if (which == K_SCRATCH)
    return csv_each(m, path, f, "scratch_memory", csv_scratch_cols,
                    sizeof csv_scratch_cols / sizeof csv_scratch_cols[0],
                    csv_scratch_row, am);
  if (which == K_V1RESULTS)
    return csv_each(m, path, f, "v1 results.csv", csv_v1res_cols,
                    sizeof csv_v1res_cols / sizeof csv_v1res_cols[0], csv_v1res_row, am);
  if (which > 0 && which < K_NKINDS && api_kind[which])
    return csv_apis(m, path, f, api_kind[which], api_domain[which]);
  if (f)
    fclose(f);
  return rpd_seterr(RPD_ERR, "%s: unknown CSV kind %d", path, which);
}

static void set_add(csvset *s, int k, const char *path)
{
  s->f[k] = rpd_xrealloc(s->f[k], (s->n[k] + 1) * sizeof *s->f[k]);
  s->f[k][s->n[k]++] = rpd_xstrdup(path);
}

int endswith(const char *s, const char *suf)
{
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

int is_file(const char *p)
{
  struct stat sb;
  return !stat(p, &sb) && S_ISREG(sb.st_mode);
}

static int strcmp_p(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Remember run prefix name[0..len) once. */
static void pfx_note(csvset *s, const char *name, size_t len)
{
  for (int i = 0; i < s->npfx; i++)
    if (strlen(s->pfx[i]) == len && !strncmp(s->pfx[i], name, len))
      return;
  s->pfx = rpd_xrealloc(s->pfx, (s->npfx + 1) * sizeof *s->pfx);
  s->pfx[s->npfx] = rpd_xmalloc(len + 1);
  memcpy(s->pfx[s->npfx], name, len);
  s->pfx[s->npfx++][len] = '\0';
}

/* Does the prefix name[0..len) match want (NULL = everything; "decode"
 * and "decode_" both match "decode_")? */
static int pfx_match(const char *want, const char *name, size_t len)
{
  if (!want)
    return 1;
  size_t w = strlen(want);
  if (w == len && !strncmp(want, name, len))
    return 1;
  return w + 1 == len && !strncmp(want, name, w) && name[w] == '_';
}

int csv_rows(const char *path, csv_rows_fn fn, void *arg)
{
  csv c;
  int rc = csv_open(&c, path, NULL), g = 0;
  const char **f = NULL;
  int cap = 0;
  if (!rc)
    rc = fn(arg, c.line, c.nhdr, (const char *const *)c.hdr);
  while (!rc && (g = csv_next(&c)) > 0) {
    if (c.nfld == 1 && !c.rec[0])
      continue;                         /* a blank line */
    if (c.nfld > cap) {
      cap = c.nfld;
      f = rpd_xrealloc(f, (size_t)cap * sizeof *f);
    }
    for (int i = 0; i < c.nfld; i++)
      f[i] = c.rec + c.off[i];
    rc = fn(arg, c.line, c.nfld, f);
  }
  if (!rc && g < 0)
    rc = RPD_EPARSE;
  free(f);
  csv_close(&c);
  return rc;
}

/* The kind of a lone CSV file whose name says nothing (hip_trace.csv,
 * rocpd-to-csv output, ...), from its header; -1 = none. */
static int csv_sniff(const char *path)
{
  static const struct { const char *cols; int kind; } rules[] = {
    {"KernelName", K_V1RESULTS},
    {"Counter_Name", K_COUNTER}, {"Kernel_Name", K_KERNEL},
    {"Source_Agent_Id", K_COPY}, {"Allocation_Size", K_ALLOC},
    {"Alloc_Flags", K_SCRATCH}, {"Function", K_API_ANY}
  };
  csv c;
  int kind = -1;
  if (!csv_open(&c, path, NULL))
    for (size_t i = 0; i < sizeof rules / sizeof rules[0] && kind < 0; i++)
      if (csv_col(&c, rules[i].cols) >= 0 && csv_col(&c, "Correlation_Id|Dispatch_Id|"
                                                     "Start_Timestamp|gpu-id") >= 0)
        kind = rules[i].kind;
  csv_close(&c);
  return kind;
}

const char *csv_not_trace(const char *path)
{
  csv c;
  const char *why = NULL;
  if (!endswith(path, ".csv") || csv_open(&c, path, NULL))
    return NULL;
  if (csv_col(&c, "TotalDurationNs") >= 0 && csv_col(&c, "Calls") >= 0)
    why = "a statistics file (rocprof --stats output), not a trace: import the"
          " trace files of the run";
  else if (csv_col(&c, "Sample_Timestamp") >= 0 && csv_col(&c, "Instruction") >= 0)
    why = "a PC sampling file: PC samples are not imported";
  csv_close(&c);
  return why;
}

/* A CSV file of a directory whose name is none of rocprofv3's kinds
 * (hip_trace.csv, hip_runtime_trace.csv, rccl_trace.csv, a renamed file):
 * its header says what it is; one that is not a trace is noted in s->skip
 * with the reason.  Returns 1 if it was added to the set. */
static int csv_collect_other(csvset *s, const char *path, const char *name)
{
  const char *why = NULL;
  int k = -1;
  if (s->want && strncmp(name, s->want, strlen(s->want)))
    why = "not of the run asked for with --prefix";
  else if (!is_file(path))
    why = "not a regular file";
  else if ((k = csv_sniff(path)) == K_V1RESULTS) {
    k = -1;                     /* not part of a rocprofv3 set */
    why = "a rocprof v1 results.csv: import it on its own";
  } else if (k < 0) {
    why = csv_not_trace(path);
    why = !why ? "not a rocprofv3 trace (unknown columns)" :
          !strncmp(why, "a statistics", 12) ? "a statistics file (--stats), not a trace" :
          !strncmp(why, "a PC sampling", 13) ? "PC samples are not imported" : why;
  }
  if (k >= 0) {
    set_add(s, k, path);
    return 1;
  }
  s->skip = rpd_xrealloc(s->skip, (s->nskip + 1) * sizeof *s->skip);
  s->skip[s->nskip++] = rpd_xasprintf("'%s': %s", path, why);
  return 0;
}

/* Collect the CSV files of a directory or of a prefix; 0 files = not CSV. */
int csv_collect(const char *input, csvset *s)
{
  struct stat sb;
  int total = 0;
  if (!stat(input, &sb) && S_ISDIR(sb.st_mode)) {
    DIR *d = opendir(input);
    struct dirent *e;
    char **other = NULL;
    int nother = 0;
    if (!d)
      return 0;
    while ((e = readdir(d))) {
      int k;
      for (k = 0; csv_suffix[k]; k++)
        if (endswith(e->d_name, csv_suffix[k])) {
          size_t plen = strlen(e->d_name) - strlen(csv_suffix[k]);
          pfx_note(s, e->d_name, plen);
          if (pfx_match(s->want, e->d_name, plen)) {
            char *p = rpd_xasprintf("%s/%s", input, e->d_name);
            set_add(s, k, p);
            free(p);
            total++;
          }
          break;
        }
      if (!csv_suffix[k] && endswith(e->d_name, ".csv")) {
        other = rpd_xrealloc(other, (nother + 1) * sizeof *other);
        other[nother++] = rpd_xstrdup(e->d_name);
      }
    }
    closedir(d);
    /* the others by their header, in name order (a directory of stats
     * files alone has no file to import: no CSV set) */
    if (nother > 1)
      qsort(other, nother, sizeof *other, strcmp_p);
    for (int i = 0; i < nother; i++) {
      char *p = rpd_xasprintf("%s/%s", input, other[i]);
      total += csv_collect_other(s, p, other[i]);
      free(p);
      free(other[i]);
    }
    free(other);
    if (s->npfx > 1)
      qsort(s->pfx, s->npfx, sizeof *s->pfx, strcmp_p);
  } else {
    char *prefix = rpd_xstrdup(input);
    for (int k = 0; csv_suffix[k]; k++)
      if (endswith(prefix, csv_suffix[k])) {
        prefix[strlen(prefix) - strlen(csv_suffix[k])] = '\0';
        break;
      }
    for (int k = 0; csv_suffix[k]; k++) {
      char *p = rpd_xasprintf("%s%s", prefix, csv_suffix[k]);
      char *q = rpd_xasprintf("%s_%s", prefix, csv_suffix[k]);
      if (is_file(p)) {
        set_add(s, k, p);
        total++;
      } else if (is_file(q)) {
        set_add(s, k, q);
        total++;
      }
      free(p);
      free(q);
    }
    free(prefix);
    int k;
    if (!total && endswith(input, ".csv") && is_file(input) &&
        (k = csv_sniff(input)) >= 0) {
      set_add(s, k, input);
      total++;
    }
  }
  for (int k = 0; csv_suffix[k]; k++)
    if (s->n[k] > 1)
      qsort(s->f[k], s->n[k], sizeof *s->f[k], strcmp_p);
  return total;
}

void set_free(csvset *s)
{
  for (int i = 0; i < s->nskip; i++)
    free(s->skip[i]);
  free(s->skip);
  for (int i = 0; i < s->npfx; i++)
    free(s->pfx[i]);
  free(s->pfx);
  for (int k = 0; k < CSV_KINDS; k++) {
    for (int i = 0; i < s->n[k]; i++)
      free(s->f[k][i]);
    free(s->f[k]);
  }
}

/* Order of reading: kernels before counters (which join to their ops),
 * api files before copies and the rest. */
static const int read_order[] = {
  K_KERNEL, K_COUNTER, K_HIP, K_HSA, K_MARKER, K_RCCL, K_ROCDECODE, K_ROCJPEG,
  K_API_ANY, K_COPY, K_ALLOC, K_SCRATCH, K_V1RESULTS
};

/* Bytes in the files f[0..n). */
static int64_t csv_list_bytes(char **f, int n)
{
  int64_t t = 0;
  struct stat sb;
  for (int i = 0; i < n; i++)
    if (!stat(f[i], &sb))
      t += (int64_t)sb.st_size;
  return t;
}

/* Bytes in every file of the set (the progress total). */
static int64_t csv_set_bytes(const csvset *s)
{
  int64_t t = 0;
  for (int k = 0; k < CSV_KINDS; k++)
    t += csv_list_bytes(s->f[k], s->n[k]);
  return t;
}

/* The same; a file whose rows are mostly inserted here (ext.c: counters,
 * allocations, scratch, v1 results.csv) is read with the writer thread
 * (pipe.c) paused: a pause per row would cost more than it saves. */
static int csv_read_kind(imp *m, const char *path, FILE *f, int which, agentmap *am)
{
  if (which != K_COUNTER && which != K_ALLOC && which != K_SCRATCH && which != K_V1RESULTS)
    return csv_read_one(m, path, f, which, am);
  int rc = pipe_pause(m);
  if (!rc)
    rc = csv_read_one(m, path, f, which, am);
  else if (f)
    fclose(f);
  pipe_resume(m);
  return rc;
}

int import_csv(imp *m, csvset *s)
{
  agentmap am;
  int rc = RPD_OK, any = 0;
  memset(&am, 0, sizeof am);
  for (int k = 0; k < K_NKINDS; k++)
    any |= k != K_AGENT && s->n[k] > 0;
  if (!any)
    return rpd_seterr(RPD_EPARSE, "no rocprofv3 *_trace.csv files found");
  prog_begin(m, "reading CSV", 1, csv_set_bytes(s));
  csv_prog = m;
  for (int i = 0; i < s->n[K_AGENT] && !rc; i++)
    rc = csv_agent_info(s->f[K_AGENT][i], NULL, &am);
  if (!rc && !am.known) {
    /* the kernel files are read twice: the progress total grows */
    m->prog_total += csv_list_bytes(s->f[K_KERNEL], s->n[K_KERNEL]) +
                     csv_list_bytes(s->f[K_COUNTER], s->n[K_COUNTER]);
    char **const lists[2] = { s->f[K_KERNEL], s->f[K_COUNTER] };
    const int nl[2] = { s->n[K_KERNEL], s->n[K_COUNTER] };
    rc = csv_agent_scan(lists, nl, 2, &am);
  }
  m->want_disp = s->n[K_COUNTER] > 0;
  for (size_t o = 0; o < sizeof read_order / sizeof read_order[0]; o++) {
    int k = read_order[o];
    for (int i = 0; i < s->n[k] && !rc; i++)
      rc = csv_read_kind(m, s->f[k][i], NULL, k, &am);
  }
  csv_prog = NULL;
  prog_end(m);
  imap_free(&am.gpu);
  return rc;
}

int import_csv_stream(imp *m, FILE *f, const char *name, int which)
{
  agentmap am;
  memset(&am, 0, sizeof am);
  m->want_disp = 1;
  int rc = csv_read_kind(m, name, f, which, &am);
  imap_free(&am.gpu);
  return rc;
}
