/* json.c - rpd-import: rocprofiler-sdk-tool JSON (.json, .json.gz), streamed
 * through yajl; memory flat in the number of records.  The bytes come
 * from jsonfile.c (a file) or a memory buffer (import_json_buf). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <yajl_parse.h>

#include "rpd.h"
#include "import.h"
#include "kinds.h"   /* record kinds: json_kinds.c */
#include "pipe.h"    /* the writer thread, paused for rare records */
#include "jsonread.h"
#include "strictint.h"

enum { R_NONE, R_TOP, R_TOOL, R_SECTION, R_STRINGS, R_BUFREC, R_AGENTS,
       R_SYMS, R_KINDNAMES, R_MARKERSTR, R_RECARR, R_RECORD, R_INREC };
enum { RK_META = 1, RK_AGENT, RK_SYM, RK_KIND, RK_MARKER, RK_BUF };
#define JMAXD 64
#define JKEY 96

typedef struct jfield {
  char key[128];
  size_t klen;  /* strlen(key) */
  rpd_buf val;
  int n;        /* values appended (arrays) */
} jfield;

/* The default of an integer field that must be present (a timestamp). */
#define JREQ INT64_MIN

typedef struct ksym {
  char *short_name, *full_name;
  int64_t desc_id, full_id;    /* description and full name ids, interned
                                  lazily by w_kernel_name; -1 = not yet */
} ksym;

typedef struct kindnames {
  char *name;
  char **ops;
  int nops;
} kindnames;

typedef struct jstate {
  imp *m;
  int rc;                          /* first failure (callbacks abort) */
  int depth;
  char is_map[JMAXD + 1];
  int role[JMAXD + 1];
  char key[JMAXD + 1][JKEY];
  unsigned char klen[JMAXD + 1];   /* strlen(key[d]) */
  int rec_depth, rec_kind;
  /* the flattened key ("dispatch_info.grid_size.x") of the current
   * position inside a record, kept as keys come and containers close */
  char path[128];
  size_t plen;
  size_t pbase[JMAXD + 1];         /* plen when depth d was opened */
  char recarr[48];                 /* buffer_records key of the current array */
  jfield *f;
  int nf, capf, hint;
  /* the keys of the current record's fields, hashed (jkey_bit): a key
   * seen again is a duplicate (the last value wins, as in Python) */
  uint64_t keybits[2];
  char arr_fresh[JMAXD + 1];       /* keyed array at depth d has no value yet */
  /* fields from this index on belong to the container instance open at
   * depth d (a new element of an array of maps starts a new barrier: its
   * keys repeat the previous element's legitimately) */
  int barrier[JMAXD + 1];
  /* the first integer field of the record that was not an integer (or a
   * required one that was missing): the record is refused with it */
  char ibad[200];
  uint64_t ncb;                    /* parser callbacks so far (json_run) */
  int saw_tool;
  int saw_events;     /* a top-level traceEvents array: a chrome trace */
  /* per-section tables */
  imap agents;                     /* agent handle -> gpu index (or -1) */
  imap symidx;                     /* kernel_id -> index into syms */
  ksym *syms;
  int nsyms, capsyms;
  kindnames *kn;
  int nkn, capkn;
  imap markmsg;                    /* correlation id -> index into markers */
  char **markers;
  int nmarkers, capmarkers;
} jstate;

static void js_clear_section(jstate *j)
{
  imap_free(&j->agents);
  imap_free(&j->symidx);
  for (int i = 0; i < j->nsyms; i++) {
    free(j->syms[i].short_name);
    free(j->syms[i].full_name);
  }
  free(j->syms);
  j->syms = NULL;
  j->nsyms = j->capsyms = 0;
  for (int i = 0; i < j->nkn; i++) {
    free(j->kn[i].name);
    for (int k = 0; k < j->kn[i].nops; k++)
      free(j->kn[i].ops[k]);
    free(j->kn[i].ops);
  }
  free(j->kn);
  j->kn = NULL;
  j->nkn = j->capkn = 0;
  imap_free(&j->markmsg);
  for (int i = 0; i < j->nmarkers; i++)
    free(j->markers[i]);
  free(j->markers);
  j->markers = NULL;
  j->nmarkers = j->capmarkers = 0;
}

/* The field named key, or NULL.  Records of one kind list their fields in
 * the same order, so the search starts after the last hit. */
