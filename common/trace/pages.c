/* pages.c - before a writer changes a trace, prove its pages hold
 * together: every page of the file belongs to exactly one b-tree, or to
 * the freelist, or is SQLite's lock-byte page, and no b-tree page is
 * unreadable.  A write into a damaged file can land on a page another
 * table still uses (a freelist that lists a live page is the classic
 * case) and the tool would report success over a wiped table.
 *
 * PRAGMA quick_check proves this too, but it also decodes every row to
 * test NOT NULL columns: three quarters of its cost, 0.35 s of CPU on a
 * 160 MB trace, and nothing a write can be hurt by.  SQLite's dbstat table
 * walks only the pages, but page by page through the pager, with a row of
 * statistics each: 0.1 s there, a sixth of an augmenter's run.  So the
 * walk reads the file itself, through SQLite's own file handle inside one
 * read transaction: every b-tree from its root in sqlite_master, level by
 * level in page order (each pass reads the pages it wants in runs of up to
 * 1 MiB, so the file is read about once), every cell's payload size for
 * its overflow chain, and the freelist from its trunk pages.  A page is
 * claimed when the first pointer to it is found; a second pointer, a
 * pointer out of the file, a page whose header or cells do not fit in it,
 * a child of the other kind of b-tree, or a tree deeper than SQLite reads
 * is damage.  Files the walk cannot account for (WAL mode, where the
 * newest pages live in the -wal file; auto-vacuum, with its pointer-map
 * pages) get the full quick_check instead. */
#include "rpd.h"
#include "internal.h"
#include "btree.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int rpd__sqlerr(sqlite3 *db, int src, const char *sql);   /* sql.c */

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

/* ------------------------------------------------------------ b-trees */

/* The walk of the b-trees: the page map, two to-do sets (pages to visit
 * as a page of a table b-tree, of an index b-tree; a root is in both: it
 * may be either), and the last run of pages read. */
typedef struct {
  pagemap *m;
  sqlite3_file *f;
  int size, usable;        /* page size; bytes of it SQLite uses */
  int small;               /* a payload of at most this many bytes fits in
                              one varint byte and in any cell: index cells
                              keep the least, (usable - 12) * 64 / 255 - 23,
                              under 127 on pages of 512 bytes */
  uint64_t *todo[2];       /* [KIND_TABLE], [KIND_INDEX]: bit p - 1 */
  size_t words;
  unsigned char *run;      /* pages first .. first + have - 1 */
  int64_t first, have, cap;
} walk;

enum { KIND_TABLE, KIND_INDEX };
#define KIND_BOTH (1 << KIND_TABLE | 1 << KIND_INDEX)   /* a root's kinds */
#define RUN_BYTES (1 << 20)
/* SQLite reads b-trees at most 20 levels deep (BTCURSOR_MAX_DEPTH); a pass
 * visits every page whose parent came earlier in the file, so a tree it
 * can read needs at most 21 passes */
#define MAX_PASSES 24

static int todo_has(const walk *w, int kind, int64_t p)
{
  return (int)(w->todo[kind][(p - 1) >> 6] >> ((p - 1) & 63) & 1);
}

static void todo_set(walk *w, int kind, int64_t p)
{
  w->todo[kind][(p - 1) >> 6] |= (uint64_t)1 << ((p - 1) & 63);
}

/* A read through SQLite's own file handle (inside the caller's read
 * transaction the file is the committed database); a file shorter than
 * its page count is damage at page p. */
static int read_at(sqlite3_file *f, int64_t p, int size, void *buf, int n)
{
  int src = f->pMethods->xRead(f, buf, n, (p - 1) * (sqlite3_int64)size);

  if (src == SQLITE_OK) return RPD_OK;
  if (src == SQLITE_IOERR_SHORT_READ) return damaged("is past the end of the file", p);
  return rpd_seterr(RPD_EIO, "I/O error reading page %lld", (long long)p);
}

