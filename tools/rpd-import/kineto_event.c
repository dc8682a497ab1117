/* kineto_event.c - rpd-import, Kineto: one parsed event (kstate's ev)
 * into RPD rows (kineto.c has the mapping and the parser).  Numbers are
 * read from their text: ts and dur as exact nanoseconds, ids as integers. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kineto.h"
#include "perfmodel.h"
#include "pipe.h"
#include "readdirect.h"

/* Op names and whether the performance model has a model of that name
 * (rpd_perf_named), in a direct-mapped cache: a trace has few distinct op
 * names, each seen thousands of times. */
enum { NAMED_SLOTS = 512 };
struct kname_verdict {
  char *name;               /* NULL: empty slot */
  int yes;
};

static int named_op(kstate *k, const char *name, size_t len)
{
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)name[i]) * 1099511628211ULL;
  if (!k->named)
    k->named = rpd_xcalloc(NAMED_SLOTS, sizeof *k->named);
  struct kname_verdict *v = &k->named[h % NAMED_SLOTS];
  if (!v->name || strcmp(v->name, name) != 0) {
    free(v->name);
    v->name = rpd_xstrdup(name);
    v->yes = rpd_perf_named(name);
  }
  return v->yes;
}

void kineto_event_free(kstate *k)
{
  for (int i = 0; k->named && i < NAMED_SLOTS; i++)
    free(k->named[i].name);
  free(k->named);
  k->named = NULL;
}

/* ------------------------------------------------------------ numbers */

/* Exact nanoseconds of a decimal number of microseconds ("1419247333430.849",
 * "12", "5e-3", "-0.5"): RPD_OK and *ns, or RPD_EPARSE for anything else
 * (empty, a sign alone, letters, overflow).  Digits past the nanosecond
 * are rounded half away from zero, from the text itself. */
static int us_to_ns(const char *s, int64_t *ns)
{
  char dig[40];             /* significant digits, leading zeros dropped */
  int nd = 0, nfrac = 0, neg = 0, any = 0, exp = 0;
  const char *p = s;
  if (*p == '-')
    neg = *p++ == '-';
  for (; *p >= '0' && *p <= '9'; p++, any = 1)
    if (nd || *p != '0') {
      if (nd == (int)sizeof dig)
        return RPD_EPARSE;
      dig[nd++] = *p;
    }
  if (*p == '.') {
    p++;
    for (; *p >= '0' && *p <= '9'; p++, any = 1) {
      if (nd == (int)sizeof dig)
        return RPD_EPARSE;
      if (nd || *p != '0')
        dig[nd++] = *p;
      nfrac++;
    }
  }
  if (!any)
    return RPD_EPARSE;
  if (*p == 'e' || *p == 'E') {
    int eneg = 0, en = 0;
    p++;
    if (*p == '-' || *p == '+')
      eneg = *p++ == '-';
    if (*p < '0' || *p > '9')
      return RPD_EPARSE;
    for (; *p >= '0' && *p <= '9'; p++)
      if (en < 1000)
        en = en * 10 + (*p - '0');
    exp = eneg ? -en : en;
  }
  if (*p)
    return RPD_EPARSE;
  /* the value is dig x 10^(exp - nfrac) us = dig x 10^(sc) ns */
  int sc = exp - nfrac + 3;
  int keep = sc >= 0 ? nd : nd + sc;    /* digits above the nanosecond */
  uint64_t v = 0;
  for (int i = 0; i < keep; i++) {
    if (v > ((uint64_t)INT64_MAX - 9) / 10)
      return RPD_EPARSE;
    v = v * 10 + (uint64_t)(dig[i] - '0');
  }
  for (int i = 0; sc > 0 && i < sc && v; i++) {
    if (v > (uint64_t)INT64_MAX / 10)
      return RPD_EPARSE;
    v *= 10;
  }
  if (keep >= 0 && keep < nd && dig[keep] >= '5')
    v++;    /* half away from zero, on the first digit dropped */
  *ns = neg ? -(int64_t)v : (int64_t)v;
  return RPD_OK;
}

