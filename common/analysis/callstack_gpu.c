/* callstack_gpu.c - the gpu time of each call for the call-stack walk
 * (see callstack_int.h): the op links merged in api_id order. */
#include <stdlib.h>

#include "callstack_int.h"
#include "check.h"

/* The gpu time of the calls: one row per linked op, in api_id order.  When
 * rocpd_api_ops is already in api_id order by rowid (tracers write the link
 * right after the call; checked first) this streams without a sort.  When
 * its op_ids also rise strictly (a tracer writes an op's link with the op)
 * and rocpd_op's id is its rowid, the links are merged with a scan of
 * rocpd_op in id order (gpu_links_sql, gpu_ops_sql) instead of a seek per
 * link, and that scan applies the trace check's rule to every op, so
 * rocpd_op needs no check scan of its own.  The first walk assumes that
 * order and checks it as the links stream by (no scan first); links out of
 * it stop the walk, which is rolled back and run again with their order
 * checked first (gpu_in_order), as a call out of order does. */
static const char gpu_links_sql[] =
    "SELECT 1 FROM rocpd_api_ops WHERE rpd_intscan(?1, api_id, op_id)";
static const char gpu_ops_sql[] =
    "SELECT 1 FROM rocpd_op WHERE rpd_intscan(?1, id, start, end, gpuId) ORDER BY id";
static const char op_rowid_sql[] =
    "SELECT count(*) = 1 AND max(name = 'id' AND upper(type) = 'INTEGER') "
    "FROM pragma_table_info('rocpd_op') WHERE pk > 0";
static const char gpu_stream_sql[] =
    "SELECT A.api_id, B.end - B.start FROM rocpd_api_ops A "
    "CROSS JOIN rocpd_op B ON B.id = A.op_id";
static const char gpu_stream_sort_sql[] =
    "SELECT A.api_id, B.end - B.start FROM rocpd_api_ops A "
    "CROSS JOIN rocpd_op B ON B.id = A.op_id ORDER BY A.api_id";
/* The fallback: the gpu time per call summed into a temp table keyed by api
 * id, one rowid lookup per call. */
static const char gpu_table_sql[] =
    "DROP TABLE IF EXISTS temp._rpd_gpu_time;"
    "CREATE TEMP TABLE _rpd_gpu_time(api_id INTEGER PRIMARY KEY, "
    "gpu_time INTEGER NOT NULL);"
    "INSERT INTO temp._rpd_gpu_time SELECT A.api_id, sum(B.end - B.start) "
    "FROM rocpd_api_ops A JOIN rocpd_op B ON B.id = A.op_id "
    "GROUP BY A.api_id ORDER BY A.api_id;";
static const char gpu_lookup_sql[] =
    "SELECT gpu_time FROM temp._rpd_gpu_time WHERE api_id = ?";

/* The gpu time of each call, looked up when the call ends.  Calls end in
 * nearly api-id order (tracers number a call when it returns), so the op
 * stream, in api_id order, is merged in: entries are read ahead up to the
 * id asked for, kept sorted until asked for (each call ends once), and an
 * id the stream has passed without an entry has no ops.  If more than
 * gpu_max entries wait (ids far from time order), the rest of the run
 * looks them up in the temp table instead: memory stays bounded. */
static size_t gpu_max = 1 << 20;

void rpd_callstack_set_merge_limit(size_t entries) {
  gpu_max = entries ? entries : (size_t)1 << 20;
}

/* *sorted = 1 if rocpd_api_ops is in api_id order by rowid; *merge = 1
 * if its op_ids also rise strictly, all integers.  Only the first `rows`
 * links are read if rows >= 0. */
