/* rawscan.c - rpd_intscan's rows decoded from a table's leaf pages in the
 * file instead of through SQLite's VDBE (intscan.h; docs/common.md).
 *
 * Reading a row through SQLite costs a cursor step, a record decode per
 * column and a function call; for the few integer columns of a trace scan
 * that is most of a tool's time.  The b-tree of a rowid table holds the
 * same rows in rowid order, which is the order a plain SCAN returns them,
 * so when the query is such a scan the reader walks that b-tree through
 * SQLite's own file handle and decodes the integers itself.
 *
 * It is used only where it provably returns what SQLite would:
 *  - the query is "SELECT 1 FROM t WHERE rpd_intscan(?1, e, ...)" with
 *    each e a column, "column IS NULL" or the rowid, and at most an ORDER
 *    BY of the rowid; SQLite's plan for it is one plain SCAN of t (no
 *    index, no sort) and unordered scans are not reversed;
 *  - t is main's plain rowid table (not WITHOUT ROWID, virtual, a view, or
 *    shadowed by a temp table), without generated columns; no column read
 *    has REAL affinity (SQLite turns its stored integers into reals);
 *  - the file is the connection's view of t: a rollback journal (in WAL
 *    mode the newest pages are in the -wal file), no auto-vacuum (pages
 *    move), a real file, and t unchanged in the open transaction: SQLite
 *    writes a page to the file before commit only when it is dirty, and
 *    an unchanged table has no dirty pages; the read transaction held
 *    from the start keeps other connections from writing.
 * Values: a record whose header and body sizes add up exactly, with NULL,
 * integer or 0/1 serial types, is decoded here; any other record (a real,
 * a text or blob read as a number, an overflowing payload, a short record
 * of a column with a default, anything malformed) is fetched through
 * SQLite by its rowid, so the conversion is SQLite's own.  The walk claims
 * every page once, goes at most 19 interior levels deep (SQLite reads 20
 * levels), checks every header, cell pointer and varint against the page,
 * and needs the rowids strictly rising; anything else ends it with -1 and
 * intscan.c runs the SQL path from the start, checking that its first rows
 * are the ones already returned. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "btree.h"
#include "intscan.h"
#include "rawscan.h"

#define RUN_BYTES (1 << 20)
#define MAX_INTERIOR 19   /* interior levels above a leaf; SQLite reads 20 levels */

/* What a column of the query is. */
enum {
  K_FIELD,     /* a record field */
  K_NULLTEST,  /* "field IS NULL" */
  K_ROWID,     /* the rowid, or the column that is its alias */
  K_ZERO       /* "rowid IS NULL": 0 */
};

typedef struct {
  unsigned char *b;   /* a copy of the interior page */
  int cells, ncell;   /* its cell pointers, their number */
  int next;           /* the next child: 0 .. ncell - 1 a cell's, ncell the right one */
} level;

struct rpd_rawscan {
  sqlite3 *db;
  sqlite3_file *f;
  sqlite3_stmt *pin;    /* the table's sqlite_master row, stepped: the read transaction */
  sqlite3_stmt *fetch;  /* the query's columns of one row, by rowid */
  int ncols;
  unsigned typed;
  int kind[RPD_INTSCAN_MAXCOLS];
  int slot[RPD_INTSCAN_MAXCOLS];     /* K_FIELD, K_NULLTEST: index into want */
  int named[RPD_INTSCAN_MAXCOLS];    /* the query names a column (else the rowid) */
  int want[RPD_INTSCAN_MAXCOLS];     /* the fields read, rising */
  int nwant;
  unsigned dflt;                     /* bit j: want[j]'s column has a non-NULL default */
  int size, usable;
  int64_t npages, root;
  unsigned char *claimed;
  level lv[MAX_INTERIOR];
  int depth;
  unsigned char *run;                /* pages first .. first + have - 1 */
  unsigned char *window;             /* page_at: bit q - p, page q is wanted */
  int64_t first, have, cap;
  const unsigned char *leaf;         /* the leaf being read (in run) */
  int lcells, lncell, li;
  int started;
  int64_t last_rowid;
  int have_rowid;
};

/* ------------------------------------------------------------ the query */

typedef struct {
  const char *s;
} lex;

