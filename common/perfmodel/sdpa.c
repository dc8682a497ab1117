/* sdpa.c - the scaled dot product attention model. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pm.h"

/* q [B, H_Q, N_Q, d_qk], k [B, H_KV, N_KV, d_qk], v [B, H_KV, N_KV, d_v]:
 * FLOPs 2*B*H_Q*N_Q*N_KV*(d_qk + d_v), halved when causal; bytes of q, k,
 * v and the output [B, H_Q, N_Q, d_v] in q's element size. */
int pm_model_sdpa(const char *name, const arr *d, const arr *t,
                      const arr *c, rpd_perf_op *o)
{
  int idrop, icausal, flash = 0;
  const elem *q, *k, *v;
  int64_t B, HQ, NQ, HKV, NKV, DQK, DV;
  int causal, bpe;
  double dropout = 0;
  rpd_buf b = {0};
  const char *tq = pm_type_at(t, 0);
  if (strcmp(name, "aten::_scaled_dot_product_flash_attention") == 0) {
    idrop = 3; icausal = 4; flash = 1;
  } else if (strcmp(name, "aten::_scaled_dot_product_efficient_attention") == 0) {
    idrop = 5; icausal = 6;
  } else if (strcmp(name, "aten::_scaled_dot_product_cudnn_attention") == 0) {
    idrop = 6; icausal = 7;
  } else if (strcmp(name, "aten::scaled_dot_product_attention") == 0) {
    idrop = 4; icausal = 5;
  } else {
    return 0;
  }
  if (!pm_is_shape(d, 0) || !pm_is_shape(d, 1) || !pm_is_shape(d, 2)) return 0;
  q = &d->e[0]; k = &d->e[1]; v = &d->e[2];
  if (q->n != 4 || k->n != 4 || v->n != 4) return 0;
  B = q->v[0]; HQ = q->v[1]; NQ = q->v[2]; DQK = q->v[3];
  HKV = k->v[1]; NKV = k->v[2]; DV = v->v[3];
  causal = pm_concrete_bool(c, icausal);
  if (idrop < c->n && c->e[idrop].kind == 2) dropout = atof(c->e[idrop].s);
  bpe = rpd_perf_dtype_bytes(tq);
  o->category = "SDPA_fwd";
  o->flops = 2.0 * B * HQ * NQ * NKV * (double)(DQK + DV) / (causal ? 2 : 1);
  o->bytes = bpe ? (double)bpe * ((double)pm_numel(q) + pm_numel(k) + pm_numel(v) +
                                  (double)B * HQ * NQ * DV)
                 : -1;
  pm_set_spec(o, "matrix", tq);
  rpd_buf_printf(&b, "{\"B\":%lld,\"N_Q\":%lld,\"H_Q\":%lld,\"N_KV\":%lld,"
                 "\"H_KV\":%lld,\"d_h_qk\":%lld,\"d_h_v\":%lld,\"dropout\":%.17g%s,"
                 "\"causal\":%s,\"flash_impl\":%s,\"dtype_A_B\":\"(",
                 (long long)B, (long long)NQ, (long long)HQ, (long long)NKV,
                 (long long)HKV, (long long)DQK, (long long)DV, dropout,
                 /* a JSON real even when whole (0.0): TraceLens's float */
                 dropout == floor(dropout) && fabs(dropout) < 1e15 ? ".0" : "",
                 causal ? "true" : "false", flash ? "true" : "false");
  pm_put_py_str(&b, tq);
  rpd_buf_puts(&b, ", ");
  pm_put_py_str(&b, pm_type_at(t, 1));
  rpd_buf_puts(&b, ")\"}");
  o->params = b.s;
  return 1;
}

