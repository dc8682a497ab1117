/* reduce.c - the Reduce model (TraceLens's Reduce_fwd): sum, mean, max,
 * min, norm, std, var, logsumexp, cumsum, cumprod, amax, amin over one or
 * more dims. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm.h"

static const char *const reduce_ops[] = {
  "aten::sum", "aten::mean", "aten::max", "aten::min", "aten::norm",
  "aten::linalg_norm", "aten::std", "aten::var", "aten::logsumexp",
  "aten::cumsum", "aten::cumprod", "aten::amin", "aten::amax", NULL,
};

/* One FLOP per input element; bytes of the input and the output, both in
 * the input's element size.  The output has the input's elements for a
 * cumulative op, else the input's shape without the reduced dims (kept as
 * 1 with keepdim: the same count), a single element when no dim is given. */
int pm_knows_reduce(const char *name)
{
  return pm_in_list(name, reduce_ops);
}

int pm_model_reduce(const char *name, const arr *d, const arr *t, const arr *c,
                    rpd_perf_op *o)
{
  int64_t dims[MAXDIM];
  int ndims, bpe;
  double nin, nout = 1;
  const char *tx = pm_type_at(t, 0), *type;
  rpd_buf b = {0};
  if (!pm_in_list(name, reduce_ops) || !pm_is_shape(d, 0)) return 0;
  const elem *x = &d->e[0];
  nin = (double)pm_numel(x);
  /* dim is argument 1 (argument 2 of norm and linalg_norm, after p / ord)
   * in every overload that has one; without it, all dims */
  ndims = pm_concrete_ints(c, strstr(name, "norm") ? 2 : 1, dims, MAXDIM);
  if (strstr(name, "cum")) {
    nout = nin;
  } else if (ndims > 0) {
    int keep[MAXDIM];
    for (int k = 0; k < x->n; k++) keep[k] = 1;
    for (int k = 0; k < ndims; k++) {
      int64_t dd = dims[k] < 0 ? dims[k] + x->n : dims[k];
      if (dd >= 0 && dd < x->n) keep[dd] = 0;
    }
    for (int k = 0; k < x->n; k++)
      if (keep[k]) nout *= (double)x->v[k];
  }
  type = strstr(name, "mean") ? "mean" : strstr(name, "max") ? "max"
         : strstr(name, "min") ? "min" : strstr(name, "norm") ? "norm" : "sum";
  bpe = rpd_perf_dtype_bytes(tx);
  o->category = "Reduce_fwd";
  o->flops = nin;
  o->bytes = bpe ? (nin + nout) * bpe : -1;
  pm_set_spec(o, "vector", tx);
  rpd_buf_printf(&b, "{\"num_input_elems\":%.0f,\"num_output_elems\":%.0f,"
                 "\"dtype_in_out\":\"(", nin, nout);
  pm_put_py_str(&b, tx);
  rpd_buf_printf(&b, ", None)\",\"reduce_type\":\"%s\"}", type);
  o->params = b.s;
  return 1;
}
