/* test_perfmodel.c - op FLOPs/bytes and roofline on hand-computed cases. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "perfmodel.h"
#include "rpd.h"

/* addmm: bias [N], A [M,K], B [K,N], bf16.  M=2 N=3 K=4:
 * FLOPs 2*2*3*4 + 2*3 = 54; bytes (8 + 12 + 6 + 3) * 2 = 58. */
static void test_addmm(void **state)
{
  rpd_perf_op o;
  (void)state;
  assert_int_equal(rpd_perf_model("aten::addmm", "[[3],[2,4],[4,3],[],[]]",
      "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\"]",
      "[[1],[4,1],[1,4],[],[]]", NULL, &o), RPD_OK);
  assert_string_equal(o.category, "GEMM");
  assert_string_equal(o.spec, "matrix_bf16");
  assert_true(o.flops == 54);
  assert_true(o.bytes == 58);
  assert_non_null(strstr(o.params, "\"M\":2,\"N\":3,\"K\":4,\"bias\":true"));
  assert_non_null(strstr(o.params, "\"stride_A\":\"(4, 1)\""));
  rpd_perf_op_free(&o);
}

/* bmm fp32 B=5 M=2 K=3 N=7: FLOPs 5*2*2*7*3 = 420;
 * bytes 5 * (6 + 21 + 14) * 4 = 820. */
static void test_bmm(void **state)
{
  rpd_perf_op o;
  (void)state;
  rpd_perf_model("aten::bmm", "[[5,2,3],[5,3,7]]", "[\"float\",\"float\"]", NULL, NULL, &o);
  assert_string_equal(o.category, "GEMM");
  assert_true(o.flops == 420);
  assert_true(o.bytes == 820);
  rpd_perf_op_free(&o);
}

/* baddbmm fp16 B=2 M=2 K=3 N=4 with bias: FLOPs 2*(2*2*4*3 + 8) = 112;
 * bytes 2 * (6 + 12 + 8 + 4) * 2 = 120 (a bias of N per batch). */
static void test_baddbmm(void **state)
{
  rpd_perf_op o;
  (void)state;
  rpd_perf_model("aten::baddbmm", "[[2,2,4],[2,2,3],[2,3,4],[],[]]",
                 "[\"c10::Half\",\"c10::Half\",\"c10::Half\",\"Scalar\",\"Scalar\"]",
                 NULL, NULL, &o);
  assert_true(o.flops == 112);
  assert_true(o.bytes == 120);
  rpd_perf_op_free(&o);
}

/* _scaled_mm fp8 M=4 K=8 N=2, no bias: FLOPs 128; bytes 32 + 16 in fp8,
 * the 8 outputs in 16 bits: 64. */
static void test_scaled_mm(void **state)
{
  rpd_perf_op o;
  (void)state;
  rpd_perf_model("aten::_scaled_mm", "[[4,8],[8,2],[],[],[],[],[]]",
                 "[\"c10::Float8_e4m3fnuz\",\"c10::Float8_e4m3fnuz\",\"float\",\"float\",\"\",\"\",\"Scalar\"]",
                 NULL, NULL, &o);
  assert_string_equal(o.spec, "matrix_fp8");
  assert_true(o.flops == 128);
  assert_true(o.bytes == 64);
  rpd_perf_op_free(&o);
}

/* linear: input [2,3,4] (M = 6), weight [5,4] (N=5, K=4), bias [5], fp16:
 * FLOPs 2*6*5*4 + 30 = 270; bytes (24 + 20 + 30 + 5) * 2 = 158. */
static void test_linear(void **state)
{
  rpd_perf_op o;
  (void)state;
  rpd_perf_model("aten::linear", "[[2,3,4],[5,4],[5]]",
                 "[\"c10::Half\",\"c10::Half\",\"c10::Half\"]", NULL, NULL, &o);
  assert_true(o.flops == 270);
  assert_true(o.bytes == 158);
  assert_string_equal(o.spec, "matrix_fp16");
  rpd_perf_op_free(&o);
}

/* mul [4,1,3] x [2,3] float: out [4,2,3] = 24 FLOPs;
 * bytes (12 + 6 + 24) * 4 = 168.  add with a 0-dim double tensor:
 * [10] float + [] double: 10 FLOPs, 40 + 8 + 40 = 88 bytes. */
static void test_binary(void **state)
{
  rpd_perf_op o;
  (void)state;
  rpd_perf_model("aten::mul", "[[4,1,3],[2,3]]", "[\"float\",\"float\"]", NULL, NULL, &o);
  assert_string_equal(o.category, "BinaryElementwise");
  assert_true(o.flops == 24);
  assert_true(o.bytes == 168);
  rpd_perf_op_free(&o);
  rpd_perf_model("aten::add", "[[10],[],[]]", "[\"float\",\"double\",\"Scalar\"]",
                 NULL, NULL, &o);
  assert_true(o.flops == 10);
  assert_true(o.bytes == 88);
  rpd_perf_op_free(&o);
}

