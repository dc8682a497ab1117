/* rpd-subclass - expose the args of chosen api calls (or op descriptions) as
 * the columns of a subclass table. */
static const char usage[] =
"usage: rpd-subclass FILE [-o OUT] [--force] --name NAME --events A,B,...\n"
"                    [--base api|op] [--type COL=SQLTYPE ...]\n"
"\n"
"Create table rocpd_<NAME><base> with one row per api call named A, B, ...\n"
"(or per op of opType A, B, ... with --base op) and one column per key of\n"
"their args text `key = value | key = value` (the op's description for\n"
"ops); a call without a key gets ''.  The view <NAME><base> joins it to the\n"
"api (op) view.\n"
"\n"
"  --name NAME         letters, digits and '_'\n"
"  --events A,B,...    apiName (opType) values, comma separated\n"
"  --base api|op       default api\n"
"  --type COL=SQLTYPE  column type, a plain SQL type name such as integer\n"
"                      or varchar(18), no constraints (default\n"
"                      varchar(255)); repeatable\n"
"  -o OUT              write the result to OUT, leave FILE untouched\n"
"  --force             rebuild the table if it exists\n"
"\n"
"See docs/rpd-subclass.md.\n";

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "namelist.h"
#include "rpd.h"
#include "subclass.h"

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

/* Recognise one of our options at argv[i]: returns the number of entries
 * it takes (1 or 2) and its value in *val, or 0. */
static int our_option(int argc, char **argv, int i, const char **opt, const char **val)
{
  static const char *const names[] = {"--name", "--events", "--base", "--type"};
  for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
    int n = rpd_option_value(argc, argv, i, names[k], val);
    if (n) {
      *opt = names[k];
      return n;
    }
  }
  return 0;
}

/* Parse our options before the driver opens anything, so that bad values
 * are usage errors (exit 2) and the done tag is known.  Returns 0 or the
 * exit code. */
static int parse_options(opts *o, int argc, char **argv)
{
  const char *name = NULL, *opt, *val;

  o->sc.base = "api";
  for (int i = 1; i < argc; i++) {
    int n;
    if (strcmp(argv[i], "--") == 0)
      break;
    if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
      i++;
      continue;
    }
    if (!(n = our_option(argc, argv, i, &opt, &val)))
      continue;
    if (!val)
      return rpd_usage_error("option '%s' needs a value", opt);
    if (strcmp(opt, "--name") == 0) {
      if (!name_ok(val))
        return rpd_usage_error("bad --name '%s': use letters, digits and '_'", val);
      name = val;
    } else if (strcmp(opt, "--events") == 0) {
      rpd_namelist_split(val, &o->events, &o->nevents);
    } else if (strcmp(opt, "--base") == 0) {
      if (strcmp(val, "api") != 0 && strcmp(val, "op") != 0)
        return rpd_usage_error("bad --base '%s': use api or op", val);
      o->sc.base = strcmp(val, "api") == 0 ? "api" : "op";
    } else if (!add_type(o, val)) {
      return rpd_usage_error("bad --type '%s': use COL=SQLTYPE "
                             "(letters, digits, spaces, '_', '(', ')', ',')", val);
    }
    i += n - 1;
  }
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
static int skip_option(void *ctx, int argc, char **argv, int i)
{
  const char *opt, *val;
  (void)ctx;
  return our_option(argc, argv, i, &opt, &val);
}

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
  opts o = {0};
  int rc;

  if (rpd_cli_init(argc, argv, usage))
    return rpd_cli_status();
  rc = parse_options(&o, argc, argv);
  if (!rc) {
    rpd_augment a = {
      .usage = usage,
      .what = "the subclass table",
      .done_tag = o.done_tag,
      .option = skip_option,
      .drop = drop_subclass,
      .build = build_subclass,
      .ctx = &o,
      .summary = summary,
    };
    rc = rpd_augment_main(&a, argc, argv);
  }
  free_opts(&o);
  return rc;
}
