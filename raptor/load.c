/* load.c - raptor's engine: loading the ops, time zero (zero.c), the ROI; then the
 * analysis (analyze.c).  Failures return an exit code with the message in
 * R->err; progress goes through R->progress. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catfile.h"
#include "opclass.h"
#include "opmerge.h"
#include "timeopt.h"
#include "rpd.h"
#include "raptor.h"
#include "util/map.h"
#include "zero.h"

/* ------------------------------------------------------------ progress */

static void progress_rows(raptor *R, const char *what, const char *table, int64_t id)
{
  if (R->progress) R->progress->rows(R->r, what, table, id);
}

static void progress_count(raptor *R, const char *what, int64_t done, int64_t total)
{
  if (R->progress) R->progress->count(what, done, total);
}

static void progress_end(raptor *R)
{
  if (R->progress) R->progress->end();
}

/* ------------------------------------------------------------ loading */

/* The ops of the tables: GPU work (class kernel or copy of views/opClass.sql),
 * named by description, or by opType when the description is empty (copies);
 * --reference-ops: the reference raptor's KernelExecution, Task and
 * CopyDeviceToDevice ops named by description only.  The opType string ids
 * of those ops: the query behind types_sql's "id" column. */
static char *types_sql(const raptor_opts *opt)
{
  if (opt->reference_ops)
    return rpd_xstrdup("SELECT id FROM rocpd_string WHERE string IN"
                       " ('KernelExecution','CopyDeviceToDevice','Task')");
  char *cond = rpd_opclass_condition("s.id", RPD_OPCLASS_GPU_WORK);
  char *sql = rpd_xasprintf("SELECT s.id FROM rocpd_string s WHERE %s", cond);
  free(cond);
  return sql;
}

/* The sorted scan's query: those ops with start in [?1, ?2] (and gpuId ?3),
 * columns id, gpuId, start, end, name id (the opType's when the
 * description is '' and not --reference-ops), by gpuId, start, id. */
static char *sorted_ops_sql(const raptor_opts *opt)
{
  char *types = types_sql(opt);
  char *sql = rpd_xasprintf(
      "SELECT o.id, o.gpuId, o.start, o.\"end\", %s FROM rocpd_op o"
      " WHERE o.opType_id IN (%s) AND o.start >= ?1 AND o.start <= ?2%s"
      " ORDER BY o.gpuId, o.start, o.id",
      opt->reference_ops ? "o.description_id"
                         : "CASE WHEN o.description_id IN (SELECT id FROM rocpd_string"
                           " WHERE string = '') THEN o.opType_id ELSE o.description_id END",
      types, opt->gpu_id == -1 ? "" : " AND o.gpuId = ?3");
  free(types);
  return sql;
}

/* The unsorted scan's query: every row of rocpd_op into the aggregate
 * rptr_op_row (scan_ops), which picks the ops in C (op_pick): SQLite
 * evaluating the IN and range conditions per row costs more than the scan. */
static const char raw_ops_sql[] =
    "SELECT rptr_op_row(o.id, o.gpuId, o.start, o.\"end\", o.description_id, o.opType_id)"
    " FROM rocpd_op o";

/* A sorted set of int64 ids (the rows of one query). */
typedef struct idset {
  int64_t *v;
  size_t n;
} idset;