/* copy_ of 6 elements bf16 <- float: 6 FLOPs, 6 * (2 + 4) = 36 bytes;
 * pow(Tensor, Scalar) is unary: 6 * 4 * 2 = 48 bytes. */
static void test_unary(void **state)
{
  rpd_perf_op o;
  (void)state;
  rpd_perf_model("aten::copy_", "[[2,3],[2,3],[]]",
                 "[\"c10::BFloat16\",\"float\",\"Scalar\"]", NULL, NULL, &o);
  assert_string_equal(o.category, "UnaryElementwise");
  assert_true(o.flops == 6);
  assert_true(o.bytes == 36);
  rpd_perf_op_free(&o);
  rpd_perf_model("aten::pow", "[[2,3],[]]", "[\"float\",\"Scalar\"]", NULL, NULL, &o);
  assert_string_equal(o.category, "UnaryElementwise");
  assert_true(o.bytes == 48);
  rpd_perf_op_free(&o);
}

/* flash attention B=1 H=2 N=8 d=4 bf16: 2*1*2*8*8*(4+4) = 2048 FLOPs,
 * causal 1024; bytes 4 tensors of 64 elements * 2 = 512. */
static void test_sdpa(void **state)
{
  rpd_perf_op o;
  const char *dims = "[[1,2,8,4],[1,2,8,4],[1,2,8,4],[],[],[],[]]";
  const char *types = "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\","
                      "\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]";
  (void)state;
  rpd_perf_model("aten::_scaled_dot_product_flash_attention", dims, types, NULL,
                 "[\"\",\"\",\"\",\"0.\",\"False\",\"False\",\"0.5\"]", &o);
  assert_string_equal(o.category, "SDPA_fwd");
  assert_true(o.flops == 2048);
  assert_true(o.bytes == 512);
  rpd_perf_op_free(&o);
  rpd_perf_model("aten::_scaled_dot_product_flash_attention", dims, types, NULL,
                 "[\"\",\"\",\"\",\"0.\",\"True\",\"False\",\"0.5\"]", &o);
  assert_true(o.flops == 1024);
  assert_non_null(strstr(o.params, "\"causal\":true"));
  rpd_perf_op_free(&o);
}

static void test_none_and_bad(void **state)
{
  rpd_perf_op o;
  (void)state;
  assert_int_equal(rpd_perf_model("aten::empty", "[[2]]", "[\"float\"]", NULL, NULL, &o), RPD_OK);
  assert_string_equal(o.category, "none");
  assert_true(o.flops < 0);
  assert_null(o.params);
  rpd_perf_op_free(&o);
  /* mm with a 1-D operand does not fit the model */
  rpd_perf_model("aten::mm", "[[2],[2,3]]", "[\"float\",\"float\"]", NULL, NULL, &o);
  assert_string_equal(o.category, "none");
  rpd_perf_op_free(&o);
  assert_int_equal(rpd_perf_model("aten::mm", "{oops", NULL, NULL, NULL, &o), RPD_EPARSE);
  rpd_perf_op_free(&o);
  /* unknown dtype: FLOPs known, bytes unknown */
  rpd_perf_model("aten::mm", "[[2,2],[2,2]]", "[\"weird\",\"weird\"]", NULL, NULL, &o);
  assert_true(o.flops == 16);
  assert_true(o.bytes < 0);
  rpd_perf_op_free(&o);
}

