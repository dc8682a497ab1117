/* timeopt.h - the ONE meaning of a time value on the command line of every
 * tool (raptor --roi-start/--roi-end, rpd-autograd-summary and rpd2tracing
 * --start/--end, rpd-trim --start/--end).  See docs/time.md.
 *
 *   123.45       a bare number: milliseconds from the trace start (the first
 *                api call; the raptor spec's convention)
 *   123.45ms     a number with a unit (ns, us, ms, s, sec): from the start
 *   +T           from the start (the same as a bare T)
 *   -T           back from the end (the last api end); write --start=-8ms
 *   N%           N percent of the span, from the start
 * A kernel-name regex, where a tool supports it, is the tool's business
 * (raptor: the first matching op).  Values beyond +-2^63 ns, NaN and Inf
 * are refused, never wrapped.
 */
#ifndef RPD_TIMEOPT_H
#define RPD_TIMEOPT_H

#include <stdint.h>

#include "rpd.h"

enum {
  /* the documented default: a bare number is ms from the trace start */
  RPD_TIMEOPT_DEFAULT = 0,
  /* the reference rpd2tracing's --start/--end: a bare number WITHOUT a unit
   * is an absolute timestamp in microseconds (numbers with a unit, +T, -T
   * and N% keep their default meaning) */
  RPD_TIMEOPT_ABS_US = 1,
};

/* Resolve the option text to an absolute timestamp in ns over the trace
 * span [first, last] (ns), the default convention above.  Returns RPD_OK,
 * or RPD_EPARSE with one line in rpd_errmsg() (*ns untouched). */
int rpd_timeopt_resolve(const char *text, int64_t first, int64_t last, int64_t *ns);

/* The same with a convention: RPD_TIMEOPT_DEFAULT or RPD_TIMEOPT_ABS_US. */
int rpd_timeopt_resolve_mode(const char *text, int mode, int64_t first, int64_t last,
                             int64_t *ns);

/* rpd_time_resolve (rpd.h) with overflow checks: *out = the timestamp,
 * RPD_OK, or RPD_EPARSE when it does not fit in int64 (*out untouched). */
int rpd_time_resolve_checked(const rpd_time *t, int64_t bare_origin, int64_t first,
                             int64_t last, int64_t *out);

#endif
