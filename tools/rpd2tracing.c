/* rpd2tracing - convert an RPD trace to Chrome/Perfetto trace-event JSON.
 *
 * Streams every section straight from prepared statements into a buffered
 * writer (plain file or zlib), so memory stays flat in trace size; the output
 * is written to a temp file next to OUT and renamed into place on success.
 * See docs/rpd2tracing.md for the event layout and the differences from the
 * reference tools/rpd2tracing.py. */
#include "rpd.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static const char usage[] =
"usage: rpd2tracing FILE[.gz] [OUT.json | OUT.json.gz] [--start T] [--end T]\n"
"                   [--format object|array] [-q]\n"
"\n"
"Convert an RPD trace to trace-event JSON for ui.perfetto.dev or\n"
"chrome://tracing.  OUT defaults to FILE with its .rpd[.gz] suffix replaced\n"
"by .json; an OUT ending in .gz is written gzip-compressed.\n"
"\n"
"Events: GPU<n> process and 'Hip <tid>' thread names; every op (pid gpuId,\n"
"tid queueId); every api call on its pid/tid (zero-length UserMarker calls as\n"
"instant events); HSA api calls (rocpd_hsaApi); api->op flow arrows; one\n"
"frame per graph launch (rocpd_graphLaunchapi); QueueDepth and Idle counters\n"
"per GPU; every rocpd_monitor series; UserMarker ranges projected onto the\n"
"GPU queues they launched work on.\n"
"\n"
"  --start T, --end T   keep events starting in [start, end].  T is a bare\n"
"                       number of microseconds (an absolute timestamp, as the\n"
"                       reference), N% of the trace span, +T from the first\n"
"                       api call, -T back from the last, or a number with a\n"
"                       unit (ns, us, ms, s) counted from the first api call\n"
"  --format object      {\"traceEvents\": [...]} (default)\n"
"  --format array       a bare [...] array\n"
"  -q                   do not print the summary line\n";

/* ------------------------------------------------------------ writer */

typedef struct sink {
  rpd_buf b;
  FILE *f;
  gzFile gz;
  int failed;
  int64_t nevents;
} sink;

#define SINK_CHUNK (256 * 1024)
#define PUTS(b, lit) rpd_buf_add((b), (lit), sizeof(lit) - 1)

static void sink_flush(sink *s) {
  if (s->b.len && !s->failed) {
    if (s->gz) {
      if (gzwrite(s->gz, s->b.s, (unsigned)s->b.len) != (int)s->b.len)
        s->failed = 1;
    } else if (fwrite(s->b.s, 1, s->b.len, s->f) != s->b.len) {
      s->failed = 1;
    }
  }
  rpd_buf_reset(&s->b);
}

/* Start a new event: separator, flush when the buffer is full. */
static rpd_buf *ev_begin(sink *s) {
  if (s->b.len >= SINK_CHUNK) sink_flush(s);
  if (s->nevents++) PUTS(&s->b, ",\n");
  return &s->b;
}

static void put_i64(rpd_buf *b, int64_t v) {
  char tmp[24], *p = tmp + sizeof tmp;
  uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
  do { *--p = (char)('0' + u % 10); u /= 10; } while (u);
  if (v < 0) *--p = '-';
  rpd_buf_add(b, p, (size_t)(tmp + sizeof tmp - p));
}

/* ns -> microseconds with exactly three decimals ("12.345"). */
static void put_us(rpd_buf *b, int64_t ns) {
  char tmp[32], *p = tmp + sizeof tmp;
  uint64_t u = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
  for (int i = 0; i < 3; i++) { *--p = (char)('0' + u % 10); u /= 10; }
  *--p = '.';
  do { *--p = (char)('0' + u % 10); u /= 10; } while (u);
  if (ns < 0) *--p = '-';
  rpd_buf_add(b, p, (size_t)(tmp + sizeof tmp - p));
}

static void put_str(rpd_buf *b, const char *s) {
  PUTS(b, "\"");
  if (s) rpd_json_escape(b, s);
  PUTS(b, "\"");
}

static const char *col_text(sqlite3_stmt *st, int i) {
  const char *s = (const char *)sqlite3_column_text(st, i);
  return s ? s : "";
}

/* {"ph":"X","cat":CAT,"pid":P,"tid":T,"name":NAME,"ts":..,"dur":..,"args":{ */
static rpd_buf *ev_complete(sink *s, const char *cat, int64_t pid, int64_t tid,
                            const char *name, int64_t start, int64_t dur) {
  rpd_buf *b = ev_begin(s);
  PUTS(b, "{\"ph\":\"X\",\"cat\":\"");
  rpd_buf_puts(b, cat);
  PUTS(b, "\",\"pid\":");
  put_i64(b, pid);
  PUTS(b, ",\"tid\":");
  put_i64(b, tid);
  PUTS(b, ",\"name\":");
  put_str(b, name);
  PUTS(b, ",\"ts\":");
  put_us(b, start);
  PUTS(b, ",\"dur\":");
  put_us(b, dur);
  PUTS(b, ",\"args\":{");
  return b;
}

static void ev_counter(sink *s, int64_t pid, const char *name, int64_t ts,
                       const char *key, int64_t value) {
  rpd_buf *b = ev_begin(s);
  PUTS(b, "{\"ph\":\"C\",\"pid\":");
  put_i64(b, pid);
  PUTS(b, ",\"name\":");
  put_str(b, name);
  PUTS(b, ",\"ts\":");
  put_us(b, ts);
  PUTS(b, ",\"args\":{");
  put_str(b, key);
  PUTS(b, ":");
  put_i64(b, value);
  PUTS(b, "}}");
}

/* ------------------------------------------------------------ context */

typedef struct conv {
  rpd *r;
  sink out;
  const char *args_table;   /* rocpd_string (v2) or rocpd_ustring (v3) */
  int64_t lo, hi;           /* keep events starting in [lo, hi] (ns) */
  int64_t t_end;            /* counters extend to here (ns) */
  int64_t *gpus;            /* distinct rocpd_op.gpuId, ascending */
  size_t ngpus;
  int64_t n_op, n_api, n_instant, n_flow, n_graph, n_hsa, n_counter, n_frame;
} conv;

