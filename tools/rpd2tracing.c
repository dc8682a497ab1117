/* rpd2tracing - convert an RPD trace to Chrome/Perfetto trace-event JSON.
 *
 * Every table is read once in rowid order (no SQL sort, no per-row string
 * join for the few distinct names: an id -> escaped-JSON cache); events are
 * formatted straight into a 1 MB buffer written with write(2) or zlib.  The
 * launch pass (marker stacks, marker frames, queue counters) needs time
 * order: its fixed-size rows go through an external merge sort with an 8 MB
 * chunk per sorter, so memory stays flat in trace size.  With a CPU to
 * spare the work is split over two threads (see "two workers").  The output
 * goes through rpd_outfile (a locked temp file next to OUT, renamed into
 * place on success) unless OUT is an existing special file.
 * See docs/rpd2tracing.md for the event layout and the differences from the
 * reference tools/rpd2tracing.py. */
#define _GNU_SOURCE   /* copy_file_range */
#include "rpd.h"
#include "timeopt.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <pthread.h>
#include <stdarg.h>

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
"  -q                   do not print the summary line\n"
"\n"
"Environment: RPD2TRACING_THREADS=1 or 2 (one worker or two; default two\n"
"when a CPU is idle and OUT is not .gz), RPD_GZIP_LEVEL (default 6).\n";

/* ------------------------------------------------------------ writer */

/* Events are formatted straight into one big buffer (no per-piece calls):
 * ev_begin reserves room for the event, the w_* helpers advance a cursor,
 * ev_end commits it.  Full buffers go out with write(2) or gzwrite. */
struct job;
static void job_wrote(struct job *j, size_t n);
static void job_wait(struct job *j, int stage);

typedef struct sink {
  struct job *notify;   /* told of every write (worker B's temp file) */
  char *buf;
  size_t len, cap;
  int fd;
  gzFile gz;
  int failed;
  int err;              /* errno of the first failed write */
  int prealloc;         /* 1: OUT's blocks allocated ahead, -1: not tried */
  off_t pos, alloc;     /* bytes written, bytes allocated */
  off_t wb;             /* OUT's bytes sent to the disk so far, -1: not OUT */
  int64_t nevents;
  rpd_buf scratch;      /* slow-path JSON escaping */
} sink;

#define SINK_CHUNK ((size_t)1 << 20)
#define PREALLOC ((off_t)64 << 20)
#define WRITEBACK ((off_t)16 << 20)
#define EV_FIXED 256    /* room for an event's fixed text and numbers */
#define W(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

/* Start the disk writes of what OUT got since the last call, once that is
 * WRITEBACK bytes: the commit's fsync then finds little left to write
 * instead of the whole file (0.2 s for 500 MB), and the disk works while
 * the events are formatted.  Asynchronous; errors show at the fsync. */
static void sink_writeback(sink *s) {
  off_t end;
  if (s->wb < 0 || (end = lseek(s->fd, 0, SEEK_CUR)) < s->wb + WRITEBACK) return;
  sync_file_range(s->fd, s->wb, end - s->wb, SYNC_FILE_RANGE_WRITE);
  s->wb = end;
}

static void sink_flush(sink *s) {
  const char *p = s->buf;
  size_t n = s->len;
  s->len = 0;
  if (!n || s->failed) return;
  if (s->gz) {
    if (gzwrite(s->gz, p, (unsigned)n) != (int)n) {
      s->failed = 1;
      s->err = errno;
    }
    return;
  }
  /* Allocating the file 64 MB ahead saves the filesystem a block
   * reservation per page; close_sink cuts the file to its length. */
  if (s->prealloc >= 0 && s->pos + (off_t)n > s->alloc) {
    if (fallocate(s->fd, 0, s->alloc, PREALLOC) == 0) {
      s->alloc += PREALLOC;
      s->prealloc = 1;
    } else {
      s->prealloc = -1;
    }
  }
  s->pos += (off_t)n;
  while (n) {
    ssize_t w = write(s->fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      s->failed = 1;
      s->err = w < 0 ? errno : ENOSPC;
      return;
    }
    p += w;
    n -= (size_t)w;
    if (s->notify) job_wrote(s->notify, (size_t)w);
  }
  sink_writeback(s);
}

/* Append raw text (the array's brackets). */
static void sink_raw(sink *s, const char *t) {
  size_t n = strlen(t);
  if (s->len + n > s->cap) sink_flush(s);
  memcpy(s->buf + s->len, t, n);
  s->len += n;
}

/* Start an event with room for `extra` bytes of strings on top of the fixed
 * part; returns the cursor (after the separator). */
static char *ev_begin(sink *s, size_t extra) {
  size_t need = EV_FIXED + extra;
  if (s->len + need > s->cap) {
    sink_flush(s);
    if (need > s->cap) {
      s->cap = need;
      s->buf = rpd_xrealloc(s->buf, s->cap);
    }
  }
  char *p = s->buf + s->len;
  if (s->nevents++) p = W(p, ",\n");
  return p;
}

static void ev_end(sink *s, char *p) { s->len = (size_t)(p - s->buf); }

