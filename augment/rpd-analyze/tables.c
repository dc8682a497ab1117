/* tables.c - rpd-analyze's SQL side: the per-op working table, the launch
 * statistics, queue depth, memcpy bandwidth and the findings of api
 * calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "opclass.h"
#include "util/map.h"

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
    "DROP TABLE IF EXISTS temp.an_k; DROP TABLE IF EXISTS temp.an_kc;"
    "DROP TABLE IF EXISTS temp.an_p; DROP TABLE IF EXISTS temp.an_shared;"
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

/* Per kernel (description id): count, mean and max of each metric (an_kc);
 * its nearest-rank median and p95 come from one sorted pass per metric
 * (percentiles below), so memory stays within SQLite's cache. */
static const char launch_sql[] =
  "CREATE TEMP TABLE an_k AS SELECT did, CASE WHEN own THEN api_end - launch END AS api,"
  " s - launch AS delay,"
  " e - s AS gpu FROM an_op WHERE cls = 'kernel';"
  "CREATE INDEX temp.an_k_did ON an_k (did, gpu, api, delay);"
  "CREATE TEMP TABLE an_kc AS SELECT did, count(*) AS n, count(api) AS na, count(delay) AS nd,"
  " avg(api) AS am, max(api) AS ax, avg(delay) AS dm, max(delay) AS dx,"
  " avg(gpu) AS gm, max(gpu) AS gx, sum(gpu) AS gs FROM an_k GROUP BY did;"
  "CREATE TEMP TABLE an_p (did INTEGER, metric INTEGER, med INTEGER, p95 INTEGER,"
  " PRIMARY KEY (did, metric));";

static const char launch_insert_sql[] =
  "INSERT INTO ext_analysis_launch SELECT coalesce(S.string, ''), c.n,"
  " c.am, pa.med, pa.p95, c.ax, c.dm, pd.med, pd.p95, c.dx, c.gm, pg.med, pg.p95, c.gx,"
  " (SELECT count(*) FROM an_k k WHERE k.did = c.did AND k.gpu > 3 * pg.med),"
  " coalesce(c.gm < c.am, 0)"
  " FROM an_kc c LEFT JOIN rocpd_string S ON S.id = c.did"
  " LEFT JOIN an_p pa ON pa.did = c.did AND pa.metric = 0"
  " LEFT JOIN an_p pd ON pd.did = c.did AND pd.metric = 1"
  " JOIN an_p pg ON pg.did = c.did AND pg.metric = 2"
  " ORDER BY c.gs DESC, S.string;";

/* The metrics of an_k: column, and the an_kc column counting its values
 * (api and delay are NULL for a dispatch without them and not ranked). */
static const struct {
  const char *sorted, *count;
} metrics[] = {
  {"SELECT did, api FROM an_k WHERE api IS NOT NULL AND did IS NOT NULL ORDER BY did, api",
   "na"},
  {"SELECT did, delay FROM an_k WHERE delay IS NOT NULL AND did IS NOT NULL"
   " ORDER BY did, delay", "nd"},
  {"SELECT did, gpu FROM an_k WHERE did IS NOT NULL ORDER BY did, gpu", "n"},
};

/* an_p rows of metric m: the values of each kernel in order, the one at
 * rank (n+1)/2 its median and at (95n+99)/100 its p95 (n from an_kc). */
static int percentiles(rpd *r, int m, sqlite3_stmt *ins)
{
  sqlite3_stmt *st = NULL, *cnt = NULL;
  rpd_i64map count = {0};
  char *sql = sqlite3_mprintf("SELECT did, %s FROM an_kc WHERE did IS NOT NULL",
                              metrics[m].count);
  int rc = sql ? rpd_prepare(r, sql, &cnt) : rpd_seterr(RPD_ENOMEM, "out of memory");
  int s = 0, have = 0;
  int64_t did = 0, n = 0, rank = 0;
  sqlite3_value *med = NULL, *p95 = NULL;
  sqlite3_free(sql);
  while (!rc && (s = rpd_step(r, cnt)) == SQLITE_ROW)
    rpd_i64map_put(&count, sqlite3_column_int64(cnt, 0), sqlite3_column_int64(cnt, 1));
  if (!rc && s < 0)
    rc = -s;
  if (!rc)
    rc = rpd_prepare(r, metrics[m].sorted, &st);
  for (;;) {
    int row = 0;
    if (!rc) {
      if ((s = rpd_step(r, st)) == SQLITE_ROW)
        row = 1;
      else if (s < 0)
        rc = -s;
    }
    if (have && (rc || !row || sqlite3_column_int64(st, 0) != did)) {
      if (!rc) {
        sqlite3_reset(ins);
        sqlite3_bind_int64(ins, 1, did);
        sqlite3_bind_int(ins, 2, m);
        sqlite3_bind_value(ins, 3, med);
        sqlite3_bind_value(ins, 4, p95);
        if ((s = rpd_step(r, ins)) < 0)
          rc = -s;
      }
      sqlite3_value_free(med);
      sqlite3_value_free(p95);
      med = p95 = NULL;
      have = 0;
    }
    if (rc || !row)
      break;
    if (!have) {
      did = sqlite3_column_int64(st, 0);
      if (!rpd_i64map_get(&count, did, &n))
        n = 0;
      rank = 0;
      have = 1;
    }
    rank++;
    if (rank == (n + 1) / 2)
      med = sqlite3_value_dup(sqlite3_column_value(st, 1));
    if (rank == (95 * n + 99) / 100)
      p95 = sqlite3_value_dup(sqlite3_column_value(st, 1));
  }
  sqlite3_value_free(med);
  sqlite3_value_free(p95);
  sqlite3_finalize(st);
  sqlite3_finalize(cnt);
  rpd_i64map_free(&count);
  return rc;
}

