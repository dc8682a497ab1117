/* args.c - parser for the tracer's args text "key = value | key = value".
 *
 * The tracer stores the arguments of an api call as one string in which
 * pairs are separated by '|' and a key is separated from its value by the
 * first '='.  Values may contain further '=' characters ("expr = a=b").
 * Keys and values are trimmed of spaces and of one level of surrounding
 * quotes; empty segments are skipped; a segment without '=' becomes a pair
 * with an empty key.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rpd.h"

/* Trim spaces and then one level of matching quotes from [*b, *e).
 * Writes a NUL at the new end and returns the new start. */
static char *trim(char *b, char *e)
{
  while (b < e && isspace((unsigned char)*b))
    b++;
  while (e > b && isspace((unsigned char)e[-1]))
    e--;
  if (e - b >= 2 && (*b == '"' || *b == '\'') && e[-1] == *b) {
    b++;
    e--;
  }
  *e = '\0';
  return b;
}

/* Parse s into *a (previous contents are not freed: pass a zeroed or freed
 * struct).  Keys and values point into a->buf; the caller releases both
 * with rpd_args_free().  Never fails except by aborting on out-of-memory. */
int rpd_args_parse(const char *s, rpd_args *a)
{
  size_t len, nseg = 1;
  char *seg;

  memset(a, 0, sizeof *a);
  if (!s)
    return RPD_OK;
  len = strlen(s);
  for (const char *q = s; *q; q++)
    nseg += (*q == '|');
  a->buf = rpd_xmalloc(len + 1);
  memcpy(a->buf, s, len + 1);
  a->kv = rpd_xcalloc(nseg, sizeof *a->kv);

  for (seg = a->buf; seg; ) {
    char *bar = strchr(seg, '|');
    char *end = bar ? bar : seg + strlen(seg);
    char *eq = memchr(seg, '=', (size_t)(end - seg));
    char *next = bar ? bar + 1 : NULL;

    if (eq) {
      char *key = trim(seg, eq);
      char *val = trim(eq + 1, end);
      a->kv[a->n].key = key;
      a->kv[a->n].value = val;
      a->n++;
    } else {
      char *val = trim(seg, end);
      if (*val) {
        a->kv[a->n].key = "";
        a->kv[a->n].value = val;
        a->n++;
      }
    }
    seg = next;
  }
  return RPD_OK;
}

/* Value of the first pair whose key equals `key` (case-sensitive), or NULL.
 * The result points into a and lives until rpd_args_free(a). */
const char *rpd_args_get(const rpd_args *a, const char *key)
{
  for (size_t i = 0; i < a->n; i++)
    if (strcmp(a->kv[i].key, key) == 0)
      return a->kv[i].value;
  return NULL;
}

/* Release the storage of a and zero it (safe to call twice). */
void rpd_args_free(rpd_args *a)
{
  free(a->kv);
  free(a->buf);
  memset(a, 0, sizeof *a);
}
