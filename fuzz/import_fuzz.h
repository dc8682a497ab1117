/* import_fuzz.h - shared set-up of the rpd-import fuzz targets: an
 * in-memory schema-v3 RPD as the writer's output, one transaction per
 * input, everything freed afterwards.  Header only (static functions). */
#ifndef IMPORT_FUZZ_H
#define IMPORT_FUZZ_H

#include <string.h>

#include "../tools/rpd-import/import.h"
#include "internal.h"   /* white-box: one in-memory handle reused across inputs */

/* The output trace: created once per process (schema creation is the
 * slow part); each input runs in a transaction that is rolled back. */
static rpd fuzz_out;

/* Start one input's import into the in-memory trace; 0 on success. */
static int fuzz_out_open(imp *m)
{
  memset(m, 0, sizeof *m);
  if (!fuzz_out.db) {
    if (sqlite3_open(":memory:", &fuzz_out.db) != SQLITE_OK)
      return 1;
    fuzz_out.schema = 3;
    fuzz_out.flags = RPD_WRITE | RPD_CREATE;
    if (rpd_schema_create(&fuzz_out))
      return 1;
  }
  m->r = &fuzz_out;
  m->input = "fuzz";
  if (rpd_exec(&fuzz_out, "BEGIN") || w_prepare(m))
    return 1;
  return 0;
}

/* Finish (flush) the input, free what fuzz_out_open made, roll back. */
static void fuzz_out_close(imp *m)
{
  if (m->r)
    w_flush(m);
  w_finalize(m);
  if (fuzz_out.db)
    sqlite3_exec(fuzz_out.db, "ROLLBACK", NULL, NULL, NULL);
}

/* The n bytes at d as a read stream; fmemopen needs a non-empty buffer, so
 * an empty input is a one-byte empty string (an empty file is still tested).
 * NULL when fmemopen fails. */
static FILE *fuzz_stream(const uint8_t *d, size_t n)
{
  static const char empty[1] = "";
  return n ? fmemopen((void *)d, n, "r") : fmemopen((void *)empty, 1, "r");
}

#endif
