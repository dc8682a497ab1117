/* rpd-metadata.c - list, read and change the rocpd_metadata rows of a trace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpd.h"
#include "opt.h"

static const rpd_help help = {
  .usage = "usage: rpd-metadata FILE [--list] [--format table|csv|json]\n"
           "       rpd-metadata FILE --get TAG\n"
           "       rpd-metadata FILE --set TAG VALUE [-o OUT]\n"
           "       rpd-metadata FILE --clear TAG [-o OUT]",
  .about = "Show or change the rocpd_metadata (tag, value) rows of an RPD trace.",
  .notes =
    "FILE may be gzip-compressed (.gz); --set/--clear then rewrite it compressed.\n"
    "Changes are made in one transaction: interrupted, the file is as before.\n"
    "Exit status: 0 ok, 1 failure (or --get of a missing tag), 2 usage.\n",
};

enum { OP_LIST, OP_GET, OP_SET, OP_CLEAR };

typedef struct opts {
  const char *file, *out, *tag, *value, *format;
  int op, nops;
} opts;

/* --list, --get TAG, --clear TAG, --set TAG VALUE: the action (one only). */
static int on_action(void *ctx, const char *name, const char *tag, char *msg, size_t msgsz)
{
  opts *o = ctx;
  (void)msg, (void)msgsz;
  o->op = name[2] == 'l' ? OP_LIST : name[2] == 's' ? OP_SET : name[2] == 'g' ? OP_GET
                                                                             : OP_CLEAR;
  o->nops++;
  if (o->op != OP_LIST) o->tag = tag;
  return 0;
}

/* Parse argv into o; returns 0 or the usage exit code (message printed). */
static int parse_args(int argc, char **argv, opts *o)
{
  const char *pair[2] = { NULL, NULL };
  const rpd_opt table[] = {
    RPD_OPT_CALL0("--list", on_action, o, .help = "every row, sorted by tag (the default)"),
    RPD_OPT_STRING("--format", &o->format, .need = "an argument", .arg = "F",
                   .help = "output of --list: table (default), csv or json"),
    RPD_OPT_CALL("--get", on_action, o, .need = "an argument", .arg = "TAG",
                 .help = "print the value of TAG; exit 1 if the trace has no TAG"),
    RPD_OPT_PAIR("--set", pair, on_action, o, "TAG and VALUE", .arg = "TAG VALUE",
                 .help = "replace every TAG row by one row (TAG, VALUE)"),
    RPD_OPT_CALL("--clear", on_action, o, .need = "an argument", .arg = "TAG",
                 .help = "delete every TAG row"),
    RPD_OPT_STRING("-o", &o->out, .need = "an argument", .arg = "OUT",
                   .help = "write the changed trace to OUT and leave FILE as it is (OUT "
                           "ending in .gz is compressed)"),
    RPD_OPT_END(),
  };
  int rc;

  memset(o, 0, sizeof *o);
  if (rpd_cli_init_opts(argc, argv, &help, table)) return -1;
  if ((rc = rpd_cli_options(table, 0, &argc, argv))) return rc;
  if (o->op == OP_SET) o->value = pair[1];
  if (argc > 1) return rpd_usage_error("unexpected argument '%s'", argv[1]);
  o->file = argc ? argv[0] : NULL;
  if (!o->file)
    return rpd_usage_error("no trace file given");
  if (o->nops > 1)
    return rpd_usage_error("give only one of --list, --get, --set, --clear");
  if (o->out && o->op != OP_SET && o->op != OP_CLEAR)
    return rpd_usage_error("-o is only for --set and --clear");
  if (o->format && o->op != OP_LIST)
    return rpd_usage_error("--format is only for --list");
  if (o->tag && !*o->tag)
    return rpd_usage_error("empty TAG");
  if (o->out && !*o->out)
    return rpd_usage_error("empty output file name");
  return 0;
}

/* Print every (tag, value) row in fmt, sorted by tag like the reference
 * (rows of one tag in insertion order). */
