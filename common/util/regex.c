/* regex.c - regular expressions with Python re.search semantics over PCRE2.
 *
 * Users pass the patterns they used with the Python tools (raptor's
 * category filters, rpd filters), so the behaviour follows Python's `re`:
 *  - the match is a search anywhere in the subject (unanchored);
 *  - patterns and subjects are UTF-8, \w \d \s are Unicode-aware (PCRE2_UCP),
 *    and subjects with invalid UTF-8 are searched safely
 *    (PCRE2_MATCH_INVALID_UTF) instead of failing;
 *  - Python-only syntax is translated where it is cheap: \Z (end of
 *    string; PCRE's \Z also matches before a final newline) becomes \z, and
 *    {,n} (Python: 0 to n) becomes {0,n}.  (?P<name>...) and (?P=name) are
 *    native PCRE2 syntax.
 * The pattern is JIT-compiled when PCRE2 supports it.
 *
 * A search that PCRE2 cannot finish is an error, never "no match": a JIT
 * stack overflow (deep backtracking, `(.|\n)*X` on a long name) is retried
 * with a larger JIT stack (RPD_REGEX_JIT_STACK_MAX), and the cost of one
 * attempt at one start position is capped by a match limit
 * (RPD_REGEX_MATCH_LIMIT; PCRE2 counts it per start position, so a search
 * costs at most subject length x limit).  What is left is reported.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <pcre2.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "rpd.h"

struct rpd_regex {
  pcre2_code *code;
  pcre2_match_data *md;   /* cached: one search at a time per regex */
  pcre2_match_context *mc;   /* the limits below; the large JIT stack */
  pcre2_jit_stack *stack;    /* made on the first JIT stack overflow */
};

/* Backtracking steps PCRE2 may take from one start position (its default
 * is 10,000,000: ~20 ms of a pathological pattern per position). */
#define RPD_REGEX_MATCH_LIMIT 1000000u
/* Heap for the interpreter's backtracking frames, KiB (default 20 GB). */
#define RPD_REGEX_HEAP_LIMIT (64u * 1024)
/* The JIT stack a search retries with after PCRE2's 32 KiB overflowed. */
#define RPD_REGEX_JIT_STACK_MAX (8u * 1024 * 1024)

/* Copy pattern into b translating Python-only constructs.  ins[] records
 * the translated offsets where a character was inserted (for mapping error
 * offsets back); returns how many. */
static size_t translate(const char *p, rpd_buf *b, size_t *ins, size_t max_ins)
{
  size_t nins = 0;
  int in_class = 0;

  for (size_t i = 0; p[i]; i++) {
    char c = p[i];
    if (c == '\\' && p[i + 1]) {
      if (p[i + 1] == 'Z' && !in_class)
        rpd_buf_add(b, "\\z", 2);
      else
        rpd_buf_add(b, p + i, 2);
      i++;
      continue;
    }
    if (in_class) {
      if (c == ']')
        in_class = 0;
      rpd_buf_add(b, &c, 1);
      continue;
    }
    if (c == '[') {
      in_class = 1;
      rpd_buf_add(b, &c, 1);
      /* a ']' right after '[' or '[^' is a literal */
      if (p[i + 1] == '^') {
        rpd_buf_add(b, "^", 1);
        i++;
      }
      if (p[i + 1] == ']') {
        rpd_buf_add(b, "]", 1);
        i++;
      }
      continue;
    }
    if (c == '{' && p[i + 1] == ',' && isdigit((unsigned char)p[i + 2])) {
      size_t j = i + 2;
      while (isdigit((unsigned char)p[j]))
        j++;
      if (p[j] == '}' && nins < max_ins) {
        rpd_buf_add(b, "{0", 2);
        ins[nins++] = b->len - 1;
        continue;
      }
    }
    rpd_buf_add(b, &c, 1);
  }
  return nins;
}

/* Compile pattern (Python syntax, UTF-8).  On success *out is a new regex
 * the caller frees with rpd_regex_free().  On failure *out is NULL and the
 * result is RPD_EPARSE with "MESSAGE at offset N" (N in the user's
 * pattern). */
