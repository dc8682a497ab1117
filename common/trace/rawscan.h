/* rawscan.h - rpd_intscan's second backend: a rowid table's rows decoded
 * from its leaf pages in the file (common/trace/rawscan.c), internal to
 * intscan.c. */
#ifndef RPD_RAWSCAN_H
#define RPD_RAWSCAN_H

#include <stdint.h>

#include "rpd.h"

typedef struct rpd_rawscan rpd_rawscan;

/* A direct reader for intscan query sql (ncols columns after ?1; typed:
 * the columns whose INTEGER bit is wanted; unchanged: the caller has not
 * changed the table in the open transaction), or NULL when the query, the
 * table or the file is one the reader cannot prove it reads exactly as
 * SQLite would (the SQL path runs then).  It holds a read transaction
 * until rpd__rawscan_close. */
rpd_rawscan *rpd__rawscan_open(rpd *r, const char *sql, int ncols, unsigned typed,
                               int unchanged);

/* Up to max rows into v (row by row, ncols cells each) and ints: how many
 * (0 at the end), or -1 when the file holds something the reader does not
 * read as SQLite does (damage, an I/O error): the SQL path must take over,
 * from the start. */
int rpd__rawscan_fill(rpd_rawscan *x, int64_t *v, uint16_t *ints, int max);

/* Free x and end its read transaction (x may be NULL). */
void rpd__rawscan_close(rpd_rawscan *x);

#endif
