/* subclass.c - generic subclass tables over api args / op descriptions.
 *
 * One scan of rocpd_api (or rocpd_op) copies the ids of the selected calls
 * into a temp table; a pass over their distinct args strings finds the
 * column set; a second pass parses each call's args and inserts its row.
 * Memory holds only the column names.  See subclass.h.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "namelist.h"
#include "rpd.h"
#include "subclass.h"

#define ROWS_TABLE "temp.rpd_subclass_rows"
#define MAX_COLUMNS 1900   /* SQLite allows 2000 columns per table */

typedef struct colset {
  char **name;
  size_t n, cap;
} colset;

static int is_api(const rpd_subclass *sc) { return strcmp(sc->base, "api") == 0; }

char *rpd_subclass_table(const rpd_subclass *sc)
{
  return rpd_xasprintf("rocpd_%s%s", sc->name, sc->base);
}

char *rpd_subclass_view(const rpd_subclass *sc)
{
  return rpd_xasprintf("%s%s", sc->name, sc->base);
}

/* Words that begin a column constraint, not a type (SQLite's grammar):
 * "INTEGER DEFAULT 5" or "INT REFERENCES t ON DELETE CASCADE" would put a
 * constraint into the DDL. */
static int constraint_word(const char *w, size_t n)
{
  static const char *const kw[] = { "CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE",
                                    "CHECK", "DEFAULT", "COLLATE", "REFERENCES",
                                    "GENERATED", "AS", "ON", "KEY" };
  for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
    if (strlen(kw[i]) == n && !strncasecmp(w, kw[i], n))
      return 1;
  return 0;
}

/* Skip spaces; then 1 and *p past a run of digits, or 0. */
static int digits(const char **p)
{
  const char *q = *p;
  while (*q == ' ') q++;
  if (!isdigit((unsigned char)*q)) return 0;
  while (isdigit((unsigned char)*q)) q++;
  while (*q == ' ') q++;
  *p = q;
  return 1;
}

int rpd_subclass_type_ok(const char *type)
{
  const char *p = type;
  int words = 0;
  if (!p)
    return 0;
  /* a type name: one or more words, then at most "(N)" or "(N, M)" */
  for (;;) {
    while (*p == ' ') p++;
    if (!isalpha((unsigned char)*p) && *p != '_')
      break;
    const char *w = p;
    while (isalnum((unsigned char)*p) || *p == '_') p++;
    if (constraint_word(w, (size_t)(p - w)))
      return 0;
    words++;
  }
  if (!words)
    return 0;
  if (*p == '(') {
    p++;
    if (!digits(&p))
      return 0;
    if (*p == ',') {
      p++;
      if (!digits(&p))
        return 0;
    }
    if (*p++ != ')')
      return 0;
    while (*p == ' ') p++;
  }
  return *p == '\0';
}

/* Index of `key` in the set (case-insensitive), or -1. */
static long col_find(const colset *c, const char *key)
{
  for (size_t i = 0; i < c->n; i++)
    if (strcasecmp(c->name[i], key) == 0)
      return (long)i;
  return -1;
}

/* Add key unless present, empty, the pointer column or a marker key. */
static int col_add(colset *c, const char *key, const char *ptr_col)
{
  if (!*key || strcasecmp(key, ptr_col) == 0 || strcmp(key, "s_api") == 0 ||
      strcmp(key, "s_op") == 0 || col_find(c, key) >= 0)
    return RPD_OK;
  if (c->n >= MAX_COLUMNS)
    return rpd_seterr(RPD_ERR, "too many distinct argument keys (more than %d)",
                      MAX_COLUMNS);
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 16;
    c->name = rpd_xrealloc(c->name, c->cap * sizeof *c->name);
  }
  c->name[c->n++] = rpd_xstrdup(key);
  return RPD_OK;
}

static void col_free(colset *c)
{
  for (size_t i = 0; i < c->n; i++)
    free(c->name[i]);
  free(c->name);
}

static const char *col_type(const rpd_subclass *sc, const char *key)
{
  for (const char *const *t = sc->types; t && t[0]; t += 2)
    if (strcasecmp(t[0], key) == 0)
      return t[1];
  return "varchar(255)";
}

/* The table holding the text we parse, and the columns naming a call. */
static const char *text_table(rpd *r, const rpd_subclass *sc)
{
  return is_api(sc) ? rpd_args_table(r) : "rocpd_string";
}