int rpd_regex_compile(const char *pattern, rpd_regex **out)
{
  rpd_buf b = {0};
  size_t ins[64], nins;
  int err = 0;
  PCRE2_SIZE off = 0;
  pcre2_code *code;
  rpd_regex *re;

  *out = NULL;
  if (!pattern)
    return rpd_seterr(RPD_EPARSE, "no pattern");
  nins = translate(pattern, &b, ins, sizeof ins / sizeof ins[0]);
  code = pcre2_compile((PCRE2_SPTR)(b.s ? b.s : ""), b.len,
                       PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF,
                       &err, &off, NULL);
  rpd_buf_free(&b);
  if (!code) {
    PCRE2_UCHAR msg[256];
    size_t shift = 0;
    if (pcre2_get_error_message(err, msg, sizeof msg) < 0)
      strcpy((char *)msg, "invalid pattern");
    for (size_t i = 0; i < nins; i++)
      if (ins[i] < off)
        shift++;
    return rpd_seterr(RPD_EPARSE, "%s at offset %zu", (char *)msg,
                      (size_t)off - shift);
  }
  (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  /* optional speedup */
  re = rpd_xcalloc(1, sizeof *re);
  re->code = code;
  re->md = pcre2_match_data_create(1, NULL);
  re->mc = pcre2_match_context_create(NULL);
  if (!re->md || !re->mc) {
    rpd_regex_free(re);
    return rpd_seterr(RPD_ENOMEM, "out of memory");
  }
  pcre2_set_match_limit(re->mc, RPD_REGEX_MATCH_LIMIT);
  pcre2_set_heap_limit(re->mc, RPD_REGEX_HEAP_LIMIT);
  *out = re;
  return RPD_OK;
}

/* 1 if re matches anywhere in subject, 0 if not or subject is NULL; a
 * negative RPD error code (RPD_ERANGE, rpd_errmsg(): "match limit exceeded
 * on a subject of N bytes") when PCRE2 gives up, after one retry with a
 * larger JIT stack.  Uses the regex's cached match data: do not search with
 * the same regex from two threads at once. */
int rpd_regex_search(const rpd_regex *cre, const char *subject)
{
  rpd_regex *re = (rpd_regex *)cre;   /* the cache and stack are ours */
  size_t len;
  int rc;
  if (!re || !subject)
    return 0;
  len = strlen(subject);
  rc = pcre2_match(re->code, (PCRE2_SPTR)subject, len, 0, 0, re->md, re->mc);
  if (rc == PCRE2_ERROR_JIT_STACKLIMIT && !re->stack) {
    re->stack = pcre2_jit_stack_create(32 * 1024, RPD_REGEX_JIT_STACK_MAX, NULL);
    if (!re->stack)
      return -rpd_seterr(RPD_ENOMEM, "out of memory");
    pcre2_jit_stack_assign(re->mc, NULL, re->stack);
    rc = pcre2_match(re->code, (PCRE2_SPTR)subject, len, 0, 0, re->md, re->mc);
  }
  if (rc >= 0)
    return 1;
  if (rc == PCRE2_ERROR_NOMATCH || rc == PCRE2_ERROR_PARTIAL)
    return 0;
  PCRE2_UCHAR msg[256];
  if (pcre2_get_error_message(rc, msg, sizeof msg) < 0)
    snprintf((char *)msg, sizeof msg, "PCRE2 error %d", rc);
  return -rpd_seterr(RPD_ERANGE, "%s on a subject of %zu bytes", (char *)msg, len);
}

/* Free a regex from rpd_regex_compile (NULL is fine). */
void rpd_regex_free(rpd_regex *re)
{
  if (!re)
    return;
  pcre2_match_data_free(re->md);
  pcre2_match_context_free(re->mc);
  pcre2_jit_stack_free(re->stack);
  pcre2_code_free(re->code);
  free(re);
}
