/* autograd_parse.h - parse the UserMarker text PyTorch's emit_nvtx() writes
 * ("NAME, seq = N, op_id = N, sizes = S, input_op_ids = I" and its three
 * shorter forms) into fields.  Used by rpd-autograd; see
 * docs/rpd-autograd.md. */
#ifndef RPD_AUTOGRAD_PARSE_H
#define RPD_AUTOGRAD_PARSE_H

#include <stddef.h>

typedef struct rpd_span {
  const char *p;   /* points into the parsed text; "" when absent */
  size_t n;
} rpd_span;

typedef struct rpd_autograd_fields {
  rpd_span name, seq, op_id, sizes, input_op_ids;
} rpd_autograd_fields;

typedef struct rpd_autograd_parser rpd_autograd_parser;

/* A parser (no state today; kept so callers need not change if one is
 * needed).  RPD_OK and *out, which the caller frees with
 * rpd_autograd_parser_free. */
int rpd_autograd_parser_new(rpd_autograd_parser **out);
void rpd_autograd_parser_free(rpd_autograd_parser *p);

/* Match s[0..len) against the forms, longest first, with Python re.match
 * semantics of the reference (greedy NAME, '$' also before a final
 * newline).  Returns the form number 1..4 and fills *f (spans point into s;
 * missing fields are empty), or 0 if none matches. */
int rpd_autograd_parse(rpd_autograd_parser *p, const char *s, size_t len,
                       rpd_autograd_fields *f);

/* 1 if s contains one of ", seq = ", ", op_id = ", ", sizes = ",
 * ", input_op_ids = " (the reference's selection of marker calls). */
int rpd_autograd_candidate(const char *s);
/* The same for s[0..len) (s may hold NULs). */
int rpd_autograd_candidate_n(const char *s, size_t len);

#endif