/* Copy (id, text_id) of every selected call into ROWS_TABLE. */
static int select_rows(rpd *r, const rpd_subclass *sc)
{
  char *head;
  int rc;

  rc = rpd_exec(r, "DROP TABLE IF EXISTS " ROWS_TABLE ";"
                   "CREATE TABLE " ROWS_TABLE "(id INTEGER PRIMARY KEY, text_id INTEGER)");
  if (rc)
    return rc;
  head = rpd_xasprintf("INSERT INTO " ROWS_TABLE " SELECT id, %s FROM %s "
                       "WHERE %s IN (SELECT id FROM rocpd_string WHERE string IN (",
                       is_api(sc) ? "args_id" : "description_id",
                       is_api(sc) ? "rocpd_api" : "rocpd_op",
                       is_api(sc) ? "apiName_id" : "opType_id");
  rc = rpd_exec_in_names(r, head, sc->events, sc->nevents);
  free(head);
  return rc;
}

/* Union of the keys of the selected calls' texts, then the required keys. */
static int collect_columns(rpd *r, const rpd_subclass *sc, colset *cols)
{
  const char *ptr_col = is_api(sc) ? "api_ptr_id" : "op_ptr_id";
  sqlite3_stmt *st = NULL;
  char *sql;
  int rc, s = SQLITE_DONE;

  sql = sqlite3_mprintf("SELECT string FROM \"%w\" WHERE id IN "
                        "(SELECT text_id FROM " ROWS_TABLE ") ORDER BY id",
                        text_table(r, sc));
  rc = rpd_prepare(r, sql, &st);
  while (!rc && (s = rpd_step(r, st)) == SQLITE_ROW) {
    rpd_args a;
    rpd_args_parse((const char *)sqlite3_column_text(st, 0), &a);
    for (size_t i = 0; !rc && i < a.n; i++)
      rc = col_add(cols, a.kv[i].key, ptr_col);
    rpd_args_free(&a);
  }
  if (!rc && s < 0)
    rc = -s;
  for (const char *const *q = sc->required; !rc && q && *q; q++)
    rc = col_add(cols, *q, ptr_col);
  sqlite3_finalize(st);
  sqlite3_free(sql);
  return rc;
}

static int create_table(rpd *r, const rpd_subclass *sc, const char *table,
                        const colset *cols)
{
  rpd_buf ddl = {0};
  char *part;
  int rc;

  part = sqlite3_mprintf("CREATE TABLE \"%w\" (\"%w\" integer NOT NULL PRIMARY KEY "
                         "REFERENCES \"%w\" (\"id\") DEFERRABLE INITIALLY DEFERRED",
                         table, is_api(sc) ? "api_ptr_id" : "op_ptr_id",
                         is_api(sc) ? "rocpd_api" : "rocpd_op");
  rpd_buf_puts(&ddl, part);
  sqlite3_free(part);
  for (size_t i = 0; i < cols->n; i++) {
    /* the type text was checked by rpd_subclass_type_ok by the caller */
    part = sqlite3_mprintf(", \"%w\" %s", cols->name[i], col_type(sc, cols->name[i]));
    rpd_buf_puts(&ddl, part);
    sqlite3_free(part);
  }
  rpd_buf_puts(&ddl, ")");
  rc = rpd_exec(r, ddl.s);
  rpd_buf_free(&ddl);
  return rc;
}