static void test_arch_and_roofline(void **state)
{
  rpd_perf_roof r;
  const rpd_perf_arch *a = rpd_perf_arch_find("AMD Instinct MI300X VF");
  (void)state;
  assert_non_null(a);
  assert_string_equal(a->name, "MI300X");
  assert_string_equal(rpd_perf_arch_find("NVIDIA H100 80GB HBM3")->name, "H100");
  assert_string_equal(rpd_perf_arch_find("mi325x")->name, "MI325X");
  assert_null(rpd_perf_arch_find("GeForce 256"));
  /* GB200 (contains "B200") is its own row: 1200 W, 40 TFLOP/s fp64; the
   * HGX B200 is 37 fp64, 75 vector fp32, 7.7 TB/s (NVIDIA's HGX page) */
  assert_string_equal(rpd_perf_arch_find("NVIDIA GB200")->name, "GB200");
  assert_true(rpd_perf_arch_find("NVIDIA GB200")->fp64 == 40);
  assert_true(rpd_perf_arch_find("NVIDIA B200")->fp64 == 37);
  assert_true(rpd_perf_arch_find("NVIDIA B200")->vec_fp32 == 75);
  assert_true(rpd_perf_arch_find("NVIDIA B200")->hbm_tbs == 7.7);
  assert_true(rpd_perf_arch_find("AMD Instinct MI355X")->fp64 == 78.6);
  assert_true(rpd_perf_peak_tflops(a, "matrix_bf16") == 1307.4);
  assert_true(rpd_perf_peak_tflops(a, "vector_bf16") == 163.4);
  /* 1.3074e12 FLOPs, 5.3e9 bytes on MI300X: 1000 us of compute, 1000 us of
   * memory; run in 2000 us: 0.6537 PFLOP/s = 50%, 2.65 TB/s = 50% */
  rpd_perf_roofline(a, "matrix_bf16", 1.3074e12, 5.3e9 * 0.5, 2e6, &r);
  assert_string_equal(r.bound, "compute");
  assert_true(r.roofline_ns > 999999.9 && r.roofline_ns < 1000000.1);
  assert_true(r.pct_compute > 49.9999 && r.pct_compute < 50.0001);
  assert_true(r.pct_bw > 24.9999 && r.pct_bw < 25.0001);
  rpd_perf_roofline(a, "vector_fp32", 1e6, 5.3e9, 2e6, &r);
  assert_string_equal(r.bound, "memory");
  assert_true(r.roofline_ns > 999999.9 && r.roofline_ns < 1000000.1);
  rpd_perf_roofline(NULL, "matrix_bf16", 1e6, 1e6, 1e3, &r);
  assert_null(r.bound);
  assert_true(r.tflops_s > 0.9999999 && r.tflops_s < 1.0000001);  /* 1e6 FLOPs in 1 us */
}

/* The link peaks: per GPU, one direction, GB/s (half the datasheets'
 * bidirectional totals: 7 x 128 GB/s Infinity Fabric on MI300X, 900 GB/s
 * NVLink 4 on H100); none for an MI250X rank (one die of two).  An arch
 * file's link_gbs is read, and is optional. */
static void test_link_peaks(void **state)
{
  rpd_perf_arch f;
  char path[] = "/tmp/test_perfmodel_archXXXXXX";
  int fd;
  FILE *fp;
  (void)state;
  assert_true(rpd_perf_arch_find("MI300X")->link_gbs == 448);
  assert_true(rpd_perf_arch_find("MI325X")->link_gbs == 448);
  assert_true(rpd_perf_arch_find("MI355X")->link_gbs == 537.6);
  assert_true(rpd_perf_arch_find("MI210")->link_gbs == 150);
  assert_true(rpd_perf_arch_find("MI250X")->link_gbs == 0);
  assert_true(rpd_perf_arch_find("NVIDIA H100 80GB HBM3")->link_gbs == 450);
  assert_true(rpd_perf_arch_find("H200")->link_gbs == 450);
  assert_true(rpd_perf_arch_find("B200")->link_gbs == 900);
  assert_true(rpd_perf_arch_find("GB200")->link_gbs == 900);
  assert_true(rpd_perf_arch_find("NVIDIA A100-PG509-200")->link_gbs == 300);
  fd = mkstemp(path);
  assert_true(fd >= 0);
  fp = fdopen(fd, "w");
  fputs("name X1\nhbm_tbs 2\nlink_gbs 123.5 # one way\n", fp);
  fclose(fp);
  assert_int_equal(rpd_perf_arch_load(path, &f), RPD_OK);
  assert_true(f.link_gbs == 123.5 && f.hbm_tbs == 2);
  fp = fopen(path, "w");
  fputs("name X1\nhbm_tbs 2\n", fp);
  fclose(fp);
  assert_int_equal(rpd_perf_arch_load(path, &f), RPD_OK);
  assert_true(f.link_gbs == 0);
  fp = fopen(path, "w");
  fputs("name X1\nhbm_tbs 2\nlink_gbs -1\n", fp);
  fclose(fp);
  assert_int_equal(rpd_perf_arch_load(path, &f), RPD_EPARSE);
  unlink(path);
}

/* Model NAME from its args; the caller frees *o. */
static void model(const char *name, const char *dims, const char *types,
                  const char *concrete, rpd_perf_op *o)
{
  assert_int_equal(rpd_perf_model(name, dims, types, NULL, concrete, o), RPD_OK);
}

/* layer_norm of x [2,3,4] bf16 over [4] with weight and bias: N=24 C=4,
 * FLOPs 6C + 3N + 2N = 144; bytes 24*2 + 24*2 + (2 + 1 + 1 + 2)*4*2 =
 * 144.  Without weight and bias ([]): 4 C-element tensors, bytes 128. */
