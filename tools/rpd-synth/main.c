/* rpd-synth - write a deterministic synthetic RPD trace (schema v2 or v3).
 *
 * Every table a real rpd_tracer capture of a PyTorch/vLLM job fills is
 * filled: threads driving GPUs, nested roctx ranges, autograd markers,
 * kernel launches, async copies, graph capture and launches, idle gaps,
 * sclk samples.  The same options always give the same file content.
 * What exactly is generated is documented in docs/rpd-synth.md.
 * main.c: the options and main; the rest of the folder is librpd-synth.a
 * (synth.h). */
#include "rpd.h"
#include "opt.h"
#include "synth.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const rpd_help help = {
  .usage = "usage: rpd-synth [OPTIONS] -o OUT.rpd",
  .about =
    "Write a deterministic synthetic RPD trace: threads driving GPUs, nested\n"
    "roctx ranges, PyTorch autograd markers, kernel launches, async copies,\n"
    "HIP graph capture and launches, idle gaps and sclk samples.",
  .quiet = "accepted; the summary line is printed anyway",
  .notes =
    "Prints one summary line (rows per table) on stdout.\n"
    "Example: rpd-synth --seed 7 --api 1000000 -o big.rpd\n",
};

/* ------------------------------------------------------------ main */

static int on_order(void *ctx, const char *name, const char *val, char *msg, size_t msgsz)
{
  synth *s = ctx;
  if (strcmp(val, "step") && strcmp(val, "end")) {
    snprintf(msg, msgsz, "option '%s' needs 'step' or 'end'", name);
    return 2;
  }
  s->order_end = !strcmp(val, "end");
  return 0;
}

static int parse_args(synth *s, int argc, char **argv, const char **out,
                      int *force)
{
  int no_autograd = 0;
  const rpd_opt opts[] = {
    RPD_OPT_STRING("-o|--output", out, .arg = "FILE",
                   .help = "the trace to write (written to a temp file, renamed at the end; "
                           "OUT.gz is written compressed)"),
    RPD_OPT_I64("--seed", &s->seed, 0, INT64_MAX / 2000000, NULL,
                .help = "random seed (default 1); same options = same content"),
    RPD_OPT_I64("--api", &s->api_want, 0, INT64_C(4000000000), NULL,
                .help = "exact number of rocpd_api rows (default 10000)"),
    RPD_OPT_INT("--gpus", &s->gpus, 1, 64, NULL,
                .help = "number of GPUs (default 2, at most 64)"),
    RPD_OPT_INT("--threads", &s->threads, 1, 4096, NULL,
                .help = "host threads; thread k drives GPU k % gpus (default: one per GPU; "
                        "at least one per GPU)"),
    RPD_OPT_INT("--schema", &s->schema, 2, 3, NULL, .arg = "2|3",
                .help = "table layout (default 3)"),
    RPD_OPT_INT("--graphs", &s->graphs, 0, 4096, NULL,
                .help = "HIP graphs captured, round-robin over threads (default: one per "
                        "thread; 0 = no graphs)"),
    RPD_OPT_FLAG("--stackframes", &s->stackframes,
                 .help = "fill rocpd_stackframe (schema 3): a host stack of 4-6 frames per "
                         "api call, as RPDT_STACKFRAMES=1 records"),
    RPD_OPT_CALL("--order", on_order, s, .arg = "step|end",
                 .help = "how api rows are stored: step (default) writes each thread's step "
                         "whole, rows in end order within it; end writes every row of every "
                         "thread in completion order (by end time), as rpd_tracer does"),
    RPD_OPT_INT("--layers", &s->layers, 1, MAXLAYERS, NULL,
                .help = "model steps are forward passes: a model.forward range around N "
                        "layer.I ranges (1..128; default: single layers)"),
    RPD_OPT_FLAG("--no-autograd", &no_autograd,
                 .help = "markers carry plain op names (\"aten::mm\") instead of autograd "
                         "args (\"aten::mm, seq = 3, op_id = 5, ...\")"),
    RPD_OPT_I64("--ranks", &s->ranks, 1, 100000, NULL,
                .help = "one rank of an N-rank job (with --rank R, default 0): every rank "
                        "has the same structure (same seed), pid 4242+1000*R, metadata "
                        "rank/world_size/hostname; the last rank is a planted straggler "
                        "(each collective kernel starts 200 us late) and on rank N/2 the "
                        "kernel attn_fwd runs 3x longer (the planted slow kernel)"),
    RPD_OPT_I64("--rank", &s->rank, 0, 99999, NULL, .arg = "R",
                .help = "which rank to write (0..N-1)"),
    RPD_OPT_I64("--clock-skew", &s->clock_skew, 0, INT64_C(1000000000000), NULL,
                .arg = "NS", .help = "shift rank R's clock by R*NS ns (tests clock alignment)"),
    RPD_OPT_FLAG("--force", force, .help = "overwrite an existing non-empty OUT"),
    RPD_OPT_END(),
  };
  int rc;
  if (rpd_cli_init_opts(argc, argv, &help, opts))
    return -1;
  s->seed = 1;
  s->api_want = 10000;
  s->gpus = 2;
  s->schema = 3;
  s->threads = s->graphs = -1;   /* not given: as many as GPUs / threads */
  if ((rc = rpd_cli_options(opts, 0, &argc, argv)))
    return rc;
  if (argc > 0)
    return rpd_usage_error("unknown argument '%s'", argv[0]);
  s->autograd = !no_autograd;
  if (s->stackframes && s->schema != 3)
    return rpd_usage_error("--stackframes needs --schema 3 (v2 has no rocpd_stackframe)");
  if (!*out)
    return rpd_usage_error("no output file (-o OUT.rpd)");
  if (!**out)
    return rpd_usage_error("empty output file name");
  if (s->rank >= s->ranks && (s->ranks || s->rank))
    return rpd_usage_error("--rank %" PRId64 ": need --ranks N with N > R",
                           s->rank);
  s->pid = PID + 1000 * s->rank;
  s->t0 = T0 + s->rank * s->clock_skew;
  if (s->threads < 0)
    s->threads = s->gpus;
  if (s->threads < s->gpus)
    return rpd_usage_error("--threads %d: need at least one thread per GPU (%d)",
                           s->threads, s->gpus);
  if (s->graphs < 0)
    s->graphs = s->threads;
  if (s->graphs > 8 * s->threads)
    return rpd_usage_error("--graphs %d: at most 8 per thread", s->graphs);
  return 0;
}

