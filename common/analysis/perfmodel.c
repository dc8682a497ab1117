/* perfmodel.c - op FLOPs/bytes from shapes: the dispatch to the models of
 * common/perfmodel/ (gemm.c, sdpa.c, elementwise.c, norm.c, reduce.c,
 * conv.c; parse.c reads the args, peaks.c holds the GPU peaks and the
 * roofline). */
#include <stdlib.h>
#include <string.h>

#include "perfmodel/pm.h"

/* Model one op (see perfmodel.h): the first model that takes it. */
int rpd_perf_model(const char *name, const char *dims, const char *types,
                   const char *strides, const char *concrete, rpd_perf_op *out)
{
  arr d, t, st, c;
  int done = 0;
  memset(out, 0, sizeof *out);
  out->category = "none";
  out->flops = out->bytes = -1;
  if (!name || !dims) return RPD_OK;
  if (pm_parse_arr(dims, &d) != 0)
    return rpd_seterr(RPD_EPARSE, "Input Dims is not a JSON array");
  /* broken secondary arrays read as absent */
  if (pm_parse_arr(types, &t) != 0) t.n = 0;
  if (pm_parse_arr(strides, &st) != 0) st.n = 0;
  if (pm_parse_arr(concrete, &c) != 0) c.n = 0;
  done = pm_model_gemm(name, &d, &t, &st, out);
  if (!done) done = pm_model_elementwise(name, &d, &t, &st, out);
  if (!done) done = pm_model_sdpa(name, &d, &t, &c, out);
  if (!done) done = pm_model_norm(name, &d, &t, &st, &c, out);
  if (!done) done = pm_model_reduce(name, &d, &t, &c, out);
  if (!done) done = pm_model_conv(name, &d, &t, &st, &c, out);
  if (!done) {
    free(out->params);
    memset(out, 0, sizeof *out);
    out->category = "none";
    out->flops = out->bytes = -1;
  }
  return RPD_OK;
}

/* See perfmodel.h. */
const char *const rpd_perf_arg_keys[RPD_PERF_NARGS] = {"Input Dims", "Input type", "Input Strides",
                                                      "Concrete Inputs"};

/* See perfmodel.h. */
int rpd_perf_named(const char *name)
{
  return name && (pm_knows_gemm(name) || pm_knows_elementwise(name) ||
                  pm_knows_sdpa(name) || pm_knows_norm(name) ||
                  pm_knows_reduce(name) || pm_knows_conv(name));
}

/* See perfmodel.h. */
void rpd_perf_op_free(rpd_perf_op *op)
{
  free(op->params);
  memset(op, 0, sizeof *op);
  op->category = "none";
  op->flops = op->bytes = -1;
}

