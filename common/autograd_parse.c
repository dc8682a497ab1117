/* autograd_parse.c - the four autograd marker forms (autograd_parse.h). */
#define _GNU_SOURCE /* memmem */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "autograd_parse.h"
#include "rpd.h"

/* Field order in each pattern's groups, 1-based group numbers; 0 = absent.
 * need: literals the pattern cannot match without (a cheap pre-check). */
typedef struct form {
  const char *re;
  int name, seq, op_id, sizes, input_op_ids;
  unsigned need;
} form;

enum { HAS_SEQ = 1, HAS_OP = 2, HAS_SIZES = 4, HAS_INPUT = 8 };

static const form forms[] = {
    {"^(.+), seq = ([0-9]+), op_id = ([0-9]+), sizes = (.*), "
     "input_op_ids = (.*)$", 1, 2, 3, 4, 5,
     HAS_SEQ | HAS_OP | HAS_SIZES | HAS_INPUT},
    {"^(.+), op_id = ([0-9]+), sizes = (.*), input_op_ids = (.*)$",
     1, 0, 2, 3, 4, HAS_OP | HAS_SIZES | HAS_INPUT},
    {"^(.+), seq = ([0-9]+), op_id = ([0-9]+)$", 1, 2, 3, 0, 0,
     HAS_SEQ | HAS_OP},
    {"^(.+), op_id = ([0-9]+)$", 1, 0, 2, 0, 0, HAS_OP},
};

/* Which of the literals s[0..len) contains (memmem: s may hold NULs). */
static unsigned literals(const char *s, size_t len) {
  unsigned has = 0;
  if (memmem(s, len, ", seq = ", 8)) has |= HAS_SEQ;
  if (memmem(s, len, ", op_id = ", 10)) has |= HAS_OP;
  if (memmem(s, len, ", sizes = ", 10)) has |= HAS_SIZES;
  if (memmem(s, len, ", input_op_ids = ", 17)) has |= HAS_INPUT;
  return has;
}
#define NFORMS (sizeof forms / sizeof forms[0])

struct rpd_autograd_parser {
  pcre2_code *code[NFORMS];
  pcre2_match_data *md;
};

void rpd_autograd_parser_free(rpd_autograd_parser *p) {
  if (!p) return;
  for (size_t i = 0; i < NFORMS; i++) pcre2_code_free(p->code[i]);
  pcre2_match_data_free(p->md);
  free(p);
}

int rpd_autograd_parser_new(rpd_autograd_parser **out) {
  rpd_autograd_parser *p = rpd_xcalloc(1, sizeof *p);
  pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
  int rc = RPD_OK;
  *out = NULL;
  if (!cc) return rpd_seterr(RPD_ENOMEM, "out of memory");
  /* Python: '.' excludes only '\n', '$' matches before a final '\n' */
  pcre2_set_newline(cc, PCRE2_NEWLINE_LF);
  for (size_t i = 0; i < NFORMS && rc == RPD_OK; i++) {
    int err;
    PCRE2_SIZE off;
    p->code[i] = pcre2_compile((PCRE2_SPTR)forms[i].re, PCRE2_ZERO_TERMINATED,
                               0, &err, &off, cc);
    if (!p->code[i])
      rc = rpd_seterr(RPD_EPARSE, "autograd pattern %zu: error %d at %zu", i,
                      err, (size_t)off);
    else
      pcre2_jit_compile(p->code[i], PCRE2_JIT_COMPLETE); /* optional */
  }
  pcre2_compile_context_free(cc);
  if (rc == RPD_OK) p->md = pcre2_match_data_create(8, NULL);
  if (rc == RPD_OK && !p->md) rc = rpd_seterr(RPD_ENOMEM, "out of memory");
  if (rc != RPD_OK) rpd_autograd_parser_free(p);
  else *out = p;
  return rc;
}

static rpd_span group(const char *s, const PCRE2_SIZE *ov, int g) {
  rpd_span sp = {"", 0};
  if (g > 0 && ov[2 * g] != PCRE2_UNSET) {
    sp.p = s + ov[2 * g];
    sp.n = ov[2 * g + 1] - ov[2 * g];
  }
  return sp;
}

int rpd_autograd_parse(rpd_autograd_parser *p, const char *s, size_t len,
                       rpd_autograd_fields *f) {
  unsigned has = literals(s, len);
  for (size_t i = 0; i < NFORMS; i++) {
    if ((forms[i].need & has) != forms[i].need) continue;
    if (pcre2_match(p->code[i], (PCRE2_SPTR)s, len, 0, 0, p->md, NULL) < 0)
      continue;
    const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->md);
    f->name = group(s, ov, forms[i].name);
    f->seq = group(s, ov, forms[i].seq);
    f->op_id = group(s, ov, forms[i].op_id);
    f->sizes = group(s, ov, forms[i].sizes);
    f->input_op_ids = group(s, ov, forms[i].input_op_ids);
    return (int)i + 1;
  }
  return 0;
}

int rpd_autograd_candidate(const char *s) {
  return s && (strstr(s, ", seq = ") || strstr(s, ", op_id = ") ||
               strstr(s, ", sizes = ") || strstr(s, ", input_op_ids = "));
}
