/* conv.c - the CONV model: aten::convolution (CONV_fwd) and
 * aten::convolution_backward (CONV_bwd), 1-D to 3-D, grouped, transposed,
 * with TraceLens's parameters and formulas (docs/rpd-perfmodel.md lists
 * where we differ). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm.h"

#define MAXSP 3   /* spatial dims */

typedef struct conv {
  const elem *x, *w;
  int nd, bias, transposed, groups;
  int64_t stride[MAXSP], pad[MAXSP], dil[MAXSP], opad[MAXSP];
  int64_t out[2 + MAXSP];   /* N, C_out, spatial */
} conv;

/* Concrete input i as nd integers (one broadcast to all, absent: dflt). */
static int spatial(const arr *c, int i, int nd, int64_t dflt, int64_t *v)
{
  int n = pm_concrete_ints(c, i, v, MAXSP);
  if (n < 0) n = 0;
  if (n == 0)
    v[0] = dflt;
  if (n <= 1)
    for (int k = 1; k < nd; k++) v[k] = v[0];
  return n <= 1 || n == nd;
}

/* Read the conv's args from index ix (input), iw (weight), ic (stride:
 * then padding, dilation, transposed, output_padding, groups). */
static int read_conv(const arr *d, const arr *c, int ix, int iw, int ic, conv *k)
{
  if (!pm_given(d, ix) || !pm_given(d, iw)) return 0;
  k->x = &d->e[ix];
  k->w = &d->e[iw];
  k->nd = k->x->n - 2;
  if (k->nd < 1 || k->nd > MAXSP || k->w->n != k->x->n) return 0;
  if (!spatial(c, ic, k->nd, 1, k->stride) || !spatial(c, ic + 1, k->nd, 0, k->pad) ||
      !spatial(c, ic + 2, k->nd, 1, k->dil) || !spatial(c, ic + 4, k->nd, 0, k->opad))
    return 0;
  k->transposed = pm_concrete_bool(c, ic + 3);
  k->groups = 1;
  if (ic + 5 < c->n && c->e[ic + 5].kind == 2 && atoi(c->e[ic + 5].s) > 0)
    k->groups = atoi(c->e[ic + 5].s);
  k->out[0] = k->x->v[0];
  /* weight [C_out, C_in/g, k...], transposed [C_in, C_out/g, k...] */
  k->out[1] = k->transposed ? k->w->v[1] * k->groups : k->w->v[0];
  for (int i = 0; i < k->nd; i++) {
    int64_t in = k->x->v[2 + i], ks = k->w->v[2 + i];
    if (k->stride[i] <= 0) return 0;
    k->out[2 + i] = k->transposed
                        ? (in - 1) * k->stride[i] - 2 * k->pad[i] + k->dil[i] * (ks - 1) +
                              k->opad[i] + 1
                        : (in + 2 * k->pad[i] - k->dil[i] * (ks - 1) - 1) / k->stride[i] + 1;
    if (k->out[2 + i] <= 0) return 0;
  }
  return 1;
}

static double prod(const int64_t *v, int n)
{
  double p = 1;
  for (int i = 0; i < n; i++) p *= (double)v[i];
  return p;
}

/* The conv's multiply-adds as FLOPs: 2 * (C_in/g * kernel) per output
 * element (per input element when transposed). */
static double conv_flops(const conv *k)
{
  return 2 * prod(k->w->v + 1, k->w->n - 1) *
         (k->transposed ? prod(k->x->v, k->x->n) : prod(k->out, 2 + k->nd));
}

static void put_ints(rpd_buf *b, const char *key, const int64_t *v, int n)
{
  elem e = {.kind = 1, .n = n};
  memcpy(e.v, v, (size_t)n * sizeof *v);
  rpd_buf_printf(b, ",\"%s\":\"", key);
  pm_put_tuple(b, &e);
  rpd_buf_puts(b, "\"");
}

