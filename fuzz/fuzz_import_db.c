/* links: rpd-import */
/* fuzz_import_db - rpd-import's rocprofv3 database reader on arbitrary
 * bytes loaded as an in-memory SQLite database (sqlite3_deserialize):
 * corrupt pages, missing tables and odd column values must give a status. */
#include <stddef.h>
#include <stdint.h>

#include "import_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  imp m;
  rpd in;
  memset(&in, 0, sizeof in);
  if (!size || sqlite3_open(":memory:", &in.db) != SQLITE_OK)
    return 0;
  unsigned char *copy = sqlite3_malloc64(size);
  if (copy) {
    memcpy(copy, data, size);
    if (sqlite3_deserialize(in.db, "main", copy, (sqlite3_int64)size,
                            (sqlite3_int64)size, SQLITE_DESERIALIZE_FREEONCLOSE |
                            SQLITE_DESERIALIZE_READONLY) == SQLITE_OK) {
      in.flags = RPD_READ | RPD_ANYDB;
      if (!fuzz_out_open(&m))
        (void)import_db_handle(&m, &in);
      fuzz_out_close(&m);
    }
  }
  sqlite3_close(in.db);
  return 0;
}