/* Refuse an existing non-empty OUT unless force (target: OUT with symlinks
 * followed, already known to be a regular file or absent). */
static int check_out(const char *out, const char *target, int force)
{
  struct stat sb;
  if (stat(target, &sb) != 0)
    return 0;
  if (sb.st_size > 0 && !force)
    return rpd_fail("'%s' exists and is not empty; use --force to overwrite", out);
  return 0;
}

int main(int argc, char **argv)
{
  static synth s;
  const char *out = NULL;
  char *target = NULL;
  int force = 0, rc;

  if ((rc = parse_args(&s, argc, argv, &out, &force)) != 0)
    return rc < 0 ? rpd_cli_status() : rc;
  if (rpd_output_check(out, NULL, &target) != RPD_OK)
    return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
  rc = check_out(out, target, force);
  free(target);
  if (rc)
    return rc;
  rc = synth_write_trace(&s, out, force);
  if (rc == 0) {
    printf("rpd-synth: wrote %s (schema v%d, seed %" PRId64 "): api %" PRId64
           ", op %" PRId64 ", api_ops %" PRId64 ", kernelapi %" PRId64
           ", copyapi %" PRId64 ", string %" PRId64 ", ustring %" PRId64
           ", monitor %" PRId64 "\n", out, s.schema, s.seed, s.n_api, s.n_op,
           s.n_link, s.n_kernel, s.n_copy, s.next_str - 1,
           s.schema == 3 ? s.next_ustr - 1 : 0, s.n_mon);
    if (s.stackframes)
      printf("rpd-synth: stackframe %" PRId64 "\n", s.n_frame);
    if (rpd_finish_stdout() != RPD_OK)
      rc = rpd_fail("%s", rpd_errmsg());
  }
  synth_strmap_free(&s.strings);
  rpd_buf_free(&s.indexes);
  free(s.thr);
  for (size_t i = 0; i < s.npend; i++) {
    free(s.pend[i]->ops);
    free(s.pend[i]);
  }
  free(s.pend);
  return rc ? 1 : 0;
}
