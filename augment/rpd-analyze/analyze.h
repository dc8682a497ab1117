/* analyze.h - the parts of rpd-analyze (docs/rpd-analyze.md): main.c (options,
 * rules, the driver), tables.c (the SQL side, launch statistics and queue
 * depth), sweep.c (the ordered pass over the GPU work), xsort.c (the sort
 * in bounded memory).  Internal to the tool. */
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


/* tables.c: temp.an_launch, temp.an_shared and temp.an_op (one row per op
 * with its class, name, communication flag and launching call). */
int an_build_op_table(rpd *r);
/* ext_analysis_launch from temp.an_op (through temp.an_kr). */
int an_launch_stats(rpd *r);
/* ext_analysis_queue_depth from temp.an_op. */
int an_queue_depth(rpd *r);
/* ext_analysis_memcpy from temp.an_op and rocpd_copyapi. */
int an_memcpy(rpd *r);
/* The findings of rule k over api calls (sync_memcpy, device_sync). */
int an_api_rule(rpd *r, opts *o, int k);
/* sweep.c: the ordered pass over the GPU work (ext_analysis_idle,
 * ext_analysis_overlap and the findings of the GPU rules). */
int an_sweep(rpd *r, opts *o);

#endif
