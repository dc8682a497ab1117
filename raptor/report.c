/* report.c - raptor --report: the TraceLens rocprofv3 performance report
 * (gpu_timeline, kernel_summary, categories, kernel_details, short kernels
 * and their histogram) computed from any RPD trace, imported or native.
 *
 * Every duration is kept in integer ns and printed in the unit its column
 * name says (time_ms, *_us).  Unions of intervals are exact integer sums.
 * See docs/report.md.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xlsxwriter.h>

#include "catfile.h"
#include "opclass.h"
#include "rpd.h"
#include "report.h"
#include "report_analysis.h"   /* rpd-analyze sheets (w18) */
#include "version.h"
#include "workbook.h"
#include "xlsxfile.h"

const char raptor_report_usage[] =
"usage: raptor FILE --report [options]\n"
"\n"
"The TraceLens-style rocprofv3 report, from any RPD trace (see rpd-import\n"
"for rocprofv3 JSON/CSV/database input):\n"
"  gpu_timeline      per GPU and for all GPUs (gpuId empty): total_time,\n"
"                    kernel, memory, busy_time, idle, computation,\n"
"                    exposed_comm, exposed_memcpy (time_ms, percent)\n"
"  kernel_summary    per kernel name: count, total/mean/median/std/min/max\n"
"                    in us, percent, cumulative_percent, category\n"
"  category          per category: kernels, count, total_ms, percent, ...\n"
"  kernel_details    the top K dispatches by duration with grid/block\n"
"  short_kernels     kernels shorter than the threshold, per name\n"
"  short_histogram   histogram of the short kernels' durations (us)\n"
"\n"
"  --short-kernel-threshold-us X   short-kernel threshold (default 10)\n"
"  --histogram-bins N              bins of the histogram (default 100)\n"
"  --topk N                        kernel_details rows (default 20; 0 = all)\n"
"  --gpu-id N                      only GPU N\n"
"  --category-json F               raptor categories {\"name\": [regex..]} (last\n"
"                                  match wins; default: the built-in set that\n"
"                                  raptor -c uses, raptor/categories.json);\n"
"                                  _COMM (or _Collective) is communication\n"
"  --format table|csv|json         stdout format (default table); csv is one\n"
"                                  table per stream: name it with --table\n"
"  --table NAME                    print only that table (a name above)\n"
"  --csv-dir D                     also write D/<table>.csv\n"
"  --xlsx F                        also write an Excel workbook: an info sheet,\n"
"                                  a sheet per table (formatted, frozen header,\n"
"                                  filter) with charts, plus utilization and\n"
"                                  idle_gaps sheets\n"
"  --html F                        also write one self-contained HTML page: SVG\n"
"                                  charts, sortable and filterable tables\n"
"  --util-bins N                   utilization-over-time bins (default 100)\n"
"  --save                          store ext_report_* tables in FILE (one\n"
"                                  transaction; replaces an earlier report)\n"
"  -q, --quiet                     no stdout tables (with --save/--csv-dir/--xlsx/\n"
"                                  --html); no progress line\n"
"\n"
"TraceLens names are accepted too: --short_kernel_threshold_us X,\n"
"--output_xlsx_path F (= --xlsx), --output_csvs_dir D (= --csv-dir),\n"
"--topk_kernels N (= --topk), --kernel_details (kernel_details of every\n"
"dispatch: --topk 0), and for --table the sheet names\n"
"kernel_summary_by_category, short_kernels_summary, short_kernel_histogram.\n";

/* qsort that accepts an empty or NULL array (qsort(NULL, 0) is undefined). */
static void sort_n(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
  if (base && n > 1)
    qsort(base, n, size, cmp);
}

/* ------------------------------------------------------------ options */

typedef struct ropts {
  const char *path, *xlsx, *csv_dir, *cat_json, *only, *html;
  double threshold_us;
  int bins, topk, gpu, save, quiet, util_bins, topk_set, details;
  rpd_fmt fmt;
} ropts;

static int parse_num(const char *opt, const char *s, double lo, double *v)
{
  char *e;
  errno = 0;
  *v = s ? strtod(s, &e) : 0;
  if (!s || !*s || *e || errno || !isfinite(*v) || *v < lo)
    return rpd_usage_error("%s: bad value '%s'", opt, s ? s : "");
  return 0;
}

static int int_opt(const char *opt, const char *s, int lo, int hi, int *v)
{
  double x;
  if (parse_num(opt, s, lo, &x))
    return 2;
  if (x != floor(x) || x > hi)
    return rpd_usage_error("%s: bad value '%s'", opt, s);
  *v = (int)x;
  return 0;
}

/* TraceLens generate_perf_report_rocprof option names -> ours. */
static const char *tracelens_name(const char *a)
{
  static const char *const map[][2] = {
    {"--short_kernel_threshold_us", "--short-kernel-threshold-us"},
    {"--output_xlsx_path", "--xlsx"},
    {"--output_csvs_dir", "--csv-dir"},
    {"--topk_kernels", "--topk"},
  };
  for (size_t k = 0; k < sizeof map / sizeof *map; k++)
    if (!strcmp(a, map[k][0]))
      return map[k][1];
  return a;
}

/* TraceLens sheet names -> our table names (others unchanged; NULL stays). */
static const char *tracelens_sheet(const char *v)
{
  static const char *const map[][2] = {
    {"kernel_summary_by_category", "category"},
    {"short_kernels_summary", "short_kernels"},
    {"short_kernel_histogram", "short_histogram"},
  };
  for (size_t k = 0; v && k < sizeof map / sizeof *map; k++)
    if (!strcmp(v, map[k][0]))
      return map[k][1];
  return v;
}

