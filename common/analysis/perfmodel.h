/* perfmodel.h - FLOPs and bytes of a PyTorch op from its shapes, the GPU
 * peak table and the roofline (docs/rpd-perfmodel.md).
 *
 * The op is given the way the PyTorch profiler records it: its name and the
 * JSON arrays "Input Dims", "Input type", "Input Strides" and "Concrete
 * Inputs" (any of the last three may be NULL).  The formulas follow
 * TraceLens's PerfModel so the numbers can be compared row by row. */
#ifndef RPD_PERFMODEL_H
#define RPD_PERFMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "rpd.h"

/* The model of one op instance. */
typedef struct rpd_perf_op {
  const char *category;  /* static: "GEMM", "SDPA_fwd", "SDPA_bwd",
                            "BinaryElementwise", "UnaryElementwise",
                            "Normalization", "Reduce_fwd", "CONV_fwd",
                            "CONV_bwd", or "none" (no model) */
  char spec[24];         /* "matrix_bf16", "vector_fp32", ... ("" if none) */
  double flops, bytes;   /* -1 when unknown (no model, or a dtype unknown) */
  char *params;          /* JSON object of the parameters (TraceLens's
                            "param: X" names as keys), malloc'd; NULL if none */
} rpd_perf_op;

/* Model the op NAME from its profiler args (JSON texts, NULL = absent;
 * each is read up to the end of its first value, so a pointer into the
 * args object from rpd_perf_arg will do).
 * Fills *out (free with rpd_perf_op_free); an op without a model, or
 * whose args do not fit its model, gets category "none".  Returns RPD_OK
 * (RPD_EPARSE only if dims is not a JSON array). */
int rpd_perf_model(const char *name, const char *dims, const char *types,
                   const char *strides, const char *concrete, rpd_perf_op *out);
/* The value of member KEY of the JSON object ARGS (a profiler event's
 * args): a pointer into ARGS at the value's first character (the value is
 * not NUL-terminated: pass it to rpd_perf_model, which reads one value),
 * the first member of that name; NULL if absent or ARGS is not an object.
 * Cheaper than SQLite's json_extract, which re-renders the value. */
const char *rpd_perf_arg(const char *args, const char *key);
/* rpd_perf_arg of each of the N (at most 8) KEYS into OUT[i], in one pass
 * over ARGS: each the same pointer rpd_perf_arg would return; with LENS,
 * LENS[i] = rpd_perf_arg_len(OUT[i]). */
void rpd_perf_args(const char *args, const char *const *keys, int n, const char **out,
                   size_t *lens);
/* The length of the JSON value at VALUE (from rpd_perf_arg) up to the
 * comma or bracket that ends it; 0 if VALUE is NULL or broken. */
size_t rpd_perf_arg_len(const char *value);
/* 1 if some model may take an op named NAME (whether it does depends on
 * the args), 0 if rpd_perf_model gives every op of that name category
 * "none": a reader that keeps only what the model can use skips the
 * others' args. */
int rpd_perf_named(const char *name);
/* The members of a Kineto op's args the model reads, in rpd_perf_model's
 * order: "Input Dims", "Input type", "Input Strides", "Concrete Inputs"
 * (a reader that keeps only what the model can use keeps these). */
#define RPD_PERF_NARGS 4
extern const char *const rpd_perf_arg_keys[RPD_PERF_NARGS];
/* Free the params of *op and reset it. */
void rpd_perf_op_free(rpd_perf_op *op);

/* Bytes per element of a profiler "Input type" ("float" 4, "c10::BFloat16"
 * 2, ...); 0 if unknown (also "Scalar"). */
int rpd_perf_dtype_bytes(const char *type);

/* One GPU's peaks: dense matrix TFLOP/s per dtype (0 = not supported),
 * vector fp32 TFLOP/s, HBM TB/s and the GPU's peer link bandwidth: the sum
 * over its GPU-GPU links (NVLink, Infinity Fabric) in ONE direction, in
 * GB/s of 10^9 bytes, the figure NCCL's bus bandwidth is comparable with
 * (0 = unknown). */
