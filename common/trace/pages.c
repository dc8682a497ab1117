/* pages.c - before a writer changes a trace, prove its pages hold
 * together: every page of the file belongs to exactly one b-tree, or to
 * the freelist, or is SQLite's lock-byte page, and no b-tree page is
 * unreadable.  A write into a damaged file can land on a page another
 * table still uses (a freelist that lists a live page is the classic
 * case) and the tool would report success over a wiped table.
 *
 * PRAGMA quick_check proves this too, but it also decodes every row to
 * test NOT NULL columns: three quarters of its cost, 0.35 s of CPU on a
 * 160 MB trace, and nothing a write can be hurt by.  Here SQLite's dbstat
 * table walks the b-trees (one row per page, with "corrupted" for a page
 * that does not parse) and the freelist is read from its trunk pages:
 * about a fifth of the cost.  Files this walk cannot account for (WAL
 * mode, where the newest pages live in the -wal file; auto-vacuum, with
 * its pointer-map pages; a file object named dbstat, which would hide
 * SQLite's own) get the full quick_check instead. */
#include "rpd.h"
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int rpd__sqlerr(sqlite3 *db, int src, const char *sql);   /* sql.c */

/* One integer from sql (no parameters); returns an RPD status. */
static int one_int(sqlite3 *db, const char *sql, int64_t *v)
{
  sqlite3_stmt *st = NULL;
  int src = sqlite3_prepare_v2(db, sql, -1, &st, NULL), rc = RPD_OK;

  *v = 0;
  if (src == SQLITE_OK) src = sqlite3_step(st);
  if (src == SQLITE_ROW) *v = sqlite3_column_int64(st, 0);
  else rc = rpd__sqlerr(db, src == SQLITE_DONE ? SQLITE_ERROR : src, sql);
  sqlite3_finalize(st);
  return rc;
}

static int damaged(const char *what, int64_t page)
{
  return rpd_seterr(RPD_ENOTDB, "corrupt SQLite database (page %lld %s); nothing was written",
                    (long long)page, what);
}

/* The page map: one bit per page, 1 .. n. */
typedef struct {
  unsigned char *bit;
  int64_t n;
} pagemap;

/* Claim page p for one owner (freelist: the freelist's, else a b-tree's
 * or the lock page): RPD_OK, or the damage (out of the file, or claimed
 * twice). */
static int claim(pagemap *m, int64_t p, int freelist)
{
  if (p < 1 || p > m->n)
    return damaged(freelist ? "is on the freelist but past the end of the file"
                            : "is past the end of the file", p);
  if (m->bit[(p - 1) >> 3] & (1u << ((p - 1) & 7)))
    return damaged(freelist ? "is on the freelist and in use" : "is used twice", p);
  m->bit[(p - 1) >> 3] |= (unsigned char)(1u << ((p - 1) & 7));
  return RPD_OK;
}

