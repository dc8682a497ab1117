/* api.c - the raptor engine behind lib/librptor.so (see api.h): the
 * engine's calls (options.c, load.c) and its results; the engine prints
 * nothing, its message (raptor->err) is returned as it is. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "check.h"
#include "raptor.h"
#include "readdirect.h"   /* rpd-import's rocprofv3 reader */

struct rptr {
  raptor R;
  char *path;            /* the trace, for rptr_op_details (owned) */
  char **optypes;        /* opType names of rptr_op_details (owned) */
  int64_t noptypes;
};

static __thread char errbuf[1024];

/* The library's own copy of the common layer (linked in, its symbols
 * hidden) shows no progress line either: opening a .gz trace would draw
 * one on the process's stderr.  Set on the first call of the API (never
 * in a program that links these objects without calling it). */
static pthread_once_t quiet_once = PTHREAD_ONCE_INIT;

static void set_quiet(void)
{
  /* a rocprofv3 database or Kineto trace reads as bin/raptor reads it
   * (rpd-import's reader into memory, lean, modelled: raptor.c) */
  static const rpdi_direct direct = { .lean = RPDI_LEAN, .model = 1 };
  rpd_set_import_reader(rpdi_direct_read, (void *)&direct);
  rpd_quiet = 1;
}

/* Runs go on in parallel threads, but common/'s list of temp files (the
 * decompressed copy of a .gz trace, outfile.c) is one list per process
 * without a lock of its own: opening and closing a trace take turns. */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

static int trace_open(rpd **r, const char *path)
{
  pthread_once(&quiet_once, set_quiet);
  pthread_mutex_lock(&open_lock);
  int rc = rpd_open(r, path, NULL, RPD_READ);
  pthread_mutex_unlock(&open_lock);
  return rc;
}

static void trace_close(rpd *r)
{
  pthread_mutex_lock(&open_lock);
  rpd_close(r, 0);
  pthread_mutex_unlock(&open_lock);
}

const char *rptr_errmsg(void)
{
  return errbuf;
}

/* errbuf = "raptor: " and the first line of the engine's message (a bad
 * option's line without the CLI's "Try 'raptor --help'."); a failure
 * without one says its exit code. */
static void keep_message(const char *text, int rc)
{
  size_t n = text ? strcspn(text, "\n") : 0;
  if (n) snprintf(errbuf, sizeof errbuf, "raptor: %.*s", (int)n, text);
  else if (rc) snprintf(errbuf, sizeof errbuf, "raptor: failed (exit %d)", rc);
  else errbuf[0] = 0;
}

/* The check's verdict on a table: from the rows the engine's scan checked
 * (fold_check), or the check's own scan when the engine did not read the
 * whole table (it stopped early, or read the ops sorted by SQLite). */
static int check_verdict(raptor *R, const char *table, int done, const rpd_check_rows *c)
{
  int gpu = strcmp(table, "rocpd_op") == 0;
  return done ? rpd_check_rows_result(c, table) : rpd_check_table(R->r, table, gpu, NULL);
}

/* The CLI's steps up to the analysis (raptor.c main without the outputs).
 * The trace check (the CLI's RPD_CHECKED) is folded into the engine's own
 * scans (raptor.h fold_check: no scan of its own); when it fails, its
 * message replaces whatever the engine said, as in the CLI, which checks
 * first. */
static int run(raptor *R, int argc, char **argv)
{
  int ret = raptor_parse_args(R, argc, argv);
  if (ret) return ret;
  make_gap_labels(R);
  R->keep_ops = 1;       /* get_op_df and the instance tables need every op */
  if ((ret = categories_load(R))) return ret;
  if (trace_open(&R->r, R->opt.path) != RPD_OK)
    return raptor_fail(R, 1, "cannot open '%s': %s", R->opt.path, rpd_errmsg());
  /* a small page cache: a Python process keeps its memory for pandas */
  if (rpd_profile(R->r, RPD_OPEN_SCAN) != RPD_OK)
    return raptor_fail(R, 1, "cannot read '%s': %s", R->opt.path, rpd_errmsg());
  fold_check fold;
  memset(&fold, 0, sizeof fold);
  R->fold = &fold;
  ret = setup_roi(R);
  R->fold = NULL;
  if (check_verdict(R, "rocpd_api", fold.api_done, &fold.api) != RPD_OK ||
      check_verdict(R, "rocpd_op", fold.op_done, &fold.op) != RPD_OK) {
    raptor_clear_err(R);
    return raptor_fail(R, 1, "cannot read '%s': %s", R->opt.path, rpd_errmsg());
  }
  return ret;
}

