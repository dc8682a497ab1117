/* namelist.c - command-line name lists and selecting rows by name.
 * See namelist.h. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "namelist.h"
#include "internal.h"

void rpd_namelist_split(const char *list, char ***names, size_t *n)
{
  char *copy = rpd_xstrdup(list), *save = NULL;
  for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    char *e = t + strlen(t);
    while (isspace((unsigned char)*t))
      t++;
    while (e > t && isspace((unsigned char)e[-1]))
      *--e = '\0';
    if (!*t)
      continue;
    *names = rpd_xrealloc(*names, (*n + 1) * sizeof **names);
    (*names)[(*n)++] = rpd_xstrdup(t);
  }
  free(copy);
}

void rpd_namelist_free(char **names, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  free(names);
}

int rpd_exec_in_names(rpd *r, const char *sql_head, const char *const *names, size_t n)
{
  rpd_buf sql = {0};
  sqlite3_stmt *st = NULL;
  int rc, s;

  rpd_buf_puts(&sql, sql_head);
  for (size_t i = 0; i < n; i++)
    rpd_buf_puts(&sql, i ? ",?" : "?");
  rpd_buf_puts(&sql, "))");
  rc = rpd_prepare(r, sql.s, &st);
  for (size_t i = 0; !rc && i < n; i++)
    if (sqlite3_bind_text(st, (int)i + 1, names[i], -1, SQLITE_STATIC) != SQLITE_OK)
      rc = rpd_seterr(RPD_ESQL, "bind: %s", sqlite3_errmsg(r->db));
  if (!rc && (s = rpd_step(r, st)) < 0)
    rc = -s;
  sqlite3_finalize(st);
  rpd_buf_free(&sql);
  return rc;
}