/* A plain decimal integer (optionally negative, at most 18 digits): 1 and
 * *v, else 0. */
static int int_of(const char *s, size_t n, int64_t *v)
{
  size_t i = 0;
  int neg = 0;
  uint64_t x = 0;
  if (i < n && s[i] == '-') {
    neg = 1;
    i++;
  }
  if (i == n || n - i > 18)
    return 0;
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return 0;
    x = x * 10 + (uint64_t)(s[i] - '0');
  }
  *v = neg ? -(int64_t)x : (int64_t)x;
  return 1;
}

/* ------------------------------------------------------------ args */

static const karg *arg_find(const kev *e, const char *key)
{
  size_t n = strlen(key);
  for (int i = 0; i < e->na; i++)
    if (e->a[i].klen == n && !memcmp(e->a[i].key, key, n))
      return &e->a[i];
  return NULL;
}

/* The integer value of args key, or dflt. */
static int64_t arg_int(const kev *e, const char *key, int64_t dflt)
{
  const karg *a = arg_find(e, key);
  int64_t v;
  if (a && !a->str && int_of(e->args.s + a->off, a->len, &v))
    return v;
  return dflt;
}

/* "[564, 1, 1]" -> v[0..3) (missing members 1). */
static void arg_dim3(const kev *e, const char *key, int64_t v[3])
{
  const karg *a = arg_find(e, key);
  v[0] = v[1] = v[2] = 0;
  if (!a || a->str)
    return;
  const char *p = e->args.s + a->off, *end = p + a->len;
  int k = 0;
  while (p < end && k < 3) {
    while (p < end && (*p < '0' || *p > '9') && *p != '-')
      p++;
    const char *q = p;
    while (q < end && ((*q >= '0' && *q <= '9') || *q == '-'))
      q++;
    if (q > p && int_of(p, (size_t)(q - p), &v[k]))
      k++;
    p = q;
  }
}

/* ------------------------------------------------------------ writing */

/* ext_kineto_event rows go to the writer EXT_BATCH at a time, inserted
 * with one multi-row INSERT (as writer.c's batches): a head, then per row
 * an extrow and its cat, name and args as NUL-terminated texts, padded to
 * 8 bytes. */
enum { EXT_BATCH = 16, EXT_COLS = 10 };

typedef struct exthead {
  kstate *k;
  int64_t n;
} exthead;

typedef struct extrow {
  int64_t id, pid, tid, start, end, api_id, op_id;
  size_t ncat, nname, nargs, size;
} extrow;

/* Bind one row at parameter offset base. */
static void ext_bind(sqlite3_stmt *st, int base, const extrow *r)
{
  const char *t = (const char *)(r + 1);
  sqlite3_bind_int64(st, base + 1, r->id);
  sqlite3_bind_text(st, base + 2, t, (int)r->ncat, SQLITE_STATIC);
  sqlite3_bind_text(st, base + 3, t + r->ncat + 1, (int)r->nname, SQLITE_STATIC);
  sqlite3_bind_int64(st, base + 4, r->pid);
  sqlite3_bind_int64(st, base + 5, r->tid);
  sqlite3_bind_int64(st, base + 6, r->start);
  sqlite3_bind_int64(st, base + 7, r->end);
  if (r->api_id > 0)
    sqlite3_bind_int64(st, base + 8, r->api_id);
  else
    sqlite3_bind_null(st, base + 8);
  if (r->op_id > 0)
    sqlite3_bind_int64(st, base + 9, r->op_id);
  else
    sqlite3_bind_null(st, base + 9);
  sqlite3_bind_text(st, base + 10, t + r->ncat + r->nname + 2, (int)r->nargs,
                    SQLITE_STATIC);
}

