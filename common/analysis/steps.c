/* steps.c - the steps of a loop (steps.h, docs/steps.md). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "opclass.h"
#include "steps.h"
#include "intscan.h"
#include "util/map.h"

/* ------------------------------------------------------------ markers */

/* The step number of a marker text: its trailing digits (ProfilerStep#12
 * -> 12), -1 when it has none or too many. */
static int64_t trailing_number(const char *s, size_t len)
{
  size_t i = len;
  while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
    i--;
  if (i == len || len - i > 18)
    return -1;
  int64_t v = 0;
  for (; i < len; i++)
    v = v * 10 + (s[i] - '0');
  return v;
}

/* Append a step [start, end) numbered num to st. */
static void add_step(rpd_steps *st, size_t *cap, int64_t num, int64_t start, int64_t end)
{
  if (st->n == *cap) {
    *cap = *cap ? 2 * *cap : 64;
    st->s = rpd_xrealloc(st->s, *cap * sizeof *st->s);
  }
  st->s[st->n++] = (rpd_step_row){ .step = num, .start = start, .end = end };
}

/* A matching marker, before the markers are put in time order. */
typedef struct marker {
  int64_t start, end, id, num;
} marker;

static int cmp_marker(const void *a, const void *b)
{
  const marker *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* The marker ranges whose text matches re: the whole text, or the name
 * before ", " of an autograd-formatted marker ("ProfilerStep#3, op_id = 7").
 * Numbered by their trailing digits when every one has them.  Only the
 * matches are sorted (by start, then id): every op of a Kineto import is
 * a marker, and SQLite would sort them all with their texts. */
static int find_markers(rpd *r, const rpd_regex *re, rpd_steps *st)
{
  char *sql = sqlite3_mprintf(
    "SELECT A.start, A.end, G.string, A.id FROM rocpd_api A JOIN \"%w\" G ON G.id = A.args_id"
    " WHERE A.apiName_id IN (SELECT id FROM rocpd_string WHERE string = 'UserMarker')"
    " AND typeof(A.start) = 'integer' AND typeof(A.end) = 'integer' AND A.end >= A.start",
    rpd_args_table(r));
  sqlite3_stmt *q = NULL;
  size_t cap = 0, n = 0, mcap = 0;
  marker *m = NULL;
  rpd_buf name = {0};
  int rc = rpd_prepare(r, sql, &q), s, numbered = 1;
  sqlite3_free(sql);
  while (!rc && (s = rpd_step(r, q)) == SQLITE_ROW) {
    const char *text = (const char *)sqlite3_column_text(q, 2);
    if (!text)
      continue;
    const char *comma = strstr(text, ", ");
    size_t len = strlen(text);
    int hit = rpd_regex_search(re, text);
    if (hit == 0 && comma) {
      rpd_buf_reset(&name);
      rpd_buf_add(&name, text, (size_t)(comma - text));
      hit = rpd_regex_search(re, name.s);
      len = (size_t)(comma - text);
    }
    if (hit < 0) {        /* a search PCRE2 could not finish: an error */
      rc = -hit;
      break;
    }
    if (!hit)
      continue;
    if (n == mcap) {
      mcap = mcap ? 2 * mcap : 64;
      m = rpd_xrealloc(m, mcap * sizeof *m);
    }
    m[n++] = (marker){ .start = sqlite3_column_int64(q, 0), .end = sqlite3_column_int64(q, 1),
                       .id = sqlite3_column_int64(q, 3), .num = trailing_number(text, len) };
    numbered &= m[n - 1].num >= 0;
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(q);
  rpd_buf_free(&name);
  if (n)
    qsort(m, n, sizeof *m, cmp_marker);
  for (size_t i = 0; !rc && i < n; i++)
    add_step(st, &cap, numbered ? m[i].num : (int64_t)i, m[i].start, m[i].end);
  free(m);
  return rc;
}

/* ------------------------------------------------------------ period */

/* The period is found in one pass over the sequence, in memory of the
 * distinct names (not of the sequence: a GPU of a long capture runs
 * millions of kernels): per name, what the rule of steps.h looks at. */
typedef struct name_runs {
  int64_t name;
  size_t count, first, second, prev, last;
  size_t lo, hi;       /* the distances after the first: least, most */
} name_runs;

typedef struct period_acc {
  rpd_i64map at;       /* name -> index in runs */
  name_runs *runs;
  size_t nruns, cap, n;
} period_acc;

/* Name `name` at position acc->n of the sequence. */
static void period_add(period_acc *acc, int64_t name)
{
  int found = 0;
  int64_t *slot = rpd_i64map_ref(&acc->at, name, (int64_t)acc->nruns, &found);
  size_t i = acc->n++;

  if (!found) {
    if (acc->nruns == acc->cap) {
      acc->cap = acc->cap ? 2 * acc->cap : 64;
      acc->runs = rpd_xrealloc(acc->runs, acc->cap * sizeof *acc->runs);
    }
    acc->runs[acc->nruns++] = (name_runs){ .name = name, .count = 1, .first = i, .prev = i,
                                           .last = i, .lo = (size_t)-1 };
    return;
  }
  name_runs *o = &acc->runs[*slot];
  if (o->count == 1) {
    o->second = i;
  } else {
    size_t d = i - o->prev;
    o->lo = d < o->lo ? d : o->lo;
    o->hi = d > o->hi ? d : o->hi;
  }
  o->count++;
  o->prev = o->last = i;
}

/* The period of the sequence added (steps.h), its first whole iteration in
 * *first and the name that marks the iterations in *anchor. */
static int64_t period_of(const period_acc *acc, size_t *first, int64_t *anchor)
{
  const name_runs *best = NULL;

  for (size_t k = 0; k < acc->nruns; k++) {
    const name_runs *o = &acc->runs[k];
    if (o->count < 3)
      continue;
    /* every distance after the first within 10% of each other; the first
     * (warm-up may add kernels) no shorter than 90% of the shortest; the
     * runs span at least half the sequence */
    size_t d0 = o->second - o->first, span = o->last - o->first + o->hi;
    int regular = o->hi * 10 <= o->lo * 11 && d0 * 10 >= o->lo * 9 && o->lo >= 2 &&
                  2 * span >= acc->n;
    if (regular && (!best || o->count < best->count ||
                    (o->count == best->count && o->first < best->first)))
      best = o;
  }
  if (!best)
    return 0;
  *first = best->first;
  *anchor = best->name;
  /* the mean distance after the first (which warm-up may lengthen) */
  return (int64_t)((best->last - best->second + (best->count - 2) / 2) / (best->count - 2));
}

static void period_free(period_acc *acc)
{
  rpd_i64map_free(&acc->at);
  free(acc->runs);
  memset(acc, 0, sizeof *acc);
}

/* The period of a kernel-name sequence (steps.h). */
int64_t rpd_steps_period(const int64_t *seq, size_t n, size_t *first)
{
  period_acc acc = {0};
  int64_t anchor = 0, p;

  for (size_t i = 0; i < n; i++)
    period_add(&acc, seq[i]);
  p = period_of(&acc, first, &anchor);
  period_free(&acc);
  return p;
}

/* The GPU whose kernel sequence is read: gpu, or (-1) the GPU with the
 * most kernels; -1 in *pick when there are no kernels. */
static int pick_gpu(rpd *r, const char *kern, int gpu, int64_t *pick)
{
  *pick = gpu;
  if (gpu >= 0)
    return RPD_OK;
  /* counted here over one read in C (rpd_intscan) when the GPU ids and
   * opTypes are integers and the GPUs few (the query's GROUP BY sorts
   * every kernel); else by the query */
  enum { FEW = 64 };
  int64_t id[FEW], n[FEW];
  int ng = 0, plain = 1, s = 0;
  const int64_t *v = NULL;
  unsigned ints = 0;
  rpd_intscan sc;
  const rpd_opclass_map *m = rpd_opclass_now(r);
  int rc = RPD_OK;
  if (!m || rpd_intscan_open(r, &sc, "SELECT 1 FROM rocpd_op WHERE rpd_intscan(?1, gpuId,"
                             " opType_id)", 2, 3u)) {
    rpd_clearerr();   /* the query meets it again */
    plain = 0;
    memset(&sc, 0, sizeof sc);
  }
  while (plain && (s = rpd_intscan_row(r, &sc, &v, &ints)) == 1) {
    /* a value that is not an integer: the query compares it as SQLite does */
    int kernel = (ints & 2u) && rpd_opclass_of(m, v[1]) == RPD_OPCLASS_KERNEL;
    if (!(ints & 2u) || (kernel && !(ints & 1u))) {
      plain = 0;
      break;
    }
    if (!kernel)
      continue;
    int64_t g = v[0];
    int i = 0;
    while (i < ng && id[i] != g)
      i++;
    if (i == ng) {
      if (ng == FEW) {
        plain = 0;
        break;
      }
      id[ng] = g;
      n[ng++] = 0;
    }
    n[i]++;
  }
  rpd_intscan_close(&sc);
  if (s < 0)
    return -s;
  if (plain) {   /* the most kernels, then the lowest id; -1 when none */
    int best = -1;
    for (int i = 0; i < ng; i++)
      if (best < 0 || n[i] > n[best] || (n[i] == n[best] && id[i] < id[best]))
        best = i;
    *pick = best < 0 ? -1 : id[best];
    return RPD_OK;
  }
  char *sql = rpd_xasprintf("SELECT coalesce((SELECT gpuId FROM rocpd_op O WHERE %s"
                            " GROUP BY gpuId ORDER BY count(*) DESC, gpuId LIMIT 1), -1)", kern);
  rc = rpd_query_int64(r, sql, pick);
  free(sql);
  return rc;
}

/* The kernels of GPU g by (start, id), as (name, start, end) rows: in rowid
 * order (sorted = 0), which is that order when the GPU's kernels were
 * written as they ran (no sort), else sorted by SQLite.  The rowid order
 * is read in C (rpd_intscan: a batch per step, or the table's pages read
 * directly) when in_c, while every op's opType and every kernel's gpuId is
 * an integer (then the filters below are the query's comparisons). */
typedef struct kread {
  sqlite3_stmt *q;
  rpd_intscan sc;
  const rpd_opclass_map *m;
  int64_t g;
  int in_c;
} kread;

enum { KREAD_SQL = 2 };   /* kread_next: a value the C read cannot compare */

static int kread_open(rpd *r, const char *kern, int64_t g, int sorted, int in_c, kread *k)
{
  memset(k, 0, sizeof *k);
  k->g = g;
  k->in_c = in_c && !sorted;
  if (k->in_c) {
    /* a table the scan cannot read in id order (no rowid id: ORDER BY id
     * sorts) goes to the query */
    static const char sql[] = "SELECT 1 FROM rocpd_op WHERE rpd_intscan(?1, description_id,"
                              " start, end, gpuId, opType_id) ORDER BY id";
    int sorts = 1;
    k->m = rpd_opclass_now(r);
    if (k->m && !rpd_plan_sorts(r, sql, &sorts) && !sorts &&
        !rpd_intscan_open(r, &k->sc, sql, 5, 0x1eu))
      return RPD_OK;
    rpd_clearerr();
    k->in_c = 0;
  }
  char *sql = rpd_xasprintf("SELECT description_id, start, end FROM rocpd_op O"
                            " WHERE %s AND gpuId = ? AND typeof(start) = 'integer'"
                            " AND typeof(end) = 'integer' ORDER BY %s", kern,
                            sorted ? "start, id" : "id");
  int rc = rpd_prepare(r, sql, &k->q);
  free(sql);
  if (!rc)
    sqlite3_bind_int64(k->q, 1, g);
  return rc;
}

/* The next kernel into v[0..2] (name, start, end): 1, 0 at the end,
 * KREAD_SQL (the C read met a value only the query compares), or -rc. */
static int kread_next(rpd *r, kread *k, int64_t v[3])
{
  if (!k->in_c) {
    int s = rpd_step(r, k->q);
    if (s != SQLITE_ROW)
      return s == SQLITE_DONE ? 0 : s < 0 ? s : -RPD_ESQL;
    for (int c = 0; c < 3; c++)
      v[c] = sqlite3_column_int64(k->q, c);
    return 1;
  }
  const int64_t *row = NULL;
  unsigned ints = 0;
  int s;
  while ((s = rpd_intscan_row(r, &k->sc, &row, &ints)) == 1) {
    if (!(ints & 1u << 4))
      return KREAD_SQL;
    if (rpd_opclass_of(k->m, row[4]) != RPD_OPCLASS_KERNEL)
      continue;
    if (!(ints & 1u << 3))
      return KREAD_SQL;
    if (row[3] != k->g || !(ints & 1u << 1) || !(ints & 1u << 2))
      continue;
    v[0] = row[0];
    v[1] = row[1];
    v[2] = row[2];
    return 1;
  }
  return s;
}

static void kread_close(kread *k)
{
  sqlite3_finalize(k->q);
  if (k->in_c)
    rpd_intscan_close(&k->sc);
  memset(k, 0, sizeof *k);
}

/* The period of GPU g's kernel sequence into *acc, read in rowid order
 * or, when a kernel starts before the one before it, sorted (*sorted);
 * *in_c: the rowid order was read in C (kread). */
static int period_pass(rpd *r, const char *kern, int64_t g, period_acc *acc, int *sorted,
                       int *in_c)
{
  int rc = RPD_OK;

  *in_c = 1;
  for (*sorted = 0; !rc && *sorted < 2; ++*sorted) {
    kread k;
    int64_t last = 0, v[3];
    int s = 0, in_order = 1;
    period_free(acc);
    rc = kread_open(r, kern, g, *sorted, *in_c, &k);
    while (!rc && (s = kread_next(r, &k, v)) == 1) {
      if (!*sorted && acc->n && v[1] < last) {
        in_order = 0;
        break;
      }
      last = v[1];
      period_add(acc, v[0]);
    }
    kread_close(&k);
    if (!rc && s == KREAD_SQL) {   /* the same order again, through the query */
      *in_c = 0;
      --*sorted;
      continue;
    }
    if (!rc && s < 0)
      rc = -s;
    if (in_order)
      break;
  }
  if (*sorted)
    *in_c = 0;
  return rc;
}

/* The steps of period p from the kernel at index first (name anchor) of
 * the sequence of n kernels: each from a run of the anchor kernel to its
 * next run (the anchor's runs are at a near-constant distance, so they are
 * walked instead of assuming exact multiples); the last one through its
 * period's last kernel, unless the capture ends inside it (fewer than 90%
 * of a period's kernels: a cut step).  A second read of the same rows. */
static int period_steps(rpd *r, const char *kern, int64_t g, int sorted, int in_c, size_t n,
                        int64_t p, size_t first, int64_t anchor, rpd_steps *st)
{
  kread k;
  size_t i = 0, prev = first, cap_s = 0;
  int64_t prev_start = 0, e = 0;   /* e: the latest end from prev to prev + p - 1 */
  int64_t v[3];
  int s = 0, rc = kread_open(r, kern, g, sorted, in_c, &k);

  for (; !rc && (s = kread_next(r, &k, v)) == 1; i++) {
    int64_t name = v[0], start = v[1], end = v[2];
    if (i < first)
      continue;
    if (i == first || name == anchor) {
      if (i > first)
        add_step(st, &cap_s, (int64_t)st->n, prev_start, start);
      prev = i;
      prev_start = start;
      e = 0;
    }
    if (i < prev + (size_t)p)
      e = end > e ? end : e;
  }
  if (!rc && s < 0)
    rc = -s;
  kread_close(&k);
  /* the same rows as the first read: the caller holds one read */
  if (!rc && (i != n || s == KREAD_SQL))
    rc = rpd_seterr(RPD_ESQL, "the kernels of GPU %lld changed while they were read",
                    (long long)g);
  if (!rc && (n - prev) * 10 >= (size_t)p * 9)
    add_step(st, &cap_s, (int64_t)st->n, prev_start, e);
  return rc;
}

/* Steps from the kernel period of one GPU: the period from one read of
 * its kernels, the steps from a second (memory: the distinct kernel names,
 * not the kernels). */
static int find_period(rpd *r, int gpu, rpd_steps *st)
{
  char *kern = NULL;
  int64_t g = -1, anchor = 0, p = 0;
  period_acc acc = {0};
  size_t first = 0;
  int sorted = 0, in_c = 0, held = 0, rc = rpd_opclass_condition_now(r, "O.opType_id",
                                                           RPD_OPCLASS_BIT(RPD_OPCLASS_KERNEL),
                                                           &kern);

  if (!rc)
    rc = pick_gpu(r, kern, gpu, &g);
  /* both reads in one read transaction (a savepoint starts one, or nests
   * in the caller's): the same rows */
  if (!rc && g >= 0)
    held = !(rc = rpd_exec(r, "SAVEPOINT rpd_steps_period"));
  if (!rc && g >= 0)
    rc = period_pass(r, kern, g, &acc, &sorted, &in_c);
  if (!rc && acc.n)
    p = period_of(&acc, &first, &anchor);
  if (!rc && p > 0) {
    st->period = p;
    rc = period_steps(r, kern, g, sorted, in_c, acc.n, p, first, anchor, st);
  }
  if (held) {
    int rel = rpd_exec(r, "RELEASE rpd_steps_period");
    if (!rc) rc = rel;
  }
  period_free(&acc);
  free(kern);
  return rc;
}

/* ------------------------------------------------------------ busy time */

/* The step holding t (start <= t < end; the first such), or -1. */
static ssize_t step_at(const rpd_steps *st, int64_t t)
{
  size_t lo = 0, hi = st->n;
  while (lo < hi) {      /* first step with start > t */
    size_t mid = (lo + hi) / 2;
    if (st->s[mid].start <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t i = lo; i-- > 0;) {
    if (t < st->s[i].end)
      return (ssize_t)i;
    if (i + 8 < lo)      /* steps do not nest deeply: stop looking back */
      break;
  }
  return -1;
}

/* Add the overlap of [a, b) with every step to their busy time; *j is the
 * first step that can still overlap (steps sorted by start). */
static void add_busy(rpd_steps *st, size_t *j, int64_t a, int64_t b)
{
  while (*j < st->n && st->s[*j].end <= a)
    (*j)++;
  for (size_t i = *j; i < st->n && st->s[i].start < b; i++) {
    int64_t lo = a > st->s[i].start ? a : st->s[i].start;
    int64_t hi = b < st->s[i].end ? b : st->s[i].end;
    if (hi > lo)
      st->s[i].busy += hi - lo;
  }
}

/* The union of the GPU work's intervals clipped to each step, and the
 * kernels starting in each step, from the rows in start order (the order
 * of equal starts changes neither). */
typedef struct sweep {
  int have;
  int64_t cs, ce;           /* the merged interval so far */
  size_t j;                 /* first step that can still overlap */
} sweep;

static void sweep_row(rpd_steps *st, sweep *w, int64_t a, int64_t b, int kernel)
{
  if (kernel) {
    ssize_t k = step_at(st, a);
    if (k >= 0)
      st->s[k].kernels++;
  }
  if (w->have && a <= w->ce) {
    w->ce = b > w->ce ? b : w->ce;
    return;
  }
  if (w->have)
    add_busy(st, &w->j, w->cs, w->ce);
  w->cs = a;
  w->ce = b;
  w->have = 1;
}

/* The GPU work of a trace of up to KEEP_OPS ops is read in table order and
 * put in start order here: the table holds it as a few runs already in
 * that order (tracers and rpd-import write each kind of op as it ran), and
 * merging runs costs a pass per doubling of their number, not a sort of
 * every row.  A larger trace (by max(rowid), or rows met) is sorted by
 * SQLite (memory stays bounded: 48 bytes an op here at most). */
enum { KEEP_OPS = 1 << 19 };

typedef struct wrow {
  int64_t a, b;
  int64_t kernel;
} wrow;

/* Merge the runs of v[0..n) (each in start order; run k starts at
 * runs[k]) into start order; returns v or tmp, whichever holds it. */
static wrow *merge_runs(wrow *v, wrow *tmp, size_t n, size_t *runs, size_t nruns)
{
  while (nruns > 1) {
    size_t out = 0, k = 0;
    for (; k + 1 < nruns; k += 2) {
      size_t lo = runs[k], mid = runs[k + 1], hi = k + 2 < nruns ? runs[k + 2] : n;
      size_t x = lo, y = mid, o = lo;
      while (x < mid && y < hi)
        tmp[o++] = v[y].a < v[x].a ? v[y++] : v[x++];
      while (x < mid)
        tmp[o++] = v[x++];
      while (y < hi)
        tmp[o++] = v[y++];
      runs[out++] = lo;
    }
    if (k < nruns) {   /* an odd run out: copied as it is */
      memcpy(tmp + runs[k], v + runs[k], (n - runs[k]) * sizeof *v);
      runs[out++] = runs[k];
    }
    nruns = out;
    wrow *t = v;
    v = tmp;
    tmp = t;
  }
  return v;
}

/* One pass over the GPU work in start order (sweep_row). */
static int measure(rpd *r, int gpu, rpd_steps *st)
{
  char *work = NULL, *kern = NULL;
  int rc = rpd_opclass_condition_now(r, "O.opType_id", RPD_OPCLASS_GPU_WORK, &work);
  if (!rc)
    rc = rpd_opclass_condition_now(r, "O.opType_id", RPD_OPCLASS_BIT(RPD_OPCLASS_KERNEL),
                                   &kern);
  if (rc) {
    free(work);
    return rc;
  }
  wrow *v = NULL;
  size_t n = 0, cap = 0, *runs = NULL, nruns = 0, capr = 0;
  sweep w = {0};
  int64_t maxid = 0;   /* a bound on the rows, without a scan */
  rc = rpd_query_int64(r, "SELECT coalesce(max(rowid), 0) FROM rocpd_op", &maxid);
  for (int sorted = maxid > KEEP_OPS; !rc && sorted < 2; sorted++) {
    char *sql = rpd_xasprintf("SELECT start, end, %s FROM rocpd_op O WHERE %s%s"
                              " AND typeof(start) = 'integer' AND typeof(end) = 'integer'"
                              " AND end >= start ORDER BY %s", kern, work,
                              gpu >= 0 ? " AND gpuId = ?" : "", sorted ? "start" : "O.id");
    sqlite3_stmt *q = NULL;
    int s = 0, kept = 1;
    rc = rpd_prepare(r, sql, &q);
    free(sql);
    if (!rc && gpu >= 0)
      sqlite3_bind_int(q, 1, gpu);
    while (!rc && (s = rpd_step(r, q)) == SQLITE_ROW) {
      int64_t a = sqlite3_column_int64(q, 0), b = sqlite3_column_int64(q, 1);
      int k = sqlite3_column_int(q, 2);
      if (sorted) {
        sweep_row(st, &w, a, b, k);
        continue;
      }
      if (n == KEEP_OPS) {
        kept = 0;
        break;
      }
      if (n == cap) {
        cap = cap ? 2 * cap : 1024;
        v = rpd_xrealloc(v, cap * sizeof *v);
      }
      if (!n || a < v[n - 1].a) {
        if (nruns == capr) {
          capr = capr ? 2 * capr : 16;
          runs = rpd_xrealloc(runs, capr * sizeof *runs);
        }
        runs[nruns++] = n;
      }
      v[n++] = (wrow){ a, b, k };
    }
    if (!rc && s < 0)
      rc = -s;
    sqlite3_finalize(q);
    if (!rc && !sorted && kept) {
      wrow *tmp = nruns > 1 ? rpd_xmalloc(n * sizeof *tmp) : NULL;
      wrow *o = merge_runs(v, tmp, n, runs, nruns);
      for (size_t i = 0; i < n; i++)
        sweep_row(st, &w, o[i].a, o[i].b, (int)o[i].kernel);
      free(tmp);
      break;
    }
    free(v);   /* too many ops to keep: SQLite sorts them */
    v = NULL;
    n = cap = 0;
  }
  if (!rc && w.have)
    add_busy(st, &w.j, w.cs, w.ce);
  free(v);
  free(runs);
  free(work);
  free(kern);
  return rc;
}

/* ------------------------------------------------------------ API */

/* *v = the least integer start of table, *found = 1; *found = 0 if it
 * has none (a start that is not an INTEGER is left out).  One read in C
 * (rpd_intscan: a batch per step, or the table's pages read directly). */
static int min_start(rpd *r, const char *table, int64_t *v, int *found)
{
  rpd_intscan sc;
  const int64_t *row = NULL;
  unsigned ints = 0;
  char *sql = sqlite3_mprintf("SELECT 1 FROM \"%w\" WHERE rpd_intscan(?1, start)", table);
  int rc, s = 0, have = 0;
  int64_t lo, hi;
  *found = 0;
  if (rpd_check_span(r, table, &have, &lo, &hi)) {   /* the trace check's read */
    sqlite3_free(sql);
    if (have)
      *v = lo;
    *found = have;
    return RPD_OK;
  }
  rc = sql ? rpd_intscan_open(r, &sc, sql, 1, 1u) : RPD_ENOMEM;
  sqlite3_free(sql);
  if (rc)
    return rc;
  while ((s = rpd_intscan_row(r, &sc, &row, &ints)) == 1)
    if ((ints & 1u) && (!*found || row[0] < *v)) {
      *v = row[0];
      *found = 1;
    }
  rpd_intscan_close(&sc);
  return s < 0 ? -s : RPD_OK;
}

/* Find the steps (steps.h). */
int rpd_steps_find(rpd *r, const char *marker, int gpu, rpd_steps *out)
{
  memset(out, 0, sizeof *out);
  rpd_regex *re = NULL;
  int rc = rpd_regex_compile(marker ? marker : RPD_STEP_MARKER_DEFAULT, &re);
  if (rc)
    return rc;
  int found = 0;
  rc = min_start(r, "rocpd_api", &out->origin, &found);
  if (!rc && !found)
    rc = min_start(r, "rocpd_op", &out->origin, &found);
  if (!rc)
    rc = find_markers(r, re, out);
  rpd_regex_free(re);
  if (!rc && out->n)
    out->source = RPD_STEPS_MARKERS;
  else if (!rc && !marker && !(rc = find_period(r, gpu, out)) && out->n)
    out->source = RPD_STEPS_PERIOD;
  if (!rc && out->n)
    rc = measure(r, gpu, out);
  if (rc)
    rpd_steps_free(out);
  return rc;
}

static int cmp_i64(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* The nearest-rank percentile p (0..100) of sorted v[0..n), n > 0. */
static int64_t pct(const int64_t *v, size_t n, int p)
{
  size_t k = (size_t)((p * n + 99) / 100);
  return v[k ? k - 1 : 0];
}

/* Warm-up steps and the steady state (steps.h). */
size_t rpd_steps_steady(rpd_steps *st, int64_t *median, int64_t *p10, int64_t *p90)
{
  *median = *p10 = *p90 = 0;
  st->steady = 0;
  if (!st->n)
    return 0;
  int64_t *d = rpd_xmalloc(st->n * sizeof *d);
  for (size_t i = 0; i < st->n; i++)
    d[i] = st->s[i].end - st->s[i].start;
  qsort(d, st->n, sizeof *d, cmp_i64);
  int64_t all = d[(st->n - 1) / 2];
  size_t w = 0;
  while (w < st->n) {
    int64_t x = st->s[w].end - st->s[w].start, off = x > all ? x - all : all - x;
    if (off * 4 <= all)
      break;
    st->s[w++].warmup = 1;
  }
  size_t m = 0;
  for (size_t i = w; i < st->n; i++)
    d[m++] = st->s[i].end - st->s[i].start;
  if (m) {
    qsort(d, m, sizeof *d, cmp_i64);
    *median = d[(m - 1) / 2];
    *p10 = pct(d, m, 10);
    *p90 = pct(d, m, 90);
  }
  free(d);
  st->median = *median;
  st->p10 = *p10;
  st->p90 = *p90;
  st->steady = m;
  return m;
}

/* Free the steps (steps.h). */
void rpd_steps_free(rpd_steps *st)
{
  free(st->s);
  memset(st, 0, sizeof *st);
}
