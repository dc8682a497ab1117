/* pm.h - what the files of the performance model share (common/perfmodel/,
 * behind common/analysis/perfmodel.h):
 *   parse.c        the profiler args as arrays; TraceLens's texts of them
 *   gemm.c         GEMM            sdpa.c   SDPA forward
 *   elementwise.c  unary / binary  peaks.c  GPU peaks, arch files, roofline
 *   norm.c         Normalization   reduce.c Reduce_fwd
 *   conv.c         CONV_fwd / CONV_bwd (sdpa.c also SDPA_bwd)
 * A model function returns 1 when it modelled the op (filling *o: category,
 * spec, flops, bytes, params), 0 when the op is not its or its args do not
 * fit (then *o is untouched but for params it may have set: the caller
 * frees them). */
#ifndef RPD_PM_H
#define RPD_PM_H

#include <stdint.h>

#include "../perfmodel.h"
#include "rpd.h"

#define MAXIN 16   /* inputs looked at */
#define MAXDIM 8   /* dims of one shape */

/* One element of a profiler args array: a list of integers (a shape or
 * strides), a string, or anything else. */
typedef struct elem {
  int kind;                 /* 0 other, 1 int list, 2 string */
  int n;                    /* ints in v */
  int64_t v[MAXDIM];
  char s[64];
} elem;

typedef struct arr {
  int n;
  elem e[MAXIN];
} arr;

/* Parse a JSON array (NULL text: empty) into *a; 0, or -1 if broken. */
int pm_parse_arr(const char *t, arr *a);
/* "fp32", "bf16", ... of a profiler type; "" if unknown. */
const char *pm_short_dtype(const char *t);
/* Elements of a shape. */
int64_t pm_numel(const elem *e);
/* A shape as a Python tuple "(1, 2)" / "(3,)". */
void pm_put_tuple(rpd_buf *b, const elem *e);
/* ,"KEY":"(...)" for input i of a ("" when it is not a list). */
void pm_put_key_tuple(rpd_buf *b, const char *key, const arr *a, int i);
/* Python repr of a string, or None for NULL. */
void pm_put_py_str(rpd_buf *b, const char *s);
/* Type text of input i (NULL if none); 1 if input i is a shape. */
const char *pm_type_at(const arr *t, int i);
int pm_is_shape(const arr *d, int i);
/* o->spec = KIND_dtype ("matrix_bf16"). */
void pm_set_spec(rpd_perf_op *o, const char *kind, const char *type);
/* 1 if input i is a tensor with at least one dim. */
int pm_has_tensor(const arr *d, const arr *t, int i);
/* 1 if name is in the NULL-terminated list. */
int pm_in_list(const char *name, const char *const *list);
/* Concrete input i as a bool ("True"/"1"); 0 if absent. */
int pm_concrete_bool(const arr *c, int i);

/* Concrete input i as integers ("[1, 2]" or "3") / Python bools
 * ("[True, False]") into v (at most max): the count, -1 if absent/empty/
 * not that. */
int pm_concrete_ints(const arr *c, int i, int64_t *v, int max);
int pm_concrete_bools(const arr *c, int i, int *v, int max);
/* 1 if input i is a tensor with dims ([] = an absent optional tensor). */
int pm_given(const arr *d, int i);

/* The models (see above). */
int pm_model_gemm(const char *name, const arr *d, const arr *t, const arr *st,
                  rpd_perf_op *o);
int pm_model_elementwise(const char *name, const arr *d, const arr *t, const arr *st,
                         rpd_perf_op *o);
int pm_model_sdpa(const char *name, const arr *d, const arr *t, const arr *c,
                  rpd_perf_op *o);
int pm_model_norm(const char *name, const arr *d, const arr *t, const arr *st,
                  const arr *c, rpd_perf_op *o);
int pm_model_reduce(const char *name, const arr *d, const arr *t, const arr *c,
                    rpd_perf_op *o);
int pm_model_conv(const char *name, const arr *d, const arr *t, const arr *st,
                  const arr *c, rpd_perf_op *o);
/* 1 if the model above may take an op of this name (its args decide);
 * 0 if it never does.  rpd_perf_named is their union. */
int pm_knows_gemm(const char *name);
int pm_knows_elementwise(const char *name);
int pm_knows_sdpa(const char *name);
int pm_knows_norm(const char *name);
int pm_knows_reduce(const char *name);
int pm_knows_conv(const char *name);

#endif