static void test_layer_norm(void **state)
{
  rpd_perf_op o;
  (void)state;
  model("aten::native_layer_norm", "[[2,3,4],[],[4],[4],[]]",
        "[\"c10::BFloat16\",\"Scalar\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\"]",
        "[\"\",\"[4]\",\"\",\"\",\"1e-05\"]", &o);
  assert_string_equal(o.category, "Normalization");
  assert_string_equal(o.spec, "vector_bf16");
  assert_true(o.flops == 144);
  assert_true(o.bytes == 144);
  assert_non_null(strstr(o.params, "\"op_shape\":\"(2, 3, 4)\",\"dtype_in_out\":"
                                   "\"('c10::BFloat16', None)\""));
  assert_non_null(strstr(o.params, "\"num_channels\":4,\"has_bias\":true,"
                                   "\"is_affine\":true,\"is_training\":true"));
  rpd_perf_op_free(&o);
  model("aten::layer_norm", "[[2,3,4],[],[],[],[],[]]",
        "[\"c10::BFloat16\",\"Scalar\",\"\",\"\",\"Scalar\",\"Scalar\"]",
        "[\"\",\"[4]\",\"\",\"\",\"1e-05\",\"True\"]", &o);
  assert_true(o.flops == 144);
  assert_true(o.bytes == 128);
  assert_non_null(strstr(o.params, "\"has_bias\":false,\"is_affine\":false"));
  rpd_perf_op_free(&o);
}

/* batch_norm of x [2,3,4,4] fp32, C=3 (dim 1), N=96.  Eval: FLOPs 6C + 2N
 * = 210, bytes 96*4*2 + (2 + 1 + 1)*3*4 = 816.  Training ("True", not any
 * non-empty text): FLOPs 210 + 3N = 498, bytes 768 + 6*3*4 = 840. */
static void test_batch_norm(void **state)
{
  rpd_perf_op o;
  const char *dims = "[[2,3,4,4],[3],[3],[3],[3],[],[],[],[]]";
  const char *types = "[\"float\",\"float\",\"float\",\"float\",\"float\",\"Scalar\","
                      "\"Scalar\",\"Scalar\",\"Scalar\"]";
  (void)state;
  model("aten::batch_norm", dims, types,
        "[\"\",\"\",\"\",\"\",\"\",\"False\",\"0.1\",\"1e-05\",\"True\"]", &o);
  assert_true(o.flops == 210);
  assert_true(o.bytes == 816);
  assert_non_null(strstr(o.params, "\"num_channels\":3,\"has_bias\":true,"
                                   "\"is_affine\":true,\"is_training\":false"));
  rpd_perf_op_free(&o);
  model("aten::batch_norm", dims, types,
        "[\"\",\"\",\"\",\"\",\"\",\"True\",\"0.1\",\"1e-05\",\"True\"]", &o);
  assert_true(o.flops == 498);
  assert_true(o.bytes == 840);
  rpd_perf_op_free(&o);
}

/* native_layer_norm_backward, x [2,3,4] fp32 over [4], mask all: N=24 C=4
 * E=6, training: FLOPs C*(4E + 5E) = 216; bytes grad_out 96 + input twice
 * 192 + invstd 16 + weight 16 + grad weight and bias 32 = 352. */
static void test_layer_norm_bwd(void **state)
{
  rpd_perf_op o;
  (void)state;
  model("aten::native_layer_norm_backward", "[[2,3,4],[2,3,4],[],[2,3,1],[2,3,1],[4],[4],[]]",
        "[\"float\",\"float\",\"Scalar\",\"float\",\"float\",\"float\",\"float\",\"Scalar\"]",
        "[\"\",\"\",\"[4]\",\"\",\"\",\"\",\"\",\"[True, True, True]\"]", &o);
  assert_string_equal(o.category, "Normalization");
  assert_true(o.flops == 216);
  assert_true(o.bytes == 352);
  assert_non_null(strstr(o.params, "\"output_mask\":\"[True, True, True]\""));
  rpd_perf_op_free(&o);
  /* an older trace without concrete inputs: C from the weight, every
   * gradient of the tensors given: the same figures */
  model("aten::native_layer_norm_backward", "[[2,3,4],[2,3,4],[],[2,3,1],[2,3,1],[4],[4],[]]",
        "[\"float\",\"float\",\"Scalar\",\"float\",\"float\",\"float\",\"float\",\"Scalar\"]",
        NULL, &o);
  assert_true(o.flops == 216);
  assert_true(o.bytes == 352);
  rpd_perf_op_free(&o);
}

