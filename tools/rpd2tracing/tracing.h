/* rpd2tracing internal interface: the types and functions shared by the
 * files of tools/rpd2tracing/ (see main.c for the tool's overview). */
#ifndef RPD2TRACING_TRACING_H
#define RPD2TRACING_TRACING_H
#define _GNU_SOURCE   /* copy_file_range, sync_file_range, fallocate */
#include "rpd.h"
#include "timeopt.h"
#include "opclass.h"
#include "util/heap.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

struct job;
typedef struct gzpipe gzpipe;

/* Events are formatted straight into one big buffer (no per-piece calls):
 * ev_begin reserves room for the event, the w_* helpers advance a cursor,
 * ev_end commits it.  Full buffers go out with write(2) or gzwrite. */

typedef struct sink {
  struct job *notify;   /* told of every write (worker B's temp file) */
  char *buf;
  size_t len, cap;
  int fd;
  gzpipe *gz;           /* .gz: the compressor threads (shared by A and B) */
  int failed;
  int err;              /* errno of the first failed write */
  int prealloc;         /* 1: OUT's blocks allocated ahead, -1: not tried */
  off_t pos, alloc;     /* bytes written, bytes allocated */
  off_t wb;             /* OUT's bytes sent to the disk so far, -1: not OUT */
  off_t dropped;        /* OUT's bytes written and dropped from the page cache */
  struct dio *dio;      /* OUT written with O_DIRECT by this thread (direct.c) */
  int64_t nevents;
  int64_t total;        /* bytes written (before compression) */
  rpd_buf scratch;      /* slow-path JSON escaping */
} sink;

#define SINK_CHUNK ((size_t)1 << 20)
#define PREALLOC ((off_t)64 << 20)
#define WRITEBACK ((off_t)16 << 20)
#define EV_FIXED 256    /* room for an event's fixed text and numbers */
#define W(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

#define ESC_MAX(n) (6 * (size_t)(n) + 2)

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull
#define HAS_ZERO(x) (((x) - ONES) & ~(x) & HIGHS)

#define ERR_MAX 1024

/* ------------------------------------------------------------ small maps */

/* (a, b) -> dense index 0, 1, ... in first-seen order; keys kept in a[], b[].
 * Used for threads (pid, tid), GPU queues (gpu, queue) and GPUs (gpu, 0). */
typedef struct pairmap {
  int64_t *a, *b;
  size_t n, vcap;
  int32_t *slot;        /* index + 1, 0 = empty */
  size_t cap;           /* power of two */
} pairmap;

/* id -> the string of a string table, quoted and escaped for JSON, looked
 * up once.  Names (apiName, opType, kernel names) repeat a
 * lot; the cache is emptied when it reaches NAMES_MAX entries, so memory
 * stays bounded whatever the trace. */
typedef struct name_ent {
  int64_t id;
  char *json;           /* owned; NULL = empty slot */
  uint32_t len;
  uint8_t marker;       /* the string is "UserMarker" */
  uint8_t opclass;      /* OPC_* of the string as an opType (OPC_UNKNOWN:
                         * not asked yet, see emit_ops) */
  char *raw;            /* owned: the string itself */
  uint32_t rawlen;
  uint8_t clean;        /* raw is plain ASCII without NUL */
  uint8_t common;       /* from rocpd_string (names that repeat: protobuf
                         * interns them at once, not at their 2nd sighting) */
  uint32_t name_iid;    /* protobuf: its interned ids as an event name and */
  uint32_t value_iid;   /* as an annotation value in this worker (0: not yet) */
} name_ent;

typedef struct names {
  name_ent *slot;
  size_t cap, n, max;
  sqlite3_stmt *look;   /* SELECT string FROM <table> WHERE id = ?1 */
  int common;           /* rocpd_string: its entries are name_ent.common */
} names;

#define NAMES_MAX 65536

/* ------------------------------------------------------------ context */