static int ext_step(imp *m, sqlite3_stmt *st)
{
  int s = rpd_step(m->r, st);
  sqlite3_reset(st);
  return s < 0 ? -s : RPD_OK;
}

/* Insert a batch of ext_kineto_event rows (on the writer thread, or here). */
static int ext_insert(imp *m, const void *data)
{
  const exthead *h = data;
  kstate *k = h->k;
  const extrow *r = (const extrow *)(h + 1);
  int rc = RPD_OK;
  static const char head[] = "INSERT INTO ext_kineto_event(id, cat, name, pid, tid,"
                             " start, end, api_id, op_id, args) VALUES ";
  if (!k->st_ext) {
    rpd_buf sql = {0};
    rpd_buf_puts(&sql, head);
    rpd_buf_puts(&sql, "(?,?,?,?,?,?,?,?,?,?)");
    rc = rpd_prepare(m->r, sql.s, &k->st_ext);
    for (int i = 1; i < EXT_BATCH; i++)
      rpd_buf_puts(&sql, ",(?,?,?,?,?,?,?,?,?,?)");
    if (!rc)
      rc = rpd_prepare(m->r, sql.s, &k->st_ext_many);
    rpd_buf_free(&sql);
  }
  if (rc)
    return rc;
  if (h->n == EXT_BATCH) {
    for (int i = 0; i < EXT_BATCH; i++) {
      ext_bind(k->st_ext_many, i * EXT_COLS, r);
      r = (const extrow *)((const char *)r + r->size);
    }
    return ext_step(m, k->st_ext_many);
  }
  for (int64_t i = 0; i < h->n && !rc; i++) {
    ext_bind(k->st_ext, 0, r);
    rc = ext_step(m, k->st_ext);
    r = (const extrow *)((const char *)r + r->size);
  }
  return rc;
}

int kineto_ext_flush(kstate *k)
{
  if (!k->n_extq)
    return RPD_OK;
  ((exthead *)k->extq.s)->n = k->n_extq;
  int rc = pipe_call(k->m, ext_insert, k->extq.s, k->extq.len);
  k->n_extq = 0;
  rpd_buf_reset(&k->extq);
  return rc;
}

static int w_ext(kstate *k, int64_t pid, int64_t tid, int64_t start, int64_t end,
                 int64_t api_id, int64_t op_id)
{
  static const char zeros[8];
  kev *e = &k->ev;
  extrow r = { ++k->ext_id, pid, tid, start, end, api_id, op_id,
               strlen(e->cat), e->name.len, e->args.len, 0 };
  size_t n = sizeof r + r.ncat + r.nname + r.nargs + 3;
  r.size = (n + 7) & ~(size_t)7;
  rpd_buf *b = &k->extq;
  if (!k->n_extq) {
    exthead h = { k, 0 };
    rpd_buf_reset(b);
    rpd_buf_add(b, (const char *)&h, sizeof h);
  }
  put(b, (const char *)&r, sizeof r);
  put(b, e->cat, r.ncat + 1);
  put(b, e->name.s ? e->name.s : "", r.nname);
  put(b, "", 1);
  put(b, e->args.s ? e->args.s : "", r.nargs);
  put(b, zeros, 1 + r.size - n);
  k->n_ext++;
  return ++k->n_extq == EXT_BATCH ? kineto_ext_flush(k) : RPD_OK;
}

int kineto_cat_kind(const char *c)
{
  static const struct { const char *cat; int ck; } cats[] = {
    { "kernel", CK_KERNEL }, { "gpu_memcpy", CK_MEMCPY }, { "gpu_memset", CK_MEMSET },
    { "cuda_runtime", CK_RUNTIME }, { "cuda_driver", CK_RUNTIME }, { "cuda_sync", CK_SYNC },
    { "cpu_op", CK_CPU_OP }, { "user_annotation", CK_ANNOTATION },
    { "python_function", CK_PYTHON }, { "gpu_user_annotation", CK_GPU_ANNOTATION },
    { "ac2g", CK_FLOW }, { "async_cpu_to_gpu", CK_FLOW },
  };
  for (size_t i = 0; i < sizeof cats / sizeof *cats; i++)
    if (!strcmp(c, cats[i].cat))
      return cats[i].ck;
  return CK_OTHER;
}