/* RMS norm of x [2,8] bf16 over [8] with weight: N=16 C=8, FLOPs
 * 2*(2*8 + 2) + 2*16 = 68, bytes 32 + 32 + 16 = 80.  Backward (mask
 * [True, True]): 16 + 16 + 6*16 + 16 + 16 = 160 FLOPs; bytes 32 + 64 + 32
 * = 128. */
static void test_rms_norm(void **state)
{
  rpd_perf_op o;
  (void)state;
  model("aten::_fused_rms_norm", "[[2,8],[],[8],[]]",
        "[\"c10::BFloat16\",\"Scalar\",\"c10::BFloat16\",\"Scalar\"]",
        "[\"\",\"[8]\",\"\",\"1e-06\"]", &o);
  assert_true(o.flops == 68);
  assert_true(o.bytes == 80);
  assert_non_null(strstr(o.params, "\"has_bias\":false,\"is_affine\":true,"
                                   "\"is_training\":false"));
  rpd_perf_op_free(&o);
  model("aten::_fused_rms_norm_backward", "[[2,8],[2,8],[],[2,1],[8],[]]",
        "[\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"float\",\"c10::BFloat16\",\"Scalar\"]",
        "[\"\",\"\",\"[8]\",\"\",\"\",\"[True, True]\"]", &o);
  assert_true(o.flops == 160);
  assert_true(o.bytes == 128);
  rpd_perf_op_free(&o);
}

/* Reduce: mean of [2,3,4] fp32 over dim -1, keepdim: 24 FLOPs, 6 outputs,
 * bytes (24 + 6)*4 = 120; sum of everything in bf16: 1 output, bytes 50;
 * cumsum of [2,3] fp32: 6 outputs, bytes 48; norm(x, p=2, dim=[1]): the
 * dim after p, 2 outputs. */
static void test_reduce(void **state)
{
  rpd_perf_op o;
  (void)state;
  model("aten::mean", "[[2,3,4],[],[],[]]", "[\"float\",\"ScalarList\",\"Scalar\",\"\"]",
        "[\"\",\"[-1]\",\"True\",\"\"]", &o);
  assert_string_equal(o.category, "Reduce_fwd");
  assert_true(o.flops == 24);
  assert_true(o.bytes == 120);
  assert_string_equal(o.params, "{\"num_input_elems\":24,\"num_output_elems\":6,"
                                "\"dtype_in_out\":\"('float', None)\",\"reduce_type\":\"mean\"}");
  rpd_perf_op_free(&o);
  model("aten::sum", "[[2,3,4],[]]", "[\"c10::BFloat16\",\"\"]", "[\"\",\"\"]", &o);
  assert_true(o.bytes == 50);
  rpd_perf_op_free(&o);
  model("aten::cumsum", "[[2,3],[],[]]", "[\"float\",\"Scalar\",\"\"]", "[\"\",\"1\",\"\"]", &o);
  assert_true(o.bytes == 48);
  rpd_perf_op_free(&o);
  model("aten::norm", "[[2,3],[],[],[]]", "[\"float\",\"Scalar\",\"ScalarList\",\"Scalar\"]",
        "[\"\",\"2\",\"[1]\",\"False\"]", &o);
  assert_non_null(strstr(o.params, "\"num_output_elems\":2,"));
  assert_non_null(strstr(o.params, "\"reduce_type\":\"norm\""));
  rpd_perf_op_free(&o);
}

/* conv2d x [1,2,5,5] w [4,2,3,3] bias [4] fp32, stride 2, padding 1: out
 * [1,4,3,3] (36); FLOPs 36 * 2*18 + 36 = 1332; bytes (50 + 72 + 4 + 36)*4
 * = 648.  Backward, mask all: grad_input 1296 + grad_weight 2*72*1*9 =
 * 1296 + grad_bias 36 = 2628 FLOPs; bytes ((36+72+50) + (36+50+72) +
 * (36+4))*4 = 1424.  Transposed x [1,4,3,3] w [4,2,3,3] stride 2 padding
 * 1: out [1,2,5,5], FLOPs 36 inputs * 36 = 1296. */
