#include "tracing.h"
#include "check.h"

/* Prepare sql (formatted with sqlite3_mprintf %w for the args table) and bind
 * the time window to ?1/?2 when the statement has them. */
int conv_prepare(conv *c, sqlite3_stmt **st, const char *fmt) {
  char *sql = sqlite3_mprintf(fmt, c->args_table);
  int rc = RPD_OK;
  if (!sql) return cerr(c->err, RPD_ENOMEM, "out of memory");
  if (sqlite3_prepare_v2(c->db, sql, -1, st, NULL) != SQLITE_OK)
    rc = cerr(c->err, RPD_ESQL, "%s: %s", sql, sqlite3_errmsg(c->db));
  sqlite3_free(sql);
  if (rc == RPD_OK && sqlite3_bind_parameter_count(*st) >= 2) {
    sqlite3_bind_int64(*st, 1, c->lo);
    sqlite3_bind_int64(*st, 2, c->hi);
  }
  return rc;
}

int name_error(conv *c, names *t) {
  return cerr(c->err, RPD_ESQL, "%s: %s", sqlite3_sql(t->look), sqlite3_errmsg(c->db));
}

/* The error of a statement that stopped with s (not SQLITE_DONE). */
static int step_error(conv *c, int s) {
  return cerr(c->err, s == SQLITE_BUSY || s == SQLITE_LOCKED ? RPD_EBUSY : RPD_ESQL,
              "%s", sqlite3_errmsg(c->db));
}
/* A row's start and end (the column values vs, ve) and, unless vg is NULL,
 * its gpuId into *start, *end, *gpu (each column is read once, as a value);
 * with check, 0 when they fail rpd_check_trace's rule (common/trace/check.c: one
 * definition), checked here on the scans' way instead of by a scan of its
 * own before them (the types are seen before the values are read as
 * integers). */
static int row_vals(sqlite3_value *vs, sqlite3_value *ve, sqlite3_value *vg, int check,
                    int64_t *start, int64_t *end, int64_t *gpu) {
  if (check && !rpd_check_row_ok(vs, ve, vg)) return 0;
  *start = sqlite3_value_int64(vs);
  *end = sqlite3_value_int64(ve);
  if (vg) *gpu = sqlite3_value_int64(vg);
  return 1;
}

/* row_vals of the columns is, ie and ig (none when ig < 0) of st. */
static int row_times(sqlite3_stmt *st, int is, int ie, int ig, int check, int64_t *start,
                     int64_t *end, int64_t *gpu) {
  return row_vals(sqlite3_column_value(st, is), sqlite3_column_value(st, ie),
                  ig < 0 ? NULL : sqlite3_column_value(st, ig), check, start, end, gpu);
}

/* Stop at a row that fails row_times' check: main.c then runs rpd_check_trace
 * for the message. */
static int bad_row(conv *c) {
  c->bad_row = 1;
  return cerr(c->err, RPD_ERANGE, "a row with bad times");
}

/* ------------------------------------------------------------ sections */

/* The track of a slice: a lane of its base track. */
static const track_info *place(conv *c, int kind, int64_t pid, int64_t base, int64_t ts,
                               int64_t end) {
  return layout_place(&c->lay, kind, pid, base, ts, end);
}

/* 1 when the rocpd_api_ops row with api_id, read in rowid order, is in api
 * order: its api_id is at least every earlier row's (*max_api, updated).
 * A's api pass walks these rows alongside its calls (links_next); B takes
 * the others (emit_links). */
int link_in_order(int64_t api_id, int64_t *max_api) {
  int in = api_id >= *max_api;
  if (in) *max_api = api_id;
  return in;
}

/* The api end of a link, as both passes have it at hand. */
typedef struct link_api {
  int64_t id, pid, tid, ts, end;
  int32_t thread;           /* index in c->threads */
} link_api;

/* One api->op link, the op's start, end and gpuId as the column values os,
 * oe, og (a link to no op has a NULL start: nothing to do): its flow arrow
 * when both ends are in the window, and its launch row (queue counters,
 * marker frames) when one is.  in_order: A is writing the api call's own
 * event next (with flow_on_op_slice the flow then starts on it). */
