/* trace.c - rpd-synth's output trace: made with rpd_create, indexes
 * deferred to the end, rank metadata, published on success. */
#include "synth.h"

#include <stdio.h>

/* Indexes are dropped while rows go in and rebuilt at the end (a sort is
 * much faster than a million random index inserts). */
static int defer_indexes(synth *s)
{
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(s->db, "SELECT name, sql FROM sqlite_master "
                              "WHERE type = 'index' AND sql IS NOT NULL",
                              -1, &st, NULL);
  rpd_buf drop = {0};
  while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    char *d = sqlite3_mprintf("DROP INDEX \"%w\";",
                              (const char *)sqlite3_column_text(st, 0));
    rpd_buf_puts(&drop, d);
    rpd_buf_puts(&s->indexes, (const char *)sqlite3_column_text(st, 1));
    rpd_buf_puts(&s->indexes, ";\n");
    sqlite3_free(d);
  }
  sqlite3_finalize(st);
  if (rc == SQLITE_OK && drop.s)
    rc = sqlite3_exec(s->db, drop.s, NULL, NULL, NULL);
  rpd_buf_free(&drop);
  if (rc != SQLITE_OK)
    return rpd_fail("cannot prepare the trace: %s", sqlite3_errmsg(s->db));
  return 0;
}

/* --ranks: the rank's identity in rocpd_metadata (what rpd-merge reads). */
static int write_rank_meta(synth *s)
{
  char *sql = sqlite3_mprintf(
      "INSERT INTO rocpd_metadata(tag, value) VALUES ('rank', '%lld'), "
      "('world_size', '%lld'), ('hostname', 'synth-node%lld')",
      (long long)s->rank, (long long)s->ranks, (long long)(s->rank / 8));
  int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
  sqlite3_free(sql);
  return rc;
}

/* The trace (rpd_create: a temp file next to OUT's target, removed by
 * common/ on failure, exit or a fatal signal; schema, bulk-load settings;
 * published by rpd_close, gzip'd when OUT ends in .gz). */
static rpd *trace;

static int create_db(synth *s, const char *out, int force)
{
  rpd_create_opts o = { .schema = s->schema, .force = force };
  if (rpd_create(&trace, out, &o) != RPD_OK)
    return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
  s->db = rpd_db(trace);
  if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
    return rpd_fail("cannot write '%s': %s", out, sqlite3_errmsg(s->db));
  if (s->ranks && write_rank_meta(s) != SQLITE_OK)
    return rpd_fail("cannot write '%s': %s", out, sqlite3_errmsg(s->db));
  return defer_indexes(s);
}

/* Fill the trace and publish it (out is the user's name for it); 0 or the
 * exit code. */
int synth_write_trace(synth *s, const char *out, int force)
{
  int rc = create_db(s, out, force);
  if (rc == 0 && synth_prepare_all(s) != SQLITE_OK)
    rc = rpd_fail("cannot prepare inserts: %s", sqlite3_errmsg(s->db));
  if (rc == 0 && synth_generate(s) != SQLITE_OK)
    rc = rpd_fail("cannot write '%s': %s", out, sqlite3_errmsg(s->db));
  synth_finalize_all(s);
  if (rc == 0 && s->indexes.s &&
      sqlite3_exec(s->db, s->indexes.s, NULL, NULL, NULL) != SQLITE_OK)
    rc = rpd_fail("cannot index '%s': %s", out, sqlite3_errmsg(s->db));
  if (rc == 0 && sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
    rc = rpd_fail("cannot write '%s': %s", out, sqlite3_errmsg(s->db));
  s->db = NULL;
  if (rc == 0 && rpd_close(trace, 1) != RPD_OK)
    rc = rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
  else if (rc)
    rpd_close(trace, 0);
  trace = NULL;
  return rc;
}
