/* repr.c - doubles as the shortest text that reads back exactly, in the
 * form Python's repr() uses (16845.735294117647, 3.0, 1e+16, 1.5e-07), so
 * the CSVs of rpd_out (out.c) and the table writers compare equal to
 * those of the Python tools.  Declared in internal.h. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "rpd.h"

/* Split the output of "%.Ne" into sign, digits (NUL-terminated) and the
 * decimal exponent; returns the number of digits. */
static int split_e(const char *t, int *neg, char *digits, int *exp)
{
  int nd = 0;
  *neg = *t == '-';
  for (t += *neg; *t && *t != 'e'; t++)
    if (*t != '.')
      digits[nd++] = *t;
  digits[nd] = '\0';
  *exp = *t ? atoi(t + 1) : 0;
  return nd;
}

/* 1 if the p-digit decimal digits[0..p) x 10^exp reads back as v. */
static int reads_back(double v, int neg, const char *digits, int p, int exp)
{
  char t[48];
  int n = 0;
  if (neg)
    t[n++] = '-';
  t[n++] = digits[0];
  t[n++] = '.';
  memcpy(t + n, digits + 1, (size_t)p - 1);
  n += p - 1;
  t[n++] = 'e';
  if (exp < 0) {
    t[n++] = '-';
    exp = -exp;
  }
  if (exp >= 100)
    t[n++] = (char)('0' + exp / 100);
  if (exp >= 10)
    t[n++] = (char)('0' + exp / 10 % 10);
  t[n++] = (char)('0' + exp % 10);
  t[n] = '\0';
  return strtod(t, NULL) == v;
}

/* Round the 17 digits d17 (exponent e17) of v to p digits into out and *eout.
 * Returns 0 when the 17 digits cannot decide the rounding (a trailing
 * ...5 / ...50), so the caller asks printf instead. */
static int round_digits(const char *d17, int e17, int p, char *out, int *eout)
{
  int up;
  if (p == 16 && d17[16] == '5')
    return 0;
  if (p == 15 && d17[15] == '5' && d17[16] == '0')
    return 0;
  up = d17[p] >= '5';
  memcpy(out, d17, (size_t)p);
  out[p] = '\0';
  *eout = e17;
  if (up) {
    int i = p - 1;
    while (i >= 0 && out[i] == '9')
      out[i--] = '0';
    if (i >= 0)
      out[i]++;
    else {          /* 999.. -> 1000.. */
      out[0] = '1';
      (*eout)++;
    }
  }
  return 1;
}

/* Shortest decimal that reads back as v, formatted like Python's repr():
 * 0.1, 3.0, 16845.735294117647, 1e+16, 1.5e-07, nan, -inf.
 * One printf of 17 digits; shorter candidates are derived from it and
 * checked with strtod.  Any decimal of at most 15 significant digits maps
 * to a distinct normal double (DBL_DIG), so if 15 digits read back, that
 * form without trailing zeros is the shortest; otherwise 16, else 17.
 * Subnormals carry fewer digits: every length is tried with printf. */
void rpd__double_repr(char *out, size_t size, double v)
{
  char t[48], d17[24], digits[24];
  int neg, exp, e17, nd = 0, n = 0;

  if (isnan(v) || isinf(v)) {
    snprintf(out, size, isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
    return;
  }
  if (v != 0 && fabs(v) < DBL_MIN) {
    for (int p = 1; p <= 17; p++) {
      snprintf(t, sizeof t, "%.*e", p - 1, v);
      if (p == 17 || strtod(t, NULL) == v)
        break;
    }
    nd = split_e(t, &neg, digits, &exp);
  } else {
    snprintf(t, sizeof t, "%.16e", v);
    split_e(t, &neg, d17, &e17);
    for (int p = 15; p <= 17 && !nd; p++) {
      if (p == 17) {
        memcpy(digits, d17, 18);
        exp = e17;
        nd = 17;
      } else if (round_digits(d17, e17, p, digits, &exp)) {
        if (reads_back(v, neg, digits, p, exp))
          nd = p;
      } else {
        int n2;
        snprintf(t, sizeof t, "%.*e", p - 1, v);
        if (strtod(t, NULL) == v)
          nd = split_e(t, &n2, digits, &exp);
      }
    }
  }
  while (nd > 1 && digits[nd - 1] == '0')
    nd--;

  /* layout, as Python's repr: fixed for 1e-4 <= |v| < 1e16 */
  if (neg)
    t[n++] = '-';
  if (exp < -4 || exp >= 16) {
    t[n++] = digits[0];
    if (nd > 1) {
      t[n++] = '.';
      memcpy(t + n, digits + 1, (size_t)nd - 1);
      n += nd - 1;
    }
    n += snprintf(t + n, sizeof t - (size_t)n, "e%c%02d", exp < 0 ? '-' : '+',
                  abs(exp));
  } else if (exp < 0) {
    t[n++] = '0';
    t[n++] = '.';
    for (int i = 0; i < -exp - 1; i++)
      t[n++] = '0';
    memcpy(t + n, digits, (size_t)nd);
    n += nd;
  } else {
    for (int i = 0; i <= exp; i++)
      t[n++] = i < nd ? digits[i] : '0';
    t[n++] = '.';
    if (nd > exp + 1) {
      memcpy(t + n, digits + exp + 1, (size_t)(nd - exp - 1));
      n += nd - exp - 1;
    } else
      t[n++] = '0';
  }
  t[n] = '\0';
  if ((size_t)n >= size)
    n = (int)size - 1;
  memcpy(out, t, (size_t)n);
  out[n] = '\0';
}
