/* util/num.c - rpd_parse_i64 and friends (see num.h). */
#include "rpd.h"
#include "util/num.h"

#include <errno.h>
#include <stdlib.h>

int rpd_parse_i64(const char *s, int64_t *v)
{
  char *end;
  long long x;

  if (!s || !*s)
    return rpd_seterr(RPD_EPARSE, "empty number");
  errno = 0;
  x = strtoll(s, &end, 10);
  if (end == s || *end)
    return rpd_seterr(RPD_EPARSE, "'%s' is not a number", s);
  if (errno == ERANGE)
    return rpd_seterr(RPD_ERANGE, "'%s' is out of range", s);
  *v = x;
  return RPD_OK;
}

int rpd_parse_i64_range(const char *s, int64_t lo, int64_t hi, int64_t *v)
{
  int64_t x;
  int rc = rpd_parse_i64(s, &x);

  if (rc != RPD_OK)
    return rc;
  if (x < lo || x > hi)
    return rpd_seterr(RPD_ERANGE, "'%s' is not in %lld..%lld", s, (long long)lo,
                      (long long)hi);
  *v = x;
  return RPD_OK;
}

int rpd_parse_size(const char *s, int64_t *v)
{
  char *end;
  double x;

  if (!s || !*s)
    return rpd_seterr(RPD_EPARSE, "empty size");
  errno = 0;
  x = strtod(s, &end);
  if (end == s || errno || !(x > 0))
    return rpd_seterr(RPD_EPARSE, "'%s' is not a size", s);
  switch (*end) {
  case 'k': case 'K': x *= 1024.0; end++; break;
  case 'm': case 'M': x *= 1024.0 * 1024; end++; break;
  case 'g': case 'G': x *= 1024.0 * 1024 * 1024; end++; break;
  default: break;
  }
  if ((*end == 'B' || *end == 'b') && end[1] == 0)
    end++;
  if (*end || x >= 9e18 || x < 1)
    return rpd_seterr(RPD_EPARSE, "'%s' is not a size", s);
  *v = (int64_t)x;
  return RPD_OK;
}