static int gpu_in_order(rpd *r, int *sorted, int *merge, int64_t rows) {
  rpd_intscan sc;
  const int64_t *l = NULL;
  unsigned ints = 0;
  int64_t last = INT64_MIN, last_op = INT64_MIN;
  int s = 0, rc = rpd_intscan_open(r, &sc, gpu_links_sql, 2, 1u << 1 | RPD_INTSCAN_UNCHANGED);
  *sorted = *merge = 1;
  while (rc == RPD_OK && rows-- != 0 && (s = rpd_intscan_row(r, &sc, &l, &ints)) > 0) {
    int64_t id = l[0], op = l[1];
    if (id < last) {
      *sorted = *merge = 0;
      break;
    }
    if (*merge && (op <= last_op || !(ints & 2u))) *merge = 0;
    last = id, last_op = op;
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  rpd_intscan_close(&sc);
  return rc;
}

/* Advance the merge's scan of rocpd_op by one row into op_*. */
static int ops_next(rpd *r, gpu_src *g) {
  const int64_t *o = NULL;
  unsigned ints = 0;
  int s = rpd_intscan_row(r, &g->ops, &o, &ints);
  if (s < 0) return -s;
  g->ops_more = s;
  if (g->ops_more) {
    g->op_id = o[0];
    /* columns 1..3 (start, end, gpuId): bits RPD_CHECK_START/END/GPU_INT */
    if (g->check && !rpd_check_ints_ok(o[1], o[2], o[3],
                                       (ints >> 1) | RPD_CHECK_WITH_GPU))
      g->ops_bad = 1;   /* the message comes from the check's query */
    /* wraps instead of overflowing on a bad row (the run fails anyway) */
    g->op_gpu = (int64_t)((uint64_t)o[2] - (uint64_t)o[1]);
  }
  return RPD_OK;
}

/* Open the gpu stream: the merge when the links' order allows it, checked
 * first (checked) or as they stream (assumed: gpu_next sets redo). */
int cs_gpu_open(rpd *r, gpu_src *g, int check, int checked) {
  int sorted = 1, merge = 1, rc = RPD_OK;
  int64_t id_key = 0;   /* rocpd_op's key is its integer id */
  rc = rpd_query_int64(r, op_rowid_sql, &id_key);
  if (rc == RPD_OK && !(id_key == 1 && rpd_column_exists(r, "rocpd_op", "gpuId")))
    checked = 1, merge = 0;   /* the join: its stream needs the order known */
  /* links out of order are most often so from the start (a tracer that
   * writes them as ops complete): a look at the first ones spares most
   * such traces a walk run twice */
  if (rc == RPD_OK && !checked) rc = gpu_in_order(r, &sorted, &merge, 4096);
  if (rc == RPD_OK && !merge) checked = 1;
  if (rc == RPD_OK && checked) rc = gpu_in_order(r, &sorted, &merge, -1);
  merge = merge && id_key == 1;
  if (rc == RPD_OK && merge) {
    g->check = check;
    g->assumed = !checked;
    g->last_api = g->last_op = INT64_MIN;
    g->merge = 1;
    rc = rpd_intscan_open(r, &g->links, gpu_links_sql, 2, 1u << 1 | RPD_INTSCAN_UNCHANGED);   /* op_id's type */
    if (rc == RPD_OK)   /* the types of start, end, gpuId */
      rc = rpd_intscan_open(r, &g->ops, gpu_ops_sql, 4,
                           1u << 1 | 1u << 2 | 1u << 3 | RPD_INTSCAN_UNCHANGED);
    if (rc == RPD_OK) rc = ops_next(r, g);
  } else if (rc == RPD_OK) {
    rc = rpd_prepare(r, sorted ? gpu_stream_sql : gpu_stream_sort_sql,
                     &g->stream);
  }
  g->more = 1;
  g->next_id = INT64_MIN;
  return rc;
}

/* After the walk: read the rest of rocpd_op through the check, and say
 * whether every op passed it (ops_clean). */
int cs_gpu_finish(rpd *r, gpu_src *g) {
  int rc = RPD_OK;
  while (rc == RPD_OK && g->merge && g->ops_more) rc = ops_next(r, g);
  g->ops_clean = rc == RPD_OK && g->merge && g->check && !g->ops_bad;
  return rc;
}

void cs_gpu_close(gpu_src *g) {
  sqlite3_finalize(g->stream);
  sqlite3_finalize(g->lookup);
  rpd_intscan_close(&g->links);
  rpd_intscan_close(&g->ops);
  free(g->e);
}

/* Advance the stream by one row into next_*.  Merging, a link whose op
 * is not in rocpd_op is skipped, as the join skips it. */
int cs_gpu_next(rpd *r, gpu_src *g) {
  if (!g->merge) {
    int s = rpd_step(r, g->stream);
    if (s < 0) return -s;
    g->more = s == SQLITE_ROW;
    if (g->more) {
      g->next_id = sqlite3_column_int64(g->stream, 0);
      g->next_gpu = sqlite3_column_int64(g->stream, 1);
    }
    return RPD_OK;
  }
  for (;;) {
    const int64_t *l = NULL;
    unsigned ints = 0;
    int s = rpd_intscan_row(r, &g->links, &l, &ints), rc = RPD_OK;
    if (s < 0) return -s;
    g->more = s;
    if (!g->more) return RPD_OK;
    g->next_id = l[0];
    int64_t op = l[1];
    if (g->assumed) {   /* api_ids must not fall, op_ids must rise */
      if (g->next_id < g->last_api || op <= g->last_op || !(ints & 2u)) {
        g->redo = 1, g->more = 0;
        return RPD_OK;
      }
      g->last_api = g->next_id, g->last_op = op;
    }
    while (rc == RPD_OK && g->ops_more && g->op_id < op) rc = ops_next(r, g);
    if (rc != RPD_OK) return rc;
    if (g->ops_more && g->op_id == op) {
      g->next_gpu = g->op_gpu;
      return ops_next(r, g);
    }
  }
}

/* Append an entry: drop taken ones first, grow, or give up the merge. */
static int gpu_push(rpd *r, gpu_src *g, int64_t id, int64_t gpu) {
  if (g->n == g->cap) {
    size_t k = 0;
    for (size_t i = g->head; i < g->n; i++)
      if (!g->e[i].taken) g->e[k++] = g->e[i];
    g->head = 0, g->n = k;
    if (2 * k >= g->cap) {  /* still half full: grow */
      if (g->cap >= gpu_max) {  /* too far from time order: the table */
        int rc = rpd_exec(r, gpu_table_sql);
        if (rc == RPD_OK) rc = rpd_prepare(r, gpu_lookup_sql, &g->lookup);
        sqlite3_finalize(g->stream);
        rpd_intscan_close(&g->links);
        rpd_intscan_close(&g->ops);   /* rocpd_op is checked by its query */
        g->stream = NULL, g->merge = g->more = g->ops_more = 0;
        free(g->e);
        g->e = NULL, g->n = g->cap = g->head = 0;
        return rc;
      }
      g->cap = g->cap ? 2 * g->cap : gpu_max < 4096 ? gpu_max : 4096;
      g->e = rpd_xrealloc(g->e, g->cap * sizeof *g->e);
    }
  }
  g->e[g->n++] = (gpu_entry){id, gpu, 0};
  return RPD_OK;
}

/* The gpu time of api call `id` into *gpu (0 if it has no ops). */
int cs_gpu_get(rpd *r, gpu_src *g, int64_t id, int64_t *gpu) {
  int rc = RPD_OK;
  *gpu = 0;
  while (rc == RPD_OK && !g->lookup && g->more && g->next_id <= id) {
    int64_t eid = g->next_id, sum = 0;
    while (rc == RPD_OK && g->more && g->next_id == eid) {
      if (!rpd_ns_add(sum, g->next_gpu, &sum)) sum = INT64_MAX;   /* saturate */
      rc = cs_gpu_next(r, g);
    }
    if (g->redo) return rc;   /* the walk stops and is run again */
    if (rc == RPD_OK) rc = gpu_push(r, g, eid, sum);
  }
  if (rc != RPD_OK) return rc;
  if (g->lookup) {
    sqlite3_bind_int64(g->lookup, 1, id);
    int s = rpd_step(r, g->lookup);
    if (s == SQLITE_ROW) *gpu = sqlite3_column_int64(g->lookup, 0);
    sqlite3_reset(g->lookup);
    return s < 0 ? -s : RPD_OK;
  }
  size_t lo = g->head, hi = g->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g->e[mid].id < id) lo = mid + 1;
    else hi = mid;
  }
  if (lo < g->n && g->e[lo].id == id && !g->e[lo].taken) {
    *gpu = g->e[lo].gpu;
    g->e[lo].taken = 1;
  }
  while (g->head < g->n && g->e[g->head].taken) g->head++;
  return RPD_OK;
}
