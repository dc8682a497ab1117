/* util/map.c - rpd_i64map (see map.h). */
#include "rpd.h"
#include "util/map.h"

#include <stdlib.h>

#define EMPTY INT64_MIN

/* Fibonacci hashing: the top bits of key * 2^64/phi index the table, so
 * ids that differ only in high bits or in strides spread out. */
static inline size_t home(const rpd_i64map *m, int64_t key)
{
  return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ULL) >> 20) & (m->cap - 1);
}

/* The slot holding key, or the empty slot where it would go. */
static inline rpd_i64slot *probe(const rpd_i64map *m, int64_t key)
{
  size_t mask = m->cap - 1, i = home(m, key);
  while (m->slot[i].key != EMPTY && m->slot[i].key != key)
    i = (i + 1) & mask;
  return &m->slot[i];
}

static void grow(rpd_i64map *m)
{
  rpd_i64slot *old = m->slot;
  size_t ocap = m->cap;

  m->cap = ocap ? 2 * ocap : 64;
  m->slot = rpd_xmalloc(m->cap * sizeof *m->slot);
  for (size_t i = 0; i < m->cap; i++)
    m->slot[i].key = EMPTY;
  for (size_t i = 0; i < ocap; i++)
    if (old[i].key != EMPTY)
      *probe(m, old[i].key) = old[i];
  free(old);
}

int64_t *rpd_i64map_ref(rpd_i64map *m, int64_t key, int64_t dflt, int *found)
{
  rpd_i64slot *s;

  if (key == EMPTY) {
    if (found) *found = m->has_min;
    if (!m->has_min) {
      m->has_min = 1;
      m->min_val = dflt;
      m->n++;
    }
    return &m->min_val;
  }
  if (2 * (m->n + 1) > m->cap)
    grow(m);
  s = probe(m, key);
  if (found) *found = s->key != EMPTY;
  if (s->key == EMPTY) {
    s->key = key;
    s->val = dflt;
    m->n++;
  }
  return &s->val;
}

int rpd_i64map_get(const rpd_i64map *m, int64_t key, int64_t *val)
{
  const rpd_i64slot *s;

  if (key == EMPTY) {
    if (m->has_min && val) *val = m->min_val;
    return m->has_min;
  }
  if (!m->cap)
    return 0;
  s = probe(m, key);
  if (s->key == EMPTY)
    return 0;
  if (val) *val = s->val;
  return 1;
}

void rpd_i64map_put(rpd_i64map *m, int64_t key, int64_t val)
{
  *rpd_i64map_ref(m, key, val, NULL) = val;
}

void rpd_i64map_clear(rpd_i64map *m)
{
  for (size_t i = 0; i < m->cap; i++)
    m->slot[i].key = EMPTY;
  m->n = 0;
  m->has_min = 0;
}

void rpd_i64map_free(rpd_i64map *m)
{
  free(m->slot);
  *m = (rpd_i64map){0};
}