static int link_row(conv *c, int in_order, int64_t xid, const link_api *a, int64_t op_id,
                    sqlite3_value *os, sqlite3_value *oe, sqlite3_value *og, int64_t queue) {
  int64_t ostart, oend, gpu = 0;
  if (sqlite3_value_type(os) == SQLITE_NULL) return RPD_OK;
  /* A's op pass (same transaction, before the api pass) checked every op
   * row already; B reads on its own connection and checks again */
  if (!row_vals(os, oe, og, c->check_rows && !in_order, &ostart, &oend, &gpu)) return bad_row(c);
  int api_in = IN_WINDOW(c, a->ts), op_in = IN_WINDOW(c, ostart);
  if (!api_in && !op_in) return RPD_OK;
  if (api_in && op_in) {   /* both ends in the window (or file) */
    /* the JSON's "s" is inside the call's own slice: 2 us before its end
     * as the reference, at its midpoint when the call is shorter than 4 us
     * (the reference's point would fall before the call, on its parent),
     * and not after the op starts */
    int64_t from = a->end - a->ts >= 4000 ? a->end - 2000 : a->ts + (a->end - a->ts) / 2;
    track_info ta = {a->pid, a->tid, a->tid, TRACK_API, 0};
    if (ostart < from) from = ostart > a->ts ? ostart : a->ts;
    if (c->w->flow_on_op_slice && in_order) {
      if (c->nflow_from == c->flow_cap) {
        c->flow_cap = c->flow_cap ? c->flow_cap * 2 : 16;
        c->flow_from = rpd_xrealloc(c->flow_from, c->flow_cap * sizeof *c->flow_from);
      }
      c->flow_from[c->nflow_from++] = op_id;
    } else if (c->w->flow_on_op_slice) {
      c->w->flow(c, op_id, &ta, from, 0);
    } else {
      track_info to = {gpu, queue, queue, TRACK_OP, 0};
      int64_t lane = 0;
      if (idmap_get(&(c->peer ? c->peer : c)->oplane, op_id, &lane)) {   /* A's op lanes */
        to.tid = lane & 0xffffffff;
        to.lane = (uint32_t)(lane >> 32);
      }
      c->w->flow(c, xid, &ta, from, 0);
      c->w->flow(c, xid, &to, ostart, 1);
    }
    c->n_flow++;
  }
  lrec r = {.ts = a->ts, .id = a->id, .aux = xid, .ostart = ostart, .oend = oend,
            .thread = a->thread, .queue = (int32_t)pair_get(&c->queues, gpu, queue)};
  return launch_add(c, &r);
}

static int flows_possible(conv *c);

/* A's walk of rocpd_api_ops in rowid order beside the api pass, each
 * link's op joined (op ids mostly follow each other: the next row, not a
 * look-up from the root): no sort, and no look-up of the api call, which
 * the api pass is on. */
typedef struct links {
  sqlite3_stmt *st;
  int row;                  /* st is on a row */
  int64_t max_api;
  int64_t behind;           /* rows out of api order seen (B's) */
} links;

static int links_step(conv *c, links *l) {
  int s = sqlite3_step(l->st);
  l->row = s == SQLITE_ROW;
  return l->row || s == SQLITE_DONE ? RPD_OK : step_error(c, s);
}

static int links_open(conv *c, links *l) {
  int v = flows_possible(c);
  l->max_api = INT64_MIN;
  if (v < 0) return cerr(c->err, RPD_ESQL, "%s", sqlite3_errmsg(c->db));
  if (!v) return RPD_OK;
  int rc = conv_prepare(c, &l->st,
      "SELECT X.api_id, X.op_id, X.id, O.start, O.end, O.gpuId, O.queueId"
      " FROM rocpd_api_ops X LEFT JOIN rocpd_op O ON O.id = X.op_id ORDER BY X.id");
  return rc == RPD_OK ? links_step(c, l) : rc;
}

/* The in-order links of api call a (link_row), before its event is
 * written; steps over the links of earlier ids (to no api call, or out of
 * order: B's). */
static int links_next(conv *c, links *l, const link_api *a) {
  int rc = RPD_OK;
  sqlite3_stmt *st = l->st;
  int64_t api;
  c->nflow_from = 0;
  while (rc == RPD_OK && l->row && (api = sqlite3_column_int64(st, 0)) <= a->id) {
    int in = link_in_order(api, &l->max_api);
    l->behind += !in;
    if (in && api == a->id)
      rc = link_row(c, 1, sqlite3_column_int64(st, 2), a, sqlite3_column_int64(st, 1),
                    sqlite3_column_value(st, 3), sqlite3_column_value(st, 4),
                    sqlite3_column_value(st, 5), sqlite3_column_int64(st, 6));
    if (rc == RPD_OK) rc = links_step(c, l);
  }
  return rc;
}