static int list(rpd *r, const char *format)
{
  rpd_fmt fmt = RPD_FMT_TABLE;
  sqlite3_stmt *st = NULL;
  int rc;

  if (format && rpd_fmt_parse(format, &fmt))
    return rpd_usage_error("%s", rpd_errmsg());
  if (!rpd_table_exists(r, "rocpd_metadata")) {
    /* no table: an empty list with the usual columns */
    const char *cols[] = {"tag", "value"};
    rc = rpd_out_end(rpd_out_new(stdout, fmt, 2, cols));
  } else {
    rc = rpd_prepare(r, "SELECT tag, value FROM rocpd_metadata ORDER BY tag, id", &st);
    if (!rc)
      rc = rpd_out_stmt(r, st, stdout, fmt);
    sqlite3_finalize(st);
  }
  if (!rc)
    rc = rpd_finish_stdout();
  if (rc)
    return rpd_fail("'%s': %s", rpd_path(r), rpd_errmsg());
  return 0;
}

/* Print the value of tag; exit 1 if absent. */
static int get(rpd *r, const char *tag)
{
  char *value = NULL;
  int rc = rpd_meta_get(r, tag, &value);

  if (rc == RPD_ENOTFOUND)
    return rpd_fail("'%s' has no metadata tag '%s'", rpd_path(r), tag);
  if (rc)
    return rpd_fail("%s: %s", rpd_path(r), rpd_errmsg());
  puts(value);
  free(value);
  if (rpd_finish_stdout())
    return rpd_fail("%s", rpd_errmsg());
  return 0;
}

/* Count rows of tag, and whether one of them has exactly value (if given). */
static int count_tag(rpd *r, const char *tag, const char *value,
                     int64_t *n, int *same)
{
  sqlite3_stmt *st = NULL;
  int rc, s;

  *n = 0;
  *same = 0;
  if (!rpd_table_exists(r, "rocpd_metadata"))
    return RPD_OK;
  rc = rpd_prepare(r, "SELECT count(*), coalesce(sum(value = ?2), 0) "
                      "FROM rocpd_metadata WHERE tag = ?1", &st);
  if (!rc) {
    sqlite3_bind_text(st, 1, tag, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, value ? value : "", -1, SQLITE_STATIC);
    if ((s = rpd_step(r, st)) == SQLITE_ROW) {
      *n = sqlite3_column_int64(st, 0);
      *same = value && sqlite3_column_int64(st, 1) > 0;
    } else if (s < 0)
      rc = -s;
  }
  sqlite3_finalize(st);
  return rc;
}

/* --set / --clear: one transaction, then rpd_close commits the file. */
static int change(const opts *o)
{
  rpd *r = NULL;
  int rc, same = 0;
  int64_t n = 0;

  if (rpd_open_or_report(&r, o->file, o->out, RPD_WRITE))
    return 1;
  rc = count_tag(r, o->tag, o->value, &n, &same);
  if (!rc && !o->out && o->op == OP_SET && n == 1 && same) {
    rpd_close(r, 0);  /* nothing to change: leave the file untouched */
    return 0;
  }
  if (!rc && !o->out && o->op == OP_CLEAR && n == 0) {
    rpd_close(r, 0);
    rpd_note("'%s' has no metadata tag '%s'; nothing to clear", o->file, o->tag);
    return 0;
  }
  if (!rc)
    rc = rpd_begin(r);
  if (!rc)
    rc = o->op == OP_SET ? rpd_meta_set(r, o->tag, o->value)
                         : rpd_meta_clear(r, o->tag);
  if (!rc)
    rc = rpd_commit(r);
  else
    rpd_rollback(r);
  if (rc) {
    rpd_fail("cannot write '%s': %s", o->out ? o->out : o->file, rpd_errmsg());
    rpd_close(r, 0);
    return 1;
  }
  if ((rc = rpd_close(r, 1)))
    return rpd_fail("cannot write '%s': %s", o->out ? o->out : o->file,
                    rpd_errmsg());
  return rpd_fail_committed(o->out ? o->out : o->file);
}

int main(int argc, char **argv)
{
  opts o;
  rpd *r = NULL;
  int rc;

  if ((rc = parse_args(argc, argv, &o)))
    return rc < 0 ? rpd_cli_status() : rc;
  if (o.op == OP_SET || o.op == OP_CLEAR)
    return change(&o);
  if (o.format) {
    rpd_fmt f;
    if (rpd_fmt_parse(o.format, &f))
      return rpd_usage_error("%s", rpd_errmsg());
  }
  if (rpd_open_or_report(&r, o.file, NULL, RPD_READ))
    return 1;
  rc = o.op == OP_GET ? get(r, o.tag) : list(r, o.format);
  rpd_close(r, 0);
  return rc;
}