static void skip_space(lex *l)
{
  while (*l->s == ' ' || *l->s == '\t' || *l->s == '\n' || *l->s == '\r') l->s++;
}

/* A keyword (case-insensitive, whole word). */
static int keyword(lex *l, const char *kw)
{
  size_t n = strlen(kw);

  skip_space(l);
  if (strncasecmp(l->s, kw, n) != 0) return 0;
  char c = l->s[n];
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')
    return 0;
  l->s += n;
  return 1;
}

static int punct(lex *l, const char *p)
{
  size_t n = strlen(p);

  skip_space(l);
  if (strncmp(l->s, p, n) != 0) return 0;
  l->s += n;
  return 1;
}

/* A bare or double-quoted identifier (no doubled quotes inside) into
 * out[n]. */
static int ident(lex *l, char *out, size_t n)
{
  size_t k = 0;

  skip_space(l);
  if (*l->s == '"') {
    const char *e = strchr(l->s + 1, '"');
    if (!e || e == l->s + 1 || e[1] == '"' || (size_t)(e - l->s - 1) >= n) return 0;
    k = (size_t)(e - l->s - 1);
    memcpy(out, l->s + 1, k);
    out[k] = 0;
    l->s = e + 1;
    return 1;
  }
  while ((l->s[k] >= 'A' && l->s[k] <= 'Z') || (l->s[k] >= 'a' && l->s[k] <= 'z') ||
         l->s[k] == '_' || (k && l->s[k] >= '0' && l->s[k] <= '9'))
    k++;
  if (!k || k >= n) return 0;
  memcpy(out, l->s, k);
  out[k] = 0;
  l->s += k;
  return 1;
}

#define NAME_MAX_LEN 128

typedef struct {
  char table[NAME_MAX_LEN];
  char col[RPD_INTSCAN_MAXCOLS][NAME_MAX_LEN];
  int isnull[RPD_INTSCAN_MAXCOLS];
  int n;
  char order[NAME_MAX_LEN];   /* "" without ORDER BY */
} query;

/* The forms the reader knows; 0 for any other text. */
static int parse_query(const char *sql, query *q)
{
  lex l = { sql };

  memset(q, 0, sizeof *q);
  if (!keyword(&l, "SELECT") || !punct(&l, "1") || !keyword(&l, "FROM") ||
      !ident(&l, q->table, sizeof q->table) || !keyword(&l, "WHERE") ||
      !keyword(&l, "rpd_intscan") || !punct(&l, "(") || !punct(&l, "?1"))
    return 0;
  while (punct(&l, ",")) {
    if (q->n == RPD_INTSCAN_MAXCOLS || !ident(&l, q->col[q->n], sizeof q->col[0])) return 0;
    if (keyword(&l, "IS")) {
      if (!keyword(&l, "NULL")) return 0;
      q->isnull[q->n] = 1;
    }
    q->n++;
  }
  if (!punct(&l, ")")) return 0;
  if (keyword(&l, "ORDER")) {
    if (!keyword(&l, "BY") || !ident(&l, q->order, sizeof q->order)) return 0;
  }
  skip_space(&l);
  return *l.s == 0 && q->n > 0;
}

static int is_rowid_name(const char *s)
{
  return strcasecmp(s, "rowid") == 0 || strcasecmp(s, "oid") == 0 ||
         strcasecmp(s, "_rowid_") == 0;
}

/* s holds w (ASCII, case-insensitive). */
static int has(const char *s, const char *w)
{
  size_t n = strlen(w);

  for (; *s; s++)
    if (strncasecmp(s, w, n) == 0) return 1;
  return 0;
}

/* REAL affinity by SQLite's rules for a declared type. */
static int real_affinity(const char *type)
{
  if (!type) return 0;
  if (has(type, "INT") || has(type, "CHAR") || has(type, "CLOB") || has(type, "TEXT") ||
      has(type, "BLOB") || !*type)
    return 0;
  return has(type, "REAL") || has(type, "FLOA") || has(type, "DOUB");
}

/* The columns: each query column's kind and field; 0 when one is not a
 * plain column of a plain rowid table the reader can decode. */
