/* links: rpd-import */
/* fuzz_import_v1json - rpd-import's rocprof v1 results.json reader (a
 * chrome trace: lanes, slices, DataFlow flow pairs) on arbitrary bytes: it
 * must return a status (never crash, leak or overflow). */
#include <stddef.h>
#include <stdint.h>

#include "import_fuzz.h"
#include "../tools/rpd-import/kinds.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  imp m;
  if (!fuzz_out_open(&m))
    (void)import_v1_json_buf(&m, data, size);
  fuzz_out_close(&m);
  return 0;
}