/* ------------------------------------------------------------ tracks.c */

/* Op classes (op_class_of), kept in name_ent.opclass. */
enum { OPC_KERNEL, OPC_COPY, OPC_BARRIER, OPC_OTHER, OPC_UNKNOWN = 255 };

/* Kinds of base tracks: api calls (pid, tid), HSA calls (pid, tid + 1),
 * ops (gpu, queue), graph frames and marker frames (gpu, queue). */
enum { TRACK_API, TRACK_HSA, TRACK_OP, TRACK_GRAPH, TRACK_FRAME, TRACK_KINDS };

/* A track the layout made: its (pid, tid), the base track and the lane. */
typedef struct track_info {
  int64_t pid, tid, base;
  int kind;
  uint32_t lane;
} track_info;

struct base_track;

/* The lanes of every base track one worker writes. */
typedef struct layout {
  pairmap keys;             /* (pid, base ^ kind << 56) -> index in base */
  struct base_track *base;
  size_t nbase;
  size_t last;              /* cache: the last base track used */
  int last_kind;
  int64_t last_pid, last_base;
  int64_t next_tid;         /* tids of new tracks: next_tid, next_tid + 1, ... */
  track_info *tracks;       /* every track made, in order */
  size_t ntracks, trcap;
} layout;

/* The tids of new tracks (lanes, frames) of worker A and B: below 2^31
 * (Perfetto reads JSON tids as 32-bit numbers), far above real ones. */
#define LANE_TIDS_A 0x70000000
#define LANE_TIDS_B 0x78000000

/* int64 -> int64 map (op id -> the tid of its lane, for lanes above 0). */
typedef struct idmap {
  int64_t *key, *val;
  uint8_t *used;
  size_t n, cap;
} idmap;

/* The class (OPC_*) of a common/opclass class (RPD_OPCLASS_*). */
uint8_t op_class_of(int cls);
/* "kernel", "copy", "barrier" or "other" (static text). */
const char *op_class_name(uint8_t cls);
/* An empty layout whose new tracks get tids first_tid, first_tid + 1, ... */
void layout_init(layout *l, int64_t first_tid);
/* The lane of base track (kind, pid, base) where the slice [start, end]
 * nests (owned by the layout, valid until its next call); api and HSA
 * lanes nest, the others hold disjoint slices.  Deterministic: depends on
 * the calls' order only. */
const track_info *layout_place(layout *l, int kind, int64_t pid, int64_t base, int64_t start,
                               int64_t end);
void layout_free(layout *l);
/* The display name of a track into buf. */
void track_name(const track_info *t, char *buf, size_t n);
void idmap_put(idmap *m, int64_t key, int64_t val);
/* 1 and *val when key is in the map, else 0. */
int idmap_get(const idmap *m, int64_t key, int64_t *val);
void idmap_free(idmap *m);

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
  /* A: the labels of its UserMarker ranges (launch.c; B reads A's) */
  struct labelstore *marks;
  pairmap threads;          /* (pid, tid) of every api call */
  pairmap queues;           /* (gpuId, queueId) of every op */
  pairmap gpuset;           /* (gpuId, 0) */
  int64_t *gpus;            /* distinct rocpd_op.gpuId, ascending (B: A's) */
  size_t ngpus;
  struct sorter *launches;  /* the launch pass rows */
  const struct writer *w;   /* the output format */
  void *wstate;             /* the format's per-worker state */
  int worker;               /* 1: A, 2: B */
  layout lay;               /* this worker's tracks */
  pairmap cpids;            /* pids of counter series */
  idmap oplane;             /* A: op id -> tid, ops on lanes above 0 */
  int64_t n_op, n_api, n_instant, n_flow, n_graph, n_hsa, n_counter, n_frame;
  /* A, flow_on_op_slice: the op ids whose flows start on the api event
   * being written (flow_starts()) */
  int64_t *flow_from;
  size_t nflow_from, flow_cap;
  sqlite3_stmt *opclass;    /* A: the class of one opType id (emit_ops) */
  /* 1: the trace was opened unchecked and every rocpd_api / rocpd_op row
   * the scans read is checked on the way (row_sane); bad_row: one was not */
  int check_rows, bad_row;
  /* A's walk of rocpd_api_ops beside the api pass: it read every row
   * (links_seen) and found links_behind rows out of api order (B's) */
  int links_seen;
  int64_t links_behind;
} conv;