static int map_columns(rpd_rawscan *x, const query *q, char *rowid_name)
{
  static const char cols_sql[] =
      "SELECT cid, name, type, dflt_value IS NOT NULL, pk, hidden"
      " FROM pragma_table_xinfo(?1, 'main') ORDER BY cid";
  sqlite3_stmt *st = NULL;
  int64_t pkidx = 1, list_ok = 0;
  int field[RPD_INTSCAN_MAXCOLS], ok = 1, npk = 0, alias = -1, src;
  int found[RPD_INTSCAN_MAXCOLS] = {0}, hasdflt[RPD_INTSCAN_MAXCOLS] = {0};
  int names_taken[3] = {0};
  char alias_name[NAME_MAX_LEN] = "";
  static const char *const rowid_names[3] = { "rowid", "_rowid_", "oid" };

  /* a plain rowid table: not WITHOUT ROWID, virtual, a view or shadow */
  if (rpd__first_int(x->db, "SELECT type = 'table' AND wr = 0 FROM pragma_table_list"
                     " WHERE schema = 'main' AND name = ?1", q->table, &list_ok) || !list_ok)
    return 0;
  /* a primary key that is no rowid alias has its own index */
  if (rpd__first_int(x->db, "SELECT count(*) FROM pragma_index_list(?1, 'main')"
                     " WHERE origin = 'pk'", q->table, &pkidx))
    return 0;
  if (sqlite3_prepare_v2(x->db, cols_sql, -1, &st, NULL) != SQLITE_OK ||
      sqlite3_bind_text(st, 1, q->table, -1, SQLITE_STATIC) != SQLITE_OK) {
    sqlite3_finalize(st);
    return 0;
  }
  for (int c = 0; c < q->n; c++) field[c] = -1;
  int64_t expect = 0;
  while (ok && (src = sqlite3_step(st)) == SQLITE_ROW) {
    int cid = sqlite3_column_int(st, 0);
    const char *name = (const char *)sqlite3_column_text(st, 1);
    const char *type = (const char *)sqlite3_column_text(st, 2);
    if (cid != expect++ || sqlite3_column_int(st, 5) != 0 || !name) {
      ok = 0;   /* hidden or generated columns: fields and columns differ */
      break;
    }
    for (int k = 0; k < 3; k++)
      if (strcasecmp(name, rowid_names[k]) == 0) names_taken[k] = 1;
    if (sqlite3_column_int(st, 4) > 0) {
      npk++;
      alias = (type && strcasecmp(type, "INTEGER") == 0) ? cid : -1;
      snprintf(alias_name, sizeof alias_name, "%s", name);
    }
    for (int c = 0; c < q->n; c++) {
      if (found[c] || strcasecmp(q->col[c], name) != 0) continue;
      found[c] = 1;
      field[c] = cid;
      hasdflt[c] = sqlite3_column_int(st, 3);
      if (!q->isnull[c] && real_affinity(type)) ok = 0;
    }
  }
  if (ok && src != SQLITE_DONE) ok = 0;
  sqlite3_finalize(st);
  if (!ok) return 0;
  if (npk != 1 || pkidx != 0 || alias < 0) {
    alias = -1;
    alias_name[0] = 0;
  }
  rowid_name[0] = 0;
  for (int k = 0; k < 3 && !rowid_name[0]; k++)
    if (!names_taken[k]) strcpy(rowid_name, rowid_names[k]);
  if (!rowid_name[0]) return 0;
  for (int c = 0; c < q->n; c++) {
    if (!found[c]) {
      if (!is_rowid_name(q->col[c])) return 0;
      x->kind[c] = q->isnull[c] ? K_ZERO : K_ROWID;
    } else if (field[c] == alias) {
      x->kind[c] = q->isnull[c] ? K_ZERO : K_ROWID;
    } else {
      x->kind[c] = q->isnull[c] ? K_NULLTEST : K_FIELD;
      int j = 0;
      while (j < x->nwant && x->want[j] != field[c]) j++;
      if (j == x->nwant) {   /* insert, keeping want rising */
        int at = x->nwant++;
        while (at > 0 && x->want[at - 1] > field[c]) {
          x->want[at] = x->want[at - 1];
          at--;
        }
        x->want[at] = field[c];
      }
    }
  }
  for (int c = 0; c < q->n; c++) {
    if (x->kind[c] != K_FIELD && x->kind[c] != K_NULLTEST) continue;
    int j = 0;
    while (x->want[j] != field[c]) j++;
    x->slot[c] = j;
    if (hasdflt[c]) x->dflt |= 1u << j;
  }
  /* ORDER BY only the rowid or its alias (the plan check proves no sort) */
  if (q->order[0] && !(alias_name[0] && strcasecmp(q->order, alias_name) == 0) &&
      !(is_rowid_name(q->order) && !(names_taken[0] || names_taken[1] || names_taken[2])))
    return 0;
  for (int c = 0; c < q->n; c++) x->named[c] = found[c];
  return 1;
}