static jfield *jf_findn(jstate *j, const char *key, size_t len)
{
  char last = len ? key[len - 1] : 0;
  for (int n = 0, i = j->hint; n < j->nf; n++, i++) {
    if (i >= j->nf)
      i = 0;
    const jfield *f = &j->f[i];
    /* length and last byte first: keys share long prefixes */
    if (f->klen == len && (!len || f->key[len - 1] == last) &&
        !memcmp(f->key, key, len)) {
      j->hint = i + 1;
      return &j->f[i];
    }
  }
  return NULL;
}

/* The lookups name their keys with string literals: their length is
 * known at compile time. */
#define jf_find(j, lit) jf_findn((j), (lit), sizeof(lit) - 1)
#define jstr(j, lit) jstrn((j), (lit), sizeof(lit) - 1)
#define jint(j, lit, dflt) jintn((j), (lit), sizeof(lit) - 1, (dflt))

static const char *jstrn(jstate *j, const char *key, size_t len)
{
  jfield *f = jf_findn(j, key, len);
  return f ? f->val.s : NULL;
}

/* The integer field key: its value when it is an integer (a JSON number
 * or string holding exactly a decimal int64: common/util/strictint.h); dflt
 * when it is absent or null, where dflt = JREQ makes that an error too.
 * An error (a fraction, an exponent, true/false, an array, out of range)
 * is remembered in j->ibad (the first one wins) and dflt returned: the
 * record is refused by jrec_check. */
static int64_t jintn(jstate *j, const char *key, size_t len, int64_t dflt)
{
  jfield *f = jf_findn(j, key, len);
  const char *s = f ? f->val.s : NULL;
  if (!s || !*s) {
    if (dflt == JREQ && !j->ibad[0])
      snprintf(j->ibad, sizeof j->ibad, "field '%.*s' is missing", (int)len, key);
    return dflt == JREQ ? 0 : dflt;
  }
  /* plain decimal integers of up to 18 digits (what rocprofv3 writes)
   * inline; anything else goes to the strict reader */
  const char *p = s + (*s == '-');
  uint64_t v = 0;
  int nd = 0;
  for (; *p >= '0' && *p <= '9' && nd < 18; p++, nd++)
    v = v * 10 + (uint64_t)(*p - '0');
  if (!*p && nd)
    return *s == '-' ? -(int64_t)v : (int64_t)v;
  int64_t x;
  if (f->n == 1 && rpd_int_text(s, f->val.len, &x) == RPD_OK)
    return x;
  if (!j->ibad[0]) {
    if (f->n > 1)
      snprintf(j->ibad, sizeof j->ibad, "field '%.*s': an array, not an integer",
               (int)len, key);
    else
      snprintf(j->ibad, sizeof j->ibad, "field '%.*s': %s", (int)len, key, rpd_errmsg());
  }
  return dflt == JREQ ? 0 : dflt;
}

/* RPD_OK, or the record's first bad integer field as an RPD_EPARSE
 * (json_run adds the byte and line). */
static int jrec_check(jstate *j)
{
  if (!j->ibad[0])
    return RPD_OK;
  static const char *const what[] = { "", "metadata", "agents", "kernel_symbols",
                                      "strings.buffer_records", "strings.marker_api" };
  const char *rec = j->rec_kind > 0 && j->rec_kind < RK_BUF ? what[j->rec_kind] : j->recarr;
  return rpd_seterr(RPD_EPARSE, "%s record: %s", rec, j->ibad);
}

/* One of 128 bits for a key (its length, last and middle bytes: the
 * flattened keys of a record differ in those). */
static unsigned jkey_bit(const char *key, size_t kl)
{
  unsigned h = (unsigned)kl * 7u;
  if (kl)
    h += (unsigned char)key[kl - 1] * 31u + (unsigned char)key[kl / 2];
  return h & 127u;
}