/* Forward: FLOPs of the conv + one add per output element with a bias;
 * bytes of input, weight, bias (C_out) and output.  Backward: grad_input
 * (the conv's FLOPs; bytes of grad_out, weight, grad_input), grad_weight
 * (2 * |weight| * N * output spatial, input spatial when transposed; bytes
 * of grad_out, input, grad_weight) and grad_bias (|out| FLOPs; bytes of
 * grad_out and C_out), each when output_mask asks for it. */
int pm_knows_conv(const char *name)
{
  return strcmp(name, "aten::convolution") == 0 ||
         strcmp(name, "aten::convolution_backward") == 0;
}

int pm_model_conv(const char *name, const arr *d, const arr *t, const arr *st,
                  const arr *c, rpd_perf_op *o)
{
  int bwd, mask[3] = {1, 1, 1}, bpe;
  conv k = {0};
  rpd_buf b = {0};
  double nx, nw, nout, sp;
  if (strcmp(name, "aten::convolution") == 0)
    bwd = 0;
  else if (strcmp(name, "aten::convolution_backward") == 0)
    bwd = 1;
  else
    return 0;
  if (!read_conv(d, c, bwd ? 1 : 0, bwd ? 2 : 1, bwd ? 4 : 3, &k)) return 0;
  const char *tx = pm_type_at(t, bwd ? 1 : 0), *tw = pm_type_at(t, bwd ? 2 : 1);
  nx = prod(k.x->v, k.x->n);
  nw = prod(k.w->v, k.w->n);
  nout = prod(k.out, 2 + k.nd);
  bpe = rpd_perf_dtype_bytes(tx);
  if (bwd) {
    int n = pm_concrete_bools(c, 10, mask, 3);
    if (n != 3) mask[0] = mask[1] = mask[2] = 1;
    k.bias = mask[2];
    sp = k.transposed ? prod(k.x->v + 2, k.nd) : prod(k.out + 2, k.nd);
    o->category = "CONV_bwd";
    o->flops = (mask[0] ? conv_flops(&k) : 0) + (mask[1] ? 2 * nw * (double)k.x->v[0] * sp : 0) +
               (mask[2] ? nout : 0);
    o->bytes = bpe ? (double)bpe * ((mask[0] ? nout + nw + nx : 0) +
                                    (mask[1] ? nout + nx + nw : 0) +
                                    (mask[2] ? nout + (double)k.out[1] : 0))
                   : -1;
  } else {
    k.bias = pm_given(d, 2);
    o->category = "CONV_fwd";
    o->flops = conv_flops(&k) + (k.bias ? nout : 0);
    o->bytes = bpe ? (double)bpe * (nx + nw + (k.bias ? (double)k.out[1] : 0) + nout) : -1;
  }
  pm_set_spec(o, "matrix", tx);
  rpd_buf_printf(&b, "{\"convNd\":\"conv%dd\",\"input_shape\":\"", k.nd);
  pm_put_tuple(&b, k.x);
  rpd_buf_puts(&b, "\",\"filter_shape\":\"");
  pm_put_tuple(&b, k.w);
  rpd_buf_puts(&b, "\",\"dtype_input_weight\":\"(");
  pm_put_py_str(&b, tx);
  rpd_buf_puts(&b, ", ");
  pm_put_py_str(&b, tw);
  rpd_buf_puts(&b, ")\"");
  pm_put_key_tuple(&b, "input_stride", st, bwd ? 1 : 0);
  pm_put_key_tuple(&b, "weight_stride", st, bwd ? 2 : 1);
  rpd_buf_printf(&b, ",\"bias\":%s", k.bias ? "true" : "false");
  put_ints(&b, "stride", k.stride, k.nd);
  put_ints(&b, "padding", k.pad, k.nd);
  put_ints(&b, "dilation", k.dil, k.nd);
  rpd_buf_printf(&b, ",\"transposed_conv\":%s", k.transposed ? "true" : "false");
  put_ints(&b, "output_padding", k.opad, k.nd);
  rpd_buf_printf(&b, ",\"groups\":%d}", k.groups);
  o->params = b.s;
  return 1;
}
