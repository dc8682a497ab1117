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

/* The most bytes of a payload a cell holds before the rest goes to
 * overflow pages: the file format's rule, for a table leaf or an index
 * cell (leaf or interior). */
static inline int64_t rpd__max_local(int usable, int table_leaf)
{
  return table_leaf ? usable - 35 : (int64_t)(usable - 12) * 64 / 255 - 23;
}

/* How many bytes of a payload of n bytes its cell holds (the rest is on
 * overflow pages): the file format's rule, for a table leaf or an index
 * cell. */
static inline int64_t rpd__local_bytes(int64_t n, int usable, int table_leaf)
{
  int64_t most = rpd__max_local(usable, table_leaf);
  int64_t least = (int64_t)(usable - 12) * 32 / 255 - 23, k;

  if (n <= most) return n;
  k = least + (n - least) % (usable - 4);
  return k <= most ? k : least;
}

/* A b-tree page's header, read by rpd__btree_header. */
typedef struct {
  int type;       /* 2, 5, 10, 13: interior index, interior table, leaf
                     index, leaf table */
  int interior;
  int ncell;
  int cells;      /* offset of the cell pointers in the page */
  int content;    /* offset of the cell content area */
} rpd__btree_page;

/* 1 when t is a b-tree page's type byte. */
static inline int rpd__btree_type(int t)
{
  return t == 2 || t == 5 || t == 10 || t == 13;
}

/* The header of the b-tree page b (hdr: 100 on page 1, else 0; size and
 * usable bytes of a page) into *pg: 1 when it is one SQLite reads (a
 * b-tree type, no more cells than a page can hold, the cell pointers
 * inside the usable bytes), else 0. */
static inline int rpd__btree_header(const unsigned char *b, int hdr, int size, int usable,
                                    rpd__btree_page *pg)
{
  pg->type = b[hdr];
  if (!rpd__btree_type(pg->type)) return 0;
  pg->interior = pg->type == 2 || pg->type == 5;
  pg->ncell = (int)rpd__be16(b + hdr + 3);
  pg->content = rpd__be16(b + hdr + 5) ? (int)rpd__be16(b + hdr + 5) : 65536;
  pg->cells = hdr + (pg->interior ? 12 : 8);
  return pg->ncell <= (size - 8) / 6 && pg->cells + 2 * pg->ncell <= usable;
}

/* The offset of cell i of the page pg describes, or -1 when it does not
 * start in the content area at least 4 bytes before the usable end. */
static inline int rpd__btree_cell(const unsigned char *b, const rpd__btree_page *pg, int i,
                                  int usable)
{
  int at = (int)rpd__be16(b + pg->cells + 2 * i);

  return at < pg->content || at > usable - 4 ? -1 : at;
}

#endif