/* pid / tid: a number, or a label ("Spans") -> 0. */
static int64_t lane_id(const char *s)
{
  int64_t v;
  return int_of(s, strlen(s), &v) ? v : 0;
}

int kineto_is_collective(const char *name)
{
  return strstr(name, "nccl") || strstr(name, "rccl") || strstr(name, "Nccl") ||
         strstr(name, "NCCL") || strstr(name, "RCCL");
}

/* Copy direction from a Kineto memcpy name ("Memcpy HtoD (Pageable ->
 * Device)"): 0 H2H, 1 H2D, 2 D2H, 3 D2D, -1 unknown. */
static int memcpy_kind(const char *s)
{
  if (strstr(s, "HtoD"))
    return 1;
  if (strstr(s, "DtoH"))
    return 2;
  if (strstr(s, "DtoD") || strstr(s, "PtoP"))
    return 3;
  if (strstr(s, "HtoH"))
    return 0;
  return -1;
}

/* v in decimal (as printf's %lld). */
static void put_int(rpd_buf *b, int64_t v)
{
  char t[24];
  int n = sizeof t;
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  do {
    t[--n] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0)
    t[--n] = '-';
  put(b, t + n, sizeof t - (size_t)n);
}

/* The autograd text of a cpu_op (docs/rpd-autograd.md's four forms). */
static const char *autograd_text(kstate *k, int64_t op_id)
{
  kev *e = &k->ev;
  rpd_buf *b = &k->text;
  int64_t seq = arg_int(e, "Sequence number", -1);
  const karg *dims = arg_find(e, "Input Dims");
  rpd_buf_reset(b);
  rpd_buf_add(b, e->name.s ? e->name.s : "", e->name.len);
  if (seq >= 0) {
    rpd_buf_puts(b, ", seq = ");
    put_int(b, seq);
  }
  rpd_buf_puts(b, ", op_id = ");
  put_int(b, op_id);
  if (dims && !dims->str) {
    rpd_buf_puts(b, ", sizes = ");
    rpd_buf_add(b, e->args.s + dims->off, dims->len);
    rpd_buf_puts(b, ", input_op_ids = []");
  }
  return b->s;
}

int kineto_event_fail(kstate *k, const char *what)
{
  return rpd_seterr(RPD_EPARSE, "event %" PRId64 " ('%.60s'): %s", k->nev,
                    k->ev.name.s ? k->ev.name.s : "", what);
}

/* ts and dur of an X event in ns (dur: 0 for instants). */
static int ev_times(kstate *k, int need_dur, int64_t *start, int64_t *end)
{
  kev *e = &k->ev;
  int64_t dur = 0;
  if (!e->has_ts)
    return kineto_event_fail(k, "no 'ts'");
  if (e->ts_str || us_to_ns(e->ts, start))
    return kineto_event_fail(k, "'ts' is not a number of microseconds");
  if (need_dur) {
    if (!e->has_dur)
      return kineto_event_fail(k, "no 'dur'");
    if (e->dur_str || us_to_ns(e->dur, &dur))
      return kineto_event_fail(k, "'dur' is not a number of microseconds");
    if (dur < 0)
      return kineto_event_fail(k, "negative 'dur'");
  }
  if (*start < 0 || *start >= ((int64_t)1 << 62) - dur)
    return kineto_event_fail(k, "'ts' out of range");
  *end = *start + dur;
  return RPD_OK;
}