/* Every api call in id order (a plain rowid scan; the args texts from
 * argtext.c, the api names from the cache).  Also collects the (pid, tid) of every call for
 * the thread names, and the UserMarker ranges and the launches of the
 * in-order rocpd_api_ops rows (links_next) for the launch pass (A's
 * sorter). */
int emit_apis(conv *c) {
  sqlite3_stmt *st = NULL;
  links l = {0};
  size_t th = 0;
  argtext *at = rpd_xmalloc(sizeof *at);
  int s = SQLITE_DONE, rc = argtext_open(c, at);
  if (rc == RPD_OK) rc = links_open(c, &l);
  if (rc == RPD_OK) rc = conv_prepare(c, &st,
      "SELECT A.id, A.pid, A.tid, A.start, A.end, A.apiName_id, A.args_id"
      " FROM rocpd_api A ORDER BY A.id");
  while (rc == RPD_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t start, end;
    if (!row_times(st, 3, 4, -1, c->check_rows, &start, &end, NULL)) { rc = bad_row(c); break; }
    int64_t id = sqlite3_column_int64(st, 0);
    int64_t pid = sqlite3_column_int64(st, 1), tid = sqlite3_column_int64(st, 2);
    rpd_progress_rows(c->r, "api calls", "rocpd_api", id);
    if (!c->has_api || end > c->api_end) c->api_end = end;
    c->has_api = 1;
    if (!c->threads.n || c->threads.a[th] != pid || c->threads.b[th] != tid)
      th = pair_get(&c->threads, pid, tid);
    link_api la = {id, pid, tid, start, end, (int32_t)th};
    if (l.st && (rc = links_next(c, &l, &la)) != RPD_OK) break;
    if (!IN_WINDOW(c, start)) continue;
    names_trim(&c->strs);
    const name_ent *name = names_get(&c->out, &c->strs, sqlite3_column_int64(st, 5));
    if (!name) { rc = name_error(c, &c->strs); break; }
    const char *as;
    size_t an;
    if ((rc = argtext_get(c, at, sqlite3_column_value(st, 6), &as, &an)) != RPD_OK) break;
    txt args = txt_s(as ? as : "", an);
    arg desc = {"desc", args, 0, 0};
    if (name->marker && start == end) {
      track_info t = {pid, tid, tid, TRACK_API, 0};
      c->w->instant(c, "marker", &t, args, start, &desc);
      c->n_instant++;
    } else {
      const track_info *t = place(c, TRACK_API, pid, tid, start, end);
      c->w->slice(c, "api", t, name->marker ? args : txt_e(name),
                  start, end - start, &desc, 0);
      c->n_api++;
    }
    if (name->marker && start != end) {   /* a range for the launch pass */
      lrec r = {.ts = start, .e = end, .id = id, .thread = (int32_t)th, .queue = -1};
      if ((rc = labels_put(c->marks, args.s, args.n, &r.aux)) != RPD_OK) break;
      if ((rc = launch_add(c, &r)) != RPD_OK) break;
    }
  }
  if (rc == RPD_OK) rc = labels_flush(c->marks);
  if (rc == RPD_OK && s != SQLITE_ROW && s != SQLITE_DONE) rc = step_error(c, s);
  /* the links after the last call (to no call, or out of order) are only
   * counted: B needs no scan of its own when none is out of order */
  while (rc == RPD_OK && l.row) {
    l.behind += !link_in_order(sqlite3_column_int64(l.st, 0), &l.max_api);
    rc = links_step(c, &l);
  }
  c->links_seen = rc == RPD_OK;
  c->links_behind = l.behind;
  sqlite3_finalize(st);
  sqlite3_finalize(l.st);
  argtext_close(at);
  free(at);
  c->nflow_from = 0;
  free(c->flow_from);
  c->flow_from = NULL;
  c->flow_cap = 0;
  return rc;
}

