/* links: raptor */
/* fuzz_opmerge - raptor's run merger (raptor/opmerge.c): any sequence of
 * ops comes back as the same ops in (gpu, start, id) order, or is refused
 * with RPD_ERANGE (too many runs).  Input: 5 bytes an op (gpu 0..3, start
 * delta -128..127 on its GPU's clock, duration); ids are the positions. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opmerge.h"
#include "rpd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  size_t n = size / 5;
  int64_t clock[4] = {0, 0, 0, 0}, sum_in = 0, sum_out = 0;
  opmerge *m = opmerge_new();
  int rc = RPD_OK;

  for (size_t i = 0; i < n && rc == RPD_OK; i++) {
    const uint8_t *p = data + 5 * i;
    int32_t gpu = p[0] & 3;
    clock[gpu] += (int8_t)p[1] * (p[2] & 1 ? 1000 : 1);
    oprec o = {.id = (int64_t)i + 1, .start = clock[gpu],
               .end = clock[gpu] + (int64_t)(p[3] | p[4] << 8), .kern = p[4], .gpu = gpu};
    sum_in += o.id * 7 + o.start + o.gpu;
    rc = opmerge_add(m, &o);
  }
  if (rc == RPD_ERANGE) {
    opmerge_free(m);
    return 0;
  }
  if (rc != RPD_OK) abort();
  oprec prev = {0}, o;
  size_t got = 0;
  int s;
  while ((s = opmerge_next(m, &o)) == 1) {
    if (got && (o.gpu < prev.gpu ||
                (o.gpu == prev.gpu && (o.start < prev.start ||
                                       (o.start == prev.start && o.id <= prev.id)))))
      abort();   /* out of order */
    sum_out += o.id * 7 + o.start + o.gpu;
    prev = o;
    got++;
  }
  if (s != 0 || got != n || sum_in != sum_out) abort();   /* lost or changed ops */
  opmerge_free(m);
  return 0;
}