static int ev_kernel(kstate *k, int64_t start, int64_t end)
{
  kev *e = &k->ev;
  kern r = {0};
  r.gpu = arg_int(e, "device", 0);
  r.queue = arg_int(e, "stream", 0);
  r.stream = r.queue;
  r.start = start;
  r.end = end;
  int64_t corr = arg_int(e, "correlation", 0);
  r.corr = corr > 0 ? 2 * corr : 0;
  arg_dim3(e, "grid", r.grid);
  arg_dim3(e, "block", r.wg);
  r.lds = arg_int(e, "shared memory", 0);
  int rc = w_kernel_name(k->m, e->name.s ? e->name.s : "", NULL, &r.desc_id, &r.name_id);
  if (!rc)
    rc = w_kernel(k->m, &r);
  if (!rc && (kineto_is_collective(e->name.s ? e->name.s : "") ||
              (!e->lite && arg_find(e, "Collective name"))))
    rc = w_ext(k, r.gpu, r.queue, start, end, 0, k->m->last_op);
  return rc;
}

static int ev_copy(kstate *k, int64_t start, int64_t end, int memset)
{
  kev *e = &k->ev;
  copyrec c = {0};
  int64_t dev = arg_int(e, "device", 0);
  c.kind = memset ? 3 : memcpy_kind(e->name.s ? e->name.s : "");
  c.src_gpu = c.kind == 2 || c.kind == 3 ? dev : -1;
  c.dst_gpu = c.kind == 1 || c.kind == 3 ? dev : -1;
  if (c.kind < 0)
    c.src_gpu = c.dst_gpu = dev;
  c.start = start;
  c.end = end;
  int64_t corr = arg_int(e, "correlation", 0);
  c.corr = corr > 0 ? 2 * corr : 0;
  c.bytes = arg_int(e, "bytes", 0);
  c.stream = arg_int(e, "stream", 0);
  c.queue = c.stream;
  c.optype = memset ? "FillBuffer" : NULL;
  return w_copy(k->m, &c);
}

static int ev_api(kstate *k, int64_t start, int64_t end)
{
  kev *e = &k->ev;
  apirec a = {0};
  /* a cuda_sync event repeats the correlation of its runtime call */
  int64_t corr = e->ck != CK_SYNC ? arg_int(e, "correlation", 0) : 0;
  const char *nm = e->name.s ? e->name.s : "";
  a.corr = corr > 0 ? 2 * corr : (k->next_marker += 2);
  a.pid = lane_id(e->pid);
  a.tid = lane_id(e->tid);
  a.start = start;
  a.end = end;
  a.domain = !strncmp(nm, "hip", 3) || !strncmp(nm, "hsa", 3) ? "HIP" : "CUDA";
  a.category = e->cat;
  a.name = nm;
  /* Kineto's runtime args are cbid and correlation (= id / 2): not kept */
  a.args = "";
  return w_api(k->m, &a);
}

/* cpu_op, user_annotation: a UserMarker on an odd id; python_function:
 * a call named by the function (few distinct names: interned). */
