/* links: rpd-import */
/* raptor.c - kernel sequences, categories, gaps, variability, outliers,
 * op/instance traces and ROI over an RPD trace (the C raptor): the command
 * line -- usage, the other modes, the engine's messages and progress line
 * (the engine itself prints nothing: raptor.h), the outputs (output.c).
 *
 * Memory model: one compact record per op in the ROI (48 bytes), the
 * distinct kernel names, one tuple + statistics record per distinct kernel
 * sequence key.  Statistics are exact two-pass sums over the op array; the
 * op trace is written op by op from that array.  See docs/raptor.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rpd.h"
#include "report.h"
#include "kstats.h"
#include "byrank.h"
#include "raptor.h"
#include "opt.h"
#include "readdirect.h"   /* rpd-import's rocprofv3 reader */

static const rpd_help help = {
  .usage = "usage: raptor FILE[.gz] [options]\n"
           "       raptor report FILE [options]      (= raptor FILE --report)\n"
           "       raptor by-rank FILE [options]     (= raptor FILE --by-rank)\n"
           "       raptor stats FILE --format STATS  (= raptor FILE --format STATS)",
  .about =
    "Summarize the GPU ops of an RPD trace: kernel sequences, categories, idle\n"
    "gaps, variability, outliers, op traces.  No table option = -k -c -v.\n"
    "Long options may be abbreviated to a unique prefix and one-letter flags\n"
    "clustered (-cv), as the reference raptor.py's.  GPU work = kernels\n"
    "(KernelExecution, graph-replayed Task) and copies (docs/schema.md \"Op\n"
    "classes\"); an op without a description is named by its opType\n"
    "(CopyDeviceToDevice, ...).",
  .quiet = "no progress line, no Timestamps block",
  .notes =
    "Modes, each with its own --help:\n"
    "  raptor report --help    the TraceLens-style rocprofv3 report (--report)\n"
    "  raptor by-rank --help   cross-rank analysis of a merged trace (--by-rank)\n"
    "  raptor stats --help     kernel-stats, api-stats, copy-stats, domain-stats\n"
    "                          tables (--format STATS)\n",
};

/* ------------------------------------------------------------ main */

/* The progress line of common/ for the engine's loops (raptor.h). */
static const raptor_progress cli_progress = {rpd_progress_rows, rpd_progress,
                                             rpd_progress_end};

/* Print the engine's message (each line of R->err) as the CLI's one-line
 * messages, "raptor: ...", with "Try 'raptor --help'." after a bad option;
 * returns ret. */
static int show_message(raptor *R, int ret)
{
  for (const char *p = R->err; p && *p;) {
    size_t n = strcspn(p, "\n");
    rpd_fail("%.*s", (int)n, p);
    p += n + (p[n] == '\n');
  }
  if (R->err && R->err_usage) fprintf(stderr, "Try '%s --help'.\n", rpd_progname);
  raptor_clear_err(R);
  return ret;
}

/* The trace check (rpd_check_trace's rule and messages), with rocpd_api's
 * half folded into the engine: rocpd_op is checked here by its own scan
 * (the engine can report an ROI problem before it reads the ops), rocpd_api
 * in setup_roi's time-zero scan (*fold), which comes before any message of
 * the engine's and stops it silently at a bad row; main then reports it.
 * When rocpd_op has bad rows, rocpd_api is checked at once, and its
 * message wins as in rpd_check_trace.  RPD_OK or the check's error (its
 * message in rpd_errmsg()). */
static int check_ops_first(raptor *R, fold_check *fold)
{
  memset(fold, 0, sizeof *fold);
  fold->op_done = 1;   /* checked here: the engine's op scans need not */
  if (rpd_check_table(R->r, "rocpd_op", 1, NULL) == RPD_OK) return RPD_OK;
  char *op_msg = rpd_xstrdup(rpd_errmsg());
  int rc = rpd_check_table(R->r, "rocpd_api", 0, NULL);
  if (rc == RPD_OK) rc = rpd_seterr(RPD_ERANGE, "%s", op_msg);
  free(op_msg);
  return rc;
}

