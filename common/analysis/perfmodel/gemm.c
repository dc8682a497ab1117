/* gemm.c - the GEMM model: mm, addmm, bmm, baddbmm, _scaled_mm, linear,
 * matmul. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pm.h"

/* GEMM of B batches of (MxK)(KxN) (+ bias of N elements): TraceLens's
 * rule, every operand in A's element size. */
static void gemm(rpd_perf_op *o, const arr *d, const arr *t, const arr *st,
                 int ia, int ib, int64_t B, int64_t M, int64_t N, int64_t K,
                 int bias)
{
  const char *ta = pm_type_at(t, ia), *tb = pm_type_at(t, ib);
  int bpe = rpd_perf_dtype_bytes(ta);
  /* _scaled_mm of fp8 writes 16-bit results (TraceLens's assumption) */
  int out_bpe = bpe == 1 ? 2 : bpe;
  rpd_buf b = {0};
  o->category = "GEMM";
  o->flops = (double)B * (2.0 * M * N * K + (bias ? (double)M * N : 0));
  /* per batch: A, B, the output and a bias of N elements */
  o->bytes = bpe ? (double)B * ((double)bpe * ((double)M * K + (double)K * N +
                                               (bias ? N : 0)) +
                                (double)out_bpe * M * N)
                 : -1;
  pm_set_spec(o, "matrix", ta);
  rpd_buf_printf(&b, "{\"B\":%lld,\"M\":%lld,\"N\":%lld,\"K\":%lld,\"bias\":%s",
                 (long long)B, (long long)M, (long long)N, (long long)K,
                 bias ? "true" : "false");
  pm_put_key_tuple(&b, "stride_A", st, ia);
  pm_put_key_tuple(&b, "stride_B", st, ib);
  rpd_buf_puts(&b, ",\"dtype_A_B\":\"(");
  pm_put_py_str(&b, ta);
  rpd_buf_puts(&b, ", ");
  pm_put_py_str(&b, tb);
  rpd_buf_puts(&b, ")\"}");
  (void)d;
  o->params = b.s;
}

/* Every op name the model below takes (the gate of pm_model_gemm). */
static const char *const gemm_ops[] = {
  "aten::mm", "aten::addmm", "aten::_scaled_mm", "aten::bmm", "aten::baddbmm",
  "aten::linear", "aten::matmul", NULL,
};

int pm_knows_gemm(const char *name)
{
  return pm_in_list(name, gemm_ops);
}

int pm_model_gemm(const char *name, const arr *d, const arr *t,
                      const arr *st, rpd_perf_op *o)
{
  const elem *a, *b;
  if (!pm_in_list(name, gemm_ops)) return 0;
  if (strcmp(name, "aten::mm") == 0 || strcmp(name, "aten::addmm") == 0) {
    int off = name[6] == 'a';  /* addmm: input, mat1, mat2 */
    if (!pm_is_shape(d, off) || !pm_is_shape(d, off + 1)) return 0;
    a = &d->e[off];
    b = &d->e[off + 1];
    if (a->n != 2 || b->n != 2) return 0;
    gemm(o, d, t, st, off, off + 1, 1, a->v[0], b->v[1], a->v[1], off);
    return 1;
  }
  if (strcmp(name, "aten::_scaled_mm") == 0) {
    /* self [M, K], mat2 [K, N], scale_a, scale_b, bias? */
    if (!pm_is_shape(d, 0) || !pm_is_shape(d, 1)) return 0;
    a = &d->e[0];
    b = &d->e[1];
    if (a->n != 2 || b->n != 2) return 0;
    gemm(o, d, t, st, 0, 1, 1, a->v[0], b->v[1], a->v[1], pm_has_tensor(d, t, 4));
    return 1;
  }
  if (strcmp(name, "aten::bmm") == 0 || strcmp(name, "aten::baddbmm") == 0) {
    int off = name[6] == 'b' && name[7] == 'a';  /* baddbmm: input, b1, b2 */
    if (!pm_is_shape(d, off) || !pm_is_shape(d, off + 1)) return 0;
    a = &d->e[off];
    b = &d->e[off + 1];
    if (a->n != 3 || b->n != 3) return 0;
    gemm(o, d, t, st, off, off + 1, a->v[0], a->v[1], b->v[2], a->v[2], off);
    return 1;
  }
  if (strcmp(name, "aten::linear") == 0) {
    /* input [..., K], weight [N, K], optional bias [N] */
    int64_t M = 1;
    if (!pm_is_shape(d, 0) || !pm_is_shape(d, 1)) return 0;
    a = &d->e[0];
    b = &d->e[1];
    if (a->n < 1 || b->n != 2) return 0;
    for (int i = 0; i + 1 < a->n; i++) M *= a->v[i];
    gemm(o, d, t, st, 0, 1, 1, M, b->v[0], b->v[1], pm_has_tensor(d, t, 2));
    return 1;
  }
  if (strcmp(name, "aten::matmul") == 0) {
    /* [..., M, K] x [K, N] or batched [..., M, K] x [..., K, N] */
    int64_t B = 1, M = 1;
    if (!pm_is_shape(d, 0) || !pm_is_shape(d, 1)) return 0;
    a = &d->e[0];
    b = &d->e[1];
    if (a->n < 2 || b->n < 2) return 0;
    if (b->n == 2) {
      for (int i = 0; i + 1 < a->n; i++) M *= a->v[i];
    } else {
      for (int i = 0; i + 2 < a->n; i++) B *= a->v[i];
      M = a->v[a->n - 2];
    }
    gemm(o, d, t, st, 0, 1, B, M, b->v[b->n - 1], a->v[a->n - 1], 0);
    return 1;
  }
  return 0;
}

