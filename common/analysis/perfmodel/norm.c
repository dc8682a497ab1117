/* norm.c - the Normalization model: layer, batch and RMS norm, forward and
 * backward, group norm forward and backward, instance norm forward, with
 * TraceLens's parameters (op_shape, num_channels, has_bias, is_affine,
 * is_training, output_mask) and formulas; see docs/rpd-perfmodel.md for the
 * places where we differ. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm.h"

enum { LAYER, BATCH, RMS, GROUP };

/* The ops: kind, backward, index of the input, of the normalized shape
 * (layer/RMS) or -1, of the training flag or -1, of the output mask or -1. */
static const struct nop {
  const char *name;
  int kind, bwd, x, shape, train, mask;
} nops[] = {
  {"aten::layer_norm", LAYER, 0, 0, 1, -1, -1},
  {"aten::native_layer_norm", LAYER, 0, 0, 1, -1, -1},
  {"aten::miopen_layer_norm", LAYER, 0, 0, 1, -1, -1},
  {"aten::cudnn_layer_norm", LAYER, 0, 0, 1, -1, -1},
  {"aten::batch_norm", BATCH, 0, 0, -1, 5, -1},
  {"aten::native_batch_norm", BATCH, 0, 0, -1, 5, -1},
  {"aten::miopen_batch_norm", BATCH, 0, 0, -1, 5, -1},
  {"aten::cudnn_batch_norm", BATCH, 0, 0, -1, 5, -1},
  {"aten::_fused_rms_norm", RMS, 0, 0, 1, -1, -1},
  {"aten::layer_norm_backward", LAYER, 1, 1, 2, -1, 7},
  {"aten::native_layer_norm_backward", LAYER, 1, 1, 2, -1, 7},
  {"aten::miopen_layer_norm_backward", LAYER, 1, 1, 2, -1, 7},
  {"aten::cudnn_layer_norm_backward", LAYER, 1, 1, 2, -1, 7},
  {"aten::batch_norm_backward", BATCH, 1, 1, -1, 7, -1},
  {"aten::native_batch_norm_backward", BATCH, 1, 1, -1, 7, -1},
  /* (input, grad_output, weight, ...): eval mode, as TraceLens */
  {"aten::miopen_batch_norm_backward", BATCH, 1, 0, -1, -1, -1},
  {"aten::cudnn_batch_norm_backward", BATCH, 1, 0, -1, -1, -1},
  {"aten::_fused_rms_norm_backward", RMS, 1, 1, 2, -1, 5},
  {"aten::rms_norm_backward", RMS, 1, 1, 2, -1, 5},
};

/* Forward of layer / batch norm over N elements in C channels: the
 * per-channel scale and shift (3C), 1/std (3C), the statistics when
 * training (3N), then a multiply-add per element (2N); bytes of input and
 * output, and of C-element tensors: mean, var, weight if affine, bias if
 * also given, and the running stats written when training. */
static void norm_fwd(double N, double C, int bias, int affine, int train, int bi, int bo,
                     double *flops, double *bytes)
{
  int w = 2 + (affine ? 1 + (bias != 0) : 0) + (train ? 2 : 0);
  *flops = 6 * C + (train ? 3 * N : 0) + 2 * N;
  *bytes = N * bi + N * bo + (double)w * C * bi;
}

/* Backward: per channel of E = N / C elements, 1/std when not training
 * (3), the dot product (4E), grad_input when asked (training 5E, else 2E:
 * dy * invstd * w); bytes: grad_out, input (twice for a training
 * grad_input), invstd when training, weight when affine and its grads when
 * also training. */
static void norm_bwd(double N, double C, int bias, int affine, int train, int mask0, int bi,
                     int bo, double *flops, double *bytes)
{
  double E = N / C;
  *flops = C * ((train ? 0 : 3) + 4 * E + (mask0 ? (train ? 5 * E : 2 * E) : 0));
  *bytes = N * bo + N * bi * (mask0 && train ? 2 : 1) + (train ? C * bi : 0) +
           (affine ? C * bi + (train ? C * bi * (bias ? 2 : 1) : 0) : 0);
}

/* RMS norm forward: the rsqrt of each of N / C rows (2C + 2), one multiply
 * per element, another with the weight; bytes of input, output, weight. */
static void rms_fwd(double N, double C, int affine, int bi, int bo, double *flops,
                    double *bytes)
{
  *flops = N / C * (2 * C + 2) + N * (affine ? 2 : 1);
  *bytes = N * bi + N * bo + (affine ? C * bi : 0);
}