/* Prepare sql (formatted with sqlite3_mprintf %w for the args table) and bind
 * the time window to ?1/?2 when the statement has them. */
static int prep(conv *c, sqlite3_stmt **st, const char *fmt) {
  char *sql = sqlite3_mprintf(fmt, c->args_table);
  int rc = rpd_prepare(c->r, sql, st);
  sqlite3_free(sql);
  if (rc == RPD_OK && sqlite3_bind_parameter_count(*st) >= 2) {
    sqlite3_bind_int64(*st, 1, c->lo);
    sqlite3_bind_int64(*st, 2, c->hi);
  }
  return rc;
}

/* ------------------------------------------------------------ sections */

static int emit_metadata(conv *c) {
  sqlite3_stmt *st = NULL;
  int rc, s;
  size_t cap = 0;

  rc = prep(c, &st, "SELECT DISTINCT gpuId FROM rocpd_op ORDER BY gpuId");
  while (rc == RPD_OK && (s = rpd_step(c->r, st)) == SQLITE_ROW) {
    int64_t g = sqlite3_column_int64(st, 0);
    char name[40];
    if (c->ngpus == cap) {
      cap = cap ? cap * 2 : 8;
      c->gpus = rpd_xrealloc(c->gpus, cap * sizeof *c->gpus);
    }
    c->gpus[c->ngpus++] = g;
    snprintf(name, sizeof name, "GPU%lld", (long long)g);
    rpd_buf *b = ev_begin(&c->out);
    PUTS(b, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":");
    put_i64(b, g);
    PUTS(b, ",\"args\":{\"name\":");
    put_str(b, name);
    PUTS(b, "}}");
    b = ev_begin(&c->out);
    PUTS(b, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":");
    put_i64(b, g);
    PUTS(b, ",\"args\":{\"sort_index\":");
    put_i64(b, g + 1000000);
    PUTS(b, "}}");
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  sqlite3_finalize(st);
  st = NULL;

  for (int hsa = 0; hsa < 2 && rc == RPD_OK; hsa++) {
    if (hsa && !rpd_table_exists(c->r, "rocpd_hsaApi")) break;
    rc = prep(c, &st, hsa ? "SELECT DISTINCT pid, tid FROM rocpd_hsaApi"
                          : "SELECT DISTINCT pid, tid FROM rocpd_api");
    while (rc == RPD_OK && (s = rpd_step(c->r, st)) == SQLITE_ROW) {
      int64_t pid = sqlite3_column_int64(st, 0), tid = sqlite3_column_int64(st, 1);
      char name[48];
      snprintf(name, sizeof name, "%s %lld", hsa ? "HSA" : "Hip", (long long)tid);
      rpd_buf *b = ev_begin(&c->out);
      PUTS(b, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":");
      put_i64(b, pid);
      PUTS(b, ",\"tid\":");
      put_i64(b, tid + hsa);
      PUTS(b, ",\"args\":{\"name\":");
      put_str(b, name);
      PUTS(b, "}}");
      b = ev_begin(&c->out);
      PUTS(b, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":");
      put_i64(b, pid);
      PUTS(b, ",\"tid\":");
      put_i64(b, tid + hsa);
      PUTS(b, ",\"args\":{\"sort_index\":");
      put_i64(b, tid * 2 - hsa);
      PUTS(b, "}}");
    }
    if (rc == RPD_OK && s < 0) rc = -s;
    sqlite3_finalize(st);
    st = NULL;
  }
  return rc;
}

static int emit_ops(conv *c) {
  sqlite3_stmt *st = NULL;
  int s, rc = prep(c,
      &st,
      "SELECT T.string, D.string, O.gpuId, O.queueId, O.start, O.end"
      " FROM rocpd_op O LEFT JOIN rocpd_string T ON T.id = O.opType_id"
      " LEFT JOIN rocpd_string D ON D.id = O.description_id"
      " WHERE O.start BETWEEN ?1 AND ?2");
  while (rc == RPD_OK && (s = rpd_step(c->r, st)) == SQLITE_ROW) {
    const char *type = col_text(st, 0), *desc = col_text(st, 1);
    int64_t start = sqlite3_column_int64(st, 4);
    rpd_buf *b = ev_complete(&c->out, "op", sqlite3_column_int64(st, 2),
                             sqlite3_column_int64(st, 3), *desc ? desc : type,
                             start, sqlite3_column_int64(st, 5) - start);
    PUTS(b, "\"desc\":");
    put_str(b, type);
    PUTS(b, "}}");
    c->n_op++;
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  sqlite3_finalize(st);
  return rc;
}

static int emit_graphs(conv *c) {
  sqlite3_stmt *st = NULL;
  int s, rc;
  if (!rpd_table_exists(c->r, "rocpd_graphLaunchapi")) return RPD_OK;
  rc = prep(c, &st,
      "SELECT L.graphExec, O.gpuId, O.queueId, min(O.start), max(O.end), count(*)"
      " FROM rocpd_graphLaunchapi L JOIN rocpd_api_ops X ON X.api_id = L.api_ptr_id"
      " JOIN rocpd_op O ON O.id = X.op_id WHERE O.start BETWEEN ?1 AND ?2"
      " GROUP BY L.api_ptr_id ORDER BY L.api_ptr_id");
  while (rc == RPD_OK && (s = rpd_step(c->r, st)) == SQLITE_ROW) {
    char *name = rpd_xasprintf("Graph %s", col_text(st, 0));
    int64_t start = sqlite3_column_int64(st, 3);
    rpd_buf *b = ev_complete(&c->out, "graph", sqlite3_column_int64(st, 1),
                             sqlite3_column_int64(st, 2), name, start,
                             sqlite3_column_int64(st, 4) - start);
    PUTS(b, "\"kernels\":");
    put_i64(b, sqlite3_column_int64(st, 5));
    PUTS(b, "}}");
    free(name);
    c->n_graph++;
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  sqlite3_finalize(st);
  return rc;
}

/* Api calls (hsa = 0) or HSA api calls (hsa = 1, on tid + 1 as the
 * reference). */
static int emit_apis(conv *c, int hsa) {
  sqlite3_stmt *st = NULL;
  int s, rc;
  if (hsa && !rpd_table_exists(c->r, "rocpd_hsaApi")) return RPD_OK;
  rc = prep(c, &st, hsa
      ? "SELECT N.string, S.string, A.pid, A.tid, A.start, A.end"
        " FROM rocpd_hsaApi A LEFT JOIN rocpd_string N ON N.id = A.apiName_id"
        " LEFT JOIN rocpd_string S ON S.id = A.args_id"
        " WHERE A.start BETWEEN ?1 AND ?2 ORDER BY A.id"
      : "SELECT N.string, S.string, A.pid, A.tid, A.start, A.end"
        " FROM rocpd_api A LEFT JOIN rocpd_string N ON N.id = A.apiName_id"
        " LEFT JOIN \"%w\" S ON S.id = A.args_id"
        " WHERE A.start BETWEEN ?1 AND ?2 ORDER BY A.id");
  while (rc == RPD_OK && (s = rpd_step(c->r, st)) == SQLITE_ROW) {
    const char *name = col_text(st, 0), *args = col_text(st, 1);
    int64_t pid = sqlite3_column_int64(st, 2), tid = sqlite3_column_int64(st, 3);
    int64_t start = sqlite3_column_int64(st, 4), end = sqlite3_column_int64(st, 5);
    int marker = !hsa && strcmp(name, "UserMarker") == 0;
    rpd_buf *b;
    if (marker && start == end) {
      b = ev_begin(&c->out);
      PUTS(b, "{\"ph\":\"i\",\"s\":\"p\",\"cat\":\"marker\",\"pid\":");
      put_i64(b, pid);
      PUTS(b, ",\"tid\":");
      put_i64(b, tid);
      PUTS(b, ",\"name\":");
      put_str(b, args);
      PUTS(b, ",\"ts\":");
      put_us(b, start);
      PUTS(b, ",\"args\":{");
      c->n_instant++;
    } else {
      b = ev_complete(&c->out, hsa ? "hsa_api" : "api", pid, tid + hsa,
                      marker ? args : name, start, end - start);
      if (hsa) c->n_hsa++; else c->n_api++;
    }
    PUTS(b, "\"desc\":");
    put_str(b, args);
    PUTS(b, "}}");
  }
  if (rc == RPD_OK && s < 0) rc = -s;
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
  rpd_buf *b;
  if (!monitor_value(st, 3, num)) return;
  b = ev_begin(&c->out);
  PUTS(b, "{\"ph\":\"C\",\"cat\":\"monitor\",\"pid\":");
  put_i64(b, sqlite3_column_int64(st, 0));
  PUTS(b, ",\"name\":");
  put_str(b, type);
  PUTS(b, ",\"ts\":");
  put_us(b, ts);
  PUTS(b, ",\"args\":{");
  put_str(b, type);
  PUTS(b, ":");
  rpd_buf_puts(b, num);
  PUTS(b, "}}");
  c->n_counter++;
}

static int emit_monitor(conv *c) {
  sqlite3_stmt *st = NULL;
  int s, rc;
  if (!rpd_table_exists(c->r, "rocpd_monitor")) return RPD_OK;
  rc = prep(c, &st,
      "SELECT deviceId, monitorType, start, value FROM rocpd_monitor"
      " WHERE start BETWEEN ?1 AND ?2 ORDER BY id");
  while (rc == RPD_OK && (s = rpd_step(c->r, st)) == SQLITE_ROW)
    ev_monitor(c, st, sqlite3_column_int64(st, 2));
  if (rc == RPD_OK && s < 0) rc = -s;
  sqlite3_finalize(st);
  st = NULL;
  /* The last value of each series holds until its last end, or the end of
   * the trace (or --end) when that is later. */
  if (rc == RPD_OK)
    rc = prep(c, &st,
        "SELECT deviceId, monitorType, max(end), value FROM rocpd_monitor"
        " WHERE start BETWEEN ?1 AND ?2 GROUP BY deviceId, monitorType"
        " ORDER BY deviceId, monitorType");
  while (rc == RPD_OK && (s = rpd_step(c->r, st)) == SQLITE_ROW) {
    int64_t end = sqlite3_column_int64(st, 2);
    ev_monitor(c, st, end > c->t_end ? end : c->t_end);
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  sqlite3_finalize(st);
  return rc;
}

/* ------------------------------------------------------------ marker frames */

/* Per (pid, tid): the open UserMarker ranges and the GPU frame being built
 * from the ops launched under the innermost one.  Labels are looked up by
 * args id only when a frame is written, so the sort carries no strings. */
typedef struct marker {
  int64_t id, end, args_id;
} marker;

typedef struct queue_id {
  int64_t gpu, queue;
} queue_id;

typedef struct gpu_frame {
  int active;
  int64_t marker_id, args_id;
  int64_t start, end, ops;
  queue_id *queues;
  size_t nqueues, cap;
} gpu_frame;

typedef struct thread_state {
  int used;
  int64_t pid, tid;
  marker *stack;
  size_t depth, cap;
  gpu_frame frame;
} thread_state;

typedef struct thread_map {
  thread_state *slot;
  size_t cap, n;
} thread_map;

static size_t thread_hash(int64_t pid, int64_t tid) {
  uint64_t h = (uint64_t)pid * 0x9E3779B97F4A7C15ull ^ (uint64_t)tid * 0xC2B2AE3D27D4EB4Full;
  return (size_t)(h ^ (h >> 29));
}

/* The state of (pid, tid), created on first use.  Owned by the map. */
static thread_state *thread_get(thread_map *m, int64_t pid, int64_t tid) {
  if (2 * (m->n + 1) > m->cap) {
    thread_map bigger = {rpd_xcalloc(m->cap ? m->cap * 2 : 64, sizeof(thread_state)),
                         m->cap ? m->cap * 2 : 64, 0};
    for (size_t i = 0; i < m->cap; i++) {
      if (!m->slot[i].used) continue;
      size_t j = thread_hash(m->slot[i].pid, m->slot[i].tid) & (bigger.cap - 1);
      while (bigger.slot[j].used) j = (j + 1) & (bigger.cap - 1);
      bigger.slot[j] = m->slot[i];
      bigger.n++;
    }
    free(m->slot);
    *m = bigger;
  }
  size_t j = thread_hash(pid, tid) & (m->cap - 1);
  while (m->slot[j].used && (m->slot[j].pid != pid || m->slot[j].tid != tid))
    j = (j + 1) & (m->cap - 1);
  if (!m->slot[j].used) {
    m->slot[j].used = 1;
    m->slot[j].pid = pid;
    m->slot[j].tid = tid;
    m->n++;
  }
  return &m->slot[j];
}

/* Write the frame once per GPU queue it touched, named by its marker label. */
static int frame_emit(conv *c, sqlite3_stmt *label, gpu_frame *f) {
  char desc[64];
  const char *name = "";
  int s = SQLITE_DONE;
  if (!f->active) return RPD_OK;
  f->active = 0;
  sqlite3_bind_int64(label, 1, f->args_id);
  if ((s = rpd_step(c->r, label)) == SQLITE_ROW) name = col_text(label, 0);
  if (s < 0) return -s;
  snprintf(desc, sizeof desc, "UserMarker frame: %lld ops", (long long)f->ops);
  for (size_t i = 0; i < f->nqueues; i++) {
    rpd_buf *b = ev_complete(&c->out, "marker_frame", f->queues[i].gpu,
                             f->queues[i].queue, name, f->start - 1000,
                             f->end - f->start + 1000);
    PUTS(b, "\"desc\":");
    put_str(b, desc);
    PUTS(b, "}}");
    c->n_frame++;
  }
  f->nqueues = 0;
  sqlite3_reset(label);
  return RPD_OK;
}

static void frame_add_queue(gpu_frame *f, int64_t gpu, int64_t queue) {
  for (size_t i = 0; i < f->nqueues; i++)
    if (f->queues[i].gpu == gpu && f->queues[i].queue == queue) return;
  if (f->nqueues == f->cap) {
    f->cap = f->cap ? f->cap * 2 : 4;
    f->queues = rpd_xrealloc(f->queues, f->cap * sizeof *f->queues);
  }
  f->queues[f->nqueues++] = (queue_id){gpu, queue};
}

#define FRAME_JOIN_NS 200000   /* ops closer than 200 us join one frame */

/* An op launched by thread t: extend the current frame when it belongs to
 * the same marker and touches it, else write the frame and start anew. */
static int frame_op(conv *c, sqlite3_stmt *label, thread_state *t, int64_t gpu,
                    int64_t queue, int64_t start, int64_t end) {
  marker *m;
  gpu_frame *f = &t->frame;
  int rc;
  if (!t->depth) return RPD_OK;
  m = &t->stack[t->depth - 1];
  if (f->active && f->marker_id == m->id &&
      (llabs(start - f->end) < FRAME_JOIN_NS || llabs(f->start - end) < FRAME_JOIN_NS)) {
    if (start < f->start) f->start = start;
    if (end > f->end) f->end = end;
    frame_add_queue(f, gpu, queue);
    f->ops++;
    return RPD_OK;
  }
  if ((rc = frame_emit(c, label, f)) != RPD_OK) return rc;
  f->active = 1;
  f->marker_id = m->id;
  f->args_id = m->args_id;
  f->start = start;
  f->end = end;
  f->ops = 1;
  frame_add_queue(f, gpu, queue);
  return RPD_OK;
}

/* Close the markers of t that ended at or before ts (ends sort before
 * starts and launches at the same time). */
static void markers_expire(thread_state *t, int64_t ts) {
  size_t k = 0;
  for (size_t i = 0; i < t->depth; i++)
    if (t->stack[i].end > ts) t->stack[k++] = t->stack[i];
  t->depth = k;
}

static void marker_push(thread_state *t, marker m) {
  if (t->depth == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 8;
    t->stack = rpd_xrealloc(t->stack, t->cap * sizeof *t->stack);
  }
  t->stack[t->depth++] = m;
}

/* ------------------------------------------------------------ launches */

/* Per GPU QueueDepth/Idle state: +1 at each launching api's start, -1 at
 * the op's end (ops kept by their start), as the reference.  Pending op ends
 * wait in a min-heap (its size is the queue depth, not the trace size);
 * ends strictly before a launch are applied first, so ties put +1 first. */
typedef struct gpu_queue {
  int64_t gpu, depth, idle;
  int64_t *ends;
  size_t nends, cap;
} gpu_queue;

static void heap_push(gpu_queue *q, int64_t v) {
  size_t i;
  if (q->nends == q->cap) {
    q->cap = q->cap ? q->cap * 2 : 64;
    q->ends = rpd_xrealloc(q->ends, q->cap * sizeof *q->ends);
  }
  for (i = q->nends++; i > 0 && q->ends[(i - 1) / 2] > v; i = (i - 1) / 2)
    q->ends[i] = q->ends[(i - 1) / 2];
  q->ends[i] = v;
}

static int64_t heap_pop(gpu_queue *q) {
  int64_t top = q->ends[0], last = q->ends[--q->nends];
  size_t i = 0, n = q->nends;
  for (;;) {
    size_t k = 2 * i + 1;
    if (k >= n) break;
    if (k + 1 < n && q->ends[k + 1] < q->ends[k]) k++;
    if (q->ends[k] >= last) break;
    q->ends[i] = q->ends[k];
    i = k;
  }
  if (n) q->ends[i] = last;
  return top;
}

static void queue_step(conv *c, gpu_queue *q, int64_t ts, int d) {
  if (q->idle && d > 0) {
    q->idle = 0;
    ev_counter(&c->out, q->gpu, "Idle", ts, "idle", 0);
    c->n_counter++;
  }
  if (q->depth == 1 && d < 0) {
    q->idle = 1;
    ev_counter(&c->out, q->gpu, "Idle", ts, "idle", 1);
    c->n_counter++;
  }
  q->depth += d;
  ev_counter(&c->out, q->gpu, "QueueDepth", ts, "depth", q->depth);
  c->n_counter++;
}

/* Apply the pending op ends of q that are before `before` (all with all=1). */
static void queue_drain(conv *c, gpu_queue *q, int64_t before, int all) {
  while (q->nends && (all || q->ends[0] < before)) queue_step(c, q, heap_pop(q), -1);
}

static gpu_queue *queue_find(gpu_queue *qs, size_t n, int64_t gpu) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (qs[mid].gpu < gpu) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && qs[lo].gpu == gpu ? &qs[lo] : NULL;
}

/* One row of the launch pass: a UserMarker range (k = 1) or an api->op
 * launch (k = 2), in the order ts, k, e DESC, id, aux. */
typedef struct launch {
  int64_t ts;       /* api start */
  int64_t e;        /* marker end (0 for launches; sort key) */
  int64_t id;       /* api id */
  int64_t aux;      /* marker: args id; launch: rocpd_api_ops id */
  int64_t pid, tid;
  int64_t gpu, queue, ostart, oend, aend;   /* launches only */
  int k;
} launch;

static int launch_cmp(const void *pa, const void *pb) {
  const launch *a = pa, *b = pb;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  if (a->k != b->k) return a->k < b->k ? -1 : 1;
  if (a->e != b->e) return a->e > b->e ? -1 : 1;
  if (a->id != b->id) return a->id < b->id ? -1 : 1;
  return a->aux < b->aux ? -1 : a->aux > b->aux;
}

static void emit_flow(conv *c, const launch *l) {
  int64_t from = l->aend - 2000;  /* 2 us before the api ends, as the reference */
  rpd_buf *b = ev_begin(&c->out);
  PUTS(b, "{\"ph\":\"s\",\"cat\":\"api_op\",\"name\":\"api_op\",\"id\":");
  put_i64(b, l->aux);
  PUTS(b, ",\"pid\":");
  put_i64(b, l->pid);
  PUTS(b, ",\"tid\":");
  put_i64(b, l->tid);
  PUTS(b, ",\"ts\":");
  put_us(b, from < l->ostart ? from : l->ostart);
  PUTS(b, "}");
  b = ev_begin(&c->out);
  PUTS(b, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"api_op\",\"name\":\"api_op\",\"id\":");
  put_i64(b, l->aux);
  PUTS(b, ",\"pid\":");
  put_i64(b, l->gpu);
  PUTS(b, ",\"tid\":");
  put_i64(b, l->queue);
  PUTS(b, ",\"ts\":");
  put_us(b, l->ostart);
  PUTS(b, "}");
  c->n_flow++;
}

typedef struct launch_pass {
  conv *c;
  sqlite3_stmt *label;
  thread_map threads;
  gpu_queue *queues;
} launch_pass;

/* Flow arrows and marker frames (launches kept by api start) and the
 * per-GPU queue counters (kept by op start) for one row. */
static int launch_row(launch_pass *p, const launch *l) {
  conv *c = p->c;
  thread_state *t = thread_get(&p->threads, l->pid, l->tid);
  markers_expire(t, l->ts);
  if (l->k == 1) {
    marker_push(t, (marker){l->id, l->e, l->aux});
    return RPD_OK;
  }
  if (l->ostart >= c->lo && l->ostart <= c->hi) {
    gpu_queue *q = queue_find(p->queues, c->ngpus, l->gpu);
    if (q) {
      queue_drain(c, q, l->ts, 0);
      queue_step(c, q, l->ts, 1);
      heap_push(q, l->oend);
    }
  }
  if (l->ts < c->lo || l->ts > c->hi) return RPD_OK;
  emit_flow(c, l);
  return frame_op(c, p->label, t, l->gpu, l->queue, l->ostart, l->oend);
}

static const char launch_sql[] =
    "SELECT 1 AS k, A.start AS ts, A.pid, A.tid, A.id AS i, A.end AS e, A.args_id AS x,"
    "  0, 0, 0, 0, 0 FROM rocpd_api A"
    "  WHERE A.apiName_id IN (SELECT id FROM rocpd_string WHERE string = 'UserMarker')"
    "  AND A.start != A.end AND A.start BETWEEN ?1 AND ?2"
    " UNION ALL SELECT 2, A.start, A.pid, A.tid, A.id, 0, X.id,"
    "  O.gpuId, O.queueId, O.start, O.end, A.end FROM rocpd_api_ops X"
    "  JOIN rocpd_api A ON A.id = X.api_id JOIN rocpd_op O ON O.id = X.op_id"
    "  WHERE A.start BETWEEN ?1 AND ?2 OR O.start BETWEEN ?1 AND ?2"
    " ORDER BY ts, k, e DESC, i, x";

/* The launch rows sorted by SQLite (bounded memory: its sorter spills). */
static int launches_sql(launch_pass *p) {
  sqlite3_stmt *st = NULL;
  int s = SQLITE_DONE, rc = prep(p->c, &st, launch_sql);
  while (rc == RPD_OK && (s = rpd_step(p->c->r, st)) == SQLITE_ROW) {
    launch l;
    l.k = sqlite3_column_int(st, 0);
    l.ts = sqlite3_column_int64(st, 1);
    l.pid = sqlite3_column_int64(st, 2);
    l.tid = sqlite3_column_int64(st, 3);
    l.id = sqlite3_column_int64(st, 4);
    l.e = sqlite3_column_int64(st, 5);
    l.aux = sqlite3_column_int64(st, 6);
    l.gpu = sqlite3_column_int64(st, 7);
    l.queue = sqlite3_column_int64(st, 8);
    l.ostart = sqlite3_column_int64(st, 9);
    l.oend = sqlite3_column_int64(st, 10);
    l.aend = sqlite3_column_int64(st, 11);
    rc = launch_row(p, &l);
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  sqlite3_finalize(st);
  return rc;
}

/* ---- the same rows built in memory: plain table scans merged by id and
 * one qsort, several times faster than the SQL join + sort.  Used while the
 * rows fit in LAUNCH_MEM_MAX bytes (RPD2TRACING_MEM_MAX overrides, for
 * tests); larger traces take launches_sql. */
#define LAUNCH_MEM_MAX ((size_t)384 << 20)

typedef struct op_row { int64_t id, gpu, queue, start, end; } op_row;
typedef struct link_row { int64_t id, api, op; } link_row;

typedef struct mem_launches {
  launch *v;
  size_t n, cap;
  op_row *ops;
  size_t nops;
  link_row *links;
  size_t nlinks;
  size_t budget, used;
} mem_launches;

/* Grow *v to hold n+1 items of size sz within the budget; 0 when over. */
static int mem_grow(mem_launches *m, void **v, size_t *cap, size_t n, size_t sz) {
  if (n < *cap) return 1;
  size_t ncap = *cap ? *cap * 2 : 4096;
  if (m->used + (ncap - *cap) * sz > m->budget) return 0;
  m->used += (ncap - *cap) * sz;
  *v = rpd_xrealloc(*v, ncap * sz);
  *cap = ncap;
  return 1;
}

static int link_cmp(const void *pa, const void *pb) {
  const link_row *a = pa, *b = pb;
  if (a->api != b->api) return a->api < b->api ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

static const op_row *op_find(const mem_launches *m, int64_t id) {
  size_t lo = 0, hi = m->nops;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (m->ops[mid].id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < m->nops && m->ops[lo].id == id ? &m->ops[lo] : NULL;
}

/* Fill m; RPD_OK, RPD_ERANGE when over budget, or an SQL error. */
static int mem_load(conv *c, mem_launches *m) {
  sqlite3_stmt *st = NULL;
  size_t cap_ops = 0, cap_links = 0;
  int s = SQLITE_DONE, rc, sorted = 1;
  size_t j = 0;

  rc = prep(c, &st, "SELECT id, gpuId, queueId, start, end FROM rocpd_op ORDER BY id");
  while (rc == RPD_OK && (s = rpd_step(c->r, st)) == SQLITE_ROW) {
    if (!mem_grow(m, (void **)&m->ops, &cap_ops, m->nops, sizeof *m->ops)) rc = RPD_ERANGE;
    else m->ops[m->nops++] = (op_row){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                                      sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
                                      sqlite3_column_int64(st, 4)};
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  sqlite3_finalize(st);
  st = NULL;
  if (rc == RPD_OK) rc = prep(c, &st, "SELECT id, api_id, op_id FROM rocpd_api_ops");
  while (rc == RPD_OK && (s = rpd_step(c->r, st)) == SQLITE_ROW) {
    link_row l = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                  sqlite3_column_int64(st, 2)};
    if (!mem_grow(m, (void **)&m->links, &cap_links, m->nlinks, sizeof *m->links)) {
      rc = RPD_ERANGE;
      break;
    }
    if (m->nlinks && link_cmp(&m->links[m->nlinks - 1], &l) > 0) sorted = 0;
    m->links[m->nlinks++] = l;
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  sqlite3_finalize(st);
  st = NULL;
  if (rc == RPD_OK && !sorted && m->nlinks) qsort(m->links, m->nlinks, sizeof *m->links, link_cmp);
  /* one scan of rocpd_api in id order, merged with the links by api id */
  if (rc == RPD_OK)
    rc = prep(c, &st,
        "SELECT id, pid, tid, start, end, args_id, apiName_id IN"
        " (SELECT id FROM rocpd_string WHERE string = 'UserMarker') FROM rocpd_api ORDER BY id");
  while (rc == RPD_OK && (s = rpd_step(c->r, st)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0), start = sqlite3_column_int64(st, 3);
    int64_t end = sqlite3_column_int64(st, 4);
    launch l = {.ts = start, .id = id, .pid = sqlite3_column_int64(st, 1),
                .tid = sqlite3_column_int64(st, 2)};
    while (j < m->nlinks && m->links[j].api < id) j++;
    if (sqlite3_column_int(st, 6) && start != end && start >= c->lo && start <= c->hi) {
      l.k = 1;
      l.e = end;
      l.aux = sqlite3_column_int64(st, 5);
      if (!mem_grow(m, (void **)&m->v, &m->cap, m->n, sizeof *m->v)) { rc = RPD_ERANGE; break; }
      m->v[m->n++] = l;
    }
    for (; j < m->nlinks && m->links[j].api == id; j++) {
      const op_row *o = op_find(m, m->links[j].op);
      if (!o || !((start >= c->lo && start <= c->hi) || (o->start >= c->lo && o->start <= c->hi)))
        continue;
      l.k = 2;
      l.e = 0;
      l.aux = m->links[j].id;
      l.gpu = o->gpu;
      l.queue = o->queue;
      l.ostart = o->start;
      l.oend = o->end;
      l.aend = end;
      if (!mem_grow(m, (void **)&m->v, &m->cap, m->n, sizeof *m->v)) { rc = RPD_ERANGE; break; }
      m->v[m->n++] = l;
    }
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  sqlite3_finalize(st);
  return rc;
}

/* RPD_OK when the rows were processed in memory, RPD_ERANGE when they do
 * not fit (nothing was written then), or an SQL error. */
static int launches_mem(launch_pass *p) {
  mem_launches m = {0};
  const char *env = getenv("RPD2TRACING_MEM_MAX");
  int rc;
  m.budget = env ? (size_t)strtoull(env, NULL, 10) : LAUNCH_MEM_MAX;
  rc = mem_load(p->c, &m);
  free(m.ops);
  free(m.links);
  if (rc == RPD_OK) {
    if (m.n) qsort(m.v, m.n, sizeof *m.v, launch_cmp);
    for (size_t i = 0; i < m.n && rc == RPD_OK; i++) rc = launch_row(p, &m.v[i]);
  }
  free(m.v);
  return rc;
}

/* One pass, in launch-time order, over the UserMarker ranges and the
 * api->op launches: flow arrows, marker frames and queue counters. */
static int emit_launches(conv *c) {
  launch_pass p = {.c = c};
  int rc;
  p.queues = rpd_xcalloc(c->ngpus ? c->ngpus : 1, sizeof *p.queues);
  for (size_t i = 0; i < c->ngpus; i++) {
    p.queues[i].gpu = c->gpus[i];
    p.queues[i].idle = 1;
  }
  rc = prep(c, &p.label, "SELECT string FROM \"%w\" WHERE id = ?");
  if (rc == RPD_OK) {
    rc = launches_mem(&p);
    if (rc == RPD_ERANGE) rc = launches_sql(&p);
  }
  /* The reference drops each thread's last frame; write it. */
  for (size_t i = 0; i < p.threads.cap; i++) {
    thread_state *t = &p.threads.slot[i];
    if (!t->used) continue;
    if (rc == RPD_OK) rc = frame_emit(c, p.label, &t->frame);
    free(t->frame.queues);
    free(t->stack);
  }
  for (size_t i = 0; i < c->ngpus; i++) {
    gpu_queue *q = &p.queues[i];
    if (rc == RPD_OK) {
      queue_drain(c, q, 0, 1);
      if (c->t_end > 0) {
        ev_counter(&c->out, q->gpu, "Idle", c->t_end, "idle", q->idle);
        ev_counter(&c->out, q->gpu, "QueueDepth", c->t_end, "depth", q->depth);
        c->n_counter += 2;
      }
    }
    free(q->ends);
  }
  free(p.queues);
  free(p.threads.slot);
  sqlite3_finalize(p.label);
  return rc;
}

/* ------------------------------------------------------------ driver */

typedef struct opts {
  const char *in, *out, *start, *end;
  int array, quiet;
} opts;

static int parse_args(int argc, char **argv, opts *o) {
  int only_files = 0;   /* after "--" */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val = NULL;
    const char **dst = NULL;
    if (only_files) {
      /* a file name, even if it starts with a dash */
    }
    else if (!strcmp(a, "--")) { only_files = 1; continue; }
    else if (!strncmp(a, "--start", 7) && (a[7] == 0 || a[7] == '=')) dst = &o->start;
    else if (!strncmp(a, "--end", 5) && (a[5] == 0 || a[5] == '=')) dst = &o->end;
    else if (!strncmp(a, "--format", 8) && (a[8] == 0 || a[8] == '=')) dst = &val;
    else if (!strcmp(a, "-q")) { o->quiet = 1; continue; }
    else if (a[0] == '-' && a[1]) return rpd_usage_error("unknown option '%s'", a);
    if (dst) {
      const char *eq = strchr(a, '=');
      if (eq) *dst = eq + 1;
      else if (i + 1 < argc) *dst = argv[++i];
      else return rpd_usage_error("option '%s' needs a value", a);
      if (dst == &val) {
        if (!strcmp(val, "array")) o->array = 1;
        else if (!strcmp(val, "object")) o->array = 0;
        else return rpd_usage_error("--format must be 'object' or 'array', not '%s'", val);
      }
      continue;
    }
    if (!o->in) o->in = a;
    else if (!o->out) o->out = a;
    else return rpd_usage_error("unexpected argument '%s'", a);
  }
  if (!o->in) return rpd_usage_error("missing FILE");
  return 0;
}

/* FILE with .gz dropped and its last suffix replaced by .json; caller frees. */
static char *default_out(const char *in) {
  size_t n = strlen(in);
  const char *base = strrchr(in, '/');
  base = base ? base + 1 : in;
  if (n > 3 && !strcmp(in + n - 3, ".gz") && in + n - 3 > base) n -= 3;
  for (size_t i = n; i > (size_t)(base - in) + 1; i--)
    if (in[i - 1] == '.') { n = i - 1; break; }
  return rpd_xasprintf("%.*s.json", (int)n, in);
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && !strcmp(s + a - b, suffix);
}

/* Resolve --start/--end text to ns.  Bare numbers without a unit are
 * absolute microseconds (the reference); with a unit they count from the
 * first api call; +T, -T and N% as the common time forms. */
static int resolve_time(const char *opt, const char *text, int64_t first,
                        int64_t last, int64_t *ns) {
  rpd_time t;
  if (rpd_time_parse(text, "us", &t) != RPD_OK)
    return rpd_usage_error("%s: %s", opt, rpd_errmsg());
  if (t.kind == RPD_TIME_BARE && !t.had_unit) *ns = (int64_t)llround(t.ns);
  else *ns = rpd_time_resolve(&t, first, first, last);
  return 0;
}

static char *tmp_out;   /* the temp output path while it exists */

static void on_signal(int sig) {
  if (tmp_out) unlink(tmp_out);
  rpd_cleanup_temps();
  signal(sig, SIG_DFL);
  raise(sig);
}

static int open_sink(sink *s, const char *out, int *fd_out) {
  mode_t um = umask(0);
  int fd;
  umask(um);
  tmp_out = rpd_xasprintf("%s.tmpXXXXXX", out);
  fd = mkstemp(tmp_out);
  if (fd < 0) {
    free(tmp_out);
    tmp_out = NULL;
    return rpd_fail("cannot write '%s': %s", out, strerror(errno));
  }
  fchmod(fd, 0666 & ~um);
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  signal(SIGHUP, on_signal);
  if (ends_with(out, ".gz")) {
    /* level 6 (gzip's default), or RPD_GZIP_LEVEL as everywhere in rpdtools */
    const char *lv = getenv("RPD_GZIP_LEVEL");
    char mode[4] = "wb6";
    if (lv && lv[0] >= '0' && lv[0] <= '9' && !lv[1]) mode[2] = lv[0];
    s->gz = gzdopen(fd, mode);
    if (s->gz) gzbuffer(s->gz, 256 * 1024);
  }
  else s->f = fdopen(fd, "w");
  if (!s->gz && !s->f) {
    close(fd);
    return rpd_fail("cannot write '%s': out of memory", out);
  }
  *fd_out = fd;
  return 0;
}

/* Flush and close the sink; rename into place when ok.  Returns exit code. */
static int close_sink(sink *s, const char *out, int ok) {
  int failed = !ok;
  if (ok) sink_flush(s);
  failed |= s->failed;
  if (s->gz) failed |= gzclose(s->gz) != Z_OK;
  if (s->f) failed |= fclose(s->f) != 0;
  rpd_buf_free(&s->b);
  if (!failed && rename(tmp_out, out) != 0) failed = 1;
  if (failed) unlink(tmp_out);
  free(tmp_out);
  tmp_out = NULL;
  if (failed && ok) return rpd_fail("cannot write '%s': %s", out, strerror(errno ? errno : EIO));
  return failed;
}

static int same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

static int convert(conv *c) {
  /* one read transaction: a consistent snapshot, and the file lock is
   * taken once instead of once per statement */
  int rc = rpd_exec(c->r, "BEGIN");
  if (rc == RPD_OK) rc = emit_metadata(c);
  if (rc == RPD_OK) rc = emit_ops(c);
  if (rc == RPD_OK) rc = emit_graphs(c);
  if (rc == RPD_OK) rc = emit_apis(c, 0);
  if (rc == RPD_OK) rc = emit_apis(c, 1);
  if (rc == RPD_OK) rc = emit_monitor(c);
  if (rc == RPD_OK) rc = emit_launches(c);
  rpd_exec(c->r, "COMMIT");
  return rc;
}

/* Trace span for --start/--end (api calls, else ops) and the counter end
 * (last end of any api or op). */
static int trace_span(rpd *r, int64_t *first, int64_t *last, int64_t *t_end) {
  sqlite3_stmt *st = NULL;
  int s, rc = rpd_prepare(r,
      "SELECT (SELECT min(start) FROM rocpd_api), (SELECT max(end) FROM rocpd_api),"
      " (SELECT min(start) FROM rocpd_op), (SELECT max(end) FROM rocpd_op)", &st);
  if (rc == RPD_OK && (s = rpd_step(r, st)) != SQLITE_ROW) rc = s < 0 ? -s : RPD_ERR;
  if (rc == RPD_OK) {
    int api = sqlite3_column_type(st, 0) != SQLITE_NULL;
    int op = sqlite3_column_type(st, 2) != SQLITE_NULL;
    if (!api && !op) {
      rc = rpd_seterr(RPD_ENOTRPD, "empty trace: no api calls or ops");
    } else {
      *first = sqlite3_column_int64(st, api ? 0 : 2);
      *last = sqlite3_column_int64(st, api ? 1 : 3);
      *t_end = *last;
      if (op && sqlite3_column_int64(st, 3) > *t_end) *t_end = sqlite3_column_int64(st, 3);
    }
  }
  sqlite3_finalize(st);
  return rc;
}

int main(int argc, char **argv) {
  opts o = {0};
  conv c = {0};
  char *out = NULL;
  int64_t first = 0, last = 0;
  int fd = -1, ret = 1, rc;

  if (rpd_cli_init(argc, argv, usage)) return 0;
  if ((ret = parse_args(argc, argv, &o))) return ret;
  out = o.out ? rpd_xstrdup(o.out) : default_out(o.in);
  if (same_file(o.in, out)) {
    ret = rpd_usage_error("output '%s' is the input file", out);
    goto done;
  }
  if (rpd_open_or_report(&c.r, o.in, NULL, RPD_READ) != RPD_OK) { ret = 1; goto done; }
  c.args_table = rpd_args_table(c.r);
  if ((rc = trace_span(c.r, &first, &last, &c.t_end)) != RPD_OK) {
    ret = rpd_fail("cannot read '%s': %s", o.in, rpd_errmsg());
    goto done;
  }
  c.lo = INT64_MIN;
  c.hi = INT64_MAX;
  if (o.start && (ret = resolve_time("--start", o.start, first, last, &c.lo))) goto done;
  if (o.end && (ret = resolve_time("--end", o.end, first, last, &c.hi))) goto done;
  if (c.lo > c.hi) {
    ret = rpd_usage_error("--start is after --end");
    goto done;
  }
  if (o.end) c.t_end = c.hi;
  if ((ret = open_sink(&c.out, out, &fd))) goto done;
  rpd_buf_puts(&c.out.b, o.array ? "[\n" : "{\"traceEvents\":[\n");
  rc = convert(&c);
  rpd_buf_puts(&c.out.b, o.array ? "\n]\n" : "\n],\"displayTimeUnit\":\"ns\"}\n");
  if (rc != RPD_OK) {
    rpd_fail("cannot read '%s': %s", o.in, rpd_errmsg());
    close_sink(&c.out, out, 0);
    ret = 1;
    goto done;
  }
  if ((ret = close_sink(&c.out, out, 1))) goto done;
  if (!o.quiet)
    printf("%s: %lld events: %lld ops, %lld api calls, %lld marks, %lld flows,"
           " %lld hsa, %lld graph launches, %lld marker frames, %lld counter points\n",
           out, (long long)c.out.nevents, (long long)c.n_op, (long long)c.n_api,
           (long long)c.n_instant, (long long)c.n_flow, (long long)c.n_hsa,
           (long long)c.n_graph, (long long)c.n_frame, (long long)c.n_counter);
done:
  if (c.r) rpd_close(c.r, 0);
  free(c.gpus);
  free(out);
  return ret;
}
