/* tables.c - rpd-analyze's SQL side: the per-op working table, the launch
 * statistics, queue depth, memcpy bandwidth and the findings of api
 * calls. */
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

/* an_cls(opType_id): 'kernel', 'copy', 'barrier' or 'other' (views/opClass.sql). */
static void fn_cls(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
  op_funcs *fn = sqlite3_user_data(cx);
  int64_t id = sqlite3_value_int64(argv[0]), k;
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    sqlite3_result_text(cx, "other", -1, SQLITE_STATIC);
    return;
  }
  if (!rpd_i64map_get(&fn->cls_of, id, &k)) {
    if ((k = rpd_opclass_one(fn->cls, id)) < 0) {
      sqlite3_result_error(cx, sqlite3_errmsg(sqlite3_db_handle(fn->cls)), -1);
      return;
    }
    rpd_i64map_put(&fn->cls_of, id, k);
  }
  sqlite3_result_text(cx, rpd_opclass_name((int)k), -1, SQLITE_STATIC);
}

/* an_comm(description_id): 1 for a collective's name, 0 for another name,
 * NULL when no string has that id. */
static void fn_comm(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
  op_funcs *fn = sqlite3_user_data(cx);
  int64_t id = sqlite3_value_int64(argv[0]), v;
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    sqlite3_result_null(cx);
    return;
  }
  if (!rpd_i64map_get(&fn->comm_of, id, &v)) {
    int s;
    sqlite3_reset(fn->desc);
    sqlite3_bind_int64(fn->desc, 1, id);
    s = sqlite3_step(fn->desc);
    if (s == SQLITE_ROW) {
      const char *name = (const char *)sqlite3_column_text(fn->desc, 0);
      v = name ? is_comm(name) : -1;
    } else if (s == SQLITE_DONE) {
      v = -1;
    } else {
      sqlite3_result_error(cx, sqlite3_errmsg(sqlite3_db_handle(fn->desc)), -1);
      return;
    }
    sqlite3_reset(fn->desc);
    rpd_i64map_put(&fn->comm_of, id, v);
  }
  if (v < 0)
    sqlite3_result_null(cx);
  else
    sqlite3_result_int(cx, (int)v);
}

/* temp.an_op: one row per op with its class, name, communication flag and
 * the api call that launched it (earliest linked call). */
int an_build_op_table(rpd *r)
{
  op_funcs fn;
  memset(&fn, 0, sizeof fn);
  int rc = rpd_exec(r,
    "DROP TABLE IF EXISTS temp.an_launch; DROP TABLE IF EXISTS temp.an_op;"
    "DROP TABLE IF EXISTS temp.an_shared;"
    "CREATE TEMP TABLE an_shared (api_id INTEGER PRIMARY KEY);"
    "INSERT INTO an_shared SELECT api_id FROM rocpd_api_ops GROUP BY api_id"
    " HAVING count(*) > 1;"
    "CREATE TEMP TABLE an_launch (op_id INTEGER PRIMARY KEY, launch INTEGER,"
    " api_end INTEGER, tid INTEGER, own INTEGER);"
    "INSERT INTO an_launch SELECT X.op_id, min(A.start), A.\"end\", A.tid,"
    " A.id NOT IN (SELECT api_id FROM an_shared)"
    "  AND coalesce(N.string NOT GLOB '*GraphLaunch*', 1)"
    " FROM rocpd_api_ops X JOIN rocpd_api A ON A.id = X.api_id"
    " LEFT JOIN rocpd_string N ON N.id = A.apiName_id GROUP BY X.op_id;");
  if (!rc)
    rc = rpd_opclass_prepare_one(rpd_db(r), &fn.cls);
  if (!rc)
    rc = rpd_prepare(r, "SELECT string FROM rocpd_string WHERE id = ?", &fn.desc);
  if (!rc && (sqlite3_create_function(rpd_db(r), "an_cls", 1, SQLITE_UTF8, &fn, fn_cls,
                                      NULL, NULL) != SQLITE_OK ||
              sqlite3_create_function(rpd_db(r), "an_comm", 1, SQLITE_UTF8, &fn, fn_comm,
                                      NULL, NULL) != SQLITE_OK))
    rc = rpd_seterr(RPD_ERR, "cannot register the op table's functions: %s",
                    sqlite3_errmsg(rpd_db(r)));
  if (!rc)
    rc = rpd_exec(r,
      "CREATE TEMP TABLE an_op AS SELECT O.id AS id, O.gpuId AS gpu,"
      " O.queueId AS queue, O.start AS s, O.\"end\" AS e,"
      " an_cls(O.opType_id) AS cls, O.description_id AS did,"
      " T.string AS optype, L.launch AS launch, L.api_end AS api_end, L.own AS own,"
      " an_comm(O.description_id) AS comm"
      " FROM rocpd_op O LEFT JOIN rocpd_string T ON T.id = O.opType_id"
      " LEFT JOIN an_launch L ON L.op_id = O.id;");
  /* the functions point at fn: gone before it is */
  sqlite3_create_function(rpd_db(r), "an_cls", 1, SQLITE_UTF8, NULL, NULL, NULL, NULL);
  sqlite3_create_function(rpd_db(r), "an_comm", 1, SQLITE_UTF8, NULL, NULL, NULL, NULL);
  sqlite3_finalize(fn.cls);
  sqlite3_finalize(fn.desc);
  rpd_i64map_free(&fn.cls_of);
  rpd_i64map_free(&fn.comm_of);
  return rc;
}

