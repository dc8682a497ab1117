/* progress.h - the progress line over SQL work (common/trace/progress.c).
 *
 * rpd_progress() and rpd_progress_rows() (rpd.h) serve loops in C.  Work
 * that runs inside SQLite (one INSERT ... SELECT, a DELETE, VACUUM) shows
 * the same line through a phase: between rpd_progress_sql() and
 * rpd_progress_end(), SQLite's progress handler counts the rows the busy
 * statements step through in full table scans (SQLITE_STMTSTATUS_FULLSCAN_STEP)
 * against a known total, usually max(rowid) of the table the phase scans.
 * Nothing is installed when no line can show (stderr not a terminal, -q),
 * so the work costs nothing then. */
#ifndef RPD_PROGRESS_H
#define RPD_PROGRESS_H

#include <stdint.h>

#include "rpd.h"

/* 1 when a progress line can show (stderr is a terminal, no -q, or
 * RPD_PROGRESS=1 in the environment); 0 otherwise. */
int rpd_progress_on(void);

/* Start a phase named `what` (a static string) over the rows of `table`:
 * the total is max(rowid) of table, queried only when a line can show.
 * Ends the previous phase.  NULL r: no-op.  Holds no memory the caller
 * owns.  The augmenter driver ends the last phase after the build. */
void rpd_progress_sql(rpd *r, const char *what, const char *table);

/* The same with a total the caller knows (rows the phase's full scans
 * will read; more rows than that show 99% until rpd_progress_end). */
void rpd_progress_sql_total(rpd *r, const char *what, int64_t total);

/* The same for work SQLite does without full table scans (VACUUM copies
 * b-trees, CREATE INDEX): done is SQLite's virtual-machine steps divided
 * by ops_per_row, the steps that work takes per row (VACUUM: ~5.5). */
void rpd_progress_sql_ops(rpd *r, const char *what, int64_t rows, int ops_per_row);

/* The total rows of a NULL-terminated list of tables (sum of max(rowid);
 * missing tables count 0; a table named twice counts twice, for a phase
 * that scans it twice), for rpd_progress_sql_total; 0 when no line can
 * show. */
int64_t rpd_progress_rows_of(rpd *r, const char *const *tables);

/* rpd_progress counted in bytes (shown as MB), for copying a file: the
 * unit of other lines stays as it was. */
void rpd_progress_bytes(const char *what, int64_t done, int64_t total);

/* End the current phase or rpd_progress line: if a line is showing, print
 * it at 100% and a newline; remove the progress handler.  Safe to call
 * any time (no line: nothing). */
void rpd_progress_end(void);

#endif