/* RMS norm backward: x_hat (N), grad_out * weight (N), grad_input (6N)
 * when asked, grad_weight (N, + N to accumulate over rows); bytes of
 * grad_out, input twice, weight and its grad. */
static void rms_bwd(double N, double C, int affine, const int *mask, int bi, int bo,
                    double *flops, double *bytes)
{
  *flops = (affine ? N : 0) + N + (mask[0] ? 6 * N : 0) +
           (mask[1] && affine ? N + (N / C > 1 ? N : 0) : 0);
  *bytes = N * bo + 2 * N * bi + (affine ? 2 * C * bi : 0);
}

static const char *tf(int v) { return v ? "true" : "false"; }

/* The params of a norm op of input x (index xi) in TraceLens's keys. */
static char *norm_params(const elem *x, const char *tx, const arr *st, int xi, double C,
                         int bias, int affine, int train, const int *mask, int nmask)
{
  rpd_buf b = {0};
  rpd_buf_puts(&b, "{\"op_shape\":\"");
  pm_put_tuple(&b, x);
  rpd_buf_puts(&b, "\",\"dtype_in_out\":\"(");
  pm_put_py_str(&b, tx);
  rpd_buf_puts(&b, ", None)\"");
  pm_put_key_tuple(&b, "stride_input", st, xi);
  rpd_buf_printf(&b, ",\"stride_output\":\"\",\"num_channels\":%.0f,\"has_bias\":%s,"
                 "\"is_affine\":%s,\"is_training\":%s", C, tf(bias), tf(affine), tf(train));
  if (nmask > 0) {
    rpd_buf_puts(&b, ",\"output_mask\":\"[");
    for (int i = 0; i < nmask; i++)
      rpd_buf_printf(&b, "%s%s", i ? ", " : "", mask[i] ? "True" : "False");
    rpd_buf_puts(&b, "]\"");
  }
  rpd_buf_puts(&b, "}");
  return b.s;
}

/* Group and instance norm: the channels are dim 1 of the input (for the
 * group norm backward, per group: TraceLens's num_channels), the weight
 * and bias where each op's signature has them, the statistics always
 * computed (group norm) or when use_input_stats (instance norm: TraceLens's
 * is_training).  Indexes: input, weight, bias (-1: none), the training
 * flag (-1: always), the number of groups and the output mask (-1: none). */
/* The model of a normalization of x (type tx, dims index xi) over N
 * elements in groups of C, from its flags bat = {bias, affine, train} and
 * the gradients it computes (mask, nmask): the same for every kind but
 * RMS, which has no mean. */
static int finish(rpd_perf_op *o, int kind, int bwd, const elem *x, const char *tx,
                  const arr *st, int xi, double N, double C, const int *bat,
                  const int *mask, int nmask)
{
  int bias = bat[0], affine = bat[1], train = bat[2], bpe = rpd_perf_dtype_bytes(tx);
  o->category = "Normalization";
  if (kind == RMS && bwd)
    rms_bwd(N, C, affine, mask, bpe, bpe, &o->flops, &o->bytes);
  else if (kind == RMS)
    rms_fwd(N, C, affine, bpe, bpe, &o->flops, &o->bytes);
  else if (bwd)
    norm_bwd(N, C, bias, affine, train, mask[0], bpe, bpe, &o->flops, &o->bytes);
  else
    norm_fwd(N, C, bias, affine, train, bpe, bpe, &o->flops, &o->bytes);
  if (!bpe) o->bytes = -1;
  pm_set_spec(o, "vector", tx);
  o->params = norm_params(x, tx, st, xi, C, bias, affine, train, mask, nmask);
  return 1;
}

static const struct gop {
  const char *name;
  int bwd, x, w, b, train, groups, mask;
} gops[] = {
  {"aten::group_norm", 0, 0, 2, 3, -1, -1, -1},
  {"aten::native_group_norm", 0, 0, 1, 2, -1, -1, -1},
  {"aten::native_group_norm_backward", 1, 1, 4, -1, -1, 8, 9},
  {"aten::instance_norm", 0, 0, 1, 2, 5, -1, -1},
};

