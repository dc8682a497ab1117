/* parse.c - the profiler args of an op (JSON arrays of shapes, types,
 * strides, concrete inputs) and the texts TraceLens writes them as. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pm.h"

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

/* See perfmodel.h: one pass over the top-level members, values skipped. */
void rpd_perf_args(const char *args, const char *const *keys, int n, const char **out,
                   size_t *lens)
{
  size_t klen[8];
  int left = n;
  const char *p;
  for (int i = 0; i < n; i++) {
    out[i] = NULL;
    if (lens) lens[i] = 0;
    klen[i] = i < 8 ? strlen(keys[i]) : 0;
  }
  if (!args || n <= 0 || n > 8) return;
  p = skip_ws(args);
  if (*p != '{') return;
  p = skip_ws(p + 1);
  while (*p == '"') {
    const char *k = p + 1, *v;
    for (p++; *p && *p != '"'; p++)
      if (*p == '\\' && p[1]) p++;
    if (*p != '"') return;
    v = skip_ws(p + 1);
    if (*v != ':') return;
    v = skip_ws(v + 1);
    int hit = -1;
    for (int i = 0; i < n; i++)
      if (!out[i] && (size_t)(p - k) == klen[i] && memcmp(k, keys[i], klen[i]) == 0) {
        out[i] = v;
        hit = i;
        break;
      }
    p = skip_value(v);
    if (hit >= 0 && lens && p) lens[hit] = (size_t)(p - v);
    if (hit >= 0 && --left == 0) return;
    if (!p || *p != ',') return;
    p = skip_ws(p + 1);
  }
}

/* See perfmodel.h. */
const char *rpd_perf_arg(const char *args, const char *key)
{
  const char *v;
  rpd_perf_args(args, &key, 1, &v, NULL);
  return v;
}

/* See perfmodel.h. */
size_t rpd_perf_arg_len(const char *value)
{
  const char *end = value ? skip_value(value) : NULL;
  return end ? (size_t)(end - value) : 0;
}

/* Parse a JSON array (NULL text: empty).  Returns 0, or -1 if broken. */
int pm_parse_arr(const char *t, arr *a)
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
const char *pm_short_dtype(const char *t)
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

int64_t pm_numel(const elem *e)
{
  int64_t n = 1;
  for (int i = 0; i < e->n; i++) n *= e->v[i];
  return n;
}

/* A Python tuple text, the way TraceLens prints shapes and strides. */
void pm_put_tuple(rpd_buf *b, const elem *e)
{
  rpd_buf_puts(b, "(");
  for (int i = 0; i < e->n; i++)
    rpd_buf_printf(b, "%s%lld", i ? ", " : "", (long long)e->v[i]);
  rpd_buf_puts(b, e->n == 1 ? ",)" : ")");
}

/* "KEY":"(...)" for a shape, "" when it is not a list. */
void pm_put_key_tuple(rpd_buf *b, const char *key, const arr *a, int i)
{
  rpd_buf_printf(b, ",\"%s\":\"", key);
  if (i < a->n && a->e[i].kind == 1) pm_put_tuple(b, &a->e[i]);
  rpd_buf_puts(b, "\"");
}

/* Python repr of a dtype name or None ('c10::BFloat16'). */
void pm_put_py_str(rpd_buf *b, const char *s)
{
  if (!s) {
    rpd_buf_puts(b, "None");
    return;
  }
  rpd_buf_puts(b, "'");
  rpd_json_escape(b, s);
  rpd_buf_puts(b, "'");
}

const char *pm_type_at(const arr *t, int i)
{
  return i < t->n && t->e[i].kind == 2 ? t->e[i].s : NULL;
}

int pm_is_shape(const arr *d, int i)
{
  return i < d->n && d->e[i].kind == 1;
}

void pm_set_spec(rpd_perf_op *o, const char *kind, const char *type)
{
  const char *s = type ? pm_short_dtype(type) : "";
  snprintf(o->spec, sizeof o->spec, "%s%s%s", kind, *s ? "_" : "", s);
}


/* 1 if input i is a tensor with at least one dim (a bias given). */
int pm_has_tensor(const arr *d, const arr *t, int i)
{
  const char *ty = pm_type_at(t, i);
  return pm_is_shape(d, i) && d->e[i].n > 0 && ty && strcmp(ty, "Scalar") != 0;
}

int pm_in_list(const char *name, const char *const *list)
{
  for (; *list; list++)
    if (strcmp(name, *list) == 0) return 1;
  return 0;
}

/* Concrete input i as a bool ("True"/"1"); 0 if absent. */
int pm_concrete_bool(const arr *c, int i)
{
  return i < c->n && c->e[i].kind == 2 &&
         (strcmp(c->e[i].s, "True") == 0 || strcmp(c->e[i].s, "1") == 0);
}


/* Concrete input i read as a list of integers ("[1, 2]", "(1,)") or one
 * integer ("3") into v (at most max); its count, or -1 when absent, empty
 * or not integers. */
int pm_concrete_ints(const arr *c, int i, int64_t *v, int max)
{
  const char *p;
  int n = 0;
  if (i >= c->n || c->e[i].kind != 2 || !c->e[i].s[0]) return -1;
  p = c->e[i].s;
  while (*p == '[' || *p == '(' || isspace((unsigned char)*p)) p++;
  while (*p && *p != ']' && *p != ')') {
    char *end;
    long long x = strtoll(p, &end, 10);
    if (end == p || n == max) return -1;
    v[n++] = x;
    p = end;
    while (isspace((unsigned char)*p)) p++;
    if (*p == ',') p++;
    while (isspace((unsigned char)*p)) p++;
  }
  return n;
}

/* Concrete input i read as a list of Python bools ("[True, False]") into v
 * (at most max); the count, or -1 when absent or not bools. */
int pm_concrete_bools(const arr *c, int i, int *v, int max)
{
  const char *p;
  int n = 0;
  if (i >= c->n || c->e[i].kind != 2 || !c->e[i].s[0]) return -1;
  for (p = c->e[i].s; *p; ) {
    if (strncmp(p, "True", 4) == 0 || strncmp(p, "False", 5) == 0) {
      if (n == max) return -1;
      v[n++] = *p == 'T';
      p += *p == 'T' ? 4 : 5;
    } else if (strchr("[](), ", *p)) {
      p++;
    } else {
      return -1;
    }
  }
  return n;
}

/* 1 if input i is a tensor with dims (an optional tensor given: the
 * profiler writes [] for an absent one). */
int pm_given(const arr *d, int i)
{
  return pm_is_shape(d, i) && d->e[i].n > 0;
}
