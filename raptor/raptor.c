/* raptor.c - kernel sequences, categories, gaps, variability, outliers,
 * op/instance traces and ROI over an RPD trace (the C raptor).
 *
 * Memory model: one compact record per op in the ROI (48 bytes), the
 * distinct kernel names, one tuple + statistics record per distinct kernel
 * sequence key.  Statistics are exact two-pass sums over the op array; the
 * op trace is written op by op from that array.  See docs/raptor.md.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#include "catfile.h"
#include "rpd.h"
#include "report.h"
#include "xlsxfile.h"

static const char usage[] =
"usage: raptor FILE[.gz] [options]\n"
"Summarize the GPU ops of an RPD trace: kernel sequences, categories, idle\n"
"gaps, variability, outliers, op traces.  No table option = -k -c -v.\n"
"\n"
"Tables:\n"
"  -c, --categorize             category table\n"
"  -C, --category-json FILE     categories: {\"NAME\": [\"regex\", ...], ...}; the\n"
"                               LAST matching category wins (default: built in,\n"
"                               the same as raptor/categories.json)\n"
"  -l, --category-latency-ns N  move calls*N ns of every category to _Latency\n"
"  -v, --variability            variability by collective / other kernels\n"
"  -k, --kernelseq              kernel sequences sorted by total duration\n"
"      --kernelseq-len N        preceding kernels in a sequence key (default 2;\n"
"                               0 = kernel name only)\n"
"      --gaps US...             idle-gap buckets in us (default 10 20 50 100\n"
"                               1000 10000 100000)\n"
"  -z, --zscore_threshold Z     ops with |zscore| >= Z are outliers, left out\n"
"                               of the statistics (default -1 = off)\n"
"      --gpu-summary            per-GPU busy, idle, leading/trailing idle\n"
"Traces:\n"
"  -o, --op-trace               one line per op\n"
"      --op-trace-file FILE     write the op/instance trace to FILE\n"
"  -W, --op-trace-cmd-width N   kernel name width in traces (0 = all)\n"
"  -i, --instance-trace N       every op of kernelseq row N (negative: from the\n"
"                               end), sorted by duration\n"
"Region of interest (time 0 = first api start):\n"
"  -s, --roi-start T            123.45 (ms), 123.45ms, 123450ns, .12345s,\n"
"  -e, --roi-end T              +10ms, -8ms (from the end), 50%, or a kernel\n"
"                               regex (its first op's start)\n"
"      --auto-roi-top           ROI = first..last start of the hottest sequence\n"
"      --roi-trim               cut leading/trailing idle time (all GPUs busy)\n"
"      --gpu-id N               only this GPU (default -1 = all)\n"
"Output:\n"
"      --format F               table (default), csv or json\n"
"      --display-cols N         width of kernel names in tables (default 60)\n"
"      --display-rows N         rows shown per table (default 500)\n"
"      --float-digits N         digits after '.' in tables (default 1)\n"
"  -x, --write-xls              write FILE.xlsx: kernelseq, pretty kernelseq,\n"
"                               category, variability\n"
"      --write-xls-op-trace     also the op trace (implies -x)\n"
"      --save                   store the results as ext_raptor_* tables in the\n"
"                               trace (replaced on each run)\n"
"      --report ...             the rocprofv3-style report (see docs/raptor.md)\n";

/* ------------------------------------------------------------ defaults */

static const char builtin_categories[] =
"{\n"
"    \"GEMM\" : [\"^Cijk_\", \"^void wvSpltK\"],\n"
"    \"CopyD2D\" : [\"CopyDeviceToDevice\"],\n"
"    \"_Collective\" : [\"ncclDevKernel_Generic\",\"void vllm::cross_device_reduce\"],\n"
"    \"aten\" : [\"^.* at::\"],\n"
"    \"vllm\" : [\"vllm::.*\"],\n"
"    \"topk\" : [\"^.*topk\"],\n"
"    \"DecodeAttn\" : [\"paged_attention*\"],\n"
"    \"PrefillAttn\" : [\"attn_fwd\"],\n"
"    \"SILU\" : [\"_ZN4vllm25scaled_act_and_mul_kernelIN3c104HalfETnPFT_RKS3_EXadL_ZNS_11silu_kernelIS2_EES3_S5_EEEEvPNS1_15Float8_e4m3fnuzEPS4_if\"]\n"
"}\n";

static const int default_gaps[] = {10, 20, 50, 100, 1000, 10000, 100000};

#define IDLE_CAT "_GPU_Idle"
#define OTHER_CAT "_Other"
#define LATENCY_CAT "_Latency"
#define COLL_CAT "_Collective"

/* ------------------------------------------------------------ types */

typedef struct op {
  int64_t id, start, end;  /* start/end relative to time zero */
  int64_t pregap;          /* -1: first op of its GPU (NULL) */
  int32_t gpu, kern, key;  /* key -1: fewer than N predecessors */
  int32_t seq;
} op;

typedef struct kstat {
  int64_t nall;            /* all ops of the key (zscore) */
  double mean_all, pstd;
  int64_t calls, smin, smax;
  int64_t pg_n;
  double pg_sum, pg_min, pg_max, pg_m2;
  double d_sum, d_min, d_max, d_m2;
} kstat;

typedef struct krow {
  int32_t key;             /* -1 for a gap row */
  const char *label;       /* gap label or first kernel name */
  int cat;                 /* index into the category names */
  int64_t calls, outliers; /* outliers < 0: NULL */
  int64_t smin, smax;
  double pg_sum, pg_min, pg_mean, pg_std, pg_max;
  double d_sum, d_min, d_mean, d_std, d_max;
  double pct, varsum;      /* NAN = NULL */
} krow;

typedef struct catrow {
  const char *name;
  int64_t uniq, calls;
  double dur, varsum;      /* ns */
  double avg_us, pct;
} catrow;

typedef struct gpurow {
  int32_t gpu;
  double pregap, dur, idle_pct, lead, trail;
} gpurow;

/* A small open-addressing hash of int32 slots (-1 = empty). */
typedef struct islots {
  int32_t *v;
  size_t cap;
} islots;

typedef struct raptor {
  /* options */
  int categorize, variability, kernelseq, op_trace, gpu_summary, save;
  int write_xls, xls_op_trace, have_instance;
  int64_t instance;
  int seqlen;
  double zthr;
  int64_t latency_ns;
  int *gaps, ngaps;
  int op_width;
  const char *op_file, *cat_file, *roi_start_s, *roi_end_s, *path;
  int auto_roi, roi_trim;
  int64_t gpu_id;
  int display_cols, display_rows, float_digits;
  rpd_fmt fmt;
  rpd_buf optstr;

  rpd *r;
  int64_t first_abs, last_abs, roi_s, roi_e;

  category *cats;          /* [0] = _GPU_Idle, then the JSON file's */
  int ncats;
  const char **catname;    /* ncats + 2: ..., _Other, _Latency */
  int cat_other, cat_latency;

  /* kernel names */
  char **names;
  size_t nnames, capnames;
  int *name_cat;
  islots name_slots;

  op *ops;
  size_t n, cap;

  int32_t *keyk;           /* nkeys * (seqlen+1) */
  kstat *ks;
  size_t nkeys, capkeys;
  islots key_slots;

  krow *rows;
  size_t nrows;
  char **gap_labels;
  catrow *crows;
  size_t ncrows;
  gpurow *grows;
  size_t ngrows;
  double total_ns, var_comm, var_other;
} raptor;

/* ------------------------------------------------------------ hashing */

static uint64_t hash_bytes(const void *p, size_t n, uint64_t h)
{
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) {
    h ^= s[i];
    h *= 1099511628211ULL;
  }
  return h;
}

static void islots_init(islots *t, size_t cap)
{
  t->cap = cap;
  t->v = rpd_xmalloc(cap * sizeof *t->v);
  memset(t->v, 0xff, cap * sizeof *t->v);
}

/* ------------------------------------------------------------ categories */

/* Load the categories (built-in or file); returns 0 or an exit code. */
static int categories_load(raptor *R)
{
  R->cats = rpd_xcalloc(1, sizeof *R->cats);
  R->cats[0].name = rpd_xstrdup(IDLE_CAT);
  R->cats[0].re = rpd_xmalloc(sizeof *R->cats[0].re);
  if (rpd_regex_compile("^GAP ", &R->cats[0].re[0]) != RPD_OK)
    return rpd_fail("internal regex: %s", rpd_errmsg());
  R->cats[0].npat = 1;
  R->ncats = 1;
  int rc = R->cat_file ? category_load(&R->cats, &R->ncats, R->cat_file)
                       : category_parse(&R->cats, &R->ncats, "<built-in>",
                                        builtin_categories, strlen(builtin_categories));
  if (rc) return rpd_fail("%s", rpd_errmsg());
  /* names: categories, then _Other and _Latency unless the file has them */
  R->catname = rpd_xmalloc((R->ncats + 2) * sizeof *R->catname);
  R->cat_other = R->cat_latency = -1;
  for (int i = 0; i < R->ncats; i++) {
    R->catname[i] = R->cats[i].name;
    if (strcmp(R->cats[i].name, OTHER_CAT) == 0) R->cat_other = i;
    if (strcmp(R->cats[i].name, LATENCY_CAT) == 0) R->cat_latency = i;
  }
  int k = R->ncats;
  if (R->cat_other < 0) { R->catname[k] = OTHER_CAT; R->cat_other = k++; }
  if (R->cat_latency < 0) { R->catname[k] = LATENCY_CAT; R->cat_latency = k++; }
  return 0;
}

/* Category of a kernel name: the last category with a matching pattern. */
static int category_of(raptor *R, const char *name)
{
  int cat = category_match(R->cats, R->ncats, name);
  return cat >= 0 ? cat : R->cat_other;
}

/* ------------------------------------------------------------ kernel names */

