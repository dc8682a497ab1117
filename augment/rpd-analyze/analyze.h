/* analyze.h - the parts of rpd-analyze (docs/rpd-analyze.md): main.c (options,
 * rules, the driver), tables.c (the op scan and its links), launch.c
 * (launch statistics), queue.c (queue depth), calls.c (the scan of the api
 * calls and the SQL over them: memcpy buckets, sync rules), work.c (the
 * GPU work kept in the sweep's order), sweep.c (the ordered pass over the
 * GPU work); the sort in bounded memory they fall back to is common's
 * (common/analysis/xsort.c).  Internal to the tool. */
#ifndef RPD_ANALYZE_H
#define RPD_ANALYZE_H

#include <stdint.h>
#include <sys/types.h>

#include "rpd.h"
#include "util/map.h"
#include "xsort.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

enum { R_SYNC_MEMCPY, R_DEVICE_SYNC, R_STARVATION, R_LOW_UTIL, R_TINY_STORM,
       R_LAUNCH_BOUND, NRULES };

typedef struct rule {
  const char *name, *severity;
  double threshold;
  const char *unit;     /* of the threshold */
  const char *value_unit;   /* of the value of a finding */
  double window_us;     /* 0 = none */
  int64_t min_count;
  const char *description, *advice;
} rule;

typedef struct opts {
  rule rules[NRULES];
  double kernel_wait_us;
  int format;           /* summary: -1 text, else an rpd_fmt */
  /* results for the summary */
  int64_t ngpus, nkernels, nlaunch_bound, nqueue_points, nmemcpy, nfindings;
  int64_t idle_ns, host_ns, kwait_ns, other_ns, busy_ns;
  int64_t findings[NRULES];
} opts;


/* calls.c: the one scan of rocpd_api, read as the op scan's links ask
 * for their calls (or all at once): the trace check's rule (check.h)
 * applied to every call, the calls of the sync rules kept in temp.an_sync
 * for an_api_rule, the last calls read kept for the links.  *c is set
 * even on an error; free it with an_calls_free. */
typedef struct an_calls an_calls;
int an_calls_open(rpd *r, an_calls **c);
/* A call as a link sees it: its id, start and end, and whether it is a
 * graph launch (its name GLOBs '*GraphLaunch*'). */
typedef struct an_call {
  int64_t id, start, end;
  int graph;
} an_call;
/* 1 when the calls are read in id order, ids unique (rocpd_api's primary
 * key, the rowid or an index's key): then a call a link asks for is
 * found among the last ones read (or by its id when it is far behind);
 * else each one is a lookup, and the links take the GROUP BY. */
int an_calls_in_id_order(const an_calls *c);
/* The call of id into *out: 1, 0 when there is none, or minus an error. */
int an_calls_find(an_calls *c, int64_t id, an_call *out);
/* The rows of st, a statement giving a call's id, start, end and
 * apiName_id (bound, not yet stepped; reset here): the one that starts
 * first (the first of equal starts) into *out, as min() of a GROUP BY
 * gives it; 1, 0 when st has no row, or minus an error. */
int an_calls_resolve(an_calls *c, sqlite3_stmt *st, an_call *out);
/* The calls not read yet read; then RPD_OK, or the trace check's message
 * (RPD_ERANGE) when a call is bad. */
int an_calls_finish(an_calls *c);
void an_calls_free(an_calls *c);

/* The progress line `what` at done of total records, shown on every
 * 1024th and the last (a call per record was 1% of the run). */
static inline void an_progress(const char *what, size_t done, size_t total)
{
  if (!(done & 1023) || done >= total)
    rpd_progress(what, (int64_t)done, (int64_t)total);
}

/* tables.c: what the sorts share.  xsort_next with the progress line
 * `what` over the records of x. */
int an_next_shown(xsort *x, const void **p, const char *what);
/* An LSD radix sort of n records of nw (<= 3) 64-bit words at base, in
 * the order of their words compared as unsigned after each is XORed with
 * flip[w]; stable, a scratch copy of the records while it sorts. */
void an_radix_words(void *base, size_t n, int nw, const uint64_t *flip);
/* order[0..n) set to the indexes 0 .. n-1 of the n records of size bytes
 * at base in the order of cmp (an insertion sort, stable: for the few
 * parts, streams or GPUs a store splits its records by; n <= 255). */
void an_order_parts(unsigned char *order, size_t n, const void *base, size_t size,
                    int (*cmp)(const void *, const void *));
/* pred(text) of string id (0 for a NULL text or no row), looked up once
 * with st (one bound id, one text column) and kept in cache; 0 with *rc
 * set on an SQL error. */
int an_string_flag(rpd_i64map *cache, sqlite3_stmt *st, int64_t id, int (*pred)(const char *),
                   int *rc);

