/* opclass.c - op classes from views/opClass.sql; see opclass.h. */
#include "opclass.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const class_names[] = {"other", "kernel", "copy", "barrier"};

/* Class number of a class name from the view ("other" when unknown). */
static int class_number(const char *s)
{
  for (int i = 0; i < 4; i++)
    if (s && strcmp(s, class_names[i]) == 0)
      return i;
  return RPD_OPCLASS_OTHER;
}

const char *rpd_opclass_name(int cls)
{
  return (cls >= 0 && cls < 4) ? class_names[cls] : "other";
}

/* The text between "CREATE VIEW opClass AS" and the last ';' of the view
 * file, kept in a static buffer built on first use. */
const char *rpd_opclass_select(void)
{
  static char *body;
  static const char marker[] = "CREATE VIEW opClass AS";

  if (body)
    return body;
  const char *sql = rpd_view_sql("opClass", 3);
  const char *p = sql ? strstr(sql, marker) : NULL;
  if (!p)
    return NULL;
  p += sizeof marker - 1;
  const char *e = strrchr(p, ';');
  size_t n = e ? (size_t)(e - p) : strlen(p);
  body = rpd_xmalloc(n + 1);
  memcpy(body, p, n);
  body[n] = '\0';
  return body;
}

char *rpd_opclass_condition(const char *column, unsigned mask)
{
  const char *sel = rpd_opclass_select();
  char list[64] = "";
  size_t len = 0;

  for (int c = 0; c < 4; c++) {
    if (!(mask & RPD_OPCLASS_BIT(c)))
      continue;
    int w = snprintf(list + len, sizeof list - len, "%s'%s'", len ? "," : "",
                     class_names[c]);
    len += (size_t)w;
  }
  if (!sel || !len)
    return rpd_xstrdup("0");
  return rpd_xasprintf("%s IN (SELECT opType_id FROM (%s) WHERE class IN (%s))",
                       column, sel, list);
}

/* r->opclass read again when the connection has changed the file since:
 * RPD_OK or rpd_opclass_load's error. */
static int opclass_fresh(rpd *r)
{
  long long now = sqlite3_total_changes64(rpd_db(r));
  if (r->opclass && r->opclass_at == now + 1)
    return RPD_OK;
  rpd__opclass_drop(r);
  rpd_opclass_map *m = rpd_xcalloc(1, sizeof *m);
  int rc = rpd_opclass_load(r, m);
  if (rc) {
    free(m);
    return rc;
  }
  r->opclass = m;
  r->opclass_at = now + 1;
  return RPD_OK;
}

const rpd_opclass_map *rpd_opclass_now(rpd *r)
{
  return opclass_fresh(r) ? NULL : r->opclass;
}

int rpd_opclass_condition_now(rpd *r, const char *column, unsigned mask, char **out)
{
  int rc = opclass_fresh(r);
  *out = NULL;
  if (rc)
    return rc;
  rpd_buf b = {0};
  rpd_buf_puts(&b, column);
  rpd_buf_puts(&b, " IN (");
  int first = 1;
  for (size_t i = 0; i < r->opclass->n; i++) {
    if (!(mask & RPD_OPCLASS_BIT(r->opclass->cls[i])))
      continue;
    char num[24];
    snprintf(num, sizeof num, "%s%lld", first ? "" : ",", (long long)r->opclass->id[i]);
    rpd_buf_puts(&b, num);
    first = 0;
  }
  rpd_buf_add(&b, ")", 2);
  *out = b.s;
  return RPD_OK;
}

void rpd__opclass_drop(struct rpd *r)
{
  if (r->opclass)
    rpd_opclass_free(r->opclass);
  free(r->opclass);
  r->opclass = NULL;
  r->opclass_at = 0;
}

