/* inputs.c - what both modes of rpd-diff (main.c's comparison and
 * waterfall.c's --waterfall) do the same way with their options and their
 * two traces. */
#include <stdio.h>

#include "rpd.h"
#include "check.h"
#include "wfmode.h"

int diff_xlsx_opt(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  (void)name;
  if (!*v) {
    snprintf(msg, msgsz, "--xlsx needs a file name");
    return -1;
  }
  *(const char **)ctx = v;
  return 0;
}

int diff_check_xlsx(const char *xlsx, const char *a, const char *b)
{
  if (xlsx && (rpd_output_check(xlsx, a, NULL) || rpd_output_check(xlsx, b, NULL)))
    return rpd_fail("cannot write '%s': %s", xlsx, rpd_errmsg());
  return 0;
}

int diff_open_trace(rpd **r, const char *path)
{
  if (rpd_open_or_report(r, path, NULL, RPD_READ))
    return 1;
  /* a text or out-of-range timestamp would be summed as a wrong number */
  if (rpd_check_trace(*r) || rpd_profile(*r, RPD_OPEN_SCAN))
    return rpd_fail("cannot read '%s': %s", path, rpd_errmsg());
  return 0;
}
