/* timeopt.h - the --start/--end time options of the tools that take a
 * window in the reference's convention (rpd2tracing, rpd-autograd-summary).
 */
#ifndef RPD_TIMEOPT_H
#define RPD_TIMEOPT_H

#include <stdint.h>

/* Resolve the option text `text` to an absolute timestamp in ns, *ns:
 * a bare number without a unit is absolute microseconds (the reference's
 * --start/--end); a bare number with a unit counts from `first` (the first
 * api call); +T, -T and N% are the common forms over [first, last] (see
 * rpd_time_parse).  Returns RPD_OK, or RPD_EPARSE with the reason in
 * rpd_errmsg() (*ns untouched). */
int rpd_timeopt_resolve(const char *text, int64_t first, int64_t last, int64_t *ns);

#endif
