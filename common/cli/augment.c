/* augment.c - rpd_augment_main, the driver shared by every augmenter. */
#include "rpd.h"
#include "check.h"
#include "opt.h"
#include "progress.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *file, *out;
  int force;
} aug_args;

/* The driver's table: -o OUT, --force (its help naming a->what, written
 * into force_help) and the tool's own options. */
static void driver_table(const rpd_augment *a, aug_args *p, char *force_help, size_t n,
                         rpd_opt t[4])
{
  snprintf(force_help, n, "rebuild when the trace already has %s",
           a->what ? a->what : a->done_tag ? a->done_tag : "the result");
  const rpd_opt opts[4] = {
    RPD_OPT_FILE("-o|--output", &p->out, .arg = "OUT",
                 .help = "write the result to OUT (.gz compresses), not FILE; FILE may then "
                         "be a rocprofv3 database or a PyTorch profiler trace (imported)"),
    RPD_OPT_FLAG("--force", &p->force, .help = force_help),
    RPD_OPT_TABLE(a->opts),
    RPD_OPT_END(),
  };
  memcpy(t, opts, sizeof opts);
}

int rpd_augment_init(const rpd_augment *a, int argc, char **argv)
{
  aug_args p = { 0 };
  char force_help[160];
  rpd_opt opts[4];

  if (!a->help) return rpd_cli_init(argc, argv, a->usage);
  driver_table(a, &p, force_help, sizeof force_help, opts);
  return rpd_cli_init_opts(argc, argv, a->help, opts);
}

/* Answer --help / --version, then parse FILE, -o OUT / --output OUT /
 * -oOUT / --output=OUT, --force and the tool's options (its table
 * a->opts).  Returns 0, -1 when --help or --version was answered (exit
 * with rpd_cli_status()), or 2 after printing a usage error. */
static int parse_args(const rpd_augment *a, int argc, char **argv, aug_args *p)
{
  char force_help[160];
  rpd_opt opts[4];
  int rc;

  if (rpd_augment_init(a, argc, argv)) return -1;
  driver_table(a, p, force_help, sizeof force_help, opts);
  if ((rc = rpd_cli_options(opts, 0, &argc, argv))) return rc;
  return rpd_cli_one_file(argc, argv, &p->file, p->out);
}

/* Already done and no --force: say so; with -o still produce OUT. */
static int already_done(const rpd_augment *a, rpd *r, const aug_args *p)
{
  rpd_note("'%s' already has %s; nothing to do (use --force to rebuild)", p->file,
           a->what ? a->what : a->done_tag);
  if (rpd_close(r, p->out != NULL)) return rpd_fail("'%s': %s", p->file, rpd_errmsg());
  return 0;
}

int rpd_augment_main(const rpd_augment *a, int argc, char **argv)
{
  aug_args p = { 0 };
  rpd *r = NULL;
  char *done = NULL;
  int rc;

  if ((rc = parse_args(a, argc, argv, &p))) return rc < 0 ? rpd_cli_status() : rc;
  /* an augmenter is one thread on one connection: skip SQLite's mutexes
   * (~9% of a call-stack build); harmless if SQLite is already set up */
  sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
  for (int tries = 0;; tries++) {
    if (rpd_open_or_report(&r, p.file, p.out, RPD_WRITE | RPD_OFFER_OUT)) return 1;
    if (a->done_tag) {
      rc = rpd_meta_get(r, a->done_tag, &done);
      free(done);
      done = NULL;
      if (rc == RPD_OK && !p.force) return already_done(a, r, &p);
      if (rc != RPD_OK && rc != RPD_ENOTFOUND) goto fail;
    }
    /* timestamps of the wrong type or outside 0 .. 2^62 ns: one line
     * naming the table, the column and the number of bad rows */
    if (!a->checks_itself && (rc = rpd_check_trace(r))) goto fail;
    rc = rpd_begin(r);
    /* a concurrent rpd-trim renamed its compacted copy over the file while
     * we waited for the lock: start again on the new file */
    if (rc || !rpd_file_moved(r) || tries >= 5) break;
    rpd_rollback(r);
    rpd_close(r, 0);
    r = NULL;
  }
  if (!rc && p.force && a->drop) rc = a->drop(r, a->ctx);
  if (!rc) rc = a->build(r, a->ctx);
  rpd_progress_end();   /* the last phase of the build (common/trace/progress.h) */
  if (!rc && a->done_tag) {
    /* safety net: a build that forgot its tag would rebuild every run */
    rc = rpd_meta_get(r, a->done_tag, &done);
    free(done);
    if (rc == RPD_ENOTFOUND) rc = rpd_meta_set(r, a->done_tag, "True");
  }
  /* which rpdtools wrote the ext_* tables: "rpdtools_version::PROG" */
  if (!rc) rc = rpd_record_version(r);
  /* what the tool printed must have reached stdout before the commit: a
   * failed write (disk full, closed pipe) fails the run, file untouched */
  if (!rc) rc = rpd_finish_stdout();
  if (!rc) rc = rpd_commit(r);
  if (rc) goto fail;
  if ((rc = rpd_close(r, 1))) {
    r = NULL;
    goto fail;
  }
  /* the rule for stdout after a commit: the summary goes out now; if it
   * cannot be written, say the results are committed and exit 1 */
  if (a->summary && !rpd_quiet) a->summary(a->ctx);   /* -q drops the summary */
  return rpd_fail_committed(p.out ? p.out : p.file);

fail:;
  char msg[2048];
  snprintf(msg, sizeof msg, "%s", rpd_errmsg());
  if (r) {
    rpd_rollback(r);
    rpd_close(r, 0);
  }
  return rpd_fail("'%s': %s", p.file, msg);
}
