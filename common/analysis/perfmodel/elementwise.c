/* elementwise.c - the unary and binary elementwise models. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pm.h"

static const char *const binary_ops[] = {
  "aten::add", "aten::add_", "aten::sub", "aten::sub_", "aten::mul",
  "aten::mul_", "aten::div", "aten::div_", NULL,
};
static const char *const unary_ops[] = {
  "aten::silu", "aten::silu_", "aten::neg", "aten::rsqrt", "aten::sqrt",
  "aten::exp", "aten::log", "aten::relu", "aten::relu_", "aten::gelu",
  "aten::sigmoid", "aten::tanh", "aten::abs", "aten::reciprocal",
  "aten::pow", "aten::copy_", NULL,
};

/* Binary: out = broadcast(in1, in2), one FLOP per output element, bytes of
 * both inputs and the output (in in1's type).  A "Scalar" second operand
 * moves no bytes. */
static int model_binary(const arr *d, const arr *t, const arr *st, rpd_perf_op *o)
{
  const char *t1 = pm_type_at(t, 0), *t2 = pm_type_at(t, 1);
  int b1 = rpd_perf_dtype_bytes(t1), b2 = rpd_perf_dtype_bytes(t2);
  int scalar2 = t2 && strcmp(t2, "Scalar") == 0;
  elem out = {0};
  rpd_buf b = {0};
  const elem *x, *y;
  if (!pm_is_shape(d, 0) || (!scalar2 && !pm_is_shape(d, 1))) return 0;
  x = &d->e[0];
  y = scalar2 ? &out : &d->e[1];  /* out is still empty here: 0 dims */
  out.kind = 1;
  out.n = x->n > y->n ? x->n : y->n;
  for (int i = 0; i < out.n; i++) {
    int ix = i - (out.n - x->n), iy = i - (out.n - y->n);
    int64_t vx = ix >= 0 ? x->v[ix] : 1, vy = iy >= 0 ? y->v[iy] : 1;
    out.v[i] = vx == 1 ? vy : vx;
  }
  o->category = "BinaryElementwise";
  o->flops = (double)pm_numel(&out);
  o->bytes = b1 && (b2 || scalar2)
                 ? (double)pm_numel(x) * b1 + (scalar2 ? 0 : (double)pm_numel(y) * b2) +
                       (double)pm_numel(&out) * b1
                 : -1;
  pm_set_spec(o, "vector", t1);
  rpd_buf_puts(&b, "{\"shape_in1\":\"");
  pm_put_tuple(&b, x);
  rpd_buf_puts(&b, "\",\"shape_in2\":\"");
  if (!scalar2) pm_put_tuple(&b, y);
  rpd_buf_puts(&b, "\",\"dtype_in1_in2_out\":\"(");
  pm_put_py_str(&b, t1);
  rpd_buf_puts(&b, ", ");
  pm_put_py_str(&b, t2);
  rpd_buf_puts(&b, ", None)\"");
  pm_put_key_tuple(&b, "stride_input1", st, 0);
  pm_put_key_tuple(&b, "stride_input2", st, scalar2 ? MAXIN : 1);
  rpd_buf_puts(&b, ",\"stride_output\":\"\"}");
  o->params = b.s;
  return 1;
}

/* Unary: one FLOP per element, bytes of input and output (copy_: the
 * destination and the source, each in its own type). */
static int model_unary(const char *name, const arr *d, const arr *t,
                       const arr *st, rpd_perf_op *o)
{
  int copy = strcmp(name, "aten::copy_") == 0;
  const char *t1 = pm_type_at(t, 0), *t2 = copy ? pm_type_at(t, 1) : NULL;
  int b1 = rpd_perf_dtype_bytes(t1), b2 = copy ? rpd_perf_dtype_bytes(t2) : b1;
  rpd_buf b = {0};
  if (!pm_is_shape(d, 0) || (copy && !pm_is_shape(d, 1))) return 0;
  o->category = "UnaryElementwise";
  o->flops = (double)pm_numel(&d->e[0]);
  o->bytes = b1 && b2 ? (double)pm_numel(&d->e[0]) * (b1 + b2) : -1;
  pm_set_spec(o, "vector", t1);
  rpd_buf_puts(&b, "{\"op_shape\":\"");
  pm_put_tuple(&b, &d->e[0]);
  rpd_buf_puts(&b, "\",\"dtype_in_out\":\"(");
  pm_put_py_str(&b, t1);
  rpd_buf_puts(&b, ", ");
  pm_put_py_str(&b, t2);
  rpd_buf_puts(&b, ")\"");
  pm_put_key_tuple(&b, "stride_input", st, 0);
  pm_put_key_tuple(&b, "stride_output", st, copy ? 1 : MAXIN);
  rpd_buf_puts(&b, "}");
  o->params = b.s;
  return 1;
}


/* The elementwise model of op NAME, if it is one (see pm.h). */
int pm_knows_elementwise(const char *name)
{
  return pm_in_list(name, binary_ops) || pm_in_list(name, unary_ops);
}

int pm_model_elementwise(const char *name, const arr *d, const arr *t, const arr *st,
                         rpd_perf_op *o)
{
  if (pm_in_list(name, binary_ops))
    return model_binary(d, t, st, o);
  if (!pm_in_list(name, unary_ops))
    return 0;
  /* pow(Tensor, Scalar) is unary, pow(Tensor, Tensor) binary */
  if (strcmp(name, "aten::pow") == 0 && pm_type_at(t, 1) &&
      strcmp(pm_type_at(t, 1), "Scalar") != 0)
    return model_binary(d, t, st, o);
  return model_unary(name, d, t, st, o);
}