static int32_t name_intern(raptor *R, const char *s)
{
  size_t len = strlen(s);
  if (R->nnames * 2 >= R->name_slots.cap) {
    free(R->name_slots.v);
    islots_init(&R->name_slots, R->name_slots.cap ? R->name_slots.cap * 2 : 1024);
    for (size_t i = 0; i < R->nnames; i++) {
      size_t m = R->name_slots.cap - 1;
      size_t h = hash_bytes(R->names[i], strlen(R->names[i]), 14695981039346656037ULL) & m;
      while (R->name_slots.v[h] >= 0) h = (h + 1) & m;
      R->name_slots.v[h] = (int32_t)i;
    }
  }
  size_t m = R->name_slots.cap - 1;
  size_t h = hash_bytes(s, len, 14695981039346656037ULL) & m;
  while (R->name_slots.v[h] >= 0) {
    if (strcmp(R->names[R->name_slots.v[h]], s) == 0) return R->name_slots.v[h];
    h = (h + 1) & m;
  }
  if (R->nnames == R->capnames) {
    R->capnames = R->capnames ? R->capnames * 2 : 256;
    R->names = rpd_xrealloc(R->names, R->capnames * sizeof *R->names);
  }
  R->names[R->nnames] = rpd_xstrdup(s);
  R->name_slots.v[h] = (int32_t)R->nnames;
  return (int32_t)R->nnames++;
}

/* ------------------------------------------------------------ loading */

typedef struct idmap {      /* description_id -> kernel index (-2 missing) */
  int64_t *k;
  int32_t *v;
  size_t n, cap;
} idmap;

static int32_t *idmap_slot(idmap *m, int64_t key, int *found)
{
  if (m->n * 2 >= m->cap) {
    idmap old = *m;
    m->cap = old.cap ? old.cap * 2 : 1024;
    m->k = rpd_xmalloc(m->cap * sizeof *m->k);
    m->v = rpd_xmalloc(m->cap * sizeof *m->v);
    for (size_t i = 0; i < m->cap; i++) m->v[i] = INT32_MIN;
    m->n = 0;
    for (size_t i = 0; i < old.cap; i++) {
      if (old.v[i] == INT32_MIN) continue;
      int f;
      *idmap_slot(m, old.k[i], &f) = old.v[i];
    }
    free(old.k);
    free(old.v);
  }
  size_t mask = m->cap - 1;
  size_t h = (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ULL) >> 17) & mask;
  while (m->v[h] != INT32_MIN) {
    if (m->k[h] == key) { *found = 1; return &m->v[h]; }
    h = (h + 1) & mask;
  }
  *found = 0;
  m->k[h] = key;
  m->n++;
  return &m->v[h];
}

