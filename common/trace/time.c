/* time.c - time values of ROI/trim options: "123.45", "123.45ms", "+10ms",
 * "-8ms", "50%".
 *
 * The number is parsed as a decimal (digits, optional fraction, optional
 * exponent) and scaled to nanoseconds in integer arithmetic where it fits,
 * so ".12345s" is exactly 123450000 ns and "123.45ms" exactly 123450000 ns.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rpd.h"

/* Power of ten of one unit in ns: "ns" 0, "us" 3, "ms" 6, "s" 9; -1 if the
 * text is not a unit. */
static int unit_exp(const char *u)
{
  static const struct { const char *name; int exp; } units[] = {
    {"ns", 0}, {"nsec", 0}, {"us", 3}, {"usec", 3}, {"ms", 6},
    {"msec", 6}, {"s", 9}, {"sec", 9},
  };
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strcasecmp(u, units[i].name) == 0)
      return units[i].exp;
  return -1;
}

/* mantissa * 10^exp10 as a double, exact when the result is an integer
 * that fits in 2^53 or a single correctly rounded division suffices. */
static double scale10(uint64_t mant, int exp10)
{
  static const double p10[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
  };
  if (exp10 >= 0 && exp10 <= 22)
    return (double)mant * p10[exp10];
  if (exp10 < 0 && exp10 >= -22)
    return (double)mant / p10[-exp10];
  return (double)mant * pow(10.0, exp10);
}

/* Parse the unsigned decimal at *sp into *val (ns once scaled by unitexp
 * later: returns mantissa and exponent).  Advances *sp.  0 on success. */
static int parse_decimal(const char **sp, uint64_t *mant, int *exp10)
{
  const char *s = *sp;
  uint64_t m = 0;
  int e = 0, ndig = 0, dropped = 0;

  for (; isdigit((unsigned char)*s); s++, ndig++) {
    if (m < UINT64_C(1000000000000000000))
      m = m * 10 + (uint64_t)(*s - '0');
    else
      dropped++;  /* precision beyond 19 digits is not needed for ns */
  }
  if (*s == '.') {
    s++;
    for (; isdigit((unsigned char)*s); s++, ndig++) {
      if (m < UINT64_C(1000000000000000000)) {
        m = m * 10 + (uint64_t)(*s - '0');
        e--;
      }
    }
  }
  if (ndig == 0)
    return -1;
  e += dropped;
  if ((*s == 'e' || *s == 'E') &&
      (isdigit((unsigned char)s[1]) ||
       ((s[1] == '+' || s[1] == '-') && isdigit((unsigned char)s[2])))) {
    int sign = 1, x = 0;
    s++;
    if (*s == '+' || *s == '-')
      sign = (*s++ == '-') ? -1 : 1;
    for (; isdigit((unsigned char)*s); s++)
      if (x < 10000)
        x = x * 10 + (*s - '0');
    e += sign * x;
  }
  *mant = m;
  *exp10 = e;
  *sp = s;
  return 0;
}

/* Parse a time value (see rpd.h).  default_unit (NULL = "ns") applies to
 * numbers without a unit.  RPD_EPARSE with a message on malformed text. */
