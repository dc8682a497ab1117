/* links: rpd-import */
/* rpd-perfmodel - FLOPs, bytes and roofline of every PyTorch op with shapes. */
#include "opt.h"

static const rpd_help help = {
  .usage = "usage: rpd-perfmodel FILE [--arch NAME | --arch-file F] [--dtype T] [-o OUT]\n"
           "                     [--force]",
  .about =
    "Model every PyTorch op of a Kineto import (rpd-import of a PyTorch profiler\n"
    "trace recorded with record_shapes) from its shapes and dtypes; or, in an\n"
    "RPD trace with PyTorch autograd markers, of every marker with sizes\n"
    "(after rpd-autograd: ext_autogradapi; the sizes carry no dtypes, see\n"
    "--dtype):\n"
    "  ext_perf_op        one row per op instance: category (GEMM, SDPA_fwd,\n"
    "                     SDPA_bwd, CONV_fwd, CONV_bwd, Normalization,\n"
    "                     Reduce_fwd, BinaryElementwise, UnaryElementwise, or\n"
    "                     'none'),\n"
    "                     params (JSON), flops, bytes, kernel_ns (kernels of the\n"
    "                     op and the ops it calls), tflops_s, tb_s,\n"
    "                     flops_per_byte, pct_peak_compute, pct_peak_bw, bound,\n"
    "                     roofline_ns (time at the roofline), lost_ns\n"
    "  view perf_op_summary  grouped by op name and parameters, with\n"
    "                     TraceLens's column names (GFLOPS_first, name_count, ...)\n"
    "  metadata PerfModel::arch, PerfModel::link_gbs  the arch and its link peak\n"
    "                     (raptor --report's coll_analysis compares bus bw to it)",
  .notes = "See docs/rpd-perfmodel.md.\n",
};

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "perfmodel.h"
#include "rpd.h"
#include "readdirect.h"  /* -o OUT from a rocprofv3 database or Kineto trace */

#define DONE_TAG "PerfModel::Generated"

typedef struct ctx {
  const char *arch_name, *arch_file;
  rpd_perf_arch file_arch;
  rpd_perf_run run;         /* dtype in; arch in (NULL: from the device), out */
  int built;
} ctx;

/* --arch NAME and --arch-file F: one of them, once. */
static int set_arch(ctx *c, const char **slot, const char *val, char *msg, size_t msgsz)
{
  if (c->arch_name || c->arch_file) {
    snprintf(msg, msgsz, "give one --arch or --arch-file");
    return 2;
  }
  *slot = val;
  return 0;
}

static int on_arch(void *vc, const char *name, const char *val, char *msg, size_t msgsz)
{
  ctx *c = vc;
  (void)name;
  return set_arch(c, &c->arch_name, val, msg, msgsz);
}

static int on_arch_file(void *vc, const char *name, const char *val, char *msg,
                        size_t msgsz)
{
  ctx *c = vc;
  (void)name;
  return set_arch(c, &c->arch_file, val, msg, msgsz);
}

/* --dtype T: the profiler's name of the type T. */
static int on_dtype(void *vc, const char *name, const char *val, char *msg, size_t msgsz)
{
  static const char *const names[][2] = {
    {"bf16", "c10::BFloat16"}, {"fp16", "c10::Half"}, {"fp32", "float"},
    {"fp64", "double"}, {"fp8", "c10::Float8_e4m3fn"},
  };
  ctx *c = vc;
  (void)name;
  for (size_t k = 0; k < sizeof names / sizeof *names; k++)
    if (strcmp(val, names[k][0]) == 0) {
      c->run.dtype = names[k][1];
      return 0;
    }
  snprintf(msg, msgsz, "bad --dtype '%s': use bf16, fp16, fp32, fp64 or fp8", val);
  return 2;
}

static int drop(rpd *r, void *vc)
{
  (void)vc;
  return rpd_perf_drop(r);
}

/* --arch-file or --arch (else rpd_perf_write takes the trace's device
 * name), then the model (common/analysis/perfmodel/write.c). */
static int build(rpd *r, void *vc)
{
  ctx *c = vc;
  int rc = RPD_OK;
  if (c->arch_file) {
    rc = rpd_perf_arch_load(c->arch_file, &c->file_arch);
    c->run.arch = &c->file_arch;
  } else if (c->arch_name) {
    c->run.arch = rpd_perf_arch_find(c->arch_name);
    if (!c->run.arch)
      rc = rpd_seterr(RPD_ENOTFOUND, "unknown arch '%s' (see --help)", c->arch_name);
  }
  if (rc == RPD_OK) rc = rpd_perf_write(r, &c->run);
  c->built = rc == RPD_OK;
  return rc;
}

static void summary(void *vc)
{
  const ctx *c = vc;
  if (!c->built) return;
  printf("%s: %" PRId64 " ops, %" PRId64 " modelled; peaks %s\n",
         rpd_progname, c->run.ops, c->run.modelled,
         c->run.arch ? c->run.arch->name : "unknown");
  fflush(stdout);
  if (c->run.autograd && !c->run.modelled)
    rpd_note("the autograd markers carry no sizes: record with record_shapes=True");
}

int main(int argc, char **argv)
{
  rpd_set_import_reader(rpdi_direct_read, NULL);
  ctx c = {0};
  const rpd_opt opts[] = {
    RPD_OPT_CALL("--arch", on_arch, &c, .arg = "NAME",
                 .help = "peaks of NAME (MI300X, MI325X, MI355X, MI250X, MI210, H100, H200, "
                         "GB200, B200, A100); default: from the trace's device name "
                         "(metadata kineto::gpu.0.name)"),
    RPD_OPT_CALL("--arch-file", on_arch_file, &c, .arg = "F",
                 .help = "peaks from a file of 'key value' lines (name, bf16, fp16, fp8, "
                         "fp32, tf32, fp64, vec_fp32, hbm_tbs, link_gbs: GPU-GPU links, "
                         "GB/s one way)"),
    RPD_OPT_CALL("--dtype", on_dtype, &c, .arg = "T",
                 .help = "the element type of every tensor of an autograd marker (bf16, "
                         "fp16, fp32, fp64, fp8); without it their bytes and % of peak "
                         "are NULL"),
    RPD_OPT_END(),
  };
  const rpd_augment a = {
    .help = &help,
    .what = "the performance model",
    .done_tag = DONE_TAG,
    .opts = opts,
    .drop = drop,
    .build = build,
    .ctx = &c,
    .summary = summary,
  };
  return rpd_augment_main(&a, argc, argv);
}