static int op_cmp(const void *a, const void *b)
{
  const op *x = a, *y = b;
  if (x->gpu != y->gpu) return x->gpu < y->gpu ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

static const char sql_ops[] =
  "SELECT o.id, o.gpuId, o.start, o.\"end\", o.description_id FROM rocpd_op o"
  " WHERE o.opType_id IN (SELECT id FROM rocpd_string WHERE string IN"
  " ('KernelExecution','CopyDeviceToDevice','Task'))"
  " AND o.start >= ?1 AND o.start <= ?2";
static const char sql_ops_gpu[] =
  "SELECT o.id, o.gpuId, o.start, o.\"end\", o.description_id FROM rocpd_op o"
  " WHERE o.opType_id IN (SELECT id FROM rocpd_string WHERE string IN"
  " ('KernelExecution','CopyDeviceToDevice','Task'))"
  " AND o.start >= ?1 AND o.start <= ?2 AND o.gpuId = ?3";

/* Read the ops with start in [first+lo, first+hi] (and --gpu-id) into
 * R->ops, sorted by (gpuId, start, id). */
static int load_ops(raptor *R, int64_t lo, int64_t hi)
{
  rpd *r = R->r;
  sqlite3_stmt *st = NULL, *sst = NULL;
  idmap dm = {0};
  int rc = rpd_prepare(r, R->gpu_id == -1 ? sql_ops : sql_ops_gpu, &st);
  if (rc == RPD_OK)
    rc = rpd_prepare(r, "SELECT string FROM rocpd_string WHERE id = ?1", &sst);
  if (rc != RPD_OK) goto cleanup;
  sqlite3_bind_int64(st, 1, R->first_abs + lo);
  sqlite3_bind_int64(st, 2, R->first_abs + hi);
  if (R->gpu_id != -1) sqlite3_bind_int64(st, 3, R->gpu_id);
  int s;
  while ((s = rpd_step(r, st)) == SQLITE_ROW) {
    int64_t did = sqlite3_column_int64(st, 4);
    int found;
    int32_t *slot = idmap_slot(&dm, did, &found);
    if (!found) {
      sqlite3_reset(sst);
      sqlite3_bind_int64(sst, 1, did);
      int t = rpd_step(r, sst);
      if (t == SQLITE_ROW) {
        const char *str = (const char *)sqlite3_column_text(sst, 0);
        *slot = name_intern(R, str ? str : "");
      } else if (t == SQLITE_DONE) {
        *slot = -2;  /* no such string: the op view drops the op */
      } else {
        rc = -t;
        goto cleanup;
      }
    }
    if (*slot < 0) continue;
    if (R->n == R->cap) {
      R->cap = R->cap ? R->cap * 2 : 4096;
      R->ops = rpd_xrealloc(R->ops, R->cap * sizeof *R->ops);
    }
    op *o = &R->ops[R->n++];
    o->id = sqlite3_column_int64(st, 0);
    o->gpu = (int32_t)sqlite3_column_int64(st, 1);
    o->start = sqlite3_column_int64(st, 2) - R->first_abs;
    o->end = sqlite3_column_int64(st, 3) - R->first_abs;
    o->kern = *slot;
    o->key = -1;
    o->pregap = -1;
    o->seq = 0;
  }
  if (s < 0) rc = -s;
  if (rc == RPD_OK && R->n > 1) qsort(R->ops, R->n, sizeof *R->ops, op_cmp);
cleanup:
  sqlite3_finalize(st);
  sqlite3_finalize(sst);
  free(dm.k);
  free(dm.v);
  return rc;
}

/* Keep only the ops whose start lies in [lo, hi] (relative ns). */
static void restrict_ops(raptor *R, int64_t lo, int64_t hi)
{
  size_t k = 0;
  for (size_t i = 0; i < R->n; i++)
    if (R->ops[i].start >= lo && R->ops[i].start <= hi) R->ops[k++] = R->ops[i];
  R->n = k;
}

/* ------------------------------------------------------------ analysis */

static int64_t op_dur(const op *o)
{
  return o->start <= o->end ? o->end - o->start : 0;
}

/* PreGap and sequenceId per GPU. */
static void compute_pregaps(raptor *R)
{
  int64_t runmax = 0;
  int32_t seq = 0;
  for (size_t i = 0; i < R->n; i++) {
    op *o = &R->ops[i];
    if (i == 0 || o->gpu != R->ops[i - 1].gpu) {
      seq = 0;
      o->pregap = -1;
      runmax = o->end;
    } else {
      int64_t g = o->start - runmax;
      o->pregap = g > 0 ? g : 0;
      if (o->end > runmax) runmax = o->end;
    }
    o->seq = ++seq;
  }
}

static size_t key_hash(const int32_t *t, int w)
{
  return (size_t)hash_bytes(t, (size_t)w * sizeof *t, 14695981039346656037ULL);
}

static void key_slots_rebuild(raptor *R, size_t cap)
{
  int w = R->seqlen + 1;
  free(R->key_slots.v);
  islots_init(&R->key_slots, cap);
  for (size_t k = 0; k < R->nkeys; k++) {
    size_t h = key_hash(&R->keyk[k * w], w) & (cap - 1);
    while (R->key_slots.v[h] >= 0) h = (h + 1) & (cap - 1);
    R->key_slots.v[h] = (int32_t)k;
  }
}

static int32_t key_intern(raptor *R, const int32_t *t)
{
  int w = R->seqlen + 1;
  if (R->nkeys * 2 >= R->key_slots.cap)
    key_slots_rebuild(R, R->key_slots.cap ? R->key_slots.cap * 2 : 1024);
  size_t m = R->key_slots.cap - 1;
  size_t h = key_hash(t, w) & m;
  while (R->key_slots.v[h] >= 0) {
    int32_t k = R->key_slots.v[h];
    if (memcmp(&R->keyk[(size_t)k * w], t, w * sizeof *t) == 0) return k;
    h = (h + 1) & m;
  }
  if (R->nkeys == R->capkeys) {
    R->capkeys = R->capkeys ? R->capkeys * 2 : 256;
    R->keyk = rpd_xrealloc(R->keyk, R->capkeys * w * sizeof *R->keyk);
  }
  memcpy(&R->keyk[R->nkeys * w], t, w * sizeof *t);
  R->key_slots.v[h] = (int32_t)R->nkeys;
  return (int32_t)R->nkeys++;
}

/* zscore of an op's duration within its key (NAN: undefined). */
static double op_zscore(const raptor *R, const op *o)
{
  if (o->key < 0) return NAN;
  const kstat *k = &R->ks[o->key];
  if (k->nall == 1) return 0.0;
  if (k->pstd == 0) return NAN;
  return ((double)op_dur(o) - k->mean_all) / k->pstd;
}

static int op_outlier(const raptor *R, const op *o)
{
  if (R->zthr == -1) return 0;
  double z = op_zscore(R, o);
  return !isnan(z) && fabs(z) >= R->zthr;
}

static void assign_keys(raptor *R)
{
  int w = R->seqlen + 1;
  int32_t *t = rpd_xmalloc(w * sizeof *t);
  R->nkeys = 0;
  free(R->key_slots.v);
  R->key_slots.v = NULL;
  R->key_slots.cap = 0;
  for (size_t i = 0; i < R->n; i++) {
    if (i < (size_t)R->seqlen) { R->ops[i].key = -1; continue; }
    for (int j = 0; j < w; j++) t[j] = R->ops[i - j].kern;
    R->ops[i].key = key_intern(R, t);
  }
  free(t);
}

static void key_stats(raptor *R)
{
  free(R->ks);
  R->ks = rpd_xcalloc(R->nkeys ? R->nkeys : 1, sizeof *R->ks);
  kstat *ks = R->ks;
  /* pass 1: zscore mean */
  for (size_t i = 0; i < R->n; i++) {
    const op *o = &R->ops[i];
    if (o->key < 0) continue;
    ks[o->key].nall++;
    ks[o->key].mean_all += (double)op_dur(o);
  }
  for (size_t k = 0; k < R->nkeys; k++) ks[k].mean_all /= (double)ks[k].nall;
  /* pass 2: population std */
  for (size_t i = 0; i < R->n; i++) {
    const op *o = &R->ops[i];
    if (o->key < 0) continue;
    double d = (double)op_dur(o) - ks[o->key].mean_all;
    ks[o->key].pstd += d * d;
  }
  for (size_t k = 0; k < R->nkeys; k++) {
    ks[k].pstd = sqrt(ks[k].pstd / (double)ks[k].nall);
    ks[k].pg_min = ks[k].d_min = INFINITY;
    ks[k].pg_max = ks[k].d_max = -INFINITY;
    ks[k].smin = INT64_MAX;
    ks[k].smax = INT64_MIN;
  }
  /* pass 3: sums over the kept (non-outlier) ops */
  for (size_t i = 0; i < R->n; i++) {
    const op *o = &R->ops[i];
    if (o->key < 0 || op_outlier(R, o)) continue;
    kstat *k = &ks[o->key];
    double d = (double)op_dur(o);
    k->calls++;
    if (o->start < k->smin) k->smin = o->start;
    if (o->start > k->smax) k->smax = o->start;
    k->d_sum += d;
    if (d < k->d_min) k->d_min = d;
    if (d > k->d_max) k->d_max = d;
    if (o->pregap >= 0) {
      double g = (double)o->pregap;
      k->pg_n++;
      k->pg_sum += g;
      if (g < k->pg_min) k->pg_min = g;
      if (g > k->pg_max) k->pg_max = g;
    }
  }
  /* pass 4: sample variances */
  for (size_t i = 0; i < R->n; i++) {
    const op *o = &R->ops[i];
    if (o->key < 0 || op_outlier(R, o)) continue;
    kstat *k = &ks[o->key];
    double d = (double)op_dur(o) - k->d_sum / (double)k->calls;
    k->d_m2 += d * d;
    if (o->pregap >= 0) {
      double g = (double)o->pregap - k->pg_sum / (double)k->pg_n;
      k->pg_m2 += g * g;
    }
  }
}

typedef struct tagged_row {
  krow r;
  size_t i;
} tagged_row;

/* Duration sum descending, then original position (a stable sort). */
static int tagged_row_cmp(const void *a, const void *b)
{
  const tagged_row *x = a, *y = b;
  if (x->r.d_sum != y->r.d_sum) return x->r.d_sum > y->r.d_sum ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

static void sort_rows(krow *rows, size_t n)
{
  tagged_row *t = rpd_xmalloc((n ? n : 1) * sizeof *t);
  for (size_t i = 0; i < n; i++) { t[i].r = rows[i]; t[i].i = i; }
  qsort(t, n, sizeof *t, tagged_row_cmp);
  for (size_t i = 0; i < n; i++) rows[i] = t[i].r;
  free(t);
}

static void build_rows(raptor *R)
{
  int w = R->seqlen + 1;
  int nb = R->ngaps + 1;
  free(R->rows);
  R->rows = rpd_xcalloc(R->nkeys + nb + 1, sizeof *R->rows);
  size_t nr = 0;
  /* gap buckets */
  krow *gap = rpd_xcalloc(nb, sizeof *gap);
  int64_t *gcnt = rpd_xcalloc(nb, sizeof *gcnt);
  for (int b = 0; b < nb; b++) {
    gap[b].d_min = INFINITY;
    gap[b].d_max = -INFINITY;
    gap[b].smin = INT64_MAX;
    gap[b].smax = INT64_MIN;
  }
  for (size_t k = 0; k < R->nkeys; k++) {
    kstat *s = &R->ks[k];
    krow *row = &R->rows[nr++];
    row->key = (int32_t)k;
    row->label = R->names[R->keyk[k * w]];
    row->cat = R->name_cat[R->keyk[k * w]];
    row->calls = s->calls;
    row->outliers = s->nall - s->calls;
    row->smin = s->smin;
    row->smax = s->smax;
    row->pg_sum = s->pg_sum;
    row->pg_min = s->pg_n ? s->pg_min : NAN;
    row->pg_max = s->pg_n ? s->pg_max : NAN;
    row->pg_mean = s->pg_n ? s->pg_sum / (double)s->pg_n : NAN;
    row->pg_std = s->pg_n > 1 ? sqrt(s->pg_m2 / (double)(s->pg_n - 1)) : NAN;
    row->d_sum = s->d_sum;
    row->d_min = s->d_min;
    row->d_max = s->d_max;
    row->d_mean = s->d_sum / (double)s->calls;
    row->d_std = s->calls > 1 ? sqrt(s->d_m2 / (double)(s->calls - 1)) : NAN;
    /* bucket (lo, hi] over the PreGap sum, in us edges */
    if (row->pg_sum > 0) {
      int b = 0;
      while (b < R->ngaps && row->pg_sum > (double)R->gaps[b] * 1000.0) b++;
      krow *g = &gap[b];
      g->calls += row->calls;
      g->d_sum += row->pg_sum;
      if (row->pg_min < g->d_min) g->d_min = row->pg_min;
      if (row->pg_max > g->d_max) g->d_max = row->pg_max;
      if (!isnan(row->pg_mean)) { g->d_mean += row->pg_mean; gcnt[b]++; }
      if (row->smin < g->smin) g->smin = row->smin;
      if (row->smax > g->smax) g->smax = row->smax;
      g->outliers = 1;  /* marks the bucket as used */
    }
  }
  for (int b = 0; b < nb; b++) {
    if (!gap[b].outliers) continue;
    krow *row = &R->rows[nr++];
    *row = gap[b];
    row->key = -1;
    row->label = R->gap_labels[b];
    row->cat = category_of(R, row->label);
    row->outliers = -1;
    row->d_mean = gcnt[b] ? row->d_mean / (double)gcnt[b] : NAN;
    row->d_std = NAN;
    row->pg_sum = row->pg_min = row->pg_mean = row->pg_std = row->pg_max = NAN;
  }
  free(gap);
  free(gcnt);
  R->nrows = nr;
  double total = 0;
  for (size_t i = 0; i < nr; i++) total += R->rows[i].d_sum;
  R->total_ns = total;
  R->var_comm = R->var_other = 0;
  for (size_t i = 0; i < nr; i++) {
    krow *row = &R->rows[i];
    row->pct = row->d_sum / total * 100.0;
    if (row->cat == 0)
      row->varsum = NAN;
    else
      row->varsum = (double)(int64_t)((row->d_mean - row->d_min) * (double)row->calls);
    if (!isnan(row->varsum)) {
      if (strcmp(R->catname[row->cat], COLL_CAT) == 0) R->var_comm += row->varsum;
      else R->var_other += row->varsum;
    }
  }
  sort_rows(R->rows, nr);
}

static int crow_name_cmp(const void *a, const void *b)
{
  return strcmp(((const catrow *)a)->name, ((const catrow *)b)->name);
}

static void build_categories(raptor *R)
{
  int nc = R->ncats + 2;
  catrow *c = rpd_xcalloc(nc + 1, sizeof *c);
  int *used = rpd_xcalloc(nc, sizeof *used);
  for (size_t i = 0; i < R->nrows; i++) {
    krow *row = &R->rows[i];
    catrow *x = &c[row->cat];
    used[row->cat] = 1;
    x->name = R->catname[row->cat];
    x->uniq++;
    x->calls += row->calls;
    x->dur += row->d_sum;
    if (!isnan(row->varsum)) x->varsum += row->varsum;
  }
  size_t n = 0;
  for (int i = 0; i < nc; i++)
    if (used[i]) c[n++] = c[i];
  qsort(c, n, sizeof *c, crow_name_cmp);  /* pandas groupby order */
  if (R->latency_ns && n) {
    catrow lat = {LATENCY_CAT, 0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
      size_t l = strlen(c[i].name), il = strlen(IDLE_CAT);
      if (l >= il && strcmp(c[i].name + l - il, IDLE_CAT) == 0) continue;
      lat.uniq += c[i].uniq;
      lat.calls += c[i].calls;
      c[i].dur -= (double)c[i].calls * (double)R->latency_ns;
    }
    lat.dur = (double)lat.calls * (double)R->latency_ns;
    /* replace an existing _Latency row (pandas .loc) or append */
    size_t j = 0;
    while (j < n && strcmp(c[j].name, LATENCY_CAT) != 0) j++;
    c[j] = lat;
    if (j == n) n++;
  }
  double total = 0;
  for (size_t i = 0; i < n; i++) total += c[i].dur;
  for (size_t i = 0; i < n; i++) {
    c[i].avg_us = c[i].dur / (double)c[i].calls / 1000.0;
    c[i].pct = c[i].dur / total * 100.0;
  }
  /* stable sort by duration desc (insertion: the table is small) */
  for (size_t i = 1; i < n; i++) {
    catrow t = c[i];
    size_t j = i;
    while (j > 0 && c[j - 1].dur < t.dur) { c[j] = c[j - 1]; j--; }
    c[j] = t;
  }
  free(used);
  free(R->crows);
  R->crows = c;
  R->ncrows = n;
}

static void build_gpus(raptor *R)
{
  free(R->grows);
  R->grows = rpd_xcalloc(R->n ? R->n : 1, sizeof *R->grows);
  size_t ng = 0;
  int64_t smin = 0, emax = 0;
  for (size_t i = 0; i < R->n; i++) {
    const op *o = &R->ops[i];
    if (i == 0 || o->gpu != R->ops[i - 1].gpu) {
      gpurow *g = &R->grows[ng++];
      g->gpu = o->gpu;
      smin = o->start;
      emax = o->end;
    }
    gpurow *g = &R->grows[ng - 1];
    if (o->pregap >= 0) g->pregap += (double)o->pregap;
    g->dur += (double)op_dur(o);
    if (o->start < smin) smin = o->start;
    if (o->end > emax) emax = o->end;
    g->lead = (double)(smin - R->roi_s);
    g->trail = (double)(R->roi_e - emax);
  }
  for (size_t i = 0; i < ng; i++)
    R->grows[i].idle_pct =
        R->grows[i].pregap / (R->grows[i].pregap + R->grows[i].dur) * 100.0;
  R->ngrows = ng;
}

/* Everything from the op array in its current ROI. */
static void analyze(raptor *R)
{
  free(R->name_cat);
  R->name_cat = rpd_xmalloc((R->nnames ? R->nnames : 1) * sizeof *R->name_cat);
  for (size_t i = 0; i < R->nnames; i++)
    R->name_cat[i] = category_of(R, R->names[i]);
  compute_pregaps(R);
  assign_keys(R);
  key_stats(R);
  build_rows(R);
  build_categories(R);
  build_gpus(R);
}

/* ------------------------------------------------------------ ROI */

/* Parse one ROI bound.  Sets *ns (relative) for times; for a kernel
 * regex sets *re.  Returns 0 or an exit code (message printed). */
static int roi_parse(raptor *R, const char *what, const char *s, int64_t *ns,
                     rpd_regex **re)
{
  *re = NULL;
  rpd_time t;
  int64_t span = R->last_abs - R->first_abs;
  if (!*s) {
    rpd_fail("empty %s", what);
    return 2;
  }
  if (rpd_time_parse(s, "ms", &t) == RPD_OK) {
    switch (t.kind) {
    case RPD_TIME_PCT:
      *ns = (int64_t)((double)span * (t.pct / 100.0));
      break;
    case RPD_TIME_MINUS:
      *ns = (R->last_abs - (int64_t)t.ns) - R->first_abs;
      break;
    default:
      *ns = (int64_t)t.ns;
      break;
    }
    return 0;
  }
  unsigned char c0 = (unsigned char)s[0];
  /* malformed values are usage errors (exit 2), on one line */
  if (isdigit(c0) || c0 == '.' || c0 == '+' || c0 == '-' || strchr(s, '%')) {
    rpd_fail("bad %s '%s': %s", what, s, rpd_errmsg());
    return 2;
  }
  if (rpd_regex_compile(s, re) != RPD_OK) {
    rpd_fail("bad %s kernel regex '%s': %s", what, s, rpd_errmsg());
    return 2;
  }
  return 0;
}

/* Start of the first op whose kernel matches re; -1 if none. */
static int64_t first_match(raptor *R, rpd_regex *re)
{
  int64_t best = -1;
  char *hit = rpd_xcalloc(R->nnames ? R->nnames : 1, 1);
  for (size_t i = 0; i < R->nnames; i++) hit[i] = rpd_regex_search(re, R->names[i]) == 1;
  for (size_t i = 0; i < R->n; i++)
    if (hit[R->ops[i].kern] && (best < 0 || R->ops[i].start < best))
      best = R->ops[i].start;
  free(hit);
  return best;
}

static int roi_check(raptor *R, int64_t s, int64_t e)
{
  int64_t span = R->last_abs - R->first_abs;
  if (s < 0 || s > span)
    return rpd_fail("ROI start %.6f ms is outside the trace (0 .. %.6f ms)",
                    (double)s / 1e6, (double)span / 1e6);
  if (e < 0 || e > span)
    return rpd_fail("ROI end %.6f ms is outside the trace (0 .. %.6f ms)",
                    (double)e / 1e6, (double)span / 1e6);
  if (s > e)
    return rpd_fail("ROI start %.6f ms is after ROI end %.6f ms",
                    (double)s / 1e6, (double)e / 1e6);
  return 0;
}

/* Time zero, ROI, load ops, auto-roi and trim; then analyze. */
static int setup_roi(raptor *R)
{
  rpd *r = R->r;
  sqlite3_stmt *st = NULL;
  int rc = rpd_prepare(r, "SELECT min(start), max(\"end\") FROM rocpd_api", &st);
  int s = rc == RPD_OK ? rpd_step(r, st) : 0;
  if (rc != RPD_OK || s < 0) {
    sqlite3_finalize(st);
    return rpd_fail("cannot read '%s': %s", R->path, rpd_errmsg());
  }
  int have = sqlite3_column_type(st, 0) != SQLITE_NULL;
  R->first_abs = sqlite3_column_int64(st, 0);
  R->last_abs = sqlite3_column_int64(st, 1);
  sqlite3_finalize(st);
  if (!have) {
    rc = rpd_prepare(r, "SELECT min(start), max(\"end\") FROM rocpd_op", &st);
    s = rc == RPD_OK ? rpd_step(r, st) : 0;
    if (rc != RPD_OK || s < 0) {
      sqlite3_finalize(st);
      return rpd_fail("cannot read '%s': %s", R->path, rpd_errmsg());
    }
    have = sqlite3_column_type(st, 0) != SQLITE_NULL;
    R->first_abs = sqlite3_column_int64(st, 0);
    R->last_abs = sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    if (!have) return rpd_fail("'%s' has no api and no op rows", R->path);
  }
  if (R->last_abs < R->first_abs) R->last_abs = R->first_abs;
  int64_t span = R->last_abs - R->first_abs;
  int64_t rs = 0, re_ = span;
  rpd_regex *rxs = NULL, *rxe = NULL;
  int ret = 0;
  if (R->roi_start_s && (ret = roi_parse(R, "ROI start", R->roi_start_s, &rs, &rxs)))
    goto out;
  if (R->roi_end_s && (ret = roi_parse(R, "ROI end", R->roi_end_s, &re_, &rxe)))
    goto out;
  if (!rxs && !rxe && (ret = roi_check(R, rs, re_))) goto out;
  if ((rc = load_ops(R, rxs || rxe ? 0 : rs, rxs || rxe ? span : re_)) != RPD_OK) {
    ret = rpd_fail("cannot read ops of '%s': %s", R->path, rpd_errmsg());
    goto out;
  }
  if (rxs || rxe) {
    if (rxs && (rs = first_match(R, rxs)) < 0) {
      ret = rpd_fail("ROI start: no op matches kernel regex '%s'", R->roi_start_s);
      goto out;
    }
    if (rxe && (re_ = first_match(R, rxe)) < 0) {
      ret = rpd_fail("ROI end: no op matches kernel regex '%s'", R->roi_end_s);
      goto out;
    }
    if ((ret = roi_check(R, rs, re_))) goto out;
    restrict_ops(R, rs, re_);
  }
  R->roi_s = rs;
  R->roi_e = re_;
  if (R->auto_roi) {
    analyze(R);
    size_t i = 0;
    while (i < R->nrows && R->rows[i].key < 0) i++;
    if (i < R->nrows) {
      R->roi_s = R->rows[i].smin;
      R->roi_e = R->rows[i].smax;
      restrict_ops(R, R->roi_s, R->roi_e);
    }
  }
  if (R->roi_trim && R->n) {
    compute_pregaps(R);
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    size_t i = 0;
    while (i < R->n) {
      int32_t g = R->ops[i].gpu;
      int64_t smin = R->ops[i].start, emax = R->ops[i].end;
      for (; i < R->n && R->ops[i].gpu == g; i++)
        if (R->ops[i].end > emax) emax = R->ops[i].end;
      if (smin > lo) lo = smin;
      if (emax < hi) hi = emax;
    }
    if (lo < R->roi_s) lo = R->roi_s;
    if (hi > R->roi_e) hi = R->roi_e;
    if (lo > hi) {
      ret = rpd_fail("--roi-trim: the GPUs are never busy at the same time "
                     "(%.6f ms > %.6f ms)", (double)lo / 1e6, (double)hi / 1e6);
      goto out;
    }
    R->roi_s = lo;
    R->roi_e = hi;
    restrict_ops(R, lo, hi);
  }
  analyze(R);
out:
  rpd_regex_free(rxs);
  rpd_regex_free(rxe);
  return ret;
}

/* ------------------------------------------------------------ output sinks */

/* A table destination: an rpd_out writer or an xlsx worksheet. */
typedef struct sink {
  rpd_out *o;
  lxw_worksheet *ws;
  int row, col;
  int digits;        /* table format digits; -1 exact */
  int table;         /* text table: NaN shown as NaN */
} sink;

static void sk_begin(sink *k, raptor *R, FILE *f, lxw_worksheet *ws, int ncols,
                     const char *const *names)
{
  memset(k, 0, sizeof *k);
  k->ws = ws;
  if (ws) {
    for (int i = 0; i < ncols; i++) worksheet_write_string(ws, 0, i, names[i], NULL);
    k->row = 1;
    k->digits = -1;
  } else {
    k->o = rpd_out_new(f, R->fmt, ncols, names);
    k->table = R->fmt == RPD_FMT_TABLE;
    k->digits = k->table ? R->float_digits : -1;
  }
}

static void sk_str(sink *k, const char *s)
{
  if (k->ws) {
    if (s) worksheet_write_string(k->ws, k->row, k->col, s, NULL);
    k->col++;
  } else {
    rpd_out_str(k->o, s);
  }
}

static void sk_int(sink *k, int64_t v)
{
  if (k->ws) worksheet_write_number(k->ws, k->row, k->col++, (double)v, NULL);
  else rpd_out_int(k->o, v);
}

static void sk_dbl(sink *k, double v)
{
  if (isnan(v)) {
    if (k->ws) k->col++;
    else if (k->table) rpd_out_str(k->o, "NaN");
    else rpd_out_null(k->o);
    return;
  }
  if (k->ws) worksheet_write_number(k->ws, k->row, k->col++, v, NULL);
  else rpd_out_double(k->o, v, k->digits);
}

static void sk_endrow(sink *k)
{
  if (k->ws) { k->row++; k->col = 0; }
  else rpd_out_endrow(k->o);
}

static int sk_end(sink *k)
{
  if (k->ws) return 0;
  return rpd_out_end(k->o) == RPD_OK ? 0 : 1;
}

/* Python "{:.1%}" */
static void fmt_pct1(char *b, size_t n, double v)
{
  if (isnan(v)) snprintf(b, n, "nan%%");
  else snprintf(b, n, "%.1f%%", v * 100.0);
}

/* Truncate like pandas max_colwidth into b. */
static void fmt_trunc(char *b, size_t n, const char *s, int width)
{
  size_t l = strlen(s);
  if (width > 3 && l > (size_t)width) snprintf(b, n, "%.*s...", width - 3, s);
  else snprintf(b, n, "%s", s);
}

static int emit_timestamps(raptor *R, sink *k, FILE *f, lxw_worksheet *ws)
{
  static const char *const cols[] = {"first_abs_ns", "last_abs_ns",
                                     "roi_start_ns", "roi_end_ns"};
  sk_begin(k, R, f, ws, 4, cols);
  sk_int(k, R->first_abs);
  sk_int(k, R->last_abs);
  sk_int(k, R->roi_s);
  sk_int(k, R->roi_e);
  sk_endrow(k);
  return sk_end(k);
}

static int emit_category(raptor *R, sink *k, FILE *f, lxw_worksheet *ws)
{
  static const char *const cols[] = {"Category", "UniqKernels", "TotalCalls",
                                     "TotalDur_ms", "VarSum_ms", "AvgDur_us", "Pct"};
  sk_begin(k, R, f, ws, 7, cols);
  for (size_t i = 0; i < R->ncrows; i++) {
    catrow *c = &R->crows[i];
    sk_str(k, c->name);
    sk_int(k, c->uniq);
    sk_int(k, c->calls);
    sk_dbl(k, c->dur / 1e6);
    sk_dbl(k, c->varsum / 1e6);
    sk_dbl(k, c->avg_us);
    sk_dbl(k, c->pct);
    sk_endrow(k);
  }
  return sk_end(k);
}

static int emit_variability(raptor *R, sink *k, FILE *f, lxw_worksheet *ws)
{
  static const char *const cols[] = {"Name", "Var_us", "VarPct"};
  char b[64];
  sk_begin(k, R, f, ws, 3, cols);
  sk_str(k, "by_comm");
  sk_dbl(k, R->var_comm / 1000.0);
  fmt_pct1(b, sizeof b, R->var_comm / R->total_ns);
  sk_str(k, b);
  sk_endrow(k);
  sk_str(k, "by_non_comm");
  sk_dbl(k, R->var_other / 1000.0);
  fmt_pct1(b, sizeof b, R->var_other / R->total_ns);
  sk_str(k, b);
  sk_endrow(k);
  return sk_end(k);
}

static int emit_gpu(raptor *R, sink *k, FILE *f, lxw_worksheet *ws)
{
  static const char *const cols[] = {"gpuId", "PreGap_ms", "Duration_ms", "Idle_pct",
                                     "LeadingIdle_ms", "TrailingIdle_ms"};
  sk_begin(k, R, f, ws, 6, cols);
  for (size_t i = 0; i < R->ngrows; i++) {
    gpurow *g = &R->grows[i];
    sk_int(k, g->gpu);
    sk_dbl(k, g->pregap / 1e6);
    sk_dbl(k, g->dur / 1e6);
    sk_dbl(k, g->idle_pct);
    sk_dbl(k, g->lead / 1e6);
    sk_dbl(k, g->trail / 1e6);
    sk_endrow(k);
  }
  return sk_end(k);
}

/* The full kernelseq table (csv/json/xlsx). */
static int emit_kernelseq(raptor *R, sink *k, FILE *f, lxw_worksheet *ws)
{
  int w = R->seqlen + 1;
  static const char *const tail[] = {
    "category", "calls", "outliers", "start_min_ns", "start_max_ns",
    "pregap_sum_ns", "pregap_min_ns", "pregap_mean_ns", "pregap_std_ns",
    "pregap_max_ns", "dur_sum_ns", "dur_min_ns", "dur_mean_ns", "dur_std_ns",
    "dur_max_ns", "pct_total", "varsum_ns"};
  int nt = (int)(sizeof tail / sizeof *tail);
  const char **cols = rpd_xmalloc((1 + w + nt) * sizeof *cols);
  char **kn = rpd_xmalloc(w * sizeof *kn);
  cols[0] = "rank";
  for (int j = 0; j < w; j++) {
    kn[j] = j ? rpd_xasprintf("kernel_%d", j) : rpd_xstrdup("kernel");
    cols[1 + j] = kn[j];
  }
  for (int j = 0; j < nt; j++) cols[1 + w + j] = tail[j];
  sk_begin(k, R, f, ws, 1 + w + nt, cols);
  for (size_t i = 0; i < R->nrows; i++) {
    krow *x = &R->rows[i];
    sk_int(k, (int64_t)i);
    for (int j = 0; j < w; j++) {
      if (x->key >= 0) sk_str(k, R->names[R->keyk[(size_t)x->key * w + j]]);
      else sk_str(k, j ? NULL : x->label);
    }
    sk_str(k, R->catname[x->cat]);
    sk_int(k, x->calls);
    if (x->outliers >= 0) sk_int(k, x->outliers); else sk_dbl(k, NAN);
    sk_int(k, x->smin);
    sk_int(k, x->smax);
    sk_dbl(k, x->pg_sum);
    sk_dbl(k, x->pg_min);
    sk_dbl(k, x->pg_mean);
    sk_dbl(k, x->pg_std);
    sk_dbl(k, x->pg_max);
    sk_dbl(k, x->d_sum);
    sk_dbl(k, x->d_min);
    sk_dbl(k, x->d_mean);
    sk_dbl(k, x->d_std);
    sk_dbl(k, x->d_max);
    sk_dbl(k, x->pct);
    sk_dbl(k, x->varsum);
    sk_endrow(k);
  }
  int rc = sk_end(k);
  for (int j = 0; j < w; j++) free(kn[j]);
  free(kn);
  free(cols);
  return rc;
}

/* The pretty kernelseq table (text tables and xlsx). */
static int emit_pretty(raptor *R, sink *k, FILE *f, lxw_worksheet *ws, int limit)
{
  static const char *const cols[] = {
    "Kernel Sequence", "First_ms", "Last_ms", "PreGap_mean_us", "Dur_min_us",
    "Dur_mean_us", "Dur_max_us", "Var_us", "VarTotal_pct", "Outliers",
    "TotalCalls", "PctTotal", "Category"};
  int w = R->seqlen + 1;
  double totvar = 0;
  for (size_t i = 0; i < R->nrows; i++)
    if (!isnan(R->rows[i].varsum)) totvar += R->rows[i].varsum;
  sk_begin(k, R, f, ws, 13, cols);
  rpd_buf seq = {0};
  char b[128];
  size_t n = R->nrows;
  if (limit >= 0 && n > (size_t)limit) n = (size_t)limit;
  for (size_t i = 0; i < n; i++) {
    krow *x = &R->rows[i];
    rpd_buf_reset(&seq);
    if (x->key >= 0) {
      for (int j = 0; j < w; j++) {
        if (j) rpd_buf_puts(&seq, " <- ");
        rpd_buf_puts(&seq, R->names[R->keyk[(size_t)x->key * w + j]]);
      }
    } else {
      rpd_buf_puts(&seq, x->label);
    }
    if (ws) {
      sk_str(k, seq.s);
    } else {
      char *t = rpd_xmalloc(seq.len + 8);
      fmt_trunc(t, seq.len + 8, seq.s, R->display_cols);
      sk_str(k, t);
      free(t);
    }
    snprintf(b, sizeof b, "%+.3f", (double)x->smin / 1e6);
    sk_str(k, b);
    snprintf(b, sizeof b, "%+.3f", (double)x->smax / 1e6);
    sk_str(k, b);
    snprintf(b, sizeof b, "%.1f", x->pg_mean / 1e3);
    sk_str(k, isnan(x->pg_mean) ? "nan" : b);
    snprintf(b, sizeof b, "%.1f", x->d_min / 1e3);
    sk_str(k, b);
    snprintf(b, sizeof b, "%.1f", x->d_mean / 1e3);
    sk_str(k, b);
    snprintf(b, sizeof b, "%.1f", x->d_max / 1e3);
    sk_str(k, b);
    sk_dbl(k, x->varsum / 1000.0 / (double)x->calls);
    fmt_pct1(b, sizeof b, x->varsum / totvar);
    sk_str(k, b);
    if (x->outliers >= 0) snprintf(b, sizeof b, "%" PRId64, x->outliers);
    else snprintf(b, sizeof b, "nan");
    sk_str(k, b);
    snprintf(b, sizeof b, "%" PRId64, x->calls);
    sk_str(k, b);
    snprintf(b, sizeof b, "%.1f%%", x->pct);
    sk_str(k, b);
    sk_str(k, R->catname[x->cat]);
    sk_endrow(k);
  }
  rpd_buf_free(&seq);
  return sk_end(k);
}

/* "%8d.%06d" of the reference's pretty_ts */
static void pretty_ts(char *b, size_t n, int64_t ts)
{
  int64_t ms = ts >= 0 ? ts / 1000000 : -((-ts + 999999) / 1000000);
  snprintf(b, n, "%8" PRId64 ".%06" PRId64, ms, ts - ms * 1000000);
}

static const char *const optrace_cols[] = {
  "op_id", "gpuId", "sequenceId", "start_ns", "end_ns", "duration_ns",
  "pregap_ns", "kernel", "duration_zscore", "outlier"};

static void trace_line(raptor *R, FILE *f, sink *k, const op *o)
{
  const char *name = R->names[o->kern];
  int out = op_outlier(R, o);
  if (k) {
    sk_int(k, o->id);
    sk_int(k, o->gpu);
    sk_int(k, o->seq);
    sk_int(k, o->start);
    sk_int(k, o->end);
    sk_int(k, op_dur(o));
    if (o->pregap >= 0) sk_int(k, o->pregap); else sk_dbl(k, NAN);
    sk_str(k, name);
    sk_dbl(k, op_zscore(R, o));
    sk_int(k, out);
    sk_endrow(k);
    return;
  }
  char s[32], e[32];
  pretty_ts(s, sizeof s, o->start);
  pretty_ts(e, sizeof e, o->end);
  int width = R->op_width > 0 ? R->op_width : INT32_MAX;
  fprintf(f, "%d.%08d %9.1f %13s %13s %6.1f %5s %30.*s\n", o->gpu, o->seq,
          o->pregap >= 0 ? (double)o->pregap / 1000.0 : NAN, s, e,
          (double)op_dur(o) / 1000.0, out ? "OUTLR " : "      ", width, name);
}

/* Write the ops idx[0..n) (or all ops when idx is NULL) as a trace. */
static int emit_trace(raptor *R, FILE *f, lxw_worksheet *ws, const size_t *idx,
                      size_t n, int text)
{
  sink k;
  if (text && !ws) {
    fprintf(f, "%10s %9s %13s %13s %10s %5s %s\n", "GPU.Seq_Id", "PreGap_us",
            "Start_ms", "End_ms", "Dur_us", "Outlr?", "Kernel");
    for (size_t i = 0; i < n; i++) trace_line(R, f, NULL, &R->ops[idx ? idx[i] : i]);
    return ferror(f) ? 1 : 0;
  }
  sk_begin(&k, R, f, ws, 10, optrace_cols);
  if (!ws) k.digits = -1;
  for (size_t i = 0; i < n; i++) {
    if (ws && k.row >= 1048576) break;  /* xlsx row limit */
    trace_line(R, f, &k, &R->ops[idx ? idx[i] : i]);
  }
  return sk_end(&k);
}

/* ------------------------------------------------------------ --save */

/* A REAL parameter: NaN is NULL. */
static void bind_real(sqlite3_stmt *st, int i, double v)
{
  if (isnan(v)) sqlite3_bind_null(st, i);
  else sqlite3_bind_double(st, i, v);
}

/* Run an INSERT once and reset it for the next row. */
static int insert_row(rpd *r, sqlite3_stmt *st)
{
  int s = rpd_step(r, st);
  sqlite3_reset(st);
  return s < 0 ? -s : RPD_OK;
}

static int save_results(raptor *R)
{
  rpd *r = R->r;
  int w = R->seqlen + 1;
  sqlite3_stmt *st = NULL;
  rpd_buf b = {0};
  int rc = rpd_begin(r);
  if (rc != RPD_OK) return rc;
  rc = rpd_exec(r,
    "DROP TABLE IF EXISTS ext_raptor_op; DROP TABLE IF EXISTS ext_raptor_kernelseq;"
    "DROP TABLE IF EXISTS ext_raptor_category; DROP TABLE IF EXISTS ext_raptor_variability;"
    "DROP TABLE IF EXISTS ext_raptor_gpu;"
    "CREATE TABLE ext_raptor_op(op_id INTEGER, gpuId INTEGER, sequenceId INTEGER,"
    " start_ns INTEGER, end_ns INTEGER, duration_ns INTEGER, pregap_ns INTEGER,"
    " kernel TEXT, duration_zscore REAL, outlier INTEGER);"
    "CREATE TABLE ext_raptor_category(category TEXT, uniq_kernels INTEGER,"
    " total_calls INTEGER, total_dur_ns REAL, varsum_ns REAL, avg_dur_us REAL, pct REAL);"
    "CREATE TABLE ext_raptor_variability(name TEXT, var_us REAL, var_pct REAL);"
    "CREATE TABLE ext_raptor_gpu(gpuId INTEGER, pregap_ns REAL, duration_ns REAL,"
    " idle_pct REAL, leading_idle_ns REAL, trailing_idle_ns REAL);");
  if (rc != RPD_OK) goto cleanup;
  rpd_buf_puts(&b, "CREATE TABLE ext_raptor_kernelseq(rank INTEGER, kernel TEXT");
  for (int j = 1; j < w; j++) rpd_buf_printf(&b, ", kernel_%d TEXT", j);
  rpd_buf_puts(&b, ", category TEXT, calls INTEGER, outliers INTEGER,"
               " start_min_ns INTEGER, start_max_ns INTEGER, pregap_sum_ns REAL,"
               " pregap_min_ns REAL, pregap_mean_ns REAL, pregap_std_ns REAL,"
               " pregap_max_ns REAL, dur_sum_ns REAL, dur_min_ns REAL, dur_mean_ns REAL,"
               " dur_std_ns REAL, dur_max_ns REAL, pct_total REAL, varsum_ns REAL)");
  if ((rc = rpd_exec(r, b.s)) != RPD_OK) goto cleanup;

  /* ops */
  rc = rpd_prepare(r, "INSERT INTO ext_raptor_op VALUES(?,?,?,?,?,?,?,?,?,?)", &st);
  for (size_t i = 0; rc == RPD_OK && i < R->n; i++) {
    const op *o = &R->ops[i];
    double z = op_zscore(R, o);
    sqlite3_bind_int64(st, 1, o->id);
    sqlite3_bind_int64(st, 2, o->gpu);
    sqlite3_bind_int64(st, 3, o->seq);
    sqlite3_bind_int64(st, 4, o->start);
    sqlite3_bind_int64(st, 5, o->end);
    sqlite3_bind_int64(st, 6, op_dur(o));
    if (o->pregap >= 0) sqlite3_bind_int64(st, 7, o->pregap);
    else sqlite3_bind_null(st, 7);
    sqlite3_bind_text(st, 8, R->names[o->kern], -1, SQLITE_STATIC);
    bind_real(st, 9, z);
    sqlite3_bind_int(st, 10, op_outlier(R, o));
    rc = insert_row(r, st);
  }
  sqlite3_finalize(st);
  st = NULL;
  if (rc != RPD_OK) goto cleanup;

  /* kernelseq */
  rpd_buf_reset(&b);
  rpd_buf_puts(&b, "INSERT INTO ext_raptor_kernelseq VALUES(?");
  for (int j = 0; j < w + 17; j++) rpd_buf_puts(&b, ",?");
  rpd_buf_puts(&b, ")");
  rc = rpd_prepare(r, b.s, &st);
  for (size_t i = 0; rc == RPD_OK && i < R->nrows; i++) {
    krow *x = &R->rows[i];
    int c = 1;
    sqlite3_bind_int64(st, c++, (int64_t)i);
    for (int j = 0; j < w; j++, c++) {
      if (x->key >= 0)
        sqlite3_bind_text(st, c, R->names[R->keyk[(size_t)x->key * w + j]], -1, SQLITE_STATIC);
      else if (j == 0) sqlite3_bind_text(st, c, x->label, -1, SQLITE_STATIC);
      else sqlite3_bind_null(st, c);
    }
    sqlite3_bind_text(st, c++, R->catname[x->cat], -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, c++, x->calls);
    if (x->outliers >= 0) sqlite3_bind_int64(st, c++, x->outliers);
    else sqlite3_bind_null(st, c++);
    sqlite3_bind_int64(st, c++, x->smin);
    sqlite3_bind_int64(st, c++, x->smax);
    double v[] = {x->pg_sum, x->pg_min, x->pg_mean, x->pg_std, x->pg_max, x->d_sum,
                  x->d_min, x->d_mean, x->d_std, x->d_max, x->pct, x->varsum};
    for (size_t j = 0; j < sizeof v / sizeof *v; j++, c++) bind_real(st, c, v[j]);
    rc = insert_row(r, st);
  }
  sqlite3_finalize(st);
  st = NULL;
  if (rc != RPD_OK) goto cleanup;

  rc = rpd_prepare(r, "INSERT INTO ext_raptor_category VALUES(?,?,?,?,?,?,?)", &st);
  for (size_t i = 0; rc == RPD_OK && i < R->ncrows; i++) {
    catrow *x = &R->crows[i];
    sqlite3_bind_text(st, 1, x->name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, x->uniq);
    sqlite3_bind_int64(st, 3, x->calls);
    sqlite3_bind_double(st, 4, x->dur);
    sqlite3_bind_double(st, 5, x->varsum);
    bind_real(st, 6, x->avg_us);
    bind_real(st, 7, x->pct);
    rc = insert_row(r, st);
  }
  sqlite3_finalize(st);
  st = NULL;
  if (rc != RPD_OK) goto cleanup;

  rc = rpd_prepare(r, "INSERT INTO ext_raptor_variability VALUES(?,?,?)", &st);
  for (int i = 0; rc == RPD_OK && i < 2; i++) {
    double v = i ? R->var_other : R->var_comm;
    double pct = v / R->total_ns * 100.0;
    sqlite3_bind_text(st, 1, i ? "by_non_comm" : "by_comm", -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 2, v / 1000.0);
    bind_real(st, 3, pct);
    rc = insert_row(r, st);
  }
  sqlite3_finalize(st);
  st = NULL;
  if (rc != RPD_OK) goto cleanup;

  rc = rpd_prepare(r, "INSERT INTO ext_raptor_gpu VALUES(?,?,?,?,?,?)", &st);
  for (size_t i = 0; rc == RPD_OK && i < R->ngrows; i++) {
    gpurow *g = &R->grows[i];
    sqlite3_bind_int64(st, 1, g->gpu);
    double v[] = {g->pregap, g->dur, g->idle_pct, g->lead, g->trail};
    for (int j = 0; j < 5; j++) bind_real(st, 2 + j, v[j]);
    rc = insert_row(r, st);
  }
  sqlite3_finalize(st);
  st = NULL;
  if (rc != RPD_OK) goto cleanup;

  {
    char v[64];
    struct { const char *tag; int64_t val; } m[] = {
      {"raptor_first_abs_ns", R->first_abs}, {"raptor_last_abs_ns", R->last_abs},
      {"raptor_roi_start_ns", R->roi_s}, {"raptor_roi_end_ns", R->roi_e},
    };
    for (size_t i = 0; rc == RPD_OK && i < sizeof m / sizeof *m; i++) {
      snprintf(v, sizeof v, "%" PRId64, m[i].val);
      rc = rpd_meta_set(r, m[i].tag, v);
    }
    if (rc == RPD_OK)
      rc = rpd_meta_set(r, "raptor_options", R->optstr.s ? R->optstr.s : "");
  }
  if (rc == RPD_OK) rc = rpd_commit(r);
cleanup:
  sqlite3_finalize(st);
  rpd_buf_free(&b);
  if (rc != RPD_OK) rpd_rollback(r);
  return rc;
}

/* ------------------------------------------------------------ xlsx */

static char *xls_path(const char *path)
{
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  const char *dot = strrchr(base, '.');
  size_t keep = dot && dot != base ? (size_t)(dot - path) : strlen(path);
  return rpd_xasprintf("%.*s.xlsx", (int)keep, path);
}

/* -x: the workbook FILE.xlsx, built in a temp file next to it and renamed
 * into place (never over the trace itself, a device or a directory). */
static int write_xls(raptor *R)
{
  char *path = xls_path(R->path);
  xlsxfile x;
  int rc = 0;
  if (xlsxfile_begin(&x, path, R->path) != RPD_OK) {
    rc = rpd_fail("%s", rpd_errmsg());
    free(path);
    return rc;
  }
  fprintf(stderr, "info: writing xls file '%s'\n", path);
  lxw_workbook *wb = x.wb;
  sink k;
  emit_kernelseq(R, &k, NULL, workbook_add_worksheet(wb, "kernelseq"));
  emit_pretty(R, &k, NULL, workbook_add_worksheet(wb, "pretty kernelseq"), -1);
  emit_category(R, &k, NULL, workbook_add_worksheet(wb, "category"));
  emit_variability(R, &k, NULL, workbook_add_worksheet(wb, "variability"));
  if (R->xls_op_trace) {
    if (R->n >= 1048576)
      fprintf(stderr, "%s: warning: op trace truncated to the xlsx limit of 1048575 rows\n",
              rpd_progname);
    emit_trace(R, NULL, workbook_add_worksheet(wb, "op trace"), NULL, R->n, 0);
  }
  if (xlsxfile_end(&x, RPD_OK) != RPD_OK)
    rc = rpd_fail("%s", rpd_errmsg());
  free(path);
  return rc;
}

/* Refuse the named outputs before any work: --op-trace-file and -x's
 * workbook must not be the trace itself, a device or a directory.  Returns
 * the exit code (0, or 1 after reporting). */
static int check_outputs(raptor *R)
{
  if ((R->op_trace || R->have_instance) && R->op_file &&
      rpd_output_check(R->op_file, R->path, NULL) != RPD_OK)
    return rpd_fail("cannot write '%s': %s", R->op_file, rpd_errmsg());
  if (R->write_xls) {
    char *path = xls_path(R->path);
    int rc = 0;
    if (rpd_output_check(path, R->path, NULL) != RPD_OK)
      rc = rpd_fail("cannot write '%s': %s", path, rpd_errmsg());
    free(path);
    return rc;
  }
  return 0;
}

/* ------------------------------------------------------------ printing */

static const op *dur_cmp_ops;
static int idx_dur_cmp(const void *a, const void *b)
{
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  int64_t dx = op_dur(&dur_cmp_ops[x]), dy = op_dur(&dur_cmp_ops[y]);
  if (dx != dy) return dx < dy ? -1 : 1;
  return (x > y) - (x < y);
}

/* The kernelseq row that --instance-trace names, or NULL (message printed). */
static krow *instance_row(raptor *R)
{
  int64_t i = R->instance;
  if (i < 0) i += (int64_t)R->nrows;
  if (i < 0 || i >= (int64_t)R->nrows) {
    rpd_fail("--instance-trace %" PRId64 ": the kernelseq table has %zu rows",
             R->instance, R->nrows);
    return NULL;
  }
  if (R->rows[i].key < 0) {
    rpd_fail("--instance-trace %" PRId64 ": row '%s' is an idle-gap row, not a kernel",
             R->instance, R->rows[i].label);
    return NULL;
  }
  return &R->rows[i];
}

static int instance_trace(raptor *R, FILE *f)
{
  krow *x = instance_row(R);
  if (!x) return 1;
  size_t *idx = rpd_xmalloc((R->n ? R->n : 1) * sizeof *idx), n = 0;
  for (size_t j = 0; j < R->n; j++)
    if (R->ops[j].key == x->key) idx[n++] = j;
  dur_cmp_ops = R->ops;
  qsort(idx, n, sizeof *idx, idx_dur_cmp);
  int rc = emit_trace(R, f, NULL, idx, n, R->fmt == RPD_FMT_TABLE);
  free(idx);
  return rc;
}

/* The tables and traces asked for, on stdout (or --op-trace-file). */
static int print_all(raptor *R)
{
  FILE *out = stdout;
  sink k;
  int rc = 0, json = R->fmt == RPD_FMT_JSON, table = R->fmt == RPD_FMT_TABLE;
  int first = 1;
#define SECTION(title, key)                                        \
  do {                                                             \
    if (table) printf("\n%s\n", title);                            \
    else if (json) printf("%s\"%s\": ", first ? "{" : ",\n", key); \
    else if (!first) printf("\n");                                 \
    first = 0;                                                     \
  } while (0)
  if (table) {
    char b[32];
    printf("    Timestamps :\n");
    pretty_ts(b, sizeof b, 0);
    printf("      first    : %s ms\n", b);
    pretty_ts(b, sizeof b, R->last_abs - R->first_abs);
    printf("      last     : %s ms\n", b);
    pretty_ts(b, sizeof b, R->roi_s);
    printf("      roi_start: %s ms\n", b);
    pretty_ts(b, sizeof b, R->roi_e);
    printf("      roi_end  : %s ms\n", b);
    pretty_ts(b, sizeof b, R->roi_e - R->roi_s);
    printf("      roi_dur  : %s ms\n", b);
  } else if (json) {
    SECTION("", "timestamps");
    rc |= emit_timestamps(R, &k, out, NULL);
  }
  if (R->categorize) {
    SECTION("Categories:", "categories");
    rc |= emit_category(R, &k, out, NULL);
  }
  if (R->variability) {
    SECTION("Variability:", "variability");
    rc |= emit_variability(R, &k, out, NULL);
  }
  if (R->gpu_summary) {
    SECTION("GPUs:", "gpus");
    rc |= emit_gpu(R, &k, out, NULL);
  }
  if (R->kernelseq) {
    SECTION("Top Kernels:", "kernelseq");
    if (table) {
      rc |= emit_pretty(R, &k, out, NULL, R->display_rows);
      if (R->display_rows >= 0 && R->nrows > (size_t)R->display_rows)
        printf("... %zu more rows (--display-rows)\n", R->nrows - (size_t)R->display_rows);
    } else {
      rc |= emit_kernelseq(R, &k, out, NULL);
    }
  }
  FILE *tf = out;
  rpd_outfile of = {0};
  int to_file = (R->op_trace || R->have_instance) && R->op_file;
  if (to_file) {
    /* a temp file next to it, renamed into place when complete: a failure
     * or a kill leaves the previous file as it was */
    if (rpd_outfile_begin(&of, R->op_file, R->path) != RPD_OK)
      return rpd_fail("cannot write '%s': %s", R->op_file, rpd_errmsg());
    fprintf(stderr, "info: writing results to %s\n", R->op_file);
    tf = of.fp;
  }
  if (R->op_trace) {
    if (!to_file && !table) SECTION("", "op_trace");
    rc |= emit_trace(R, tf, NULL, NULL, R->n, table);
  }
  if (R->have_instance) {
    if (!to_file && !table) SECTION("", "instances");
    int e = instance_trace(R, tf);
    if (e) {
      if (to_file) rpd_outfile_abort(&of);
      if (json && !first) printf("[]}\n");
      return e;
    }
  }
  if (to_file) {
    if (rc || ferror(tf)) {
      rpd_outfile_abort(&of);
      rc |= rpd_fail("cannot write '%s'", R->op_file);
    } else if (rpd_outfile_commit(&of) != RPD_OK) {
      rc |= rpd_fail("cannot write '%s': %s", R->op_file, rpd_errmsg());
    }
  }
  if (json && !first) printf("}\n");
#undef SECTION
  if (rpd_finish_stdout() != RPD_OK)
    return rpd_fail("%s", rpd_errmsg());
  return rc ? 1 : 0;
}

/* ------------------------------------------------------------ options */

enum {
  O_CAT = 1, O_CATJSON, O_LAT, O_VAR, O_KSEQ, O_KSEQLEN, O_GAPS, O_Z, O_OPTRACE,
  O_OPFILE, O_WIDTH, O_INST, O_RSTART, O_REND, O_AUTO, O_TRIM, O_GPU, O_DCOLS,
  O_DROWS, O_FDIG, O_XLS, O_XLSOP, O_FORMAT, O_SAVE, O_GPUSUM,
};

static const struct opt {
  const char *name;
  char shrt;
  int arg;
  int id;
} opts[] = {
  {"categorize", 'c', 0, O_CAT}, {"category-json", 'C', 1, O_CATJSON},
  {"category-latency-ns", 'l', 1, O_LAT}, {"variability", 'v', 0, O_VAR},
  {"kernelseq", 'k', 0, O_KSEQ}, {"kernelseq-len", 0, 1, O_KSEQLEN},
  {"prekernel-seq", 0, 1, O_KSEQLEN}, {"gaps", 0, 2, O_GAPS},
  {"zscore_threshold", 'z', 1, O_Z}, {"zscore-threshold", 0, 1, O_Z},
  {"op-trace", 'o', 0, O_OPTRACE}, {"op-trace-file", 0, 1, O_OPFILE},
  {"op-trace-cmd-width", 'W', 1, O_WIDTH}, {"instance-trace", 'i', 1, O_INST},
  {"roi-start", 's', 1, O_RSTART}, {"roi-end", 'e', 1, O_REND},
  {"auto-roi-top", 0, 0, O_AUTO}, {"roi-trim", 0, 0, O_TRIM},
  {"gpu-id", 0, 1, O_GPU}, {"display-cols", 0, 1, O_DCOLS},
  {"display-rows", 0, 1, O_DROWS}, {"float-digits", 0, 1, O_FDIG},
  {"write-xls", 'x', 0, O_XLS}, {"write-xls-op-trace", 0, 0, O_XLSOP},
  {"format", 0, 1, O_FORMAT}, {"save", 0, 0, O_SAVE},
  {"gpu-summary", 0, 0, O_GPUSUM},
};
#define NOPTS ((int)(sizeof opts / sizeof *opts))

static int parse_i64(const char *s, int64_t *v)
{
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (!*s || *end || errno) return -1;
  *v = x;
  return 0;
}

static int parse_int(const char *s, int *v, int lo)
{
  int64_t x;
  if (parse_i64(s, &x) || x < lo || x > INT32_MAX) return -1;
  *v = (int)x;
  return 0;
}

static int int_cmp(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static int apply_opt(raptor *R, const struct opt *o, const char *val)
{
  int64_t x;
  switch (o->id) {
  case O_CAT: R->categorize = 1; break;
  case O_CATJSON: R->cat_file = val; break;
  case O_LAT:
    if (parse_i64(val, &R->latency_ns))
      return rpd_usage_error("bad --category-latency-ns '%s'", val);
    break;
  case O_VAR: R->variability = 1; break;
  case O_KSEQ: R->kernelseq = 1; break;
  case O_KSEQLEN:
    if (parse_int(val, &R->seqlen, 0) || R->seqlen > 1000)
      return rpd_usage_error("bad --kernelseq-len '%s' (0..1000)", val);
    break;
  case O_Z: {
    char *end;
    R->zthr = strtod(val, &end);
    if (!*val || *end || isnan(R->zthr))
      return rpd_usage_error("bad --zscore_threshold '%s'", val);
    break;
  }
  case O_OPTRACE: R->op_trace = 1; break;
  case O_OPFILE: R->op_file = val; break;
  case O_WIDTH:
    if (parse_int(val, &R->op_width, 0))
      return rpd_usage_error("bad --op-trace-cmd-width '%s'", val);
    break;
  case O_INST:
    if (parse_i64(val, &R->instance))
      return rpd_usage_error("bad --instance-trace '%s'", val);
    R->have_instance = 1;
    break;
  case O_RSTART: R->roi_start_s = val; break;
  case O_REND: R->roi_end_s = val; break;
  case O_AUTO: R->auto_roi = 1; break;
  case O_TRIM: R->roi_trim = 1; break;
  case O_GPU:
    if (parse_i64(val, &x) || x < -1 || x > INT32_MAX)
      return rpd_usage_error("bad --gpu-id '%s'", val);
    R->gpu_id = x;
    break;
  case O_DCOLS:
    if (parse_int(val, &R->display_cols, 0))
      return rpd_usage_error("bad --display-cols '%s'", val);
    break;
  case O_DROWS:
    if (parse_int(val, &R->display_rows, 0))
      return rpd_usage_error("bad --display-rows '%s'", val);
    break;
  case O_FDIG:
    if (parse_int(val, &R->float_digits, 0) || R->float_digits > 17)
      return rpd_usage_error("bad --float-digits '%s' (0..17)", val);
    break;
  case O_XLS: R->write_xls = 1; break;
  case O_XLSOP: R->xls_op_trace = R->write_xls = 1; break;
  case O_FORMAT:
    if (rpd_fmt_parse(val, &R->fmt) != RPD_OK)
      return rpd_usage_error("bad --format '%s' (table, csv, json)", val);
    break;
  case O_SAVE: R->save = 1; break;
  case O_GPUSUM: R->gpu_summary = 1; break;
  }
  return 0;
}

static const struct opt *find_long(const char *name, size_t len, int *ambiguous)
{
  const struct opt *hit = NULL;
  *ambiguous = 0;
  for (int i = 0; i < NOPTS; i++)
    if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0)
      return &opts[i];
  for (int i = 0; i < NOPTS; i++) {
    if (strncmp(opts[i].name, name, len) != 0) continue;
    if (hit && hit->id != opts[i].id) { *ambiguous = 1; return NULL; }
    hit = &opts[i];
  }
  return hit;
}

/* --gaps takes one or more integers */
static int take_gaps(raptor *R, int argc, char **argv, int *i, const char *first)
{
  free(R->gaps);
  R->gaps = NULL;
  R->ngaps = 0;
  int64_t x;
  const char *v = first;
  for (;;) {
    if (!v) {
      if (*i + 1 >= argc || parse_i64(argv[*i + 1], &x)) break;
      v = argv[++*i];
    }
    if (parse_i64(v, &x) || x <= 0 || x > INT32_MAX / 2)
      return rpd_usage_error("bad --gaps value '%s' (positive us)", v);
    R->gaps = rpd_xrealloc(R->gaps, (R->ngaps + 1) * sizeof *R->gaps);
    R->gaps[R->ngaps++] = (int)x;
    v = NULL;
  }
  if (!R->ngaps) return rpd_usage_error("--gaps needs at least one value");
  qsort(R->gaps, R->ngaps, sizeof *R->gaps, int_cmp);
  int k = 1;
  for (int j = 1; j < R->ngaps; j++)
    if (R->gaps[j] != R->gaps[k - 1]) R->gaps[k++] = R->gaps[j];
  R->ngaps = k;
  return 0;
}

static int parse_args(raptor *R, int argc, char **argv)
{
  int nomore = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!nomore && strcmp(a, "--") == 0) { nomore = 1; continue; }
    if (nomore || a[0] != '-' || a[1] == 0) {
      if (R->path) return rpd_usage_error("unexpected argument '%s'", a);
      R->path = a;
      continue;
    }
    rpd_buf_printf(&R->optstr, "%s%s", R->optstr.len ? " " : "", a);
    if (a[1] == '-') {
      const char *eq = strchr(a + 2, '=');
      size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
      int amb;
      const struct opt *o = find_long(a + 2, len, &amb);
      if (amb) return rpd_usage_error("ambiguous option '%.*s'", (int)len + 2, a);
      if (!o) return rpd_usage_error("unknown option '%.*s'", (int)len + 2, a);
      if (o->arg == 0) {
        if (eq) return rpd_usage_error("option '--%s' takes no value", o->name);
        if (apply_opt(R, o, NULL)) return 2;
      } else if (o->arg == 2) {
        int rc = take_gaps(R, argc, argv, &i, eq ? eq + 1 : NULL);
        if (rc) return rc;
      } else {
        const char *v = eq ? eq + 1 : NULL;
        if (!v) {
          if (i + 1 >= argc) return rpd_usage_error("option '--%s' needs a value", o->name);
          v = argv[++i];
          rpd_buf_printf(&R->optstr, " %s", v);
        }
        if (apply_opt(R, o, v)) return 2;
      }
      continue;
    }
    for (const char *p = a + 1; *p; p++) {
      const struct opt *o = NULL;
      for (int j = 0; j < NOPTS; j++)
        if (opts[j].shrt == *p) o = &opts[j];
      if (!o) return rpd_usage_error("unknown option '-%c'", *p);
      if (!o->arg) {
        if (apply_opt(R, o, NULL)) return 2;
        continue;
      }
      const char *v = p[1] ? p + 1 : NULL;
      if (v && *v == '=') v++;
      if (!v) {
        if (i + 1 >= argc) return rpd_usage_error("option '-%c' needs a value", *p);
        v = argv[++i];
        rpd_buf_printf(&R->optstr, " %s", v);
      }
      if (apply_opt(R, o, v)) return 2;
      break;
    }
  }
  if (!R->path) return rpd_usage_error("missing FILE");
  return 0;
}