/* ------------------------------------------------------------ writers */

/* A piece of text: a cached string-table entry (e), or n bytes at s. */
typedef struct txt {
  const name_ent *e;
  const char *s;
  size_t n;
} txt;

static inline txt txt_e(const name_ent *e) { return (txt){e, NULL, 0}; }
static inline txt txt_s(const char *s, size_t n) { return (txt){NULL, s ? s : "", s ? n : 0}; }
static inline txt txt_z(const char *s) { return txt_s(s, s ? strlen(s) : 0); }

/* An event's one argument: key = text, or key = ival when is_int. */
typedef struct arg {
  const char *key;
  txt text;
  int is_int;
  int64_t ival;
} arg;

/* An output format.  Every worker calls these for its events in its own
 * order; a format writes them into the worker's sink (c->out).  A new
 * format is one more file defining one more writer. */
typedef struct writer {
  const char *format;       /* "json", "proto" */
  /* the bytes before and after every event (OUT's sink only) */
  void (*begin)(sink *s, int array);
  void (*finish)(sink *s, int array);
  /* a complete slice on track t; flow_end: the id of a flow that ends on
   * it (0: none; only with flow_on_op_slice) */
  void (*slice)(struct conv *c, const char *cat, const track_info *t, txt name, int64_t ts,
                int64_t dur, const arg *a, int64_t flow_end);
  /* an instant event on track t */
  void (*instant)(struct conv *c, const char *cat, const track_info *t, txt name, int64_t ts,
                  const arg *a);
  /* a counter point of series `name` of process pid: an integer (is_int)
   * or a double */
  void (*counter)(struct conv *c, const char *cat, int64_t pid, const char *name, int64_t ts,
                  const char *key, int is_int, int64_t ival, double dval);
  /* one end (end = 0: the start, 1: the end) of flow id on track t */
  void (*flow)(struct conv *c, int64_t id, const track_info *t, int64_t ts, int end);
  /* a process or thread name with its sort index (tid < 0: process) */
  void (*name)(struct conv *c, int64_t pid, int64_t tid, const char *name, int64_t sort);
  /* the worker is done: free its state (may be NULL) */
  void (*done)(struct conv *c);
  /* 1: an api->op flow ends on the op slice itself (its id is the op id,
   * passed as the slice's flow_end: every op slice gets one, launched in
   * the window or not) and starts on the api call's own event (the ids in
   * c->flow_from while A writes it); flow() is called only for the starts
   * of links out of api order (link_in_order() is 0);
   * 0: flow() is called for both ends (id: the rocpd_api_ops id) */
  int flow_on_op_slice;
  /* the worker wrote its last event: write what the format held back (may
   * be NULL) */
  void (*flush)(struct conv *c);
} writer;

extern const writer json_writer;
extern const writer proto_writer;

#define IN_WINDOW(c, t) ((t) >= (c)->lo && (t) <= (c)->hi)

/* ------------------------------------------------------------ launch rows */

/* One row of the launch pass: a UserMarker range (queue < 0) or an api->op
 * launch, in the order ts, marker first, e DESC, id, aux. */
typedef struct lrec {
  int64_t ts;           /* api start */
  int64_t e;            /* marker end (0 for launches; sort key) */
  int64_t id;           /* api id */
  int64_t aux;          /* marker: its label's offset in A's labelstore;
                         * launch: rocpd_api_ops id */
  int64_t ostart, oend; /* launches: the op */
  int32_t thread;       /* index in conv.threads */
  int32_t queue;        /* index in conv.queues; -1 for markers */
} lrec;


