/* rpd-schema - create, describe, repair and upgrade RPD traces.
 * See docs/rpd-schema.md and docs/schema.md. */
#include "rpd.h"
#include "opt.h"
#include "check.h"
#include "schema.h"   /* rpd_utility_views, rpd_schema_install_view */
#include "rpd-schema.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const rpd_help help = {
  .usage = "usage: rpd-schema --create FILE [--schema 2|3] [--force]\n"
           "       rpd-schema --print [--schema 2|3]\n"
           "       rpd-schema --info FILE [--format table|csv|json]\n"
           "       rpd-schema --views FILE [-o OUT] [--force]\n"
           "       rpd-schema --upgrade FILE [-o OUT]",
  .about = "Create, describe, repair or upgrade the schema of an RPD trace.",
  .notes =
    "Exit: 0 ok (also: nothing to do), 1 failure, 2 usage.\n"
    "Environment: RPD_BUSY_TIMEOUT_MS (default 5000) for locked files.\n",
};

/* ------------------------------------------------------------ helpers */

/* Report a failure of an operation on `path` as one line; returns 1. */
int schema_report(const char *what, const char *path)
{
  return rpd_fail("cannot %s '%s': %s", what, path, rpd_errmsg());
}

/* State of a view: "ok", "missing", or "broken: REASON" (a new string the
 * caller frees). */
char *schema_view_state(rpd *r, const char *name)
{
  sqlite3_stmt *st = NULL;
  char *sql, *state;
  int src;

  if (!rpd_table_exists(r, name))
    return rpd_xstrdup("missing");
  sql = sqlite3_mprintf("SELECT * FROM \"%w\" LIMIT 0", name);
  src = sqlite3_prepare_v2(rpd_db(r), sql, -1, &st, NULL);
  state = src == SQLITE_OK ? rpd_xstrdup("ok")
                           : rpd_xasprintf("broken: %s", sqlite3_errmsg(rpd_db(r)));
  sqlite3_finalize(st);
  sqlite3_free(sql);
  return state;
}

/* Reinstall the utility views that are missing or broken (all with
 * force); *changed counts the views (re)installed. */
int schema_repair_views(rpd *r, int force, int *changed)
{
  int rc = RPD_OK;
  *changed = 0;
  for (int i = 0; rc == RPD_OK && rpd_utility_views[i]; i++) {
    char *s = schema_view_state(r, rpd_utility_views[i]);
    int ok = strcmp(s, "ok") == 0;
    free(s);
    if (ok && !force)
      continue;
    rc = rpd_schema_install_view(r, rpd_utility_views[i]);
    if (rc == RPD_OK)
      (*changed)++;
    else if (rc == RPD_ENOTFOUND)
      rc = RPD_OK;
  }
  return rc;
}

/* One line on stdout naming the views that could not be installed. */
void schema_say_skipped(rpd *r, const char *file)
{
  rpd_buf b = {0};
  int n = 0;
  for (int i = 0; rpd_utility_views[i]; i++) {
    if (rpd_table_exists(r, rpd_utility_views[i]))
      n++;
    else
      rpd_buf_printf(&b, "%s%s", b.len ? ", " : "", rpd_utility_views[i]);
  }
  printf("rpd-schema: '%s': %d utility views installed%s%s%s\n", file, n,
         b.len ? " (left out, base tables missing: " : "", b.len ? b.s : "",
         b.len ? ")" : "");
  rpd_buf_free(&b);
}

/* ------------------------------------------------------------ --create */

/* --create: rpd_create builds the new trace in a temp file next to FILE's
 * target (symlinks followed, a device, fifo or directory refused) and
 * rpd_close renames it over it only once complete (gzip'd for FILE.gz), so
 * an existing FILE (--force) is replaced atomically and a failure or kill
 * leaves it as it was. */
static int do_create(const opts *o)
{
  rpd *r = NULL;
  rpd_create_opts co = { .schema = o->schema, .force = o->force };
  struct stat sb;
  char *target = NULL;
  int rc = rpd_output_check(o->file, NULL, &target);

  if (rc)
    return schema_report("create", o->file);
  rc = stat(target, &sb) == 0 && sb.st_size > 0 && !o->force;
  free(target);
  if (rc)
    return rpd_fail("cannot create '%s': file exists and is not empty (use --force to"
                    " replace it)", o->file);
  if (rpd_create(&r, o->file, &co) || rpd_close(r, 1))
    return schema_report("create", o->file);
  printf("rpd-schema: created '%s' (schema %d)\n", o->file, o->schema);
  return rpd_fail_committed(o->file);
}