/* Every page dbstat walks: claimed once, none "corrupted". */
static int claim_btrees(sqlite3 *db, pagemap *m)
{
  static const char sql[] = "SELECT pageno, pagetype FROM main.dbstat";
  sqlite3_stmt *st = NULL;
  int src = sqlite3_prepare_v2(db, sql, -1, &st, NULL), rc = RPD_OK;

  if (src != SQLITE_OK) return rpd__sqlerr(db, src, sql);
  while (!rc && (src = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t p = sqlite3_column_int64(st, 0);
    const char *type = (const char *)sqlite3_column_text(st, 1);
    if (type && strcmp(type, "corrupted") == 0) rc = damaged("does not parse", p);
    else rc = claim(m, p, 0);
  }
  if (!rc && src != SQLITE_DONE) rc = rpd__sqlerr(db, src, sql);
  sqlite3_finalize(st);
  return rc;
}

static uint32_t be32(const unsigned char *b)
{
  return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* Read page p (size bytes) through SQLite's own file handle: inside the
 * read transaction the caller holds, the file is the committed database. */
static int read_page(sqlite3_file *f, int64_t p, int size, unsigned char *buf)
{
  int src = f->pMethods->xRead(f, buf, size, (p - 1) * (sqlite3_int64)size);

  return src == SQLITE_OK ? RPD_OK : rpd_seterr(RPD_EIO, "I/O error reading page %lld",
                                                (long long)p);
}

/* The freelist: trunk pages from the header's first, each listing leaf
 * pages; every one claimed once, and as many as the header counts. */
static int claim_freelist(sqlite3 *db, pagemap *m, int size)
{
  sqlite3_file *f = NULL;
  unsigned char *buf;
  int64_t counted = 0, want, trunk;
  int rc = RPD_OK, usable;

  if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &f) != SQLITE_OK || !f ||
      !f->pMethods) {
    return rpd_seterr(RPD_EIO, "cannot read the database file");
  }
  buf = rpd_xmalloc((size_t)size);
  rc = read_page(f, 1, size, buf);
  usable = size - buf[20];   /* bytes reserved at the end of each page */
  trunk = be32(buf + 32);
  want = be32(buf + 36);
  while (!rc && trunk) {
    uint32_t leaves;
    if ((rc = claim(m, trunk, 1))) break;
    if ((rc = read_page(f, trunk, size, buf))) break;
    counted++;
    leaves = be32(buf + 4);
    if (leaves > (uint32_t)(usable / 4 - 2)) {
      rc = damaged("is a freelist page listing too many pages", trunk);
      break;
    }
    for (uint32_t i = 0; !rc && i < leaves; i++, counted++)
      rc = claim(m, be32(buf + 8 + 4 * i), 1);
    trunk = be32(buf);
  }
  if (!rc && counted != want)
    rc = rpd_seterr(RPD_ENOTDB, "corrupt SQLite database (the freelist holds %lld pages, "
                    "the header says %lld); nothing was written", (long long)counted,
                    (long long)want);
  free(buf);
  return rc;
}

/* The walk, inside one read transaction so the file cannot change under
 * it. */
static int walk_pages(sqlite3 *db)
{
  pagemap m = { NULL, 0 };
  int64_t size = 0, lockpage;
  int rc = one_int(db, "PRAGMA main.page_count", &m.n);

  if (!rc) rc = one_int(db, "PRAGMA main.page_size", &size);
  if (rc) return rc;
  if (size < 512 || size > 65536) return damaged("has an impossible size", 1);
  m.bit = calloc((size_t)(m.n / 8 + 1), 1);
  if (!m.bit) return rpd_seterr(RPD_ENOMEM, "out of memory");
  rc = claim_btrees(db, &m);
  if (!rc) rc = claim_freelist(db, &m, (int)size);
  /* SQLite never uses the page holding the lock bytes at 1 GiB */
  lockpage = 0x40000000 / size + 1;
  if (!rc && lockpage <= m.n) rc = claim(&m, lockpage, 0);
  for (int64_t p = 1; !rc && p <= m.n; p++)
    if (!(m.bit[(p - 1) >> 3] & (1u << ((p - 1) & 7)))) rc = damaged("is never used", p);
  free(m.bit);
  return rc;
}

/* The full quick_check, for files the walk cannot account for. */
static int quick_check(sqlite3 *db)
{
  char res[400];
  int rc = rpd__first_text(db, "PRAGMA quick_check(1)", NULL, res, sizeof res);

  if (rc) return rc;
  if (strcmp(res, "ok") == 0) return RPD_OK;
  return rpd_seterr(RPD_ENOTDB, "corrupt SQLite database (quick_check: %s); nothing was "
                    "written", res);
}

int rpd__check_integrity(sqlite3 *db)
{
  char mode[32], named[8];
  int64_t autovac = 0;
  int rc = rpd__first_text(db, "PRAGMA main.journal_mode", NULL, mode, sizeof mode);

  if (!rc) rc = one_int(db, "PRAGMA main.auto_vacuum", &autovac);
  if (!rc) rc = rpd__first_text(db, "SELECT 1 FROM main.sqlite_master WHERE name = 'dbstat' "
                             "COLLATE NOCASE", NULL, named, sizeof named);
  if (rc) return rc;
  if (strcmp(mode, "wal") == 0 || autovac || named[0]) return quick_check(db);
  if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
    return rpd__sqlerr(db, sqlite3_errcode(db), "BEGIN");
  /* the read transaction starts with the first read: dbstat's */
  rc = walk_pages(db);
  sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  return rc;
}