/* External merge sort with a fixed memory budget: rows collect in one chunk;
 * a full chunk is sorted and appended to an unlinked temp file as a run; at
 * the end the runs and the last chunk are merged through a heap, reading
 * each run through a small window.  Rows of an ordinary trace arrive nearly
 * sorted, but marker ranges are written at their end, long after what they
 * contain, so the order must be restored in general.  A run is written as
 * varints of each row's differences from the row before (sorted rows
 * differ little: about 15 bytes a row instead of 56). */
#define SORT_MEM ((size_t)8 << 20)    /* bytes of rows in memory, per sorter */
#define RUN_WINDOW 512                 /* rows decoded at a time per run */
#define RUN_BYTES ((size_t)16 << 10)  /* bytes read from the file at a time */
#define LREC_MAX 100                   /* bytes of one encoded row, at most */

typedef struct run {
  off_t off, end;       /* next unread byte in the file, the run's end */
  size_t left;          /* rows not yet decoded into win */
  lrec *win;
  size_t pos, n;        /* rows in win, next one */
  unsigned char *buf;   /* bytes read, not yet decoded: buf[bpos..blen) */
  size_t bpos, blen;
  lrec prev;            /* the last row decoded */
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

/* The labels of the UserMarker ranges, for the names of the marker frames:
 * A's api pass has each label in hand when it meets the range and appends
 * it (a 4-byte length, the bytes and a NUL, as SQLite's text: the JSON
 * escaper reads words up to it) to an unlinked temp file; the range's
 * launch row carries its offset.  The launch pass reads them back through a
 * window: frames come in time order and the labels were written in api
 * order, which follows time closely, so most reads are a memcpy from the
 * window and the file is read about once.  Memory is flat. */
#define LABEL_BUF ((size_t)64 << 10)     /* write buffer */
#define LABEL_WINDOW ((size_t)256 << 10) /* read window */

typedef struct labelstore {
  char *err;            /* the owner's error text */
  int fd;               /* -1: nothing written yet */
  char *buf;            /* writing: bytes not yet in the file */
  size_t len;
  off_t size;           /* bytes in the file and buf */
  char *win;            /* reading: file bytes [woff, woff + wlen) */
  off_t woff;
  size_t wlen;
  char *big;            /* a label longer than the window */
  size_t bigcap;
} labelstore;

void labels_init(labelstore *ls, char *err);
/* Append the n bytes of s; *off = where to read them back (labels_get).
 * RPD_OK or RPD_EIO (text in err). */
int labels_put(labelstore *ls, const char *s, size_t n, int64_t *off);
/* Write what is buffered: before any labels_get.  RPD_OK or RPD_EIO. */
int labels_flush(labelstore *ls);
/* The label at off into *s (NUL-terminated), *n (valid until the next call); RPD_OK or
 * RPD_EIO. */
int labels_get(labelstore *ls, int64_t off, const char **s, size_t *n);
void labels_free(labelstore *ls);

/* ------------------------------------------------------------ two workers */

/* The sections are split in two parts, each reading its tables once in
 * rowid order.  A: ops, api calls with the links in api order (their flows
 * and launch rows), HSA, graphs, monitor, names.  B: the links out of api
 * order, then the launch pass (marker frames, queue counters).  With a plain OUT and
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

/* direct.c: OUT's writer thread in direct mode (O_DIRECT) */
#define DIRECT_ALIGN ((size_t)4096)
typedef struct dio dio;
/* A buffer of cap bytes aligned for direct writes (free() frees it); NULL
 * when there is no memory. */
char *dio_alloc(size_t cap);
/* Turn O_DIRECT on for fd and start its writer thread, whose buffers are
 * cap bytes; NULL (fd as it was) when the file or the system refuses. */
dio *dio_start(int fd, size_t cap);
/* Hand the n bytes of buf (aligned, n a multiple of DIRECT_ALIGN) to the
 * thread once it wrote the buffer before, which is returned (the caller's
 * now); the errno of a failed write into *err if that is 0. */
char *dio_swap(dio *d, char *buf, size_t n, int *err);
/* Wait for the last write, stop the thread, O_DIRECT off; 0 or the errno
 * of the first failed write.  NULL: nothing. */
int dio_stop(dio *d);

/* sink.c */
/* Compressor threads writing one gzip member (deflate level 0-9) to fd,
 * which the pipe then owns (gzpipe_close closes it); NULL on failure. */
gzpipe *gzpipe_open(int fd, int level);
/* Hand the n bytes of buf (cap bytes big, now the pipe's) to the threads;
 * returns an empty buffer for the caller (its size in *cap). */
char *gzpipe_swap(gzpipe *g, char *buf, size_t n, size_t *cap);
/* 1 when a write failed (its errno into *err if that is 0). */
int gzpipe_failed(gzpipe *g, int *err);
/* Drain, stop the thread, close the gzip stream; 0 or -1 (*err set). */
int gzpipe_close(gzpipe *g, int *err);
/* Start the disk writes of what OUT got since the last call (every 16 MB). */
void sink_writeback(sink *s);
/* Write the buffered bytes (or hand them to the gzip threads); ends direct
 * mode. */
void sink_flush(sink *s);
/* Room for need more bytes in s->buf (written out or grown as needed). */
void sink_reserve(sink *s, size_t need);
/* Write OUT (a new regular file, not .gz) with O_DIRECT from here on when
 * the file takes it; RPD2TRACING_DIRECT=0: never. */
void sink_try_direct(sink *s);
/* Worker B goes on writing OUT (its fd) after A: to takes over the bytes
 * from holds and its direct mode (else from is flushed); to's final
 * sink_flush ends the mode.  close_sink(from) still cuts and closes OUT. */
void sink_pass(sink *from, sink *to);
/* Append the n bytes of file from at *off (advanced) through the sink (in
 * direct mode: worker B's temp file); they do not count in s->total.  0, or
 * -1 when a read fails (errno). */
int sink_copy_from(sink *s, int from, off_t *off, size_t n);
/* Stop direct mode without writing what is buffered (a failed run). */
void sink_stop(sink *s);
/* Append raw text (the JSON array's brackets). */
void sink_raw(sink *s, const char *t);

/* json.c */
/* Start a JSON event with room for extra bytes of strings; returns the
 * cursor (after the separator).  ev_end commits what was written. */
char *ev_begin(sink *s, size_t extra);
void ev_end(sink *s, char *p);
/* Decimal v at p; returns the end. */
char *w_i64(char *p, int64_t v);
/* ns as microseconds with three decimals at p; returns the end. */
char *w_us(char *p, int64_t ns);
/* The n bytes at s as a quoted JSON string (the one escaping function:
 * invalid UTF-8 -> U+FFFD, cut at NUL); needs ESC_MAX(n) room. */
char *w_strn(sink *k, char *p, const char *s, size_t n);
/* s (NULL: "") as a quoted JSON string. */
char *w_str(sink *k, char *p, const char *s);
/* Format a worker's error text into buf (ERR_MAX bytes); returns rc. */
int cerr(char *buf, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Column i as text, "" for NULL (owned by SQLite until the next step). */
const char *col_text(sqlite3_stmt *st, int i);

/* A min-heap of int64 (pending slice or op ends): v[0] is the smallest;
 * i64heap_push / _pop / _free (common/util/heap.h). */
static inline int i64_before(const int64_t *a, const int64_t *b, void *ctx)
{
  (void)ctx;
  return *a < *b;
}
RPD_HEAP_DEFINE(i64heap, int64_t, i64_before)

/* maps.c */
/* The index of (a, b), added when new. */
size_t pair_get(pairmap *m, int64_t a, int64_t b);
void pair_free(pairmap *m);
void names_trim(names *t);
/* The cached entry of string id (owned by the cache, valid until the next
 * names_trim); NULL on an SQL error.  names_trim empties a full cache. */
const name_ent *names_get(sink *k, names *t, int64_t id);
void names_free(names *t);

/* sort.c */
/* The launch pass order (ts, markers first, longer first, id, aux). */
int lrec_cmp(const lrec *a, const lrec *b);
void sorter_init(sorter *so, char *err);
int sorter_add(sorter *so, const lrec *r);
int sorter_begin(sorter *so);
/* External merge sort of launch rows: init, add, begin, then next in
 * order (NULL at the end or on error: *rc), free. */
const lrec *sorter_next(sorter *so, int *rc);
void sorter_free(sorter *so);

/* source.c */
/* Prepare fmt (%w: the args table) on the worker's connection, binding
 * the window to ?1/?2 when it has them; RPD_OK or an error in c->err. */
int conv_prepare(conv *c, sqlite3_stmt **st, const char *fmt);
int name_error(conv *c, names *t);
/* The sections: each scans its table once and writes its events through
 * c->w; RPD_OK or an error in c->err. */
/* argtext.c: the args text of the api pass's calls (a forward cursor over
 * the args table and a small cache by id instead of a join's look-up per
 * call; the same texts). */
#define ARGTEXT_SLOTS 4096
typedef struct argtext_slot {
  int64_t id;
  char *s;      /* NULL: no row (or a NULL string) */
  size_t n;
  int used;
} argtext_slot;
typedef struct argtext {
  sqlite3_stmt *fwd, *one;   /* the forward cursor, the point look-up */
  int64_t fid;               /* the cursor's id */
  int seeked, at_end;
  argtext_slot slot[ARGTEXT_SLOTS];
} argtext;
int argtext_open(conv *c, argtext *a);
/* The text of args id v (*s NULL: none), valid until the next call. */
int argtext_get(conv *c, argtext *a, sqlite3_value *v, const char **s, size_t *n);
void argtext_close(argtext *a);

int emit_apis(conv *c);
int emit_hsa(conv *c);
int emit_ops(conv *c);
int i64_qcmp(const void *a, const void *b);
int emit_links(conv *c);
int link_in_order(int64_t api_id, int64_t *max_api);
int emit_graphs(conv *c);
int emit_monitor(conv *c);
int emit_metadata(conv *c);
int emit_analysis(conv *c);   /* analysis.c: rpd-analyze queue depth (w18) */
/* One counter point through c->w; remembers pid for its process name. */
void counter_point(conv *c, const char *cat, int64_t pid, const char *name, int64_t ts,
                   const char *key, int is_int, int64_t iv, double dv);
/* Sort index of a layout track (its queue's lanes and frames together). */
int64_t track_sort_index(const track_info *t);
/* Names of the worker's layout tracks through c->w->name. */
void name_tracks(conv *c);

/* launch.c */
/* Queue a row for the launch pass; the pass itself (B): marker frames and
 * queue counters. */
int launch_add(conv *c, const lrec *r);
int emit_launches(conv *c);

/* workers.c */
/* Worker B told A of n more bytes in its temp file; B waits for A's stage. */
void job_wrote(job *j, size_t n);
void job_wait(job *j, int stage);
/* Every section into OUT with one or two workers; RPD_OK or the error
 * (text in a->err). */
int convert_sections(conv *a, conv *b);

/* main.c */
/* Flush and close OUT (renamed into place when ok); the exit code. */
int close_sink(sink *s, const char *out, int ok);

/* workers.c */
/* c->gpus: the GPUs the op scan saw, ascending (owned by c). */
void collect_gpus(conv *c);
/* OUT as an atomic output (set by main.c's open_sink), NULL when OUT is a
 * special file; the workers put their temp files next to its target. */
extern rpd_outfile *ofile;

#endif
