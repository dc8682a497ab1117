/* fuzz-sources: tools/rpd-import/writer.c tools/rpd-import/ext.c tools/rpd-import/kineto.c tools/rpd-import/kineto_event.c tools/rpd-import/kineto_meta.c tools/rpd-import/kjson.c tools/rpd-import/jsonfile.c tools/rpd-import/json.c tools/rpd-import/json_kinds.c */
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