/* ------------------------------------------------------------ main */

static void raptor_free(raptor *R)
{
  category_list_free(R->cats, R->ncats);
  free(R->catname);
  for (size_t i = 0; i < R->nnames; i++) free(R->names[i]);
  free(R->names);
  free(R->name_cat);
  free(R->name_slots.v);
  free(R->ops);
  free(R->keyk);
  free(R->ks);
  free(R->key_slots.v);
  free(R->rows);
  if (R->gap_labels)
    for (int i = 0; i <= R->ngaps; i++) free(R->gap_labels[i]);
  free(R->gap_labels);
  free(R->crows);
  free(R->grows);
  free(R->gaps);
  rpd_buf_free(&R->optstr);
}

static void make_gap_labels(raptor *R)
{
  int n = R->ngaps;
  R->gap_labels = rpd_xcalloc(n + 1, sizeof *R->gap_labels);
  R->gap_labels[0] = rpd_xasprintf("GAP <=%dus", R->gaps[0]);
  for (int i = 1; i < n; i++)
    R->gap_labels[i] = rpd_xasprintf("GAP %dus-%dus", R->gaps[i - 1], R->gaps[i]);
  R->gap_labels[n] = rpd_xasprintf("GAP >%dus", R->gaps[n - 1]);
}

int main(int argc, char **argv)
{
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) break;
    if (strcmp(argv[i], "--report") == 0) return raptor_report_main(argc, argv);
  }
  if (rpd_cli_init(argc, argv, usage)) return 0;
  raptor R;
  memset(&R, 0, sizeof R);
  R.seqlen = 2;
  R.zthr = -1;
  R.gpu_id = -1;
  R.display_cols = 60;
  R.display_rows = 500;
  R.float_digits = 1;
  R.fmt = RPD_FMT_TABLE;
  int saved = 0;
  int ret = parse_args(&R, argc, argv);
  if (ret) goto done;
  if (!R.gaps) {
    R.ngaps = (int)(sizeof default_gaps / sizeof *default_gaps);
    R.gaps = rpd_xmalloc(sizeof default_gaps);
    memcpy(R.gaps, default_gaps, sizeof default_gaps);
  }
  make_gap_labels(&R);
  if (!R.op_trace && !R.kernelseq && !R.categorize && !R.have_instance &&
      !R.write_xls && !R.variability && !R.gpu_summary) {
    if (R.fmt == RPD_FMT_TABLE)
      printf("info: setting --kernelseq --categorize --variability\n");
    R.kernelseq = R.categorize = R.variability = 1;
  }
  if ((ret = categories_load(&R))) goto done;
  if (rpd_open_or_report(&R.r, R.path, NULL, R.save ? RPD_WRITE : RPD_READ) != RPD_OK) {
    ret = 1;
    goto done;
  }
  /* the work is sequential scans: a small page cache keeps the RSS down */
  if (!R.save && rpd_exec(R.r, "PRAGMA cache_size=-4096") != RPD_OK) {
    ret = rpd_fail("cannot read '%s': %s", R.path, rpd_errmsg());
    goto done;
  }
  if ((ret = check_outputs(&R))) goto done;
  if ((ret = setup_roi(&R))) goto done;
  if (R.have_instance && !instance_row(&R)) {  /* refuse before saving */
    ret = 1;
    goto done;
  }
  if (R.save) {
    if (save_results(&R) == RPD_OK) {
      saved = 1;
    } else {
      ret = rpd_fail("cannot save results into '%s': %s", R.path, rpd_errmsg());
      goto done;
    }
  }
  ret = print_all(&R);
  if (!ret && R.write_xls) ret = write_xls(&R);
done:
  if (R.r) {
    if (rpd_close(R.r, saved) != RPD_OK && saved && !ret)
      ret = rpd_fail("cannot write '%s': %s", R.path, rpd_errmsg());
  }
  raptor_free(&R);
  return ret;
}