static void jrec_value(jstate *j, const char *s, size_t len)
{
  const char *key = j->path;
  size_t kl = j->plen;
  int in_array = !j->is_map[j->depth];
  /* the next element of an array is appended to the newest field */
  jfield *f = in_array && !j->arr_fresh[j->depth] && j->nf &&
              j->f[j->nf - 1].klen == kl &&
              !memcmp(j->f[j->nf - 1].key, key, kl) ? &j->f[j->nf - 1] : NULL;
  if (in_array)
    j->arr_fresh[j->depth] = 0;
  if (!f) {
    unsigned bit = jkey_bit(key, kl);
    uint64_t *w = &j->keybits[bit >> 6], mask = UINT64_C(1) << (bit & 63);
    if (*w & mask) {
      /* maybe a key seen before in this record: the earlier field is
       * retired (no key), so lookups find this, the last value */
      for (int i = j->barrier[j->depth]; i < j->nf; i++)
        if (j->f[i].klen == kl && !memcmp(j->f[i].key, key, kl)) {
          j->f[i].klen = (size_t)-1;
          j->f[i].key[0] = '\0';
        }
    }
    *w |= mask;
    if (j->nf == j->capf) {
      j->capf = j->capf ? 2 * j->capf : 32;
      j->f = rpd_xrealloc(j->f, j->capf * sizeof *j->f);
      memset(j->f + j->nf, 0, (j->capf - j->nf) * sizeof *j->f);
    }
    f = &j->f[j->nf++];
    /* records of one kind repeat their keys in the same order: the slot
     * usually holds this key already */
    if (f->klen != kl || memcmp(f->key, key, kl)) {
      f->klen = kl;
      memcpy(f->key, key, kl);
      f->key[kl] = '\0';
    }
    rpd_buf_reset(&f->val);
    f->n = 0;
  }
  if (f->n++)
    rpd_buf_add(&f->val, "\x1f", 1);
  rpd_buf_add(&f->val, s, len);
}

static ksym *sym_of(jstate *j, int64_t kernel_id)
{
  int64_t i;
  return imap_get(&j->symidx, kernel_id, &i) ? &j->syms[i] : NULL;
}

static int sym_ids(jstate *j, int64_t kernel_id, int64_t *desc, int64_t *full)
{
  imp *m = j->m;
  ksym *k = sym_of(j, kernel_id);
  int rc = RPD_OK;
  if (!k) {
    char b[48];
    snprintf(b, sizeof b, "unknown_kernel_%" PRId64, kernel_id);
    return w_kernel_name(m, b, b, desc, full);
  }
  if (k->full_id < 0)
    rc = w_kernel_name(m, k->full_name, k->short_name, &k->desc_id, &k->full_id);
  *desc = k->desc_id;
  *full = k->full_id;
  return rc;
}

static const char *first_nonempty(const char *a, const char *b, const char *c)
{
  if (a && *a)
    return a;
  if (b && *b)
    return b;
  return c ? c : "";
}

static int64_t agent_gpu(jstate *j, int64_t handle)
{
  int64_t g;
  return imap_get(&j->agents, handle, &g) ? g : -1;
}

/* Name of operation op of buffer kind k (strings.buffer_records), or NULL. */
static const char *op_name(jstate *j, int64_t k, int64_t op)
{
  if (k < 0 || k >= j->nkn || op < 0 || op >= j->kn[k].nops)
    return NULL;
  return j->kn[k].ops[op];
}

static const char *kind_name(jstate *j, int64_t k)
{
  return k >= 0 && k < j->nkn ? j->kn[k].name : NULL;
}

static int rec_kernel(jstate *j)
{
  kern k = {0};
  /* in the order rocprofv3 writes the fields: each lookup starts where
   * the last one hit (jf_find), so it is found at once */
  k.corr = jint(j, "correlation_id.internal", 0);
  k.start = jint(j, "start_timestamp", JREQ);
  k.end = jint(j, "end_timestamp", JREQ);
  k.gpu = agent_gpu(j, jint(j, "dispatch_info.agent_id.handle", -1));
  k.queue = jint(j, "dispatch_info.queue_id.handle", 0);
  int64_t kid = jint(j, "dispatch_info.kernel_id", -1);
  k.seq = jint(j, "dispatch_info.dispatch_id", 0);
  k.scratch = jint(j, "dispatch_info.private_segment_size", 0);
  k.lds = jint(j, "dispatch_info.group_segment_size", 0);
  k.wg[0] = jint(j, "dispatch_info.workgroup_size.x", 0);
  k.wg[1] = jint(j, "dispatch_info.workgroup_size.y", 0);
  k.wg[2] = jint(j, "dispatch_info.workgroup_size.z", 0);
  k.grid[0] = jint(j, "dispatch_info.grid_size.x", 0);
  k.grid[1] = jint(j, "dispatch_info.grid_size.y", 0);
  k.grid[2] = jint(j, "dispatch_info.grid_size.z", 0);
  k.stream = jint(j, "stream_id.handle", 0);
  int rc = jrec_check(j);
  if (!rc)
    rc = sym_ids(j, kid, &k.desc_id, &k.name_id);
  return rc ? rc : w_kernel(j->m, &k);
}

