/* perfmodel.c - op FLOPs/bytes from shapes, GPU peaks, roofline. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perfmodel.h"
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

static const char *skip_ws(const char *p)
{
  while (*p && isspace((unsigned char)*p)) p++;
  return p;
}

/* Skip one JSON value (nested arrays, strings, scalars); NULL if broken. */
static const char *skip_value(const char *p)
{
  int depth = 0;
  p = skip_ws(p);
  do {
    if (!*p) return NULL;
    if (*p == '"') {
      for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && p[1]) p++;
      if (!*p) return NULL;
      p++;
    } else if (*p == '[' || *p == '{') {
      depth++;
      p++;
    } else if (*p == ']' || *p == '}') {
      if (depth == 0) return p;  /* end of the enclosing array */
      depth--;
      p++;
    } else if (*p == ',' && depth == 0) {
      return p;
    } else {
      p++;
    }
  } while (depth > 0 || (*p && *p != ',' && *p != ']' && *p != '}'));
  return p;
}

/* Parse element at p into *e; returns the end of the value or NULL. */
static const char *parse_elem(const char *p, elem *e)
{
  const char *end;
  memset(e, 0, sizeof *e);
  p = skip_ws(p);
  end = skip_value(p);
  if (!end) return NULL;
  if (*p == '"') {
    size_t k = 0;
    e->kind = 2;
    for (const char *q = p + 1; q < end - 1 && k + 1 < sizeof e->s; q++) {
      if (*q == '\\' && q + 1 < end - 1) q++;
      e->s[k++] = *q;
    }
    e->s[k] = 0;
  } else if (*p == '[') {
    const char *q = skip_ws(p + 1);
    e->kind = 1;
    while (*q != ']') {
      char *num_end;
      long long x = strtoll(q, &num_end, 10);
      if (num_end == q || e->n == MAXDIM) { e->kind = 0; break; }
      e->v[e->n++] = x;
      q = skip_ws(num_end);
      if (*q == ',') q = skip_ws(q + 1);
      else if (*q != ']') { e->kind = 0; break; }
    }
  }
  return end;
}

/* Parse a JSON array (NULL text: empty).  Returns 0, or -1 if broken. */
static int parse_arr(const char *t, arr *a)
{
  const char *p;
  a->n = 0;
  if (!t) return 0;
  p = skip_ws(t);
  if (*p != '[') return -1;
  p = skip_ws(p + 1);
  if (*p == ']') return 0;
  for (;;) {
    elem tmp;
    p = parse_elem(p, a->n < MAXIN ? &a->e[a->n] : &tmp);
    if (!p) return -1;
    if (a->n < MAXIN) a->n++;
    p = skip_ws(p);
    if (*p == ']') return 0;
    if (*p != ',') return -1;
    p++;
  }
}

int rpd_perf_dtype_bytes(const char *t)
{
  static const struct { const char *name; int bytes; } tab[] = {
    {"float", 4}, {"double", 8}, {"c10::BFloat16", 2}, {"c10::Half", 2},
    {"long int", 8}, {"int", 4}, {"short int", 2}, {"signed char", 1},
    {"unsigned char", 1}, {"bool", 1}, {"c10::complex<float>", 8},
    {"c10::complex<double>", 16}, {"c10::Float8_e4m3fn", 1},
    {"c10::Float8_e4m3fnuz", 1}, {"c10::Float8_e5m2", 1},
    {"c10::Float8_e5m2fnuz", 1}, {"c10::Float8_e8m0fnu", 1},
  };
  if (!t) return 0;
  for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
    if (strcmp(t, tab[i].name) == 0) return tab[i].bytes;
  return 0;
}

/* The short dtype name of a compute spec ("bf16", ...); "" if unknown. */
static const char *short_dtype(const char *t)
{
  if (strcmp(t, "float") == 0) return "fp32";
  if (strcmp(t, "double") == 0) return "fp64";
  if (strcmp(t, "c10::BFloat16") == 0) return "bf16";
  if (strcmp(t, "c10::Half") == 0) return "fp16";
  if (strncmp(t, "c10::Float8", 11) == 0) return "fp8";
  if (strcmp(t, "long int") == 0) return "int64";
  if (strcmp(t, "int") == 0) return "int32";
  return "";
}

