/* argtext.c - the args text of each api call, for the api pass, without a
 * look-up from the B-tree root per call.
 *
 * A tracer interns a call's args string when it first sees it, so the
 * calls read in id order mostly name the next new string (a cursor walking
 * the args table forward serves them) or one seen before (a repeated label,
 * the empty string: a small cache by id serves them, filled by a point
 * look-up on a miss).  The texts are exactly what
 * `rocpd_api A LEFT JOIN args S ON S.id = A.args_id` gives: an args_id
 * that is not an integer, or names no row, has no text. */
#include "tracing.h"

/* A forward jump longer than this re-seeks the cursor instead of stepping. */
#define ARGTEXT_STEPS 32

int argtext_open(conv *c, argtext *a) {
  memset(a, 0, sizeof *a);
  a->fid = INT64_MAX;   /* not on a row until the first seek */
  int rc = conv_prepare(c, &a->fwd, "SELECT id, string FROM \"%w\" WHERE id >= ?1 ORDER BY id");
  if (rc == RPD_OK) rc = conv_prepare(c, &a->one, "SELECT string FROM \"%w\" WHERE id = ?1");
  return rc;
}

/* Step the cursor; fid = its id, INT64_MAX past the end. */
static int fwd_step(conv *c, argtext *a) {
  int s = sqlite3_step(a->fwd);
  if (s == SQLITE_ROW) {
    a->fid = sqlite3_column_int64(a->fwd, 0);
    return RPD_OK;
  }
  a->fid = INT64_MAX;
  a->at_end = 1;
  return s == SQLITE_DONE ? RPD_OK : cerr(c->err, RPD_ESQL, "%s", sqlite3_errmsg(c->db));
}

/* Put the cursor on the first row with id >= k. */
static int fwd_seek(conv *c, argtext *a, int64_t k) {
  sqlite3_reset(a->fwd);
  sqlite3_bind_int64(a->fwd, 1, k);
  a->at_end = 0;
  a->seeked = 1;
  return fwd_step(c, a);
}

/* The text of id k from the cache, or by a point look-up (then cached). */
static int lookup(conv *c, argtext *a, int64_t k, const char **s, size_t *n) {
  argtext_slot *e = &a->slot[(uint64_t)k & (ARGTEXT_SLOTS - 1)];
  if (!e->used || e->id != k) {
    sqlite3_bind_int64(a->one, 1, k);
    int st = sqlite3_step(a->one);
    if (st != SQLITE_ROW && st != SQLITE_DONE) {
      int rc = cerr(c->err, RPD_ESQL, "%s", sqlite3_errmsg(c->db));
      sqlite3_reset(a->one);
      return rc;
    }
    const char *t = st == SQLITE_ROW ? (const char *)sqlite3_column_text(a->one, 0) : NULL;
    size_t tn = t ? (size_t)sqlite3_column_bytes(a->one, 0) : 0;
    free(e->s);
    e->s = NULL;
    if (t) {
      e->s = rpd_xmalloc(tn + 1);
      memcpy(e->s, t, tn + 1);
    }
    e->n = tn;
    e->id = k;
    e->used = 1;
    sqlite3_reset(a->one);
  }
  *s = e->s;
  *n = e->n;
  return RPD_OK;
}

int argtext_get(conv *c, argtext *a, sqlite3_value *v, const char **s, size_t *n) {
  *s = NULL;
  *n = 0;
  if (sqlite3_value_type(v) != SQLITE_INTEGER) return RPD_OK;
  int64_t k = sqlite3_value_int64(v);
  int rc = RPD_OK;
  if (!a->seeked || (!a->at_end && k > a->fid && (uint64_t)k - (uint64_t)a->fid > ARGTEXT_STEPS))
    rc = fwd_seek(c, a, k);
  while (rc == RPD_OK && !a->at_end && a->fid < k) rc = fwd_step(c, a);
  if (rc != RPD_OK) return rc;
  if (!a->at_end && a->fid == k) {
    *s = (const char *)sqlite3_column_text(a->fwd, 1);
    *n = *s ? (size_t)sqlite3_column_bytes(a->fwd, 1) : 0;
    return RPD_OK;
  }
  return lookup(c, a, k, s, n);
}

void argtext_close(argtext *a) {
  sqlite3_finalize(a->fwd);
  sqlite3_finalize(a->one);
  for (size_t i = 0; i < ARGTEXT_SLOTS; i++) free(a->slot[i].s);
  memset(a, 0, sizeof *a);
}
