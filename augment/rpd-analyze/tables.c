/* tables.c - rpd-analyze's op side: the one scan of the ops (with their
 * launching calls) into three bounded sorts, the launch statistics and the
 * queue depth. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "opclass.h"
#include "util/map.h"
#include "xsort.h"

/* ------------------------------------------------------------ op table */

/* The SQL functions of the op table's one scan of rocpd_op: the class and
 * the communication flag of an op, looked up once per distinct opType or
 * description id (a kernel name is matched once, not once per dispatch). */
typedef struct op_funcs {
  sqlite3_stmt *cls, *desc;   /* rpd_opclass_prepare_one; a string by id */
  rpd_i64map cls_of, comm_of;
} op_funcs;

static int contains(const char *s, const char *sub)
{
  return strstr(s, sub) != NULL;
}

/* 1 when a kernel name is a collective: nccl/rccl, all_reduce, allreduce,
 * all_gather, allgather, reduce_scatter, reducescatter, alltoall
 * (ASCII case-insensitive, as SQL lower()) or cross_device_reduce. */
static int is_comm(const char *name)
{
  static const char *const lowered[] = {"nccl", "rccl", "all_reduce", "allreduce",
    "all_gather", "allgather", "reduce_scatter", "reducescatter", "alltoall"};
  size_t n = strlen(name);
  char *low = rpd_xmalloc(n + 1);
  int hit = contains(name, "cross_device_reduce");
  for (size_t i = 0; i <= n; i++)
    low[i] = name[i] >= 'A' && name[i] <= 'Z' ? (char)(name[i] - 'A' + 'a') : name[i];
  for (size_t k = 0; !hit && k < N(lowered); k++)
    hit = contains(low, lowered[k]);
  free(low);
  return hit;
}

/* The class of an op by its opType id (views/opClass.sql; NULL: other),
 * looked up once per id.  -1 on an SQL error (*rc set). */
static int op_class(op_funcs *fn, sqlite3_value *type, int *rc)
{
  int64_t id, k;
  if (sqlite3_value_type(type) == SQLITE_NULL)
    return RPD_OPCLASS_OTHER;
  id = sqlite3_value_int64(type);
  if (!rpd_i64map_get(&fn->cls_of, id, &k)) {
    if ((k = rpd_opclass_one(fn->cls, id)) < 0) {
      *rc = rpd_seterr(RPD_ESQL, "SQL: %s", sqlite3_errmsg(sqlite3_db_handle(fn->cls)));
      return -1;
    }
    rpd_i64map_put(&fn->cls_of, id, k);
  }
  return (int)k;
}

/* 1 when the name of description id `did` is a collective's, 0 for another
 * name or no name (as SQL's NULL, which the sweep reads as 0); looked up
 * once per id. */
static int op_comm(op_funcs *fn, sqlite3_value *did, int *rc)
{
  int64_t id, v;
  if (sqlite3_value_type(did) == SQLITE_NULL)
    return 0;
  id = sqlite3_value_int64(did);
  if (!rpd_i64map_get(&fn->comm_of, id, &v)) {
    int s;
    sqlite3_reset(fn->desc);
    sqlite3_bind_int64(fn->desc, 1, id);
    s = sqlite3_step(fn->desc);
    if (s == SQLITE_ROW) {
      const char *name = (const char *)sqlite3_column_text(fn->desc, 0);
      v = name ? is_comm(name) : 0;
    } else if (s == SQLITE_DONE) {
      v = 0;
    } else {
      *rc = rpd_seterr(RPD_ESQL, "SQL: %s", sqlite3_errmsg(sqlite3_db_handle(fn->desc)));
      return 0;
    }
    sqlite3_reset(fn->desc);
    rpd_i64map_put(&fn->comm_of, id, v);
  }
  return (int)v;
}

/* The sort buffer of each bounded sort (xsort.h): beyond it, sorted runs
 * go to a scratch file, so memory stays flat in trace size. */