/* HSA api calls (rocpd_hsaApi, on tid + 1 as the reference). */
int emit_hsa(conv *c) {
  sqlite3_stmt *st = NULL;
  int s = SQLITE_DONE, rc;
  if (!rpd_table_exists(c->r, "rocpd_hsaApi")) return RPD_OK;
  rc = conv_prepare(c, &st,
      "SELECT N.string, S.string, A.pid, A.tid, A.start, A.end"
      " FROM rocpd_hsaApi A LEFT JOIN rocpd_string N ON N.id = A.apiName_id"
      " LEFT JOIN rocpd_string S ON S.id = A.args_id"
      " WHERE A.start BETWEEN ?1 AND ?2 ORDER BY A.id");
  while (rc == RPD_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t start = sqlite3_column_int64(st, 4), end = sqlite3_column_int64(st, 5);
    const track_info *t = place(c, TRACK_HSA, sqlite3_column_int64(st, 2),
                                sqlite3_column_int64(st, 3), start, end);
    arg desc = {"desc", txt_s(col_text(st, 1), (size_t)sqlite3_column_bytes(st, 1)), 0, 0};
    c->w->slice(c, "hsa_api", t, txt_s(col_text(st, 0), (size_t)sqlite3_column_bytes(st, 0)),
                start, end - start, &desc, 0);
    c->n_hsa++;
  }
  if (rc == RPD_OK && s != SQLITE_DONE) rc = step_error(c, s);
  sqlite3_finalize(st);
  return rc;
}

/* 1 when some flow can start: rocpd_api and rocpd_api_ops both have rows
 * (two O(1) look-ups; with -1 for an error). */
static int flows_possible(conv *c) {
  sqlite3_stmt *st = NULL;
  int rc = conv_prepare(c, &st,
      "SELECT EXISTS (SELECT 1 FROM rocpd_api) AND EXISTS (SELECT 1 FROM rocpd_api_ops)");
  int v = rc == RPD_OK && sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
  sqlite3_finalize(st);
  return v;
}

/* The class of opType entry e (asked of SQLite once per cached entry, by
 * views/opClass.sql's rule: common/opclass); RPD_OK or an SQL error. */
static int op_class(conv *c, const name_ent *e) {
  int cls;
  if (e->opclass != OPC_UNKNOWN) return RPD_OK;
  if (!c->opclass && rpd_opclass_prepare_one(c->db, &c->opclass) != RPD_OK)
    return cerr(c->err, RPD_ESQL, "%s", rpd_errmsg());
  if ((cls = rpd_opclass_one(c->opclass, e->id)) < 0)
    return cerr(c->err, RPD_ESQL, "%s", sqlite3_errmsg(c->db));
  ((name_ent *)e)->opclass = op_class_of(cls);   /* the cache's own entry */
  return RPD_OK;
}

/* Every op in id order (rowid scan, names from the cache); collects the
 * GPUs and their queues.  An op that overlaps an earlier one of its queue
 * goes to a lane track; its tid and lane are kept for its flow arrow.  With
 * flow_on_op_slice (protobuf) every op slice ends the flow of its own id:
 * Perfetto ignores the end of a flow that never started (an op launched by
 * no api call of the window), and no scan is needed to know which did;
 * none when no flow can start (no api calls, or no rocpd_api_ops rows). */
int emit_ops(conv *c) {
  sqlite3_stmt *st = NULL;
  int ends = c->w->flow_on_op_slice ? flows_possible(c) : 0;
  int s = SQLITE_DONE, rc = ends < 0 ? cerr(c->err, RPD_ESQL, "%s", sqlite3_errmsg(c->db)) : RPD_OK;
  if (rc == RPD_OK)
    rc = conv_prepare(c, &st,
        "SELECT gpuId, queueId, start, end, opType_id, description_id, id FROM rocpd_op ORDER BY id");
  while (rc == RPD_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t start, end, gpu = 0;
    if (!row_times(st, 2, 3, 0, c->check_rows, &start, &end, &gpu)) { rc = bad_row(c); break; }
    int64_t queue = sqlite3_column_int64(st, 1);
    int64_t id = sqlite3_column_int64(st, 6);
    rpd_progress_rows(c->r, "ops", "rocpd_op", id);
    if (!c->has_op || end > c->op_end) c->op_end = end;
    c->has_op = 1;
    if (c->gpuset.n == 0 || c->gpuset.a[c->gpuset.n - 1] != gpu) pair_get(&c->gpuset, gpu, 0);
    if (!IN_WINDOW(c, start)) continue;
    names_trim(&c->strs);
    const name_ent *type = names_get(&c->out, &c->strs, sqlite3_column_int64(st, 4));
    const name_ent *desc = type ? names_get(&c->out, &c->strs, sqlite3_column_int64(st, 5)) : NULL;
    if (!desc) { rc = name_error(c, &c->strs); break; }
    if ((rc = op_class(c, type)) != RPD_OK) break;
    const track_info *t = place(c, TRACK_OP, gpu, queue, start, end);
    if (t->lane)
      idmap_put(&c->oplane, id, t->tid | (int64_t)t->lane << 32);
    arg a = {"desc", txt_e(type), 0, 0};
    c->w->slice(c, op_class_name(type->opclass), t, txt_e(desc->len > 2 ? desc : type), start,
                end - start, &a, ends ? id : 0);
    c->n_op++;
  }
  if (rc == RPD_OK && s != SQLITE_DONE) rc = step_error(c, s);
  sqlite3_finalize(st);
  sqlite3_finalize(c->opclass);
  c->opclass = NULL;
  return rc;
}

