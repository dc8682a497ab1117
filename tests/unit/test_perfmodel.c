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

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_addmm), cmocka_unit_test(test_bmm),
    cmocka_unit_test(test_baddbmm), cmocka_unit_test(test_scaled_mm),
    cmocka_unit_test(test_linear), cmocka_unit_test(test_binary),
    cmocka_unit_test(test_unary), cmocka_unit_test(test_sdpa),
    cmocka_unit_test(test_none_and_bad), cmocka_unit_test(test_arch_and_roofline),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
