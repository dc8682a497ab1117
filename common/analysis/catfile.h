/* catfile.h - raptor's kernel categories: a JSON object of lists of regexes,
 * {"GEMM": ["^Cijk_", ...], ...}, read the way the reference's json.load
 * does (a repeated key replaces the earlier list but keeps its place).
 * Used by raptor (raptor.c, -C/--category-json), raptor --report
 * (report.c, --category-json) and rpd-diff --waterfall (--category-json).
 * See docs/raptor.md. */
#ifndef RAPTOR_CATFILE_H
#define RAPTOR_CATFILE_H

#include <stddef.h>

#include "rpd.h"

typedef struct category {
  char *name;
  int npat;
  rpd_regex **re;
} category;

/* Parse the category JSON `text` (len bytes) and append its categories to
 * the array *cats of *ncats entries (a key equal to an existing name
 * replaces that entry's patterns).  `file` names the text in messages.
 * Returns RPD_OK, or RPD_EPARSE with one line in rpd_errmsg():
 * "bad category file 'FILE': ..." (place, category, pattern).  The array and
 * its contents are owned by the caller (category_list_free), also on error. */
int category_parse(category **cats, int *ncats, const char *file, const char *text,
                   size_t len);

/* Read the file at `path` and parse it as category_parse does.  Errors also
 * "cannot open category file 'PATH': why" (RPD_ENOENT) and "cannot read
 * category file 'PATH'" (RPD_EIO). */
int category_load(category **cats, int *ncats, const char *path);

/* *hit = index of the LAST category with a pattern found in `name`, or -1.
 * Returns RPD_OK, or the error of a search PCRE2 could not finish (match
 * limit: never counted as "no match") with one line in rpd_errmsg() naming
 * the category, the pattern's number and the kernel. */
int category_match(const category *cats, int ncats, const char *name, int *hit);

/* The built-in categories: the same text as raptor/categories.json (the
 * reference raptor's default).  Static string. */
const char *category_builtin(void);

/* Load the categories of `path`, or the built-in ones when path is NULL:
 * the ONE rule set and matcher that raptor's tables (-c, -k, -v) and
 * raptor --report both use.  Same ownership and errors as category_load. */
int category_load_or_builtin(category **cats, int *ncats, const char *path);

/* Index of the communication category, the one variability and the
 * report's exposed_comm treat specially: the last category named "_COMM"
 * (the spec README's name) or "_Collective" (the reference's built-in
 * name); -1 if there is none. */
int category_comm_index(const category *cats, int ncats);

/* Free the n categories of `cats` and the array. */
void category_list_free(category *cats, int n);

#endif