/* ------------------------------------------------------------ --print */

/* The DDL, then each utility view that works on that layout (tried on a
 * scratch in-memory database, so stackframe is left out for v2). */
static int do_print(const opts *o)
{
  sqlite3 *db = NULL;
  rpd *mem = NULL;
  const char *sql = rpd_view_sql("schema", o->schema);
  int rc = RPD_OK;

  if (!sql)
    return rpd_fail("no embedded schema %d", o->schema);
  if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
    rc = rpd_seterr(RPD_ENOMEM, "cannot open an in-memory database");
  else
    mem = rpd_attach(db, o->schema, RPD_WRITE);
  if (rc == RPD_OK)
    rc = rpd_exec(mem, sql);
  if (rc == RPD_OK)
    rc = rpd_schema_install_views(mem);
  if (rc == RPD_OK) {
    fputs(sql, stdout);
    for (int i = 0; rpd_utility_views[i]; i++)
      if (rpd_table_exists(mem, rpd_utility_views[i]))
        printf("\n%s", rpd_view_sql(rpd_utility_views[i], o->schema));
  }
  rpd_detach(mem);
  sqlite3_close(db);
  if (rc)
    return rpd_fail("cannot build the schema: %s", rpd_errmsg());
  return rpd_finish_stdout() ? rpd_fail("%s", rpd_errmsg()) : 0;
}

/* ------------------------------------------------------------ --views */

static int do_views(const opts *o)
{
  rpd *r = NULL;
  int rc, changed = 0;

  if (rpd_open_or_report(&r, o->file, o->out, RPD_WRITE))
    return 1;
  rc = rpd_begin(r);
  if (rc == RPD_OK)
    rc = schema_repair_views(r, o->force, &changed);
  if (rc == RPD_OK && changed == 0) {
    rpd_rollback(r);
    printf("rpd-schema: '%s': no view is missing or broken; nothing to do\n",
           o->file);
    rc = rpd_close(r, o->out != NULL);   /* -o: still produce OUT */
    if (rc) return schema_report("write", o->out);
    return o->out ? rpd_fail_committed(o->out)
                  : rpd_finish_stdout() ? rpd_fail("%s", rpd_errmsg()) : 0;
  }
  if (rc == RPD_OK)
    rc = rpd_commit(r);
  if (rc) {
    rpd_close(r, 0);
    return schema_report("update", o->file);
  }
  schema_say_skipped(r, o->out ? o->out : o->file);
  if (rpd_close(r, 1))
    return schema_report("write", o->out ? o->out : o->file);
  return rpd_fail_committed(o->out ? o->out : o->file);
}

/* ------------------------------------------------------------ main */

/* FILE follows its action (--info FILE, also a name with a leading dash) or
 * comes as the one operand anywhere else (--views --force FILE, -- FILE). */
static int set_file(opts *o, const char *f, char *msg, size_t msgsz)
{
  if (o->file) {
    snprintf(msg, msgsz, "unexpected argument '%s' (FILE is '%s')", f, o->file);
    return 2;
  }
  o->file = f;
  return 0;
}

/* --create, --info, --views, --upgrade [FILE]; --print */
static int on_action(void *ctx, const char *name, const char *file, char *msg, size_t msgsz)
{
  static const char *const actions[] = {"create", "info", "views", "upgrade", "print"};
  opts *o = ctx;
  if (o->action) {
    snprintf(msg, msgsz, "--%s and --%s cannot be combined", o->action, name + 2);
    return 2;
  }
  for (int k = 0; k < 5; k++)   /* name lives only during the call */
    if (!strcmp(name + 2, actions[k])) o->action = actions[k];
  return file ? set_file(o, file, msg, msgsz) : 0;
}

static int on_schema(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  opts *o = ctx;
  (void)name;
  if (strcmp(v, "2") && strcmp(v, "3")) {
    snprintf(msg, msgsz, "--schema must be 2 or 3");
    return 2;
  }
  o->schema = v[0] - '0';
  return 0;
}