static int parse_opts(int argc, char **argv, ropts *o)
{
  double v;
  memset(o, 0, sizeof *o);
  o->threshold_us = 10;
  o->bins = 100;
  o->topk = 20;
  o->gpu = -1;
  o->fmt = RPD_FMT_TABLE;
  o->util_bins = 100;
  for (int i = 1; i < argc; i++) {
    const char *a = tracelens_name(argv[i]), *val = i + 1 < argc ? argv[i + 1] : NULL;
    int takes = 1;
    if (!strcmp(a, "--report"))
      takes = 0;
    else if (!strcmp(a, "--kernel_details"))
      o->details = 1, takes = 0;
    else if (!strcmp(a, "--html"))
      o->html = val;
    else if (!strcmp(a, "--util-bins")) {
      if (int_opt(a, val, 1, 100000, &o->util_bins))
        return 2;
    }
    else if (!strcmp(a, "--save"))
      o->save = 1, takes = 0;
    else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
      o->quiet = 1, takes = 0;
    else if (!strcmp(a, "--short-kernel-threshold-us")) {
      if (parse_num(a, val, 0, &v))
        return 2;
      o->threshold_us = v;
    } else if (!strcmp(a, "--histogram-bins")) {
      if (int_opt(a, val, 1, 1000000, &o->bins))
        return 2;
    } else if (!strcmp(a, "--topk")) {
      if (int_opt(a, val, 0, 1000000000, &o->topk))
        return 2;
      o->topk_set = 1;
    } else if (!strcmp(a, "--gpu-id")) {
      if (int_opt(a, val, 0, 1000000000, &o->gpu))
        return 2;
    } else if (!strcmp(a, "--xlsx"))
      o->xlsx = val;
    else if (!strcmp(a, "--csv-dir"))
      o->csv_dir = val;
    else if (!strcmp(a, "--category-json"))
      o->cat_json = val;
    else if (!strcmp(a, "--table")) {
      static const char *const names[] = {"gpu_timeline", "kernel_summary", "category",
                                          "kernel_details", "short_kernels", "short_histogram"};
      int ok = 0;
      val = tracelens_sheet(val);
      for (size_t k = 0; val && k < sizeof names / sizeof *names; k++)
        ok |= !strcmp(val, names[k]);
      if (!ok)
        return rpd_usage_error("--table: use gpu_timeline, kernel_summary, category,"
                               " kernel_details, short_kernels or short_histogram"
                               " (or the TraceLens sheet names)");
      o->only = val;
    }
    else if (!strcmp(a, "--format")) {
      if (!val || rpd_fmt_parse(val, &o->fmt))
        return rpd_usage_error("--format: use table, csv or json");
    } else if (a[0] == '-' && a[1])
      return rpd_usage_error("--report: unknown option '%s'", a);
    else if (!o->path)
      o->path = a, takes = 0;
    else
      return rpd_usage_error("--report: unexpected argument '%s'", a);
    if (takes) {
      if (!val)
        return rpd_usage_error("%s needs a value", a);
      i++;
    }
  }
  if (!o->path)
    return rpd_usage_error("--report needs a trace FILE");
  if (o->details && !o->topk_set)
    o->topk = 0;    /* TraceLens --kernel_details: every dispatch */
  if (o->fmt == RPD_FMT_CSV && !o->quiet && !o->only)
    return rpd_usage_error("--report --format csv writes one table per stream: name it"
                           " with --table NAME, or write one file per table with"
                           " --csv-dir D -q");
  return 0;
}

/* ------------------------------------------------------------ categories */

/* The categories: --category-json or the built-in rule set, the same rules
 * and matcher as raptor's tables (catfile.h). */
typedef struct cats {
  category *r;
  int n;
  int comm;     /* the communication category (_COMM/_Collective), -1 none */
} cats;

/* Category name of a kernel (last matching category, else _Other).
 * Static string owned by c. */
static const char *category_of(const cats *c, const char *name, int *comm)
{
  int hit = category_match(c->r, c->n, name);
  *comm = hit >= 0 && hit == c->comm;
  return hit >= 0 ? c->r[hit].name : "_Other";
}

static void cats_free(cats *c)
{
  category_list_free(c->r, c->n);
  memset(c, 0, sizeof *c);
}

/* ------------------------------------------------------------ tables */


static void t_init(table *t, const char *name, int ncols, const char *const *cols,
                   const char *const *types)
{
  memset(t, 0, sizeof *t);
  t->name = name;
  t->ncols = ncols;
  t->cols = cols;
  t->types = types;
}

static cell *t_next(table *t)
{
  size_t at = t->nrows * (size_t)t->ncols + (size_t)t->col;
  if (at >= t->cap) {
    t->cap = t->cap ? 2 * t->cap : 64;
    t->c = rpd_xrealloc(t->c, t->cap * sizeof *t->c);
  }
  cell *c = &t->c[at];
  memset(c, 0, sizeof *c);
  if (++t->col == t->ncols) {
    t->col = 0;
    t->nrows++;
  }
  return c;
}

static void t_int(table *t, int64_t v) { cell *c = t_next(t); c->t = C_INT; c->i = v; }
static void t_null(table *t) { t_next(t)->t = C_NULL; }
static void t_str(table *t, const char *s)
{
  cell *c = t_next(t);
  c->t = C_STR;
  c->s = rpd_xstrdup(s ? s : "");
}
static void t_dbl(table *t, double v, int digits)
{
  cell *c = t_next(t);
  if (!isfinite(v)) {
    c->t = C_NULL;
    return;
  }
  c->t = C_DBL;
  c->d = v;
  c->digits = digits;
}

/* Numeric value of a cell (see report.h). */
double t_num(const cell *c)
{
  return c->t == C_INT ? (double)c->i : c->t == C_DBL ? c->d : NAN;
}

static void t_free(table *t)
{
  size_t n = t->nrows * (size_t)t->ncols + (size_t)t->col;
  for (size_t i = 0; i < n; i++)
    if (t->c[i].t == C_STR)
      free(t->c[i].s);
  free(t->c);
  t->c = NULL;
}

#define TABLE_TEXT_MAX 100

/* For the aligned text table only: long kernel names are cut (at a UTF-8
 * character boundary) with "..." so the columns stay readable.  CSV, JSON,
 * xlsx and --save carry the full text. */
static void out_text(rpd_out *o, rpd_fmt fmt, const char *s)
{
  size_t n = strlen(s);
  if (fmt != RPD_FMT_TABLE || n <= TABLE_TEXT_MAX) {
    rpd_out_str(o, s);
    return;
  }
  char b[TABLE_TEXT_MAX + 4];
  size_t k = TABLE_TEXT_MAX - 3;
  while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
    k--;
  memcpy(b, s, k);
  memcpy(b + k, "...", 4);
  rpd_out_str(o, b);
}

static int t_write(const table *t, FILE *f, rpd_fmt fmt)
{
  rpd_out *o = rpd_out_new(f, fmt, t->ncols, t->cols);
  for (size_t r = 0; r < t->nrows; r++) {
    for (int k = 0; k < t->ncols; k++) {
      const cell *c = &t->c[r * t->ncols + k];
      switch (c->t) {
      case C_INT: rpd_out_int(o, c->i); break;
      case C_DBL: rpd_out_double(o, c->d, c->digits); break;
      case C_STR: out_text(o, fmt, c->s); break;
      default: rpd_out_null(o); break;
      }
    }
    rpd_out_endrow(o);
  }
  return rpd_out_end(o);
}

/* D/<table>.csv, written to a temp file next to it and renamed into place
 * (never over the trace `input`, a device or a directory). */
static int t_csv(const table *t, const char *dir, const char *input)
{
  char *p = rpd_xasprintf("%s/%s.csv", dir, t->name);
  rpd_outfile of;
  int rc = rpd_outfile_begin(&of, p, input);
  if (rc)
    rc = rpd_seterr(rc, "cannot write '%s': %s", p, rpd_errmsg());
  else if ((rc = t_write(t, of.fp, RPD_FMT_CSV)) || ferror(of.fp)) {
    rpd_outfile_abort(&of);
    rc = rpd_seterr(RPD_EIO, "cannot write '%s'", p);
  } else if ((rc = rpd_outfile_commit(&of)))
    rc = rpd_seterr(rc, "cannot write '%s': %s", p, rpd_errmsg());
  free(p);
  return rc;
}

/* One table as a formatted sheet (common/workbook.h); *ws gets the sheet
 * for the charts. */
