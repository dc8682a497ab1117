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
#include "opclass.h"
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

/* Entry point (see report.h): parse argv, open FILE read-only (read-write
 * with --save), compute the report and write it out.  Returns the exit code. */
int raptor_report_main(int argc, char **argv)
{
  ropts o;
  cats c = {0};
  report_data d;
  report rep = {0};
  char *info_opts = NULL, gpu_s[32], thr_s[64], ranks_s[96];
  rpd *r = NULL;
  int rc, ret = 1, nranks = 1;

  if (rpd_cli_init(argc, argv, raptor_report_usage))
    return rpd_cli_status();
  if ((rc = report_parse_opts(argc, argv, &o)))
    return rc;
  memset(&d, 0, sizeof d);
  for (int i = 0; i < NT_ALL; i++)
    report_add(&rep);
  if (category_load_or_builtin(&c.r, &c.n, o.cat_json)) {
    rpd_fail("%s", rpd_errmsg());
    goto out;
  }
  c.comm = category_comm_index(c.r, c.n);
  if (rpd_open_or_report(&r, o.path, NULL, (o.save ? RPD_WRITE : RPD_READ) | RPD_CHECKED))
    goto out;
  /* issue 19: the scans need no 64 MB page cache, and SQLite's sorts
   * (medians; ops in no order) spill to temp files, not memory; one read
   * transaction: every pass sees the same rocpd_op */
  if ((rc = rpd_exec(r, "PRAGMA cache_size = -4096")) ||
      (rc = rpd_exec(r, "PRAGMA temp_store = FILE")) || (rc = rpd_exec(r, "BEGIN")) ||
      (rc = report_collect(r, &o, &c, &d))) {
    rpd_fail("'%s': %s", o.path, rpd_errmsg());
    goto out;
  }
  if (!d.niv) {  /* asking for what is not there is an error */
    fail_no_work(r, &o);
    goto out;
  }
  rc = report_core_tables(r, &d, &o, rep.t);
  rpd_rollback(r);   /* end the read transaction */
  if (!rc)
    rc = report_analysis_tables(r, &rep);
  if (!rc)
    rc = report_rank_tables(r, &c, &o, &rep, &nranks);
  info_opts = join_args(argc, argv);
  const char *names_s = kernel_names_note(r);
  if (strcmp(names_s, KNAMES_FULL) && !o.quiet)
    fprintf(stderr, "%s: note: kernel names are %s\n", rpd_progname, names_s);
  snprintf(gpu_s, sizeof gpu_s, o.gpu >= 0 ? "GPU %d" : "all GPUs", o.gpu);
  snprintf(thr_s, sizeof thr_s, "%g us", o.threshold_us);
  if (nranks > 1)
    snprintf(ranks_s, sizeof ranks_s, "%d (cross-rank tables byrank_*)", nranks);
  else
    snprintf(ranks_s, sizeof ranks_s, "one rank (no cross-rank tables)");
  const char *info[] = {
    "trace", o.path,
    "ROI", d.total_from_meta ? "the whole run (rocprofv3 init..fini)"
                             : "the whole trace (first op start .. last op end)",
    "GPUs", gpu_s,
    "ranks", ranks_s,
    "short-kernel threshold", thr_s,
    "kernel names", names_s,
    "rpd-analyze", report_find(&rep, "analysis_idle") || report_find(&rep, "analysis_launch")
                       ? "tables analysis_* (from the trace's ext_analysis_*)"
                       : "not run (rpd-analyze FILE adds the analysis_* tables)",
    "options", info_opts,
    "units", "time_ms: milliseconds, *_us: microseconds (3 decimals), "
             "percent: 0..100, counts: integers",
    "tool", "raptor --report (rpdtools " RPDTOOLS_VERSION ")",
  };
  int ninfo = (int)(sizeof info / sizeof *info / 2);
  if (!rc && o.only && !report_find(&rep, o.only)) {   /* an optional table not there */
    rpd_fail("'%s' has no table %s (%s)", o.path, o.only,
             report_rank_name(o.only) ? "one rank: cross-rank tables need a merged trace"
                                      : "run rpd-analyze on it first");
    goto out;
  }
  if (!rc)
    rc = write_outputs(r, &rep, &o, info, ninfo);
  if (rc) {
    rpd_fail("'%s': %s", o.path, rpd_errmsg());
    goto out;
  }
  ret = 0;

out:
  if (r && rpd_close(r, ret == 0) && ret == 0)
    ret = rpd_fail("cannot write '%s': %s", o.path, rpd_errmsg());
  report_free(&rep);
  free(info_opts);
  report_data_free(&d);
  category_list_free(c.r, c.n);
  return ret;
}
