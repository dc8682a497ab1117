/* health.h - what in a trace cannot be trusted: named checks that count
 * the rows breaking a rule a correct tracer never breaks (ops overlapping
 * on one in-order queue, an op starting before its launch, links to
 * missing rows, clocks from two domains, ...).  Read-only: nothing is
 * written to the trace.  rpd-health prints them; raptor --report shows the
 * non-zero ones in a banner.  See docs/rpd-health.md. */
#ifndef RPD_HEALTH_H
#define RPD_HEALTH_H

#include <stdint.h>

#include "rpd.h"

/* One check's result. */
typedef struct rpd_health_row {
  const char *check;    /* the check's name, e.g. "queue_overlap" (static) */
  const char *meaning;  /* one line: what a non-zero count means (static) */
  int64_t count;        /* offending rows (0: nothing found) */
  char *example;        /* the first offending case in words, or "" (owned
                           by the result; freed by rpd_health_free) */
} rpd_health_row;

typedef struct rpd_health {
  rpd_health_row *row;
  int n;
} rpd_health;

/* Run every check on r (read-only; a few full scans of rocpd_op, rocpd_api
 * and rocpd_api_ops, one sort of the ops by queue).  *out gets one row per
 * check, in the documented order; the caller frees it with
 * rpd_health_free().  RPD_OK or an SQL error (message in rpd_errmsg()). */
int rpd_health_run(rpd *r, rpd_health *out);
/* Free the rows of h (h itself is the caller's). */
void rpd_health_free(rpd_health *h);
/* The number of checks with a non-zero count. */
int rpd_health_failed(const rpd_health *h);

#endif
