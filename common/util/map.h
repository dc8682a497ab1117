/* util/map.h - the hash map of common/ and the tools: int64 keys to int64
 * values, open addressing with linear probing, at most half full.
 *
 * A map is zero-initialised (`rpd_i64map m = {0};`), grows on insert
 * (aborting on out-of-memory like rpd_xmalloc) and is released with
 * rpd_i64map_free.  Any int64 is a valid key and value.  Keys that are
 * strings or tuples are interned first (rpd_strtab, or a tool's own array)
 * and their index used as the key. */
#ifndef RPD_UTIL_MAP_H
#define RPD_UTIL_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct rpd_i64slot {
  int64_t key, val;
} rpd_i64slot;

typedef struct rpd_i64map {
  rpd_i64slot *slot;   /* cap slots; an empty slot has key INT64_MIN */
  size_t cap, n;       /* n counts keys, INT64_MIN included */
  int has_min;         /* the key INT64_MIN lives here, not in a slot */
  int64_t min_val;
} rpd_i64map;

/* The value of key, inserted as dflt when absent (*found, if not NULL,
 * says which).  The pointer is valid until the next insert or free. */
int64_t *rpd_i64map_ref(rpd_i64map *m, int64_t key, int64_t dflt, int *found);

/* 1 and *val (if not NULL) = the value of key; 0 if key is absent. */
int rpd_i64map_get(const rpd_i64map *m, int64_t key, int64_t *val);

/* Set key to val (insert or overwrite). */
void rpd_i64map_put(rpd_i64map *m, int64_t key, int64_t val);

/* Number of keys. */
static inline size_t rpd_i64map_count(const rpd_i64map *m) { return m->n; }

/* Remove every key, keeping the storage. */
void rpd_i64map_clear(rpd_i64map *m);

/* Release the storage; the map is empty and reusable afterwards. */
void rpd_i64map_free(rpd_i64map *m);

#endif