int rptr_open(int argc, const char *const *argv, rptr **out)
{
  *out = NULL;
  errbuf[0] = 0;
  if (argc < 0 || (argc && !argv)) {
    keep_message("bad arguments", 2);
    return 2;
  }
  rptr *h = rpd_xcalloc(1, sizeof *h);
  char **av = rpd_xcalloc((size_t)argc + 2, sizeof *av);
  av[0] = "raptor";
  for (int i = 0; i < argc; i++) av[i + 1] = (char *)(argv[i] ? argv[i] : "");
  raptor_init(&h->R);
  int ret = run(&h->R, argc + 1, av);
  keep_message(h->R.err, ret);
  raptor_clear_err(&h->R);
  free(av);
  if (h->R.opt.path) h->path = rpd_xstrdup(h->R.opt.path);
  /* the path and option strings belong to the caller: drop them */
  h->R.opt.path = h->R.opt.cat_file = h->R.opt.roi_start_s = h->R.opt.roi_end_s = NULL;
  h->R.opt.op_file = h->R.opt.csv_dir = NULL;
  if (h->R.r) {
    trace_close(h->R.r);
    h->R.r = NULL;
  }
  if (ret) {
    rptr_close(h);
    return ret;
  }
  *out = h;
  return 0;
}

void rptr_close(rptr *h)
{
  if (!h) return;
  if (h->R.r) trace_close(h->R.r);
  raptor_free(&h->R);
  for (int64_t i = 0; i < h->noptypes; i++) free(h->optypes[i]);
  free(h->optypes);
  free(h->path);
  free(h);
}

void rptr_info(const rptr *h, int64_t *out)
{
  const raptor *R = &h->R;
  out[RPTR_FIRST_ABS] = R->res.first_abs;
  out[RPTR_LAST_ABS] = R->res.last_abs;
  out[RPTR_ROI_START] = R->res.roi_s;
  out[RPTR_ROI_END] = R->res.roi_e;
  out[RPTR_SEQLEN] = R->opt.seqlen;
  out[RPTR_NOPS] = (int64_t)R->res.n;
  out[RPTR_NKEYS] = (int64_t)R->res.nkeys;
  out[RPTR_NROWS] = (int64_t)R->res.nrows;
  out[RPTR_NCATROWS] = (int64_t)R->res.ncrows;
  out[RPTR_NGPUROWS] = (int64_t)R->res.ngrows;
  out[RPTR_NNAMES] = (int64_t)R->res.nnames;
  out[RPTR_NCATS] = R->res.ncats + 2;
}

const char *rptr_name(const rptr *h, int64_t i)
{
  return i >= 0 && (size_t)i < h->R.res.nnames ? h->R.res.names[i] : NULL;
}

const char *rptr_catname(const rptr *h, int64_t i)
{
  return i >= 0 && i < h->R.res.ncats + 2 ? h->R.res.catname[i] : NULL;
}

const char *rptr_row_label(const rptr *h, int64_t i)
{
  return i >= 0 && (size_t)i < h->R.res.nrows ? h->R.res.rows[i].label : NULL;
}

const char *rptr_catrow_name(const rptr *h, int64_t i)
{
  return i >= 0 && (size_t)i < h->R.res.ncrows ? h->R.res.crows[i].name : NULL;
}

void rptr_ops(const rptr *h, int64_t *i64, int32_t *i32, double *zscore, int8_t *outlier)
{
  const raptor *R = &h->R;
  for (size_t i = 0; i < R->res.n; i++) {
    const op *o = &R->res.ops[i];
    int64_t *a = i64 + 5 * i;
    int32_t *b = i32 + 4 * i;
    a[0] = o->id;
    a[1] = o->start;
    a[2] = o->end;
    a[3] = op_dur(o);
    a[4] = o->pregap;
    b[0] = o->gpu;
    b[1] = o->kern;
    b[2] = o->key;
    b[3] = o->seq;
    zscore[i] = op_zscore(R, o);
    outlier[i] = (int8_t)op_outlier(R, o);
  }
}

void rptr_keys(const rptr *h, int32_t *names)
{
  if (h->R.res.nkeys)
    memcpy(names, h->R.res.keyk, h->R.res.nkeys * (size_t)(h->R.opt.seqlen + 1) * sizeof *names);
}

void rptr_kernelseq(const rptr *h, int32_t *i32, int64_t *i64, double *f64)
{
  const raptor *R = &h->R;
  for (size_t i = 0; i < R->res.nrows; i++) {
    const krow *x = &R->res.rows[i];
    i32[2 * i] = x->key;
    i32[2 * i + 1] = x->cat;
    int64_t a[] = {x->calls, x->outliers, x->smin, x->smax};
    memcpy(i64 + 4 * i, a, sizeof a);
    double v[] = {x->pg_sum, x->pg_min, x->pg_mean, x->pg_std, x->pg_max, x->d_sum,
                  x->d_min, x->d_mean, x->d_std, x->d_max, x->pct, x->varsum};
    memcpy(f64 + 12 * i, v, sizeof v);
  }
}

void rptr_categories(const rptr *h, int64_t *i64, double *f64)
{
  const raptor *R = &h->R;
  for (size_t i = 0; i < R->res.ncrows; i++) {
    const catrow *x = &R->res.crows[i];
    i64[2 * i] = x->uniq;
    i64[2 * i + 1] = x->calls;
    double v[] = {x->dur, x->varsum, x->avg_us, x->pct};
    memcpy(f64 + 4 * i, v, sizeof v);
  }
}

