/* byrank.h - raptor --by-rank: cross-rank tables of a merged trace
 * (raptor/byrank.c), also used by raptor --report (raptor/report/ranks.c). */
#ifndef RAPTOR_BYRANK_H
#define RAPTOR_BYRANK_H

#include <stdint.h>

#include "catfile.h"
#include "rpd.h"

/* Entry point used by raptor's main() when "--by-rank" is among the
 * arguments: parses the whole command line itself and returns the process
 * exit code (0, 1, 2). */
int raptor_byrank_main(int argc, char **argv);

/* The cross-rank tables, in order: ranks, categories, kernels, sequences,
 * collectives, stragglers. */
#define BYRANK_NT 6
extern const char *const byrank_table_names[BYRANK_NT];

/* What byrank_compute gives: the number of ranks with GPU work, and one
 * SELECT per table (owned; free with byrank_sql_free). */
typedef struct byrank_sql {
  int nranks;
  char *sql[BYRANK_NT];
} byrank_sql;

/* Build the TEMP work tables of the cross-rank analysis on the open trace
 * r (categories cats[0..ncats), top rows of the top-N tables, 0 = all) and
 * write into *out the SELECT of each table over them; run each on r to get
 * the rows (valid while r is open).  Returns RPD_OK, or an error code with
 * the message in rpd_errmsg() (RPD_ENOTFOUND: no GPU work); *out is then
 * empty. */
int byrank_compute(rpd *r, const category *cats, int ncats, int64_t top, byrank_sql *out);
/* Free what byrank_compute wrote into s. */
void byrank_sql_free(byrank_sql *s);

#endif