static int64_t cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }
int i64_qcmp(const void *a, const void *b) {
  return (int)cmp_i64(*(const int64_t *)a, *(const int64_t *)b);
}

/* The api->op links out of api order (link_in_order is 0; A's api pass
 * took the others), in rocpd_api_ops order: each one's api call and op are
 * looked up by rowid (the scan itself reads three integers a row). */
int emit_links(conv *c) {
  sqlite3_stmt *st = NULL, *look = NULL;
  int64_t max_api = INT64_MIN;
  int s = SQLITE_DONE, rc = conv_prepare(c, &st, "SELECT id, api_id, op_id FROM rocpd_api_ops ORDER BY id");
  if (rc == RPD_OK)
    rc = conv_prepare(c, &look,
        "SELECT A.pid, A.tid, A.start, A.end, O.start, O.end, O.gpuId, O.queueId"
        " FROM rocpd_api A, rocpd_op O WHERE A.id = ?1 AND O.id = ?2");
  while (rc == RPD_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t api_id = sqlite3_column_int64(st, 1), op_id = sqlite3_column_int64(st, 2);
    if (link_in_order(api_id, &max_api)) continue;
    sqlite3_bind_int64(look, 1, api_id);
    sqlite3_bind_int64(look, 2, op_id);
    int k = sqlite3_step(look);
    if (k == SQLITE_ROW && sqlite3_column_type(look, 2) != SQLITE_NULL) {   /* else: a link to no api call or no op */
      link_api a = {.id = api_id, .pid = sqlite3_column_int64(look, 0),
                    .tid = sqlite3_column_int64(look, 1)};
      if (!row_times(look, 2, 3, -1, c->check_rows, &a.ts, &a.end, NULL)) {
        rc = bad_row(c);
        break;
      }
      a.thread = (int32_t)pair_get(&c->threads, a.pid, a.tid);
      rc = link_row(c, 0, sqlite3_column_int64(st, 0), &a, op_id, sqlite3_column_value(look, 4),
                    sqlite3_column_value(look, 5), sqlite3_column_value(look, 6),
                    sqlite3_column_int64(look, 7));
    } else if (k != SQLITE_ROW && k != SQLITE_DONE) {
      rc = step_error(c, k);
    }
    sqlite3_reset(look);
  }
  if (rc == RPD_OK && s != SQLITE_ROW && s != SQLITE_DONE) rc = step_error(c, s);
  sqlite3_finalize(st);
  sqlite3_finalize(look);
  return rc;
}

/* One frame per graph launch, on the GPU's "Graphs <queue>" tracks. */
int emit_graphs(conv *c) {
  sqlite3_stmt *st = NULL;
  int s = SQLITE_DONE, rc;
  if (!rpd_table_exists(c->r, "rocpd_graphLaunchapi")) return RPD_OK;
  rc = conv_prepare(c, &st,
      "SELECT 'Graph ' || ifnull(L.graphExec, ''), O.gpuId, O.queueId, min(O.start), max(O.end), count(*)"
      " FROM rocpd_graphLaunchapi L JOIN rocpd_api_ops X ON X.api_id = L.api_ptr_id"
      " JOIN rocpd_op O ON O.id = X.op_id WHERE O.start BETWEEN ?1 AND ?2"
      " GROUP BY L.api_ptr_id ORDER BY L.api_ptr_id");
  while (rc == RPD_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t start = sqlite3_column_int64(st, 3), end = sqlite3_column_int64(st, 4);
    const track_info *t = place(c, TRACK_GRAPH, sqlite3_column_int64(st, 1),
                                sqlite3_column_int64(st, 2), start, end);
    arg a = {"kernels", {0}, 1, sqlite3_column_int64(st, 5)};
    c->w->slice(c, "graph", t, txt_s(col_text(st, 0), (size_t)sqlite3_column_bytes(st, 0)),
                start, end - start, &a, 0);
    c->n_graph++;
  }
  if (rc == RPD_OK && s != SQLITE_DONE) rc = step_error(c, s);
  sqlite3_finalize(st);
  return rc;
}