static void test_conv(void **state)
{
  rpd_perf_op o;
  (void)state;
  model("aten::convolution", "[[1,2,5,5],[4,2,3,3],[4],[],[],[],[],[],[]]",
        "[\"float\",\"float\",\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\","
        "\"Scalar\",\"ScalarList\",\"Scalar\"]",
        "[\"\",\"\",\"\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\"]", &o);
  assert_string_equal(o.category, "CONV_fwd");
  assert_string_equal(o.spec, "matrix_fp32");
  assert_true(o.flops == 1332);
  assert_true(o.bytes == 648);
  assert_non_null(strstr(o.params, "\"convNd\":\"conv2d\",\"input_shape\":\"(1, 2, 5, 5)\""));
  assert_non_null(strstr(o.params, "\"bias\":true,\"stride\":\"(2, 2)\",\"padding\":\"(1, 1)\""));
  rpd_perf_op_free(&o);
  model("aten::convolution_backward",
        "[[1,4,3,3],[1,2,5,5],[4,2,3,3],[],[],[],[],[],[],[],[]]",
        "[\"float\",\"float\",\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\","
        "\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\",\"\"]",
        "[\"\",\"\",\"\",\"[4]\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\","
        "\"[True, True, True]\"]", &o);
  assert_string_equal(o.category, "CONV_bwd");
  assert_true(o.flops == 2628);
  assert_true(o.bytes == 1424);
  rpd_perf_op_free(&o);
  model("aten::convolution", "[[1,4,3,3],[4,2,3,3],[],[],[],[],[],[],[]]",
        "[\"float\",\"float\",\"\",\"ScalarList\",\"ScalarList\",\"ScalarList\","
        "\"Scalar\",\"ScalarList\",\"Scalar\"]",
        "[\"\",\"\",\"\",\"[2]\",\"[1]\",\"[1]\",\"True\",\"[0]\",\"1\"]", &o);
  assert_true(o.flops == 1296);
  assert_true(o.bytes == (36 + 72 + 50) * 4);
  rpd_perf_op_free(&o);
}

/* flash attention backward, GQA: q [1,4,8,16], k, v [1,2,8,16] bf16,
 * causal: 2*4*8*8*(2*16 + 2*16 + 16) = 40960 + the dK/dV head sums
 * 1*8*32*(4/2 - 1) = 256, halved: 20608 FLOPs; bytes 2*(512 + 256 + 256)
 * + dO 512 = 2560 elements, 5120 bytes. */
static void test_sdpa_bwd(void **state)
{
  rpd_perf_op o;
  (void)state;
  model("aten::_scaled_dot_product_flash_attention_backward",
        "[[1,4,8,16],[1,4,8,16],[1,2,8,16],[1,2,8,16],[1,4,8,16],[1,4,8],[],[],[],[],[],[],[],[],[]]",
        "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\","
        "\"c10::BFloat16\",\"float\",\"\",\"\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\","
        "\"long int\",\"long int\",\"Scalar\"]",
        "[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"8\",\"8\",\"0.\",\"True\",\"\",\"\",\"0.25\"]",
        &o);
  assert_string_equal(o.category, "SDPA_bwd");
  assert_true(o.flops == 20608);
  assert_true(o.bytes == 5120);
  assert_non_null(strstr(o.params, "\"B\":1,\"N_Q\":8,\"H_Q\":4,\"N_KV\":8,\"H_KV\":2,"
                                   "\"d_h_qk\":16,\"d_h_v\":16,\"dropout\":0.0,\"causal\":true,"
                                   "\"flash_impl\":true"));
  rpd_perf_op_free(&o);
}

/* group_norm of x [2,4,3] bf16 in 2 groups with weight and bias: N=24,
 * C=4 (dim 1, TraceLens's num_channels), statistics always computed:
 * FLOPs 6C + 3N + 2N = 144; bytes 24*2 + 24*2 + (2 + 1 + 1 + 2)*4*2 = 144.
 * Without weight and bias, fp32: FLOPs 144, bytes 24*4*2 + (2 + 2)*4*4 =
 * 256.  native_group_norm has the weight at 1: the same figures. */
static void test_group_norm(void **state)
{
  rpd_perf_op o;
  (void)state;
  model("aten::group_norm", "[[2,4,3],[],[4],[4],[],[]]",
        "[\"c10::BFloat16\",\"Scalar\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\"]",
        "[\"\",\"2\",\"\",\"\",\"1e-05\",\"True\"]", &o);
  assert_string_equal(o.category, "Normalization");
  assert_string_equal(o.spec, "vector_bf16");
  assert_true(o.flops == 144);
  assert_true(o.bytes == 144);
  assert_non_null(strstr(o.params, "\"op_shape\":\"(2, 4, 3)\""));
  assert_non_null(strstr(o.params, "\"num_channels\":4,\"has_bias\":true,"
                                   "\"is_affine\":true,\"is_training\":true"));
  rpd_perf_op_free(&o);
  model("aten::group_norm", "[[2,4,3],[],[],[],[],[]]",
        "[\"float\",\"Scalar\",\"\",\"\",\"Scalar\",\"Scalar\"]",
        "[\"\",\"2\",\"\",\"\",\"1e-05\",\"True\"]", &o);
  assert_true(o.flops == 144);
  assert_true(o.bytes == 256);
  assert_non_null(strstr(o.params, "\"has_bias\":false,\"is_affine\":false"));
  rpd_perf_op_free(&o);
  model("aten::native_group_norm", "[[2,4,3],[4],[4],[],[],[],[],[]]",
        "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\","
        "\"Scalar\",\"Scalar\",\"Scalar\"]",
        "[\"\",\"\",\"\",\"2\",\"4\",\"3\",\"2\",\"1e-05\"]", &o);
  assert_true(o.flops == 144);
  assert_true(o.bytes == 144);
  rpd_perf_op_free(&o);
}