static int rec_copy(jstate *j)
{
  copyrec c = {0};
  int64_t kind = jint(j, "kind", -1), op = jint(j, "operation", -1);
  const char *nm = op_name(j, kind, op);
  c.kind = copy_kind(nm);
  if (c.kind < 0 && op >= 1 && op <= 4)
    c.kind = (int)op - 1;       /* rocprofiler enum order: H2H H2D D2H D2D */
  c.src_gpu = agent_gpu(j, jint(j, "src_agent_id.handle", -1));
  c.dst_gpu = agent_gpu(j, jint(j, "dst_agent_id.handle", -1));
  c.start = jint(j, "start_timestamp", JREQ);
  c.end = jint(j, "end_timestamp", JREQ);
  c.corr = jint(j, "correlation_id.internal", 0);
  c.bytes = jint(j, "bytes", 0);
  c.stream = jint(j, "stream_id.handle", 0);
  int rc = jrec_check(j);
  return rc ? rc : w_copy(j->m, &c);
}

/* "name=value | name=value" from the record's args.* fields. */
static const char *rec_args(jstate *j)
{
  rpd_buf *b = &j->m->args;
  rpd_buf_reset(b);
  rpd_buf_add(b, "", 0);
  for (int i = 0; i < j->nf; i++) {
    const char *k = j->f[i].key;
    if (strncmp(k, "args.", 5))
      continue;
    if (b->len)
      rpd_buf_puts(b, " | ");
    rpd_buf_printf(b, "%s=%s", k + 5, j->f[i].val.s ? j->f[i].val.s : "");
  }
  return b->s;
}

static int rec_api(jstate *j, const char *section)
{
  apirec a = {0};
  char opb[32];
  int64_t kind = jint(j, "kind", -1), op = jint(j, "operation", -1);
  const char *nm = op_name(j, kind, op);
  if (!nm) {
    snprintf(opb, sizeof opb, "operation_%" PRId64, op);
    nm = opb;
  }
  a.tid = jint(j, "thread_id", 0);            /* rocprofv3's field order */
  a.corr = jint(j, "correlation_id.internal", 0);
  a.pid = j->m->pid;
  a.start = jint(j, "start_timestamp", JREQ);
  a.end = jint(j, "end_timestamp", JREQ);
  a.category = kind_name(j, kind);
  a.name = nm;
  a.args = rec_args(j);
  if (!strcmp(section, "hip_api"))
    a.domain = "HIP";
  else if (!strcmp(section, "hsa_api"))
    a.domain = "HSA";
  else if (!strcmp(section, "rccl_api"))
    a.domain = "RCCL";
  else {
    int64_t mi;
    a.domain = "ROCTX";
    a.name = "UserMarker";
    if (imap_get(&j->markmsg, a.corr, &mi))
      a.args = j->markers[mi];
    else if (!*a.args)
      a.args = nm;
  }
  int rc = jrec_check(j);
  return rc ? rc : w_api(j->m, &a);
}

static int rec_meta(jstate *j)
{
  imp *m = j->m;
  m->pid = jint(j, "pid", 0);
  int64_t init = jint(j, "init_time", 0), fini = jint(j, "fini_time", 0);
  int rc = jrec_check(j);
  if (rc)
    return rc;
  w_meta_time(m, init, fini);
  jfield *cmd = jf_find(j, "command");
  if (cmd && cmd->val.s)
    for (char *p = cmd->val.s; *p; p++)
      if (*p == '\x1f')
        *p = ' ';
  rc = w_meta_int(m, "rocprofv3::pid", m->pid);
  if (!rc)
    rc = w_meta_add(m, "rocprofv3::hostname", jstr(j, "node.hostname"));
  if (!rc)
    rc = w_meta_add(m, "rocprofv3::command", cmd ? cmd->val.s : NULL);
  return rc;
}

static void rec_agent(jstate *j)
{
  int64_t h = jint(j, "id.handle", -1);
  int64_t type = jint(j, "type", 0);
  imap_put(&j->agents, h, type == 2 ? jint(j, "logical_node_type_id", 0) : -1);
}

static char *xstrdup0(const char *s)
{
  return rpd_xstrdup(s ? s : "");
}

static void rec_sym(jstate *j)
{
  if (j->nsyms == j->capsyms) {
    j->capsyms = j->capsyms ? 2 * j->capsyms : 256;
    j->syms = rpd_xrealloc(j->syms, j->capsyms * sizeof *j->syms);
  }
  ksym *k = &j->syms[j->nsyms];
  const char *tr = jstr(j, "truncated_kernel_name");
  const char *fo = jstr(j, "formatted_kernel_name");
  const char *kn = jstr(j, "kernel_name");
  k->short_name = xstrdup0(first_nonempty(tr, fo, kn));
  k->full_name = xstrdup0(first_nonempty(fo, jstr(j, "demangled_kernel_name"), kn));
  k->desc_id = k->full_id = -1;
  imap_put(&j->symidx, jint(j, "kernel_id", -1), j->nsyms++);
}