static int i64_cmp(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* *set = the integer first column of every row of sql. */
static int idset_load(rpd *r, const char *sql, idset *set)
{
  sqlite3_stmt *st = NULL;
  size_t cap = 0;
  int s = 0, rc = rpd_prepare(r, sql, &st);
  while (rc == RPD_OK && (s = rpd_step(r, st)) == SQLITE_ROW) {
    if (sqlite3_column_type(st, 0) != SQLITE_INTEGER) continue;   /* never equal to an id */
    if (set->n == cap) {
      cap = cap ? cap * 2 : 16;
      set->v = rpd_xrealloc(set->v, cap * sizeof *set->v);
    }
    set->v[set->n++] = sqlite3_column_int64(st, 0);
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  sqlite3_finalize(st);
  if (set->n) qsort(set->v, set->n, sizeof *set->v, i64_cmp);
  return rc;
}

/* 1 when the value v equals an id of set, as SQL's IN compares: an
 * integer, or a real with that integer value. */
static int idset_has(const idset *set, sqlite3_value *v)
{
  int64_t x;
  int t = sqlite3_value_type(v);
  if (t == SQLITE_INTEGER) {
    x = sqlite3_value_int64(v);
  } else if (t == SQLITE_FLOAT) {
    double d = sqlite3_value_double(v);
    if (!(d >= -9.2e18 && d <= 9.2e18) || (double)(int64_t)d != d) return 0;
    x = (int64_t)d;
  } else {
    return 0;
  }
  return set->n && bsearch(&x, set->v, set->n, sizeof x, i64_cmp) != NULL;
}

/* 1 when the value v is a number in [lo, hi], as SQL's v >= lo AND v <= hi
 * (text, blobs and NULL never are). */
static int value_within(sqlite3_value *v, int64_t lo, int64_t hi)
{
  int t = sqlite3_value_type(v);
  if (t == SQLITE_INTEGER) {
    int64_t x = sqlite3_value_int64(v);
    return x >= lo && x <= hi;
  }
  if (t == SQLITE_FLOAT) {
    double d = sqlite3_value_double(v);
    return d >= (double)lo && d <= (double)hi;
  }
  return 0;
}

/* 1 when $RPDTOOLS_RAPTOR_LOAD is mode: "memory" keeps the ops in R->res.ops,
 * "sql" lets SQLite sort them instead of the merge -- for the tests that
 * compare the paths (docs/raptor.md, Performance). */
static int load_mode_is(const char *mode)
{
  const char *v = getenv("RPDTOOLS_RAPTOR_LOAD");
  return v && strcmp(v, mode) == 0;
}

/* 1 unless the caller needs R->ops (the library API): the ops then stream
 * through the analysis in (gpu, start, id) order into a temp file that the
 * outputs read back, and R->res.ops stays empty -- memory flat in the number
 * of ops.  ROIs that depend on the ops (kernel regex, --auto-roi,
 * --roi-trim) read them again for the final ROI instead of keeping them. */
static int can_stream(const raptor *R)
{
  return !R->keep_ops && !load_mode_is("memory");
}

/* Hand one op, in (gpu, start, id) order, to the analysis (streamed) or
 * to R->res.ops.  The first op of a streamed run opens the temp file. */
static int deliver_op(raptor *R, const oprec *r, void *ctx)
{
  int streamed = *(const int *)ctx;
  op o = {.id = r->id, .gpu = r->gpu, .start = r->start, .end = r->end,
          .kern = r->kern, .key = -1, .pregap = -1, .seq = 0};
  if (streamed) {
    if (!R->opfile) {
      if (!(R->opfile = rpd_scratch_file()))
        return rpd_seterr(RPD_EIO, "cannot create a temp file: %s", strerror(errno));
      stream_begin(R);
    }
    if (stream_op(R, &o) != 0)
      return rpd_seterr(RPD_EIO, "cannot write a temp file: %s", strerror(errno));
    R->res.n++;
    return RPD_OK;
  }
  if (R->res.n == R->res.cap) {
    R->res.cap = R->res.cap ? R->res.cap * 2 : 4096;
    R->res.ops = rpd_xrealloc(R->res.ops, R->res.cap * sizeof *R->res.ops);
  }
  R->res.ops[R->res.n++] = o;
  return RPD_OK;
}

/* Where scan_ops hands each op: RPD_OK or an error that stops the scan. */
typedef int (*op_sink)(raptor *R, const oprec *o, void *ctx);

static int merge_op(raptor *R, const oprec *o, void *ctx)
{
  (void)R;
  return opmerge_add(ctx, o);
}

/* The state of one scan_ops. */
typedef struct op_scan {
  raptor *R;
  sqlite3_stmt *sst;     /* the name of a string id */
  rpd_i64map dm;         /* string id -> kernel name index (-2 missing) */
  rpd_check_rows *chk;   /* the folded check of every row, or NULL */
  int sorted;            /* stepping through sorted_ops_sql */
  idset types, empty;    /* unsorted: the ops' opType ids; the ids of '' */
  int64_t lo, hi;        /* unsorted: the start range (absolute) */
  int64_t rows;
  op_sink sink;
  void *ctx;
  int rc;                /* the first failure stops the scan */
  char msg[512];         /* its message, kept over SQLite's own */
} op_scan;

/* Unsorted scan: 1 when the row v (raw_ops_sql's columns) is an op of the
 * scan, as sorted_ops_sql's WHERE; *name = its name's string id. */
static int op_pick(const op_scan *sc, sqlite3_value **v, int64_t *name)
{
  const raptor *R = sc->R;
  if (!idset_has(&sc->types, v[5]) || !value_within(v[2], sc->lo, sc->hi)) return 0;
  if (R->opt.gpu_id != -1 && !value_within(v[1], R->opt.gpu_id, R->opt.gpu_id)) return 0;
  *name = sqlite3_value_int64(!R->opt.reference_ops && idset_has(&sc->empty, v[4]) ? v[5] : v[4]);
  return 1;
}

/* One row (v: its columns) to the scan's sink. */
static int op_row(op_scan *sc, sqlite3_value **v)
{
  raptor *R = sc->R;
  int64_t did;
  if (sc->chk) rpd_check_values(sc->chk, v[2], v[3], v[1]);
  if (sc->sorted) did = sqlite3_value_int64(v[4]);
  else if (!op_pick(sc, v, &did)) return RPD_OK;   /* not an op of this scan */
  int64_t id = sqlite3_value_int64(v[0]);
  if (!sc->sorted) progress_rows(R, "reading ops", "rocpd_op", id);
  else progress_count(R, "reading ops", ++sc->rows, -1);
  int found;
  int64_t *slot = rpd_i64map_ref(&sc->dm, did, -2, &found);
  if (!found) {
    sqlite3_reset(sc->sst);
    sqlite3_bind_int64(sc->sst, 1, did);
    int t = rpd_step(R->r, sc->sst);
    if (t == SQLITE_ROW) {
      const char *str = (const char *)sqlite3_column_text(sc->sst, 0);
      *slot = name_intern(R, str ? str : "");
    } else if (t == SQLITE_DONE) {
      *slot = -2;  /* no such string: the op view drops the op */
    } else {
      return -t;
    }
  }
  if (*slot < 0) return RPD_OK;
  oprec o = {.id = id,
             .gpu = (int32_t)sqlite3_value_int64(v[1]),
             .start = sqlite3_value_int64(v[2]) - R->res.first_abs,
             .end = sqlite3_value_int64(v[3]) - R->res.first_abs,
             .kern = (int32_t)*slot};
  return sc->sink(R, &o, sc->ctx);
}

/* The aggregate step of an unsorted scan: the rows reach op_row inside
 * SQLite's own loop, without a sqlite3_step and a column call per row
 * (each takes the connection's mutex).  A failure stops the statement. */
static void op_agg_step(sqlite3_context *cx, int n, sqlite3_value **v)
{
  op_scan *sc = sqlite3_user_data(cx);
  (void)n;
  if (sc->rc != RPD_OK) return;
  if ((sc->rc = op_row(sc, v)) != RPD_OK) {
    snprintf(sc->msg, sizeof sc->msg, "%s", rpd_errmsg());
    sqlite3_result_error(cx, "scan stopped", -1);
  }
}

static void op_agg_final(sqlite3_context *cx)
{
  sqlite3_result_null(cx);
}

/* Prepare the unsorted scan: the id sets of op_pick, the aggregate. */
static int raw_scan_prepare(op_scan *sc, sqlite3_stmt **st)
{
  rpd *r = sc->R->r;
  char *types = types_sql(&sc->R->opt);
  int rc = idset_load(r, types, &sc->types);
  free(types);
  if (rc == RPD_OK && !sc->R->opt.reference_ops)
    rc = idset_load(r, "SELECT id FROM rocpd_string WHERE string = ''", &sc->empty);
  if (rc == RPD_OK && sqlite3_create_function(rpd_db(r), "rptr_op_row", 6, SQLITE_UTF8, sc, NULL,
                                              op_agg_step, op_agg_final) != SQLITE_OK)
    rc = rpd_seterr(RPD_ESQL, "cannot register a function: %s", sqlite3_errmsg(rpd_db(r)));
  return rc == RPD_OK ? rpd_prepare(r, raw_ops_sql, st) : rc;
}

/* One scan of the ops with start in [first+lo, first+hi] (and --gpu-id),
 * each handed to sink(R, op, ctx): every row in table order through the
 * aggregate rptr_op_row (the ops picked in C), or sorted by SQLite
 * (sorted_ops_sql, stepped through) when sorted is 1.  The first unsorted
 * scan of a library run also checks every row (R->fold). */
static int scan_ops(raptor *R, int64_t lo, int64_t hi, int sorted, op_sink sink, void *ctx)
{
  rpd *r = R->r;
  sqlite3_stmt *st = NULL;
  op_scan sc = {.R = R, .sorted = sorted, .sink = sink, .ctx = ctx,
                .lo = R->res.first_abs + lo, .hi = R->res.first_abs + hi};
  sc.chk = R->fold && !R->fold->op_done && !sorted ? &R->fold->op : NULL;
  if (sc.chk) memset(sc.chk, 0, sizeof *sc.chk);
  int rc, s = 0;
  if (sorted) {
    char *sql = sorted_ops_sql(&R->opt);
    rc = rpd_prepare(r, sql, &st);
    free(sql);
    if (rc == RPD_OK) {
      sqlite3_bind_int64(st, 1, sc.lo);
      sqlite3_bind_int64(st, 2, sc.hi);
      if (R->opt.gpu_id != -1) sqlite3_bind_int64(st, 3, R->opt.gpu_id);
    }
  } else {
    rc = raw_scan_prepare(&sc, &st);
  }
  if (rc == RPD_OK)
    rc = rpd_prepare(r, "SELECT string FROM rocpd_string WHERE id = ?1", &sc.sst);
  if (rc != RPD_OK) goto cleanup;
  while ((s = rpd_step(r, st)) == SQLITE_ROW && sorted) {
    /* one sqlite3_column_value per column (each sqlite3_column_* call
     * takes the connection's mutex; the value's type and integer then
     * cost none): only this thread uses the connection */
    sqlite3_value *v[5];
    for (int c = 0; c < 5; c++) v[c] = sqlite3_column_value(st, c);
    if ((rc = op_row(&sc, v)) != RPD_OK) goto cleanup;
  }
  if (sc.rc != RPD_OK)   /* op_row failed inside the aggregate */
    rc = rpd_seterr(sc.rc, "%s", sc.msg);
  else if (s < 0)
    rc = -s;
  if (sc.chk && rc == RPD_OK) R->fold->op_done = 1;
cleanup:
  if (rc == RPD_OK) progress_end(R);   /* read to the end: 100% */
  else progress_count(R, "reading ops", -1, -1);
  sqlite3_finalize(st);
  sqlite3_finalize(sc.sst);
  rpd_i64map_free(&sc.dm);
  free(sc.types.v);
  free(sc.empty.v);
  return rc;
}

/* Read the ops with start in [first+lo, first+hi] (and --gpu-id) in
 * (gpuId, start, id) order into R->res.ops or, streamed (see can_stream),
 * through stream_op into R->opfile.  One scan in table order and a merge
 * of its sorted runs (opmerge.h: linear in the ops); a trace in no order
 * at all is read again sorted by SQLite.  pre (freed here; may be NULL):
 * the merger of prescan_ops, whose ops (absolute times) replace the scan. */
static int load_ops(raptor *R, int64_t lo, int64_t hi, opmerge *pre)
{
  int streamed = can_stream(R);
  if (R->opfile) {  /* a reload for a narrower ROI */
    fclose(R->opfile);
    R->opfile = NULL;
  }
  R->res.n = 0;
  opmerge *m = pre ? pre : opmerge_new();
  int rc = pre ? RPD_OK : load_mode_is("sql") ? RPD_ERANGE : scan_ops(R, lo, hi, 0, merge_op, m);
  if (rc == RPD_OK) {
    oprec o;
    int s = 0;
    int64_t done = 0, total = opmerge_count(m);
    while (rc == RPD_OK && (s = opmerge_next(m, &o)) == 1) {
      progress_count(R, "merging ops", ++done, total);
      if (pre) {   /* the ROI's ops, times made relative as scan_ops does */
        if (o.start < R->res.first_abs + lo || o.start > R->res.first_abs + hi) continue;
        o.start -= R->res.first_abs;
        o.end -= R->res.first_abs;
      }
      rc = deliver_op(R, &o, &streamed);
    }
    if (rc == RPD_OK && s < 0) rc = -s;
    progress_count(R, "merging ops", -1, -1);
  }
  opmerge_free(m);
  if (rc == RPD_ERANGE) {   /* no order to merge: let SQLite sort */
    rpd_clearerr();
    R->res.n = 0;
    rc = scan_ops(R, lo, hi, 1, deliver_op, &streamed);
  }
  if (rc == RPD_OK && streamed && R->opfile && fflush(R->opfile) != 0)
    rc = rpd_seterr(RPD_EIO, "cannot write a temp file: %s", strerror(errno));
  return rc;
}

/* ------------------------------------------------------------ ROI */

/* Parse one ROI bound.  Sets *ns (relative) for times; for a kernel
 * regex sets *re.  Returns 0 or an exit code (message in R->err). */
static int roi_parse(raptor *R, const char *what, const char *s, int64_t *ns,
                     rpd_regex **re)
{
  *re = NULL;
  int64_t abs;
  if (!*s)
    return raptor_fail(R, 2, "empty %s", what);
  if (rpd_timeopt_resolve(s, R->res.first_abs, R->res.last_abs, &abs) == RPD_OK) {
    *ns = abs - R->res.first_abs;  /* fits: both are inside int64 and abs is checked */
    return 0;
  }
  unsigned char c0 = (unsigned char)s[0];
  /* malformed values are usage errors (exit 2), on one line */
  if (isdigit(c0) || c0 == '.' || c0 == '+' || c0 == '-' || strchr(s, '%'))
    return raptor_fail(R, 2, "bad %s '%s': %s", what, s, rpd_errmsg());
  if (rpd_regex_compile(s, re) != RPD_OK)
    return raptor_fail(R, 2, "bad %s kernel regex '%s': %s", what, s, rpd_errmsg());
  return 0;
}

/* 1 if the GPU id g is in the text list "0, 1, 2". */
static int gpu_listed(const char *list, int64_t g)
{
  char *end;
  for (const char *p = list; *p;) {
    long long v = strtoll(p, &end, 10);
    if (end == p) break;
    if (v == g) return 1;
    p = end;
    while (*p == ',' || *p == ' ') p++;
  }
  return 0;
}

/* What the ROI probe looks for: the first start of an op whose kernel
 * matches each regex (hit: per kernel name, -1 not yet tested). */
typedef struct roi_probe {
  rpd_regex *re[2];
  int64_t best[2];
  signed char *hit[2];
  size_t nhit;
} roi_probe;

static int probe_op(raptor *R, const oprec *o, void *ctx)
{
  roi_probe *p = ctx;
  if (p->nhit < R->res.nnames) {   /* new names: grow the caches */
    for (int k = 0; k < 2; k++) {
      p->hit[k] = rpd_xrealloc(p->hit[k], R->res.capnames);
      memset(p->hit[k] + p->nhit, -1, R->res.capnames - p->nhit);
    }
    p->nhit = R->res.capnames;
  }
  for (int k = 0; k < 2; k++) {
    if (!p->re[k]) continue;
    signed char *h = &p->hit[k][o->kern];
    if (*h < 0) {
      int m = rpd_regex_search(p->re[k], R->res.names[o->kern]);
      if (m < 0) return -m;   /* an unfinished search is no "no match" */
      *h = (signed char)m;
    }
    if (*h && (p->best[k] < 0 || o->start < p->best[k])) p->best[k] = o->start;
  }
  return RPD_OK;
}

/* The start of the first op (in the whole trace, --gpu-id applies) whose
 * kernel matches rxs, rxe (each may be NULL) into first[0], first[1]; -1
 * where none does.  One scan, nothing kept. */
static int first_matches(raptor *R, rpd_regex *rxs, rpd_regex *rxe, int64_t first[2])
{
  roi_probe p = {.re = {rxs, rxe}, .best = {-1, -1}};
  int rc = scan_ops(R, 0, R->res.last_abs - R->res.first_abs, 0, probe_op, &p);
  first[0] = p.best[0];
  first[1] = p.best[1];
  free(p.hit[0]);
  free(p.hit[1]);
  return rc;
}

/* --roi-trim: the span where every GPU has started and none has ended
 * (the latest first start, the earliest last end) of the loaded ops. */
static void busy_span(raptor *R, int64_t *lo, int64_t *hi)
{
  opiter *it = opiter_new(R);
  int have = 0;
  int32_t gpu = 0;
  int64_t smin = 0, emax = 0;
  *lo = INT64_MIN;
  *hi = INT64_MAX;
  for (const op *o;; ) {
    o = opiter_next(it);
    if (have && (!o || o->gpu != gpu)) {  /* a GPU's ops are contiguous */
      if (smin > *lo) *lo = smin;
      if (emax < *hi) *hi = emax;
    }
    if (!o) break;
    if (!have || o->gpu != gpu) {
      have = 1;
      gpu = o->gpu;
      smin = o->start;
      emax = o->end;
    }
    if (o->end > emax) emax = o->end;
  }
  opiter_free(it);
}

static int roi_check(raptor *R, int64_t s, int64_t e)
{
  int64_t span = R->res.last_abs - R->res.first_abs;
  if (s < 0 || s > span)
    return raptor_fail(R, 1, "ROI start %.6f ms is outside the trace (0 .. %.6f ms)",
                    (double)s / 1e6, (double)span / 1e6);
  if (e < 0 || e > span)
    return raptor_fail(R, 1, "ROI end %.6f ms is outside the trace (0 .. %.6f ms)",
                    (double)e / 1e6, (double)span / 1e6);
  if (s > e)
    return raptor_fail(R, 1, "ROI start %.6f ms is after ROI end %.6f ms",
                    (double)s / 1e6, (double)e / 1e6);
  return 0;
}

/* An exit code and its message when the ROI (and --gpu-id) kept no op: asking
 * for what is not there is an error.  0 when there are ops. */
static int check_have_ops(raptor *R, const char *after)
{
  char *gpus = NULL;
  int ret;
  if (R->res.n)
    return 0;
  if (rpd_opclass_gpus(R->r, RPD_OPCLASS_GPU_WORK, &gpus) != RPD_OK)
    return raptor_fail(R, 1, "cannot read '%s': %s", R->opt.path, rpd_errmsg());
  if (!*gpus)
    ret = raptor_fail(R, 1, "'%s' has no kernels or copies (GPU work)", R->opt.path);
  else if (R->opt.gpu_id != -1 && !gpu_listed(gpus, R->opt.gpu_id))
    ret = raptor_fail(R, 1, "'%s' has no kernels or copies on GPU %lld (GPUs present: %s)",
                   R->opt.path, (long long)R->opt.gpu_id, gpus);
  else
    ret = raptor_fail(R, 1, "'%s': no kernels or copies in the ROI %.6f .. %.6f ms%s", R->opt.path,
                   (double)R->res.roi_s / 1e6, (double)R->res.roi_e / 1e6, after);
  free(gpus);
  return ret;
}

/* With the default ROI (the whole trace) and R->fold, the ops need not
 * wait for time zero: read every op of the scan with absolute times into a
 * merger (load_ops keeps the ROI's) while the helper thread scans
 * rocpd_api.  NULL when the ops are in no order or the scan failed:
 * load_ops reads them again (and reports). */
static opmerge *prescan_ops(raptor *R)
{
  opmerge *m = opmerge_new();
  R->res.first_abs = 0;      /* times stay absolute */
  if (scan_ops(R, INT64_MIN, INT64_MAX, 0, merge_op, m) != RPD_OK) {
    opmerge_free(m);
    rpd_clearerr();
    return NULL;
  }
  return m;
}

/* 1 when the folded check found bad rows in a table it finished: the
 * engine stops, the caller (api.c) reports the check's message. */
static int fold_failed(const raptor *R)
{
  return R->fold && ((R->fold->api_done && R->fold->api.bad) ||
                     (R->fold->op_done && R->fold->op.bad));
}

/* Time zero, ROI, load ops, auto-roi and trim; then analyze. */
int setup_roi(raptor *R)
{
  rpd *r = R->r;
  sqlite3_stmt *st = NULL;
  int have, s;
  api_scan scan = {.threaded = 0};
  opmerge *pre = NULL;
  if (R->fold && !R->opt.roi_start_s && !R->opt.roi_end_s && !load_mode_is("sql") &&
      api_scan_start(R, &scan))
    pre = prescan_ops(R);
  int rc = api_span(R, &have, &scan);
  if (rc != RPD_OK || fold_failed(R)) {
    opmerge_free(pre);
    return rc != RPD_OK ? raptor_fail(R, 1, "cannot read '%s': %s", R->opt.path, rpd_errmsg()) : 1;
  }
  if (!have) {
    rc = rpd_prepare(r, "SELECT min(start), max(\"end\") FROM rocpd_op", &st);
    s = rc == RPD_OK ? rpd_step(r, st) : 0;
    if (rc != RPD_OK || s < 0) {
      sqlite3_finalize(st);
      return raptor_fail(R, 1, "cannot read '%s': %s", R->opt.path, rpd_errmsg());
    }
    have = sqlite3_column_type(st, 0) != SQLITE_NULL;
    R->res.first_abs = sqlite3_column_int64(st, 0);
    R->res.last_abs = sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    if (!have) return raptor_fail(R, 1, "'%s' has no api and no op rows", R->opt.path);
  }
  if (R->res.last_abs < R->res.first_abs) R->res.last_abs = R->res.first_abs;
  int64_t span = R->res.last_abs - R->res.first_abs;
  int64_t rs = 0, re_ = span;
  rpd_regex *rxs = NULL, *rxe = NULL;
  int ret = 0;
  if (R->opt.roi_start_s && (ret = roi_parse(R, "ROI start", R->opt.roi_start_s, &rs, &rxs)))
    goto out;
  if (R->opt.roi_end_s && (ret = roi_parse(R, "ROI end", R->opt.roi_end_s, &re_, &rxe)))
    goto out;
  if (!rxs && !rxe && (ret = roi_check(R, rs, re_))) goto out;
  if (rxs || rxe) {   /* kernel regex bounds: find them first */
    int64_t hit[2];
    if ((rc = first_matches(R, rxs, rxe, hit)) != RPD_OK) {
      ret = raptor_fail(R, 1, "cannot read ops of '%s': %s", R->opt.path, rpd_errmsg());
      goto out;
    }
    if (fold_failed(R)) {
      ret = 1;
      goto out;
    }
    if (rxs && (rs = hit[0]) < 0) {
      ret = raptor_fail(R, 1, "ROI start: no op matches kernel regex '%s'", R->opt.roi_start_s);
      goto out;
    }
    if (rxe && (re_ = hit[1]) < 0) {
      ret = raptor_fail(R, 1, "ROI end: no op matches kernel regex '%s'", R->opt.roi_end_s);
      goto out;
    }
    if ((ret = roi_check(R, rs, re_))) goto out;
  }
  R->res.roi_s = rs;
  R->res.roi_e = re_;
  rc = load_ops(R, rs, re_, pre);
  pre = NULL;              /* load_ops freed it */
  if (rc != RPD_OK) {
    ret = raptor_fail(R, 1, "cannot read ops of '%s': %s", R->opt.path, rpd_errmsg());
    goto out;
  }
  if (fold_failed(R)) {
    ret = 1;
    goto out;
  }
  if ((ret = check_have_ops(R, ""))) goto out;
  if (R->opt.auto_roi) {   /* the top kernel sequence's span, read again */
    analyze(R);
    if (R->cat_error) goto spill;
    size_t i = 0;
    while (i < R->res.nrows && R->res.rows[i].key < 0) i++;
    if (R->spill_failed) goto spill;
    if (i < R->res.nrows) {
      R->res.roi_s = R->res.rows[i].smin;
      R->res.roi_e = R->res.rows[i].smax;
      if ((rc = load_ops(R, R->res.roi_s, R->res.roi_e, NULL)) != RPD_OK) {
        ret = raptor_fail(R, 1, "cannot read ops of '%s': %s", R->opt.path, rpd_errmsg());
        goto out;
      }
    }
  }
  if (R->opt.roi_trim && R->res.n) {
    int64_t lo, hi;
    busy_span(R, &lo, &hi);
    if (R->spill_failed) goto spill;
    if (lo < R->res.roi_s) lo = R->res.roi_s;
    if (hi > R->res.roi_e) hi = R->res.roi_e;
    if (lo > hi) {
      ret = raptor_fail(R, 1, "--roi-trim: the GPUs are never busy at the same time "
                     "(%.6f ms > %.6f ms)", (double)lo / 1e6, (double)hi / 1e6);
      goto out;
    }
    R->res.roi_s = lo;
    R->res.roi_e = hi;
    if ((rc = load_ops(R, lo, hi, NULL)) != RPD_OK) {
      ret = raptor_fail(R, 1, "cannot read ops of '%s': %s", R->opt.path, rpd_errmsg());
      goto out;
    }
    if ((ret = check_have_ops(R, " (after --roi-trim)"))) goto out;
  }
  analyze(R);
  if (!R->spill_failed && (ret = latency_bound(R))) goto out;
spill:
  if (R->cat_error && !ret)
    ret = raptor_fail(R, 1, "%s", R->cat_error);
  if (R->spill_failed)
    ret = raptor_fail(R, 1, "cannot read ops of '%s': reading the temp file failed", R->opt.path);
out:
  if (ret && R->opfile) {  /* a streamed run that failed: no outputs */
    fclose(R->opfile);
    R->opfile = NULL;
  }
  opmerge_free(pre);
  rpd_regex_free(rxs);
  rpd_regex_free(rxe);
  return ret;
}