int rpd_time_parse(const char *text, const char *default_unit, rpd_time *t)
{
  const char *s = text;
  uint64_t mant;
  int exp10, uexp;
  char unit[8];
  size_t ulen;

  memset(t, 0, sizeof *t);
  if (!text || !*text)
    return rpd_seterr(RPD_EPARSE, "empty time value");
  if (!default_unit)
    default_unit = "ns";
  if ((uexp = unit_exp(default_unit)) < 0)
    return rpd_seterr(RPD_EPARSE, "unknown time unit '%s'", default_unit);

  while (isspace((unsigned char)*s))
    s++;
  t->kind = RPD_TIME_BARE;
  if (*s == '+' || *s == '-') {
    t->kind = (*s == '+') ? RPD_TIME_PLUS : RPD_TIME_MINUS;
    s++;
  }
  if (parse_decimal(&s, &mant, &exp10) != 0)
    return rpd_seterr(RPD_EPARSE,
                      "bad time '%s': expected a number with an optional "
                      "unit (ns, us, ms, s) or a percentage", text);
  while (isspace((unsigned char)*s))
    s++;

  if (*s == '%') {
    const char *rest = s + 1;
    while (isspace((unsigned char)*rest))
      rest++;
    if (*rest)
      return rpd_seterr(RPD_EPARSE, "bad time '%s': text after '%%'", text);
    if (t->kind != RPD_TIME_BARE)
      return rpd_seterr(RPD_EPARSE,
                        "bad time '%s': a percentage takes no sign", text);
    t->kind = RPD_TIME_PCT;
    t->pct = scale10(mant, exp10);
    t->had_unit = 1;
    if (t->pct > 100.0)
      return rpd_seterr(RPD_EPARSE,
                        "bad time '%s': a percentage must be 0..100", text);
    return RPD_OK;
  }

  ulen = strlen(s);
  while (ulen > 0 && isspace((unsigned char)s[ulen - 1]))
    ulen--;
  if (ulen > 0) {
    int e;
    if (ulen >= sizeof unit)
      return rpd_seterr(RPD_EPARSE,
                        "bad time '%s': unknown unit (use ns, us, ms, s)",
                        text);
    memcpy(unit, s, ulen);
    unit[ulen] = '\0';
    if ((e = unit_exp(unit)) < 0)
      return rpd_seterr(RPD_EPARSE,
                        "bad time '%s': unknown unit '%s' (use ns, us, ms, s)",
                        text, unit);
    uexp = e;
    t->had_unit = 1;
  }
  t->ns = scale10(mant, exp10 + uexp);
  /* beyond +-2^63 ns (292 years) nothing fits a timestamp: refuse, never wrap */
  if (!isfinite(t->ns) || t->ns >= 9223372036854775808.0)
    return rpd_seterr(RPD_EPARSE, "bad time '%s': out of range (beyond 2^63 ns)", text);
  return RPD_OK;
}

/* origin + sign * v (v a non-negative double, rounded to the nearest ns)
 * into *out; RPD_EPARSE when it does not fit in int64. */
static int add_ns(int64_t origin, int sign, double v, int64_t *out)
{
  double r = round(v);
  int64_t d, res;
  if (!isfinite(r) || r < 0 || r >= 9223372036854775808.0)
    return rpd_seterr(RPD_EPARSE, "time out of range (beyond 2^63 ns)");
  d = (int64_t)r;
  if (sign < 0 ? __builtin_sub_overflow(origin, d, &res) : __builtin_add_overflow(origin, d, &res))
    return rpd_seterr(RPD_EPARSE, "time out of range (beyond 2^63 ns)");
  *out = res;
  return RPD_OK;
}

int rpd_time_resolve_checked(const rpd_time *t, int64_t bare_origin, int64_t first,
                             int64_t last, int64_t *out)
{
  switch (t->kind) {
  case RPD_TIME_PLUS:
    return add_ns(first, 1, t->ns, out);
  case RPD_TIME_MINUS:
    return add_ns(last, -1, t->ns, out);
  case RPD_TIME_PCT: {
    double span = (double)last - (double)first;
    /* whole ns toward the start, as the reference raptor's int() */
    return add_ns(first, span < 0 ? -1 : 1, floor(fabs(span) * t->pct / 100.0), out);
  }
  default:
    return add_ns(bare_origin, 1, t->ns, out);
  }
}

/* The absolute timestamp (ns) that t denotes over [first, last]; see rpd.h.
 * Fractions of a nanosecond are rounded to the nearest (N% is cut to the
 * whole ns toward the start, as the reference raptor); a result beyond
 * int64 saturates (rpd_time_resolve_checked says so instead). */
int64_t rpd_time_resolve(const rpd_time *t, int64_t bare_origin,
                         int64_t first, int64_t last)
{
  int64_t v = 0;
  if (rpd_time_resolve_checked(t, bare_origin, first, last, &v) != RPD_OK)
    v = (t->kind == RPD_TIME_MINUS) ? INT64_MIN : INT64_MAX;
  return v;
}