static void rec_kindnames(jstate *j)
{
  if (j->nkn == j->capkn) {
    j->capkn = j->capkn ? 2 * j->capkn : 32;
    j->kn = rpd_xrealloc(j->kn, j->capkn * sizeof *j->kn);
  }
  kindnames *k = &j->kn[j->nkn++];
  k->name = xstrdup0(jstr(j, "kind"));
  k->ops = NULL;
  k->nops = 0;
  jfield *f = jf_find(j, "operations");
  if (!f || !f->n)
    return;
  k->ops = rpd_xcalloc(f->n, sizeof *k->ops);
  char *p = f->val.s;
  for (int i = 0; i < f->n && p; i++) {
    char *e = strchr(p, '\x1f');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    k->ops[i] = rpd_xmalloc(len + 1);
    memcpy(k->ops[i], p, len);
    k->ops[i][len] = '\0';
    k->nops++;
    p = e ? e + 1 : NULL;
  }
}

static void rec_marker(jstate *j)
{
  const char *key = jstr(j, "key"), *val = jstr(j, "value");
  if (!key || !val)
    return;
  if (j->nmarkers == j->capmarkers) {
    j->capmarkers = j->capmarkers ? 2 * j->capmarkers : 64;
    j->markers = rpd_xrealloc(j->markers, j->capmarkers * sizeof *j->markers);
  }
  int64_t id = jint(j, "key", 0);
  if (j->ibad[0])
    return;             /* refused by rec_end */
  j->markers[j->nmarkers] = rpd_xstrdup(val);
  imap_put(&j->markmsg, id, j->nmarkers++);
}

/* --- how json_kinds.c reads the current record (kinds.h) */
static int jk_field(void *c, int i, const char **k, const char **v)
{
  jstate *j = c;
  if (i >= j->nf)
    return 0;
  *k = j->f[i].key;
  *v = j->f[i].val.s ? j->f[i].val.s : "";
  return 1;
}
static int64_t jk_gpu(void *c, int64_t h) { return agent_gpu(c, h); }
static const char *jk_op(void *c, int64_t k, int64_t op) { return op_name(c, k, op); }
static const char *jk_kind(void *c, int64_t k) { return kind_name(c, k); }
static int jk_sym(void *c, int64_t id, int64_t *d, int64_t *f) { return sym_ids(c, id, d, f); }
static int64_t jk_integer(void *c, const char *key, int64_t dflt)
{
  return jintn(c, key, strlen(key), dflt);
}
static const jk_access jk_acc = { jk_field, jk_gpu, jk_op, jk_kind, jk_sym, jk_integer };
/* --- end of the record-kinds block */

/* A record of json_kinds.c's (or an agent): it may use the output
 * connection directly, so the writer thread is paused around it. */
static int rec_kinds(jstate *j, int *rc)
{
  int hit, prc = pipe_pause(j->m);
  if (prc) {
    pipe_resume(j->m);
    *rc = prc;
    return 1;
  }
  if (j->rec_kind == RK_AGENT) {
    rec_agent(j);
    *rc = jk_agent(j->m, &jk_acc, j);
    hit = 1;
  } else
    hit = jk_record(j->m, j->recarr, &jk_acc, j, rc);
  pipe_resume(j->m);
  return hit;
}

/* jk_flush with the writer thread paused. */
static int jk_flush_paused(imp *m)
{
  int rc = pipe_pause(m);
  if (!rc)
    rc = jk_flush(m);
  pipe_resume(m);
  return rc;
}

static int rec_end(jstate *j)
{
  const char *s = j->recarr;
  int rc;
  switch (j->rec_kind) {
  case RK_META: return rec_meta(j);
  case RK_AGENT: rec_kinds(j, &rc); return rc ? rc : jrec_check(j);
  case RK_SYM: rec_sym(j); return jrec_check(j);
  case RK_KIND: rec_kindnames(j); return RPD_OK;
  case RK_MARKER: rec_marker(j); return jrec_check(j);
  default: break;
  }
  if (!strcmp(s, "kernel_dispatch")) {
    count_read(j->m, s, 1);
    return rec_kernel(j);
  }
  if (!strcmp(s, "memory_copy")) {
    count_read(j->m, s, 1);
    return rec_copy(j);
  }
  if (!strcmp(s, "hip_api") || !strcmp(s, "hsa_api") || !strcmp(s, "marker_api") ||
      !strcmp(s, "rccl_api")) {
    count_read(j->m, s, 1);
    return rec_api(j, s);
  }
  /* counters, allocations, scratch, rocdecode, rocjpeg */
  if (rec_kinds(j, &rc))
    return rc ? rc : jrec_check(j);
  count_read(j->m, s, 0);
  return RPD_OK;
}

