/* links: rpd-import */
/* fuzz_import_csv - rpd-import's rocprofv3 CSV reader on arbitrary bytes.
 * The first byte picks the file kind (kernel_trace, hip/hsa/marker/rccl
 * api, memory_copy, agent_info, rocdecode/rocjpeg api, counter_collection,
 * memory_allocation, scratch_memory, any api, rocprof v1 results.csv),
 * the rest is the file. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "import_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  imp m;
  if (!size)
    return 0;
  int which = data[0] % 14;
  FILE *f = fuzz_stream(data + 1, size - 1);
  if (!f)
    return 0;
  if (!fuzz_out_open(&m))
    (void)import_csv_stream(&m, f, "fuzz.csv", which);
  else
    fclose(f);
  fuzz_out_close(&m);
  return 0;
}
