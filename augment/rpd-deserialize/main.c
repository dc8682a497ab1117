/* links: rpd-import */
/* rpd-deserialize - promote serialized roctx markers to real api/op rows. */
#include "opt.h"

static const rpd_help help = {
  .usage = "usage: rpd-deserialize FILE [-o OUT] [--force] [--api NAME[,NAME...]]",
  .about =
    "Turn roctx messages that describe an api call or an op into real rows:\n"
    "a marker call (apiName UserMarker by default) whose args carry\n"
    "  s_api = NAME   becomes a rocpd_api row named NAME (same pid, tid, start,\n"
    "                 end and args);\n"
    "  s_op = NAME    becomes a rocpd_op row of opType NAME, description = the\n"
    "                 args text, gpuId/queueId/sequenceId (default 0) and\n"
    "                 start/end (default the marker's) from the args.\n"
    "The marker rows are removed.  Markers without s_api/s_op are kept.",
  .notes = "See docs/rpd-deserialize.md.\n",
};

#include <stdlib.h>
#include <string.h>

#include "deser.h"
#include "namelist.h"
#include "rpd.h"
#include "opt.h"
#include "readdirect.h"  /* -o OUT from a rocprofv3 database or Kineto trace */

#define ROWS "temp.rpd_deser_rows"
#define DONE "temp.rpd_deser_done"

typedef struct ctx {
  char **apis;          /* marker apiNames (owned) */
  size_t napis;
  char *done_tag;       /* owned */
  /* while building */
  rpd_strtab *names;    /* rocpd_string */
  int v3_api;           /* rocpd_api has category_id/domain_id */
  int has_signal;       /* rocpd_op has completionSignal */
  int64_t next_api, next_op, napi, nop;
  int64_t nskip;        /* markers with bad fields, kept as they are */
  char *first_skip;     /* why the first one was skipped (owned) */
  sqlite3_stmt *ins_api, *ins_op, *mark_done, *relink;
} ctx;

static int on_api(void *vc, const char *name, const char *val, char *msg, size_t msgsz)
{
  ctx *c = vc;
  (void)name, (void)msg, (void)msgsz;
  rpd_namelist_split(val, &c->apis, &c->napis);
  return 0;
}

/* Parse --api before the driver runs (usage errors exit 2, the done tag
 * depends on it).  Returns 0 or the exit code. */
static int parse_options(ctx *c, int argc, char **argv)
{
  const char *skip;
  const rpd_opt opts[] = {
    RPD_OPT_CALL("--api", on_api, c),
    RPD_OPT_STRING("-o|--output", &skip),
    RPD_OPT_END(),
  };
  rpd_buf tag = {0};
  char msg[512];

  if (rpd_opt_peek(opts, argc, argv, msg, sizeof msg))
    return rpd_usage_error("%s", msg);
  if (!c->napis)
    rpd_namelist_split("UserMarker", &c->apis, &c->napis);
  rpd_buf_puts(&tag, "Deserialize::");
  for (size_t i = 0; i < c->napis; i++) {
    rpd_buf_puts(&tag, i ? "," : "");
    rpd_buf_puts(&tag, c->apis[i]);
  }
  c->done_tag = tag.s;
  return 0;
}

/* Ids of the marker calls, in id order, into ROWS. */
static int select_markers(rpd *r, ctx *c)
{
  int rc;

  rc = rpd_exec(r, "DROP TABLE IF EXISTS " ROWS "; DROP TABLE IF EXISTS " DONE ";"
                   "CREATE TABLE " ROWS "(id INTEGER PRIMARY KEY);"
                   "CREATE TABLE " DONE "(id INTEGER PRIMARY KEY);");
  if (!rc)
    rc = rpd_exec_in_names(r, "INSERT INTO " ROWS " SELECT id FROM rocpd_api WHERE "
                           "apiName_id IN (SELECT id FROM rocpd_string WHERE string IN (",
                           (const char *const *)c->apis, c->napis);
  return rc;
}

