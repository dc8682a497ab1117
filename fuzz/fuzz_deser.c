/* links: rpd-deserialize */
/* fuzz_deser - the s_api/s_op marker parser of rpd-deserialize
 * (augment/rpd-deserialize/deser.c): whatever the text, an accepted op has its ids and
 * times in range and end >= start; a refusal has a one-line reason. */
#include <stdint.h>
#include <string.h>

#include "deser.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fz f = {data, size};
  /* the marker's own times: 16 bytes, then the args text */
  int64_t ms = (int64_t)fz_bits(&f, 8), me = (int64_t)fz_bits(&f, 8);
  char *s = fz_str(f.p, f.n);
  rpd_deser d;
  int rc = rpd_deser_parse(s, ms, me, &d);

  if (rc == RPD_OK && d.op) {
    if (d.gpu_id < 0 || d.gpu_id > INT32_MAX || d.queue_id < 0 || d.queue_id > INT32_MAX ||
        d.sequence_id < 0 || d.start < 0 || d.end < d.start || d.end > RPD_DESER_TIME_MAX ||
        !*d.op)
      fz_fail("an accepted op out of range", s);
  } else if (rc == RPD_OK && d.api && !*d.api)
    fz_fail("an accepted empty s_api", s);
  else if (rc != RPD_OK && (rc != RPD_EPARSE || strchr(rpd_errmsg(), '\n')))
    fz_fail("a refusal that is not one line of RPD_EPARSE", rpd_errmsg());
  rpd_deser_free(&d);
  free(s);
  return 0;
}