/* Role of a container opened at depth d+1 inside the container at d. */
static int child_role(jstate *j, int is_map, int *rec_kind)
{
  int d = j->depth, pr = d ? j->role[d] : R_NONE;
  const char *k = d && j->is_map[d] ? j->key[d] : "";
  *rec_kind = 0;
  if (j->rec_depth)
    return R_INREC;
  switch (pr) {
  case R_NONE: return is_map ? R_TOP : R_NONE;
  case R_TOP:
    if (!is_map && !strcmp(k, "rocprofiler-sdk-tool")) {
      j->saw_tool = 1;
      return R_TOOL;
    }
    if (!is_map && !strcmp(k, "traceEvents"))
      j->saw_events = 1;
    return R_NONE;
  case R_TOOL: return is_map ? R_SECTION : R_NONE;
  case R_SECTION:
    if (is_map && !strcmp(k, "metadata")) { *rec_kind = RK_META; return R_RECORD; }
    if (is_map && !strcmp(k, "strings")) return R_STRINGS;
    if (is_map && !strcmp(k, "buffer_records")) return R_BUFREC;
    /* json_kinds.c: counter records and the counter list */
    if (is_map && !strcmp(k, "callback_records")) return R_BUFREC;
    if (!is_map && !strcmp(k, "counters")) { strcpy(j->recarr, "counters"); return R_RECARR; }
    if (!is_map && !strcmp(k, "agents")) return R_AGENTS;
    if (!is_map && !strcmp(k, "kernel_symbols")) return R_SYMS;
    return R_NONE;
  case R_STRINGS:
    if (!is_map && !strcmp(k, "buffer_records")) return R_KINDNAMES;
    if (!is_map && !strcmp(k, "marker_api")) return R_MARKERSTR;
    return R_NONE;
  case R_BUFREC:
    if (!is_map) {
      snprintf(j->recarr, sizeof j->recarr, "%s", k);
      return R_RECARR;
    }
    return R_NONE;
  case R_AGENTS: *rec_kind = RK_AGENT; return is_map ? R_RECORD : R_NONE;
  case R_SYMS: *rec_kind = RK_SYM; return is_map ? R_RECORD : R_NONE;
  case R_KINDNAMES: *rec_kind = RK_KIND; return is_map ? R_RECORD : R_NONE;
  case R_MARKERSTR: *rec_kind = RK_MARKER; return is_map ? R_RECORD : R_NONE;
  case R_RECARR: *rec_kind = RK_BUF; return is_map ? R_RECORD : R_NONE;
  default: return R_NONE;
  }
}

static int j_open(jstate *j, int is_map)
{
  int rk;
  j->ncb++;
  int role = child_role(j, is_map, &rk);
  if (j->depth >= JMAXD) {
    j->rc = rpd_seterr(RPD_EPARSE, "JSON nested deeper than %d levels", JMAXD);
    return 0;
  }
  j->depth++;
  j->is_map[j->depth] = (char)is_map;
  j->role[j->depth] = role;
  j->key[j->depth][0] = '\0';
  j->klen[j->depth] = 0;
  j->pbase[j->depth] = j->plen;
  if (role == R_SECTION) {
    if (!j->rc && (j->rc = jk_flush_paused(j->m)))   /* held counters */
      return 0;
    js_clear_section(j);
    new_section(j->m);
  }
  if (role == R_RECORD) {
    j->rec_depth = j->depth;
    j->rec_kind = rk;
    j->nf = 0;
    j->plen = j->pbase[j->depth] = 0;
    j->keybits[0] = j->keybits[1] = 0;
    j->barrier[j->depth] = 0;
    j->ibad[0] = '\0';
  } else if (j->rec_depth) {
    int parent_map = j->is_map[j->depth - 1];
    j->barrier[j->depth] = parent_map ? j->barrier[j->depth - 1] : j->nf;
    j->arr_fresh[j->depth] = !is_map && parent_map;
  }
  return 1;
}

