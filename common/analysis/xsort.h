/* xsort.h - a sort of fixed-size records in bounded memory (rpd-analyze's
 * three sorts, rpd-perfmodel's kernel time per op, the call stack's calls
 * when its reorder buffer cannot order them):
 * records are added in any order, kept in a buffer of at most cap bytes,
 * each full buffer sorted and written to a scratch file as one run
 * (rpd_scratch_fd), and read back in order through a k-way merge of the
 * runs (a tree of losers: one comparison a level, log2 of the runs a
 * record).  Memory is the buffer, then read buffers of as many bytes in
 * all (64 KiB a run at most, one record at least; 20 bytes for packed
 * words), whatever the number of records. */
#ifndef RPD_XSORT_H
#define RPD_XSORT_H

#include <stddef.h>

#include <stdlib.h>
#include <string.h>

#include "rpd.h"

/* qsort-style order of two records: < 0, 0, > 0. */
typedef int (*xsort_cmp)(const void *a, const void *b);
/* Sort n records at base in place, in the order of the sorter's cmp. */
typedef void (*xsort_fn)(void *base, size_t n);
/* One step of the merge of k runs (a tree of losers): head[r] the next
 * record of run r, NULL when it has none; tree[1..k) the loser of each
 * match, tree[0] the run that won them all.  After head[tree[0]] moved
 * on, its matches on the way to the root are played again and the new
 * winner is returned (and stored in tree[0]).  Equal records come out in
 * the order of their runs, so the merge's order is a total one whatever
 * the comparison. */
typedef size_t (*xsort_merge_fn)(const void *const *head, size_t *tree, size_t k);

/* XSORT__REPLAY(head, tree, k, CMP): the body of an xsort_merge_fn with
 * the comparison CMP(a, b) (an expression of two record pointers). */
#define XSORT__REPLAY(head, tree, k, CMP)                                      \
  do {                                                                        \
    size_t cur_ = (tree)[0];                                                  \
    for (size_t i_ = ((k) + cur_) >> 1; i_; i_ >>= 1) {                       \
      size_t t_ = (tree)[i_];                                                 \
      const void *a_ = (head)[t_], *b_ = (head)[cur_];                        \
      int c_;                                                                 \
      if (!a_)                                                                \
        continue;                                                             \
      if (b_ && ((c_ = CMP(a_, b_)) > 0 || (c_ == 0 && t_ > cur_)))           \
        continue;                                                             \
      (tree)[i_] = cur_;                                                      \
      cur_ = t_;                                                              \
    }                                                                         \
    return (tree)[0] = cur_;                                                  \
  } while (0)

/* XSORT_MERGE_DEFINE(NAME, T, CMP): static size_t NAME(...), an
 * xsort_merge_fn for records of type T in the order of CMP (the sorter's
 * cmp, inlined: the merge called it through a pointer twice a level of a
 * heap, the most of a merge of many runs).  Give it to xsort_set_merge. */
#define XSORT_MERGE_DEFINE(NAME, T, CMP)                                       \
  static __attribute__((unused)) size_t NAME(const void *const *head, size_t *tree, \
                                             size_t k)                        \
  {                                                                           \
    XSORT__REPLAY(head, tree, k, CMP);                                        \
  }

/* XSORT_DEFINE(NAME, T, CMP): static void NAME(void *base, size_t n), an
 * xsort_fn for records of type T in the order of CMP (an xsort_cmp of the
 * same file, inlined: qsort's call through a pointer and byte-wise copies
 * of each record were a quarter of rpd-analyze's time), and NAME_merge,
 * the merge's step in the same order (XSORT_MERGE_DEFINE).  A merge sort
 * (insertion sort below 16 records, halves already in order not merged:
 * the depth changes of a queue come nearly sorted), using n/2 records of
 * scratch memory for the time of the call.  Not stable (no caller needs
 * it: equal records are interchangeable). */
#define XSORT_DEFINE(NAME, T, CMP)                                             \
  static void NAME##_rec(T *a, T *tmp, size_t n)                              \
  {                                                                           \
    if (n <= 16) {                                                            \
      for (size_t i = 1; i < n; i++) {                                        \
        T v = a[i];                                                           \
        size_t j = i;                                                         \
        for (; j > 0 && CMP(&v, &a[j - 1]) < 0; j--)                          \
          a[j] = a[j - 1];                                                    \
        a[j] = v;                                                             \
      }                                                                       \
      return;                                                                 \
    }                                                                         \
    size_t h = n / 2, i = 0, j = h, k = 0;                                    \
    NAME##_rec(a, tmp, h);                                                    \
    NAME##_rec(a + h, tmp, n - h);                                            \
    if (CMP(&a[h - 1], &a[h]) <= 0)                                           \
      return;                                                                 \
    memcpy(tmp, a, h * sizeof(T));                                            \
    while (i < h && j < n)                                                    \
      a[k++] = CMP(&a[j], &tmp[i]) < 0 ? a[j++] : tmp[i++];                   \
    while (i < h)                                                             \
      a[k++] = tmp[i++];                                                      \
  }                                                                           \
  static void NAME(void *base, size_t n)                                      \
  {                                                                           \
    T *tmp = rpd_xmalloc((n / 2 + 1) * sizeof(T));                            \
    NAME##_rec(base, tmp, n);                                                 \
    free(tmp);                                                                \
  }                                                                           \
  XSORT_MERGE_DEFINE(NAME##_merge, T, CMP)

typedef struct xsort xsort;

/* A sorter of records of rec bytes in the order cmp, each buffer sorted
 * with sort (XSORT_DEFINE; NULL: qsort with cmp).  The buffer is
 * $RPD_ANALYZE_SORT_BYTES bytes when set (a positive integer, for tests
 * of the spill path), else cap.  The caller frees it with xsort_free. */
xsort *xsort_new(size_t rec, xsort_cmp cmp, xsort_fn sort, size_t cap);
/* The merge of the runs steps with merge (XSORT_MERGE_DEFINE or
 * XSORT_DEFINE's NAME_merge, in the order of the sorter's cmp) instead of
 * the one that calls cmp through its pointer.  Before xsort_done. */
void xsort_set_merge(xsort *x, xsort_merge_fn merge);
/* The records are uint64_t words in unsigned order (the order cmp must
 * give): the merge keeps each run's next word in its tree and picks the
 * winner of each match without a call or a branch, and a run goes to the
 * scratch file packed (each word's difference from the one before, 7 bits
 * a byte).  Before the first xsort_add; ignored when records are not 8
 * bytes. */
void xsort_set_words(xsort *x);
/* The bytes of the buffer of a sorter made with cap: $RPD_ANALYZE_SORT_BYTES
 * when set (a positive integer), else cap (for a caller's own buffers that
 * tests shrink with the sorts'). */
size_t xsort_cap_bytes(size_t cap);
/* Add one record (copied).  RPD_OK or an error code (message set). */
int xsort_add(xsort *x, const void *rec);
/* After the last xsort_add: sort what is buffered.  RPD_OK or an error. */
int xsort_done(xsort *x);
/* The next record in order into *rec (valid until the next call): 1, 0
 * at the end, or minus an error code. */
int xsort_next(xsort *x, const void **rec);
/* The number of runs written to the scratch file (0: all in memory), and
 * the bytes written to it. */
size_t xsort_runs(const xsort *x);
size_t xsort_scratch_bytes(const xsort *x);
/* Records added, and records xsort_next has returned (for progress). */
size_t xsort_added(const xsort *x);
size_t xsort_taken(const xsort *x);
void xsort_free(xsort *x);

#endif
