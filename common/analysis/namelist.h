/* namelist.h - lists of names given on the command line ("A, B,C") and the
 * rows of a table whose name string is one of them.
 *
 * Used by rpd-subclass (--events), rpd-deserialize (--api) and
 * common/analysis/subclass.c.
 */
#ifndef RPD_NAMELIST_H
#define RPD_NAMELIST_H

#include <stddef.h>

#include "rpd.h"

/* Split the comma-separated `list` and append each name, trimmed of
 * spaces, to the array *names of *n entries (empty names are skipped).
 * The array and its strings are new memory the caller frees
 * (rpd_namelist_free). */
void rpd_namelist_split(const char *list, char ***names, size_t *n);

/* Free the n strings of `names` and the array itself. */
void rpd_namelist_free(char **names, size_t n);

/* Run `sql_head` followed by one "?" per name and "))", binding names[0..n-1]
 * as the values: sql_head ends inside "... IN (SELECT id FROM rocpd_string
 * WHERE string IN (".  For statements that return no rows (INSERT ...
 * SELECT).  Returns RPD_OK or an error code. */
int rpd_exec_in_names(rpd *r, const char *sql_head, const char *const *names, size_t n);

#endif