/* SQLite's plan for sql is one plain scan of table, in rowid order. */
static int plain_scan(sqlite3 *db, const char *sql, const char *table)
{
  sqlite3_stmt *st = NULL;
  char *eqp = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", sql);
  int rows = 0, ok = 1;
  int64_t reverse = 1;

  if (!eqp || sqlite3_prepare_v2(db, eqp, -1, &st, NULL) != SQLITE_OK) ok = 0;
  while (ok && sqlite3_step(st) == SQLITE_ROW) {
    const char *d = (const char *)sqlite3_column_text(st, 3);
    if (++rows > 1 || !d) ok = 0;
    else if (strncmp(d, "SCAN ", 5) == 0) {
      d += 5;
      if (strncmp(d, "TABLE ", 6) == 0) d += 6;   /* before SQLite 3.36 */
      ok = strcasecmp(d, table) == 0;
    } else ok = 0;
  }
  sqlite3_finalize(st);
  sqlite3_free(eqp);
  if (rpd__first_int(db, "PRAGMA reverse_unordered_selects", NULL, &reverse) || reverse) ok = 0;
  return ok && rows == 1;
}

void rpd__rawscan_close(rpd_rawscan *x)
{
  if (!x) return;
  sqlite3_finalize(x->pin);
  sqlite3_finalize(x->fetch);
  for (int d = 0; d < MAX_INTERIOR; d++) free(x->lv[d].b);
  free(x->claimed);
  free(x->run);
  free(x->window);
  free(x);
}

