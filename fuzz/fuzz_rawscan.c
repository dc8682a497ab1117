/* fuzz_rawscan - rpd_intscan's direct page reader (common/trace/rawscan.c)
 * against damaged files, with the property it must keep: whenever both
 * the direct reader and the SQL path (RPD_RAWSCAN=0) read the whole
 * table, they return the same rows, in the same order, with the same
 * values and INTEGER bits; neither crashes nor hangs.
 *
 * The input is a list of patches, 3 bytes each (a 16-bit offset into the
 * file, a byte to store there), applied to a small file made once: 512
 * byte pages (so the table's b-tree has two interior levels), a table t
 * with integers of every size, NULLs, reals, texts, overflowing blobs,
 * and a column added later with a default (short records), interleaved
 * with a second table's pages.  Each run writes the patched file and
 * scans it both ways on fresh connections, with SQLite's cell checks on
 * (without them SQLite reads a cell that points past its page from bytes
 * beyond the page buffer, different from one read to the next). */
#include "rpd.h"
#include "intscan.h"
#include "patch_fuzz.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];
static unsigned char *base;
static size_t base_n;

static const char *const queries[] = {
  "SELECT 1 FROM t WHERE rpd_intscan(?1, id, a, b, c, d, rowid, b IS NULL)",
  "SELECT 1 FROM t WHERE rpd_intscan(?1, a, d, id) ORDER BY id",
};
static const int ncols[] = { 7, 3 };

#define TARGET "fuzz_rawscan"

static void make_base(void)
{
  base = pf_make_base(TARGET,
                   "PRAGMA page_size = 512; PRAGMA journal_mode = DELETE;"
                   "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b, c);"
                   "CREATE TABLE side (x);"
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1800)"
                   " INSERT INTO t SELECT i * 2, (i - 900) * CASE i % 5 WHEN 0 THEN 1"
                   "  WHEN 1 THEN 70000 WHEN 2 THEN 1 << 33 WHEN 3 THEN 1 << 50 ELSE 300 END,"
                   " CASE i % 7 WHEN 0 THEN NULL WHEN 1 THEN 0 WHEN 2 THEN 1 WHEN 3 THEN i + 0.5"
                   "  WHEN 4 THEN '9' || i ELSE -i END,"
                   " CASE WHEN i % 151 = 0 THEN zeroblob(700) ELSE i % 3 END FROM n;"
                   "ALTER TABLE t ADD COLUMN d DEFAULT 5;"
                   "UPDATE t SET d = id WHERE id % 11 = 0;"
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)"
                   " INSERT INTO side SELECT randomblob(30) FROM n;",
                      path, sizeof path, &base_n);
}

typedef struct {
  int64_t rows;
  uint64_t hash;
  int end;     /* rpd_intscan_row's last return: 0 = every row read */
  int used;    /* the direct reader served it */
} result;

static void scan(int raw, int q, result *o)
{
  sqlite3 *db = NULL;
  rpd *r = NULL;
  rpd_intscan sc;
  const int64_t *v = NULL;
  unsigned ints = 0;

  memset(o, 0, sizeof *o);
  o->end = -1;
  o->hash = 1469598103934665603ull;
  setenv("RPD_RAWSCAN", raw ? "1" : "0", 1);
  if (rpd_sqlite_open(path, &db, SQLITE_OPEN_READONLY) != SQLITE_OK ||
      sqlite3_exec(db, "PRAGMA cell_size_check = ON", NULL, NULL, NULL) != SQLITE_OK ||
      !(r = rpd_attach(db, 0, 0))) {
    sqlite3_close(db);
    return;
  }
  if (rpd_intscan_open(r, &sc, queries[q], ncols[q], (1u << ncols[q]) - 1) == RPD_OK) {
    while ((o->end = rpd_intscan_row(r, &sc, &v, &ints)) == 1) {
      o->rows++;
      o->hash = (o->hash ^ ints) * 1099511628211ull;
      for (int c = 0; c < ncols[q]; c++)
        for (int k = 0; k < 8; k++)
          o->hash = (o->hash ^ (uint8_t)((uint64_t)v[c] >> (8 * k))) * 1099511628211ull;
    }
    o->used = sc.raw_used;
    rpd_intscan_close(&sc);
  }
  rpd_detach(r);
  sqlite3_close(db);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (!base) make_base();
  pf_write_patched(TARGET, path, base, base_n, data, size);

  for (int q = 0; q < 2; q++) {
    result sql, raw;
    scan(0, q, &sql);
    scan(1, q, &raw);
    if (sql.end == 0 && raw.end == 0 && (sql.rows != raw.rows || sql.hash != raw.hash)) {
      char m[160];
      snprintf(m, sizeof m, "query %d: SQL path %lld rows, direct reader %lld rows%s", q,
               (long long)sql.rows, (long long)raw.rows,
               sql.rows == raw.rows ? " (different values)" : "");
      pf_die(TARGET, "the direct reader and the SQL path disagree", m);
    }
    /* the unpatched file: the reader must serve it */
    if (size < 3 && (!raw.used || raw.end != 0 || sql.end != 0))
      pf_die(TARGET, "the direct reader did not read the undamaged file", NULL);
  }
  return 0;
}