/* Parse each selected call's text and insert its row ('' when absent). */
static int fill_table(rpd *r, const rpd_subclass *sc, const char *table,
                      const colset *cols, int64_t *nrows)
{
  sqlite3_stmt *sel = NULL, *ins = NULL;
  rpd_buf sql = {0};
  const char **vals = rpd_xcalloc(cols->n + 1, sizeof *vals);
  char *q;
  int rc, s = SQLITE_DONE;

  q = sqlite3_mprintf("INSERT INTO \"%w\" VALUES (?", table);
  rpd_buf_puts(&sql, q);
  sqlite3_free(q);
  for (size_t i = 0; i < cols->n; i++)
    rpd_buf_puts(&sql, ",?");
  rpd_buf_puts(&sql, ")");
  rc = rpd_prepare(r, sql.s, &ins);
  q = sqlite3_mprintf("SELECT R.id, S.string FROM " ROWS_TABLE " R JOIN \"%w\" S "
                      "ON S.id = R.text_id ORDER BY R.id", text_table(r, sc));
  if (!rc)
    rc = rpd_prepare(r, q, &sel);
  sqlite3_free(q);
  while (!rc && (s = rpd_step(r, sel)) == SQLITE_ROW) {
    rpd_args a;
    for (size_t i = 0; i < cols->n; i++)
      vals[i] = "";
    rpd_args_parse((const char *)sqlite3_column_text(sel, 1), &a);
    for (size_t i = 0; i < a.n; i++) {   /* the last of repeated keys wins */
      long c = col_find(cols, a.kv[i].key);
      if (c >= 0)
        vals[c] = a.kv[i].value;
    }
    sqlite3_bind_int64(ins, 1, sqlite3_column_int64(sel, 0));
    for (size_t i = 0; i < cols->n; i++)
      sqlite3_bind_text(ins, (int)i + 2, vals[i], -1, SQLITE_STATIC);
    if ((s = rpd_step(r, ins)) < 0)
      rc = -s;
    sqlite3_reset(ins);
    rpd_args_free(&a);
    if (!rc && nrows)
      (*nrows)++;
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(sel);
  sqlite3_finalize(ins);
  rpd_buf_free(&sql);
  free(vals);
  return rc;
}

/* The view: the reference's `api`/`op` view joined to the table when that
 * view exists, else the same columns from the base tables. */
static int create_view(rpd *r, const rpd_subclass *sc, const char *table,
                       const char *view)
{
  int api = is_api(sc);

  if (rpd_table_exists(r, api ? "api" : "op"))
    return rpd_execf(r, "CREATE VIEW \"%w\" AS SELECT * FROM %s A JOIN \"%w\" B "
                        "ON B.%s = A.id", view, api ? "api" : "op", table,
                     api ? "api_ptr_id" : "op_ptr_id");
  if (api)
    return rpd_execf(r, "CREATE VIEW \"%w\" AS SELECT A.id, A.pid, A.tid, A.start, "
                        "A.\"end\", N.string AS apiName, G.string AS args, B.* "
                        "FROM rocpd_api A JOIN rocpd_string N ON N.id = A.apiName_id "
                        "JOIN \"%w\" G ON G.id = A.args_id JOIN \"%w\" B "
                        "ON B.api_ptr_id = A.id", view, rpd_args_table(r), table);
  return rpd_execf(r, "CREATE VIEW \"%w\" AS SELECT A.id, A.gpuId, A.queueId, "
                      "A.sequenceId, A.start, A.\"end\", D.string AS description, "
                      "T.string AS opType, B.* FROM rocpd_op A "
                      "JOIN rocpd_string D ON D.id = A.description_id "
                      "JOIN rocpd_string T ON T.id = A.opType_id "
                      "JOIN \"%w\" B ON B.op_ptr_id = A.id", view, table);
}

int rpd_subclass_build(rpd *r, const rpd_subclass *sc, int64_t *nrows)
{
  char *table = rpd_subclass_table(sc), *view = rpd_subclass_view(sc);
  colset cols = {0};
  int rc = RPD_OK;

  if (nrows)
    *nrows = 0;
  if (strcmp(sc->base, "api") != 0 && strcmp(sc->base, "op") != 0)
    rc = rpd_seterr(RPD_EPARSE, "base must be 'api' or 'op', not '%s'", sc->base);
  else if (rpd_table_exists(r, table))
    rc = rpd_seterr(RPD_EEXIST, "table '%s' already exists", table);
  else if (rpd_table_exists(r, view))
    rc = rpd_seterr(RPD_EEXIST, "a table or view named '%s' already exists", view);
  if (!rc)
    rc = select_rows(r, sc);
  if (!rc)
    rc = collect_columns(r, sc, &cols);
  if (!rc)
    rc = create_table(r, sc, table, &cols);
  if (!rc)
    rc = fill_table(r, sc, table, &cols, nrows);
  if (!rc)
    rc = create_view(r, sc, table, view);
  if (!rc)
    rc = rpd_exec(r, "DROP TABLE IF EXISTS " ROWS_TABLE);
  col_free(&cols);
  free(table);
  free(view);
  return rc;
}

int rpd_subclass_drop(rpd *r, const rpd_subclass *sc)
{
  char *table = rpd_subclass_table(sc), *view = rpd_subclass_view(sc);
  int rc;

  rc = rpd_execf(r, "DROP VIEW IF EXISTS \"%w\"", view);
  if (!rc)
    rc = rpd_execf(r, "DROP TABLE IF EXISTS \"%w\"", table);
  free(table);
  free(view);
  return rc;
}