/* A monitor value as an integer or a finite double; 0 when it is neither
 * (such rows are skipped). */
static int monitor_value(sqlite3_stmt *st, int i, int *is_int, int64_t *iv, double *dv) {
  const char *t;
  char *end;
  double v;
  *is_int = 0;
  if (sqlite3_column_type(st, i) == SQLITE_INTEGER) {
    *is_int = 1;
    *iv = sqlite3_column_int64(st, i);
    return 1;
  }
  if (sqlite3_column_type(st, i) == SQLITE_FLOAT) {
    v = sqlite3_column_double(st, i);
  } else {
    t = col_text(st, i);
    while (*t == ' ') t++;
    errno = 0;
    v = strtod(t, &end);
    while (*end == ' ') end++;
    if (end == t || *end || errno == ERANGE) return 0;
  }
  if (!isfinite(v)) return 0;
  *dv = v;
  return 1;
}

/* A counter point; its pid gets a process name at the end. */
void counter_point(conv *c, const char *cat, int64_t pid, const char *name, int64_t ts,
                   const char *key, int is_int, int64_t iv, double dv) {
  if (!c->cpids.n || c->cpids.a[c->cpids.n - 1] != pid) pair_get(&c->cpids, pid, 0);
  c->w->counter(c, cat, pid, name, ts, key, is_int, iv, dv);
  c->n_counter++;
}

static void ev_monitor(conv *c, sqlite3_stmt *st, int64_t ts) {
  int is_int;
  int64_t iv = 0;
  double dv = 0;
  const char *type = col_text(st, 1);
  if (!monitor_value(st, 3, &is_int, &iv, &dv)) return;
  counter_point(c, "monitor", sqlite3_column_int64(st, 0), type, ts, type, is_int, iv, dv);
}

int emit_monitor(conv *c) {
  sqlite3_stmt *st = NULL;
  int s = SQLITE_DONE, rc;
  if (!rpd_table_exists(c->r, "rocpd_monitor")) return RPD_OK;
  rc = conv_prepare(c, &st,
      "SELECT deviceId, monitorType, start, value FROM rocpd_monitor"
      " WHERE start BETWEEN ?1 AND ?2 ORDER BY id");
  while (rc == RPD_OK && (s = sqlite3_step(st)) == SQLITE_ROW)
    ev_monitor(c, st, sqlite3_column_int64(st, 2));
  if (rc == RPD_OK && s != SQLITE_DONE) rc = step_error(c, s);
  sqlite3_finalize(st);
  st = NULL;
  /* The last value of each series holds until its last end, or the end of
   * the trace (or --end) when that is later. */
  if (rc == RPD_OK)
    rc = conv_prepare(c, &st,
        "SELECT deviceId, monitorType, max(end), value FROM rocpd_monitor"
        " WHERE start BETWEEN ?1 AND ?2 GROUP BY deviceId, monitorType"
        " ORDER BY deviceId, monitorType");
  while (rc == RPD_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t end = sqlite3_column_int64(st, 2);
    ev_monitor(c, st, end > c->t_end ? end : c->t_end);
  }
  if (rc == RPD_OK && s != SQLITE_DONE) rc = step_error(c, s);
  sqlite3_finalize(st);
  return rc;
}

typedef struct pid_tid { int64_t pid, tid; } pid_tid;

static int pid_tid_cmp(const void *pa, const void *pb) {
  const pid_tid *a = pa, *b = pb;
  return a->pid != b->pid ? (a->pid < b->pid ? -1 : 1) : (int)cmp_i64(a->tid, b->tid);
}

static void meta_threads(conv *c, pid_tid *v, size_t n, int hsa) {
  char name[48];
  qsort(v, n, sizeof *v, pid_tid_cmp);
  for (size_t i = 0; i < n; i++) {
    snprintf(name, sizeof name, "%s %lld", hsa ? "HSA" : "Hip", (long long)v[i].tid);
    c->w->name(c, v[i].pid, v[i].tid + hsa, name, v[i].tid * 2 - hsa);
  }
}

