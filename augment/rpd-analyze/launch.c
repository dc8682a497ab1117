/* launch.c - rpd-analyze's launch statistics: each kernel dispatch's
 * values (api duration, launch delay, GPU time) into a bounded sort, the
 * sums as they come, then per kernel the nearest-rank median and p95
 * picked from the sorted values (ext_analysis_launch). */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "util/map.h"

/* One value of one metric of one kernel dispatch, in (kernel, metric,
 * value) order: the values of each kernel and metric come sorted, so the
 * nearest-rank median and p95 are picked as they go by.  The kernel is
 * its index in the table of kernels (an_kernels.ks) and makes one key with the
 * metric. */
typedef struct kval {
  uint64_t key;                /* kernel index << 2 | metric */
  int64_t v;
} kval;

static int kval_cmp(const void *pa, const void *pb)
{
  const kval *a = pa, *b = pb;
  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  return a->v < b->v ? -1 : a->v > b->v;
}
XSORT_MERGE_DEFINE(kval_merge, kval, kval_cmp)

/* The kernels' values come in no order: radix-sorted on (key, v), v in
 * signed order. */
static void kval_sort(void *base, size_t n)
{
  static const uint64_t flip[2] = {0, (uint64_t)1 << 63};
  an_radix_words(base, n, 2, flip);
}

/* Most values, and keys, fit one word: the key in the top PK_KEY_BITS
 * bits, the value plus PK_BIAS in the rest, so that the word's unsigned
 * order is the (key, v) order and the sort moves half the bytes (a key
 * of 2^20 or more, or a value of 2^43 ns or more either way, goes to the
 * sort of kvals; the two sorted streams are merged as they are read). */
#define PK_KEY_BITS 20
#define PK_VAL_BITS (64 - PK_KEY_BITS)
#define PK_BIAS ((int64_t)1 << (PK_VAL_BITS - 1))

static int pk_cmp(const void *pa, const void *pb)
{
  uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  return a < b ? -1 : a > b;
}

static void pk_sort(void *base, size_t n)
{
  static const uint64_t flip[1] = {0};
  an_radix_words(base, n, 1, flip);
}

static int pk_fits(const kval *kv)
{
  return kv->key >> PK_KEY_BITS == 0 && kv->v >= -PK_BIAS && kv->v < PK_BIAS;
}

static uint64_t pk_of(const kval *kv)
{
  return kv->key << PK_VAL_BITS | (uint64_t)(kv->v + PK_BIAS);
}

static kval pk_kval(uint64_t w)
{
  kval kv = {w >> PK_VAL_BITS, (int64_t)(w & (((uint64_t)1 << PK_VAL_BITS) - 1)) - PK_BIAS};
  return kv;
}

/* A metric of one kernel: its values counted (n), summed and the largest;
 * then its median and p95 (a rank's value, when there is one). */
typedef struct kmetric {
  int64_t n, sum, max;
  int64_t med, p95;
  int has_med, has_p95;
} kmetric;

typedef struct kstat {
  int64_t did, count, outliers;
  kmetric m[NMETRICS];
} kstat;

static void bind_rank(sqlite3_stmt *st, int col, int has, int64_t v)
{
  if (!has)
    sqlite3_bind_null(st, col);
  else
    sqlite3_bind_int64(st, col, v);
}

/* Write one kernel's row to temp.an_kr, as its row number rowid. */
static int kstat_write(rpd *r, sqlite3_stmt *ins, const kstat *k, int64_t rowid)
{
  int col = 1, s;
  sqlite3_reset(ins);
  sqlite3_bind_int64(ins, col++, rowid);
  sqlite3_bind_int64(ins, col++, k->did);
  sqlite3_bind_int64(ins, col++, k->count);
  for (int m = 0; m < NMETRICS; m++) {
    const kmetric *km = &k->m[m];
    /* avg() and max() of the non-NULL values (NULL when none): the sum is
     * exact, so the mean is the one SQLite's avg() gives below 2^53 */
    if (km->n)
      sqlite3_bind_double(ins, col++, (double)km->sum / (double)km->n);
    else
      sqlite3_bind_null(ins, col++);
    bind_rank(ins, col++, km->has_med, km->med);
    bind_rank(ins, col++, km->has_p95, km->p95);
    bind_rank(ins, col++, km->n > 0, km->max);
  }
  sqlite3_bind_int64(ins, col++, k->outliers);
  sqlite3_bind_int64(ins, col++, k->m[M_GPU].sum);
  s = rpd_step(r, ins);
  return s < 0 ? -s : RPD_OK;
}

