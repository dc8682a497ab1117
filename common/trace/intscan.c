/* intscan.c - a query's rows as int64 cells, a batch at a time (see
 * intscan.h). */
#include <stdlib.h>

#include "internal.h"
#include "intscan.h"
#include "rawscan.h"

#define PTR_TYPE "rpd_intscan"

/* A running hash of rows returned, to check that the SQL path taking over
 * from the direct reader returns the same first rows: the row's cells
 * folded with a multiplier each (independent multiplies), then one
 * chained step per row, so that order counts. */
static uint64_t hash_row(uint64_t h, const int64_t *o, int ncols, unsigned ints)
{
  static const uint64_t k[RPD_INTSCAN_MAXCOLS] = {
    0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull, 0xff51afd7ed558ccdull,
    0xc4ceb9fe1a85ec53ull, 0x87c37b91114253d5ull, 0x4cf5ad432745937full, 0xd6e8feb86659fd93ull,
    0xa0761d6478bd642full, 0xe7037ed1a0b428dbull, 0x8ebc6af09c88c6e3ull, 0x589965cc75374cc3ull,
    0x1d8e4e27c47d124full, 0x2545f4914f6cdd1dull, 0x9fb21c651e98df25ull, 0xd1b54a32d192ed03ull };
  uint64_t s = ints;

  for (int c = 0; c < ncols; c++) s += ((uint64_t)o[c] ^ ((uint64_t)o[c] >> 32)) * k[c];
  h = (h ^ s ^ (s >> 29)) * 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 32);
}

/* rpd_intscan(?1, a, b, ...): store the row's integers in the scan bound
 * to ?1; true (the statement yields a row) when the batch is full.  A row
 * stored after the batch filled was never yielded: the query sorts or
 * filters, and its rows would come in a wrong order. */
static void intscan_row(sqlite3_context *cx, int argc, sqlite3_value **v)
{
  /* ?1 is a constant: SQLite keeps the scan as the argument's auxiliary
   * data from row to row (sqlite3_value_pointer compares its type name) */
  rpd_intscan *s = sqlite3_get_auxdata(cx, 0);

  if (!s && (s = sqlite3_value_pointer(v[0], PTR_TYPE)) != NULL)
    sqlite3_set_auxdata(cx, 0, s, NULL);
  if (!s || argc - 1 != s->ncols) {
    sqlite3_result_error(cx, "rpd_intscan: wrong arguments", -1);
    return;
  }
  if (s->skip) {   /* a row the direct reader returned already */
    int64_t o[RPD_INTSCAN_MAXCOLS];
    unsigned ints = 0;
    for (unsigned t = s->typed; t; t &= t - 1) {
      int c = __builtin_ctz(t);
      ints |= (unsigned)(sqlite3_value_type(v[c + 1]) == SQLITE_INTEGER) << c;
    }
    for (int c = 0; c < s->ncols; c++) o[c] = sqlite3_value_int64(v[c + 1]);
    s->skip_hash = hash_row(s->skip_hash, o, s->ncols, ints);
    s->skip--;
    sqlite3_result_int(cx, 0);
    return;
  }
  if (s->n == RPD_INTSCAN_ROWS) {
    sqlite3_result_error(cx, "rpd_intscan: the query does not return its rows as it "
                         "reads them (a sort or another filter)", -1);
    return;
  }
  int64_t *o = s->v + (size_t)s->n * (size_t)s->ncols;
  unsigned ints = 0;
  for (unsigned t = s->typed; t; t &= t - 1) {   /* the type first: reading converts */
    int c = __builtin_ctz(t);
    ints |= (unsigned)(sqlite3_value_type(v[c + 1]) == SQLITE_INTEGER) << c;
  }
  for (int c = 0; c < s->ncols; c++) o[c] = sqlite3_value_int64(v[c + 1]);
  s->ints[s->n] = (uint16_t)ints;
  sqlite3_result_int(cx, ++s->n == RPD_INTSCAN_ROWS);
}

