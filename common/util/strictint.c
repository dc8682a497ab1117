/* strictint.c - the strict integer reader of the importers (strictint.h). */
#include "strictint.h"

#include <stdio.h>

/* At most this many characters of a refused value go into the message. */
#define SHOWN 40

int rpd_int_text(const char *s, size_t len, int64_t *out)
{
  size_t i = len && s[0] == '-';
  int neg = (int)i;
  uint64_t v = 0;
  /* the magnitude limit: 2^63 - 1, or 2^63 for a negative value */
  uint64_t lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;

  if (i == len)
    goto notint;
  for (; i < len; i++) {
    unsigned d = (unsigned char)s[i] - '0';
    if (d > 9)
      goto notint;
    if (v > (lim - d) / 10) {
      /* keep going: a later non-digit makes it "not an integer" */
      for (i++; i < len; i++)
        if ((unsigned char)s[i] - '0' > 9)
          goto notint;
      return rpd_seterr(RPD_EPARSE, "'%.*s%s' is beyond the 64-bit integer range",
                        (int)(len < SHOWN ? len : SHOWN), s, len > SHOWN ? "..." : "");
    }
    v = v * 10 + d;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return RPD_OK;

notint:
  if (!len)
    return rpd_seterr(RPD_EPARSE, "empty, not an integer");
  return rpd_seterr(RPD_EPARSE, "'%.*s%s' is not an integer",
                    (int)(len < SHOWN ? len : SHOWN), s, len > SHOWN ? "..." : "");
}

int rpd_int_value(sqlite3_value *v, int64_t *out)
{
  switch (sqlite3_value_type(v)) {
  case SQLITE_INTEGER:
    *out = sqlite3_value_int64(v);
    return RPD_OK;
  case SQLITE_FLOAT:
    return rpd_seterr(RPD_EPARSE, "the real value %.17g is not an integer",
                      sqlite3_value_double(v));
  case SQLITE_TEXT: {
    const char *t = (const char *)sqlite3_value_text(v);
    int n = sqlite3_value_bytes(v);
    return rpd_seterr(RPD_EPARSE, "the text value '%.*s%s' is not an integer",
                      n < SHOWN ? n : SHOWN, t ? t : "", n > SHOWN ? "..." : "");
  }
  case SQLITE_BLOB:
    return rpd_seterr(RPD_EPARSE, "a blob of %d bytes is not an integer",
                      sqlite3_value_bytes(v));
  default:
    return rpd_seterr(RPD_EPARSE, "null is not an integer");
  }
}
