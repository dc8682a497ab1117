/* detect.c - which RPD schema an SQLite database holds. */
#define _GNU_SOURCE
#include "rpd.h"
#include "internal.h"
#include "opening.h"

#include <string.h>

/* ------------------------------------------------------------ schema */

/* *found = whether the one-parameter query returns a row. */
static int q_exists(sqlite3 *db, const char *sql, const char *a, const char *b, int *found)
{
  sqlite3_stmt *st = NULL;
  int src = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

  if (src != SQLITE_OK) return rpd__sqlerr(db, src, sql);
  if (a) sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
  if (b) sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
  src = sqlite3_step(st);
  *found = src == SQLITE_ROW;
  if (src != SQLITE_ROW && src != SQLITE_DONE) {
    int rc = rpd__sqlerr(db, src, sql);
    sqlite3_finalize(st);
    return rc;
  }
  sqlite3_finalize(st);
  return RPD_OK;
}

static int has_object(sqlite3 *db, const char *name, int *found)
{
  return q_exists(db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') "
                      "AND name = ?1 COLLATE NOCASE", name, NULL, found);
}

static int has_column(sqlite3 *db, const char *table, const char *col, int *found)
{
  return q_exists(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2 COLLATE NOCASE",
                  table, col, found);
}

/* Schema of db in *schema (2 or 3), or an error status with the reason. */
int detect(sqlite3 *db, int *schema)
{
  static const char *const required[] = { "rocpd_op", "rocpd_string", "rocpd_api_ops" };
  int rc, api = 0, f = 0, dom = 0, cat = 0, name = 0, args = 0;

  *schema = 0;
  rc = q_exists(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rocpd_api' "
                    "COLLATE NOCASE", NULL, NULL, &api);
  if (rc) return rc;
  if (!api) {
    int guid = 0, kernels = 0, regions = 0;
    rc = q_exists(db, "SELECT 1 FROM sqlite_master WHERE name LIKE 'rocpd\\_info\\_node\\_%' "
                      "ESCAPE '\\' OR name LIKE 'rocpd\\_kernel\\_dispatch\\_%' ESCAPE '\\'",
                  NULL, NULL, &guid);
    if (!rc) rc = has_object(db, "kernels", &kernels);
    if (!rc) rc = has_object(db, "regions", &regions);
    if (rc) return rc;
    if (guid || (kernels && regions))
      return rpd_seterr(RPD_EROCPROF, "a rocprofv3 database, not an RPD trace; "
                                      "convert it with rpd-import");
    return rpd_seterr(RPD_ENOTRPD, "not an RPD trace: missing table rocpd_api");
  }
  for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
    if ((rc = has_object(db, required[i], &f))) return rc;
    if (!f) return rpd_seterr(RPD_ENOTRPD, "not an RPD trace: missing table %s", required[i]);
  }
  if ((rc = has_column(db, "rocpd_api", "domain_id", &dom)) ||
      (rc = has_column(db, "rocpd_api", "category_id", &cat)) ||
      (rc = has_column(db, "rocpd_api", "apiName_id", &name)) ||
      (rc = has_column(db, "rocpd_api", "args_id", &args)))
    return rc;
  if (dom && cat && name && args) {
    if ((rc = has_object(db, "rocpd_ustring", &f))) return rc;
    if (!f)
      return rpd_seterr(RPD_ENOTRPD, "not an RPD trace: schema 3 (rocpd_api has domain_id) "
                                     "but missing table rocpd_ustring");
    *schema = 3;
    return RPD_OK;
  }
  if (name && args && !dom) {
    *schema = 2;
    return RPD_OK;
  }
  return rpd_seterr(RPD_ENOTRPD, "not an RPD trace: rocpd_api has neither the schema 2 "
                                 "nor the schema 3 columns");
}

int rpd_detect_schema(sqlite3 *db, int *why)
{
  int schema = 0, rc = detect(db, &schema);

  if (why) *why = rc;
  return rc ? 0 : schema;
}

const char *rpd_args_table(const rpd *r)
{
  return r && r->schema == 2 ? "rocpd_string" : "rocpd_ustring";
}