static int j_close(jstate *j)
{
  int rc = RPD_OK;
  j->ncb++;
  if (j->rec_depth && j->depth == j->rec_depth) {
    rc = rec_end(j);
    j->rec_depth = 0;
  }
  j->plen = j->pbase[j->depth];
  j->depth--;
  if (rc) {
    j->rc = rc;
    return 0;
  }
  return 1;
}

static int cb_start_map(void *ctx) { return j_open(ctx, 1); }
static int cb_end_map(void *ctx) { return j_close(ctx); }
static int cb_start_array(void *ctx) { return j_open(ctx, 0); }
static int cb_end_array(void *ctx) { return j_close(ctx); }

/* Copy a short key: 8 bytes at a time, never reading past s + n.  (GCC
 * turns a plain memcpy of a variable length here into `rep movsq`, whose
 * start-up cost was half of cb_key's time on rocprofv3's short keys.) */
static void copy_key(char *d, const unsigned char *s, size_t n)
{
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    memcpy(d + i, &w, 8);
  }
  if (i + 4 <= n) {
    uint32_t w;
    memcpy(&w, s + i, 4);
    memcpy(d + i, &w, 4);
    i += 4;
  }
  for (; i < n; i++)
    d[i] = (char)s[i];
}

static int cb_key(void *ctx, const unsigned char *s, size_t len)
{
  jstate *j = ctx;
  j->ncb++;
  if (len >= JKEY)
    len = JKEY - 1;
  if (!j->rec_depth) {
    /* outside a record the key picks the role of what it opens
     * (child_role); inside one only the path counts */
    memcpy(j->key[j->depth], s, len);
    j->key[j->depth][len] = '\0';
    j->klen[j->depth] = (unsigned char)len;
  } else {
    /* the record's path: the parent's path, '.', this key (keys that do
     * not fit in 127 bytes are left out, as they always were) */
    size_t b = j->pbase[j->depth];
    if (b + (b > 0) + len < sizeof j->path) {
      if (b)
        j->path[b++] = '.';
      copy_key(j->path + b, s, len);
      j->plen = b + len;
    } else
      j->plen = b;
    j->path[j->plen] = '\0';
  }
  return 1;
}

static int scalar(jstate *j, const char *s, size_t len)
{
  j->ncb++;
  if (j->rec_depth)
    jrec_value(j, s, len);
  return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
  return scalar(ctx, (const char *)s, len);
}

static int cb_number(void *ctx, const char *s, size_t len)
{
  return scalar(ctx, s, len);
}

static int cb_bool(void *ctx, int b)
{
  /* as text: never read as an integer (true is not 1) */
  return b ? scalar(ctx, "true", 4) : scalar(ctx, "false", 5);
}

static int cb_null(void *ctx)
{
  return scalar(ctx, "", 0);
}

static const yajl_callbacks jcb = {
  cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
  cb_start_map, cb_key, cb_end_map, cb_start_array, cb_end_array
};

/* yajl's memory through the suite's allocators: out of memory is one line
 * and exit 1 (rpd_xmalloc), not a NULL yajl would write through. */
static void *jmalloc(void *ctx, size_t n) { (void)ctx; return rpd_xmalloc(n); }
static void *jrealloc(void *ctx, void *p, size_t n) { (void)ctx; return rpd_xrealloc(p, n); }
static void jfree(void *ctx, void *p) { (void)ctx; free(p); }
static yajl_alloc_funcs json_alloc = { jmalloc, jrealloc, jfree, NULL };

/* One line from yajl's error text (it carries a context excerpt). */
static void yajl_msg(yajl_handle h, const unsigned char *chunk, size_t len,
                     char *out, size_t n)
{
  unsigned char *e = yajl_get_error(h, 0, chunk, len);
  snprintf(out, n, "%s", e ? (char *)e : "parse error");
  if (e)
    yajl_free_error(h, e);
  out[strcspn(out, "\n")] = '\0';
}


/* Newlines in buf[0..n). */
static uint64_t count_nl(const unsigned char *buf, size_t n)
{
  uint64_t k = 0;
  const unsigned char *p = buf, *e = buf + n;
  while ((p = memchr(p, '\n', (size_t)(e - p)))) {
    k++;
    p++;
  }
  return k;
}

