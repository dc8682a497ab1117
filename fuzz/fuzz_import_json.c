/* links: rpd-import */
/* fuzz_import_json - rpd-import's rocprofv3 JSON reader on arbitrary
 * bytes: it must return a status (never crash, leak or overflow). */
#include <stddef.h>
#include <stdint.h>

#include "import_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  imp m;
  if (!fuzz_out_open(&m))
    (void)import_json_buf(&m, data, size);
  fuzz_out_close(&m);
  return 0;
}
