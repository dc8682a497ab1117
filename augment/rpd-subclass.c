/* links: rpd-import */
/* rpd-subclass - expose the args of chosen api calls (or op descriptions) as
 * the columns of a subclass table. */
#include "opt.h"

static const rpd_help help = {
  .usage = "usage: rpd-subclass FILE [-o OUT] [--force] --name NAME --events A,B,...\n"
           "                    [--base api|op] [--type COL=SQLTYPE ...]",
  .about =
    "Create table rocpd_<NAME><base> with one row per api call named A, B, ...\n"
    "(or per op of opType A, B, ... with --base op) and one column per key of\n"
    "their args text `key = value | key = value` (the op's description for\n"
    "ops); a call without a key gets ''.  The view <NAME><base> joins it to the\n"
    "api (op) view.",
  .notes = "See docs/rpd-subclass.md.\n",
};

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "namelist.h"
#include "rpd.h"
#include "opt.h"
#include "subclass.h"
#include "readdirect.h"  /* -o OUT from a rocprofv3 database or Kineto trace */

typedef struct opts {
  rpd_subclass sc;
  char **events;      /* owned strings */
  size_t nevents;
  char **types;       /* col, type pairs, NULL-terminated; owned */
  size_t ntypes;
  char *done_tag;
  int64_t nrows;      /* rows written, for the summary */
} opts;

static int name_ok(const char *s)
{
  if (!*s)
    return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_')
      return 0;
  return 1;
}

static int add_type(opts *o, const char *spec)
{
  const char *eq = strchr(spec, '=');
  if (!eq || eq == spec || !rpd_subclass_type_ok(eq + 1))
    return 0;
  o->types = rpd_xrealloc(o->types, (2 * o->ntypes + 3) * sizeof *o->types);
  o->types[2 * o->ntypes] = rpd_xasprintf("%.*s", (int)(eq - spec), spec);
  o->types[2 * o->ntypes + 1] = rpd_xstrdup(eq + 1);
  o->ntypes++;
  o->types[2 * o->ntypes] = NULL;
  return 1;
}

/* --name, --events, --base, --type: checked as they come. */
static int on_name(void *vo, const char *opt, const char *val, char *msg, size_t msgsz)
{
  opts *o = vo;
  (void)opt;
  if (!name_ok(val)) {
    snprintf(msg, msgsz, "bad --name '%s': use letters, digits and '_'", val);
    return 2;
  }
  o->sc.name = val;
  return 0;
}

static int on_events(void *vo, const char *opt, const char *val, char *msg, size_t msgsz)
{
  opts *o = vo;
  (void)opt, (void)msg, (void)msgsz;
  rpd_namelist_split(val, &o->events, &o->nevents);
  return 0;
}

static int on_base(void *vo, const char *opt, const char *val, char *msg, size_t msgsz)
{
  opts *o = vo;
  (void)opt;
  if (strcmp(val, "api") != 0 && strcmp(val, "op") != 0) {
    snprintf(msg, msgsz, "bad --base '%s': use api or op", val);
    return 2;
  }
  o->sc.base = strcmp(val, "api") == 0 ? "api" : "op";
  return 0;
}

static int on_type(void *vo, const char *opt, const char *val, char *msg, size_t msgsz)
{
  (void)opt;
  if (add_type(vo, val)) return 0;
  snprintf(msg, msgsz, "bad --type '%s': use COL=SQLTYPE "
           "(letters, digits, spaces, '_', '(', ')', ',')", val);
  return 2;
}

/* Parse our options before the driver opens anything, so that bad values
 * are usage errors (exit 2) and the done tag is known.  Returns 0 or the
 * exit code. */
static int parse_options(opts *o, int argc, char **argv)
{
  const char *skip, *name;
  const rpd_opt table[] = {
    RPD_OPT_CALL("--name", on_name, o),
    RPD_OPT_CALL("--events", on_events, o),
    RPD_OPT_CALL("--base", on_base, o),
    RPD_OPT_CALL("--type", on_type, o),
    RPD_OPT_STRING("-o|--output", &skip),
    RPD_OPT_END(),
  };
  char msg[512];

  o->sc.base = "api";
  if (rpd_opt_peek(table, argc, argv, msg, sizeof msg))
    return rpd_usage_error("%s", msg);
  name = o->sc.name;
  if (!name)
    return rpd_usage_error("--name is required");
  if (!o->nevents)
    return rpd_usage_error("--events needs at least one name");
  o->sc.name = name;
  o->sc.events = (const char *const *)o->events;
  o->sc.nevents = o->nevents;
  o->sc.types = (const char *const *)o->types;
  o->done_tag = rpd_xasprintf("Subclass::rocpd_%s%s", name, o->sc.base);
  return 0;
}

/* Driver hook: our options were parsed already; just skip them. */
/* --force: drop only what rpd-subclass made (its done tag is set), never a
 * table of the trace itself such as rocpd_copyapi. */
static int drop_subclass(rpd *r, void *ctx)
{
  opts *o = ctx;
  char *v = NULL;
  int rc = rpd_meta_get(r, o->done_tag, &v);
  free(v);
  if (rc == RPD_ENOTFOUND)
    return RPD_OK;   /* nothing of ours; build reports an existing table */
  return rc ? rc : rpd_subclass_drop(r, &o->sc);
}

static int build_subclass(rpd *r, void *ctx)
{
  opts *o = ctx;
  rpd_progress_sql(r, "events", strcmp(o->sc.base, "op") == 0 ? "rocpd_op" : "rocpd_api");
  int rc = rpd_subclass_build(r, &o->sc, &o->nrows);
  if (rc == RPD_EEXIST) {
    char *why = rpd_xstrdup(rpd_errmsg());
    rpd_seterr(rc, "%s; use --force to rebuild it", why);
    free(why);
  }
  return rc;
}

static void summary(void *ctx)
{
  opts *o = ctx;
  char *table = rpd_subclass_table(&o->sc);

  printf("%s: %s: %lld rows\n", rpd_progname, table, (long long)o->nrows);
  free(table);
}

static void free_opts(opts *o)
{
  rpd_namelist_free(o->events, o->nevents);
  rpd_namelist_free(o->types, 2 * o->ntypes);
  free(o->done_tag);
}

int main(int argc, char **argv)
{
  rpd_set_import_reader(rpdi_direct_read, NULL);
  opts o = {0};
  int rc;

  const char *skip;
  /* read by parse_options; the driver only steps over them */
  const rpd_opt read_before[] = {
    RPD_OPT_STRING("--name", &skip, .arg = "NAME", .help = "letters, digits and '_'"),
    RPD_OPT_STRING("--events", &skip, .arg = "A,B,...",
                   .help = "apiName (opType) values, comma separated"),
    RPD_OPT_STRING("--base", &skip, .arg = "api|op", .help = "default api"),
    RPD_OPT_STRING("--type", &skip, .arg = "COL=SQLTYPE",
                   .help = "column type, a plain SQL type name such as integer or "
                           "varchar(18), no constraints (default varchar(255)); repeatable"),
    RPD_OPT_END(),
  };
  rpd_augment a = {
    .help = &help,
    .what = "the subclass table",
    .opts = read_before,
    .drop = drop_subclass,
    .build = build_subclass,
    .ctx = &o,
    .summary = summary,
  };
  if (rpd_augment_init(&a, argc, argv))
    return rpd_cli_status();
  rc = parse_options(&o, argc, argv);
  if (!rc) {
    a.done_tag = o.done_tag;
    rc = rpd_augment_main(&a, argc, argv);
  }
  free_opts(&o);
  return rc;
}