int an_launch_stats(rpd *r)
{
  sqlite3_stmt *ins = NULL;
  int rc = rpd_exec(r, launch_sql);
  if (!rc)
    rc = rpd_prepare(r, "INSERT INTO an_p VALUES (?,?,?,?)", &ins);
  for (int m = 0; !rc && m < (int)N(metrics); m++)
    rc = percentiles(r, m, ins);
  sqlite3_finalize(ins);
  if (!rc)
    rc = rpd_exec(r, launch_insert_sql);
  return rc;
}

/* A (gpu, queue, time) key of the queue-depth streams; NULL sorts first and
 * equals NULL, as in ORDER BY and GROUP BY. */
typedef struct qkey {
  int64_t v[3];
  unsigned char null[3];
} qkey;

static void qkey_read(sqlite3_stmt *st, qkey *k)
{
  for (int i = 0; i < 3; i++) {
    k->null[i] = sqlite3_column_type(st, i) == SQLITE_NULL;
    k->v[i] = k->null[i] ? 0 : sqlite3_column_int64(st, i);
  }
}

/* Compare the first n parts of a and b. */
static int qkey_cmp(const qkey *a, const qkey *b, int n)
{
  for (int i = 0; i < n; i++) {
    if (a->null[i] != b->null[i])
      return a->null[i] ? -1 : 1;
    if (a->v[i] != b->v[i])
      return a->v[i] < b->v[i] ? -1 : 1;
  }
  return 0;
}

/* Step st into *k; 1 on a row, 0 at the end, -rc on an error. */
static int qkey_next(rpd *r, sqlite3_stmt *st, qkey *k)
{
  int s = rpd_step(r, st);
  if (s == SQLITE_ROW) {
    qkey_read(st, k);
    return 1;
  }
  return s < 0 ? s : 0;
}

/* Queue depth: +1 at each launch (the op start when it has no api or
 * starts first), -1 at each end; one row per queue and distinct time with
 * the depth after every change at that time.  The launches and the ends
 * come from two sorts of the ops (no GROUP BY over their union), merged
 * here with the running depth per queue. */
int an_queue_depth(rpd *r)
{
  sqlite3_stmt *ls = NULL, *es = NULL, *ins = NULL;
  qkey kl, ke, key, part = {{0}, {0}};
  int hl = 0, he = 0, have = 0, s;
  int64_t depth = 0;
  int rc = rpd_prepare(r, "SELECT gpu, queue, min(coalesce(launch, s), s) AS t FROM an_op"
                          " ORDER BY gpu, queue, t", &ls);
  if (!rc)
    rc = rpd_prepare(r, "SELECT gpu, queue, e FROM an_op ORDER BY gpu, queue, e", &es);
  if (!rc)
    rc = rpd_prepare(r, "INSERT INTO ext_analysis_queue_depth VALUES (?,?,?,?)", &ins);
  if (!rc && (hl = qkey_next(r, ls, &kl)) < 0)
    rc = -hl;
  if (!rc && (he = qkey_next(r, es, &ke)) < 0)
    rc = -he;
  while (!rc && (hl > 0 || he > 0)) {
    int64_t d = 0;
    key = hl > 0 && (he <= 0 || qkey_cmp(&kl, &ke, 3) <= 0) ? kl : ke;
    while (!rc && hl > 0 && qkey_cmp(&kl, &key, 3) == 0) {
      d++;
      if ((hl = qkey_next(r, ls, &kl)) < 0)
        rc = -hl;
    }
    while (!rc && he > 0 && qkey_cmp(&ke, &key, 3) == 0) {
      d--;
      if ((he = qkey_next(r, es, &ke)) < 0)
        rc = -he;
    }
    if (rc)
      break;
    if (!have || qkey_cmp(&part, &key, 2) != 0) {
      part = key;
      depth = 0;
      have = 1;
    }
    depth += d;
    sqlite3_reset(ins);
    for (int i = 0; i < 3; i++) {
      if (key.null[i])
        sqlite3_bind_null(ins, i + 1);
      else
        sqlite3_bind_int64(ins, i + 1, key.v[i]);
    }
    sqlite3_bind_int64(ins, 4, depth);
    if ((s = rpd_step(r, ins)) < 0)
      rc = -s;
  }
  sqlite3_finalize(ls);
  sqlite3_finalize(es);
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