static int cmp_id(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

int rpd_opclass_load(rpd *r, rpd_opclass_map *m)
{
  sqlite3_stmt *st = NULL;
  const char *sel = rpd_opclass_select();
  size_t cap = 0;
  int rc, s = SQLITE_DONE;

  memset(m, 0, sizeof *m);
  if (!sel)
    return rpd_seterr(RPD_ENOTFOUND, "no embedded view file 'opClass'");
  char *sql = rpd_xasprintf("SELECT opType_id, class FROM (%s) ORDER BY opType_id", sel);
  rc = rpd_prepare(r, sql, &st);
  free(sql);
  while (rc == RPD_OK && (s = rpd_step(r, st)) == SQLITE_ROW) {
    if (m->n == cap) {
      cap = cap ? cap * 2 : 16;
      m->id = rpd_xrealloc(m->id, cap * sizeof *m->id);
      m->cls = rpd_xrealloc(m->cls, cap * sizeof *m->cls);
    }
    m->id[m->n] = sqlite3_column_int64(st, 0);
    m->cls[m->n++] = (unsigned char)class_number((const char *)sqlite3_column_text(st, 1));
  }
  if (rc == RPD_OK && s != SQLITE_DONE)
    rc = -s;
  sqlite3_finalize(st);
  if (rc != RPD_OK)
    rpd_opclass_free(m);
  return rc;
}

int rpd_opclass_prepare_one(sqlite3 *db, sqlite3_stmt **st)
{
  const char *sel = rpd_opclass_select();

  *st = NULL;
  if (!sel)
    return rpd_seterr(RPD_ENOTFOUND, "no embedded view file 'opClass'");
  /* the CTE named rocpd_op shadows the table inside the view's text: its
   * "id IN (SELECT opType_id FROM rocpd_op)" becomes "id IN (?1)", one
   * rowid look-up instead of a scan of every op */
  char *sql = rpd_xasprintf("WITH rocpd_op(opType_id) AS (VALUES(?1)) SELECT class FROM (%s)", sel);
  int rc = sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK
               ? RPD_OK
               : rpd_seterr(RPD_ESQL, "%s", sqlite3_errmsg(db));
  free(sql);
  return rc;
}

int rpd_opclass_one(sqlite3_stmt *st, int64_t optype_id)
{
  int s, cls = RPD_OPCLASS_OTHER;

  sqlite3_bind_int64(st, 1, optype_id);
  s = sqlite3_step(st);
  if (s == SQLITE_ROW)
    cls = class_number((const char *)sqlite3_column_text(st, 0));
  else if (s != SQLITE_DONE)
    cls = -1;
  sqlite3_reset(st);
  return cls;
}

int rpd_opclass_of(const rpd_opclass_map *m, int64_t optype_id)
{
  const int64_t *p = m->n ? bsearch(&optype_id, m->id, m->n, sizeof *m->id, cmp_id) : NULL;
  return p ? m->cls[p - m->id] : RPD_OPCLASS_OTHER;
}

int rpd_opclass_in(const rpd_opclass_map *m, int64_t optype_id, unsigned mask)
{
  return (mask & RPD_OPCLASS_BIT(rpd_opclass_of(m, optype_id))) != 0;
}

void rpd_opclass_free(rpd_opclass_map *m)
{
  free(m->id);
  free(m->cls);
  memset(m, 0, sizeof *m);
}

int rpd_opclass_gpus(rpd *r, unsigned mask, char **list)
{
  sqlite3_stmt *st = NULL;
  rpd_buf b = {0};
  char *cond = rpd_opclass_condition("opType_id", mask);
  char *sql = rpd_xasprintf("SELECT DISTINCT gpuId FROM rocpd_op WHERE %s ORDER BY 1", cond);
  int s = SQLITE_DONE, rc = rpd_prepare(r, sql, &st);

  free(cond);
  free(sql);
  *list = NULL;
  while (rc == RPD_OK && (s = rpd_step(r, st)) == SQLITE_ROW)
    rpd_buf_printf(&b, "%s%lld", b.len ? ", " : "", (long long)sqlite3_column_int64(st, 0));
  if (rc == RPD_OK && s != SQLITE_DONE)
    rc = -s;
  sqlite3_finalize(st);
  if (rc == RPD_OK)
    *list = b.s ? b.s : rpd_xstrdup("");
  else
    rpd_buf_free(&b);
  return rc;
}
