/* xsort.h - a sort of fixed-size records in bounded memory (rpd-analyze's
 * three sorts, rpd-perfmodel's kernel time per op):
 * records are added in any order, kept in a buffer of at most cap bytes,
 * each full buffer sorted and written to a scratch file as one run
 * (rpd_scratch_fd), and read back in order through a k-way merge of the
 * runs.  Memory is the buffer, then read buffers of as many bytes in all
 * (64 KiB a run at most, one record at least), whatever the number of
 * records. */
#ifndef RPD_XSORT_H
#define RPD_XSORT_H

#include <stddef.h>

/* qsort-style order of two records: < 0, 0, > 0. */
typedef int (*xsort_cmp)(const void *a, const void *b);

typedef struct xsort xsort;

/* A sorter of records of rec bytes in the order cmp.  The buffer is
 * $RPD_ANALYZE_SORT_BYTES bytes when set (a positive integer, for tests
 * of the spill path; the name is older than the sort's move to common/),
 * else cap.  The caller frees it with xsort_free. */
xsort *xsort_new(size_t rec, xsort_cmp cmp, size_t cap);
/* Add one record (copied).  RPD_OK or an error code (message set). */
int xsort_add(xsort *x, const void *rec);
/* After the last xsort_add: sort what is buffered.  RPD_OK or an error. */
int xsort_done(xsort *x);
/* The next record in order into *rec (valid until the next call): 1, 0
 * at the end, or minus an error code. */
int xsort_next(xsort *x, const void **rec);
/* The number of runs written to the scratch file (0: all in memory). */
size_t xsort_runs(const xsort *x);
/* Records added, and records xsort_next has returned (for progress). */
size_t xsort_added(const xsort *x);
size_t xsort_taken(const xsort *x);
void xsort_free(xsort *x);

#endif
