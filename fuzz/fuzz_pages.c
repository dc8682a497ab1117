/* fuzz_pages - the writers' page check (common/trace/pages.c) against
 * damaged files, with the property it exists for: when the check passes,
 * a write (a new table, a dropped one, a metadata row) never changes a
 * table it did not touch.
 *
 * The input is a list of patches, 3 bytes each (a 16-bit offset into the
 * file, a byte to store there), applied to a small trace made once: 1 KiB
 * pages, a table `keep` with small and overflowing rows, and a dropped
 * table whose pages sit on the freelist.  Each run writes the patched
 * file, reads `keep` (when SQLite can), runs the check, and when it
 * passes writes as an augmenter does and reads `keep` again: the rows
 * must be the same.  A check that passes must also agree with SQLite's
 * integrity_check on who owns each page (owners_agree). */
#include "rpd.h"
#include "internal.h"
#include "patch_fuzz.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];
static unsigned char *base;
static size_t base_n;

#define TARGET "fuzz_pages"

static void make_base(void)
{
  base = pf_make_base(TARGET,
                   "PRAGMA page_size = 1024; PRAGMA journal_mode = DELETE;"
                   "CREATE TABLE keep(k INTEGER PRIMARY KEY, v);"
                   "CREATE INDEX keep_v ON keep(v);"
                   "CREATE TABLE gone(x);"
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 120)"
                   " INSERT INTO keep SELECT i, CASE WHEN i % 17 = 0 THEN zeroblob(2500) || i"
                   "  ELSE printf('row %d', i * 7919) END FROM n;"
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)"
                   " INSERT INTO gone SELECT randomblob(60) FROM n;"
                   "DROP TABLE gone;",
                      path, sizeof path, &base_n);
}

/* keep's rows folded into one 64-bit FNV-1a hash; 0 when SQLite cannot
 * read them all.  SQLite's cell checks are on: without them a cell whose
 * offset points past its page is read from bytes beyond the page buffer,
 * different from one read to the next, and two reads of a page no write
 * touched would differ. */
static uint64_t keep_hash(sqlite3 *db)
{
  sqlite3_stmt *st = NULL;
  uint64_t h = 1469598103934665603ull;
  int src;

  if (sqlite3_exec(db, "PRAGMA cell_size_check = ON", NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "SELECT k, v FROM keep NOT INDEXED ORDER BY k", -1, &st, NULL))
    return 0;
  while ((src = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t k = sqlite3_column_int64(st, 0);
    const unsigned char *v = sqlite3_column_blob(st, 1);
    int n = sqlite3_column_bytes(st, 1);
    for (int i = 0; i < 8; i++) h = (h ^ (uint8_t)(k >> (8 * i))) * 1099511628211ull;
    for (int i = 0; i < n && v; i++) h = (h ^ v[i]) * 1099511628211ull;
  }
  sqlite3_finalize(st);
  return src == SQLITE_DONE ? (h ? h : 1) : 0;
}

/* The check passed: SQLite's own integrity_check must not find a page
 * owned twice or by nobody, a pointer out of the file, a short overflow
 * chain or a freelist of the wrong size (its other findings, such as rows
 * out of order, are not what the check is for). */
static void owners_agree(sqlite3 *db)
{
  static const char *const owner[] = { "never used", "2nd reference", "invalid page number",
    "missing from overflow list", "Freelist: size", NULL };
  sqlite3_stmt *st = NULL;

  if (sqlite3_prepare_v2(db, "PRAGMA integrity_check(100)", -1, &st, NULL) != SQLITE_OK) return;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *m = (const char *)sqlite3_column_text(st, 0);
    for (int k = 0; m && owner[k]; k++)
      if (strstr(m, owner[k]))
        pf_die(TARGET, "the page check passed a file integrity_check faults", m);
  }
  sqlite3_finalize(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  sqlite3 *db = NULL;
  uint64_t before, after;
  int passed;

  if (!base) make_base();
  pf_write_patched(TARGET, path, base, base_n, data, size);

  if (rpd_sqlite_open(path, &db, SQLITE_OPEN_READWRITE) != SQLITE_OK) {
    sqlite3_close(db);
    return 0;
  }
  sqlite3_busy_timeout(db, 0);
  before = keep_hash(db);
  passed = rpd__check_integrity(db) == RPD_OK;
  if (passed) owners_agree(db);
  if (passed && before &&
      sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK) {
    int ok = sqlite3_exec(db,
                          "CREATE TABLE ext_fz(a, b);"
                          "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
                          " WHERE i < 300) INSERT INTO ext_fz SELECT i, randomblob(40) FROM n;"
                          "CREATE INDEX ext_fz_a ON ext_fz(a);"
                          "DROP TABLE IF EXISTS sqlite_stat1;",
                          NULL, NULL, NULL) == SQLITE_OK;
    if (sqlite3_exec(db, ok ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK)
      sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);
    db = NULL;
    if (rpd_sqlite_open(path, &db, SQLITE_OPEN_READONLY) != SQLITE_OK)
      pf_die(TARGET, "cannot reopen", NULL);
    after = keep_hash(db);
    /* SQLite may refuse to read a damaged row later (it reads it from a
     * cold cache now), never read different rows */
    if (after && after != before)
      pf_die(TARGET, "the page check passed and a write changed a table it did not touch", NULL);
  }
  sqlite3_close(db);
  return 0;
}
