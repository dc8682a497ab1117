/* sdpa.c - the scaled dot product attention model, forward and backward. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pm.h"

/* The attention ops: backward, index of q (k, v follow), layout of q
 * (0: [B, H, N, d], 1: flash_attn's [B, N, H, d]), index of dropout and
 * causal in the concrete inputs, flash (the backward recomputes QK^T). */
static const struct aop {
  const char *name;
  int bwd, iq, bnhd, idrop, icausal, flash;
} aops[] = {
  {"aten::_scaled_dot_product_flash_attention", 0, 0, 0, 3, 4, 1},
  {"aten::_scaled_dot_product_efficient_attention", 0, 0, 0, 5, 6, 0},
  {"aten::_scaled_dot_product_cudnn_attention", 0, 0, 0, 6, 7, 0},
  {"aten::scaled_dot_product_attention", 0, 0, 0, 4, 5, 0},
  {"aten::_scaled_dot_product_flash_attention_backward", 1, 1, 0, 10, 11, 1},
  {"aten::_scaled_dot_product_efficient_attention_backward", 1, 1, 0, 9, 11, 0},
  {"aten::_scaled_dot_product_cudnn_attention_backward", 1, 1, 0, 13, 14, 0},
  {"flash_attn::_flash_attn_backward", 1, 1, 1, 8, 10, 1},
};

/* Forward, q [B, H_Q, N_Q, d_qk], k [B, H_KV, N_KV, d_qk], v [B, H_KV,
 * N_KV, d_v]: FLOPs 2*B*H_Q*N_Q*N_KV*(d_qk + d_v) (QK^T and PV), halved
 * when causal; bytes of q, k, v and the output [B, H_Q, N_Q, d_v] in q's
 * element size.  Backward: dV = P^T dO, dP = dO V^T, dQ = dS K, dK = dS^T Q
 * (2*B*H_Q*N_Q*N_KV*(2*d_qk + 2*d_v)), + QK^T again for flash, + the
 * GQA sums of dK and dV over the H_Q / H_KV heads of a group
 * (B*N_KV*(d_qk + d_v)*(H_Q/H_KV - 1)), halved when causal; bytes of q, k,
 * v, dO, dQ, dK, dV. */
int pm_knows_sdpa(const char *name)
{
  for (size_t i = 0; i < sizeof aops / sizeof *aops; i++)
    if (strcmp(name, aops[i].name) == 0) return 1;
  return 0;
}

int pm_model_sdpa(const char *name, const arr *d, const arr *t,
                  const arr *c, rpd_perf_op *o)
{
  const struct aop *op = NULL;
  const elem *q, *k, *v;
  int64_t B, HQ, NQ, HKV, NKV, DQK, DV;
  int causal, bpe, ih = 1, in = 2;
  double dropout = 0, f;
  rpd_buf b = {0};
  for (size_t i = 0; i < sizeof aops / sizeof *aops; i++)
    if (strcmp(name, aops[i].name) == 0) op = &aops[i];
  if (!op) return 0;
  const char *tq = pm_type_at(t, op->iq);
  if (!pm_is_shape(d, op->iq) || !pm_is_shape(d, op->iq + 1) || !pm_is_shape(d, op->iq + 2))
    return 0;
  q = &d->e[op->iq]; k = &d->e[op->iq + 1]; v = &d->e[op->iq + 2];
  if (q->n != 4 || k->n != 4 || v->n != 4) return 0;
  if (op->bnhd) { ih = 2; in = 1; }
  B = q->v[0]; HQ = q->v[ih]; NQ = q->v[in]; DQK = q->v[3];
  HKV = k->v[ih]; NKV = k->v[in]; DV = v->v[3];
  if (HKV <= 0) return 0;
  causal = pm_concrete_bool(c, op->icausal);
  if (op->idrop < c->n && c->e[op->idrop].kind == 2) dropout = atof(c->e[op->idrop].s);
  bpe = rpd_perf_dtype_bytes(tq);
  if (!op->bwd) {
    o->category = "SDPA_fwd";
    f = 2.0 * B * HQ * NQ * NKV * (double)(DQK + DV);
    o->bytes = (double)pm_numel(q) + pm_numel(k) + pm_numel(v) + (double)B * HQ * NQ * DV;
  } else {
    o->category = "SDPA_bwd";
    f = 2.0 * B * HQ * NQ * NKV * (double)(2 * DQK + 2 * DV + (op->flash ? DQK : 0)) +
        (double)B * NKV * (double)(DQK + DV) * (double)(HQ / HKV - 1);
    o->bytes = 2 * ((double)pm_numel(q) + pm_numel(k) + pm_numel(v)) + (double)B * HQ * NQ * DV;
  }
  o->flops = f / (causal ? 2 : 1);
  o->bytes = bpe ? o->bytes * bpe : -1;
  pm_set_spec(o, "matrix", tq);
  rpd_buf_printf(&b, "{\"B\":%lld,\"N_Q\":%lld,\"H_Q\":%lld,\"N_KV\":%lld,"
                 "\"H_KV\":%lld,\"d_h_qk\":%lld,\"d_h_v\":%lld,\"dropout\":%.17g%s,"
                 "\"causal\":%s,\"flash_impl\":%s,\"dtype_A_B\":\"(",
                 (long long)B, (long long)NQ, (long long)HQ, (long long)NKV,
                 (long long)HKV, (long long)DQK, (long long)DV, dropout,
                 /* a JSON real even when whole (0.0): TraceLens's float */
                 dropout == floor(dropout) && fabs(dropout) < 1e15 ? ".0" : "",
                 causal ? "true" : "false", op->flash ? "true" : "false");
  pm_put_py_str(&b, tq);
  rpd_buf_puts(&b, ", ");
  pm_put_py_str(&b, pm_type_at(t, op->iq + 1));
  rpd_buf_puts(&b, ")\"}");
  o->params = b.s;
  return 1;
}
