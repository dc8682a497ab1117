/* timeopt.c - --start/--end values in the reference's convention.
 * See timeopt.h. */
#include "rpd.h"
#include "timeopt.h"

int rpd_timeopt_resolve(const char *text, int64_t first, int64_t last, int64_t *ns)
{
  rpd_time t;
  int rc = rpd_time_parse(text, "us", &t);

  if (rc != RPD_OK)
    return rc;
  *ns = rpd_time_resolve(&t, t.had_unit ? first : 0, first, last);
  return RPD_OK;
}
