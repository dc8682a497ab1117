/* main.c - raptor --report: the TraceLens rocprofv3 performance report
 * (gpu_timeline, kernel_summary, categories, kernel_details, short kernels
 * and their histogram) computed from any RPD trace, imported or native,
 * with the rpd-analyze tables and, on a multi-rank trace, the cross-rank
 * tables.  The run: options, categories, open, collect, tables, outputs.
 * See docs/report.md and internal.h for the files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "health.h"
#include "opclass.h"
#include "steps.h"
#include "version.h"

#define KNAMES_FULL "the full names (each kernel its own row; docs/rpd-import.md)"

/* What the kernel names of the trace are, for the report's info and a note:
 * rpd-import records "truncated" (--truncated-names) or "truncated-only"
 * (a rocprofv3 CSV without full names) in rocpd_metadata.  Static text. */
static const char *kernel_names_note(rpd *r)
{
  char *v = NULL;
  const char *note = KNAMES_FULL;
  if (rpd_meta_get(r, "rpd-import::kernel_names", &v) == RPD_OK && v) {
    if (!strcmp(v, "truncated"))
      note = "rocprofv3's truncated names (rpd-import --truncated-names): kernels "
             "that share a short name are counted as one";
    else if (!strcmp(v, "truncated-only"))
      note = "rocprofv3's truncated names only (the CSV has no full names): kernels "
             "that share a short name are counted as one";
  }
  free(v);
  rpd_clearerr();
  return note;
}

/* Refuse the named outputs before the work: --xlsx F and the files of an
 * existing --csv-dir D must not be the trace, a device or a directory. */
static int check_outputs(const report *rep, const ropts *o)
{
  if (o->xlsx && rpd_output_check(o->xlsx, o->path, NULL))
    return rpd_seterr(RPD_EEXIST, "cannot write '%s': %s", o->xlsx, rpd_errmsg());
  if (o->html && rpd_output_check(o->html, o->path, NULL))
    return rpd_seterr(RPD_EEXIST, "cannot write '%s': %s", o->html, rpd_errmsg());
  return o->csv_dir ? report_check_csvs(rep, o->csv_dir, o->path) : RPD_OK;
}

/* The command line after argv[0] as one string (for the info sheet);
 * caller frees. */
static char *join_args(int argc, char **argv)
{
  rpd_buf b = {0};
  char *s;
  for (int i = 1; i < argc; i++)
    rpd_buf_printf(&b, "%s%s", i > 1 ? " " : "", argv[i]);
  s = rpd_xstrdup(b.s ? b.s : "");
  rpd_buf_free(&b);
  return s;
}

/* The one line for a trace without GPU work (of --gpu-id N). */
static void fail_no_work(rpd *r, const ropts *o)
{
  char *gpus = NULL;
  if (rpd_opclass_gpus(r, RPD_OPCLASS_GPU_WORK, &gpus) != RPD_OK)
    rpd_fail("'%s': %s", o->path, rpd_errmsg());
  else if (o->gpu >= 0 && *gpus)
    rpd_fail("'%s' has no kernels or copies on GPU %d (GPUs present: %s)", o->path,
             o->gpu, gpus);
  else
    rpd_fail("'%s' has no kernels or copies (GPU work)", o->path);
  free(gpus);
}

/* The trace-health banner (common/analysis/health.h): the non-zero checks as one
 * line into buf ("" when none); main prints it after the outputs. */
static int health_banner(rpd *r, char *buf, size_t n)
{
  rpd_health h = {0};
  int rc = rpd_health_run(r, &h);
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; !rc && i < h.n; i++)
    if (h.row[i].count && len < n)
      len += (size_t)snprintf(buf + len, n - len, "%s%s %lld", len ? ", " : "",
                              h.row[i].check, (long long)h.row[i].count);
  rpd_health_free(&h);
  return rc;
}

/* Every output the options ask for, stdout first. */
static int write_outputs(rpd *r, const report *rep, const ropts *o,
                         const char *const *info, int ninfo)
{
  int rc = check_outputs(rep, o);
  if (!rc && !o->quiet)
    rc = report_stdout(rep, o);
  if (!rc && o->csv_dir)
    rc = report_csvs(rep, o->csv_dir, o->path);
  if (!rc && o->xlsx)
    rc = report_xlsx(rep, o->xlsx, o->path, info, ninfo);
  if (!rc && o->html)
    rc = report_html(rep, info, ninfo, o->html, o->path);
  if (!rc && o->save)
    rc = report_save(r, rep, o);
  return rc;
}

