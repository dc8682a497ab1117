#include "tracing.h"

/* Prepare sql (formatted with sqlite3_mprintf %w for the args table) and bind
 * the time window to ?1/?2 when the statement has them. */
int prep(conv *c, sqlite3_stmt **st, const char *fmt) {
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
/* ------------------------------------------------------------ sections */

static char *w_json(char *p, const name_ent *e) {
  memcpy(p, e->json, e->len);
  return p + e->len;
}


/* Every api call in id order (a plain rowid scan with the args joined; api
 * names from the cache).  Also collects the (pid, tid) of every call for
 * the thread names, and the UserMarker ranges for the launch pass (A's
 * sorter). */
int emit_apis(conv *c) {
  sqlite3_stmt *st = NULL;
  size_t th = 0;
  int s = SQLITE_DONE, rc = prep(c, &st,
      "SELECT A.id, A.pid, A.tid, A.start, A.end, A.apiName_id, A.args_id, S.string"
      " FROM rocpd_api A LEFT JOIN \"%w\" S ON S.id = A.args_id ORDER BY A.id");
  while (rc == RPD_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t pid = sqlite3_column_int64(st, 1), tid = sqlite3_column_int64(st, 2);
    int64_t start = sqlite3_column_int64(st, 3), end = sqlite3_column_int64(st, 4);
    if (!c->has_api || end > c->api_end) c->api_end = end;
    c->has_api = 1;
    if (!c->threads.n || c->threads.a[th] != pid || c->threads.b[th] != tid)
      th = pair_get(&c->threads, pid, tid);
    if (!IN_WINDOW(c, start)) continue;
    names_trim(&c->strs);
    const name_ent *name = names_get(&c->out, &c->strs, sqlite3_column_int64(st, 5));
    if (!name) { rc = name_error(c, &c->strs); break; }
    const char *args = col_text(st, 7);
    size_t alen = (size_t)sqlite3_column_bytes(st, 7);
    size_t room = 2 * ESC_MAX(alen) + name->len;
    char *p;
    if (name->marker && start == end) {
      p = ev_begin(&c->out, room);
      p = W(p, "{\"ph\":\"i\",\"s\":\"p\",\"cat\":\"marker\",\"pid\":");
      p = w_i64(p, pid);
      p = W(p, ",\"tid\":");
      p = w_i64(p, tid);
      p = W(p, ",\"name\":");
      p = w_strn(&c->out, p, args, alen);
      p = W(p, ",\"ts\":");
      p = w_us(p, start);
      p = W(p, ",\"args\":{");
      c->n_instant++;
    } else {
      p = ev_head(&c->out, "api", pid, tid, room);
      p = name->marker ? w_strn(&c->out, p, args, alen) : w_json(p, name);
      p = ev_times(p, start, end - start);
      c->n_api++;
    }
    p = W(p, "\"desc\":");
    p = w_strn(&c->out, p, args, alen);
    ev_end(&c->out, W(p, "}}"));
    if (name->marker && start != end) {   /* a range for the launch pass */
      lrec r = {.ts = start, .e = end, .id = sqlite3_column_int64(st, 0),
                .aux = sqlite3_column_int64(st, 6), .thread = (int32_t)th, .queue = -1};
      if ((rc = launch_add(c, &r)) != RPD_OK) break;
    }
  }
  if (rc == RPD_OK && s != SQLITE_ROW && s != SQLITE_DONE) rc = step_error(c, s);
  sqlite3_finalize(st);
  return rc;
}

/* HSA api calls (rocpd_hsaApi, on tid + 1 as the reference). */
int emit_hsa(conv *c) {
  sqlite3_stmt *st = NULL;
  int s = SQLITE_DONE, rc;
  if (!rpd_table_exists(c->r, "rocpd_hsaApi")) return RPD_OK;
  rc = prep(c, &st,
      "SELECT N.string, S.string, A.pid, A.tid, A.start, A.end"
      " FROM rocpd_hsaApi A LEFT JOIN rocpd_string N ON N.id = A.apiName_id"
      " LEFT JOIN rocpd_string S ON S.id = A.args_id"
      " WHERE A.start BETWEEN ?1 AND ?2 ORDER BY A.id");
  while (rc == RPD_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t start = sqlite3_column_int64(st, 4);
    size_t room = ESC_MAX(sqlite3_column_bytes(st, 0)) + ESC_MAX(sqlite3_column_bytes(st, 1));
    char *p = ev_head(&c->out, "hsa_api", sqlite3_column_int64(st, 2),
                      sqlite3_column_int64(st, 3) + 1, room);
    p = w_str(&c->out, p, col_text(st, 0));
    p = ev_times(p, start, sqlite3_column_int64(st, 5) - start);
    p = W(p, "\"desc\":");
    p = w_str(&c->out, p, col_text(st, 1));
    ev_end(&c->out, W(p, "}}"));
    c->n_hsa++;
  }
  if (rc == RPD_OK && s != SQLITE_DONE) rc = step_error(c, s);
  sqlite3_finalize(st);
  return rc;
}

/* Every op in id order (rowid scan, names from the cache); collects the
 * GPUs and their queues. */
int emit_ops(conv *c) {
  sqlite3_stmt *st = NULL;
  int s = SQLITE_DONE, rc = prep(c, &st,
      "SELECT gpuId, queueId, start, end, opType_id, description_id FROM rocpd_op ORDER BY id");
  while (rc == RPD_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t gpu = sqlite3_column_int64(st, 0), queue = sqlite3_column_int64(st, 1);
    int64_t start = sqlite3_column_int64(st, 2), end = sqlite3_column_int64(st, 3);
    if (!c->has_op || end > c->op_end) c->op_end = end;
    c->has_op = 1;
    if (c->gpuset.n == 0 || c->gpuset.a[c->gpuset.n - 1] != gpu) pair_get(&c->gpuset, gpu, 0);
    if (!IN_WINDOW(c, start)) continue;
    names_trim(&c->strs);
    const name_ent *type = names_get(&c->out, &c->strs, sqlite3_column_int64(st, 4));
    const name_ent *desc = type ? names_get(&c->out, &c->strs, sqlite3_column_int64(st, 5)) : NULL;
    if (!desc) { rc = name_error(c, &c->strs); break; }
    char *p = ev_head(&c->out, "op", gpu, queue, type->len + desc->len);
    p = w_json(p, desc->len > 2 ? desc : type);
    p = ev_times(p, start, end - start);
    p = W(p, "\"desc\":");
    p = w_json(p, type);
    ev_end(&c->out, W(p, "}}"));
    c->n_op++;
  }
  if (rc == RPD_OK && s != SQLITE_DONE) rc = step_error(c, s);
  sqlite3_finalize(st);
  return rc;
}

static int64_t cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }
int i64_qcmp(const void *a, const void *b) {
  return (int)cmp_i64(*(const int64_t *)a, *(const int64_t *)b);
}

