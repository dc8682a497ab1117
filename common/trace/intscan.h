/* intscan.h - a query's rows as int64 cells, a batch at a time
 * (common/trace/intscan.c).
 *
 * A loop that steps a statement and reads its columns pays, per row, a
 * sqlite3_step and a call per column (each checks the statement and the
 * connection): for a scan of a few integer columns that costs about as
 * much as SQLite reading the rows.  Here SQLite hands the rows to an SQL
 * function inside its own loop, which stores their integers, and the
 * statement yields a row only when RPD_INTSCAN_ROWS rows are stored: one
 * step per batch, no column calls.
 *
 * The query is written with the function as its filter, its first
 * argument ?1 (bound by rpd_intscan_open) and the columns after it:
 *
 *   SELECT 1 FROM rocpd_api WHERE rpd_intscan(?1, pid, tid, id, start, end)
 *
 * The rows come in the order SQLite reads them, so the query must return
 * each row as it reads it: the function is its whole WHERE clause (a row
 * another term drops was stored all the same), and no ORDER BY that needs
 * a sort (ORDER BY the rowid or an index it scans is fine).  One that
 * sorts fails with a message instead of returning rows in a wrong order.
 *
 * A plain scan of a rowid table (optionally ORDER BY its rowid) is read
 * from the file's pages instead when that provably gives the same rows
 * (rawscan.c; RPD_RAWSCAN=0 in the environment turns it off). */
#ifndef RPD_INTSCAN_H
#define RPD_INTSCAN_H

#include <stdint.h>

#include "rpd.h"

#define RPD_INTSCAN_ROWS 1024   /* rows per batch */
#define RPD_INTSCAN_MAXCOLS 16
/* In typed: the caller has not changed the scanned table in the open
 * transaction (so its pages in the file are the connection's; see
 * rawscan.c).  Without it a scan inside a write transaction never reads
 * the file directly. */
#define RPD_INTSCAN_UNCHANGED (1u << 31)

struct rpd_rawscan;

typedef struct rpd_intscan {
  sqlite3_stmt *st;
  int ncols;          /* columns per row, after ?1 */
  int n;              /* rows in the batch */
  int64_t *v;         /* the batch's cells, row by row: v[i * ncols + c] */
  uint16_t *ints;     /* bit c of ints[i]: column c of row i is an INTEGER
                         (else v holds sqlite3_value_int64 of it); only
                         the columns asked for (typed), the others 0 */
  unsigned typed;     /* bit c: column c's type is looked at */
  int pos;            /* rpd_intscan_row: the next row of the batch */
  int done;           /* the statement has returned its last row */
  /* the direct reader (rawscan.c), tried at the first batch */
  struct rpd_rawscan *raw;
  int tried, unchanged;
  int raw_used;       /* the direct reader served the scan (or its start) */
  int64_t raw_rows;   /* rows the direct reader returned (kept when the
                         SQL path takes over: its first rows must match) */
  uint64_t raw_hash;  /* of those rows */
  int64_t skip;       /* SQL path: rows still to check against them */
  uint64_t skip_hash;
  int checking;       /* the SQL path took over after raw_rows rows */
} rpd_intscan;

/* Prepare sql (see above; ncols columns after ?1, at most
 * RPD_INTSCAN_MAXCOLS) on r and bind the scan to it; typed: bit c asks
 * whether column c is an INTEGER (a call per value, so only those a caller
 * needs).  RPD_OK or an error with its message; on error s holds nothing
 * to free, on success call rpd_intscan_close. */
int rpd_intscan_open(rpd *r, rpd_intscan *s, const char *sql, int ncols, unsigned typed);

/* The next batch into s->v, s->ints, s->n: RPD_OK with s->n = 0 when the
 * rows are all read, or an error (its message) from SQLite. */
int rpd_intscan_next(rpd *r, rpd_intscan *s);

/* Row by row over the batches: 1 and the next row's cells in *row (valid
 * until the next call) and its INTEGER bits in *ints; 0 when the rows are
 * all read; -code on error (its message). */
static inline int rpd_intscan_row(rpd *r, rpd_intscan *s, const int64_t **row,
                                  unsigned *ints)
{
  if (s->pos == s->n) {
    int rc = rpd_intscan_next(r, s);
    if (rc != RPD_OK) return -rc;
    if (s->n == 0) return 0;
  }
  *ints = s->ints[s->pos];
  *row = s->v + (size_t)s->pos++ * (size_t)s->ncols;
  return 1;
}

/* Finalize the statement and free the batch (s may be zeroed, never
 * opened). */
void rpd_intscan_close(rpd_intscan *s);

#endif