#define SORT_BYTES (8u << 20)

/* (gpu, start, end, id) with a NULL gpu first: the sweep's order (ties
 * of start and end in op id order). */
static int work_cmp(const void *pa, const void *pb)
{
  const an_work *a = pa, *b = pb;
  int na = a->flags & AN_W_GPU_NULL, nb = b->flags & AN_W_GPU_NULL;
  if (na != nb)
    return na ? -1 : 1;
  if (!na && a->gpu != b->gpu)
    return a->gpu < b->gpu ? -1 : 1;
  if (a->s != b->s)
    return a->s < b->s ? -1 : 1;
  if (a->e != b->e)
    return a->e < b->e ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* xsort_next with the progress line `what` over the records of x. */
static int next_shown(xsort *x, const void **p, const char *what)
{
  int got = xsort_next(x, p);
  rpd_progress(what, (int64_t)xsort_taken(x), (int64_t)xsort_added(x));
  return got;
}

/* ------------------------------------------------------------ launch stats */

enum { M_API, M_DELAY, M_GPU, NMETRICS };

/* One value of one metric of one kernel dispatch, in (did, metric, NULL
 * first, value) order: the values of each kernel and metric come sorted,
 * so the nearest-rank median and p95 are picked as they go by. */
typedef struct kval {
  int64_t did, v;
  int32_t metric, null;
} kval;

static int kval_cmp(const void *pa, const void *pb)
{
  const kval *a = pa, *b = pb;
  if (a->did != b->did)
    return a->did < b->did ? -1 : 1;
  if (a->metric != b->metric)
    return a->metric < b->metric ? -1 : 1;
  if (a->null != b->null)
    return a->null ? -1 : 1;
  return a->v < b->v ? -1 : a->v > b->v;
}

/* A metric of one kernel: its values counted (n), summed and the largest;
 * then its median and p95 (a rank's value: none, NULL or v). */
typedef struct kmetric {
  int64_t n, sum, max;
  int64_t med, p95;
  int has_med, has_p95, med_null, p95_null;
} kmetric;

typedef struct kstat {
  int64_t did, count, outliers;
  kmetric m[NMETRICS];
} kstat;

static void bind_rank(sqlite3_stmt *st, int col, int has, int null, int64_t v)
{
  if (!has || null)
    sqlite3_bind_null(st, col);
  else
    sqlite3_bind_int64(st, col, v);
}

/* Write one kernel's row to temp.an_kr. */
static int kstat_write(rpd *r, sqlite3_stmt *ins, const kstat *k)
{
  int col = 1, s;
  sqlite3_reset(ins);
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
    bind_rank(ins, col++, km->has_med, km->med_null, km->med);
    bind_rank(ins, col++, km->has_p95, km->p95_null, km->p95);
    bind_rank(ins, col++, km->n > 0, 0, km->max);
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
 * the per-kernel rows go to temp.an_kr in description-id order, and one
 * statement orders them into ext_analysis_launch. */
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

/* Rank the sorted values of one kernel (did) from *p on; *got as
 * xsort_next.  The counts and sums of k were added up in the scan. */
static void kstat_rank(xsort *x, kstat *k, const void **p, int *got)
{
  int64_t rank = 0;
  int metric = -1;
  kmetric *km = NULL;
  while (*got > 0) {
    const kval *v = *p;
    if (v->did != k->did)
      break;
    if (v->metric != metric) {
      metric = v->metric;
      km = &k->m[metric];
      rank = 0;
    }
    rank++;
    /* the GPU duration ranks every dispatch, NULL first (ORDER BY), the
     * api and delay only their values */
    int64_t n = metric == M_GPU ? k->count : km->n;
    if (rank == (n + 1) / 2) {
      km->has_med = 1;
      km->med_null = v->null;
      km->med = v->v;
    }
    if (rank == (95 * n + 99) / 100) {
      km->has_p95 = 1;
      km->p95_null = v->null;
      km->p95 = v->v;
    }
    /* values after the median are at least the median: an outlier is one
     * past 3x it (exact, no overflow) */
    if (metric == M_GPU && km->has_med && !km->med_null && !v->null &&
        (__int128)v->v > (__int128)3 * km->med)
      k->outliers++;
    *got = next_shown(x, p, "kernel statistics");
  }
}

/* The ops read once (an_scan_ops): the sorts of the sweep, the launch
 * statistics and the queue depth, and the per-kernel sums. */
struct an_scan {
  xsort *work, *kern, *queue;
  rpd_i64map at;               /* description id -> index in ks */
  kstat *ks;
  size_t nk, cap;
};

/* One kernel dispatch of the op scan (its description id not NULL): the
 * count, sum and max of each metric and its values into the sort.  has[m]
 * says metric m has a value (api: a launch call of its own; delay: a
 * launch call; the GPU time always). */
static int kstat_add(an_scan *sc, int64_t did, const int64_t v[NMETRICS],
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
    kval kv = {did, v[m], m, 0};
    kmetric *km = &sc->ks[i].m[m];
    if (!has[m])
      continue;
    if (!km->n || kv.v > km->max)
      km->max = kv.v;
    km->n++;
    km->sum += kv.v;
    rc = xsort_add(sc->kern, &kv);
  }
  return rc;
}

int an_launch_stats(rpd *r, an_scan *sc)
{
  sqlite3_stmt *ins = NULL;
  const void *p;
  int got = 0;
  int rc = rpd_exec(r, kr_sql);
  if (!rc)
    rc = rpd_prepare(r, "INSERT INTO an_kr VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &ins);
  if (!rc)
    rc = xsort_done(sc->kern);
  if (!rc && (got = next_shown(sc->kern, &p, "kernel statistics")) < 0)
    rc = -got;
  while (!rc && got > 0) {
    int64_t i;
    if (!rpd_i64map_get(&sc->at, ((const kval *)p)->did, &i)) {
      rc = rpd_seterr(RPD_ERR, "internal error: a kernel the scan did not count");
      break;
    }
    kstat_rank(sc->kern, &sc->ks[i], &p, &got);
    if (got < 0)
      rc = -got;
    if (!rc)
      rc = kstat_write(r, ins, &sc->ks[i]);
  }
  sqlite3_finalize(ins);
  if (!rc)
    rc = rpd_exec(r, launch_insert_sql);
  return rc;
}

/* One change of a queue's depth: +1 at a launch, -1 at an end.  NULLs sort
 * first and equal NULL, as in ORDER BY and GROUP BY (bit i of nulls: part
 * i is NULL). */
typedef struct qev {
  int64_t v[3];                /* gpu, queue, time */
  int32_t nulls, d;
} qev;

/* (gpu, queue, time) order; d is summed, not ordered. */
static int qev_cmp(const void *pa, const void *pb)
{
  const qev *a = pa, *b = pb;
  for (int i = 0; i < 3; i++) {
    int na = a->nulls >> i & 1, nb = b->nulls >> i & 1;
    if (na != nb)
      return na ? -1 : 1;
    if (!na && a->v[i] != b->v[i])
      return a->v[i] < b->v[i] ? -1 : 1;
  }
  return 0;
}

/* Is part i of a and b the same for i < n (NULL equals NULL)? */
static int qev_same(const qev *a, const qev *b, int n)
{
  for (int i = 0; i < n; i++) {
    int na = a->nulls >> i & 1;
    if (na != (b->nulls >> i & 1) || (!na && a->v[i] != b->v[i]))
      return 0;
  }
  return 1;
}

/* The event of gpu, queue (NULL or not) and time t at depth change d. */
static qev qev_of(sqlite3_value *gpu, sqlite3_value *queue, int64_t t, int d)
{
  qev ev;
  sqlite3_value *v[2] = {gpu, queue};
  memset(&ev, 0, sizeof ev);
  for (int i = 0; i < 2; i++) {
    if (sqlite3_value_type(v[i]) == SQLITE_NULL)
      ev.nulls |= 1 << i;
    else
      ev.v[i] = sqlite3_value_int64(v[i]);
  }
  ev.v[2] = t;
  ev.d = d;
  return ev;
}

/* Queue depth: +1 at each launch (the op start when it has no api or
 * starts first), -1 at each end; one row per queue and distinct time with
 * the depth after every change at that time.  The op scan put both
 * changes of each op into a bounded sort (xsort.h); the sorted stream is
 * summed per time and run per queue here. */
int an_queue_depth(rpd *r, an_scan *sc)
{
  sqlite3_stmt *ins = NULL;
  const void *p;
  qev key, part;
  int have = 0, s, got = 0;
  int64_t depth = 0;
  int rc = rpd_prepare(r, "INSERT INTO ext_analysis_queue_depth VALUES (?,?,?,?)", &ins);
  if (!rc)
    rc = xsort_done(sc->queue);
  got = rc ? 0 : next_shown(sc->queue, &p, "queue depth");
  while (!rc && got > 0) {
    int64_t d = 0;
    key = *(const qev *)p;
    while (got > 0 && qev_same((const qev *)p, &key, 3)) {
      d += ((const qev *)p)->d;
      got = next_shown(sc->queue, &p, "queue depth");
    }
    if (got < 0) {
      rc = -got;
      break;
    }
    if (!have || !qev_same(&part, &key, 2)) {
      part = key;
      depth = 0;
      have = 1;
    }
    depth += d;
    sqlite3_reset(ins);
    for (int i = 0; i < 3; i++) {
      if (key.nulls >> i & 1)
        sqlite3_bind_null(ins, i + 1);
      else
        sqlite3_bind_int64(ins, i + 1, key.v[i]);
    }
    sqlite3_bind_int64(ins, 4, depth);
    if ((s = rpd_step(r, ins)) < 0)
      rc = -s;
  }
  if (!rc && got < 0)
    rc = -got;
  sqlite3_finalize(ins);
  return rc;
}

/* ------------------------------------------------------------ op scan */

static const char scan_sql[] =
  "DROP TABLE IF EXISTS temp.an_launch; DROP TABLE IF EXISTS temp.an_copy;"
  "DROP TABLE IF EXISTS temp.an_shared;"
  "CREATE TEMP TABLE an_shared (api_id INTEGER PRIMARY KEY);"
  "INSERT INTO an_shared SELECT api_id FROM rocpd_api_ops GROUP BY api_id"
  " HAVING count(*) > 1;"
  "CREATE TEMP TABLE an_copy (id INTEGER PRIMARY KEY, s INTEGER, e INTEGER,"
  " type INTEGER);";

/* When the links are not in op order: per op, the linked call that started
 * first (its start, end, thread) and whether it is the op's own launch. */
static const char launch_sql[] =
  "CREATE TEMP TABLE an_launch (op_id INTEGER PRIMARY KEY, launch INTEGER,"
  " api_end INTEGER, tid INTEGER, own INTEGER);"
  "INSERT INTO an_launch SELECT X.op_id, min(A.start), A.\"end\", A.tid,"
  " A.id NOT IN (SELECT api_id FROM an_shared)"
  "  AND coalesce(N.string NOT GLOB '*GraphLaunch*', 1)"
  " FROM rocpd_api_ops X JOIN rocpd_api A ON A.id = X.api_id"
  " LEFT JOIN rocpd_string N ON N.id = A.apiName_id GROUP BY X.op_id;";

/* One op of the scan: its row of rocpd_op and its launching call. */
typedef struct opv {
  sqlite3_value *id, *gpu, *queue, *type, *did;
  int64_t s, e;                /* never NULL (the driver's time check) */
  int has_launch, own;
  int64_t launch, api_end;
} opv;

/* One op into the sorts (and temp.an_copy for a copy), with the values the
 * temp op table's readers computed: the queue's launch time
 * min(coalesce(launch, s), s), the api duration of a dispatch with a call
 * of its own, the launch delay s - launch, the GPU time e - s. */
static int scan_op(an_scan *sc, op_funcs *fn, const opv *o, sqlite3_stmt *copy)
{
  int rc = RPD_OK, cls, s;
  int64_t t = o->has_launch && o->launch < o->s ? o->launch : o->s;
  qev l = qev_of(o->gpu, o->queue, t, 1);
  qev e = qev_of(o->gpu, o->queue, o->e, -1);
  if ((rc = xsort_add(sc->queue, &l)) || (rc = xsort_add(sc->queue, &e)))
    return rc;
  if ((cls = op_class(fn, o->type, &rc)) < 0)
    return rc;
  if (cls == RPD_OPCLASS_KERNEL && sqlite3_value_type(o->did) != SQLITE_NULL) {
    int64_t v[NMETRICS] = {o->api_end - o->launch, o->s - o->launch, o->e - o->s};
    int has[NMETRICS] = {o->has_launch && o->own, o->has_launch, 1};
    if ((rc = kstat_add(sc, sqlite3_value_int64(o->did), v, has)))
      return rc;
  }
  if (cls != RPD_OPCLASS_KERNEL && cls != RPD_OPCLASS_COPY)
    return RPD_OK;
  /* the sweep reads a NULL gpu as 0, as sqlite3_column_int64 did */
  an_work w;
  memset(&w, 0, sizeof w);
  w.id = sqlite3_value_int64(o->id);
  if (sqlite3_value_type(o->gpu) == SQLITE_NULL)
    w.flags |= AN_W_GPU_NULL;
  w.gpu = sqlite3_value_int64(o->gpu);
  w.s = o->s;
  w.e = o->e;
  if (o->has_launch) {
    w.flags |= AN_W_API;
    w.launch = o->launch;
    w.api_end = o->api_end;
    if (o->own)
      w.flags |= AN_W_OWN;
  }
  if (cls == RPD_OPCLASS_KERNEL) {
    w.flags |= AN_W_KERNEL;
    if (op_comm(fn, o->did, &rc))
      w.flags |= AN_W_COMM;
    if (rc)
      return rc;
  } else {
    sqlite3_reset(copy);
    sqlite3_bind_value(copy, 1, o->id);
    sqlite3_bind_int64(copy, 2, o->s);
    sqlite3_bind_int64(copy, 3, o->e);
    sqlite3_bind_value(copy, 4, o->type);
    if ((s = sqlite3_step(copy)) != SQLITE_DONE)
      return rpd_seterr(RPD_ESQL, "SQL: %s", sqlite3_errmsg(sqlite3_db_handle(copy)));
  }
  return xsort_add(sc->work, &w);
}

/* The links joined to their calls, in the order links_in_op_order checks
 * and the merge reads (the same statement). */
static const char links_sql[] =
  "SELECT X.op_id, A.start, A.\"end\", A.id, A.apiName_id"
  " FROM rocpd_api_ops X CROSS JOIN rocpd_api A ON A.id = X.api_id";

/* 1 when the op ids of the links (NULLs aside) never go down in their
 * order, as tracers write them: then the links merge with the ops in id
 * order, no GROUP BY. */
static int links_in_op_order(rpd *r, int *rc)
{
  sqlite3_stmt *st = NULL;
  int64_t last = INT64_MIN;
  int in_order = 1, s = 0;
  if ((*rc = rpd_prepare(r, links_sql, &st)))
    return 0;
  while (in_order && (s = rpd_step(r, st)) == SQLITE_ROW) {
    int64_t op;
    if (sqlite3_column_type(st, 0) == SQLITE_NULL)
      continue;
    op = sqlite3_column_int64(st, 0);
    in_order = op >= last;
    last = op;
  }
  if (s < 0)
    *rc = -s;
  sqlite3_finalize(st);
  return in_order;
}

/* Is the call named by string id `name` a graph launch (GLOB
 * '*GraphLaunch*'; no such string: not one)?  Looked up once per name. */
static int graph_launch(sqlite3_stmt *str, rpd_i64map *seen, sqlite3_value *name, int *rc)
{
  int64_t id, v;
  if (sqlite3_value_type(name) == SQLITE_NULL)
    return 0;
  id = sqlite3_value_int64(name);
  if (!rpd_i64map_get(seen, id, &v)) {
    int s;
    sqlite3_reset(str);
    sqlite3_bind_int64(str, 1, id);
    s = sqlite3_step(str);
    if (s == SQLITE_ROW) {
      const char *t = (const char *)sqlite3_column_text(str, 0);
      v = t && strstr(t, "GraphLaunch") != NULL;
    } else if (s == SQLITE_DONE) {
      v = 0;
    } else {
      *rc = rpd_seterr(RPD_ESQL, "SQL: %s", sqlite3_errmsg(sqlite3_db_handle(str)));
      return 0;
    }
    sqlite3_reset(str);
    rpd_i64map_put(seen, id, v);
  }
  return (int)v;
}

/* The links in op order, joined to their calls, read along with the ops. */
typedef struct links {
  sqlite3_stmt *st, *str;
  rpd_i64map shared, graph;
  int have;                    /* st is on a row */
} links;

static int links_next(rpd *r, links *k)
{
  int s = rpd_step(r, k->st);
  k->have = s == SQLITE_ROW;
  return s < 0 ? -s : RPD_OK;
}

/* The launch of op `id` from the links: the linked call that started first
 * (the first of equal starts), as min() of a GROUP BY gives it. */
static int links_launch(rpd *r, links *k, int64_t id, opv *o)
{
  int rc = RPD_OK;
  o->has_launch = 0;
  while (!rc && k->have && (sqlite3_column_type(k->st, 0) == SQLITE_NULL ||
                            sqlite3_column_int64(k->st, 0) < id))
    rc = links_next(r, k);
  while (!rc && k->have && sqlite3_column_type(k->st, 0) != SQLITE_NULL &&
         sqlite3_column_int64(k->st, 0) == id) {
    int64_t start = sqlite3_column_int64(k->st, 1);
    if (!o->has_launch || start < o->launch) {
      o->has_launch = 1;
      o->launch = start;
      o->api_end = sqlite3_column_int64(k->st, 2);
      o->own = !rpd_i64map_get(&k->shared, sqlite3_column_int64(k->st, 3), NULL) &&
               !graph_launch(k->str, &k->graph, sqlite3_column_value(k->st, 4), &rc);
    }
    if (!rc)
      rc = links_next(r, k);
  }
  return rc;
}

int an_scan_ops(rpd *r, an_scan **out)
{
  an_scan *sc = rpd_xcalloc(1, sizeof *sc);
  sqlite3_stmt *st = NULL, *copy = NULL, *sh = NULL;
  links k;
  op_funcs fn;
  int rc, s = 0, merge = 0, have_last = 0;
  int64_t last_id = 0;
  opv last;
  memset(&fn, 0, sizeof fn);
  memset(&k, 0, sizeof k);
  memset(&last, 0, sizeof last);
  sc->work = xsort_new(sizeof(an_work), work_cmp, NULL, SORT_BYTES);
  sc->kern = xsort_new(sizeof(kval), kval_cmp, NULL, SORT_BYTES);
  sc->queue = xsort_new(sizeof(qev), qev_cmp, NULL, SORT_BYTES);
  *out = sc;
  rc = rpd_exec(r, scan_sql);
  if (!rc)
    merge = links_in_op_order(r, &rc);
  if (!rc && !merge)
    rc = rpd_exec(r, launch_sql);
  if (!rc && merge) {
    rc = rpd_prepare(r, "SELECT api_id FROM an_shared", &sh);
    while (!rc && (s = rpd_step(r, sh)) == SQLITE_ROW)
      rpd_i64map_put(&k.shared, sqlite3_column_int64(sh, 0), 1);
    if (!rc && s < 0)
      rc = -s;
    if (!rc)
      rc = rpd_prepare(r, links_sql, &k.st);
    if (!rc)
      rc = rpd_prepare(r, "SELECT string FROM rocpd_string WHERE id = ?", &k.str);
    if (!rc)
      rc = links_next(r, &k);
  }
  if (!rc)
    rc = rpd_opclass_prepare_one(rpd_db(r), &fn.cls);
  if (!rc)
    rc = rpd_prepare(r, "SELECT string FROM rocpd_string WHERE id = ?", &fn.desc);
  if (!rc)
    rc = rpd_prepare(r, "INSERT INTO an_copy VALUES (?,?,?,?)", &copy);
  if (!rc)
    rc = rpd_prepare(r, merge
      ? "SELECT O.id, O.gpuId, O.queueId, O.start, O.\"end\", O.opType_id,"
        " O.description_id FROM rocpd_op O ORDER BY O.id"
      : "SELECT O.id, O.gpuId, O.queueId, O.start, O.\"end\", O.opType_id,"
        " O.description_id, L.launch, L.api_end, L.own"
        " FROM rocpd_op O LEFT JOIN an_launch L ON L.op_id = O.id", &st);
  while (!rc && (s = rpd_step(r, st)) == SQLITE_ROW) {
    opv o;
    memset(&o, 0, sizeof o);
    o.id = sqlite3_column_value(st, 0);
    o.gpu = sqlite3_column_value(st, 1);
    o.queue = sqlite3_column_value(st, 2);
    o.s = sqlite3_column_int64(st, 3);
    o.e = sqlite3_column_int64(st, 4);
    o.type = sqlite3_column_value(st, 5);
    o.did = sqlite3_column_value(st, 6);
    if (merge) {
      int64_t id = sqlite3_column_int64(st, 0);
      if (have_last && id == last_id) {
        /* an op id seen again (a view): the same launch, as a join gives */
        o.has_launch = last.has_launch;
        o.launch = last.launch;
        o.api_end = last.api_end;
        o.own = last.own;
      } else if ((rc = links_launch(r, &k, id, &o))) {
        break;
      }
      last_id = id;
      last = o;
      have_last = 1;
    } else if (sqlite3_column_type(st, 7) != SQLITE_NULL &&
               sqlite3_column_type(st, 8) != SQLITE_NULL) {
      o.has_launch = 1;
      o.launch = sqlite3_column_int64(st, 7);
      o.api_end = sqlite3_column_int64(st, 8);
      o.own = sqlite3_column_int(st, 9) != 0;
    }
    rc = scan_op(sc, &fn, &o, copy);
  }
  if (!rc && s < 0)
    rc = -s;
  if (!rc)
    rc = xsort_done(sc->work);
  sqlite3_finalize(st);
  sqlite3_finalize(copy);
  sqlite3_finalize(sh);
  sqlite3_finalize(k.st);
  sqlite3_finalize(k.str);
  rpd_i64map_free(&k.shared);
  rpd_i64map_free(&k.graph);
  sqlite3_finalize(fn.cls);
  sqlite3_finalize(fn.desc);
  rpd_i64map_free(&fn.cls_of);
  rpd_i64map_free(&fn.comm_of);
  return rc;
}

int an_scan_work(an_scan *sc, const an_work **w)
{
  const void *p;
  int got = xsort_next(sc->work, &p);
  if (got > 0)
    *w = p;
  return got;
}

void an_scan_free(an_scan *sc)
{
  if (!sc)
    return;
  xsort_free(sc->work);
  xsort_free(sc->kern);
  xsort_free(sc->queue);
  rpd_i64map_free(&sc->at);
  free(sc->ks);
  free(sc);
}
