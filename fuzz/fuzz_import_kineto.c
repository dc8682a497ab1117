/* links: rpd-import */
/* fuzz_import_kineto - rpd-import's PyTorch profiler (Kineto) reader on
 * arbitrary bytes: it must return a status (never crash, leak or
 * overflow); each input is read twice, as rpd-import reads it and as
 * raptor --report's lean direct read does (RPDI_LEAN_REPORT: members of
 * args left out, python calls dropped). */
#include <stddef.h>
#include <stdint.h>

#include "import_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  for (int lean = 0; lean <= 2; lean += 2) {
    imp m;
    if (!fuzz_out_open(&m)) {
      m.lean = lean;
      (void)import_kineto_buf(&m, data, size);
    }
    fuzz_out_close(&m);
  }
  return 0;
}