/* Per kernel (description id): count, and mean, nearest-rank median and
 * p95 (the value at rank (n+1)/2 and (95n+99)/100 of the n sorted values)
 * and max of each metric; outliers = dispatches longer than 3x the median
 * GPU duration.  One scan of the kernels into a bounded sort (xsort.h);
 * the per-kernel rows go to temp.an_kr numbered in description-id order
 * (the order in which the statement that orders them into
 * ext_analysis_launch reads them, which ties keep). */
static const char kr_sql[] =
  "DROP TABLE IF EXISTS temp.an_kr;"
  "CREATE TEMP TABLE an_kr (did INTEGER, n INTEGER,"
  " am REAL, amed INTEGER, ap95 INTEGER, ax INTEGER,"
  " dm REAL, dmed INTEGER, dp95 INTEGER, dx INTEGER,"
  " gm REAL, gmed INTEGER, gp95 INTEGER, gx INTEGER, outliers INTEGER, gs INTEGER);";

static const char launch_insert_sql[] =
  "INSERT INTO ext_analysis_launch SELECT coalesce(S.string, ''), k.n,"
  " k.am, k.amed, k.ap95, k.ax, k.dm, k.dmed, k.dp95, k.dx, k.gm, k.gmed, k.gp95, k.gx,"
  " k.outliers, coalesce(k.gm < k.am, 0)"
  " FROM an_kr k LEFT JOIN rocpd_string S ON S.id = k.did"
  " ORDER BY k.gs DESC, S.string;"
  "DROP TABLE temp.an_kr;";

/* The kernels of the op scan: their values' sorts (one word a value,
 * kvals for the values that do not fit one) and their sums. */
struct an_kernels {
  xsort *x, *wide;
  rpd_i64map at;               /* description id -> index in ks */
  kstat *ks;
  size_t nk, cap;
  /* reading: the next record of each sort (got as xsort_next), which one
   * the last value came from (1 x, 2 wide), the value */
  const void *px, *pw;
  int gx, gw, last;
  kval cur;
  size_t added, taken;         /* values added, values read */
};

/* The next value of the two sorts' merge into *v (valid until the next
 * call): 1, 0 at the end, or minus an error code. */
static int kv_next(an_kernels *sc, const kval **v)
{
  kval a;
  if (sc->last == 1)
    sc->gx = xsort_next(sc->x, &sc->px);
  else if (sc->last == 2)
    sc->gw = xsort_next(sc->wide, &sc->pw);
  an_progress("kernel statistics", sc->taken, sc->added);
  if (sc->gx < 0 || sc->gw < 0)
    return sc->gx < 0 ? sc->gx : sc->gw;
  if (sc->gx > 0) {
    a = pk_kval(*(const uint64_t *)sc->px);
    if (sc->gw <= 0 || kval_cmp(&a, sc->pw) <= 0) {
      sc->cur = a;
      sc->last = 1;
      sc->taken++;
      *v = &sc->cur;
      return 1;
    }
  }
  if (sc->gw <= 0)
    return 0;
  sc->cur = *(const kval *)sc->pw;
  sc->last = 2;
  sc->taken++;
  *v = &sc->cur;
  return 1;
}

/* Rank the sorted values of kernel index `idx` (k) from *p on; *got as
 * xsort_next.  The counts and sums of k were added up in the scan. */
static void kstat_rank(an_kernels *sc, kstat *k, uint64_t idx, const kval **p, int *got)
{
  int64_t rank = 0;
  int metric = -1;
  kmetric *km = NULL;
  while (*got > 0) {
    const kval *v = *p;
    if (v->key >> 2 != idx)
      break;
    if ((int)(v->key & 3) != metric) {
      metric = (int)(v->key & 3);
      km = &k->m[metric];
      rank = 0;
    }
    rank++;
    /* every dispatch has a GPU duration; the api and delay rank the
     * dispatches that have them */
    int64_t n = km->n;
    if (rank == (n + 1) / 2) {
      km->has_med = 1;
      km->med = v->v;
    }
    if (rank == (95 * n + 99) / 100) {
      km->has_p95 = 1;
      km->p95 = v->v;
    }
    /* values after the median are at least the median: an outlier is one
     * past 3x it (exact, no overflow) */
    if (metric == M_GPU && km->has_med && (__int128)v->v > (__int128)3 * km->med)
      k->outliers++;
    *got = kv_next(sc, p);
  }
}