static int on_format(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  opts *o = ctx;
  (void)name;
  if (rpd_fmt_parse(v, &o->fmt)) {
    snprintf(msg, msgsz, "--format must be table, csv or json");
    return 2;
  }
  return 0;
}

static int parse_args(opts *o, int argc, char **argv)
{
  const rpd_opt table[] = {
    RPD_OPT_CALL_OPTVAL("--create", on_action, o, .arg = "FILE",
                        .help = "write an empty trace ready for rpd_tracer to append to: "
                                "every RPD table, the string indexes, metadata "
                                "(schema_version, gpu_stride, pid_stride) and the utility "
                                "views. Refuses an existing non-empty FILE unless --force."),
    RPD_OPT_CALL0("--print", on_action, o,
                  .help = "print the DDL and the view definitions (default v3)"),
    RPD_OPT_CALL_OPTVAL("--info", on_action, o, .arg = "FILE",
                        .help = "schema version, metadata, row count of every table, GPUs, "
                                "threads, time span, augmentations (ext_* tables) and the "
                                "state of every utility view; read-only, .gz is fine"),
    RPD_OPT_CALL_OPTVAL("--views", on_action, o, .arg = "FILE",
                        .help = "reinstall the utility views that are missing or broken "
                                "(--force: all of them); views whose base tables are absent "
                                "(stackframe on v2) are left out and reported"),
    RPD_OPT_CALL_OPTVAL("--upgrade", on_action, o, .arg = "FILE",
                        .help = "convert a schema 2 trace to schema 3 in one transaction: "
                                "rocpd_api gets domain/category ('' as v2 has none), args "
                                "move to rocpd_ustring, rocpd_op loses the empty "
                                "completionSignal column, missing v3 tables are added, "
                                "schema_version=3, views reinstalled. Rows and view results "
                                "are preserved."),
    RPD_OPT_FILE("-o|--output", &o->out, .arg = "OUT",
                 .help = "with --views/--upgrade: write the result to OUT and leave FILE "
                         "untouched (OUT may end in .gz)"),
    RPD_OPT_CALL("--schema", on_schema, o, .arg = "2|3",
                 .help = "layout for --create/--print (default 3)"),
    RPD_OPT_CALL("--format", on_format, o, .arg = "F",
                 .help = "--info output: table (default), csv or json"),
    RPD_OPT_FLAG("--force", &o->force,
                 .help = "--create: over an existing non-empty FILE; --views: all views"),
    RPD_OPT_END(),
  };
  if (rpd_cli_init_opts(argc, argv, &help, table))
    return -1;
  char msg[512];
  int rc = 0;
  o->schema = 3;
  o->fmt = RPD_FMT_TABLE;
  if ((rc = rpd_cli_options(table, 0, &argc, argv)))
    return rc;
  for (int i = 0; i < argc && !rc; i++)
    if (set_file(o, argv[i], msg, sizeof msg))
      return rpd_usage_error("%s", msg);
  if (rc)
    return rc;
  if (!o->action)
    return rpd_usage_error("nothing to do: give --create, --print, --info, "
                           "--views or --upgrade");
  if (o->out && strcmp(o->action, "views") && strcmp(o->action, "upgrade"))
    return rpd_usage_error("-o only goes with --views or --upgrade");
  if (o->out && !*o->out)
    return rpd_usage_error("empty output file name");
  if (strcmp(o->action, "print") && !o->file)
    return rpd_usage_error("--%s needs a FILE", o->action);
  if (!strcmp(o->action, "print") && o->file)
    return rpd_usage_error("--print takes no FILE ('%s')", o->file);
  if (o->file && !*o->file)
    return rpd_usage_error("empty file name");
  return 0;
}

int main(int argc, char **argv)
{
  opts o = {0};
  int rc;

  if ((rc = parse_args(&o, argc, argv)) != 0)
    return rc < 0 ? rpd_cli_status() : rc;
  if (!strcmp(o.action, "create"))
    return do_create(&o);
  if (!strcmp(o.action, "print"))
    return do_print(&o);
  if (!strcmp(o.action, "info"))
    return schema_do_info(&o);
  if (!strcmp(o.action, "views"))
    return do_views(&o);
  return schema_do_upgrade(&o);
}