/* The sort index of a track the layout made: a queue's op lanes, then its
 * graph and marker frames, queue by queue; extra api lanes by their thread. */
int64_t track_sort_index(const track_info *t) {
  if (t->kind == TRACK_API || t->kind == TRACK_HSA) return t->base * 2 - (t->kind == TRACK_HSA);
  return t->base * 64 + (t->kind - TRACK_OP) * 16 + (t->lane < 15 ? t->lane : 15);
}

/* Names of the tracks this worker's layout made, except the api and HSA
 * threads themselves (meta_threads names those). */
void name_tracks(conv *c) {
  char name[64];
  for (size_t i = 0; i < c->lay.ntracks; i++) {
    const track_info *t = &c->lay.tracks[i];
    if ((t->kind == TRACK_API || t->kind == TRACK_HSA) && !t->lane) continue;
    track_name(t, name, sizeof name);
    c->w->name(c, t->pid, t->tid, name, track_sort_index(t));
  }
}

/* Process and thread names, written last (the scans collected them):
 * GPU<n> per distinct rocpd_op.gpuId and counter pid, "Process <pid>" per
 * other pid of an api call, "Hip <tid>" per api (pid, tid), "HSA <tid>" on
 * tid + 1 per rocpd_hsaApi (pid, tid), and the lane and frame tracks. */
int emit_metadata(conv *c) {
  char name[40];
  sqlite3_stmt *st = NULL;
  int s = SQLITE_DONE, rc = RPD_OK;
  pid_tid *v = NULL;
  size_t n = 0, cap = 0;
  pairmap gpus = {0}, hosts = {0};
  for (size_t i = 0; i < c->ngpus; i++) pair_get(&gpus, c->gpus[i], 0);
  for (size_t i = 0; i < c->cpids.n; i++) pair_get(&gpus, c->cpids.a[i], 0);
  v = rpd_xmalloc((gpus.n ? gpus.n : 1) * sizeof *v);
  for (size_t i = 0; i < gpus.n; i++) v[i] = (pid_tid){gpus.a[i], 0};
  qsort(v, gpus.n, sizeof *v, pid_tid_cmp);
  for (size_t i = 0; i < gpus.n; i++) {
    snprintf(name, sizeof name, "GPU%lld", (long long)v[i].pid);
    c->w->name(c, v[i].pid, -1, name, v[i].pid + 1000000);
  }
  for (size_t i = 0; i < c->threads.n; i++) pair_get(&hosts, c->threads.a[i], 0);
  free(v);
  v = rpd_xmalloc((c->threads.n ? c->threads.n : 1) * sizeof *v);
  for (size_t i = 0; i < hosts.n; i++) v[i] = (pid_tid){hosts.a[i], 0};
  qsort(v, hosts.n, sizeof *v, pid_tid_cmp);
  for (size_t i = 0; i < hosts.n; i++) {
    size_t before = gpus.n;
    pair_get(&gpus, v[i].pid, 0);
    if (gpus.n == before) continue;   /* a GPU's number: named above */
    snprintf(name, sizeof name, "Process %lld", (long long)v[i].pid);
    c->w->name(c, v[i].pid, -1, name, v[i].pid);
  }
  for (size_t i = 0; i < c->threads.n; i++) v[i] = (pid_tid){c->threads.a[i], c->threads.b[i]};
  meta_threads(c, v, c->threads.n, 0);
  n = 0;
  cap = c->threads.n;
  if (rpd_table_exists(c->r, "rocpd_hsaApi")) {
    rc = conv_prepare(c, &st, "SELECT DISTINCT pid, tid FROM rocpd_hsaApi");
    while (rc == RPD_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
      if (n == cap) {
        cap = cap ? cap * 2 : 16;
        v = rpd_xrealloc(v, cap * sizeof *v);
      }
      v[n++] = (pid_tid){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)};
    }
    if (rc == RPD_OK && s != SQLITE_DONE) rc = step_error(c, s);
    sqlite3_finalize(st);
    if (rc == RPD_OK) meta_threads(c, v, n, 1);
  }
  if (rc == RPD_OK) name_tracks(c);
  free(v);
  pair_free(&gpus);
  pair_free(&hosts);
  return rc;
}