static int prepare_writers(rpd *r, ctx *c)
{
  int rc;

  rc = rpd_prepare(r, c->v3_api
        ? "INSERT INTO rocpd_api(id, pid, tid, start, \"end\", apiName_id, args_id, "
          "category_id, domain_id) VALUES (?,?,?,?,?,?,?,?,?)"
        : "INSERT INTO rocpd_api(id, pid, tid, start, \"end\", apiName_id, args_id) "
          "VALUES (?,?,?,?,?,?,?)", &c->ins_api);
  if (!rc)
    rc = rpd_prepare(r, c->has_signal
        ? "INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, \"end\", "
          "description_id, opType_id, completionSignal) VALUES (?,?,?,?,?,?,?,?,?)"
        : "INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, \"end\", "
          "description_id, opType_id) VALUES (?,?,?,?,?,?,?,?)", &c->ins_op);
  if (!rc)
    rc = rpd_prepare(r, "INSERT OR IGNORE INTO " DONE " VALUES (?)", &c->mark_done);
  if (!rc)
    rc = rpd_prepare(r, "UPDATE rocpd_api_ops SET api_id = ?2 WHERE api_id = ?1",
                     &c->relink);
  return rc;
}

static int run(rpd *r, sqlite3_stmt *st)
{
  int s = rpd_step(r, st);
  sqlite3_reset(st);
  return s < 0 ? -s : RPD_OK;
}

/* Marker columns: 0 id, 1 pid, 2 tid, 3 start, 4 end, 5 args_id,
 * 6 args text, 7 category_id, 8 domain_id. */
static int promote_api(rpd *r, ctx *c, sqlite3_stmt *m, const char *name)
{
  int64_t name_id;
  int rc = rpd_strtab_id(c->names, name, &name_id);
  sqlite3_stmt *st = c->ins_api;

  if (rc)
    return rc;
  sqlite3_bind_int64(st, 1, c->next_api);
  for (int i = 1; i <= 4; i++)
    sqlite3_bind_value(st, i + 1, sqlite3_column_value(m, i));
  sqlite3_bind_int64(st, 6, name_id);
  sqlite3_bind_value(st, 7, sqlite3_column_value(m, 5));
  if (c->v3_api) {
    sqlite3_bind_value(st, 8, sqlite3_column_value(m, 7));
    sqlite3_bind_value(st, 9, sqlite3_column_value(m, 8));
  }
  rc = run(r, st);
  if (!rc) {   /* keep any op links of the marker on the promoted call */
    sqlite3_bind_int64(c->relink, 1, sqlite3_column_int64(m, 0));
    sqlite3_bind_int64(c->relink, 2, c->next_api);
    rc = run(r, c->relink);
  }
  c->next_api++;
  c->napi++;
  return rc;
}

/* The op row of a checked s_op marker (m: marker columns, see promote_api). */
static int promote_op(rpd *r, ctx *c, sqlite3_stmt *m, const rpd_deser *d)
{
  sqlite3_stmt *st = c->ins_op;
  int64_t name_id, desc_id;
  int rc;

  rc = rpd_strtab_id(c->names, d->op, &name_id);
  if (!rc)   /* the description is the args text, kept in rocpd_string */
    rc = rpd_strtab_id(c->names, (const char *)sqlite3_column_text(m, 6), &desc_id);
  if (rc)
    return rc;
  sqlite3_bind_int64(st, 1, c->next_op);
  sqlite3_bind_int64(st, 2, d->gpu_id);
  sqlite3_bind_int64(st, 3, d->queue_id);
  sqlite3_bind_int64(st, 4, d->sequence_id);
  sqlite3_bind_int64(st, 5, d->start);
  sqlite3_bind_int64(st, 6, d->end);
  sqlite3_bind_int64(st, 7, desc_id);
  sqlite3_bind_int64(st, 8, name_id);
  if (c->has_signal)
    sqlite3_bind_text(st, 9, d->signal ? d->signal : "", -1, SQLITE_TRANSIENT);
  rc = run(r, st);
  c->next_op++;
  c->nop++;
  return rc;
}

/* A marker with bad fields stays as it is: count it, keep the first reason. */
static void skip_marker(ctx *c, sqlite3_stmt *m)
{
  if (!c->nskip)
    c->first_skip = rpd_xasprintf("marker %lld: %s", (long long)sqlite3_column_int64(m, 0),
                                  rpd_errmsg());
  c->nskip++;
}