an_kernels *an_kernels_new(size_t sort_bytes)
{
  an_kernels *k = rpd_xcalloc(1, sizeof *k);
  k->x = xsort_new(sizeof(uint64_t), pk_cmp, pk_sort, sort_bytes);
  /* its buffer is made by the first value that does not fit one word */
  k->wide = xsort_new(sizeof(kval), kval_cmp, kval_sort, sort_bytes / 4);
  xsort_set_words(k->x);
  xsort_set_merge(k->wide, kval_merge);
  return k;
}

void an_kernels_free(an_kernels *k)
{
  if (!k)
    return;
  xsort_free(k->x);
  xsort_free(k->wide);
  rpd_i64map_free(&k->at);
  free(k->ks);
  free(k);
}

/* One kernel dispatch of the op scan (its description id not NULL): the
 * count, sum and max of each metric and its values into the sort.  has[m]
 * says metric m has a value (api: a launch call of its own; delay: a
 * launch call; the GPU time always). */
int an_kernels_add(an_kernels *sc, int64_t did, const int64_t v[NMETRICS],
                   const int has[NMETRICS])
{
  int found, rc = RPD_OK;
  int64_t i = *rpd_i64map_ref(&sc->at, did, (int64_t)sc->nk, &found);
  if (!found) {
    if (sc->nk == sc->cap) {
      sc->cap = sc->cap ? 2 * sc->cap : 64;
      sc->ks = rpd_xrealloc(sc->ks, sc->cap * sizeof *sc->ks);
    }
    memset(&sc->ks[sc->nk], 0, sizeof *sc->ks);
    sc->ks[sc->nk++].did = did;
  }
  sc->ks[i].count++;
  for (int m = 0; !rc && m < NMETRICS; m++) {
    kval kv = {(uint64_t)i << 2 | (uint64_t)m, v[m]};
    kmetric *km = &sc->ks[i].m[m];
    if (!has[m])
      continue;
    if (!km->n || kv.v > km->max)
      km->max = kv.v;
    km->n++;
    km->sum += kv.v;
    sc->added++;
    if (pk_fits(&kv)) {
      uint64_t w = pk_of(&kv);
      rc = xsort_add(sc->x, &w);
    } else {
      rc = xsort_add(sc->wide, &kv);
    }
  }
  return rc;
}

/* A kernel's description id and index in ks, sorted by the id for the
 * row numbers of an_kr. */
typedef struct did_idx {
  int64_t did;
  size_t idx;
} did_idx;

static int did_idx_cmp(const void *pa, const void *pb)
{
  const did_idx *a = pa, *b = pb;
  return a->did < b->did ? -1 : a->did > b->did;
}

int an_kernels_write(rpd *r, an_kernels *sc)
{
  sqlite3_stmt *ins = NULL;
  const kval *p;
  int got = 0;
  did_idx *order = rpd_xmalloc((sc->nk + 1) * sizeof *order);
  int64_t *rowid = rpd_xmalloc((sc->nk + 1) * sizeof *rowid);
  int rc = rpd_exec(r, kr_sql);
  for (size_t i = 0; i < sc->nk; i++)
    order[i] = (did_idx){sc->ks[i].did, i};
  qsort(order, sc->nk, sizeof *order, did_idx_cmp);
  for (size_t i = 0; i < sc->nk; i++)
    rowid[order[i].idx] = (int64_t)i + 1;
  if (!rc)
    rc = rpd_prepare(r, "INSERT INTO an_kr(rowid, did, n, am, amed, ap95, ax, dm, dmed, dp95,"
                        " dx, gm, gmed, gp95, gx, outliers, gs)"
                        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &ins);
  if (!rc)
    rc = xsort_done(sc->x);
  if (!rc)
    rc = xsort_done(sc->wide);
  if (!rc) {
    sc->gx = xsort_next(sc->x, &sc->px);
    sc->gw = xsort_next(sc->wide, &sc->pw);
  }
  if (!rc && (got = kv_next(sc, &p)) < 0)
    rc = -got;
  while (!rc && got > 0) {
    uint64_t idx = p->key >> 2;
    if (idx >= sc->nk) {
      rc = rpd_seterr(RPD_ERR, "internal error: a kernel the scan did not count");
      break;
    }
    kstat_rank(sc, &sc->ks[idx], idx, &p, &got);
    if (got < 0)
      rc = -got;
    if (!rc)
      rc = kstat_write(r, ins, &sc->ks[idx], rowid[idx]);
  }
  sqlite3_finalize(ins);
  free(order);
  free(rowid);
  if (!rc)
    rc = rpd_exec(r, launch_insert_sql);
  return rc;
}