/* ------------------------------------------------------------ SQL parts */

/* The sort buffer of each bounded sort (xsort.h): beyond it, sorted runs
 * go to a scratch file, so memory stays flat in trace size. */
#define SORT_BYTES (8u << 20)

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
    *got = xsort_next(x, p);
  }
}

int an_launch_stats(rpd *r)
{
  sqlite3_stmt *st = NULL, *ins = NULL;
  xsort *x = xsort_new(sizeof(kval), kval_cmp, SORT_BYTES);
  rpd_i64map at = {0};
  kstat *ks = NULL;
  size_t nk = 0, cap = 0;
  const void *p;
  int s = 0, got = 0;
  int rc = rpd_exec(r, kr_sql);
  if (!rc)
    rc = rpd_prepare(r, "SELECT did, CASE WHEN own THEN api_end - launch END,"
                        " s - launch, e - s FROM an_op WHERE cls = 'kernel' AND did IS NOT NULL",
                     &st);
  if (!rc)
    rc = rpd_prepare(r, "INSERT INTO an_kr VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &ins);
  while (!rc && (s = rpd_step(r, st)) == SQLITE_ROW) {
    int64_t did = sqlite3_column_int64(st, 0), i;
    int found;
    int64_t *slot = rpd_i64map_ref(&at, did, (int64_t)nk, &found);
    if (!found) {
      if (nk == cap) {
        cap = cap ? 2 * cap : 64;
        ks = rpd_xrealloc(ks, cap * sizeof *ks);
      }
      memset(&ks[nk], 0, sizeof *ks);
      ks[nk++].did = did;
    }
    i = *slot;
    ks[i].count++;
    for (int m = 0; !rc && m < NMETRICS; m++) {
      kval v = {did, 0, m, 0};
      if (sqlite3_column_type(st, m + 1) == SQLITE_NULL) {
        if (m != M_GPU)
          continue;
        v.null = 1;
      } else {
        kmetric *km = &ks[i].m[m];
        v.v = sqlite3_column_int64(st, m + 1);
        if (!km->n || v.v > km->max)
          km->max = v.v;
        km->n++;
        km->sum += v.v;
      }
      rc = xsort_add(x, &v);
    }
  }
  if (!rc && s < 0)
    rc = -s;
  if (!rc)
    rc = xsort_done(x);
  if (!rc && (got = xsort_next(x, &p)) < 0)
    rc = -got;
  while (!rc && got > 0) {
    int64_t i;
    if (!rpd_i64map_get(&at, ((const kval *)p)->did, &i)) {
      rc = rpd_seterr(RPD_ERR, "internal error: a kernel the scan did not count");
      break;
    }
    kstat_rank(x, &ks[i], &p, &got);
    if (got < 0)
      rc = -got;
    if (!rc)
      rc = kstat_write(r, ins, &ks[i]);
  }
  xsort_free(x);
  free(ks);
  rpd_i64map_free(&at);
  sqlite3_finalize(st);
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

/* The event of column c (the time) of row st at depth change d. */
static qev qev_of(sqlite3_stmt *st, int c, int d)
{
  qev ev;
  int col[3] = {0, 1, c};
  memset(&ev, 0, sizeof ev);
  for (int i = 0; i < 3; i++) {
    if (sqlite3_column_type(st, col[i]) == SQLITE_NULL)
      ev.nulls |= 1 << i;
    else
      ev.v[i] = sqlite3_column_int64(st, col[i]);
  }
  ev.d = d;
  return ev;
}

/* Queue depth: +1 at each launch (the op start when it has no api or
 * starts first), -1 at each end; one row per queue and distinct time with
 * the depth after every change at that time.  One scan of the ops feeds
 * both changes of each op to a bounded sort (xsort.h); the sorted stream
 * is summed per time and run per queue here. */
int an_queue_depth(rpd *r)
{
  sqlite3_stmt *st = NULL, *ins = NULL;
  xsort *x = xsort_new(sizeof(qev), qev_cmp, SORT_BYTES);
  const void *p;
  qev key, part;
  int have = 0, s = 0, got;
  int64_t depth = 0;
  int rc = rpd_prepare(r, "SELECT gpu, queue, min(coalesce(launch, s), s), e FROM an_op", &st);
  if (!rc)
    rc = rpd_prepare(r, "INSERT INTO ext_analysis_queue_depth VALUES (?,?,?,?)", &ins);
  while (!rc && (s = rpd_step(r, st)) == SQLITE_ROW) {
    qev l = qev_of(st, 2, 1), e = qev_of(st, 3, -1);
    if (!(rc = xsort_add(x, &l)))
      rc = xsort_add(x, &e);
  }
  if (!rc && s < 0)
    rc = -s;
  if (!rc)
    rc = xsort_done(x);
  got = rc ? 0 : xsort_next(x, &p);
  while (!rc && got > 0) {
    int64_t d = 0;
    key = *(const qev *)p;
    while (got > 0 && qev_same((const qev *)p, &key, 3)) {
      d += ((const qev *)p)->d;
      got = xsort_next(x, &p);
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
  xsort_free(x);
  sqlite3_finalize(st);
  sqlite3_finalize(ins);
  return rc;
}

static const char memcpy_sql[] =
  "INSERT INTO ext_analysis_memcpy"
  " WITH c AS (SELECT CASE"
  "   WHEN O.optype GLOB '*HostToDevice*' THEN 'HtoD'"
  "   WHEN O.optype GLOB '*DeviceToHost*' THEN 'DtoH'"
  "   WHEN O.optype GLOB '*DeviceToDevice*' THEN 'DtoD'"
  "   WHEN O.optype GLOB '*HostToHost*' THEN 'HtoH'"
  "   WHEN C.kind = 1 THEN 'HtoD' WHEN C.kind = 2 THEN 'DtoH'"
  "   WHEN C.kind = 3 THEN 'DtoD' WHEN C.kind = 0 THEN 'HtoH' ELSE 'other' END AS dir,"
  "   C.size AS size, O.e - O.s AS dur"
  "   FROM rocpd_copyapi C JOIN rocpd_api_ops X ON X.api_id = C.api_ptr_id"
  "   JOIN an_op O ON O.id = X.op_id WHERE O.cls = 'copy'),"
  " b AS (SELECT dir, CASE WHEN size < 4096 THEN 1 WHEN size < 65536 THEN 2"
  "   WHEN size < 1048576 THEN 3 WHEN size < 16777216 THEN 4 ELSE 5 END AS bk,"
  "   size, dur FROM c)"
  " SELECT dir, CASE bk WHEN 1 THEN '<4KB' WHEN 2 THEN '4KB-64KB'"
  "   WHEN 3 THEN '64KB-1MB' WHEN 4 THEN '1MB-16MB' ELSE '>=16MB' END,"
  "  count(*), sum(size), sum(dur), CASE WHEN sum(dur) > 0"
  "   THEN 1.0 * sum(size) / sum(dur) END"
  " FROM b GROUP BY dir, bk ORDER BY dir, bk;";

/* Findings from api calls (the names matched once, in rocpd_string; each
 * call is one integer test): ?1 rule, ?2 severity, ?3 min_count, ?4 advice,
 * ?5 the unit of the value. */
static const char sync_memcpy_sql[] =
  "INSERT INTO ext_analysis_findings (rule, severity, gpuId, tid, start_ns, end_ns,"
  " count, value, value_unit, detail, advice)"
  " SELECT ?1, ?2, NULL, NULL, min(A.start), max(A.\"end\"), count(*),"
  "  sum(A.\"end\" - A.start) / 1e3, ?5, S.string || ': ' || count(*) || ' calls', ?4"
  " FROM rocpd_api A JOIN rocpd_string S ON S.id = A.apiName_id"
  " WHERE A.apiName_id IN (SELECT id FROM rocpd_string"
  "  WHERE (string GLOB 'hipMemcpy*' OR string GLOB 'hipMemset*'"
  "   OR string GLOB 'cudaMemcpy*' OR string GLOB 'cudaMemset*')"
  "  AND string NOT GLOB '*Async*')"
  " GROUP BY S.string HAVING count(*) >= ?3 ORDER BY min(A.start);";

static const char device_sync_sql[] =
  "INSERT INTO ext_analysis_findings (rule, severity, gpuId, tid, start_ns, end_ns,"
  " count, value, value_unit, detail, advice)"
  " SELECT ?1, ?2, NULL, A.tid, min(A.start), max(A.\"end\"), count(*),"
  "  sum(A.\"end\" - A.start) / 1e3, ?5,"
  "  'thread ' || A.tid || ': ' || count(*) || ' device synchronizations', ?4"
  " FROM rocpd_api A"
  " WHERE A.apiName_id IN (SELECT id FROM rocpd_string"
  "  WHERE string IN ('hipDeviceSynchronize', 'cudaDeviceSynchronize'))"
  " GROUP BY A.tid HAVING count(*) >= ?3 ORDER BY min(A.start);";

int an_memcpy(rpd *r)
{
  return rpd_exec(r, memcpy_sql);
}

int an_api_rule(rpd *r, opts *o, int k)
{
  sqlite3_stmt *st = NULL;
  const rule *ru = &o->rules[k];
  int rc = rpd_prepare(r, k == R_SYNC_MEMCPY ? sync_memcpy_sql : device_sync_sql, &st), s;
  if (rc)
    return rc;
  sqlite3_bind_text(st, 1, ru->name, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, ru->severity, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 3, ru->min_count);
  sqlite3_bind_text(st, 4, ru->advice, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 5, ru->value_unit, -1, SQLITE_STATIC);
  if ((s = rpd_step(r, st)) < 0)
    rc = -s;
  o->findings[k] += sqlite3_changes(rpd_db(r));
  sqlite3_finalize(st);
  return rc;
}