static int promote_all(rpd *r, ctx *c)
{
  sqlite3_stmt *m = NULL;
  char *sql;
  int rc, s = SQLITE_DONE;

  sql = sqlite3_mprintf("SELECT A.id, A.pid, A.tid, A.start, A.\"end\", A.args_id, "
                        "S.string%s FROM " ROWS " R JOIN rocpd_api A ON A.id = R.id "
                        "JOIN \"%w\" S ON S.id = A.args_id ORDER BY R.id",
                        c->v3_api ? ", A.category_id, A.domain_id" : "",
                        rpd_args_table(r));
  rc = rpd_prepare(r, sql, &m);
  sqlite3_free(sql);
  while (!rc && (s = rpd_step(r, m)) == SQLITE_ROW) {
    rpd_deser d;
    if (rpd_deser_parse((const char *)sqlite3_column_text(m, 6), sqlite3_column_int64(m, 3),
                        sqlite3_column_int64(m, 4), &d) != RPD_OK)
      skip_marker(c, m);
    else {
      if (d.api)
        rc = promote_api(r, c, m, d.api);
      if (!rc && d.op)
        rc = promote_op(r, c, m, &d);
      if (!rc && (d.api || d.op)) {
        sqlite3_bind_int64(c->mark_done, 1, sqlite3_column_int64(m, 0));
        rc = run(r, c->mark_done);
      }
    }
    rpd_deser_free(&d);
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(m);
  return rc;
}

static int build(rpd *r, void *vc)
{
  ctx *c = vc;
  int64_t nmarkers = 0;
  int rc;

  c->v3_api = rpd_column_exists(r, "rocpd_api", "category_id") &&
              rpd_column_exists(r, "rocpd_api", "domain_id");
  c->has_signal = rpd_column_exists(r, "rocpd_op", "completionSignal");
  rc = rpd_query_int64(r, "SELECT coalesce(max(id), 0) + 1 FROM rocpd_api", &c->next_api);
  if (!rc)
    rc = rpd_query_int64(r, "SELECT coalesce(max(id), 0) + 1 FROM rocpd_op", &c->next_op);
  if (!rc)
    rc = rpd_strtab_open(r, "rocpd_string", &c->names);
  rpd_progress_sql(r, "markers", "rocpd_api");
  if (!rc)
    rc = select_markers(r, c);
  if (!rc)
    rc = rpd_query_int64(r, "SELECT count(*) FROM " ROWS, &nmarkers);
  if (!rc)
    rc = prepare_writers(r, c);
  if (!rc)
    rc = promote_all(r, c);
  if (!rc)
    rc = rpd_exec(r, "DELETE FROM rocpd_api WHERE id IN (SELECT id FROM " DONE ");"
                     "DROP TABLE " ROWS "; DROP TABLE " DONE ";");
  sqlite3_finalize(c->ins_api);
  sqlite3_finalize(c->ins_op);
  sqlite3_finalize(c->mark_done);
  sqlite3_finalize(c->relink);
  rpd_strtab_free(c->names);
  c->names = NULL;
  if (rpd_quiet) {
    /* -q: no summary */
  } else if (!rc && c->nskip)
    printf("%s: %lld markers read: %lld api calls and %lld ops promoted; %lld skipped "
           "(bad fields, kept as markers; first: %s)\n",
           rpd_progname, (long long)nmarkers, (long long)c->napi, (long long)c->nop,
           (long long)c->nskip, c->first_skip);
  else if (!rc)
    printf("%s: %lld markers read: %lld api calls and %lld ops promoted\n",
           rpd_progname, (long long)nmarkers, (long long)c->napi, (long long)c->nop);
  free(c->first_skip);
  c->first_skip = NULL;
  return rc;
}

int main(int argc, char **argv)
{
  rpd_set_import_reader(rpdi_direct_read, NULL);
  ctx c = {0};
  int rc;

  const char *skip;
  /* read by parse_options; the driver only steps over it */
  const rpd_opt read_before[] = {
    RPD_OPT_STRING("--api", &skip, .arg = "NAMES",
                   .help = "marker apiNames to read, comma separated (default UserMarker)"),
    RPD_OPT_END(),
  };
  rpd_augment a = {
    .help = &help,
    .what = "its markers deserialized",
    .opts = read_before,
    .drop = NULL,
    .build = build,
    .ctx = &c,
  };
  if (rpd_augment_init(&a, argc, argv))
    return rpd_cli_status();
  rc = parse_options(&c, argc, argv);
  if (!rc) {
    a.done_tag = c.done_tag;
    rc = rpd_augment_main(&a, argc, argv);
  }
  rpd_namelist_free(c.apis, c.napis);
  free(c.done_tag);
  return rc;
}