int rpd_intscan_open(rpd *r, rpd_intscan *s, const char *sql, int ncols, unsigned typed)
{
  *s = (rpd_intscan){0};
  if (ncols < 1 || ncols > RPD_INTSCAN_MAXCOLS)
    return rpd_seterr(RPD_ERR, "rpd_intscan: %d columns", ncols);
  /* once per handle: registering it again while a statement runs fails,
   * and otherwise expires every prepared statement.  SQLITE_BUSY says it
   * is there already (another handle over the same connection) */
  if (!r->intscan_fn) {
    int flags = SQLITE_UTF8;
#ifdef SQLITE_DIRECTONLY
    flags |= SQLITE_DIRECTONLY;   /* never from a trace's own views or triggers */
#endif
    int src = sqlite3_create_function(r->db, "rpd_intscan", -1, flags, NULL, intscan_row,
                                      NULL, NULL);
    if (src != SQLITE_OK && src != SQLITE_BUSY)
      return rpd_seterr(RPD_ESQL, "cannot register a function: %s", sqlite3_errmsg(r->db));
    r->intscan_fn = 1;
  }
  int rc = rpd_prepare(r, sql, &s->st);
  if (rc != RPD_OK) return rc;
  if (sqlite3_bind_pointer(s->st, 1, s, PTR_TYPE, NULL) != SQLITE_OK) {
    rc = rpd_seterr(RPD_ESQL, "cannot bind the scan to: %s", sql);
    rpd_intscan_close(s);
    return rc;
  }
  s->ncols = ncols;
  s->unchanged = !!(typed & RPD_INTSCAN_UNCHANGED);
  s->typed = typed & ((1u << ncols) - 1);
  s->v = rpd_xmalloc(sizeof *s->v * RPD_INTSCAN_ROWS * (size_t)ncols);
  s->ints = rpd_xmalloc(sizeof *s->ints * RPD_INTSCAN_ROWS);
  return RPD_OK;
}

int rpd_intscan_next(rpd *r, rpd_intscan *s)
{
  s->n = s->pos = 0;
  if (s->done) return RPD_OK;
  if (!s->tried) {
    s->tried = 1;
    s->raw = rpd__rawscan_open(r, sqlite3_sql(s->st), s->ncols, s->typed, s->unchanged);
    s->raw_used = s->raw != NULL;
  }
  if (s->raw) {
    int n = rpd__rawscan_fill(s->raw, s->v, s->ints, RPD_INTSCAN_ROWS);
    if (n >= 0) {
      for (int i = 0; i < n; i++)
        s->raw_hash = hash_row(s->raw_hash, s->v + (size_t)i * (size_t)s->ncols, s->ncols,
                               s->ints[i]);
      s->raw_rows += n;
      rpd__progress_scanned(r->db, n);
      s->n = n;
      s->done = n == 0;
      if (s->done) {
        rpd__rawscan_close(s->raw);
        s->raw = NULL;
      }
      return RPD_OK;
    }
    /* the file holds what the reader does not read as SQLite would: the
     * SQL path from the start, its first rows checked against those
     * returned */
    rpd__rawscan_close(s->raw);
    s->raw = NULL;
    rpd__progress_scanned(r->db, -s->raw_rows);   /* counted again below */
    s->skip = s->raw_rows;
    s->checking = 1;
  }
  int st = rpd_step(r, s->st);
  if (st < 0) {
    s->n = 0;
    return -st;
  }
  s->done = st == SQLITE_DONE;
  if (s->checking && (s->skip == 0 || s->done)) {
    s->checking = 0;
    if (s->skip || s->skip_hash != s->raw_hash) {
      s->n = 0;
      return rpd_seterr(RPD_ENOTDB, "corrupt SQLite database (the table of '%s' reads "
                        "differently from the file)", sqlite3_sql(s->st));
    }
  }
  /* a sort fed every row to the function before the first one came out:
   * they are in the order read, not the order asked for */
  if (sqlite3_stmt_status(s->st, SQLITE_STMTSTATUS_SORT, 0)) {
    s->n = 0;
    return rpd_seterr(RPD_ESQL, "rpd_intscan: the query sorts its rows: %s", sqlite3_sql(s->st));
  }
  return RPD_OK;
}

void rpd_intscan_close(rpd_intscan *s)
{
  rpd__rawscan_close(s->raw);
  sqlite3_finalize(s->st);
  free(s->v);
  free(s->ints);
  *s = (rpd_intscan){0};
}