/* launch.c: the kernels of the op scan, each dispatch's values (api
 * duration, launch delay, GPU time; has[m]: metric m has a value) added
 * by its description id, into a sort of sort_bytes; an_kernels_write
 * writes ext_analysis_launch (through temp.an_kr). */
enum { M_API, M_DELAY, M_GPU, NMETRICS };
typedef struct an_kernels an_kernels;
an_kernels *an_kernels_new(size_t sort_bytes);
int an_kernels_add(an_kernels *k, int64_t did, const int64_t v[NMETRICS], const int has[NMETRICS]);
int an_kernels_write(rpd *r, an_kernels *k);
void an_kernels_free(an_kernels *k);

/* queue.c: the queues' depth changes (d = +1 at a launch, -1 at an end
 * of a checked op: gpu an integer, t sane), kept as a stream per queue
 * and kind while each comes in time order, else in a sort of sort_bytes;
 * an_queue_write writes ext_analysis_queue_depth from them. */
typedef struct an_queue an_queue;
an_queue *an_queue_new(size_t sort_bytes);
int an_queue_add(an_queue *q, int64_t gpu, int has_queue, int64_t queue, int64_t t, int d);
int an_queue_write(rpd *r, an_queue *q);
void an_queue_free(an_queue *q);

/* tables.c: the ops read once (the trace check's rule applied to every
 * op: a bad one fails the scan with rpd_check_table's message; the
 * caller gives rocpd_api's first, an_calls_finish) with the launching
 * call of each op (the links read along in op order, their calls from
 * calls, or temp.an_launch when they are not in it; temp.an_shared:
 * calls of several ops; temp.an_copy: the copies) into three bounded
 * sorts (xsort.h): the GPU work for the sweep, the kernels' values for the
 * launch statistics, the queues' depth changes.  *sc is set even on an
 * error; free it with an_scan_free. */
typedef struct an_scan an_scan;
int an_scan_ops(rpd *r, an_calls *calls, an_scan **sc);
void an_scan_free(an_scan *sc);
/* One GPU-work op (kernel or copy) of the sweep, in (gpu, start, end, id)
 * order; NULL numbers read as 0 (a NULL gpu sorts first). */
typedef struct an_work {
  int64_t gpu, s, e, launch, api_end, id;
  int32_t flags, pad;
} an_work;
enum { AN_W_GPU_NULL = 1, AN_W_KERNEL = 2, AN_W_COMM = 4, AN_W_API = 8, AN_W_OWN = 16 };
/* work.c: the GPU work kept for the sweep, in its order: a buffer per GPU
 * written out in sorted runs while each GPU's records come nearly in
 * order, else a bounded sort of sort_bytes (xsort.h). */
typedef struct an_works an_works;
an_works *an_works_new(size_t sort_bytes);
int an_works_add(an_works *q, const an_work *w);
/* After the last an_works_add.  RPD_OK or an error code. */
int an_works_done(an_works *q);
/* The next record in (gpu, start, end, id) order into *w (valid until the
 * next call): 1, 0 at the end, or minus an error code. */
int an_works_next(an_works *q, const an_work **w);
/* 1 when the records went to the bounded sort (they did not come nearly
 * in order per GPU, or came from too many GPUs), 0 while kept per GPU. */
int an_works_sorting(const an_works *q);
void an_works_free(an_works *q);
/* work.c: the scratch file of the GPU work's runs and the queues' chunks:
 * len bytes at p appended to *fd (made with rpd_scratch_fd at the first
 * append, -1 before; *size its length), *at where they start; and len
 * bytes at off read back into p.  RPD_OK or RPD_EIO (message set). */
int an_scratch_append(int *fd, off_t *size, const void *p, size_t len, off_t *at);
int an_scratch_read(int fd, void *p, size_t len, off_t off);
/* The next op of the sweep into *w: 1, 0 at the end, or minus an error. */
int an_scan_work(an_scan *sc, const an_work **w);
/* 1 when the scan kept the copies' links in temp.an_copylink, in the
 * links' order (read along with the ops, their call ids INTEGERs). */
int an_scan_copy_links(const an_scan *sc);
/* ext_analysis_launch from the kernels' sort (through temp.an_kr). */
int an_launch_stats(rpd *r, an_scan *sc);
/* ext_analysis_queue_depth from the queues' sort. */
int an_queue_depth(rpd *r, an_scan *sc);
/* calls.c: ext_analysis_memcpy from temp.an_copy and rocpd_copyapi,
 * through temp.an_copylink when copy_links (an_scan_copy_links), else
 * through rocpd_api_ops. */
int an_memcpy(rpd *r, int copy_links);
/* The findings of rule k over the calls an_scan_calls kept (sync_memcpy,
 * device_sync). */
int an_api_rule(rpd *r, opts *o, int k);
/* sweep.c: the ordered pass over the GPU work (ext_analysis_idle,
 * ext_analysis_overlap and the findings of the GPU rules). */
int an_sweep(rpd *r, opts *o, an_scan *sc);

#endif
