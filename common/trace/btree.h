/* btree.h - the pieces of SQLite's file format that the direct page
 * readers share (pages.c, the writers' page check; rawscan.c, the rows of
 * a table): big-endian integers, varints bounded by the page, and how
 * much of a payload a cell holds.  Every reader of a page bounds-checks
 * with these: the file is a stranger's. */
#ifndef RPD_BTREE_H
#define RPD_BTREE_H

#include <stdint.h>

static inline uint32_t rpd__be32(const unsigned char *b)
{
  return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static inline unsigned rpd__be16(const unsigned char *b)
{
  return (unsigned)b[0] << 8 | b[1];
}

/* A varint of the file format at b[*at], not past b[end]: 1 and the value
 * in *v, *at past it; 0 when it runs past end. */
static inline int rpd__varint(const unsigned char *b, int *at, int end, uint64_t *v)
{
  uint64_t x = 0;

  for (int k = 0; k < 9; k++) {
    if (*at >= end) return 0;
    if (k == 8) {
      x = x << 8 | b[(*at)++];
      break;
    }
    x = x << 7 | (b[*at] & 0x7f);
    if (!(b[(*at)++] & 0x80)) break;
  }
  *v = x;
  return 1;
}

/* How many bytes of a payload of n bytes its cell holds (the rest is on
 * overflow pages): the file format's rule, for a table leaf or an index
 * cell. */
static inline int64_t rpd__local_bytes(int64_t n, int usable, int table_leaf)
{
  int64_t most = table_leaf ? usable - 35 : (int64_t)(usable - 12) * 64 / 255 - 23;
  int64_t least = (int64_t)(usable - 12) * 32 / 255 - 23, k;

  if (n <= most) return n;
  k = least + (n - least) % (usable - 4);
  return k <= most ? k : least;
}

#endif