static int model_group(const struct gop *op, const arr *d, const arr *t, const arr *st,
                       const arr *c, rpd_perf_op *o)
{
  int mask[3] = {1, 1, 1}, nmask = 0, bias, affine, train;
  double N, C;
  if (!pm_given(d, op->x)) return 0;
  const elem *x = &d->e[op->x];
  const char *tx = pm_type_at(t, op->x);
  if (x->n < 2 || x->v[1] <= 0) return 0;
  N = (double)pm_numel(x);
  C = (double)x->v[1];
  if (op->groups >= 0) {
    int64_t g = 0;
    if (pm_concrete_ints(c, op->groups, &g, 1) != 1 || g <= 0) return 0;
    C /= (double)g;
  }
  affine = pm_given(d, op->w);
  if (op->mask >= 0) {
    nmask = pm_concrete_bools(c, op->mask, mask, 3);
    if (nmask < 1) {   /* no concrete inputs: the gradients of what is given */
      mask[1] = mask[2] = affine;
      nmask = 3;
    }
  }
  bias = op->b >= 0 ? pm_given(d, op->b) : affine && (nmask < 3 || mask[2]);
  train = op->train >= 0 ? pm_concrete_bool(c, op->train) : 1;
  return finish(o, GROUP, op->bwd, x, tx, st, op->x, N, C,
                (int[]){bias, affine, train}, mask, nmask);
}

int pm_knows_norm(const char *name)
{
  for (size_t i = 0; i < sizeof gops / sizeof *gops; i++)
    if (strcmp(name, gops[i].name) == 0) return 1;
  for (size_t i = 0; i < sizeof nops / sizeof *nops; i++)
    if (strcmp(name, nops[i].name) == 0) return 1;
  return 0;
}

int pm_model_norm(const char *name, const arr *d, const arr *t, const arr *st,
                  const arr *c, rpd_perf_op *o)
{
  const struct nop *op = NULL;
  int64_t shp[MAXDIM];
  int mask[3] = {1, 1, 1}, nmask = 0, bias, affine, train;
  double N, C = 1;
  for (size_t i = 0; i < sizeof gops / sizeof *gops; i++)
    if (strcmp(name, gops[i].name) == 0) return model_group(&gops[i], d, t, st, c, o);
  for (size_t i = 0; i < sizeof nops / sizeof *nops; i++)
    if (strcmp(name, nops[i].name) == 0) op = &nops[i];
  if (!op || !pm_given(d, op->x)) return 0;
  const elem *x = &d->e[op->x];
  const char *tx = pm_type_at(t, op->x);
  N = (double)pm_numel(x);
  if (op->shape >= 0) {
    int n = pm_concrete_ints(c, op->shape, shp, MAXDIM);
    /* a trace without concrete inputs: the weight has normalized_shape */
    int iw = op->kind == LAYER ? (op->bwd ? 5 : 2) : (op->bwd ? 4 : 2);
    if (n < 0 && !pm_given(d, iw)) return 0;
    if (n < 0)
      C = (double)pm_numel(&d->e[iw]);
    for (int i = 0; i < n; i++) C *= (double)shp[i];
  } else {
    if (x->n < 2) return 0;
    C = (double)x->v[1];   /* batch norm: channels are dim 1 */
  }
  if (C <= 0) return 0;
  if (op->mask >= 0) {
    nmask = pm_concrete_bools(c, op->mask, mask, 3);
    if (nmask < 1 && op->kind == LAYER) {
      /* no concrete inputs: every gradient of the tensors given */
      mask[1] = pm_given(d, 5);
      mask[2] = pm_given(d, 6);
      nmask = 3;
    } else if (nmask < 1) {
      nmask = 2;   /* RMS: grad_input and grad_weight */
    }
  }
  /* weight and bias: [] when absent */
  train = op->train >= 0 ? pm_concrete_bool(c, op->train) : op->kind == LAYER;
  if (op->kind == LAYER && op->bwd) {
    affine = nmask > 1 && mask[1];
    bias = nmask > 2 && mask[2];
  } else if (op->kind == LAYER) {
    affine = pm_given(d, 2);
    bias = pm_given(d, 3);
  } else if (op->kind == BATCH) {
    affine = pm_given(d, 2);
    bias = op->bwd ? affine : pm_given(d, 3);
    if (op->bwd) nmask = 1;   /* grad_input always: TraceLens's [True] */
  } else {
    affine = pm_given(d, op->bwd ? 4 : 2);
    bias = 0;
  }
  return finish(o, op->kind, op->bwd, x, tx, st, op->x, N, C,
                (int[]){bias, affine, train}, mask, nmask);
}
