/* util/num.h - strict number parsing for option values: the whole text is
 * the number, nothing is silently cut or wrapped.  Return RPD_OK or
 * RPD_EPARSE / RPD_ERANGE with a message naming the text (rpd_errmsg). */
#ifndef RPD_UTIL_NUM_H
#define RPD_UTIL_NUM_H

#include <stdint.h>

/* A decimal int64 ("42", "-7", "+3"; leading blanks allowed, as strtoll
 * does; nothing after the digits). */
int rpd_parse_i64(const char *s, int64_t *v);

/* rpd_parse_i64, then lo <= *v <= hi (else RPD_ERANGE). */
int rpd_parse_i64_range(const char *s, int64_t lo, int64_t hi, int64_t *v);

/* A size in bytes: a positive decimal number, optionally with a fraction,
 * then an optional K, M or G (powers of 1024, either case) and an optional
 * B: "123", "64K", "1.5G", "2MB".  The result is the whole bytes of the
 * value (1.5K = 1536), at least 1 and below 9e18. */
int rpd_parse_size(const char *s, int64_t *v);

#endif