/* Page p's bytes in *b: from the last run, or from a new run starting at p
 * and reaching the last page to visit within RUN_BYTES. */
static int page_at(walk *w, int64_t p, const unsigned char **b)
{
  int64_t last = p, end = p + w->cap - 1;
  int rc;

  if (p >= w->first && p < w->first + w->have) {
    *b = w->run + (size_t)(p - w->first) * (size_t)w->size;
    return RPD_OK;
  }
  if (end > w->m->n) end = w->m->n;
  for (int64_t q = p + 1; q <= end; q++)
    if (todo_has(w, KIND_TABLE, q) || todo_has(w, KIND_INDEX, q)) last = q;
  w->have = 0;
  if ((rc = read_at(w->f, p, w->size, w->run, (int)((last - p + 1) * w->size)))) return rc;
  w->first = p;
  w->have = last - p + 1;
  *b = w->run;
  return RPD_OK;
}

/* A pointer to a child page of the given kind: claimed, and to visit. */
static int child(walk *w, int64_t p, int kind)
{
  int rc = claim(w->m, p, 0);

  if (!rc) todo_set(w, kind, p);
  return rc;
}

/* An overflow chain of count pages from first: each claimed and read for
 * its next, which is 0 after the last (SQLite frees count pages; its
 * integrity check follows the pointers). */
static int chain(walk *w, int64_t p, int64_t count)
{
  unsigned char next[4];
  int rc = RPD_OK;

  for (int64_t k = 0; !rc && k < count; k++) {
    if ((rc = claim(w->m, p, 0))) break;
    if (p >= w->first && p < w->first + w->have)
      memcpy(next, w->run + (size_t)(p - w->first) * (size_t)w->size, 4);
    else if ((rc = read_at(w->f, p, w->size, next, 4)))
      break;
    if (k == count - 1 && rpd__be32(next)) rc = damaged("ends an overflow chain that goes on", p);
    p = rpd__be32(next);
  }
  return rc;
}

/* The page's free space adds up as SQLite computes it before it writes
 * the page (and its integrity check before it reads the children): the
 * freeblocks in order inside the cell content area, no two touching, and
 * with the fragments and the content area's offset between the end of the
 * cell pointers (first) and the page's usable bytes. */
static int free_space_ok(const unsigned char *b, int hdr, int first, int usable)
{
  int64_t gap = rpd__be16(b + hdr + 5) ? rpd__be16(b + hdr + 5) : 65536, total = b[hdr + 7] + gap;
  int blk = (int)rpd__be16(b + hdr + 1), next = 0, size = 0;

  if (blk) {
    if (blk < gap) return 0;
    for (;;) {
      if (blk > usable - 4) return 0;
      next = (int)rpd__be16(b + blk);
      size = (int)rpd__be16(b + blk + 2);
      total += size;
      if (next <= blk + size + 3) break;
      blk = next;
    }
    if (next > 0 || blk + size > usable) return 0;
  }
  return total <= usable && total >= first;
}

/* Visit b-tree page p as a page of one of kinds (bits 1 << KIND_*): its
 * header and cells within its usable bytes, its children claimed and
 * queued, its cells' overflow chains claimed. */