/* native_group_norm_backward(grad_out, input [2,4,3] bf16, mean, rstd,
 * weight [4], N, C, HxW, group = 2, mask [T, T, T]): C = 4 / 2 = 2 per
 * group (TraceLens's num_channels), E = N / C = 12; FLOPs C * (4E + 5E) =
 * 216; bytes grad_out 48 + input twice 96 + invstd C*2 = 4 + weight 4 +
 * its two grads 8 = 160.  Groups missing: no model. */
static void test_group_norm_bwd(void **state)
{
  rpd_perf_op o;
  (void)state;
  static const char dims[] = "[[2,4,3],[2,4,3],[2,2],[2,2],[4],[],[],[],[],[]]";
  static const char types[] =
    "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\","
    "\"c10::BFloat16\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"\"]";
  model("aten::native_group_norm_backward", dims, types,
        "[\"\",\"\",\"\",\"\",\"\",\"2\",\"4\",\"3\",\"2\",\"[True, True, True]\"]", &o);
  assert_string_equal(o.category, "Normalization");
  assert_true(o.flops == 216);
  assert_true(o.bytes == 160);
  assert_non_null(strstr(o.params, "\"num_channels\":2,\"has_bias\":true,"
                                   "\"is_affine\":true,\"is_training\":true,"
                                   "\"output_mask\":\"[True, True, True]\""));
  rpd_perf_op_free(&o);
  model("aten::native_group_norm_backward", dims, types, NULL, &o);
  assert_string_equal(o.category, "none");
  rpd_perf_op_free(&o);
}

/* instance_norm of x [2,3,5] fp32 with weight and bias [3]: N=30, C=3.
 * use_input_stats "True": FLOPs 6C + 3N + 2N = 168, bytes 30*4*2 +
 * (2 + 1 + 1 + 2)*3*4 = 312.  "False" (running stats; TraceLens's
 * bool("False") reads it as True): FLOPs 6C + 2N = 78, bytes 240 + 4*3*4
 * = 288. */
static void test_instance_norm(void **state)
{
  rpd_perf_op o;
  (void)state;
  static const char dims[] = "[[2,3,5],[3],[3],[3],[3],[],[],[],[]]";
  static const char types[] =
    "[\"float\",\"float\",\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]";
  model("aten::instance_norm", dims, types,
        "[\"\",\"\",\"\",\"\",\"\",\"True\",\"0.1\",\"1e-05\",\"False\"]", &o);
  assert_string_equal(o.category, "Normalization");
  assert_string_equal(o.spec, "vector_fp32");
  assert_true(o.flops == 168);
  assert_true(o.bytes == 312);
  assert_non_null(strstr(o.params, "\"num_channels\":3,\"has_bias\":true,"
                                   "\"is_affine\":true,\"is_training\":true"));
  rpd_perf_op_free(&o);
  model("aten::instance_norm", dims, types,
        "[\"\",\"\",\"\",\"\",\"\",\"False\",\"0.1\",\"1e-05\",\"False\"]", &o);
  assert_true(o.flops == 78);
  assert_true(o.bytes == 288);
  assert_non_null(strstr(o.params, "\"is_training\":false"));
  rpd_perf_op_free(&o);
}

/* rpd_perf_arg: the first top-level member of that name, values (nested,
 * strings with quotes and brackets) skipped; the addmm of test_addmm from
 * an args object models the same as from its extracted arrays. */
