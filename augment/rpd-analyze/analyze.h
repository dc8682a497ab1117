/* analyze.h - the parts of rpd-analyze (docs/rpd-analyze.md): main.c (options,
 * rules, the driver), tables.c (the op scan, launch statistics and queue
 * depth), calls.c (the SQL over api calls: memcpy buckets, sync rules),
 * sweep.c (the ordered pass over the GPU work); the sort in bounded memory
 * is common's (common/analysis/xsort.c).  Internal to the tool. */
#ifndef RPD_ANALYZE_H
#define RPD_ANALYZE_H

#include <stdint.h>

#include "rpd.h"

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


/* tables.c: the ops read once (the trace check's rule applied to every
 * op: a bad one fails the scan with rpd_check_table's message, after
 * an_scan_calls has checked the calls the launches come from) with the
 * launching call of each op (the
 * links merged in op order, or temp.an_launch when they are not in it;
 * temp.an_shared: calls of several ops; temp.an_copy: the copies) into three bounded
 * sorts (xsort.h): the GPU work for the sweep, the kernels' values for the
 * launch statistics, the queues' depth changes.  *sc is set even on an
 * error; free it with an_scan_free. */
typedef struct an_scan an_scan;
int an_scan_ops(rpd *r, an_scan **sc);
void an_scan_free(an_scan *sc);
/* One GPU-work op (kernel or copy) of the sweep, in (gpu, start, end, id)
 * order; NULL numbers read as 0 (a NULL gpu sorts first). */
typedef struct an_work {
  int64_t gpu, s, e, launch, api_end, id;
  int32_t flags, pad;
} an_work;
enum { AN_W_GPU_NULL = 1, AN_W_KERNEL = 2, AN_W_COMM = 4, AN_W_API = 8, AN_W_OWN = 16 };
/* The next op of the sweep into *w: 1, 0 at the end, or minus an error. */
int an_scan_work(an_scan *sc, const an_work **w);
/* ext_analysis_launch from the kernels' sort (through temp.an_kr). */
int an_launch_stats(rpd *r, an_scan *sc);
/* ext_analysis_queue_depth from the queues' sort. */
int an_queue_depth(rpd *r, an_scan *sc);
/* calls.c: one scan of rocpd_api that applies the trace check's rule
 * (check.h) to every call -- a bad call fails it with rpd_check_table's
 * message (RPD_ERANGE) -- and keeps the calls of the sync rules in
 * temp.an_sync for an_api_rule. */
int an_scan_calls(rpd *r);
/* calls.c: ext_analysis_memcpy from temp.an_copy and rocpd_copyapi. */
int an_memcpy(rpd *r);
/* The findings of rule k over the calls an_scan_calls kept (sync_memcpy,
 * device_sync). */
int an_api_rule(rpd *r, opts *o, int k);
/* sweep.c: the ordered pass over the GPU work (ext_analysis_idle,
 * ext_analysis_overlap and the findings of the GPU rules). */
int an_sweep(rpd *r, opts *o, an_scan *sc);

#endif
