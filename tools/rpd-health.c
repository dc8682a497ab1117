/* links: rpd-import */
/* rpd-health - what in a trace cannot be trusted, before any number is
 * read from it: one row per check (common/analysis/health.h).  Read-only.
 * See docs/rpd-health.md. */
#include "opt.h"

static const rpd_help help = {
  .usage = "usage: rpd-health TRACE [--format table|csv|json] [--strict] [-q]",
  .about =
    "Check what in TRACE cannot be trusted and print one row per check:\n"
    "check, count (offending rows; 0 = fine), example (the first case).\n"
    "  bad_timestamp       start/end not integers, out of range, end < start\n"
    "  queue_overlap       ops overlapping on one gpuId+queueId (in-order queue)\n"
    "  op_before_launch    an op starting before the api call linked to it\n"
    "  dangling_link       rocpd_api_ops rows whose api or op row is missing\n"
    "  outside_span        ops more than 1 s outside the api calls' span\n"
    "  op_without_launch   kernels/copies no api call is linked to\n"
    "  launch_without_op   kernel launch calls with no op linked\n"
    "  zero_length_kernel  kernels with end = start\n"
    "  unnamed_kernel      kernels with an empty or missing name\n"
    "  duplicate_op        ops recorded twice\n"
    "  rank_clock_skew     ranks of a merged trace starting > 1 s apart",
  .notes =
    "TRACE (.rpd or .rpd.gz) is only read.  Exit status: 0 ok (also with\n"
    "findings, unless --strict), 1 failure or --strict findings, 2 usage.\n",
};

#include <stdio.h>
#include <string.h>

#include "health.h"
#include "rpd.h"
#include "readdirect.h"   /* rpd-import's rocprofv3 reader */

typedef struct opts {
  const char *path;
  rpd_fmt fmt;
  int strict;
} opts;

static int on_format(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  opts *o = ctx;
  (void)name;
  if (rpd_fmt_parse(v, &o->fmt) == RPD_OK)
    return 0;
  snprintf(msg, msgsz, "%s", rpd_errmsg());
  return 2;
}

/* Parse argv into o; 0, -1 after --help/--version, or the usage exit code
 * (message printed). */
static int parse_args(int argc, char **argv, opts *o)
{
  const rpd_opt opts[] = {
    RPD_OPT_CALL("--format", on_format, o, .arg = "F", .help = "table (default), csv or json"),
    RPD_OPT_FLAG("--strict", &o->strict, .help = "exit 1 when any count is non-zero"),
    RPD_OPT_END(),
  };
  if (rpd_cli_init_opts(argc, argv, &help, opts))
    return -1;
  int rc = rpd_cli_options(opts, 0, &argc, argv);
  if (rc)
    return rc;
  if (argc > 1)
    return rpd_usage_error("one TRACE only ('%s' and '%s')", argv[0], argv[1]);
  o->path = argc ? argv[0] : NULL;
  if (!o->path)
    return rpd_usage_error("need a TRACE");
  return 0;
}

/* The result through the common writer; in a table, a line per non-zero
 * check saying what it means.  RPD_OK or RPD_EIO. */
static int print_health(const rpd_health *h, rpd_fmt fmt)
{
  static const char *const cols[] = { "check", "count", "example" };
  rpd_out *o = rpd_out_new(stdout, fmt, 3, cols);
  for (int i = 0; i < h->n; i++) {
    rpd_out_str(o, h->row[i].check);
    rpd_out_int(o, h->row[i].count);
    rpd_out_str(o, h->row[i].example);
    rpd_out_endrow(o);
  }
  int rc = rpd_out_end(o);
  if (!rc && fmt == RPD_FMT_TABLE) {
    int bad = rpd_health_failed(h);
    printf(bad ? "\n%d check%s found something:\n" : "\nall checks passed\n", bad,
           bad == 1 ? "" : "s");
    for (int i = 0; i < h->n; i++)
      if (h->row[i].count)
        printf("  %s: %s\n", h->row[i].check, h->row[i].meaning);
  }
  return rc;
}

int main(int argc, char **argv)
{
  opts o = { .fmt = RPD_FMT_TABLE };
  /* a rocprofv3 database or Kineto trace is checked as it is (raptor's
   * health banner names this tool for the details): every row rpd-import
   * writes */
  static const rpdi_direct direct = { .lean = 0 };
  rpd_set_import_reader(rpdi_direct_read, (void *)&direct);
  int urc = parse_args(argc, argv, &o);
  if (urc)
    return urc < 0 ? rpd_cli_status() : urc;
  rpd *r = NULL;
  if (rpd_open_or_report(&r, o.path, NULL, RPD_READ) != RPD_OK)
    return 1;
  rpd_health h = {0};
  int rc = rpd_health_run(r, &h);
  rpd_close(r, 0);
  if (rc)
    return rpd_fail("cannot check '%s': %s", o.path, rpd_errmsg());
  rc = print_health(&h, o.fmt);
  int bad = rpd_health_failed(&h);
  rpd_health_free(&h);
  if (rc || fflush(stdout) || ferror(stdout))
    return rpd_fail("cannot write to stdout");
  return o.strict && bad ? 1 : 0;
}