static int64_t numel(const elem *e)
{
  int64_t n = 1;
  for (int i = 0; i < e->n; i++) n *= e->v[i];
  return n;
}

/* A Python tuple text, the way TraceLens prints shapes and strides. */
static void put_tuple(rpd_buf *b, const elem *e)
{
  rpd_buf_puts(b, "(");
  for (int i = 0; i < e->n; i++)
    rpd_buf_printf(b, "%s%lld", i ? ", " : "", (long long)e->v[i]);
  rpd_buf_puts(b, e->n == 1 ? ",)" : ")");
}

/* "KEY":"(...)" for a shape, "" when it is not a list. */
static void put_key_tuple(rpd_buf *b, const char *key, const arr *a, int i)
{
  rpd_buf_printf(b, ",\"%s\":\"", key);
  if (i < a->n && a->e[i].kind == 1) put_tuple(b, &a->e[i]);
  rpd_buf_puts(b, "\"");
}

/* Python repr of a dtype name or None ('c10::BFloat16'). */
static void put_py_str(rpd_buf *b, const char *s)
{
  if (!s) {
    rpd_buf_puts(b, "None");
    return;
  }
  rpd_buf_puts(b, "'");
  rpd_json_escape(b, s);
  rpd_buf_puts(b, "'");
}

static const char *type_at(const arr *t, int i)
{
  return i < t->n && t->e[i].kind == 2 ? t->e[i].s : NULL;
}

static int is_shape(const arr *d, int i)
{
  return i < d->n && d->e[i].kind == 1;
}

static void set_spec(rpd_perf_op *o, const char *kind, const char *type)
{
  const char *s = type ? short_dtype(type) : "";
  snprintf(o->spec, sizeof o->spec, "%s%s%s", kind, *s ? "_" : "", s);
}

/* ----------------------------------------------------------------- GEMM */

/* GEMM of B batches of (MxK)(KxN) (+ bias of N elements): TraceLens's
 * rule, every operand in A's element size. */
static void gemm(rpd_perf_op *o, const arr *d, const arr *t, const arr *st,
                 int ia, int ib, int64_t B, int64_t M, int64_t N, int64_t K,
                 int bias)
{
  const char *ta = type_at(t, ia), *tb = type_at(t, ib);
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
  set_spec(o, "matrix", ta);
  rpd_buf_printf(&b, "{\"B\":%lld,\"M\":%lld,\"N\":%lld,\"K\":%lld,\"bias\":%s",
                 (long long)B, (long long)M, (long long)N, (long long)K,
                 bias ? "true" : "false");
  put_key_tuple(&b, "stride_A", st, ia);
  put_key_tuple(&b, "stride_B", st, ib);
  rpd_buf_puts(&b, ",\"dtype_A_B\":\"(");
  put_py_str(&b, ta);
  rpd_buf_puts(&b, ", ");
  put_py_str(&b, tb);
  rpd_buf_puts(&b, ")\"}");
  (void)d;
  o->params = b.s;
}

/* 1 if input i is a tensor with at least one dim (a bias given). */
static int has_tensor(const arr *d, const arr *t, int i)
{
  const char *ty = type_at(t, i);
  return is_shape(d, i) && d->e[i].n > 0 && ty && strcmp(ty, "Scalar") != 0;
}

