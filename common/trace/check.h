/* check.h - sanity checks of trace values and checked time arithmetic.
 *
 * The sane range of a timestamp is 0 <= t < 2^62 ns (about 146 years after
 * the epoch: every real clock fits, and the sum or difference of two sane
 * values never overflows int64).  A sane row has integer start and end in
 * that range with start <= end; a sane op has an integer gpuId in
 * 0 .. 2^31-1.  See docs/common.md "Value checks". */
#ifndef RPD_CHECK_H
#define RPD_CHECK_H

#include <stdint.h>

#include "rpd.h"

#define RPD_TIME_LIMIT ((int64_t)1 << 62)   /* timestamps are < this */
#define RPD_GPU_LIMIT ((int64_t)1 << 31)    /* gpuIds are < this */

/* Check the start/end columns of `table` ("rocpd_api", "rocpd_op", or any
 * table with integer start and "end"; with gpu=1 also its gpuId) with one
 * query.  RPD_OK when every row is sane (or the table is absent/empty);
 * otherwise RPD_ERANGE with one message naming the table, the column and
 * the number of bad rows, e.g. "rocpd_op.start: 3 rows are not integers
 * (text, real, blob or null); fix or delete those rows".  *bad (may be
 * NULL) gets the number of rows with any bad value. */
int rpd_check_table(rpd *r, const char *table, int gpu, int64_t *bad);

/* rpd_check_table on rocpd_api and rocpd_op (with gpuId): what every tool
 * that does arithmetic on timestamps calls once after rpd_open. */
int rpd_check_trace(rpd *r);
/* When rpd_check_table's read found `table` (rocpd_api or rocpd_op) clean
 * and the connection has not changed the file since: 1, with *have = 0
 * for a table without rows, else 1 and its least start and greatest end
 * in *lo and *hi (all integers: what min(start) and max(end) give).
 * Else 0 (the caller reads the table). */
int rpd_check_span(rpd *r, const char *table, int *have, int64_t *lo, int64_t *hi);

/* Record that rpd_check_trace would pass on r as it is now: for the writer
 * of a trace that held every rocpd_api and rocpd_op row to the same rule as
 * it wrote it (rpd-import's writer, row_sane) and found none bad.  Until r
 * changes, rpd_check_trace and rpd_check_table on those tables return at
 * once. */
void rpd_check_mark_passed(rpd *r);

/* 1 when rpd_check_trace passed on this handle and nothing changed since
 * (a second check would find the same), else 0. */
int rpd_check_passed(const rpd *r);

/* The same check, row by row, for a caller that reads every row anyway
 * (one scan instead of two): zero an rpd_check_rows, hand each row's
 * start, "end" and gpuId values (sqlite3_column_value; gpu NULL: no gpuId
 * check) to rpd_check_values, then rpd_check_rows_result gives exactly
 * what rpd_check_table would (code and message).  It reads each value's
 * type before its integer, as the caller must too. */
typedef struct rpd_check_rows {
  int64_t n[6];     /* bad rows per class (start type, end type, start range,
                     * end range, order, gpuId) */
  int64_t bad;      /* rows with any bad value */
} rpd_check_rows;

void rpd_check_values(rpd_check_rows *c, sqlite3_value *start, sqlite3_value *end,
                      sqlite3_value *gpu);

/* 1 when one row's values pass the check (the same rule, for a caller
 * that stops at the first bad row and then asks rpd_check_trace for the
 * message), else 0. */
int rpd_check_row_ok(sqlite3_value *start, sqlite3_value *end, sqlite3_value *gpu);

/* rpd_check_row_ok on values already read (rpd_intscan): start, end and
 * gpu as sqlite3_value_int64 gives them, and in ints which of them were
 * INTEGERs (RPD_CHECK_*_INT) and whether gpu is checked at all
 * (RPD_CHECK_WITH_GPU). */
#define RPD_CHECK_START_INT 1u
#define RPD_CHECK_END_INT 2u
#define RPD_CHECK_GPU_INT 4u
#define RPD_CHECK_WITH_GPU 8u
int rpd_check_ints_ok(int64_t start, int64_t end, int64_t gpu, unsigned ints);

/* rpd_check_values on values already read (rpd_intscan), as
 * rpd_check_ints_ok takes them: the row counted in *c when it is bad. */
void rpd_check_ints(rpd_check_rows *c, int64_t start, int64_t end, int64_t gpu, unsigned ints);

/* RPD_OK when no row was bad, else RPD_ERANGE and the message of
 * rpd_check_table for `table`. */
int rpd_check_rows_result(const rpd_check_rows *c, const char *table);

/* May the suite drop and rebuild `table`?  RPD_OK when it is absent or
 * has exactly the columns `cols` (a NULL-terminated list, in order, names
 * compared without case): the shape the suite (and the reference) writes.
 * Otherwise RPD_EEXIST: "table ext_x exists with other columns (a, b); it
 * was not written by rpdtools: rename or drop it yourself" -- never
 * overridden by --force, so that a user's own table is never lost. */
int rpd_check_owned(rpd *r, const char *table, const char *const *cols);

/* Checked arithmetic on ns values: 1 and *out = a + b (a - b) when the
 * result fits in int64, else 0 and *out untouched. */
static inline int rpd_ns_add(int64_t a, int64_t b, int64_t *out)
{
  int64_t v;
  if (__builtin_add_overflow(a, b, &v)) return 0;
  *out = v;
  return 1;
}
static inline int rpd_ns_sub(int64_t a, int64_t b, int64_t *out)
{
  int64_t v;
  if (__builtin_sub_overflow(a, b, &v)) return 0;
  *out = v;
  return 1;
}
/* Duration end - start of a sane interval: 0 when end < start or the
 * difference overflows (never a negative or wrapped duration). */
static inline int64_t rpd_ns_duration(int64_t start, int64_t end)
{
  int64_t d;
  return end >= start && rpd_ns_sub(end, start, &d) ? d : 0;
}
/* 1 if t is a sane timestamp (0 <= t < RPD_TIME_LIMIT). */
static inline int rpd_ns_sane(int64_t t)
{
  return t >= 0 && t < RPD_TIME_LIMIT;
}

#endif