static int visit(walk *w, int64_t p, int kinds)
{
  const unsigned char *b;
  rpd__btree_page pg;
  int hdr = p == 1 ? 100 : 0, rc = page_at(w, p, &b), kind;

  if (rc) return rc;
  if (!rpd__btree_type(b[hdr])) return damaged("does not parse", p);
  kind = b[hdr] == 2 || b[hdr] == 10 ? KIND_INDEX : KIND_TABLE;
  if (!(kinds & (1 << kind))) return damaged("is in a b-tree of the other kind", p);
  /* SQLite reads no page below a root (page 1 or one in both to-do sets)
   * without cells */
  if (!rpd__btree_header(b, hdr, w->size, w->usable, &pg) ||
      (!pg.ncell && kinds != KIND_BOTH && p != 1) ||
      !free_space_ok(b, hdr, pg.cells + 2 * pg.ncell, w->usable))
    return damaged("does not parse", p);
  if (pg.interior && (rc = child(w, rpd__be32(b + hdr + 8), kind))) return rc;
  for (int i = 0; i < pg.ncell; i++) {
    int at = rpd__btree_cell(b, &pg, i, w->usable);
    uint64_t n, key;
    int64_t local;

    if (at < 0) return damaged("does not parse", p);
    if (pg.interior) {
      if ((rc = child(w, rpd__be32(b + at), kind))) return rc;
      at += 4;
      if (kind == KIND_TABLE) {   /* a key, no payload */
        if (!rpd__varint(b, &at, w->usable, &key)) return damaged("does not parse", p);
        continue;
      }
    }
    /* most cells: a payload of one varint byte small enough never to
     * overflow, and the cell (its row id too: at most 9 bytes) well
     * inside the page */
    if (b[at] <= w->small && at + 10 + b[at] <= w->usable) continue;
    if (!rpd__varint(b, &at, w->usable, &n) ||
        (!pg.interior && kind == KIND_TABLE && !rpd__varint(b, &at, w->usable, &key)) ||
        n > 0x7fffffff)
      return damaged("does not parse", p);
    local = rpd__local_bytes((int64_t)n, w->usable, !pg.interior && kind == KIND_TABLE);
    if ((int64_t)n == local) {
      if (at + local > w->usable) return damaged("does not parse", p);
    } else {
      if (at + local + 4 > w->usable) return damaged("does not parse", p);
      if ((rc = chain(w, rpd__be32(b + at + local),
                      ((int64_t)n - local + w->usable - 5) / (w->usable - 4))))
        return rc;
    }
  }
  return RPD_OK;
}

/* One pass in page order over the pages to visit (with the pages queued
 * ahead of it on the way); *visited counts them, *last is the last. */
static int pass(walk *w, int64_t *visited, int64_t *last)
{
  int rc = RPD_OK;

  for (size_t i = 0; !rc && i < w->words; i++) {
    uint64_t bits;
    while (!rc && (bits = w->todo[KIND_TABLE][i] | w->todo[KIND_INDEX][i])) {
      int at = __builtin_ctzll(bits);
      int64_t p = (int64_t)i * 64 + at + 1;
      int kinds = (int)(w->todo[KIND_TABLE][i] >> at & 1) << KIND_TABLE |
                  (int)(w->todo[KIND_INDEX][i] >> at & 1) << KIND_INDEX;

      w->todo[KIND_TABLE][i] &= ~((uint64_t)1 << at);
      w->todo[KIND_INDEX][i] &= ~((uint64_t)1 << at);
      (*visited)++;
      *last = p;
      rc = visit(w, p, kinds);
    }
  }
  return rc;
}

/* Every b-tree: sqlite_master's at page 1 (a table b-tree) and each root
 * sqlite_master names, walked pass after pass until no page is left. */