/* The api->op links in rocpd_api_ops order (the table drives, api and op
 * rows are fetched by rowid): one flow arrow each, and the launch rows for
 * the queue counters and marker frames. */
int emit_links(conv *c) {
  sqlite3_stmt *st = NULL;
  int s = SQLITE_DONE, rc = prep(c, &st,
      "SELECT X.id, A.id, A.pid, A.tid, A.start, A.end, O.gpuId, O.queueId, O.start, O.end"
      " FROM rocpd_api_ops X CROSS JOIN rocpd_api A ON A.id = X.api_id"
      " CROSS JOIN rocpd_op O ON O.id = X.op_id");
  while (rc == RPD_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t xid = sqlite3_column_int64(st, 0);
    int64_t pid = sqlite3_column_int64(st, 2), tid = sqlite3_column_int64(st, 3);
    int64_t ts = sqlite3_column_int64(st, 4), aend = sqlite3_column_int64(st, 5);
    int64_t gpu = sqlite3_column_int64(st, 6), queue = sqlite3_column_int64(st, 7);
    int64_t ostart = sqlite3_column_int64(st, 8), oend = sqlite3_column_int64(st, 9);
    int api_in = IN_WINDOW(c, ts), op_in = IN_WINDOW(c, ostart);
    if (!api_in && !op_in) continue;
    if (api_in) {
      int64_t from = aend - 2000;   /* 2 us before the api ends, as the reference */
      char *p = ev_begin(&c->out, 0);
      p = W(p, "{\"ph\":\"s\",\"cat\":\"api_op\",\"name\":\"api_op\",\"id\":");
      p = w_i64(p, xid);
      p = W(p, ",\"pid\":");
      p = w_i64(p, pid);
      p = W(p, ",\"tid\":");
      p = w_i64(p, tid);
      p = W(p, ",\"ts\":");
      p = w_us(p, from < ostart ? from : ostart);
      ev_end(&c->out, W(p, "}"));
      p = ev_begin(&c->out, 0);
      p = W(p, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"api_op\",\"name\":\"api_op\",\"id\":");
      p = w_i64(p, xid);
      p = W(p, ",\"pid\":");
      p = w_i64(p, gpu);
      p = W(p, ",\"tid\":");
      p = w_i64(p, queue);
      p = W(p, ",\"ts\":");
      p = w_us(p, ostart);
      ev_end(&c->out, W(p, "}"));
      c->n_flow++;
    }
    lrec r = {.ts = ts, .id = sqlite3_column_int64(st, 1), .aux = xid, .ostart = ostart,
              .oend = oend, .thread = (int32_t)pair_get(&c->threads, pid, tid),
              .queue = (int32_t)pair_get(&c->queues, gpu, queue)};
    rc = launch_add(c, &r);
  }
  if (rc == RPD_OK && s != SQLITE_DONE) rc = step_error(c, s);
  sqlite3_finalize(st);
  return rc;
}

