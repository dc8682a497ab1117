/* fuzz_time - time/ROI option values (common/trace/time.c rpd_time_parse, then
 * rpd_time_resolve over a span): any text is parsed or refused; a parsed
 * value is finite and resolves without overflow. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "rpd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const char *const units[] = {"ns", "us", "ms", "s"};
  fz f = {data, size};
  const char *unit = units[fz_byte(&f) & 3];
  /* a span like a real trace: [first, first + len] */
  int64_t first = (int64_t)(fz_bits(&f, 7) & 0x00ffffffffffffffULL);
  int64_t last = first + (int64_t)(fz_bits(&f, 5));
  char *s = fz_str(f.p, f.n);
  rpd_time t;

  if (rpd_time_parse(s, unit, &t) == RPD_OK) {
    if (!isfinite(t.ns) || !isfinite(t.pct))
      fz_fail("a parsed time that is not finite", s);
    rpd_time_resolve(&t, first, first, last);
  } else if (strchr(rpd_errmsg(), '\n')) {
    fz_fail("error message of more than one line", rpd_errmsg());
  }
  free(s);
  return 0;
}