typedef struct rpd_perf_arch {
  char name[32];
  double fp64, fp32, tf32, bf16, fp16, fp8;  /* matrix */
  double vec_fp32;
  double hbm_tbs;
  double link_gbs;
} rpd_perf_arch;

/* The built-in arch whose name equals NAME (case-insensitive), or, failing
 * that, whose name occurs in NAME (a device name like "AMD Instinct MI300X
 * VF" or "NVIDIA H100 80GB HBM3"); NULL if none.  Static storage. */
const rpd_perf_arch *rpd_perf_arch_find(const char *name);
/* The i-th built-in arch (NULL past the end). */
const rpd_perf_arch *rpd_perf_arch_at(int i);
/* Read an arch file ("key value" lines, '#' comments; keys name, fp64,
 * fp32, tf32, bf16, fp16, fp8, vec_fp32, hbm_tbs, link_gbs) into *out.  Returns
 * RPD_OK, RPD_EIO (unreadable) or RPD_EPARSE (bad line, or name/hbm_tbs
 * missing), with rpd_seterr's message. */
int rpd_perf_arch_load(const char *path, rpd_perf_arch *out);
/* The peak TFLOP/s of ARCH for a compute spec ("matrix_bf16",
 * "vector_fp32", ...): the matrix peak of the dtype (tf32 for matrix_fp32
 * when fp32 is 0), the vector fp32 peak for every vector spec; 0 if
 * unknown. */
double rpd_perf_peak_tflops(const rpd_perf_arch *arch, const char *spec);

/* The roofline figures of one op instance. */
typedef struct rpd_perf_roof {
  double tflops_s, tb_s;         /* achieved (-1 if kernel_ns <= 0) */
  double flops_per_byte;         /* -1 if bytes <= 0 */
  double pct_compute, pct_bw;    /* % of the peaks (-1 if unknown) */
  double roofline_ns;            /* time at the roofline (-1 if unknown) */
  const char *bound;             /* "compute", "memory" or NULL */
} rpd_perf_roof;

/* Roofline of an op of FLOPS and BYTES (either < 0: unknown) that ran
 * KERNEL_NS on ARCH (may be NULL: no peaks) with compute spec SPEC. */
void rpd_perf_roofline(const rpd_perf_arch *arch, const char *spec, double flops,
                       double bytes, double kernel_ns, rpd_perf_roof *out);

/* What rpd_perf_write is given and what it found. */
typedef struct rpd_perf_run {
  const rpd_perf_arch *arch;  /* in: the peaks (NULL: the built-in arch of
                                 the trace's device name, metadata
                                 kineto::gpu.0.name); out: the peaks used
                                 (NULL: unknown) */
  const char *dtype;          /* in: the profiler type assumed for every
                                 tensor of an autograd marker (NULL: none) */
  int lean;                   /* in: 1 = no ext_perf_op row for an op
                                 without a model (category 'none'): what
                                 raptor --report reads, which reads only
                                 the modelled ones */
  int64_t ops, modelled;      /* out: ops read, ops with a model */
  int autograd;               /* out: the ops were ext_autogradapi's */
} rpd_perf_run;

/* Drop what rpd_perf_write wrote (ext_perf_op, perf_op_summary, the
 * PerfModel:: metadata but the done tag): RPD_OK, or an error status (an
 * ext_perf_op that is not ours is refused, rpd_check_owned). */
int rpd_perf_drop(rpd *r);

/* Model every op with shapes of r (a Kineto import's ext_kineto_event
 * cpu_ops, else rpd-autograd's ext_autogradapi markers) into ext_perf_op
 * and the view perf_op_summary, replacing earlier ones, with metadata
 * PerfModel::arch and PerfModel::link_gbs; in the caller's transaction,
 * as rpd-perfmodel does (docs/rpd-perfmodel.md).  RPD_OK or an error
 * status with its message. */
int rpd_perf_write(rpd *r, rpd_perf_run *run);

#endif
