/* util/heap.h - the binary min-heap of common/ and the tools, typed by a
 * macro so that the comparison inlines (the heaps sit in the inner loops
 * of k-way merges and reorder buffers).
 *
 *   static int less(const T *a, const T *b, void *ctx);  // a before b
 *   RPD_HEAP_DEFINE(NAME, T, less)
 *
 * defines `typedef struct NAME { T *v; size_t n, cap; void *ctx; } NAME;`
 * (zero-initialise it; ctx is passed to less) and static functions:
 *   NAME_push(h, x)       add x (grows, aborts on out-of-memory)
 *   NAME_pop(h)           remove and return the first element (h->n > 0)
 *   NAME_replace_top(h, x) replace the first element by x and restore the
 *                         order (a k-way merge's advance, a top-K heap's
 *                         eviction); h->n > 0
 *   NAME_sift_down(h, i)  restore the order below element i
 *   NAME_heapify(h)       order h->v[0..n) after filling it directly
 *   NAME_free(h)          release the storage (h is empty afterwards)
 * h->v[0] is the first element when h->n > 0.  Equal elements come out in
 * an unspecified order: make less a total order where output depends on
 * it. */
#ifndef RPD_UTIL_HEAP_H
#define RPD_UTIL_HEAP_H

#include <stddef.h>
#include <stdlib.h>

#include "rpd.h"       /* rpd_xrealloc */

#define RPD_HEAP_DEFINE(NAME, T, LESS)                                        \
  typedef struct NAME {                                                      \
    T *v;                                                                    \
    size_t n, cap;                                                           \
    void *ctx;                                                               \
  } NAME;                                                                    \
                                                                             \
  static inline __attribute__((unused)) void NAME##_sift_down(NAME *h, size_t i) \
  {                                                                          \
    T x = h->v[i];                                                           \
    for (;;) {                                                               \
      size_t k = 2 * i + 1;                                                  \
      if (k >= h->n) break;                                                  \
      if (k + 1 < h->n && LESS(&h->v[k + 1], &h->v[k], h->ctx)) k++;         \
      if (!LESS(&h->v[k], &x, h->ctx)) break;                                \
      h->v[i] = h->v[k];                                                     \
      i = k;                                                                 \
    }                                                                        \
    h->v[i] = x;                                                             \
  }                                                                          \
                                                                             \
  static inline __attribute__((unused)) void NAME##_push(NAME *h, T x)       \
  {                                                                          \
    size_t i;                                                                \
    if (h->n == h->cap) {                                                    \
      h->cap = h->cap ? 2 * h->cap : 64;                                     \
      h->v = rpd_xrealloc(h->v, h->cap * sizeof *h->v);                      \
    }                                                                        \
    i = h->n++;                                                              \
    while (i > 0 && LESS(&x, &h->v[(i - 1) / 2], h->ctx)) {                  \
      h->v[i] = h->v[(i - 1) / 2];                                           \
      i = (i - 1) / 2;                                                       \
    }                                                                        \
    h->v[i] = x;                                                             \
  }                                                                          \
                                                                             \
  static inline __attribute__((unused)) T NAME##_pop(NAME *h)                \
  {                                                                          \
    T top = h->v[0];                                                         \
    if (--h->n) {                                                            \
      h->v[0] = h->v[h->n];                                                  \
      NAME##_sift_down(h, 0);                                                \
    }                                                                        \
    return top;                                                              \
  }                                                                          \
                                                                             \
  static inline __attribute__((unused)) void NAME##_replace_top(NAME *h, T x) \
  {                                                                          \
    h->v[0] = x;                                                             \
    NAME##_sift_down(h, 0);                                                  \
  }                                                                          \
                                                                             \
  static inline __attribute__((unused)) void NAME##_heapify(NAME *h)         \
  {                                                                          \
    for (size_t i = h->n / 2; i-- > 0;)                                      \
      NAME##_sift_down(h, i);                                                \
  }                                                                          \
                                                                             \
  static inline __attribute__((unused)) void NAME##_free(NAME *h)            \
  {                                                                          \
    free(h->v);                                                              \
    h->v = NULL;                                                             \
    h->n = h->cap = 0;                                                       \
  }

#endif
