/* views.c - the SQL texts of views/ embedded at build time
 * (common/trace/embed_views.sh generates rpd_view_table[]). */
#include "rpd.h"
#include "internal.h"

#include <string.h>

extern const struct rpd_view_entry {
  const char *name;
  const char *sql;
} rpd_view_table[];

static const char *find_view(const char *name)
{
  for (const struct rpd_view_entry *e = rpd_view_table; e->name; e++)
    if (strcmp(e->name, name) == 0) return e->sql;
  return NULL;
}

const char *rpd_view_sql(const char *name, int schema)
{
  if (!name) return NULL;
  if (schema == 2) {
    char v2[256];
    if ((size_t)snprintf(v2, sizeof v2, "%s.v2", name) < sizeof v2) {
      const char *sql = find_view(v2);
      if (sql) return sql;
    }
  }
  return find_view(name);
}

int rpd_view_install(rpd *r, const char *name)
{
  const char *sql = rpd_view_sql(name, r->schema);

  if (!sql) return rpd_seterr(RPD_ENOTFOUND, "no embedded view file '%s'", name);
  return rpd_exec(r, sql);
}

const char *const *rpd_view_names(void)
{
  static const char **names;

  if (!names) {
    size_t n = 0;
    while (rpd_view_table[n].name) n++;
    const char **v = rpd_xcalloc(n + 1, sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = rpd_view_table[i].name;
    names = v;
  }
  return names;
}