int emit_graphs(conv *c) {
  sqlite3_stmt *st = NULL;
  int s = SQLITE_DONE, rc;
  if (!rpd_table_exists(c->r, "rocpd_graphLaunchapi")) return RPD_OK;
  rc = prep(c, &st,
      "SELECT 'Graph ' || ifnull(L.graphExec, ''), O.gpuId, O.queueId, min(O.start), max(O.end), count(*)"
      " FROM rocpd_graphLaunchapi L JOIN rocpd_api_ops X ON X.api_id = L.api_ptr_id"
      " JOIN rocpd_op O ON O.id = X.op_id WHERE O.start BETWEEN ?1 AND ?2"
      " GROUP BY L.api_ptr_id ORDER BY L.api_ptr_id");
  while (rc == RPD_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t start = sqlite3_column_int64(st, 3);
    char *p = ev_head(&c->out, "graph", sqlite3_column_int64(st, 1),
                      sqlite3_column_int64(st, 2), ESC_MAX(sqlite3_column_bytes(st, 0)));
    p = w_str(&c->out, p, col_text(st, 0));
    p = ev_times(p, start, sqlite3_column_int64(st, 4) - start);
    p = W(p, "\"kernels\":");
    p = w_i64(p, sqlite3_column_int64(st, 5));
    ev_end(&c->out, W(p, "}}"));
    c->n_graph++;
  }
  if (rc == RPD_OK && s != SQLITE_DONE) rc = step_error(c, s);
  sqlite3_finalize(st);
  return rc;
}

/* Format a monitor value as a JSON number into num; 0 when it is not a
 * finite number (such rows are skipped). */