rpd_rawscan *rpd__rawscan_open(rpd *r, const char *sql, int ncols, unsigned typed,
                               int unchanged)
{
  const char *env = getenv("RPD_RAWSCAN");
  query q;
  rpd_rawscan *x = NULL;
  char mode[16] = "", rowid_name[8];
  int64_t autovac = 1, size = 0, npages = 0;
  unsigned char head[100];
  sqlite3_vfs *vfs = NULL;
  const char *fname;

  if ((env && strcmp(env, "0") == 0) || !sql || !parse_query(sql, &q) || q.n != ncols)
    return NULL;
  x = calloc(1, sizeof *x);
  if (!x) return NULL;
  x->db = r->db;
  x->ncols = ncols;
  x->typed = typed;
  /* the table's row in main's schema, stepped and held: the read
   * transaction starts with it, before anything else is looked at */
  if (sqlite3_prepare_v2(x->db, "SELECT rootpage, type = 'table' FROM main.sqlite_master"
                         " WHERE name = ?1 COLLATE NOCASE", -1, &x->pin, NULL) != SQLITE_OK ||
      sqlite3_bind_text(x->pin, 1, q.table, -1, SQLITE_TRANSIENT) != SQLITE_OK ||
      sqlite3_step(x->pin) != SQLITE_ROW || !sqlite3_column_int(x->pin, 1))
    goto no;
  x->root = sqlite3_column_int64(x->pin, 0);
  {
    int64_t shadow = 1;
    if (rpd__first_int(x->db, "SELECT count(*) FROM temp.sqlite_master"
                       " WHERE name = ?1 COLLATE NOCASE", q.table, &shadow) || shadow)
      goto no;
  }
  if (rpd__first_text(x->db, "PRAGMA main.journal_mode", NULL, mode, sizeof mode) != RPD_OK ||
      strcasecmp(mode, "wal") == 0 ||
      rpd__first_int(x->db, "PRAGMA main.auto_vacuum", NULL, &autovac) || autovac ||
      rpd__first_int(x->db, "PRAGMA main.page_size", NULL, &size) ||
      rpd__first_int(x->db, "PRAGMA main.page_count", NULL, &npages))
    goto no;
  if (sqlite3_txn_state(x->db, "main") == SQLITE_TXN_WRITE && !unchanged) goto no;
  fname = sqlite3_db_filename(x->db, "main");
  if (!fname || !*fname ||
      sqlite3_file_control(x->db, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) != SQLITE_OK || !vfs ||
      !vfs->zName || strcmp(vfs->zName, "memdb") == 0 ||
      sqlite3_file_control(x->db, "main", SQLITE_FCNTL_FILE_POINTER, &x->f) != SQLITE_OK ||
      !x->f || !x->f->pMethods)
    goto no;
  if (size < 512 || size > 65536 || npages < 2 || x->root < 2 || x->root > npages) goto no;
  if (!map_columns(x, &q, rowid_name) || !plain_scan(x->db, sql, q.table)) goto no;
  /* nor a header that says WAL (bytes 18, 19: 2): an immutable open of a
   * WAL file (rpd_open's on a read-only mount) reports "delete"; SQLite
   * reads only the file then, as the reader would, but that is its
   * current behaviour, not a promise */
  if (x->f->pMethods->xRead(x->f, head, sizeof head, 0) != SQLITE_OK ||
      (rpd__be16(head + 16) == 1 ? 65536 : (int64_t)rpd__be16(head + 16)) != size ||
      head[18] != 1 || head[19] != 1)
    goto no;
  x->size = (int)size;
  x->usable = (int)size - head[20];
  x->npages = npages;
  if (x->usable < 480) goto no;
  {
    /* the query's columns of one row, as the SQL path would read them */
    char *cols = sqlite3_mprintf("%s", ""), *fsql;
    for (int c = 0; c < q.n && cols; c++) {
      char *nx;
      if (!x->named[c])
        nx = sqlite3_mprintf("%s%s%s%s", cols, c ? ", " : "", rowid_name,
                             q.isnull[c] ? " IS NULL" : "");
      else
        nx = sqlite3_mprintf("%s%s\"%w\"%s", cols, c ? ", " : "", q.col[c],
                             q.isnull[c] ? " IS NULL" : "");
      sqlite3_free(cols);
      cols = nx;
    }
    fsql = cols ? sqlite3_mprintf("SELECT %s FROM main.\"%w\" WHERE %s = ?1", cols, q.table,
                                  rowid_name) : NULL;
    sqlite3_free(cols);
    int ok = fsql && sqlite3_prepare_v2(x->db, fsql, -1, &x->fetch, NULL) == SQLITE_OK;
    sqlite3_free(fsql);
    if (!ok) goto no;
  }
  x->claimed = calloc((size_t)(npages / 8 + 1), 1);
  x->cap = RUN_BYTES / x->size;
  x->run = malloc(RUN_BYTES);
  x->window = malloc((size_t)(x->cap + 7) / 8);
  if (!x->claimed || !x->run || !x->window) goto no;
  return x;
no:
  rpd__rawscan_close(x);
  return NULL;
}

/* ------------------------------------------------------------ the walk */

/* Page p's bytes: from the run, or a new run from p.  The run reaches
 * the pages the parent still points to within RUN_BYTES while at least
 * half the pages read are wanted: tables written side by side interleave
 * their pages, and copying the others costs more than a read per page. */
static const unsigned char *page_at(rpd_rawscan *x, int64_t p)
{
  int64_t last = p, end = p + x->cap - 1;

  if (p >= x->first && p < x->first + x->have)
    return x->run + (size_t)(p - x->first) * (size_t)x->size;
  if (end > x->npages) end = x->npages;
  if (x->depth && end > p) {
    const level *L = &x->lv[x->depth - 1];
    int64_t wanted = 1;
    memset(x->window, 0, (size_t)(x->cap + 7) / 8);
    for (int i = L->next; i <= L->ncell; i++) {
      int64_t c = i < L->ncell ? rpd__be32(L->b + rpd__be16(L->b + L->cells + 2 * i))
                               : rpd__be32(L->b + 8);
      if (c > p && c <= end) x->window[(c - p) >> 3] |= (unsigned char)(1u << ((c - p) & 7));
    }
    for (int64_t q = p + 1; q <= end; q++)
      if (x->window[(q - p) >> 3] & (1u << ((q - p) & 7)) && 2 * ++wanted >= q - p + 1) last = q;
  }
  x->have = 0;
  if (x->f->pMethods->xRead(x->f, x->run, (int)((last - p + 1) * x->size),
                            (p - 1) * (sqlite3_int64)x->size) != SQLITE_OK)
    return NULL;
  x->first = p;
  x->have = last - p + 1;
  return x->run;
}

