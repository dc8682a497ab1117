/* timeopt.c - the one resolver of command-line time values; timeopt.h. */
#include "rpd.h"
#include "timeopt.h"

int rpd_timeopt_resolve_mode(const char *text, int mode, int64_t first, int64_t last,
                             int64_t *ns)
{
  rpd_time t;
  int64_t v;
  int abs_us = mode == RPD_TIMEOPT_ABS_US;
  int rc = rpd_time_parse(text, abs_us ? "us" : "ms", &t);

  if (rc != RPD_OK)
    return rc;
  /* a bare number counts from the start, except the reference's bare us */
  rc = rpd_time_resolve_checked(&t, abs_us && !t.had_unit ? 0 : first, first, last, &v);
  if (rc != RPD_OK)
    return rpd_seterr(RPD_EPARSE, "bad time '%s': out of range (beyond 2^63 ns)", text);
  *ns = v;
  return RPD_OK;
}

int rpd_timeopt_resolve(const char *text, int64_t first, int64_t last, int64_t *ns)
{
  return rpd_timeopt_resolve_mode(text, RPD_TIMEOPT_DEFAULT, first, last, ns);
}