static void test_args(void **state)
{
  static const char args[] =
    "{\"External id\": 7, \"Input Dims\\\"\": [[9]], \"note\": \"a \\\"[x\\\" ]}\","
    " \"nested\": {\"Input Dims\": [[8]]}, \"Input Dims\": [[3], [2, 4], [4, 3], [], []],"
    " \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"],"
    " \"Input Dims\": [[1]], \"Input Strides\": [[1], [4, 1], [1, 4], [], []], \"ok\": null}";
  const char *d = rpd_perf_arg(args, "Input Dims");
  rpd_perf_op o;
  (void)state;
  assert_non_null(d);
  assert_int_equal(strncmp(d, "[[3], [2, 4]", 12), 0);
  assert_int_equal(rpd_perf_arg_len(d), strlen("[[3], [2, 4], [4, 3], [], []]"));
  assert_int_equal(rpd_perf_arg_len(rpd_perf_arg(args, "note")),
                   strlen("\"a \\\"[x\\\" ]}\""));
  assert_int_equal(rpd_perf_arg_len(NULL), 0);
  assert_int_equal(strncmp(rpd_perf_arg(args, "ok"), "null}", 5), 0);
  assert_int_equal(strncmp(rpd_perf_arg(args, "External id"), "7,", 2), 0);
  assert_null(rpd_perf_arg(args, "Concrete Inputs"));
  assert_null(rpd_perf_arg(args, "Input"));
  assert_null(rpd_perf_arg("[1, 2]", "Input Dims"));
  assert_null(rpd_perf_arg("{\"a\": [1, 2}", "b"));   /* broken: stops */
  assert_null(rpd_perf_arg(NULL, "a"));
  {  /* the four at once: the same pointers, the first of each name */
    static const char *const keys[4] = {"Input Dims", "Concrete Inputs", "ok", "Input type"};
    const char *v[4];
    size_t len[4];
    rpd_perf_args(args, keys, 4, v, len);
    assert_ptr_equal(v[0], d);
    assert_int_equal(len[0], rpd_perf_arg_len(d));
    assert_null(v[1]);
    assert_int_equal(len[1], 0);
    assert_ptr_equal(v[2], rpd_perf_arg(args, "ok"));
    assert_int_equal(len[2], 4);
    assert_ptr_equal(v[3], rpd_perf_arg(args, "Input type"));
    assert_int_equal(len[3], rpd_perf_arg_len(v[3]));
    rpd_perf_args("{\"ok\": 1, \"x\" 5, \"Input Dims\": [2]}", keys, 4, v, NULL);  /* broken after ok */
    assert_null(v[0]);
    assert_int_equal(strncmp(v[2], "1,", 2), 0);
  }
  assert_int_equal(rpd_perf_model("aten::addmm", d, rpd_perf_arg(args, "Input type"),
                                   rpd_perf_arg(args, "Input Strides"),
                                   rpd_perf_arg(args, "Concrete Inputs"), &o), RPD_OK);
  assert_string_equal(o.category, "GEMM");
  assert_true(o.flops == 54);
  assert_true(o.bytes == 58);
  assert_non_null(strstr(o.params, "\"stride_A\":\"(4, 1)\""));
  rpd_perf_op_free(&o);
}

/* rpd_perf_named: every name the tests above model is named; names no
 * model takes are not (a lean Kineto read drops their args). */
static void test_named(void **state)
{
  static const char *const yes[] = {
    "aten::_fused_rms_norm", "aten::_fused_rms_norm_backward",
    "aten::_scaled_dot_product_flash_attention",
    "aten::_scaled_dot_product_flash_attention_backward", "aten::_scaled_mm", "aten::add",
    "aten::addmm", "aten::baddbmm", "aten::batch_norm", "aten::bmm", "aten::convolution",
    "aten::convolution_backward", "aten::copy_", "aten::group_norm", "aten::layer_norm",
    "aten::linear", "aten::matmul", "aten::mean", "aten::mm", "aten::mul",
    "aten::native_layer_norm", "aten::native_layer_norm_backward", "aten::pow", "aten::sum",
  };
  static const char *const no[] = {"aten::view", "aten::empty", "aten::mm_", "aten::m", "", "mm"};
  (void)state;
  for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
    if (!rpd_perf_named(yes[i])) fail_msg("'%s' not named", yes[i]);
  for (size_t i = 0; i < sizeof no / sizeof *no; i++)
    if (rpd_perf_named(no[i])) fail_msg("'%s' named", no[i]);
  assert_int_equal(rpd_perf_named(NULL), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_named),
    cmocka_unit_test(test_addmm), cmocka_unit_test(test_bmm),
    cmocka_unit_test(test_baddbmm), cmocka_unit_test(test_scaled_mm),
    cmocka_unit_test(test_linear), cmocka_unit_test(test_binary),
    cmocka_unit_test(test_unary), cmocka_unit_test(test_sdpa),
    cmocka_unit_test(test_none_and_bad), cmocka_unit_test(test_arch_and_roofline),
    cmocka_unit_test(test_link_peaks),
    cmocka_unit_test(test_layer_norm), cmocka_unit_test(test_batch_norm),
    cmocka_unit_test(test_layer_norm_bwd), cmocka_unit_test(test_rms_norm),
    cmocka_unit_test(test_reduce), cmocka_unit_test(test_conv), cmocka_unit_test(test_sdpa_bwd),
    cmocka_unit_test(test_args), cmocka_unit_test(test_group_norm),
    cmocka_unit_test(test_group_norm_bwd), cmocka_unit_test(test_instance_norm),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