static int monitor_value(sqlite3_stmt *st, int i, char num[48]) {
  const char *t;
  char *end;
  double v;
  if (sqlite3_column_type(st, i) == SQLITE_INTEGER) {
    snprintf(num, 48, "%lld", (long long)sqlite3_column_int64(st, i));
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
  snprintf(num, 48, "%.17g", v);
  return 1;
}

static void ev_monitor(conv *c, sqlite3_stmt *st, int64_t ts) {
  char num[48];
  const char *type = col_text(st, 1);
  size_t n = (size_t)sqlite3_column_bytes(st, 1);
  char *p;
  if (!monitor_value(st, 3, num)) return;
  p = ev_begin(&c->out, 2 * ESC_MAX(n) + sizeof num);
  p = W(p, "{\"ph\":\"C\",\"cat\":\"monitor\",\"pid\":");
  p = w_i64(p, sqlite3_column_int64(st, 0));
  p = W(p, ",\"name\":");
  p = w_str(&c->out, p, type);
  p = W(p, ",\"ts\":");
  p = w_us(p, ts);
  p = W(p, ",\"args\":{");
  p = w_str(&c->out, p, type);
  *p++ = ':';
  n = strlen(num);
  memcpy(p, num, n);
  ev_end(&c->out, W(p + n, "}}"));
  c->n_counter++;
}

int emit_monitor(conv *c) {
  sqlite3_stmt *st = NULL;
  int s = SQLITE_DONE, rc;
  if (!rpd_table_exists(c->r, "rocpd_monitor")) return RPD_OK;
  rc = prep(c, &st,
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
    rc = prep(c, &st,
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

/* Process and thread names, written last (the scans collected them):
 * GPU<n> per distinct rocpd_op.gpuId, "Hip <tid>" per api (pid, tid),
 * "HSA <tid>" on tid + 1 per rocpd_hsaApi (pid, tid). */
static void ev_meta(conv *c, const char *what, int64_t pid, int tid_too, int64_t tid,
                    const char *key, const char *sval, int64_t ival) {
  char *p = ev_begin(&c->out, ESC_MAX(strlen(what) + (sval ? strlen(sval) : 0)));
  p = W(p, "{\"name\":");
  p = w_str(&c->out, p, what);
  p = W(p, ",\"ph\":\"M\",\"pid\":");
  p = w_i64(p, pid);
  if (tid_too) {
    p = W(p, ",\"tid\":");
    p = w_i64(p, tid);
  }
  p = W(p, ",\"args\":{");
  p = w_str(&c->out, p, key);
  *p++ = ':';
  p = sval ? w_str(&c->out, p, sval) : w_i64(p, ival);
  ev_end(&c->out, W(p, "}}"));
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
    ev_meta(c, "thread_name", v[i].pid, 1, v[i].tid + hsa, "name", name, 0);
    ev_meta(c, "thread_sort_index", v[i].pid, 1, v[i].tid + hsa, "sort_index", NULL,
            v[i].tid * 2 - hsa);
  }
}

int emit_metadata(conv *c) {
  char name[40];
  sqlite3_stmt *st = NULL;
  int s = SQLITE_DONE, rc = RPD_OK;
  pid_tid *v = NULL;
  size_t n = 0, cap = 0;
  for (size_t i = 0; i < c->ngpus; i++) {
    snprintf(name, sizeof name, "GPU%lld", (long long)c->gpus[i]);
    ev_meta(c, "process_name", c->gpus[i], 0, 0, "name", name, 0);
    ev_meta(c, "process_sort_index", c->gpus[i], 0, 0, "sort_index", NULL, c->gpus[i] + 1000000);
  }
  v = rpd_xmalloc((c->threads.n ? c->threads.n : 1) * sizeof *v);
  for (size_t i = 0; i < c->threads.n; i++) v[i] = (pid_tid){c->threads.a[i], c->threads.b[i]};
  meta_threads(c, v, c->threads.n, 0);
  if (rpd_table_exists(c->r, "rocpd_hsaApi")) {
    rc = prep(c, &st, "SELECT DISTINCT pid, tid FROM rocpd_hsaApi");
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
  free(v);
  return rc;
}