static int model_gemm(const char *name, const arr *d, const arr *t,
                      const arr *st, rpd_perf_op *o)
{
  const elem *a, *b;
  if (strcmp(name, "aten::mm") == 0 || strcmp(name, "aten::addmm") == 0) {
    int off = name[6] == 'a';  /* addmm: input, mat1, mat2 */
    if (!is_shape(d, off) || !is_shape(d, off + 1)) return 0;
    a = &d->e[off];
    b = &d->e[off + 1];
    if (a->n != 2 || b->n != 2) return 0;
    gemm(o, d, t, st, off, off + 1, 1, a->v[0], b->v[1], a->v[1], off);
    return 1;
  }
  if (strcmp(name, "aten::_scaled_mm") == 0) {
    /* self [M, K], mat2 [K, N], scale_a, scale_b, bias? */
    if (!is_shape(d, 0) || !is_shape(d, 1)) return 0;
    a = &d->e[0];
    b = &d->e[1];
    if (a->n != 2 || b->n != 2) return 0;
    gemm(o, d, t, st, 0, 1, 1, a->v[0], b->v[1], a->v[1], has_tensor(d, t, 4));
    return 1;
  }
  if (strcmp(name, "aten::bmm") == 0 || strcmp(name, "aten::baddbmm") == 0) {
    int off = name[6] == 'b' && name[7] == 'a';  /* baddbmm: input, b1, b2 */
    if (!is_shape(d, off) || !is_shape(d, off + 1)) return 0;
    a = &d->e[off];
    b = &d->e[off + 1];
    if (a->n != 3 || b->n != 3) return 0;
    gemm(o, d, t, st, off, off + 1, a->v[0], a->v[1], b->v[2], a->v[2], off);
    return 1;
  }
  if (strcmp(name, "aten::linear") == 0) {
    /* input [..., K], weight [N, K], optional bias [N] */
    int64_t M = 1;
    if (!is_shape(d, 0) || !is_shape(d, 1)) return 0;
    a = &d->e[0];
    b = &d->e[1];
    if (a->n < 1 || b->n != 2) return 0;
    for (int i = 0; i + 1 < a->n; i++) M *= a->v[i];
    gemm(o, d, t, st, 0, 1, 1, M, b->v[0], b->v[1], has_tensor(d, t, 2));
    return 1;
  }
  if (strcmp(name, "aten::matmul") == 0) {
    /* [..., M, K] x [K, N] or batched [..., M, K] x [..., K, N] */
    int64_t B = 1, M = 1;
    if (!is_shape(d, 0) || !is_shape(d, 1)) return 0;
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

/* ---------------------------------------------------------- elementwise */

static int in_list(const char *name, const char *const *list)
{
  for (; *list; list++)
    if (strcmp(name, *list) == 0) return 1;
  return 0;
}

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
  const char *t1 = type_at(t, 0), *t2 = type_at(t, 1);
  int b1 = rpd_perf_dtype_bytes(t1), b2 = rpd_perf_dtype_bytes(t2);
  int scalar2 = t2 && strcmp(t2, "Scalar") == 0;
  elem out = {0};
  rpd_buf b = {0};
  const elem *x, *y;
  if (!is_shape(d, 0) || (!scalar2 && !is_shape(d, 1))) return 0;
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
  o->flops = (double)numel(&out);
  o->bytes = b1 && (b2 || scalar2)
                 ? (double)numel(x) * b1 + (scalar2 ? 0 : (double)numel(y) * b2) +
                       (double)numel(&out) * b1
                 : -1;
  set_spec(o, "vector", t1);
  rpd_buf_puts(&b, "{\"shape_in1\":\"");
  put_tuple(&b, x);
  rpd_buf_puts(&b, "\",\"shape_in2\":\"");
  if (!scalar2) put_tuple(&b, y);
  rpd_buf_puts(&b, "\",\"dtype_in1_in2_out\":\"(");
  put_py_str(&b, t1);
  rpd_buf_puts(&b, ", ");
  put_py_str(&b, t2);
  rpd_buf_puts(&b, ", None)\"");
  put_key_tuple(&b, "stride_input1", st, 0);
  put_key_tuple(&b, "stride_input2", st, scalar2 ? MAXIN : 1);
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
  const char *t1 = type_at(t, 0), *t2 = copy ? type_at(t, 1) : NULL;
  int b1 = rpd_perf_dtype_bytes(t1), b2 = copy ? rpd_perf_dtype_bytes(t2) : b1;
  rpd_buf b = {0};
  if (!is_shape(d, 0) || (copy && !is_shape(d, 1))) return 0;
  o->category = "UnaryElementwise";
  o->flops = (double)numel(&d->e[0]);
  o->bytes = b1 && b2 ? (double)numel(&d->e[0]) * (b1 + b2) : -1;
  set_spec(o, "vector", t1);
  rpd_buf_puts(&b, "{\"op_shape\":\"");
  put_tuple(&b, &d->e[0]);
  rpd_buf_puts(&b, "\",\"dtype_in_out\":\"(");
  put_py_str(&b, t1);
  rpd_buf_puts(&b, ", ");
  put_py_str(&b, t2);
  rpd_buf_puts(&b, ")\"");
  put_key_tuple(&b, "stride_input", st, 0);
  put_key_tuple(&b, "stride_output", st, copy ? 1 : MAXIN);
  rpd_buf_puts(&b, "}");
  o->params = b.s;
  return 1;
}

/* ----------------------------------------------------------------- SDPA */

/* Concrete input i as a bool ("True"/"1"); 0 if absent. */
static int concrete_bool(const arr *c, int i)
{
  return i < c->n && c->e[i].kind == 2 &&
         (strcmp(c->e[i].s, "True") == 0 || strcmp(c->e[i].s, "1") == 0);
}

/* q [B, H_Q, N_Q, d_qk], k [B, H_KV, N_KV, d_qk], v [B, H_KV, N_KV, d_v]:
 * FLOPs 2*B*H_Q*N_Q*N_KV*(d_qk + d_v), halved when causal; bytes of q, k,
 * v and the output [B, H_Q, N_Q, d_v] in q's element size. */
static int model_sdpa(const char *name, const arr *d, const arr *t,
                      const arr *c, rpd_perf_op *o)
{
  int idrop, icausal, flash = 0;
  const elem *q, *k, *v;
  int64_t B, HQ, NQ, HKV, NKV, DQK, DV;
  int causal, bpe;
  double dropout = 0;
  rpd_buf b = {0};
  const char *tq = type_at(t, 0);
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
  if (!is_shape(d, 0) || !is_shape(d, 1) || !is_shape(d, 2)) return 0;
  q = &d->e[0]; k = &d->e[1]; v = &d->e[2];
  if (q->n != 4 || k->n != 4 || v->n != 4) return 0;
  B = q->v[0]; HQ = q->v[1]; NQ = q->v[2]; DQK = q->v[3];
  HKV = k->v[1]; NKV = k->v[2]; DV = v->v[3];
  causal = concrete_bool(c, icausal);
  if (idrop < c->n && c->e[idrop].kind == 2) dropout = atof(c->e[idrop].s);
  bpe = rpd_perf_dtype_bytes(tq);
  o->category = "SDPA_fwd";
  o->flops = 2.0 * B * HQ * NQ * NKV * (double)(DQK + DV) / (causal ? 2 : 1);
  o->bytes = bpe ? (double)bpe * ((double)numel(q) + numel(k) + numel(v) +
                                  (double)B * HQ * NQ * DV)
                 : -1;
  set_spec(o, "matrix", tq);
  rpd_buf_printf(&b, "{\"B\":%lld,\"N_Q\":%lld,\"H_Q\":%lld,\"N_KV\":%lld,"
                 "\"H_KV\":%lld,\"d_h_qk\":%lld,\"d_h_v\":%lld,\"dropout\":%.17g%s,"
                 "\"causal\":%s,\"flash_impl\":%s,\"dtype_A_B\":\"(",
                 (long long)B, (long long)NQ, (long long)HQ, (long long)NKV,
                 (long long)HKV, (long long)DQK, (long long)DV, dropout,
                 /* a JSON real even when whole (0.0): TraceLens's float */
                 dropout == floor(dropout) && fabs(dropout) < 1e15 ? ".0" : "",
                 causal ? "true" : "false", flash ? "true" : "false");
  put_py_str(&b, tq);
  rpd_buf_puts(&b, ", ");
  put_py_str(&b, type_at(t, 1));
  rpd_buf_puts(&b, ")\"}");
  o->params = b.s;
  return 1;
}

int rpd_perf_model(const char *name, const char *dims, const char *types,
                   const char *strides, const char *concrete, rpd_perf_op *out)
{
  arr d, t, st, c;
  int done = 0;
  memset(out, 0, sizeof *out);
  out->category = "none";
  out->flops = out->bytes = -1;
  if (!name || !dims) return RPD_OK;
  if (parse_arr(dims, &d) != 0)
    return rpd_seterr(RPD_EPARSE, "Input Dims is not a JSON array");
  /* broken secondary arrays read as absent */
  if (parse_arr(types, &t) != 0) t.n = 0;
  if (parse_arr(strides, &st) != 0) st.n = 0;
  if (parse_arr(concrete, &c) != 0) c.n = 0;
  done = model_gemm(name, &d, &t, &st, out);
  if (!done && in_list(name, binary_ops)) done = model_binary(&d, &t, &st, out);
  if (!done && in_list(name, unary_ops)) {
    /* pow(Tensor, Scalar) is unary, pow(Tensor, Tensor) binary */
    if (strcmp(name, "aten::pow") == 0 && type_at(&t, 1) &&
        strcmp(type_at(&t, 1), "Scalar") != 0)
      done = model_binary(&d, &t, &st, out);
    else
      done = model_unary(name, &d, &t, &st, out);
  }
  if (!done) done = model_sdpa(name, &d, &t, &c, out);
  if (!done) {
    free(out->params);
    memset(out, 0, sizeof *out);
    out->category = "none";
    out->flops = out->bytes = -1;
  }
  return RPD_OK;
}

void rpd_perf_op_free(rpd_perf_op *op)
{
  free(op->params);
  memset(op, 0, sizeof *op);
  op->category = "none";
  op->flops = op->bytes = -1;
}

/* ---------------------------------------------------------------- peaks */

/* Dense (no sparsity) peaks from the vendors' datasheets, see
 * docs/rpd-perfmodel.md.  Longer names first where one contains another. */
static const rpd_perf_arch arches[] = {
  /* name      fp64   fp32   tf32    bf16    fp16    fp8     vec32  TB/s */
  {"MI355X", 78.6, 157.3, 0, 2516.6, 2516.6, 5033.2, 157.3, 8.0},
  {"MI325X", 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 163.4, 6.0},
  {"MI300X", 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 163.4, 5.3},
  {"MI250X", 95.7, 95.7, 0, 383.0, 383.0, 0, 47.9, 3.2768},
  {"MI210", 45.3, 45.3, 0, 181.0, 181.0, 0, 22.6, 1.6384},
  {"H100", 66.9, 0, 494.7, 989.4, 989.4, 1978.9, 66.9, 3.35},
  {"H200", 66.9, 0, 494.7, 989.4, 989.4, 1978.9, 66.9, 4.8},
  {"B200", 40.0, 0, 1100.0, 2250.0, 2250.0, 4500.0, 80.0, 8.0},
  {"A100", 19.5, 0, 156.0, 312.0, 312.0, 0, 19.5, 2.039},
};

const rpd_perf_arch *rpd_perf_arch_at(int i)
{
  return i >= 0 && i < (int)(sizeof arches / sizeof arches[0]) ? &arches[i] : NULL;
}

/* Case-insensitive strstr. */
static int contains_ci(const char *hay, const char *needle)
{
  size_t n = strlen(needle);
  for (; *hay; hay++)
    if (strncasecmp(hay, needle, n) == 0) return 1;
  return 0;
}

const rpd_perf_arch *rpd_perf_arch_find(const char *name)
{
  const rpd_perf_arch *a;
  if (!name || !*name) return NULL;
  for (int i = 0; (a = rpd_perf_arch_at(i)); i++)
    if (strcasecmp(a->name, name) == 0) return a;
  for (int i = 0; (a = rpd_perf_arch_at(i)); i++)
    if (contains_ci(name, a->name)) return a;
  return NULL;
}

int rpd_perf_arch_load(const char *path, rpd_perf_arch *out)
{
  struct { const char *key; double *v; } keys[] = {
    {"fp64", &out->fp64}, {"fp32", &out->fp32}, {"tf32", &out->tf32},
    {"bf16", &out->bf16}, {"fp16", &out->fp16}, {"fp8", &out->fp8},
    {"vec_fp32", &out->vec_fp32}, {"hbm_tbs", &out->hbm_tbs},
  };
  char line[256];
  int lineno = 0, rc = RPD_OK;
  FILE *f = fopen(path, "r");
  memset(out, 0, sizeof *out);
  if (!f) return rpd_seterr(RPD_EIO, "cannot read arch file '%s'", path);
  while (rc == RPD_OK && fgets(line, sizeof line, f)) {
    char key[32], val[64], extra[2];
    int n, found = 0;
    lineno++;
    if (strchr(line, '#')) *strchr(line, '#') = 0;
    n = sscanf(line, "%31s %63s %1s", key, val, extra);
    if (n <= 0) continue;
    if (n != 2) {
      rc = rpd_seterr(RPD_EPARSE, "arch file '%s' line %d: expected 'key value'",
                      path, lineno);
      break;
    }
    if (strcmp(key, "name") == 0) {
      snprintf(out->name, sizeof out->name, "%.31s", val);
      continue;
    }
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
      if (strcmp(key, keys[i].key) == 0) {
        char *end;
        *keys[i].v = strtod(val, &end);
        found = *end == 0 && *keys[i].v >= 0 && isfinite(*keys[i].v);
        if (!found)
          rc = rpd_seterr(RPD_EPARSE, "arch file '%s' line %d: bad number '%s'",
                          path, lineno, val);
        found = 1;
      }
    if (!found && rc == RPD_OK)
      rc = rpd_seterr(RPD_EPARSE, "arch file '%s' line %d: unknown key '%s'",
                      path, lineno, key);
  }
  fclose(f);
  if (rc == RPD_OK && (!out->name[0] || out->hbm_tbs <= 0))
    rc = rpd_seterr(RPD_EPARSE, "arch file '%s': needs 'name' and 'hbm_tbs'", path);
  return rc;
}

double rpd_perf_peak_tflops(const rpd_perf_arch *a, const char *spec)
{
  const char *us;
  if (!a || !spec) return 0;
  if (strncmp(spec, "vector", 6) == 0) return a->vec_fp32;
  if (strncmp(spec, "matrix", 6) != 0 || !(us = strchr(spec, '_'))) return 0;
  us++;
  if (strcmp(us, "bf16") == 0) return a->bf16;
  if (strcmp(us, "fp16") == 0) return a->fp16;
  if (strcmp(us, "fp8") == 0) return a->fp8;
  if (strcmp(us, "fp64") == 0) return a->fp64;
  if (strcmp(us, "fp32") == 0) return a->fp32 > 0 ? a->fp32 : a->tf32;
  return 0;
}

void rpd_perf_roofline(const rpd_perf_arch *arch, const char *spec, double flops,
                       double bytes, double kernel_ns, rpd_perf_roof *r)
{
  double peak = rpd_perf_peak_tflops(arch, spec);
  double bw = arch ? arch->hbm_tbs : 0;
  double t_compute = -1, t_mem = -1;
  r->tflops_s = r->tb_s = r->flops_per_byte = -1;
  r->pct_compute = r->pct_bw = r->roofline_ns = -1;
  r->bound = NULL;
  if (flops >= 0 && bytes > 0) r->flops_per_byte = flops / bytes;
  if (kernel_ns > 0) {
    if (flops >= 0) r->tflops_s = flops / kernel_ns / 1e3;  /* flop/ns = GFLOP/s */
    if (bytes >= 0) r->tb_s = bytes / kernel_ns / 1e3;
  }
  if (peak > 0 && flops >= 0) {
    t_compute = flops / (peak * 1e3);  /* ns */
    if (r->tflops_s >= 0) r->pct_compute = 100 * r->tflops_s / peak;
  }
  if (bw > 0 && bytes >= 0) {
    t_mem = bytes / (bw * 1e3);
    if (r->tb_s >= 0) r->pct_bw = 100 * r->tb_s / bw;
  }
  if (t_compute >= 0 && t_mem >= 0) {
    r->bound = t_compute >= t_mem ? "compute" : "memory";
    r->roofline_ns = t_compute >= t_mem ? t_compute : t_mem;
  }
}