/* Go to page p: an interior page is pushed, a leaf becomes the one read.
 * 0, or -1 when it is not a page SQLite would read the same. */
static int descend(rpd_rawscan *x, int64_t p, int root)
{
  const unsigned char *b;
  rpd__btree_page pg;

  if (p < 2 || p > x->npages || (x->claimed[(p - 1) >> 3] & (1u << ((p - 1) & 7)))) return -1;
  x->claimed[(p - 1) >> 3] |= (unsigned char)(1u << ((p - 1) & 7));
  if (!(b = page_at(x, p))) return -1;
  if (!rpd__btree_header(b, 0, x->size, x->usable, &pg) || (pg.type != 5 && pg.type != 13) ||
      (!pg.ncell && (pg.interior || !root)))
    return -1;
  for (int i = 0; i < pg.ncell; i++) {
    int at = rpd__btree_cell(b, &pg, i, x->usable);
    if (at < 0 || at < pg.cells + 2 * pg.ncell) return -1;
  }
  if (pg.interior) {
    level *L;
    if (x->depth == MAX_INTERIOR) return -1;
    L = &x->lv[x->depth];
    if (!L->b && !(L->b = malloc((size_t)x->size))) return -1;
    memcpy(L->b, b, (size_t)x->size);
    L->cells = pg.cells;
    L->ncell = pg.ncell;
    L->next = 0;
    x->depth++;
  } else {
    x->leaf = b;
    x->lcells = pg.cells;
    x->lncell = pg.ncell;
    x->li = 0;
  }
  return 0;
}

/* The next leaf cell's offset in x->leaf: 1, 0 at the end, -1 on damage. */
static int next_cell(rpd_rawscan *x, int *at)
{
  for (;;) {
    if (x->leaf && x->li < x->lncell) {
      *at = (int)rpd__be16(x->leaf + x->lcells + 2 * x->li++);
      return 1;
    }
    x->leaf = NULL;
    if (!x->started) {
      x->started = 1;
      if (descend(x, x->root, 1)) return -1;
      continue;
    }
    while (x->depth && x->lv[x->depth - 1].next > x->lv[x->depth - 1].ncell) x->depth--;
    if (!x->depth) return 0;
    level *L = &x->lv[x->depth - 1];
    int64_t c;
    if (L->next < L->ncell) c = rpd__be32(L->b + rpd__be16(L->b + L->cells + 2 * L->next));
    else c = rpd__be32(L->b + 8);
    L->next++;
    if (descend(x, c, 0)) return -1;
  }
}

/* The integer of serial type 1-6: big-endian, signed, of 1, 2, 3, 4, 6
 * or 8 bytes. */
