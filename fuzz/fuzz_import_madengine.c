/* links: rpd-import */
/* fuzz_import_madengine - rpd-import --into's readers (madengine's
 * gpu_info power/vram CSVs and library_trace.csv) on arbitrary bytes.  The
 * readers take a path: the input is written to one temp file per process
 * first.  Into the in-memory trace, rolled back after each input. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "import_fuzz.h"

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  imp m;
  if (!path[0])
    snprintf(path, sizeof path, "/tmp/fuzz_madengine.%ld.csv", (long)getpid());
  FILE *f = fopen(path, "wb");
  if (!f)
    return 0;
  if (size)
    fwrite(data, 1, size, f);
  fclose(f);
  if (!fuzz_out_open(&m)) {
    int64_t rows = 0;
    (void)import_madengine_csv(m.r, path, 0, &rows);
  }
  fuzz_out_close(&m);
  return 0;
}
