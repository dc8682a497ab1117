/* links: rpd-import */
/* fuzz_import_v1 - rpd-import's rocprof v1 rpl text reader on arbitrary
 * bytes.  The first byte picks the file kind (hip_api, hcc_ops, hsa_api,
 * roctx trace), the rest is the file. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "import_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  imp m;
  if (!size)
    return 0;
  int which = data[0] % 4;
  FILE *f = fuzz_stream(data + 1, size - 1);
  if (!f)
    return 0;
  if (!fuzz_out_open(&m))
    (void)import_v1_stream(&m, f, "fuzz.txt", which);
  else
    fclose(f);
  fuzz_out_close(&m);
  return 0;
}