static const char digits2[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* u in decimal, written backwards ending at q; returns the first char. */
static char *dec_back(char *q, uint64_t u) {
  while (u >= 100) {
    unsigned d = (unsigned)(u % 100) * 2;
    u /= 100;
    *--q = digits2[d + 1];
    *--q = digits2[d];
  }
  if (u >= 10) {
    *--q = digits2[u * 2 + 1];
    *--q = digits2[u * 2];
  } else {
    *--q = (char)('0' + u);
  }
  return q;
}

static char *w_i64(char *p, int64_t v) {
  char tmp[24], *end = tmp + sizeof tmp;
  char *q = dec_back(end, v < 0 ? -(uint64_t)v : (uint64_t)v);
  if (v < 0) *--q = '-';
  memcpy(p, q, (size_t)(end - q));
  return p + (end - q);
}

static char *put2(char *p, unsigned v) {
  p[0] = digits2[v * 2];
  p[1] = digits2[v * 2 + 1];
  return p + 2;
}

/* ns -> microseconds with exactly three decimals ("12.345"). */
static char *w_us(char *p, int64_t ns) {
  /* Timestamps are ~1e12 us and close together: the digits above the
   * seconds are formatted once and reused (one cache per thread). */
  static __thread uint64_t hi_key = UINT64_MAX;
  static __thread char hi_txt[24];
  static __thread size_t hi_len;
  if (ns >= 1000000000) {
    uint64_t us = (uint64_t)ns / 1000, hi = us / 1000000;
    unsigned lo = (unsigned)(us % 1000000), frac = (unsigned)((uint64_t)ns % 1000);
    if (hi != hi_key) {
      char *e = hi_txt + sizeof hi_txt, *q = dec_back(e, hi);
      hi_len = (size_t)(e - q);
      memmove(hi_txt, q, hi_len);
      hi_key = hi;
    }
    memcpy(p, hi_txt, hi_len);
    p += hi_len;
    p = put2(p, lo / 10000);
    p = put2(p, lo / 100 % 100);
    p = put2(p, lo % 100);
    *p++ = '.';
    *p++ = (char)('0' + frac / 100);
    return put2(p, frac % 100);
  }
  char tmp[32], *end = tmp + sizeof tmp, *q = end;
  uint64_t u = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
  unsigned frac = (unsigned)(u % 1000);
  q -= 3;
  q[0] = (char)('0' + frac / 100);
  q[1] = digits2[frac % 100 * 2];
  q[2] = digits2[frac % 100 * 2 + 1];
  *--q = '.';
  q = dec_back(q, u / 1000);
  if (ns < 0) *--q = '-';
  memcpy(p, q, (size_t)(end - q));
  return p + (end - q);
}

/* Bytes a quoted, escaped string of n input bytes can take (\u00XX). */
#define ESC_MAX(n) (6 * (size_t)(n) + 2)

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull
#define HAS_ZERO(x) (((x) - ONES) & ~(x) & HIGHS)

/* 1 when one of the 8 bytes in x needs escaping: a control character (or
 * NUL), non-ASCII, '"' or '\\'. */
static int word_special(uint64_t x) {
  return ((x | ((x - ONES * 0x20) & ~x)) & HIGHS) || HAS_ZERO(x ^ (ONES * '"')) ||
         HAS_ZERO(x ^ (ONES * '\\'));
}

/* The n bytes at s as a quoted JSON string: plain ASCII is copied 8 bytes at
 * a time; a string with anything else goes through rpd_json_escape (so
 * escapes, U+FFFD for invalid UTF-8 and a stop at NUL are exactly the
 * common ones).  Needs ESC_MAX(n) room. */
static char *w_strn(sink *k, char *p, const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  char *start = ++p;
  size_t i = 0;
  p[-1] = '"';
  for (; i + 8 <= n; i += 8, p += 8) {
    uint64_t x;
    memcpy(&x, u + i, 8);
    if (word_special(x)) break;
    memcpy(p, &x, 8);
  }
  for (; i < n; i++) {
    unsigned char ch = u[i];
    if (ch < 0x20 || ch >= 0x80 || ch == '"' || ch == '\\') break;
    *p++ = (char)ch;
  }
  if (i < n) {
    rpd_buf_reset(&k->scratch);
    rpd_json_escape(&k->scratch, s);
    memcpy(start, k->scratch.s, k->scratch.len);
    p = start + k->scratch.len;
  }
  *p++ = '"';
  return p;
}

/* s (NULL: "") as a quoted JSON string; needs ESC_MAX(strlen(s)) room. */
static char *w_str(sink *k, char *p, const char *s) {
  s = s ? s : "";
  return w_strn(k, p, s, strlen(s));
}

/* Each worker keeps its own error text (the common error buffer is one
 * static for the whole process). */
#define ERR_MAX 1024

static int cerr(char *buf, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int cerr(char *buf, int rc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, ERR_MAX, fmt, ap);
  va_end(ap);
  return rc;
}

static const char *col_text(sqlite3_stmt *st, int i) {
  const char *s = (const char *)sqlite3_column_text(st, i);
  return s ? s : "";
}

/* {"ph":"X","cat":CAT,"pid":P,"tid":T,"name": -- the caller writes the name
 * (extra: room for the name and the args), then ev_times. */
static char *ev_head(sink *s, const char *cat, int64_t pid, int64_t tid, size_t extra) {
  char *p = ev_begin(s, extra);
  p = W(p, "{\"ph\":\"X\",\"cat\":\"");
  size_t n = strlen(cat);
  memcpy(p, cat, n);
  p += n;
  p = W(p, "\",\"pid\":");
  p = w_i64(p, pid);
  p = W(p, ",\"tid\":");
  p = w_i64(p, tid);
  return W(p, ",\"name\":");
}

/* ,"ts":..,"dur":..,"args":{ */
static char *ev_times(char *p, int64_t start, int64_t dur) {
  p = W(p, ",\"ts\":");
  p = w_us(p, start);
  p = W(p, ",\"dur\":");
  p = w_us(p, dur);
  return W(p, ",\"args\":{");
}


/* A queue counter point: Idle (idle = 1) or QueueDepth. */
static void ev_counter(sink *s, int64_t pid, int idle, int64_t ts, int64_t value) {
  char *p = ev_begin(s, 0);
  p = W(p, "{\"ph\":\"C\",\"pid\":");
  p = w_i64(p, pid);
  p = idle ? W(p, ",\"name\":\"Idle\",\"ts\":") : W(p, ",\"name\":\"QueueDepth\",\"ts\":");
  p = w_us(p, ts);
  p = idle ? W(p, ",\"args\":{\"idle\":") : W(p, ",\"args\":{\"depth\":");
  p = w_i64(p, value);
  ev_end(s, W(p, "}}"));
}

/* ------------------------------------------------------------ small maps */

/* (a, b) -> dense index 0, 1, ... in first-seen order; keys kept in a[], b[].
 * Used for threads (pid, tid), GPU queues (gpu, queue) and GPUs (gpu, 0). */
typedef struct pairmap {
  int64_t *a, *b;
  size_t n, vcap;
  int32_t *slot;        /* index + 1, 0 = empty */
  size_t cap;           /* power of two */
} pairmap;

static size_t pair_hash(int64_t a, int64_t b) {
  uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull ^ (uint64_t)b * 0xC2B2AE3D27D4EB4Full;
  return (size_t)(h ^ (h >> 29));
}

static size_t pair_get(pairmap *m, int64_t a, int64_t b) {
  size_t j;
  if (2 * (m->n + 1) > m->cap) {
    size_t ncap = m->cap ? m->cap * 2 : 64;
    int32_t *ns = rpd_xcalloc(ncap, sizeof *ns);
    for (size_t i = 0; i < m->n; i++) {
      j = pair_hash(m->a[i], m->b[i]) & (ncap - 1);
      while (ns[j]) j = (j + 1) & (ncap - 1);
      ns[j] = (int32_t)i + 1;
    }
    free(m->slot);
    m->slot = ns;
    m->cap = ncap;
  }
  j = pair_hash(a, b) & (m->cap - 1);
  while (m->slot[j]) {
    size_t i = (size_t)m->slot[j] - 1;
    if (m->a[i] == a && m->b[i] == b) return i;
    j = (j + 1) & (m->cap - 1);
  }
  if (m->n == m->vcap) {
    m->vcap = m->vcap ? m->vcap * 2 : 32;
    m->a = rpd_xrealloc(m->a, m->vcap * sizeof *m->a);
    m->b = rpd_xrealloc(m->b, m->vcap * sizeof *m->b);
  }
  m->a[m->n] = a;
  m->b[m->n] = b;
  m->slot[j] = (int32_t)m->n + 1;
  return m->n++;
}

static void pair_free(pairmap *m) {
  free(m->a);
  free(m->b);
  free(m->slot);
}

/* id -> the string of a string table, quoted and escaped for JSON, looked
 * up once.  Names (apiName, opType, kernel names, marker labels) repeat a
 * lot; the cache is emptied when it reaches NAMES_MAX entries, so memory
 * stays bounded whatever the trace. */
typedef struct name_ent {
  int64_t id;
  char *json;           /* owned; NULL = empty slot */
  uint32_t len;
  uint8_t marker;       /* the string is "UserMarker" */
} name_ent;

typedef struct names {
  name_ent *slot;
  size_t cap, n, max;
  sqlite3_stmt *look;   /* SELECT string FROM <table> WHERE id = ?1 */
} names;

#define NAMES_MAX 65536

static void names_clear(names *t) {
  for (size_t i = 0; i < t->cap; i++) {
    free(t->slot[i].json);
    t->slot[i].json = NULL;
  }
  t->n = 0;
}

/* Empty the cache when full; call before a row's lookups so that entries
 * returned for one row stay valid while it is written. */
static void names_trim(names *t) {
  if (t->n + 4 > t->max) names_clear(t);
}

/* The entry for id (a missing string is ""); NULL on an SQL error.  Owned
 * by the cache, valid until the next names_trim. */
static const name_ent *names_get(sink *k, names *t, int64_t id) {
  size_t j;
  if (2 * (t->n + 1) > t->cap) {
    size_t ncap = t->cap ? t->cap * 2 : 256;
    name_ent *ns = rpd_xcalloc(ncap, sizeof *ns);
    for (size_t i = 0; i < t->cap; i++) {
      if (!t->slot[i].json) continue;
      j = pair_hash(t->slot[i].id, 0) & (ncap - 1);
      while (ns[j].json) j = (j + 1) & (ncap - 1);
      ns[j] = t->slot[i];
    }
    free(t->slot);
    t->slot = ns;
    t->cap = ncap;
  }
  j = pair_hash(id, 0) & (t->cap - 1);
  while (t->slot[j].json) {
    if (t->slot[j].id == id) return &t->slot[j];
    j = (j + 1) & (t->cap - 1);
  }
  sqlite3_bind_int64(t->look, 1, id);
  int s = sqlite3_step(t->look);
  if (s != SQLITE_ROW && s != SQLITE_DONE) {
    sqlite3_reset(t->look);
    return NULL;
  }
  const char *str = s == SQLITE_ROW ? col_text(t->look, 0) : "";
  size_t n = strlen(str);
  name_ent *e = &t->slot[j];
  e->json = rpd_xmalloc(ESC_MAX(n));
  e->len = (uint32_t)(w_str(k, e->json, str) - e->json);
  e->marker = strcmp(str, "UserMarker") == 0;
  e->id = id;
  sqlite3_reset(t->look);
  t->n++;
  return e;
}

static void names_free(names *t) {
  if (t->slot) names_clear(t);
  free(t->slot);
  sqlite3_finalize(t->look);
}

/* ------------------------------------------------------------ context */

typedef struct conv {
  rpd *r;                   /* worker A: the trace; rpd_* helpers */
  sqlite3 *db;              /* this worker's connection */
  sink out;
  char err[ERR_MAX];        /* why rc != RPD_OK */
  struct job *job;
  const char *args_table;   /* rocpd_string (v2) or rocpd_ustring (v3) */
  int64_t lo, hi;           /* keep events starting in [lo, hi] (ns) */
  int64_t t_end;            /* counters extend to here (ns) */
  int t_from_scans;         /* A: t_end is the last api/op end the scans see */
  int64_t api_end, op_end;  /* A: last api end, last op end (all rows) */
  int has_api, has_op;
  struct conv *peer;        /* B: A (its gpus and t_end) */
  names strs;               /* rocpd_string */
  names labels;             /* the args table: marker frame labels */
  pairmap threads;          /* (pid, tid) of every api call */
  pairmap queues;           /* (gpuId, queueId) of every op */
  pairmap gpuset;           /* (gpuId, 0) */
  int64_t *gpus;            /* distinct rocpd_op.gpuId, ascending (B: A's) */
  size_t ngpus;
  struct sorter *launches;  /* the launch pass rows */
  int64_t n_op, n_api, n_instant, n_flow, n_graph, n_hsa, n_counter, n_frame;
} conv;

#define IN_WINDOW(c, t) ((t) >= (c)->lo && (t) <= (c)->hi)

/* Prepare sql (formatted with sqlite3_mprintf %w for the args table) and bind
 * the time window to ?1/?2 when the statement has them. */
static int prep(conv *c, sqlite3_stmt **st, const char *fmt) {
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

static int name_error(conv *c, names *t) {
  return cerr(c->err, RPD_ESQL, "%s: %s", sqlite3_sql(t->look), sqlite3_errmsg(c->db));
}

/* The error of a statement that stopped with s (not SQLITE_DONE). */
static int step_error(conv *c, int s) {
  return cerr(c->err, s == SQLITE_BUSY || s == SQLITE_LOCKED ? RPD_EBUSY : RPD_ESQL,
              "%s", sqlite3_errmsg(c->db));
}

/* ------------------------------------------------------------ launch rows */

/* One row of the launch pass: a UserMarker range (queue < 0) or an api->op
 * launch, in the order ts, marker first, e DESC, id, aux. */
typedef struct lrec {
  int64_t ts;           /* api start */
  int64_t e;            /* marker end (0 for launches; sort key) */
  int64_t id;           /* api id */
  int64_t aux;          /* marker: args id; launch: rocpd_api_ops id */
  int64_t ostart, oend; /* launches: the op */
  int32_t thread;       /* index in conv.threads */
  int32_t queue;        /* index in conv.queues; -1 for markers */
} lrec;

static int lrec_cmp(const lrec *a, const lrec *b) {
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  if ((a->queue < 0) != (b->queue < 0)) return a->queue < 0 ? -1 : 1;
  if (a->e != b->e) return a->e > b->e ? -1 : 1;
  if (a->id != b->id) return a->id < b->id ? -1 : 1;
  return a->aux < b->aux ? -1 : a->aux > b->aux;
}

static int lrec_qcmp(const void *a, const void *b) { return lrec_cmp(a, b); }

/* External merge sort with a fixed memory budget: rows collect in one chunk;
 * a full chunk is sorted and appended to an unlinked temp file as a run; at
 * the end the runs and the last chunk are merged through a heap, reading
 * each run through a small window.  Rows of an ordinary trace arrive nearly
 * sorted, but marker ranges are written at their end, long after what they
 * contain, so the order must be restored in general. */
#define SORT_MEM ((size_t)8 << 20)    /* bytes of rows in memory, per sorter */
#define RUN_WINDOW 512                 /* rows read at a time per run */

typedef struct run {
  off_t off;            /* next unread row in the file */
  size_t left;          /* rows not yet read into win */
  lrec *win;
  size_t pos, n;        /* rows in win, next one */
} run;

typedef struct sorter {
  char *err;            /* the owner's error text */
  lrec *v;
  size_t n, cap;
  int fd;
  off_t fsize;
  run *runs;
  size_t nruns, runcap;
  /* reading back (sorter_begin .. sorter_next) */
  size_t pos;           /* no runs: next row of v */
  size_t *heap, nh;     /* runs by their current row */
  lrec cur;             /* the row sorter_next returned */
} sorter;

static void sorter_init(sorter *so, char *err) {
  const char *env = getenv("RPD2TRACING_MEM_MAX");
  size_t bytes = env ? (size_t)strtoull(env, NULL, 10) : SORT_MEM;
  memset(so, 0, sizeof *so);
  so->err = err;
  so->cap = bytes / sizeof(lrec);
  if (so->cap < 2) so->cap = 2;
  so->fd = -1;
}

/* Write buf fully at off; RPD_OK or RPD_EIO. */
static int pwrite_all(char *err, int fd, const void *buf, size_t n, off_t off) {
  const char *p = buf;
  while (n) {
    ssize_t w = pwrite(fd, p, n, off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return cerr(err, RPD_EIO, "temp file: %s", w < 0 ? strerror(errno) : "short write");
    p += w;
    n -= (size_t)w;
    off += w;
  }
  return RPD_OK;
}

/* Sort the chunk and move it to the temp file as a new run. */
static int sorter_spill(sorter *so) {
  int rc;
  if (so->fd < 0) {
    const char *dir = getenv("TMPDIR");
    char *path = rpd_xasprintf("%s/rpdtools-XXXXXX", dir && *dir ? dir : "/tmp");
    so->fd = mkstemp(path);
    if (so->fd >= 0) unlink(path);
    free(path);
    if (so->fd < 0) return cerr(so->err, RPD_EIO, "cannot create a temp file: %s", strerror(errno));
  }
  qsort(so->v, so->n, sizeof *so->v, lrec_qcmp);
  if ((rc = pwrite_all(so->err, so->fd, so->v, so->n * sizeof *so->v, so->fsize)) != RPD_OK) return rc;
  if (so->nruns == so->runcap) {
    so->runcap = so->runcap ? so->runcap * 2 : 16;
    so->runs = rpd_xrealloc(so->runs, so->runcap * sizeof *so->runs);
  }
  so->runs[so->nruns++] = (run){.off = so->fsize, .left = so->n};
  so->fsize += (off_t)(so->n * sizeof *so->v);
  so->n = 0;
  return RPD_OK;
}

static int sorter_add(sorter *so, const lrec *r) {
  if (so->n == so->cap) {
    int rc = so->n ? sorter_spill(so) : RPD_OK;
    if (rc != RPD_OK) return rc;
    if (!so->v) so->v = rpd_xmalloc(so->cap * sizeof *so->v);
  }
  if (!so->v) so->v = rpd_xmalloc((so->cap < 4096 ? so->cap : 4096) * sizeof *so->v);
  so->v[so->n++] = *r;
  /* grow the first chunk gradually so small traces stay small */
  if (so->n == 4096 && so->cap > 4096) so->v = rpd_xrealloc(so->v, so->cap * sizeof *so->v);
  return RPD_OK;
}

/* The current row of run i, or NULL when it is exhausted (RPD_EIO in *rc on
 * a read failure). */
static const lrec *run_head(sorter *so, run *r, int *rc) {
  if (r->pos < r->n) return &r->win[r->pos];
  if (!r->left) return NULL;
  size_t want = r->left < RUN_WINDOW ? r->left : RUN_WINDOW;
  size_t bytes = want * sizeof(lrec), got = 0;
  while (got < bytes) {
    ssize_t g = pread(so->fd, (char *)r->win + got, bytes - got, r->off + (off_t)got);
    if (g < 0 && errno == EINTR) continue;
    if (g <= 0) {
      *rc = cerr(so->err, RPD_EIO, "temp file: %s", g < 0 ? strerror(errno) : "short read");
      return NULL;
    }
    got += (size_t)g;
  }
  r->off += (off_t)bytes;
  r->left -= want;
  r->pos = 0;
  r->n = want;
  return r->win;
}

static int run_less(sorter *so, size_t a, size_t b) {
  run *ra = &so->runs[a], *rb = &so->runs[b];
  return lrec_cmp(&ra->win[ra->pos], &rb->win[rb->pos]) < 0;
}

/* Sift run heap[k] down. */
static void run_sift(sorter *so, size_t k) {
  size_t top = so->heap[k];
  for (;;) {
    size_t ch = 2 * k + 1;
    if (ch >= so->nh) break;
    if (ch + 1 < so->nh && run_less(so, so->heap[ch + 1], so->heap[ch])) ch++;
    if (!run_less(so, so->heap[ch], top)) break;
    so->heap[k] = so->heap[ch];
    k = ch;
  }
  so->heap[k] = top;
}

/* Sort what is left in memory and get ready to read every row in order. */
static int sorter_begin(sorter *so) {
  int rc = RPD_OK;
  if (so->n) qsort(so->v, so->n, sizeof *so->v, lrec_qcmp);
  so->pos = 0;
  if (!so->nruns) return RPD_OK;
  /* the in-memory chunk is one more run, already loaded */
  if (so->nruns == so->runcap) so->runs = rpd_xrealloc(so->runs, ++so->runcap * sizeof *so->runs);
  for (size_t i = 0; i < so->nruns; i++) so->runs[i].win = rpd_xmalloc(RUN_WINDOW * sizeof(lrec));
  so->runs[so->nruns++] = (run){.win = so->v, .n = so->n};
  so->v = NULL;
  so->n = 0;
  so->heap = rpd_xmalloc(so->nruns * sizeof *so->heap);
  for (size_t i = 0; i < so->nruns && rc == RPD_OK; i++)
    if (run_head(so, &so->runs[i], &rc)) so->heap[so->nh++] = i;
  for (size_t k = so->nh; k-- > 0;) run_sift(so, k);
  return rc;
}

/* The next row in order, NULL at the end (or on a read error: *rc).  The
 * row stays valid until the next call. */
static const lrec *sorter_next(sorter *so, int *rc) {
  if (!so->heap) return so->pos < so->n ? &so->v[so->pos++] : NULL;
  if (!so->nh) return NULL;
  run *r = &so->runs[so->heap[0]];
  so->cur = r->win[r->pos++];
  if (!run_head(so, r, rc)) {
    if (*rc != RPD_OK) return NULL;
    so->heap[0] = so->heap[--so->nh];
  }
  if (so->nh) run_sift(so, 0);
  return &so->cur;
}

static void sorter_free(sorter *so) {
  if (so->fd >= 0) close(so->fd);
  free(so->v);
  if (so->heap)   /* the last run's window was v */
    for (size_t i = 0; i < so->nruns; i++) free(so->runs[i].win);
  free(so->runs);
  free(so->heap);
  memset(so, 0, sizeof *so);
  so->fd = -1;
}

/* ------------------------------------------------------------ sections */

static char *w_json(char *p, const name_ent *e) {
  memcpy(p, e->json, e->len);
  return p + e->len;
}

static int launch_add(conv *c, const lrec *r);

/* Every api call in id order (a plain rowid scan with the args joined; api
 * names from the cache).  Also collects the (pid, tid) of every call for
 * the thread names, and the UserMarker ranges for the launch pass (A's
 * sorter). */
static int emit_apis(conv *c) {
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
static int emit_hsa(conv *c) {
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
static int emit_ops(conv *c) {
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
static int i64_qcmp(const void *a, const void *b) {
  return (int)cmp_i64(*(const int64_t *)a, *(const int64_t *)b);
}

/* The api->op links in rocpd_api_ops order (the table drives, api and op
 * rows are fetched by rowid): one flow arrow each, and the launch rows for
 * the queue counters and marker frames. */
static int emit_links(conv *c) {
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

static int emit_graphs(conv *c) {
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

static int emit_monitor(conv *c) {
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

static int emit_metadata(conv *c) {
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

/* ------------------------------------------------------------ launch pass */

/* The rows of the launch pass go through an external sort (bounded memory);
 * then one pass in time order keeps, per thread, the open UserMarker ranges
 * and the GPU frame being built from the ops launched under the innermost
 * one, and per GPU the queue depth. */
static int launch_add(conv *c, const lrec *r) { return sorter_add(c->launches, r); }

typedef struct marker {
  int64_t id, end, args_id;
} marker;

typedef struct gpu_frame {
  int active;
  int64_t marker_id, args_id;
  int64_t start, end, ops;
  int32_t *queues;      /* indexes in conv.queues */
  size_t nqueues, cap;
} gpu_frame;

typedef struct thread_state {
  marker *stack;
  size_t depth, cap;
  gpu_frame frame;
} thread_state;

/* Per GPU QueueDepth/Idle state: +1 at each launching api's start, -1 at
 * the op's end (ops kept by their start), as the reference.  Pending op ends
 * wait in a min-heap (its size is the queue depth, not the trace size);
 * ends strictly before a launch are applied first, so ties put +1 first. */
typedef struct gpu_queue {
  int64_t gpu, depth, idle;
  int64_t *ends;
  size_t nends, cap;
} gpu_queue;

typedef struct launch_pass {
  conv *c;
  thread_state *threads;    /* by conv.threads index */
  gpu_queue *gq;            /* by conv.gpus index */
  int32_t *queue_gpu;       /* conv.queues index -> gq index */
} launch_pass;

/* Write the frame once per GPU queue it touched, named by its marker label. */
static int frame_emit(conv *c, gpu_frame *f) {
  sqlite3_stmt *look = c->labels.look;
  char desc[64];
  const char *name = "";
  size_t nlen = 0;
  int s;
  if (!f->active) return RPD_OK;
  f->active = 0;
  /* labels are mostly distinct: looked up each time, not cached */
  sqlite3_bind_int64(look, 1, f->args_id);
  if ((s = sqlite3_step(look)) == SQLITE_ROW) {
    name = col_text(look, 0);
    nlen = (size_t)sqlite3_column_bytes(look, 0);
  } else if (s != SQLITE_DONE) {
    return name_error(c, &c->labels);
  }
  memcpy(desc, "UserMarker frame: ", 18);
  memcpy(w_i64(desc + 18, f->ops), " ops", 5);
  for (size_t i = 0; i < f->nqueues; i++) {
    size_t q = (size_t)f->queues[i];
    char *p = ev_head(&c->out, "marker_frame", c->queues.a[q], c->queues.b[q],
                      ESC_MAX(nlen) + sizeof desc);
    p = w_str(&c->out, p, name);
    p = ev_times(p, f->start - 1000, f->end - f->start + 1000);
    p = W(p, "\"desc\":");
    p = w_str(&c->out, p, desc);
    ev_end(&c->out, W(p, "}}"));
    c->n_frame++;
  }
  f->nqueues = 0;
  sqlite3_reset(look);
  return RPD_OK;
}

static void frame_add_queue(gpu_frame *f, int32_t q) {
  for (size_t i = 0; i < f->nqueues; i++)
    if (f->queues[i] == q) return;
  if (f->nqueues == f->cap) {
    f->cap = f->cap ? f->cap * 2 : 4;
    f->queues = rpd_xrealloc(f->queues, f->cap * sizeof *f->queues);
  }
  f->queues[f->nqueues++] = q;
}

#define FRAME_JOIN_NS 200000   /* ops closer than 200 us join one frame */

/* An op launched by thread t: extend the current frame when it belongs to
 * the same marker and touches it, else write the frame and start anew. */
static int frame_op(conv *c, thread_state *t, int32_t queue, int64_t start, int64_t end) {
  marker *m;
  gpu_frame *f = &t->frame;
  int rc;
  if (!t->depth) return RPD_OK;
  m = &t->stack[t->depth - 1];
  if (f->active && f->marker_id == m->id &&
      (llabs(start - f->end) < FRAME_JOIN_NS || llabs(f->start - end) < FRAME_JOIN_NS)) {
    if (start < f->start) f->start = start;
    if (end > f->end) f->end = end;
    frame_add_queue(f, queue);
    f->ops++;
    return RPD_OK;
  }
  if ((rc = frame_emit(c, f)) != RPD_OK) return rc;
  f->active = 1;
  f->marker_id = m->id;
  f->args_id = m->args_id;
  f->start = start;
  f->end = end;
  f->ops = 1;
  frame_add_queue(f, queue);
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
    ev_counter(&c->out, q->gpu, 1, ts, 0);
    c->n_counter++;
  }
  if (q->depth == 1 && d < 0) {
    q->idle = 1;
    ev_counter(&c->out, q->gpu, 1, ts, 1);
    c->n_counter++;
  }
  q->depth += d;
  ev_counter(&c->out, q->gpu, 0, ts, q->depth);
  c->n_counter++;
}

/* Apply the pending op ends of q that are before `before` (all with all=1). */
static void queue_drain(conv *c, gpu_queue *q, int64_t before, int all) {
  while (q->nends && (all || q->ends[0] < before)) queue_step(c, q, heap_pop(q), -1);
}

/* One row, in time order: a marker opens on its thread; a launch moves its
 * GPU's queue counters (kept by op start) and its thread's marker frame
 * (kept by api start). */
static int launch_row(launch_pass *p, const lrec *l) {
  conv *c = p->c;
  thread_state *t = &p->threads[l->thread];
  markers_expire(t, l->ts);
  if (l->queue < 0) {
    marker_push(t, (marker){l->id, l->e, l->aux});
    return RPD_OK;
  }
  if (IN_WINDOW(c, l->ostart)) {
    gpu_queue *q = &p->gq[p->queue_gpu[l->queue]];
    queue_drain(c, q, l->ts, 0);
    queue_step(c, q, l->ts, 1);
    heap_push(q, l->oend);
  }
  if (!IN_WINDOW(c, l->ts)) return RPD_OK;
  return frame_op(c, t, l->queue, l->ostart, l->oend);
}

static int64_t *gpu_find(int64_t *gpus, size_t n, int64_t gpu) {
  return bsearch(&gpu, gpus, n, sizeof *gpus, i64_qcmp);
}

/* The launch pass over the sorted rows, then the last frame of every
 * thread and the counters' final points. */
static int emit_launches(conv *c) {
  launch_pass p = {.c = c};
  int rc;
  p.gq = rpd_xcalloc(c->ngpus ? c->ngpus : 1, sizeof *p.gq);
  p.queue_gpu = rpd_xcalloc(c->queues.n ? c->queues.n : 1, sizeof *p.queue_gpu);
  for (size_t i = 0; i < c->ngpus; i++) {
    p.gq[i].gpu = c->gpus[i];
    p.gq[i].idle = 1;
  }
  for (size_t i = 0; i < c->queues.n; i++) {
    int64_t *g = gpu_find(c->gpus, c->ngpus, c->queues.a[i]);
    p.queue_gpu[i] = g ? (int32_t)(g - c->gpus) : 0;
  }
  /* A's markers, their thread indexes moved to B's map, merged with B's
   * launches */
  job_wait(c->job, 2);
  conv *a = c->peer;
  a->launches->err = c->err;   /* A is done with it */
  int32_t *tmap = rpd_xmalloc((a->threads.n ? a->threads.n : 1) * sizeof *tmap);
  for (size_t i = 0; i < a->threads.n; i++)
    tmap[i] = (int32_t)pair_get(&c->threads, a->threads.a[i], a->threads.b[i]);
  p.threads = rpd_xcalloc(c->threads.n ? c->threads.n : 1, sizeof *p.threads);
  rc = sorter_begin(a->launches);
  if (rc == RPD_OK) rc = sorter_begin(c->launches);
  const lrec *m = rc == RPD_OK ? sorter_next(a->launches, &rc) : NULL;
  const lrec *l = rc == RPD_OK ? sorter_next(c->launches, &rc) : NULL;
  while (rc == RPD_OK && (m || l)) {
    if (m && (!l || lrec_cmp(m, l) < 0)) {
      lrec r = *m;
      r.thread = tmap[r.thread];
      rc = launch_row(&p, &r);
      if (rc == RPD_OK) m = sorter_next(a->launches, &rc);
    } else {
      rc = launch_row(&p, l);
      if (rc == RPD_OK) l = sorter_next(c->launches, &rc);
    }
  }
  free(tmap);
  /* The reference drops each thread's last frame; write it. */
  for (size_t i = 0; i < c->threads.n; i++) {
    thread_state *t = &p.threads[i];
    if (rc == RPD_OK) rc = frame_emit(c, &t->frame);
    free(t->frame.queues);
    free(t->stack);
  }
  c->t_end = c->peer->t_end;
  for (size_t i = 0; i < c->ngpus; i++) {
    gpu_queue *q = &p.gq[i];
    if (rc == RPD_OK) {
      queue_drain(c, q, 0, 1);
      if (c->t_end > 0) {
        ev_counter(&c->out, q->gpu, 1, c->t_end, q->idle);
        ev_counter(&c->out, q->gpu, 0, c->t_end, q->depth);
        c->n_counter += 2;
      }
    }
    free(q->ends);
  }
  free(p.threads);
  free(p.gq);
  free(p.queue_gpu);
  return rc;
}
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

/* Resolve --start/--end text to ns (rpd_timeopt_resolve: bare numbers
 * without a unit are absolute microseconds, the reference; with a unit they
 * count from the first api call; +T, -T and N% as the common time forms). */
static int resolve_time(const char *opt, const char *text, int64_t first,
                        int64_t last, int64_t *ns) {
  if (rpd_timeopt_resolve(text, first, last, ns) != RPD_OK)
    return rpd_usage_error("%s: %s", opt, rpd_errmsg());
  return 0;
}

/* OUT as an atomic output (rpd_outfile: a locked temp file next to OUT's
 * target, renamed into place by close_sink and removed on failure, a fatal
 * signal or exit), or NULL when OUT is an existing special file. */
static rpd_outfile *ofile;

/* Open OUT: a regular file (new, or replaced) goes through rpd_outfile; an
 * existing OUT that is not a regular file or a directory (/dev/null, a
 * FIFO, a terminal) is written directly, never replaced. */
static int open_sink(sink *s, const char *out, const char *in) {
  static rpd_outfile of;
  struct stat st;
  int fd;
  if (stat(out, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    fd = open(out, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return rpd_fail("cannot write '%s': %s", out, strerror(errno));
  } else {
    if (rpd_outfile_begin(&of, out, in) != RPD_OK)
      return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
    ofile = &of;
    fd = fileno(of.fp);   /* written with write(2): the FILE buffer stays empty */
  }
  if (ends_with(out, ".gz")) {
    /* level 6 (gzip's default), or RPD_GZIP_LEVEL as everywhere in rpdtools */
    const char *lv = getenv("RPD_GZIP_LEVEL");
    char mode[4] = "wb6";
    int gfd = ofile ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : fd;   /* of.fp keeps fd */
    if (lv && lv[0] >= '0' && lv[0] <= '9' && !lv[1]) mode[2] = lv[0];
    s->gz = gfd >= 0 ? gzdopen(gfd, mode) : NULL;
    if (s->gz) {
      gzbuffer(s->gz, 256 * 1024);
    } else {
      if (gfd >= 0) close(gfd);
      if (ofile) rpd_outfile_abort(ofile);
      else close(fd);
      ofile = NULL;
      return rpd_fail("cannot write '%s': out of memory", out);
    }
  }
  s->fd = fd;
  s->cap = SINK_CHUNK;
  s->buf = rpd_xmalloc(s->cap);
  s->prealloc = ofile && !s->gz ? 0 : -1;   /* a new regular file only */
  s->wb = s->prealloc;
  return 0;
}

/* Flush and close the sink; rename into place when ok.  Returns exit code. */
static int close_sink(sink *s, const char *out, int ok) {
  int failed = !ok, err = 0;
  if (ok) sink_flush(s);
  failed |= s->failed;
  if (s->failed) err = s->err;
  if (s->prealloc == 1) {   /* drop what was allocated ahead */
    off_t end = lseek(s->fd, 0, SEEK_CUR);
    if (end < 0 || ftruncate(s->fd, end) != 0) { failed = 1; if (!err) err = errno; }
  }
  if (s->gz && gzclose(s->gz) != Z_OK) { failed = 1; if (!err) err = errno; }
  if (!ofile && close(s->fd) != 0) { failed = 1; if (!err) err = errno; }
  free(s->buf);
  rpd_buf_free(&s->scratch);
  if (ofile) {
    if (failed) {
      rpd_outfile_abort(ofile);
    } else if (rpd_outfile_commit(ofile) != RPD_OK) {
      ofile = NULL;
      return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
    }
    ofile = NULL;
  }
  if (failed && ok) return rpd_fail("cannot write '%s': %s", out, strerror(err ? err : EIO));
  return failed;
}

static int same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

/* The GPUs the op scan saw, ascending. */
static void collect_gpus(conv *c) {
  c->ngpus = c->gpuset.n;
  c->gpus = rpd_xmalloc((c->ngpus ? c->ngpus : 1) * sizeof *c->gpus);
  if (c->ngpus) memcpy(c->gpus, c->gpuset.a, c->ngpus * sizeof *c->gpus);
  qsort(c->gpus, c->ngpus, sizeof *c->gpus, i64_qcmp);
}

/* ------------------------------------------------------------ two workers */

/* The sections are split in two parts of similar cost, each reading its
 * tables once in rowid order.  A: ops, api calls, HSA, graphs, monitor,
 * names.  B: markers, links (flows), the launch pass.  With a plain OUT and
 * two CPUs, B runs in a thread on its own read-only connection and writes
 * to an unlinked temp file next to OUT, which A appends to OUT while B is
 * still running; otherwise B runs after A into OUT.  Either way OUT is
 * header, A's events, B's events, trailer: the same bytes. */
typedef struct job {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int stage;            /* A's progress: 1 gpus known, 2 t_end known */
  int b_done;
  int b_rc;
  off_t b_written;      /* bytes B has written to its temp file */
} job;

static void job_wrote(job *j, size_t n) {
  pthread_mutex_lock(&j->mu);
  j->b_written += (off_t)n;
  pthread_cond_broadcast(&j->cv);
  pthread_mutex_unlock(&j->mu);
}

static void job_stage(job *j, int stage) {
  if (!j) return;
  pthread_mutex_lock(&j->mu);
  j->stage = stage;
  pthread_cond_broadcast(&j->cv);
  pthread_mutex_unlock(&j->mu);
}

/* B: wait until A has reached stage (no-op when B runs after A). */
static void job_wait(job *j, int stage) {
  if (!j) return;
  pthread_mutex_lock(&j->mu);
  while (j->stage < stage) pthread_cond_wait(&j->cv, &j->mu);
  pthread_mutex_unlock(&j->mu);
}

static int part_a(conv *c) {
  int rc = prep(c, &c->strs.look, "SELECT string FROM rocpd_string WHERE id = ?1");
  sorter_init(c->launches, c->err);
  c->strs.max = NAMES_MAX;
  if (rc == RPD_OK) rc = emit_ops(c);
  collect_gpus(c);
  job_stage(c->job, 1);
  if (rc == RPD_OK) rc = emit_apis(c);
  if (c->t_from_scans) {
    /* the last end of any api call or op, as trace_span */
    c->t_end = c->has_api ? c->api_end : c->op_end;
    if (c->has_op && c->op_end > c->t_end) c->t_end = c->op_end;
  }
  job_stage(c->job, 2);   /* also on failure: B must not wait forever */
  if (rc == RPD_OK) rc = emit_hsa(c);
  if (rc == RPD_OK) rc = emit_graphs(c);
  if (rc == RPD_OK) rc = emit_monitor(c);
  if (rc == RPD_OK) rc = emit_metadata(c);
  job_stage(c->job, 2);
  names_free(&c->strs);
  pair_free(&c->gpuset);
  return rc;   /* B reads c->launches and c->threads, convert frees them */
}

/* B's part; a->gpus must be ready before the launch pass. */
static int part_b(conv *c, conv *a) {
  sorter launches;
  int rc = prep(c, &c->labels.look, "SELECT string FROM \"%w\" WHERE id = ?1");
  sorter_init(&launches, c->err);
  c->launches = &launches;
  if (rc == RPD_OK) rc = emit_links(c);
  c->peer = a;
  job_wait(c->job, 1);
  c->gpus = a->gpus;
  c->ngpus = a->ngpus;
  if (rc == RPD_OK) rc = emit_launches(c);
  sorter_free(&launches);
  names_free(&c->labels);
  pair_free(&c->threads);
  pair_free(&c->queues);
  return rc;
}

typedef struct worker_b_arg {
  conv *b, *a;
} worker_b_arg;

static void *worker_b(void *arg) {
  worker_b_arg *w = arg;
  int rc = part_b(w->b, w->a);
  if (rc == RPD_OK) sink_flush(&w->b->out);
  pthread_mutex_lock(&w->b->job->mu);
  w->b->job->b_rc = rc;
  w->b->job->b_done = 1;
  pthread_cond_broadcast(&w->b->job->cv);
  pthread_mutex_unlock(&w->b->job->mu);
  return NULL;
}

/* Copy n bytes of `from` at *off to the end of `to`; 0 or -1. */
static int append_file(int to, int from, off_t *off, size_t n, char *buf, size_t cap) {
  while (n) {
    ssize_t k = copy_file_range(from, off, to, NULL, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    n -= (size_t)k;
  }
  while (n) {   /* no copy_file_range here: plain reads and writes */
    ssize_t k = pread(from, buf, n < cap ? n : cap, *off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    for (ssize_t w = 0; w < k;) {
      ssize_t x = write(to, buf + w, (size_t)(k - w));
      if (x < 0 && errno == EINTR) continue;
      if (x <= 0) return -1;
      w += x;
    }
    *off += k;
    n -= (size_t)k;
  }
  return 0;
}

/* A second worker pays only with a CPU to spare: two or more CPUs and a
 * 1-minute load average at least one below their number (as make -l).  On
 * a busy machine the thread's temp file and copy would only add work. */
static int spare_cpu(void) {
  double load;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n >= 2 && getloadavg(&load, 1) == 1 && load + 1 <= (double)n;
}

/* Start B in a thread with its own connection and temp file; 0 when it
 * runs, -1 to run it after A instead. */
static int start_b(conv *a, conv *b, job *j, worker_b_arg *w, pthread_t *th) {
  const char *env = getenv("RPD2TRACING_THREADS");
  char *path;
  int fd;
  if (a->out.gz || (env && atoi(env) == 1) || (!env && !spare_cpu())) return -1;
  if (sqlite3_open_v2(a->r->work_path, &b->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
      sqlite3_exec(b->db, "PRAGMA cache_size=-4096; BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
    sqlite3_close(b->db);
    b->db = a->db;
    return -1;
  }
  sqlite3_busy_timeout(b->db, 5000);
  /* next to OUT's target (it has room for OUT), named like its rpd_outfile
   * temp so that a next run reclaims it should a kill -9 come before the
   * unlink; $TMPDIR when OUT is not a regular file */
  if (ofile) {
    path = rpd_temp_template(ofile->target);
  } else {
    const char *t = getenv("TMPDIR");
    path = rpd_xasprintf("%s/rpdtools-XXXXXX", t && *t ? t : "/tmp");
  }
  fd = mkostemp(path, O_CLOEXEC);
  if (fd >= 0) unlink(path);   /* gone at exit, even on kill -9 */
  free(path);
  if (fd < 0) {
    sqlite3_close(b->db);
    b->db = a->db;
    return -1;
  }
  b->out.fd = fd;
  b->out.notify = j;
  b->job = a->job = j;
  *w = (worker_b_arg){b, a};
  if (pthread_create(th, NULL, worker_b, w) != 0) {
    close(fd);
    sqlite3_close(b->db);
    b->db = a->db;
    b->out.fd = a->out.fd;
    b->out.notify = NULL;
    b->job = a->job = NULL;
    return -1;
  }
  return 0;
}

/* While B runs, append what it has written so far to OUT; then join it. */
static int follow_b(conv *a, conv *b, job *j, pthread_t th) {
  off_t off = 0;
  int failed = 0, rc;
  for (;;) {
    pthread_mutex_lock(&j->mu);
    while (off == j->b_written && !j->b_done) pthread_cond_wait(&j->cv, &j->mu);
    off_t avail = j->b_written - off;
    int done = j->b_done;
    pthread_mutex_unlock(&j->mu);
    if (avail && !failed && !a->out.failed &&
        append_file(a->out.fd, b->out.fd, &off, (size_t)avail, a->out.buf, a->out.cap)) {
      failed = 1;
      a->out.err = errno;
    }
    sink_writeback(&a->out);
    if (failed || a->out.failed) off += avail;   /* keep draining; output is lost anyway */
    if (done && off >= j->b_written) break;
  }
  pthread_join(th, NULL);
  rc = j->b_rc;
  if (failed) a->out.failed = 1;
  close(b->out.fd);
  b->out.fd = -1;
  sqlite3_exec(b->db, "COMMIT", NULL, NULL, NULL);
  sqlite3_close(b->db);
  b->db = NULL;
  return rc;
}

/* Every section into OUT; RPD_OK or the error (its text in a->err or
 * b->err). */
static int convert(conv *a, conv *b) {
  job j = {.stage = 0};
  sorter markers;
  a->launches = &markers;
  worker_b_arg w;
  pthread_t th;
  int threaded, rc, rb = RPD_OK;
  pthread_mutex_init(&j.mu, NULL);
  pthread_cond_init(&j.cv, NULL);
  /* one read transaction: a consistent snapshot, and the file lock is
   * taken once instead of once per statement */
  if ((rc = rpd_exec(a->r, "BEGIN")) != RPD_OK) {
    cerr(a->err, rc, "%s", rpd_errmsg());
    return rc;
  }
  b->r = a->r;
  b->db = a->db;
  b->args_table = a->args_table;
  b->lo = a->lo;
  b->hi = a->hi;
  b->t_end = a->t_end;
  b->out.fd = a->out.fd;
  b->out.gz = a->out.gz;
  b->out.cap = SINK_CHUNK;
  b->out.buf = rpd_xmalloc(b->out.cap);
  b->out.nevents = 1;   /* A's events come first: every one of B's gets a comma */
  b->out.prealloc = -1;
  b->out.wb = -1;
  threaded = start_b(a, b, &j, &w, &th) == 0;
  rc = part_a(a);
  sink_flush(&a->out);
  if (threaded) {
    rb = follow_b(a, b, &j, th);
  } else if (rc == RPD_OK) {
    b->out.wb = a->out.wb;   /* B appends to OUT itself: its disk writes too */
    rb = part_b(b, a);
    if (rb == RPD_OK) sink_flush(&b->out);
  }
  if (b->out.failed && !a->out.failed) {
    a->out.failed = 1;
    a->out.err = b->out.err;
  }
  free(b->out.buf);
  b->out.buf = NULL;
  rpd_buf_free(&b->out.scratch);
  sorter_free(&markers);
  pair_free(&a->threads);
  rpd_exec(a->r, "COMMIT");
  pthread_mutex_destroy(&j.mu);
  pthread_cond_destroy(&j.cv);
  if (rc == RPD_OK && rb != RPD_OK) {
    memcpy(a->err, b->err, ERR_MAX);
    rc = rb;
  }
  return rc;
}

/* Trace span for --start/--end (api calls, else ops) and the counter end
 * (last end of any api or op). */
static int trace_span(rpd *r, int span, int64_t *first, int64_t *last, int64_t *t_end) {
  sqlite3_stmt *st = NULL;
  /* the span takes a scan of both tables: only for --start/--end; else
   * the scans find the end on the way */
  int s, rc = rpd_prepare(r, span
      ? "SELECT (SELECT min(start) FROM rocpd_api), (SELECT max(end) FROM rocpd_api),"
        " (SELECT min(start) FROM rocpd_op), (SELECT max(end) FROM rocpd_op)"
      : "SELECT (SELECT 1 FROM rocpd_api LIMIT 1), 0, (SELECT 1 FROM rocpd_op LIMIT 1), 0", &st);
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
  static conv c, cb;   /* A and B (big: keep them off the stack) */
  char *out = NULL;
  int64_t first = 0, last = 0;
  int ret = 1, rc;

  /* each connection is used by one thread only: no SQLite mutexes (must
   * precede any other SQLite call; harmless if the library refuses) */
  sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);   /* no allocation statistics */
  if (rpd_cli_init(argc, argv, usage)) return 0;
  if ((ret = parse_args(argc, argv, &o))) return ret;
  out = o.out ? rpd_xstrdup(o.out) : default_out(o.in);
  if (same_file(o.in, out)) {
    ret = rpd_usage_error("output '%s' is the input file", out);
    goto done;
  }
  if (rpd_open_or_report(&c.r, o.in, NULL, RPD_READ) != RPD_OK) { ret = 1; goto done; }
  c.args_table = rpd_args_table(c.r);
  c.db = c.r->db;
  /* every scan is sequential: a small page cache keeps memory flat */
  rpd_exec(c.r, "PRAGMA cache_size=-4096");
  c.t_from_scans = !o.start && !o.end;
  if ((rc = trace_span(c.r, !c.t_from_scans, &first, &last, &c.t_end)) != RPD_OK) {
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
  if ((ret = open_sink(&c.out, out, o.in))) goto done;
  sink_raw(&c.out, o.array ? "[\n" : "{\"traceEvents\":[\n");
  rc = convert(&c, &cb);
  sink_raw(&c.out, o.array ? "\n]\n" : "\n],\"displayTimeUnit\":\"ns\"}\n");
  if (rc != RPD_OK) {
    rpd_fail("cannot read '%s': %s", o.in, c.err);
    close_sink(&c.out, out, 0);
    ret = 1;
    goto done;
  }
  if ((ret = close_sink(&c.out, out, 1))) goto done;
  if (!o.quiet)
    printf("%s: %lld events: %lld ops, %lld api calls, %lld marks, %lld flows,"
           " %lld hsa, %lld graph launches, %lld marker frames, %lld counter points\n",
           out, (long long)(c.out.nevents + cb.out.nevents - 1), (long long)c.n_op,
           (long long)c.n_api, (long long)c.n_instant, (long long)cb.n_flow, (long long)c.n_hsa,
           (long long)c.n_graph, (long long)cb.n_frame, (long long)(c.n_counter + cb.n_counter));
done:
  if (c.r) rpd_close(c.r, 0);
  free(c.gpus);
  free(out);
  return ret;
}
