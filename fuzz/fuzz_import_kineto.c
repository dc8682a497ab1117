/* links: rpd-import */
/* fuzz_import_kineto - rpd-import's PyTorch profiler (Kineto) reader on
 * arbitrary bytes: it must return a status (never crash, leak or
 * overflow). */
#include <stddef.h>
#include <stdint.h>

#include "import_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  imp m;
  if (!fuzz_out_open(&m))
    (void)import_kineto_buf(&m, data, size);
  fuzz_out_close(&m);
  return 0;
}