/* Compute the report (see internal.h). */
int report_build(report_run *run)
{
  ropts *o = &run->o;
  int rc;
  memset(&run->d, 0, sizeof run->d);
  run->nranks = 1;
  run->health[0] = '\0';
  for (int i = 0; i < NT_ALL; i++)
    report_add(&run->rep);
  if (category_load_or_builtin(&run->c.r, &run->c.n, o->cat_json))
    return rpd_fail("%s", rpd_errmsg());
  run->c.comm = category_comm_index(run->c.r, run->c.n);
  if (rpd_open_or_report(&run->r, o->path, NULL, (o->save ? RPD_WRITE : RPD_READ) | RPD_CHECKED))
    return 1;
  /* the scans need no 64 MB page cache, and SQLite's sorts
   * (medians; ops in no order) spill to temp files, not memory; one read
   * transaction: every pass sees the same rocpd_op */
  rpd *r = run->r;
  if ((rc = rpd_profile(r, RPD_OPEN_SCAN)) || (rc = rpd_exec(r, "BEGIN")) ||
      (rc = report_find_steps(r, o, &run->steps)) ||
      (rc = report_collect(r, o, &run->c, &run->d)))
    return rpd_fail("'%s': %s", o->path, rpd_errmsg());
  if (!run->d.niv) {  /* asking for what is not there is an error */
    fail_no_work(r, o);
    return 1;
  }
  rc = report_core_tables(r, &run->d, o, run->rep.t);
  /* drawn as charts; on stdout only by --table NAME */
  run->rep.t[T_UTIL].flags |= RPD_TABLE_CHART_ONLY;
  run->rep.t[T_GAPS].flags |= RPD_TABLE_CHART_ONLY;
  if (!rc)
    report_step_tables(&run->steps, &run->rep);
  if (!rc)
    rc = health_banner(r, run->health, sizeof run->health);
  rpd_rollback(r);   /* end the read transaction */
  if (!rc)
    rc = report_analysis_tables(r, &run->rep);
  if (!rc)
    rc = report_rank_tables(r, &run->c, o, &run->rep, &run->nranks);
  if (!rc)
    report_idle_table(&run->d, &run->rep);
  if (!rc)
    rc = report_api_tables(r, &run->rep);
  if (!rc)
    rc = report_perf_tables(r, &run->rep);
  if (!rc)
    rc = report_coll_table(r, &run->rep);
  if (rc)
    return rpd_fail("'%s': %s", o->path, rpd_errmsg());
  return 0;
}

/* Close and free (see internal.h). */
int report_run_free(report_run *run, int commit)
{
  int ret = 0;
  if (run->r && rpd_close(run->r, commit) && commit)
    ret = rpd_fail("cannot write '%s': %s", run->o.path, rpd_errmsg());
  run->r = NULL;
  report_free(&run->rep);
  report_data_free(&run->d);
  rpd_steps_free(&run->steps);
  category_list_free(run->c.r, run->c.n);
  memset(&run->c, 0, sizeof run->c);
  return ret;
}

/* Entry point (see report.h): parse argv, open FILE read-only (read-write
 * with --save), compute the report and write it out.  Returns the exit code. */
int raptor_report_main(int argc, char **argv)
{
  report_run run;
  char *info_opts = NULL, gpu_s[32], thr_s[64], ranks_s[96];
  int rc, ret = 1;

  memset(&run, 0, sizeof run);
  if ((rc = report_parse_opts(argc, argv, &run.o)))
    return rc < 0 ? rpd_cli_status() : rc;
  const ropts *o = &run.o;
  if (report_build(&run))
    goto out;
  info_opts = join_args(argc, argv);
  const char *names_s = kernel_names_note(run.r);
  if (strcmp(names_s, KNAMES_FULL) && !o->quiet)
    fprintf(stderr, "%s: note: kernel names are %s\n", rpd_progname, names_s);
  snprintf(gpu_s, sizeof gpu_s, o->gpu >= 0 ? "GPU %d" : "all GPUs", o->gpu);
  snprintf(thr_s, sizeof thr_s, "%g us", o->threshold_us);
  if (run.nranks > 1)
    snprintf(ranks_s, sizeof ranks_s, "%d (cross-rank tables byrank_*)", run.nranks);
  else
    snprintf(ranks_s, sizeof ranks_s, "one rank (no cross-rank tables)");
  const report *rep = &run.rep;
  const char *info[] = {
    "trace", o->path,
    "ROI", o->steady ? "the steady steps (--steady-state: ops starting from the first"
                       " steady step to the end of the last)"
           : run.d.total_from_meta ? "the whole run (rocprofv3 init..fini)"
                                   : "the whole trace (first op start .. last op end)",
    "trace health", *run.health ? run.health : "no check found anything (rpd-health)",
    "GPUs", gpu_s,
    "ranks", ranks_s,
    "short-kernel threshold", thr_s,
    "kernel names", names_s,
    "rpd-analyze", report_find(rep, "analysis_idle") || report_find(rep, "analysis_launch")
                       ? "tables analysis_* (from the trace's ext_analysis_*)"
                       : "not run (rpd-analyze FILE adds the analysis_* tables)",
    "options", info_opts,
    "units", "time_ms: milliseconds, *_us: microseconds (3 decimals), "
             "percent: 0..100, counts: integers",
    "tool", "raptor --report (rpdtools " RPDTOOLS_VERSION ")",
  };
  int ninfo = (int)(sizeof info / sizeof *info / 2);
  if (o->only && !report_find(rep, o->only)) {   /* an optional table not there */
    rpd_fail("'%s' has no table %s (%s)", o->path, o->only,
             report_rank_name(o->only) ? "one rank: cross-rank tables need a merged trace"
             : report_steps_name(o->only) ? "no step markers and no period in the kernels"
             : report_api_name(o->only) ? "no HIP api calls"
             : !strcmp(o->only, "coll_analysis") ? "no collectives with their args (a Kineto import)"
             : report_perf_name(o->only) && rpd_table_exists(run.r, "ext_perf_op")
                 ? "rpd-perfmodel modelled no op of it: none in the trace, or no shapes"
             : report_perf_name(o->only) ? "run rpd-perfmodel on it first"
                                        : "run rpd-analyze on it first");
    goto out;
  }
  rc = write_outputs(run.r, rep, o, info, ninfo);
  if (rc) {
    rpd_fail("'%s': %s", o->path, rpd_errmsg());
    goto out;
  }
  if (*run.health && !o->quiet)
    rpd_note("trace health: %s (rpd-health '%s' for details)", run.health, o->path);
  ret = 0;

out:
  if (report_run_free(&run, ret == 0) && ret == 0)
    ret = 1;
  free(info_opts);
  return ret;
}