/* raptor's modes: each a word (`raptor report FILE ...`) and a flag kept
 * as its alias (`raptor FILE --report ...`); the mode's own main parses
 * the rest. */
typedef int (*mode_main)(int, char **);
static const struct mode {
  const char *word;
  const char *flag;
  int flag_value;       /* the flag takes a value: --format STATS */
  mode_main main;
} modes[] = {
  {"report", "--report", 0, raptor_report_main},
  {"by-rank", "--by-rank", 0, raptor_byrank_main},
  {"stats", "--format", 1, raptor_kstats_main},
};
#define NMODES ((int)(sizeof modes / sizeof *modes))

/* The mode flag's callback: the first mode flag given picks the mode
 * (--format only with a STATS value: table, csv, json are classic's). */
typedef struct mode_pick {
  const struct mode *mode;
  const struct mode **chosen;
} mode_pick;

static int pick_mode(void *ctx, const char *name, const char *value, char *msg, size_t msgsz)
{
  const mode_pick *p = ctx;
  (void)name, (void)msg, (void)msgsz;
  if (!*p->chosen && (!value || raptor_kstats_format(value))) *p->chosen = p->mode;
  return 0;
}

/* The mode of a command line: its first word, else the first mode flag
 * before any "--" (a flag anywhere: `raptor FILE -q --report`); NULL =
 * classic raptor.  A word is taken out of argv. */
static const struct mode *find_mode(int *argc, char **argv)
{
  const struct mode *chosen = NULL;
  if (*argc > 1)
    for (int i = 0; i < NMODES; i++)
      if (!strcmp(argv[1], modes[i].word)) {
        memmove(argv + 1, argv + 2, (size_t)(*argc - 1) * sizeof *argv);  /* with argv[argc] */
        --*argc;
        return &modes[i];
      }
  mode_pick pick[NMODES];
  rpd_opt flags[NMODES + 1];
  for (int i = 0; i < NMODES; i++) {
    pick[i] = (mode_pick){&modes[i], &chosen};
    flags[i] = (rpd_opt)RPD_OPT_CALL(modes[i].flag, pick_mode, &pick[i]);
    if (!modes[i].flag_value) flags[i].kind = RPD_OPTK_CALL0;
  }
  flags[NMODES] = (rpd_opt)RPD_OPT_END();
  /* every other option is classic raptor's (or a mode's): left alone; a
   * bad mode flag (--report=x) is no mode, and classic raptor says so */
  rpd_opt_peek(flags, *argc, argv, NULL, 0);
  return chosen;
}

