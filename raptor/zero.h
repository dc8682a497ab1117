/* zero.h - raptor's time zero: the scan of rocpd_api (zero.c) that finds
 * the first start and the last end and folds the check of every row. */
#ifndef RAPTOR_ZERO_H
#define RAPTOR_ZERO_H

#include <pthread.h>
#include <stdint.h>

#include "raptor.h"
#include "rpd.h"

/* The library API's scan of rocpd_api (R->fold): time zero and the end of
 * the trace (the first start, the last end) and the folded check of every
 * row, in one scan in C instead of an aggregate query and the check's own
 * scan.  With the default ROI it runs in a helper thread on a connection
 * of its own while the engine reads the ops (prescan_ops). */
typedef struct api_scan {
  rpd_check_rows chk;
  int64_t lo, hi;        /* the least start, the largest end */
  int done;              /* every row read */
  const char *path;      /* the helper thread's file (or URI when uri) */
  int uri, threaded;
  pthread_t tid;
} api_scan;

/* Start the scan in a helper thread on a connection of its own; 0 when it
 * could not start (api_span then scans on the engine's connection). */
int api_scan_start(raptor *R, api_scan *a);
/* R->res.first_abs, R->res.last_abs = the first API start and the last API
 * end; *have = 0 when there are none.  Without R->fold an aggregate query;
 * with it the scan (joined when it ran in its thread), its verdict into
 * R->fold->api.  RPD_OK or an error (message in the common error state). */
int api_span(raptor *R, int *have, api_scan *a);

#endif