static int t_xlsx(const table *t, rpd_wb *w, rpd_wb_sheet *ws)
{
  int rc = rpd_wb_begin(w, ws, t->name, t->ncols, t->cols, NULL);
  for (size_t r = 0; !rc && r < t->nrows; r++) {
    for (int k = 0; k < t->ncols; k++) {
      const cell *c = &t->c[r * t->ncols + k];
      if (c->t == C_INT)
        rpd_wb_int(ws, c->i);
      else if (c->t == C_DBL)
        rpd_wb_num(ws, c->d);
      else if (c->t == C_STR)
        rpd_wb_str(ws, c->s);
      else
        rpd_wb_null(ws);
    }
    rpd_wb_endrow(ws);
  }
  int end = rpd_wb_end(ws);   /* always: it frees what ws holds */
  return rc ? rc : end;
}

static int t_save(const table *t, rpd *r)
{
  rpd_buf sql = {0};
  sqlite3_stmt *st = NULL;
  int rc;
  char *name = rpd_xasprintf("ext_report_%s", t->name);
  rc = rpd_execf(r, "DROP TABLE IF EXISTS \"%w\"", name);
  rpd_buf_printf(&sql, "CREATE TABLE \"%s\" (", name);
  for (int k = 0; k < t->ncols; k++)
    rpd_buf_printf(&sql, "%s\"%s\" %s", k ? ", " : "", t->cols[k], t->types[k]);
  rpd_buf_puts(&sql, ")");
  if (!rc)
    rc = rpd_exec(r, sql.s);
  rpd_buf_reset(&sql);
  rpd_buf_printf(&sql, "INSERT INTO \"%s\" VALUES (", name);
  for (int k = 0; k < t->ncols; k++)
    rpd_buf_puts(&sql, k ? ",?" : "?");
  rpd_buf_puts(&sql, ")");
  if (!rc)
    rc = rpd_prepare(r, sql.s, &st);
  for (size_t row = 0; row < t->nrows && !rc; row++) {
    for (int k = 0; k < t->ncols; k++) {
      const cell *c = &t->c[row * t->ncols + k];
      if (c->t == C_INT)
        sqlite3_bind_int64(st, k + 1, c->i);
      else if (c->t == C_DBL)
        sqlite3_bind_double(st, k + 1, c->d);
      else if (c->t == C_STR)
        sqlite3_bind_text(st, k + 1, c->s, -1, SQLITE_STATIC);
      else
        sqlite3_bind_null(st, k + 1);
    }
    int s = rpd_step(r, st);
    if (s != SQLITE_DONE)
      rc = s < 0 ? -s : RPD_ESQL;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  rpd_buf_free(&sql);
  free(name);
  return rc;
}

/* ------------------------------------------------------------ trace data */

enum { IV_COMPUTE = 1, IV_COMM = 2, IV_COPY = 4 };

typedef struct iv {
  int64_t start, end;
  int gpu, flag;
} iv;

typedef struct kd {
  int64_t op, start, end;
  int name, gpu;
} kd;

typedef struct kname {
  int64_t sid;
  char *name;
  const char *cat;
  int comm;
} kname;

typedef struct data {
  iv *iv;
  size_t niv, capiv;
  kd *k;
  size_t nk, capk;
  kname *names;
  int nnames, capnames;
  int *gpus;
  int ngpus;
  int64_t first, last;        /* span over every op */
  int64_t total_ns;           /* init..fini or span */
  int total_from_meta;
} data;

static void data_free(data *d)
{
  free(d->iv);
  free(d->k);
  for (int i = 0; i < d->nnames; i++)
    free(d->names[i].name);
  free(d->names);
  free(d->gpus);
  memset(d, 0, sizeof *d);
}

/* Small int64 -> int map over a sorted-on-demand array; names are few. */
typedef struct idmap {
  int64_t *key;
  int *val;
  size_t n, cap;
} idmap;

static size_t idm_slot(const idmap *m, int64_t k)
{
  uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
  size_t i = (size_t)(h >> 20) & (m->cap - 1);
  while (m->val[i] >= 0 && m->key[i] != k)
    i = (i + 1) & (m->cap - 1);
  return i;
}

static int *idm_ref(idmap *m, int64_t k)
{
  if (2 * (m->n + 1) > m->cap) {
    idmap o = *m;
    m->cap = o.cap ? 2 * o.cap : 256;
    m->key = rpd_xcalloc(m->cap, sizeof *m->key);
    m->val = rpd_xmalloc(m->cap * sizeof *m->val);
    for (size_t i = 0; i < m->cap; i++)
      m->val[i] = -1;
    m->n = 0;
    for (size_t i = 0; i < o.cap; i++)
      if (o.val[i] >= 0) {
        size_t s = idm_slot(m, o.key[i]);
        m->key[s] = o.key[i];
        m->val[s] = o.val[i];
        m->n++;
      }
    free(o.key);
    free(o.val);
  }
  size_t s = idm_slot(m, k);
  if (m->val[s] < 0) {
    m->key[s] = k;
    m->n++;
  }
  return &m->val[s];
}

/* Value for k, or -1. */
static int idm_get(const idmap *m, int64_t k)
{
  return m->cap ? m->val[idm_slot(m, k)] : -1;
}

static void idm_free(idmap *m)
{
  free(m->key);
  free(m->val);
}

static int lookup_string(rpd *r, sqlite3_stmt *st, int64_t id, char **out)
{
  sqlite3_bind_int64(st, 1, id);
  int s = rpd_step(r, st), rc = RPD_OK;
  if (s == SQLITE_ROW) {
    const unsigned char *t = sqlite3_column_text(st, 0);
    *out = rpd_xstrdup(t ? (const char *)t : "");
  } else if (s == SQLITE_DONE)
    *out = rpd_xstrdup("");
  else
    rc = -s;
  sqlite3_reset(st);
  return rc;
}

static void add_gpu(data *d, int g)
{
  for (int i = 0; i < d->ngpus; i++)
    if (d->gpus[i] == g)
      return;
  d->gpus = rpd_xrealloc(d->gpus, (d->ngpus + 1) * sizeof *d->gpus);
  d->gpus[d->ngpus++] = g;
}

static int cmp_int(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static int load(rpd *r, const ropts *o, const cats *c, data *d)
{
  sqlite3_stmt *ops = NULL, *str = NULL;
  idmap nameidx = {0};
  rpd_opclass_map ocm;
  int rc, s = SQLITE_DONE;
  d->first = INT64_MAX;
  d->last = INT64_MIN;
  rc = rpd_opclass_load(r, &ocm);
  if (!rc)
    rc = rpd_prepare(r, "SELECT id, gpuId, start, end, description_id, opType_id "
                   "FROM rocpd_op", &ops);
  if (!rc)
    rc = rpd_prepare(r, "SELECT string FROM rocpd_string WHERE id = ?", &str);
  while (!rc && (s = rpd_step(r, ops)) == SQLITE_ROW) {
    int64_t start = sqlite3_column_int64(ops, 2), end = sqlite3_column_int64(ops, 3);
    int gpu = sqlite3_column_int(ops, 1);
    int cls = rpd_opclass_of(&ocm, sqlite3_column_int64(ops, 5));
    if (start < d->first)
      d->first = start;
    if (end > d->last)
      d->last = end;
    if (!(RPD_OPCLASS_GPU_WORK & RPD_OPCLASS_BIT(cls)) || end < start)
      continue;
    if (o->gpu >= 0 && gpu != o->gpu)
      continue;
    add_gpu(d, gpu);
    int flag = IV_COPY;
    if (cls == RPD_OPCLASS_KERNEL) {
      int *ni = idm_ref(&nameidx, sqlite3_column_int64(ops, 4));
      if (*ni < 0) {
        if (d->nnames == d->capnames) {
          d->capnames = d->capnames ? 2 * d->capnames : 256;
          d->names = rpd_xrealloc(d->names, d->capnames * sizeof *d->names);
        }
        kname *kn = &d->names[d->nnames];
        memset(kn, 0, sizeof *kn);
        kn->sid = sqlite3_column_int64(ops, 4);
        rc = lookup_string(r, str, kn->sid, &kn->name);
        if (rc)
          break;
        kn->cat = category_of(c, kn->name, &kn->comm);
        *ni = d->nnames++;
      }
      flag = d->names[*ni].comm ? IV_COMM : IV_COMPUTE;
      if (d->nk == d->capk) {
        d->capk = d->capk ? 2 * d->capk : 4096;
        d->k = rpd_xrealloc(d->k, d->capk * sizeof *d->k);
      }
      kd *k = &d->k[d->nk++];
      k->op = sqlite3_column_int64(ops, 0);
      k->start = start;
      k->end = end;
      k->name = *ni;
      k->gpu = gpu;
    }
    if (d->niv == d->capiv) {
      d->capiv = d->capiv ? 2 * d->capiv : 4096;
      d->iv = rpd_xrealloc(d->iv, d->capiv * sizeof *d->iv);
    }
    iv *v = &d->iv[d->niv++];
    v->start = start;
    v->end = end;
    v->gpu = gpu;
    v->flag = flag;
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(ops);
  sqlite3_finalize(str);
  rpd_opclass_free(&ocm);
  idm_free(&nameidx);
  if (rc)
    return rc;
  if (d->first > d->last)
    d->first = d->last = 0;
  sort_n(d->gpus, d->ngpus, sizeof *d->gpus, cmp_int);

  /* total time: rocprofv3 init..fini when the trace has it */
  char *init = NULL, *fini = NULL;
  d->total_ns = d->last - d->first;
  if (!rpd_meta_get(r, "rocprofv3::init_time", &init) &&
      !rpd_meta_get(r, "rocprofv3::fini_time", &fini)) {
    int64_t a = strtoll(init, NULL, 10), b = strtoll(fini, NULL, 10);
    if (b > a) {
      d->total_ns = b - a;
      d->total_from_meta = 1;
    }
  }
  free(init);
  free(fini);
  rpd_clearerr();
  return RPD_OK;
}

static int cmp_iv(const void *a, const void *b)
{
  const iv *x = a, *y = b;
  return (x->start > y->start) - (x->start < y->start);
}

/* Length of the union of intervals with (flag & mask) on gpu (-1 = all);
 * iv sorted by start. */
static int64_t union_len(const data *d, int mask, int gpu)
{
  int64_t tot = 0, cs = 0, ce = 0;
  int open = 0;
  for (size_t i = 0; i < d->niv; i++) {
    const iv *v = &d->iv[i];
    if (!(v->flag & mask) || (gpu >= 0 && v->gpu != gpu))
      continue;
    if (!open) {
      cs = v->start, ce = v->end, open = 1;
    } else if (v->start <= ce) {
      if (v->end > ce)
        ce = v->end;
    } else {
      tot += ce - cs;
      cs = v->start, ce = v->end;
    }
  }
  if (open)
    tot += ce - cs;
  return tot;
}

/* ------------------------------------------------------------ the tables */

static const char *const tl_cols[] = { "gpuId", "type", "time_ms", "percent" };
static const char *const tl_types[] = { "INTEGER", "TEXT", "REAL", "REAL" };

static void tl_row(table *t, int gpu, const char *type, int64_t ns, int64_t total)
{
  if (gpu >= 0)
    t_int(t, gpu);
  else
    t_null(t);
  t_str(t, type);
  t_dbl(t, ns / 1e6, 6);
  t_dbl(t, total > 0 ? 100.0 * (double)ns / (double)total : NAN, 4);
}

static void gpu_timeline(const data *d, const ropts *o, table *t)
{
  t_init(t, "gpu_timeline", 4, tl_cols, tl_types);
  int n = d->ngpus;
  for (int g = -1; g < n; g++) {
    int gpu = g < 0 ? -1 : d->gpus[g];
    if (g < 0 && o->gpu >= 0)
      continue;
    int64_t total = d->total_ns;
    int64_t K = union_len(d, IV_COMPUTE | IV_COMM, gpu);
    int64_t M = union_len(d, IV_COPY, gpu);
    int64_t B = union_len(d, IV_COMPUTE | IV_COMM | IV_COPY, gpu);
    int64_t C = union_len(d, IV_COMPUTE, gpu);
    tl_row(t, gpu, "total_time", total, total);
    tl_row(t, gpu, "kernel", K, total);
    tl_row(t, gpu, "memory", M, total);
    tl_row(t, gpu, "busy_time", B, total);
    tl_row(t, gpu, "idle", total > B ? total - B : 0, total);
    tl_row(t, gpu, "computation", C, total);
    tl_row(t, gpu, "exposed_comm", K - C, total);
    tl_row(t, gpu, "exposed_memcpy", B - K, total);
  }
}

typedef struct dn {
  int name;
  int64_t dur;
} dn;

static int cmp_dn(const void *a, const void *b)
{
  const dn *x = a, *y = b;
  if (x->name != y->name)
    return (x->name > y->name) - (x->name < y->name);
  return (x->dur > y->dur) - (x->dur < y->dur);
}

typedef struct agg {
  int name;
  int64_t count, sum, min, max;
  double mean, median, std;
} agg;

static const kname *agg_names;   /* names for cmp_agg's tie-break */

static int cmp_agg(const void *a, const void *b)
{
  const agg *x = a, *y = b;
  if (x->sum != y->sum)
    return x->sum < y->sum ? 1 : -1;
  return strcmp(agg_names[x->name].name, agg_names[y->name].name);
}

/* Per-name statistics over kernels with dur < limit (INT64_MAX = all).
 * Returns a new array sorted by total desc (caller frees); *n rows. */
static agg *aggregate(const data *d, int64_t limit, size_t *n)
{
  dn *v = rpd_xmalloc((d->nk ? d->nk : 1) * sizeof *v);
  size_t m = 0;
  for (size_t i = 0; i < d->nk; i++) {
    int64_t dur = d->k[i].end - d->k[i].start;
    if (dur < limit)
      v[m].name = d->k[i].name, v[m].dur = dur, m++;
  }
  sort_n(v, m, sizeof *v, cmp_dn);
  agg *a = rpd_xmalloc((m ? m : 1) * sizeof *a);
  size_t na = 0;
  for (size_t i = 0; i < m;) {
    size_t j = i;
    agg *g = &a[na++];
    memset(g, 0, sizeof *g);
    g->name = v[i].name;
    while (j < m && v[j].name == v[i].name)
      g->sum += v[j++].dur;
    g->count = (int64_t)(j - i);
    g->min = v[i].dur;
    g->max = v[j - 1].dur;
    g->mean = (double)g->sum / (double)g->count;
    size_t h = (j - i) / 2;
    g->median = (j - i) % 2 ? (double)v[i + h].dur
                            : ((double)v[i + h - 1].dur + (double)v[i + h].dur) / 2.0;
    if (g->count > 1) {
      double ss = 0;
      for (size_t k = i; k < j; k++) {
        double e = (double)v[k].dur - g->mean;
        ss += e * e;
      }
      g->std = sqrt(ss / (double)(g->count - 1));
    } else
      g->std = NAN;
    i = j;
  }
  free(v);
  agg_names = d->names;
  sort_n(a, na, sizeof *a, cmp_agg);
  *n = na;
  return a;
}

static int64_t kernel_sum(const data *d)
{
  int64_t s = 0;
  for (size_t i = 0; i < d->nk; i++)
    s += d->k[i].end - d->k[i].start;
  return s;
}

static const char *const ks_cols[] = {
  "name", "count", "total_us", "mean_us", "median_us", "std_us", "min_us",
  "max_us", "percent", "cumulative_percent", "category"
};
static const char *const ks_types[] = {
  "TEXT", "INTEGER", "REAL", "REAL", "REAL", "REAL", "REAL", "REAL", "REAL",
  "REAL", "TEXT"
};

static void kernel_summary(const data *d, const agg *a, size_t n, table *t)
{
  int64_t total = kernel_sum(d);
  double cum = 0;
  t_init(t, "kernel_summary", 11, ks_cols, ks_types);
  for (size_t i = 0; i < n; i++) {
    double pct = total > 0 ? 100.0 * (double)a[i].sum / (double)total : NAN;
    cum += pct;
    t_str(t, d->names[a[i].name].name);
    t_int(t, a[i].count);
    t_dbl(t, a[i].sum / 1e3, 3);
    t_dbl(t, a[i].mean / 1e3, 3);
    t_dbl(t, a[i].median / 1e3, 3);
    t_dbl(t, a[i].std / 1e3, 3);
    t_dbl(t, a[i].min / 1e3, 3);
    t_dbl(t, a[i].max / 1e3, 3);
    t_dbl(t, pct, 4);
    t_dbl(t, cum, 4);
    t_str(t, d->names[a[i].name].cat);
  }
}

static const char *const cat_cols[] = {
  "category", "kernels", "count", "total_ms", "percent", "cumulative_percent"
};
static const char *const cat_types[] = {
  "TEXT", "INTEGER", "INTEGER", "REAL", "REAL", "REAL"
};

typedef struct catagg {
  const char *cat;
  int64_t kernels, count, sum;
} catagg;

static int cmp_cat(const void *a, const void *b)
{
  const catagg *x = a, *y = b;
  if (x->sum != y->sum)
    return x->sum < y->sum ? 1 : -1;
  return strcmp(x->cat, y->cat);
}

static void by_category(const data *d, const agg *a, size_t n, table *t)
{
  catagg *c = rpd_xcalloc(n ? n : 1, sizeof *c);
  size_t nc = 0;
  int64_t total = 0;
  for (size_t i = 0; i < n; i++) {
    const char *cat = d->names[a[i].name].cat;
    size_t k = 0;
    while (k < nc && strcmp(c[k].cat, cat))
      k++;
    if (k == nc)
      c[nc++].cat = cat;
    c[k].kernels++;
    c[k].count += a[i].count;
    c[k].sum += a[i].sum;
    total += a[i].sum;
  }
  sort_n(c, nc, sizeof *c, cmp_cat);
  t_init(t, "category", 6, cat_cols, cat_types);
  double cum = 0;
  for (size_t k = 0; k < nc; k++) {
    double pct = total > 0 ? 100.0 * (double)c[k].sum / (double)total : NAN;
    cum += pct;
    t_str(t, c[k].cat);
    t_int(t, c[k].kernels);
    t_int(t, c[k].count);
    t_dbl(t, c[k].sum / 1e6, 6);
    t_dbl(t, pct, 4);
    t_dbl(t, cum, 4);
  }
  free(c);
}

static const char *const sk_cols[] = {
  "name", "count", "total_us", "mean_us", "percent_of_kernel_time", "category"
};
static const char *const sk_types[] = { "TEXT", "INTEGER", "REAL", "REAL", "REAL", "TEXT" };

static int64_t threshold_ns(const ropts *o)
{
  double ns = o->threshold_us * 1e3;
  return ns >= 9e18 ? INT64_MAX : (int64_t)ceil(ns);
}

static void short_kernels(const data *d, const ropts *o, table *t)
{
  size_t n;
  agg *a = aggregate(d, threshold_ns(o), &n);
  int64_t total = kernel_sum(d);
  t_init(t, "short_kernels", 6, sk_cols, sk_types);
  for (size_t i = 0; i < n; i++) {
    t_str(t, d->names[a[i].name].name);
    t_int(t, a[i].count);
    t_dbl(t, a[i].sum / 1e3, 3);
    t_dbl(t, a[i].mean / 1e3, 3);
    t_dbl(t, total > 0 ? 100.0 * (double)a[i].sum / (double)total : NAN, 4);
    t_str(t, d->names[a[i].name].cat);
  }
  free(a);
}

static const char *const h_cols[] = { "bin_start_us", "bin_end_us", "count" };
static const char *const h_types[] = { "REAL", "REAL", "INTEGER" };

/* numpy.histogram semantics: bins equal-width bins over [min, max] of the
 * short durations (us), the last bin closed; min == max widens by 0.5. */
static void short_histogram(const data *d, const ropts *o, table *t)
{
  int64_t lim = threshold_ns(o);
  double lo = INFINITY, hi = -INFINITY;
  size_t n = 0;
  t_init(t, "short_histogram", 3, h_cols, h_types);
  for (size_t i = 0; i < d->nk; i++) {
    int64_t dur = d->k[i].end - d->k[i].start;
    if (dur >= lim)
      continue;
    double us = dur / 1e3;
    if (us < lo) lo = us;
    if (us > hi) hi = us;
    n++;
  }
  if (!n)
    return;
  if (lo == hi)
    lo -= 0.5, hi += 0.5;
  int bins = o->bins;
  int64_t *cnt = rpd_xcalloc(bins, sizeof *cnt);
  double *edge = rpd_xmalloc((bins + 1) * sizeof *edge);
  for (int b = 0; b <= bins; b++)
    edge[b] = lo + (hi - lo) * b / bins;
  edge[bins] = hi;
  for (size_t i = 0; i < d->nk; i++) {
    int64_t dur = d->k[i].end - d->k[i].start;
    if (dur >= lim)
      continue;
    double us = dur / 1e3;
    int b = (int)((us - lo) / (hi - lo) * bins);
    if (b >= bins) b = bins - 1;
    if (b < 0) b = 0;
    if (us < edge[b] && b > 0) b--;
    else if (b < bins - 1 && us >= edge[b + 1]) b++;
    cnt[b]++;
  }
  for (int b = 0; b < bins; b++) {
    t_dbl(t, edge[b], 6);
    t_dbl(t, edge[b + 1], 6);
    t_int(t, cnt[b]);
  }
  free(cnt);
  free(edge);
}

/* ------------------------------------------------------------ chart tables */

/* Call fn(ctx, gpu, start, end) for each merged busy interval (kernels and
 * copies) of each GPU, in start order per GPU. */
static void busy_runs(const data *d, void (*fn)(void *, int, int64_t, int64_t), void *ctx)
{
  for (int g = 0; g < d->ngpus; g++) {
    int gpu = d->gpus[g], open = 0;
    int64_t cs = 0, ce = 0;
    for (size_t i = 0; i < d->niv; i++) {
      const iv *v = &d->iv[i];
      if (v->gpu != gpu)
        continue;
      if (open && v->start <= ce) {
        if (v->end > ce)
          ce = v->end;
        continue;
      }
      if (open)
        fn(ctx, gpu, cs, ce);
      cs = v->start, ce = v->end, open = 1;
    }
    if (open)
      fn(ctx, gpu, cs, ce);
  }
}

typedef struct utilacc {
  int64_t first, width;
  int bins;
  double *busy;     /* ns busy per bin, summed over GPUs */
} utilacc;

static void util_add(void *ctx, int gpu, int64_t s, int64_t e)
{
  utilacc *u = ctx;
  (void)gpu;
  int64_t b = (s - u->first) / u->width;
  for (; b < u->bins; b++) {
    int64_t lo = u->first + b * u->width, hi = lo + u->width;
    if (lo >= e)
      break;
    int64_t a = s > lo ? s : lo, z = e < hi ? e : hi;
    if (z > a)
      u->busy[b] += (double)(z - a);
  }
}

static const char *const ut_cols[] = { "time_ms", "busy_percent" };
static const char *const ut_types[] = { "REAL", "REAL" };

/* utilization: the span of all ops in `bins` equal bins; busy_percent =
 * busy GPU time in the bin / (bin width x GPUs) x 100. */
static void utilization(const data *d, const ropts *o, table *t)
{
  utilacc u = { d->first, 0, o->util_bins, NULL };
  int64_t span = d->last - d->first;
  t_init(t, "utilization", 2, ut_cols, ut_types);
  if (span <= 0 || d->ngpus <= 0)
    return;
  u.width = (span + u.bins - 1) / u.bins;
  if (u.width < 1)
    u.width = 1;
  u.bins = (int)((span + u.width - 1) / u.width);
  u.busy = rpd_xcalloc((size_t)u.bins, sizeof *u.busy);
  busy_runs(d, util_add, &u);
  for (int b = 0; b < u.bins; b++) {
    int64_t lo = u.first + (int64_t)b * u.width, hi = lo + u.width;
    if (hi > d->last)
      hi = d->last;
    t_dbl(t, (double)(lo - d->first) / 1e6, 6);
    t_dbl(t, hi > lo ? 100.0 * u.busy[b] / ((double)(hi - lo) * d->ngpus) : 0, 4);
  }
  free(u.busy);
}

#define GAP_BINS 7
static const char *const gap_label[GAP_BINS] = {
  "<1 us", "1-10 us", "10-100 us", "0.1-1 ms", "1-10 ms", "10-100 ms", ">=100 ms"
};

typedef struct gapacc {
  int gpu;
  int64_t prev;
  int64_t count[GAP_BINS], sum[GAP_BINS];
} gapacc;

static void gap_add(void *ctx, int gpu, int64_t s, int64_t e)
{
  gapacc *g = ctx;
  if (gpu == g->gpu && s > g->prev) {
    int64_t gap = s - g->prev, lim = 1000;
    int b = 0;
    while (b < GAP_BINS - 1 && gap >= lim)
      b++, lim *= 10;
    g->count[b]++;
    g->sum[b] += gap;
  }
  g->gpu = gpu;
  g->prev = e;
}

static const char *const gap_cols[] = { "gap", "count", "total_ms" };
static const char *const gap_types[] = { "TEXT", "INTEGER", "REAL" };

/* idle_gaps: the idle gaps between one GPU's busy intervals, in decades. */
static void idle_gaps(const data *d, table *t)
{
  gapacc g = { -1, INT64_MAX, {0}, {0} };
  t_init(t, "idle_gaps", 3, gap_cols, gap_types);
  busy_runs(d, gap_add, &g);
  for (int b = 0; b < GAP_BINS; b++) {
    t_str(t, gap_label[b]);
    t_int(t, g.count[b]);
    t_dbl(t, g.sum[b] / 1e6, 6);
  }
}

static const char *const kdt_cols[] = {
  "name", "duration_us", "gpuId", "queueId", "sequenceId", "start", "stream",
  "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "lds_bytes",
  "scratch_bytes", "category"
};
static const char *const kdt_types[] = {
  "TEXT", "REAL", "INTEGER", "INTEGER", "INTEGER", "INTEGER", "TEXT", "INTEGER",
  "INTEGER", "INTEGER", "INTEGER", "INTEGER", "INTEGER", "INTEGER", "INTEGER", "TEXT"
};

static int cmp_kd_dur(const void *a, const void *b)
{
  const kd *x = *(kd *const *)a, *y = *(kd *const *)b;
  int64_t dx = x->end - x->start, dy = y->end - y->start;
  if (dx != dy)
    return dx < dy ? 1 : -1;
  return (x->start > y->start) - (x->start < y->start);
}

static int kd_before(const kd *x, const kd *y)   /* x ranks before y */
{
  return cmp_kd_dur(&x, &y) < 0;
}

static void heap_down(kd **h, size_t n, size_t i)
{
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, w = i;
    if (l < n && kd_before(h[w], h[l])) w = l;
    if (r < n && kd_before(h[w], h[r])) w = r;
    if (w == i)
      return;
    kd *x = h[i]; h[i] = h[w]; h[w] = x;
    i = w;
  }
}

/* top[0..k) = the k highest-ranked dispatches in rank order, O(n log k):
 * a heap whose root is the lowest-ranked of the k kept so far. */
static void select_top(const data *d, kd **top, size_t k)
{
  size_t n = 0;
  if (!k)
    return;
  for (size_t i = 0; i < d->nk; i++) {
    kd *x = &d->k[i];
    if (n < k) {
      top[n++] = x;
      for (size_t c = n - 1; c > 0;) {          /* sift up */
        size_t p = (c - 1) / 2;
        if (!kd_before(top[p], top[c]))
          break;
        kd *t = top[p]; top[p] = top[c]; top[c] = t;
        c = p;
      }
    } else if (kd_before(x, top[0])) {
      top[0] = x;
      heap_down(top, k, 0);
    }
  }
  sort_n(top, n, sizeof *top, cmp_kd_dur);
}

/* Top K dispatches by duration, with launch geometry from rocpd_kernelapi
 * (one scan of rocpd_api_ops, then primary-key lookups). */
static int kernel_details(rpd *r, const data *d, const ropts *o, table *t)
{
  size_t k = o->topk > 0 && (size_t)o->topk < d->nk ? (size_t)o->topk : d->nk;
  kd **top = rpd_xmalloc((k ? k : 1) * sizeof *top);
  int64_t *api = rpd_xcalloc(k ? k : 1, sizeof *api);
  idmap want = {0};
  sqlite3_stmt *ao = NULL, *ka = NULL, *op = NULL;
  int rc = RPD_OK, s = SQLITE_DONE;
  t_init(t, "kernel_details", 16, kdt_cols, kdt_types);
  select_top(d, top, k);
  for (size_t i = 0; i < k; i++)
    *idm_ref(&want, top[i]->op) = (int)i;
  if (k)
    rc = rpd_prepare(r, "SELECT op_id, api_id FROM rocpd_api_ops", &ao);
  while (!rc && k && (s = rpd_step(r, ao)) == SQLITE_ROW) {
    int ix = idm_get(&want, sqlite3_column_int64(ao, 0));
    if (ix >= 0 && !api[ix])
      api[ix] = sqlite3_column_int64(ao, 1);
  }
  if (!rc && s < 0)
    rc = -s;
  if (!rc && k)
    rc = rpd_prepare(r, "SELECT stream, gridX, gridY, gridZ, workgroupX, workgroupY,"
                     " workgroupZ, groupSegmentSize, privateSegmentSize"
                     " FROM rocpd_kernelapi WHERE api_ptr_id = ?", &ka);
  if (!rc && k)
    rc = rpd_prepare(r, "SELECT queueId, sequenceId FROM rocpd_op WHERE id = ?", &op);
  for (size_t i = 0; i < k && !rc; i++) {
    const kd *x = top[i];
    t_str(t, d->names[x->name].name);
    t_dbl(t, (x->end - x->start) / 1e3, 3);
    t_int(t, x->gpu);
    sqlite3_bind_int64(op, 1, x->op);
    s = rpd_step(r, op);
    if (s == SQLITE_ROW) {
      t_int(t, sqlite3_column_int64(op, 0));
      t_int(t, sqlite3_column_int64(op, 1));
    } else {
      t_null(t);
      t_null(t);
    }
    sqlite3_reset(op);
    t_int(t, x->start);
    sqlite3_bind_int64(ka, 1, api[i]);
    s = api[i] ? rpd_step(r, ka) : SQLITE_DONE;
    for (int c = 0; c < 9; c++) {
      if (s != SQLITE_ROW || sqlite3_column_type(ka, c) == SQLITE_NULL)
        t_null(t);
      else if (c == 0)
        t_str(t, (const char *)sqlite3_column_text(ka, 0));
      else
        t_int(t, sqlite3_column_int64(ka, c));
    }
    sqlite3_reset(ka);
    if (s < 0)
      rc = -s;
    t_str(t, d->names[x->name].cat);
  }
  sqlite3_finalize(ao);
  sqlite3_finalize(ka);
  sqlite3_finalize(op);
  idm_free(&want);
  free(top);
  free(api);
  return rc;
}

/* ------------------------------------------------------------ output */


static int write_stdout(table *t, const ropts *o)
{
  int rc = RPD_OK;
  if (o->fmt == RPD_FMT_JSON)
    fputs("{\n", stdout);
  for (int i = 0, n = 0; i < NT && !rc; i++) {
    if (o->only && strcmp(o->only, t[i].name))
      continue;
    if (o->fmt == RPD_FMT_JSON)
      printf("%s\"%s\": ", n++ ? ",\n" : "", t[i].name);
    else if (o->fmt == RPD_FMT_TABLE)
      printf("%s# %s\n", n++ ? "\n" : "", t[i].name);
    fflush(stdout);
    rc = t_write(&t[i], stdout, o->fmt);
  }
  if (o->fmt == RPD_FMT_JSON)
    fputs("}\n", stdout);
  if (!rc)
    rc = rpd_finish_stdout();
  return rc;
}

/* The charts of the workbook, next to their tables. */
static int xlsx_charts(rpd_wb *w, const table *t, const rpd_wb_sheet *ws)
{
  int rc = RPD_OK;
  int top = t[T_SUMMARY].nrows < 15 ? (int)t[T_SUMMARY].nrows : 15;
  /* rows 5..8 of a GPU block: idle, computation, exposed_comm,
   * exposed_memcpy - they add up to total_time */
  if (t[T_TIMELINE].nrows >= 8)
    rc = rpd_wb_pie(w, &ws[T_TIMELINE], 5, 4, 1, 2,
                    "GPU time breakdown (ms)");
  if (!rc)
    rc = rpd_wb_bar(w, &ws[T_SUMMARY], top, 0, 2, "Top kernels by total time", "us");
  if (!rc)
    rc = rpd_wb_bar(w, &ws[T_CATEGORY], (int)t[T_CATEGORY].nrows, 0, 3,
                    "Kernel time by category", "ms");
  if (!rc)
    rc = rpd_wb_col(w, &ws[T_HIST], (int)t[T_HIST].nrows, 0, 2,
                    "Short-kernel durations (us)", "kernels");
  if (!rc)
    rc = rpd_wb_col(w, &ws[T_GAPS], (int)t[T_GAPS].nrows, 0, 1, "Idle gaps between GPU work",
                    "gaps");
  if (!rc)
    rc = rpd_wb_line(w, &ws[T_UTIL], (int)t[T_UTIL].nrows, 0, 1, "GPU utilization over time",
                     "busy %");
  return rc;
}

/* --xlsx F: built in a temp file next to F and renamed into place (never
 * over the trace `input`, a device or a directory).  The first sheet says
 * what the workbook is (info, n pairs). */
static int write_xlsx(table *t, const char *path, const char *input,
                      const char *const *info, int n)
{
  xlsxfile x;
  rpd_wb w;
  rpd_wb_sheet ws[NT_ALL];
  int rc = xlsxfile_begin(&x, path, input);
  if (rc)
    return rc;
  memset(ws, 0, sizeof ws);
  rpd_wb_init(&w, x.wb);
  rc = rpd_wb_info(&w, "raptor --report", info, n);
  for (int i = 0; i < NT_ALL && !rc; i++)
    rc = t_xlsx(&t[i], &w, &ws[i]);
  if (!rc)
    rc = xlsx_charts(&w, t, ws);
  if (!rc) rc = report_analysis_xlsx(x.wb, w.head);   /* rpd-analyze sheets (w18) */
  return xlsxfile_end(&x, rc);
}

#define KNAMES_FULL "the full names (each kernel its own row; docs/rpd-import.md)"

/* What the kernel names of the trace are, for the report's info and a note:
 * rpd-import records "truncated" (--truncated-names) or "truncated-only"
 * (a rocprofv3 CSV without full names) in rocpd_metadata.  Static text. */
static const char *kernel_names_note(rpd *r)
{
  char *v = NULL;
  const char *note = KNAMES_FULL;
  if (rpd_meta_get(r, "rpd-import::kernel_names", &v) == RPD_OK && v) {
    if (!strcmp(v, "truncated"))
      note = "rocprofv3's truncated names (rpd-import --truncated-names): kernels "
             "that share a short name are counted as one";
    else if (!strcmp(v, "truncated-only"))
      note = "rocprofv3's truncated names only (the CSV has no full names): kernels "
             "that share a short name are counted as one";
  }
  free(v);
  return note;
}

static int write_csvs(table *t, const char *dir, const char *input)
{
  if (mkdir(dir, 0777) && errno != EEXIST)
    return rpd_seterr(RPD_EIO, "cannot create '%s': %s", dir, strerror(errno));
  int rc = RPD_OK;
  for (int i = 0; i < NT && !rc; i++)
    rc = t_csv(&t[i], dir, input);
  if (!rc) rc = report_analysis_csv(dir, input);   /* rpd-analyze sheets (w18) */
  return rc;
}

/* Refuse the named outputs before the work: --xlsx F and the files of an
 * existing --csv-dir D must not be the trace, a device or a directory. */
static int check_outputs(const table *t, const ropts *o)
{
  struct stat sb;
  int rc = RPD_OK;
  if (o->xlsx && rpd_output_check(o->xlsx, o->path, NULL))
    return rpd_seterr(RPD_EEXIST, "cannot write '%s': %s", o->xlsx, rpd_errmsg());
  if (o->html && rpd_output_check(o->html, o->path, NULL))
    return rpd_seterr(RPD_EEXIST, "cannot write '%s': %s", o->html, rpd_errmsg());
  if (o->csv_dir && stat(o->csv_dir, &sb) == 0)
    for (int i = 0; i < NT && !rc; i++) {
      char *p = rpd_xasprintf("%s/%s.csv", o->csv_dir, t[i].name);
      if ((rc = rpd_output_check(p, o->path, NULL)))
        rc = rpd_seterr(rc, "cannot write '%s': %s", p, rpd_errmsg());
      free(p);
    }
  return rc;
}

static int save_tables(rpd *r, table *t, const ropts *o)
{
  int rc = rpd_begin(r);
  for (int i = 0; i < NT && !rc; i++)
    if (i != T_DETAILS)
      rc = t_save(&t[i], r);
  if (!rc) {
    char b[128];
    snprintf(b, sizeof b, "threshold_us=%g bins=%d gpu=%d", o->threshold_us,
             o->bins, o->gpu);
    rc = rpd_meta_set(r, "ext_report::params", b);
  }
  if (!rc)
    rc = rpd_commit(r);
  else
    rpd_rollback(r);
  return rc;
}

/* The command line after argv[0] as one string (for the info sheet);
 * caller frees. */
static char *join_args(int argc, char **argv)
{
  rpd_buf b = {0};
  char *s;
  for (int i = 1; i < argc; i++)
    rpd_buf_printf(&b, "%s%s", i > 1 ? " " : "", argv[i]);
  s = rpd_xstrdup(b.s ? b.s : "");
  rpd_buf_free(&b);
  return s;
}

/* Entry point (see report.h): parse argv, open FILE read-only (read-write
 * with --save), compute the report and write it out.  Returns the exit code. */
int raptor_report_main(int argc, char **argv)
{
  ropts o;
  cats c = {0};
  data d;
  table t[NT_ALL];
  char *info_opts = NULL, gpu_s[32], thr_s[64];
  rpd *r = NULL;
  int rc, ret = 1;

  if (rpd_cli_init(argc, argv, raptor_report_usage))
    return 0;
  if ((rc = parse_opts(argc, argv, &o)))
    return rc;
  memset(&d, 0, sizeof d);
  memset(t, 0, sizeof t);
  if (category_load_or_builtin(&c.r, &c.n, o.cat_json)) {
    rpd_fail("%s", rpd_errmsg());
    goto out;
  }
  c.comm = category_comm_index(c.r, c.n);
  if (rpd_open_or_report(&r, o.path, NULL, (o.save ? RPD_WRITE : RPD_READ) | RPD_CHECKED))
    goto out;
  report_analysis_attach(r);   /* rpd-analyze sheets (w18) */
  rc = load(r, &o, &c, &d);
  if (rc) {
    rpd_fail("'%s': %s", o.path, rpd_errmsg());
    goto out;
  }
  if (!d.niv) {  /* asking for what is not there is an error */
    char *gpus = NULL;
    if (rpd_opclass_gpus(r, RPD_OPCLASS_GPU_WORK, &gpus) != RPD_OK)
      rpd_fail("'%s': %s", o.path, rpd_errmsg());
    else if (o.gpu >= 0 && *gpus)
      rpd_fail("'%s' has no kernels or copies on GPU %d (GPUs present: %s)", o.path,
               o.gpu, gpus);
    else
      rpd_fail("'%s' has no kernels or copies (GPU work)", o.path);
    free(gpus);
    goto out;
  }
  sort_n(d.iv, d.niv, sizeof *d.iv, cmp_iv);
  gpu_timeline(&d, &o, &t[T_TIMELINE]);
  size_t nagg;
  agg *all = aggregate(&d, INT64_MAX, &nagg);
  kernel_summary(&d, all, nagg, &t[T_SUMMARY]);
  by_category(&d, all, nagg, &t[T_CATEGORY]);
  free(all);
  rc = kernel_details(r, &d, &o, &t[T_DETAILS]);
  short_kernels(&d, &o, &t[T_SHORT]);
  short_histogram(&d, &o, &t[T_HIST]);
  utilization(&d, &o, &t[T_UTIL]);
  idle_gaps(&d, &t[T_GAPS]);
  info_opts = join_args(argc, argv);
  const char *names_s = kernel_names_note(r);
  if (strcmp(names_s, KNAMES_FULL) && !o.quiet)
    fprintf(stderr, "%s: note: kernel names are %s\n", rpd_progname, names_s);
  snprintf(gpu_s, sizeof gpu_s, o.gpu >= 0 ? "GPU %d" : "all GPUs", o.gpu);
  snprintf(thr_s, sizeof thr_s, "%g us", o.threshold_us);
  const char *info[] = {
    "trace", o.path,
    "ROI", d.total_from_meta ? "the whole run (rocprofv3 init..fini)"
                             : "the whole trace (first op start .. last op end)",
    "GPUs", gpu_s,
    "short-kernel threshold", thr_s,
    "kernel names", names_s,
    "options", info_opts,
    "units", "time_ms: milliseconds, *_us: microseconds (3 decimals), percent: "
             "0..100, counts: integers",
    "tool", "raptor --report (rpdtools " RPDTOOLS_VERSION ")",
  };
  int ninfo = (int)(sizeof info / sizeof *info / 2);
  if (!rc)
    rc = check_outputs(t, &o);
  if (!rc && !o.quiet)
    rc = write_stdout(t, &o);
  if (!rc && o.csv_dir)
    rc = write_csvs(t, o.csv_dir, o.path);
  if (!rc && o.xlsx)
    rc = write_xlsx(t, o.xlsx, o.path, info, ninfo);
  if (!rc && o.html)
    rc = report_html(t, info, ninfo, o.html, o.path);
  if (!rc && o.save)
    rc = save_tables(r, t, &o);
  if (rc) {
    rpd_fail("'%s': %s", o.path, rpd_errmsg());
    goto out;
  }
  ret = 0;

out:
  if (r && rpd_close(r, ret == 0) && ret == 0)
    ret = rpd_fail("cannot write '%s': %s", o.path, rpd_errmsg());
  for (int i = 0; i < NT_ALL; i++)
    t_free(&t[i]);
  free(info_opts);
  data_free(&d);
  cats_free(&c);
  return ret;
}