static int64_t be_int(const unsigned char *b, int type)
{
  uint32_t w;
  uint64_t d;

  switch (type) {
  case 1: return (int8_t)b[0];
  case 2: return (int16_t)(uint16_t)(b[0] << 8 | b[1]);
  case 3: return (int32_t)((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8) >> 8;
  case 4:
    memcpy(&w, b, 4);
    return (int32_t)__builtin_bswap32(w);
  case 5:
    memcpy(&w, b + 2, 4);
    return (int64_t)(int16_t)(uint16_t)(b[0] << 8 | b[1]) * 4294967296 +
           (int64_t)__builtin_bswap32(w);
  default:
    memcpy(&d, b, 8);
    return (int64_t)__builtin_bswap64(d);
  }
}

/* The row's columns from a record of n bytes held whole in the page: 1,
 * or 0 when the record is one SQLite must read (see the top). */
static int decode(rpd_rawscan *x, const unsigned char *p, int n, int64_t rowid, int64_t *o,
                  uint16_t *ints)
{
  static const unsigned char size_of[10] = { 0, 1, 2, 3, 4, 6, 8, 8, 0, 0 };
  int hat = 0, j = 0, nfields = 0;
  uint64_t h, off, t;
  int type[RPD_INTSCAN_MAXCOLS];
  uint64_t at[RPD_INTSCAN_MAXCOLS];
  unsigned ok_ints = 0;

  if (!rpd__varint(p, &hat, n, &h) || h > (uint64_t)n || h < (uint64_t)hat) return 0;
  off = h;
  while ((uint64_t)hat < h) {
    if (p[hat] < 0x80) t = p[hat++];   /* most types: one byte */
    else if (!rpd__varint(p, &hat, (int)h, &t)) return 0;
    if (t == 10 || t == 11) return 0;
    uint64_t sz = t < 10 ? size_of[t] : (t - 12) / 2;
    if (j < x->nwant && x->want[j] == nfields) {
      type[j] = t < 12 ? (int)t : 12;
      at[j++] = off;
    }
    nfields++;
    if (sz > (uint64_t)n - off) return 0;
    off += sz;
  }
  if (off != (uint64_t)n) return 0;
  for (int c = 0; c < x->ncols; c++) {
    int64_t v = 0;
    int isint = 1;
    switch (x->kind[c]) {
    case K_ROWID: v = rowid; break;
    case K_ZERO: v = 0; break;
    case K_FIELD:
    case K_NULLTEST: {
      int s = x->slot[c], ty;
      if (s >= j) {   /* a short record: the column's default */
        if (x->dflt & (1u << s)) return 0;
        ty = 0;
      } else ty = type[s];
      if (x->kind[c] == K_NULLTEST) {
        v = ty == 0;
        break;
      }
      if (ty == 0) isint = 0;
      else if (ty <= 6) v = be_int(p + at[s], ty);
      else if (ty == 8 || ty == 9) v = ty - 8;
      else return 0;   /* a real, a text, a blob: SQLite converts it */
      break;
    }
    }
    o[c] = v;
    ok_ints |= (unsigned)isint << c;
  }
  *ints = (uint16_t)(ok_ints & x->typed);
  return 1;
}

/* The row by its rowid through SQLite: 0, or -1 when SQLite does not find
 * it (the b-tree is not what the walk read). */
static int fetch(rpd_rawscan *x, int64_t rowid, int64_t *o, uint16_t *ints)
{
  unsigned bits = 0;
  int ok = sqlite3_bind_int64(x->fetch, 1, rowid) == SQLITE_OK &&
           sqlite3_step(x->fetch) == SQLITE_ROW;

  if (ok) {
    for (unsigned t = x->typed; t; t &= t - 1) {   /* the type first: reading converts */
      int c = __builtin_ctz(t);
      bits |= (unsigned)(sqlite3_column_type(x->fetch, c) == SQLITE_INTEGER) << c;
    }
    for (int c = 0; c < x->ncols; c++) o[c] = sqlite3_column_int64(x->fetch, c);
    *ints = (uint16_t)bits;
  }
  sqlite3_reset(x->fetch);
  return ok ? 0 : -1;
}

int rpd__rawscan_fill(rpd_rawscan *x, int64_t *v, uint16_t *ints, int max)
{
  int n = 0;

  while (n < max) {
    int at, got = next_cell(x, &at);
    uint64_t len, key;
    if (got < 0) return -1;
    if (!got) {
      sqlite3_reset(x->pin);   /* the read transaction ends, as the statement's would */
      break;
    }
    if (!rpd__varint(x->leaf, &at, x->usable, &len) ||
        !rpd__varint(x->leaf, &at, x->usable, &key) || len > 0x7fffffff)
      return -1;
    int64_t rowid = (int64_t)key, local = rpd__local_bytes((int64_t)len, x->usable, 1);
    if (x->have_rowid && rowid <= x->last_rowid) return -1;
    x->have_rowid = 1;
    x->last_rowid = rowid;
    int64_t *o = v + (size_t)n * (size_t)x->ncols;
    if (local == (int64_t)len) {
      if (at + local > x->usable) return -1;
      if (decode(x, x->leaf + at, (int)len, rowid, o, &ints[n])) {
        n++;
        continue;
      }
    } else if (at + local + 4 > x->usable) {
      return -1;
    }
    /* the leaf may sit in the run the fetch does not touch: it reads
     * through SQLite's pager, never this buffer */
    if (fetch(x, rowid, o, &ints[n])) return -1;
    n++;
  }
  return n;
}