void rptr_gpus(const rptr *h, int32_t *gpu, double *f64)
{
  const raptor *R = &h->R;
  for (size_t i = 0; i < R->res.ngrows; i++) {
    const gpurow *g = &R->res.grows[i];
    gpu[i] = g->gpu;
    double v[] = {g->pregap, g->dur, g->idle_pct, g->lead, g->trail};
    memcpy(f64 + 5 * i, v, sizeof v);
  }
}

void rptr_variability(const rptr *h, double *out)
{
  out[0] = h->R.res.var_comm;
  out[1] = h->R.res.var_other;
  out[2] = h->R.res.total_ns;
}

/* (op id, position in R->res.ops) pairs sorted by id, to find an op by id */
typedef struct idpos {
  int64_t id;
  size_t pos;
} idpos;

static int idpos_cmp(const void *a, const void *b)
{
  const idpos *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

/* Index of opType name s in h->optypes, added when new. */
static int32_t optype_index(rptr *h, const char *s)
{
  for (int64_t i = 0; i < h->noptypes; i++)
    if (strcmp(h->optypes[i], s) == 0) return (int32_t)i;
  h->optypes = rpd_xrealloc(h->optypes, (size_t)(h->noptypes + 1) * sizeof *h->optypes);
  h->optypes[h->noptypes] = rpd_xstrdup(s);
  return (int32_t)h->noptypes++;
}

/* Walk the reference's op query (the op view: every op whose description and
 * opType strings exist, start in the ROI, --gpu-id; by start, then id) and
 * fill the columns of the ops of h found in it (by id). */
static int walk_op_view(rptr *h, rpd *r, const idpos *byid, int64_t *index,
                        int64_t *queue, int32_t *optype)
{
  const raptor *R = &h->R;
  sqlite3_stmt *st = NULL;
  char *sql = rpd_xasprintf(
      "SELECT o.id, o.queueId, B.string FROM rocpd_op o"
      " JOIN rocpd_string A ON A.id = o.description_id"
      " JOIN rocpd_string B ON B.id = o.opType_id"
      " WHERE o.start >= ?1 AND o.start <= ?2%s ORDER BY o.start, o.id",
      R->opt.gpu_id == -1 ? "" : " AND o.gpuId = ?3");
  int rc = rpd_prepare(r, sql, &st), s;
  int64_t k = 0;
  free(sql);
  if (rc != RPD_OK) return rc;
  sqlite3_bind_int64(st, 1, R->res.first_abs + R->res.roi_s);
  sqlite3_bind_int64(st, 2, R->res.first_abs + R->res.roi_e);
  if (R->opt.gpu_id != -1) sqlite3_bind_int64(st, 3, R->opt.gpu_id);
  while ((s = rpd_step(r, st)) == SQLITE_ROW) {
    idpos key = {sqlite3_column_int64(st, 0), 0};
    const idpos *hit = R->res.n ? bsearch(&key, byid, R->res.n, sizeof *byid, idpos_cmp) : NULL;
    if (hit) {
      const char *t = (const char *)sqlite3_column_text(st, 2);
      index[hit->pos] = k;
      queue[hit->pos] = sqlite3_column_int64(st, 1);
      optype[hit->pos] = optype_index(h, t ? t : "");  /* a handful of types */
    }
    k++;
  }
  if (s < 0) rc = -s;
  sqlite3_finalize(st);
  return rc;
}

int rptr_op_details(rptr *h, int64_t *index, int64_t *queue, int32_t *optype)
{
  const raptor *R = &h->R;
  rpd *r = NULL;
  idpos *byid = NULL;
  int rc;

  errbuf[0] = 0;
  for (size_t i = 0; i < R->res.n; i++) {
    index[i] = -1;
    queue[i] = 0;
    optype[i] = -1;
  }
  if (!h->path) {
    keep_message("no trace to read the op details from", 1);
    return 1;
  }
  rc = trace_open(&r, h->path);
  if (rc == RPD_OK) {
    byid = rpd_xcalloc(R->res.n ? R->res.n : 1, sizeof *byid);
    for (size_t i = 0; i < R->res.n; i++) byid[i] = (idpos){R->res.ops[i].id, i};
    qsort(byid, R->res.n, sizeof *byid, idpos_cmp);
    rc = walk_op_view(h, r, byid, index, queue, optype);
  }
  if (rc != RPD_OK) snprintf(errbuf, sizeof errbuf, "raptor: cannot read '%s': %s",
                             h->path, rpd_errmsg());
  if (r) trace_close(r);
  free(byid);
  return rc == RPD_OK ? 0 : 1;
}

int64_t rptr_noptypes(const rptr *h)
{
  return h->noptypes;
}

const char *rptr_optype(const rptr *h, int64_t i)
{
  return i >= 0 && i < h->noptypes ? h->optypes[i] : NULL;
}