int main(int argc, char **argv)
{
  /* one binary, two names (as toybox): bin/rpd-budget is a link to raptor */
  const char *base = strrchr(argv[0], '/');
  /* a rocprofv3 database or a Kineto trace is read as it is, through
   * rpd-import's reader into memory, less what no mode reads (region
   * arguments, counters), with rpd-perfmodel's model of a Kineto trace's
   * ops (the report's per-category sheets) */
  static rpdi_direct direct = { .lean = RPDI_LEAN, .model = 1 };
  /* each connection is used by one thread at a time (the engine's, and
   * load.c's helper thread on its own): no SQLite mutex per call (9% of
   * the report's CPU); before any other SQLite call */
  sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  rpd_set_import_reader(rpdi_direct_read, (void *)&direct);
  /* the report (and rpd-budget, which computes it) reads a Kineto trace's
   * python_function calls only through the trace's span */
  if (!strcmp(base ? base + 1 : argv[0], "rpd-budget")) {
    direct.lean = RPDI_LEAN_REPORT;
    return raptor_budget_main(argc, argv);
  }
  const struct mode *mode = find_mode(&argc, argv);
  if (mode && mode->main == raptor_report_main) direct.lean = RPDI_LEAN_REPORT;
  if (mode) return mode->main(argc, argv);
  /* --help and --list-options from the table raptor_parse_args parses
   * (built on a scratch run state: it only stores into it) */
  raptor scratch;
  rpd_opt_ints scratch_gaps = {0};
  raptor_init(&scratch);
  rpd_opt *opts = raptor_opt_table(&scratch, &scratch_gaps);
  int done = rpd_cli_init_opts(argc, argv, &help, opts);
  raptor_opt_table_free(opts);
  rpd_opt_ints_free(&scratch_gaps);
  raptor_free(&scratch);
  if (done) return rpd_cli_status();
  raptor R;
  raptor_init(&R);
  fold_check fold;
  int saved = 0;
  R.progress = &cli_progress;
  int ret = raptor_parse_args(&R, argc, argv);
  if (ret) goto done;
  make_gap_labels(&R);
  if (!R.opt.op_trace && !R.opt.kernelseq && !R.opt.categorize && !R.opt.have_instance &&
      !R.opt.write_xls && !R.opt.variability && !R.opt.gpu_summary) {
    if (R.opt.fmt == RPD_FMT_TABLE)
      printf("info: setting --kernelseq --categorize --variability\n");
    R.opt.kernelseq = R.opt.categorize = R.opt.variability = 1;
  }
  {
    const char *names[8];
    int nt;
    if (R.opt.fmt == RPD_FMT_CSV && !R.opt.csv_dir && stdout_tables(&R, names, &nt) > 1) {
      ret = rpd_usage_error("--format csv writes one table per stream and %d are selected"
                            " (%s, %s%s): select one, or write one file per table with"
                            " --csv-dir DIR", nt, names[0], names[1], nt > 2 ? ", ..." : "");
      goto done;
    }
  }
  if ((ret = categories_load(&R))) goto done;
  if (rpd_open_or_report(&R.r, R.opt.path, NULL, R.opt.save ? RPD_WRITE : RPD_READ) != RPD_OK) {
    ret = 1;
    goto done;
  }
  /* the work is sequential scans: a small page cache keeps the RSS down,
   * set before the trace check fills it; --save keeps the library's 64 MB
   * for its inserts */
  if (rpd_profile(R.r, RPD_OPEN_SCAN) != RPD_OK || check_ops_first(&R, &fold) != RPD_OK ||
      (R.opt.save && rpd_profile(R.r, RPD_OPEN_DEFAULT) != RPD_OK)) {
    ret = rpd_fail("cannot read '%s': %s", R.opt.path, rpd_errmsg());
    goto done;
  }
  if ((ret = check_outputs(&R))) goto done;
  R.fold = &fold;
  ret = show_message(&R, setup_roi(&R));
  R.fold = NULL;
  if (fold.api_done && rpd_check_rows_result(&fold.api, "rocpd_api") != RPD_OK) {
    ret = rpd_fail("cannot read '%s': %s", R.opt.path, rpd_errmsg());   /* the engine stopped silently */
    goto done;
  }
  if (ret) goto done;
  if (R.opt.have_instance && !instance_row(&R)) {  /* refuse before saving */
    ret = 1;
    goto done;
  }
  if (R.opt.save) {
    if (save_results(&R) == RPD_OK) {
      saved = 1;
    } else {
      ret = rpd_fail("cannot save results into '%s': %s", R.opt.path, rpd_errmsg());
      goto done;
    }
  }
  ret = R.opt.csv_dir ? write_csv_dir(&R) : print_all(&R);
  if (!ret && R.opt.write_xls) ret = write_xls(&R);
  if (!ret && saved) ret = rpd_fail_committed(R.opt.path);   /* stdout rule */
done:
  show_message(&R, ret);
  if (R.r) {
    if (rpd_close(R.r, saved) != RPD_OK && saved && !ret)
      ret = rpd_fail("cannot write '%s': %s", R.opt.path, rpd_errmsg());
  }
  raptor_free(&R);
  return ret;
}