static int ev_marker(kstate *k, int64_t start, int64_t end)
{
  kev *e = &k->ev;
  apirec a = {0};
  int cpu_op = e->ck == CK_CPU_OP;
  int python = e->ck == CK_PYTHON;
  a.corr = k->next_marker += 2;
  /* RPDI_LEAN_REPORT (readdirect.h): only the calls that widen the span
   * of those kept, so the trace's first start and last end stay */
  if (python && k->m->lean == RPDI_LEAN_REPORT) {
    if (k->py_seen && start >= k->py_lo && end <= k->py_hi)
      return RPD_OK;
    if (!k->py_seen || start < k->py_lo) k->py_lo = start;
    if (!k->py_seen || end > k->py_hi) k->py_hi = end;
    k->py_seen = 1;
  }
  a.pid = lane_id(e->pid);
  a.tid = lane_id(e->tid);
  a.start = start;
  a.end = end;
  a.domain = python ? "PYTHON" : "KINETO";
  a.category = e->cat;
  a.name = python ? e->name.s : "UserMarker";
  if (cpu_op && arg_find(e, "Input Dims"))
    k->m->n_shaped++;
  /* lean (raptor's direct read): a cpu_op's marker text is its name, not
   * the autograd form (name, seq, op_id, sizes), which only rpd-autograd
   * parses and no raptor mode shows; it is one distinct string per op,
   * each interned into rocpd_ustring */
  a.args = cpu_op && k->m->lean ? e->name.s
           : cpu_op ? autograd_text(k, arg_int(e, "External id", a.corr))
           : python ? "" : e->name.s;
  int rc = w_api(k->m, &a);
  /* lean (raptor's direct read): only the args of cpu_ops of a name the
   * performance model has a model of: the others are ops of category
   * "none", which the lean model does not write */
  if (!rc && (cpu_op || (e->ck == CK_ANNOTATION && !k->m->lean)) && e->args.len > 2 &&
      !(cpu_op && k->m->lean && !named_op(k, e->name.s ? e->name.s : "", e->name.len)))
    rc = w_ext(k, a.pid, a.tid, start, end, a.corr, 0);
  return rc;
}

/* The event just closed. */
int kineto_event_end(kstate *k)
{
  kev *e = &k->ev;
  imp *m = k->m;
  int64_t start = 0, end = 0;
  int rc = RPD_OK;
  if (!strcmp(e->ph, "X")) {
    const char *c = e->cat;
    int ck = e->ck;
    int kind = ck == CK_KERNEL ? 1 : ck == CK_MEMCPY ? 2 : ck == CK_MEMSET ? 3 :
               ck == CK_RUNTIME || ck == CK_SYNC ? 4 :
               ck == CK_CPU_OP || ck == CK_ANNOTATION || ck == CK_PYTHON ? 5 :
               ck == CK_GPU_ANNOTATION ? 6 : 0;
    if (!kind) {
      /* named by its cat in the summary when that is one plain word */
      int plain = *c != '\0';
      for (const char *p = c; *p && plain; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                (*p >= '0' && *p <= '9') || *p == '_';
      count_read(m, plain ? c : "X (other cat)", 0);
      return RPD_OK;
    }
    if ((rc = ev_times(k, 1, &start, &end)))
      return rc;
    count_read(m, c, 1);
    switch (kind) {
    case 1: return ev_kernel(k, start, end);
    case 2: return ev_copy(k, start, end, 0);
    case 3: return ev_copy(k, start, end, 1);
    case 4: return ev_api(k, start, end);
    case 5: return ev_marker(k, start, end);
    default:
      if (m->lean)          /* no raptor mode reads gpu annotations */
        return RPD_OK;
      return w_ext(k, arg_int(e, "device", lane_id(e->pid)),
                   arg_int(e, "stream", lane_id(e->tid)), start, end, 0, 0);
    }
  }
  if (!strcmp(e->ph, "s") || !strcmp(e->ph, "f")) {
    /* flow ends: their id is the correlation both ends carry in args */
    int ac2g = e->ck == CK_FLOW;
    count_read(m, ac2g ? "ac2g flow" : "other flow", ac2g);
    return RPD_OK;
  }
  if (!strcmp(e->ph, "i") || !strcmp(e->ph, "I")) {
    if (!e->cat[0]) {
      count_read(m, "instant (no cat)", 0);
      return RPD_OK;
    }
    if ((rc = ev_times(k, 0, &start, &end)))
      return rc;
    count_read(m, "instant", 1);
    if (m->lean)            /* nor instant events */
      return RPD_OK;
    return w_ext(k, lane_id(e->pid), lane_id(e->tid), start, end, 0, 0);
  }
  count_read(m, !strcmp(e->ph, "M") ? "M (metadata event)" : "other event", 0);
  return RPD_OK;
}