static int claim_btrees(sqlite3 *db, pagemap *m, sqlite3_file *f, int size, int usable)
{
  static const char sql[] = "SELECT rootpage FROM main.sqlite_master WHERE rootpage <> 0";
  walk w = { .m = m, .f = f, .size = size, .usable = usable,
             .words = (size_t)(m->n + 63) / 64 };
  sqlite3_stmt *st = NULL;
  int src, rc;

  w.cap = RUN_BYTES / size;
  w.small = rpd__max_local(usable, 0) < 127 ? (int)rpd__max_local(usable, 0) : 127;
  w.todo[KIND_TABLE] = calloc(w.words, sizeof(uint64_t));
  w.todo[KIND_INDEX] = calloc(w.words, sizeof(uint64_t));
  w.run = malloc(RUN_BYTES);
  if (!w.todo[KIND_TABLE] || !w.todo[KIND_INDEX] || !w.run) {
    rc = rpd_seterr(RPD_ENOMEM, "out of memory");
    goto done;
  }
  if ((rc = child(&w, 1, KIND_TABLE))) goto done;
  if ((src = sqlite3_prepare_v2(db, sql, -1, &st, NULL)) != SQLITE_OK) {
    rc = rpd__sqlerr(db, src, sql);
    goto done;
  }
  while (!rc && (src = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t root = sqlite3_column_int64(st, 0);
    if (!(rc = child(&w, root, KIND_TABLE))) todo_set(&w, KIND_INDEX, root);
  }
  if (!rc && src != SQLITE_DONE) rc = rpd__sqlerr(db, src, sql);
  for (int k = 0; !rc; k++) {
    int64_t visited = 0, last = 0;
    if ((rc = pass(&w, &visited, &last)) || !visited) break;
    if (k == MAX_PASSES) {
      rc = damaged("is in a b-tree deeper than SQLite reads", last);
      break;
    }
  }
done:
  sqlite3_finalize(st);
  free(w.todo[KIND_TABLE]);
  free(w.todo[KIND_INDEX]);
  free(w.run);
  return rc;
}

/* ------------------------------------------------------------ freelist */

/* The freelist: trunk pages from the header's first, each listing leaf
 * pages; every one claimed once, and as many as the header counts. */
static int claim_freelist(pagemap *m, sqlite3_file *f, int size, int usable, int64_t trunk,
                          int64_t want)
{
  unsigned char *buf = rpd_xmalloc((size_t)size);
  int64_t counted = 0;
  int rc = RPD_OK;

  while (!rc && trunk) {
    uint32_t leaves;
    if ((rc = claim(m, trunk, 1))) break;
    if ((rc = read_at(f, trunk, size, buf, size))) break;
    counted++;
    leaves = rpd__be32(buf + 4);
    if (leaves > (uint32_t)(usable / 4 - 2)) {
      rc = damaged("is a freelist page listing too many pages", trunk);
      break;
    }
    for (uint32_t i = 0; !rc && i < leaves; i++, counted++)
      rc = claim(m, rpd__be32(buf + 8 + 4 * i), 1);
    trunk = rpd__be32(buf);
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
  sqlite3_file *f = NULL;
  unsigned char head[100];
  int64_t size = 0, lockpage;
  int usable, rc = rpd__first_int(db, "PRAGMA main.page_count", NULL, &m.n);

  if (!rc) rc = rpd__first_int(db, "PRAGMA main.page_size", NULL, &size);
  if (rc) return rc;
  if (size < 512 || size > 65536) return damaged("has an impossible size", 1);
  if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &f) != SQLITE_OK || !f ||
      !f->pMethods)
    return rpd_seterr(RPD_EIO, "cannot read the database file");
  if ((rc = read_at(f, 1, (int)size, head, sizeof head))) return rc;
  usable = (int)size - head[20];   /* bytes reserved at the end of each page */
  if (usable < 480) return damaged("reserves too many bytes of each page", 1);
  m.bit = calloc((size_t)(m.n / 8 + 1), 1);
  if (!m.bit) return rpd_seterr(RPD_ENOMEM, "out of memory");
  rc = claim_btrees(db, &m, f, (int)size, usable);
  if (!rc)
    rc = claim_freelist(&m, f, (int)size, usable, rpd__be32(head + 32), rpd__be32(head + 36));
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
  char mode[32];
  int64_t autovac = 0;
  int rc = rpd__first_text(db, "PRAGMA main.journal_mode", NULL, mode, sizeof mode);

  if (!rc) rc = rpd__first_int(db, "PRAGMA main.auto_vacuum", NULL, &autovac);
  if (rc) return rc;
  if (strcmp(mode, "wal") == 0 || autovac) return quick_check(db);
  if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
    return rpd__sqlerr(db, sqlite3_errcode(db), "BEGIN");
  /* the read transaction starts with the first read: the page count's */
  rc = walk_pages(db);
  sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  return rc;
}