int json_run(imp *m, json_read_fn rd, void *ctx)
{
  jstate j;
  memset(&j, 0, sizeof j);
  j.m = m;
  yajl_handle h = yajl_alloc(&jcb, &json_alloc, &j);
  yajl_config(h, yajl_dont_validate_strings, 1);
  const unsigned char *buf = NULL;
  uint64_t fed = 0, lines = 1;
  int rc = RPD_OK, n;
  yajl_status st = yajl_status_ok;
  char msg[256];
  /* Inside one long token (a string of many MB) yajl keeps what it has
   * lexed so far and lexes it again from its start on every call: fed in
   * fixed chunks that is quadratic in the token's length.  When a call
   * made no callback at all, the bytes are held back (pending) until they
   * are as many as yajl holds (stuck), so each call at least doubles the
   * token and the total work stays linear. */
  rpd_buf pending = {0};
  uint64_t stuck = 0;

  for (;;) {
    const unsigned char *chunk;
    size_t len;
    n = rd(ctx, &buf, fed + pending.len);
    if (n > 0 && stuck) {
      rpd_buf_add(&pending, (const char *)buf, (size_t)n);
      if (pending.len < stuck)
        continue;
    }
    if (n <= 0 && !pending.len)
      break;
    if (pending.len) {
      chunk = (const unsigned char *)pending.s;
      len = pending.len;
    } else {
      chunk = buf;
      len = (size_t)n;
    }
    uint64_t ncb = j.ncb;
    st = yajl_parse(h, chunk, len);
    if (st != yajl_status_ok) {
      size_t at = yajl_get_bytes_consumed(h);
      for (size_t i = 0; i < at && i < len; i++)
        lines += chunk[i] == '\n';
      if (st == yajl_status_client_canceled) {
        rc = j.rc ? j.rc : RPD_ERR;
        if (rc == RPD_EPARSE || rc == RPD_ERR)
          rc = rpd_seterr(RPD_EPARSE, "at byte %" PRIu64 " (line %" PRIu64 "): %s",
                          fed + at, lines, rpd_errmsg());
      } else {
        yajl_msg(h, chunk, len, msg, sizeof msg);
        rc = rpd_seterr(RPD_EPARSE, "malformed JSON at byte %" PRIu64
                        " (line %" PRIu64 "): %s", fed + at, lines, msg);
      }
      goto cleanup;
    }
    lines += count_nl(chunk, len);
    fed += (uint64_t)len;
    stuck = j.ncb == ncb ? stuck + len : 0;
    rpd_buf_reset(&pending);
    if (n <= 0)
      break;
  }
  if (n < 0) {
    rc = RPD_EGZIP;
    goto cleanup;
  }
  st = yajl_complete_parse(h);
  if (st != yajl_status_ok) {
    if (st == yajl_status_client_canceled) {
      rc = j.rc ? j.rc : RPD_ERR;
    } else {
      yajl_msg(h, NULL, 0, msg, sizeof msg);
      rc = rpd_seterr(RPD_EPARSE, "truncated JSON: input ends at byte %" PRIu64
                      " (line %" PRIu64 ") inside an open %s", fed, lines,
                      j.depth > 0 && j.is_map[j.depth] ? "object" : "array");
    }
    goto cleanup;
  }
  if ((rc = jk_flush_paused(m)))   /* held counters */
    goto cleanup;
  if (!fed) {
    rc = rpd_seterr(RPD_EPARSE, "empty file");
    goto cleanup;
  }
  if (!j.saw_tool && j.saw_events)
    rc = rpd_seterr(RPD_EPARSE, "a chrome://tracing JSON (rocprof v1 results.json?), not"
                    " rocprofv3 output (no 'rocprofiler-sdk-tool' key): import"
                    " rocprof v1's results.db or its rpl directory instead");
  else if (!j.saw_tool)
    rc = rpd_seterr(RPD_EPARSE, "not a rocprofv3 JSON: no 'rocprofiler-sdk-tool' key");

cleanup:
  jk_free(m);
  yajl_free(h);
  rpd_buf_free(&pending);
  js_clear_section(&j);
  for (int i = 0; i < j.capf; i++)
    rpd_buf_free(&j.f[i].val);
  free(j.f);
  return rc;
}

/* A memory buffer being read. */
typedef struct membuf {
  const unsigned char *p;
  size_t left;
} membuf;

/* The next 64 KiB of it, in place. */
static int mem_read(void *ctx, const unsigned char **buf, uint64_t fed)
{
  membuf *b = ctx;
  (void)fed;
  size_t k = b->left < (1 << 16) ? b->left : (1 << 16);
  *buf = b->p;
  b->p += k;
  b->left -= k;
  return (int)k;
}

int import_json_buf(imp *m, const void *data, size_t n)
{
  membuf b = { data, n };
  return json_run(m, mem_read, &b);
}
