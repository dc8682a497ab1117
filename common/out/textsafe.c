/* textsafe.c - any trace string made safe for one output kind.  See
 * textsafe.h for what each kind changes. */
#include <string.h>

#include "textsafe.h"

#define REPLACEMENT "\xEF\xBF\xBD"   /* U+FFFD */

/* Decode the UTF-8 sequence at s[0..avail): its length (1..4) and *cp, or 0
 * when the bytes do not start a valid sequence; then *bad is the length of
 * the maximal invalid prefix that one U+FFFD replaces. */
static size_t utf8_decode(const unsigned char *s, size_t avail, unsigned *cp,
                          size_t *bad)
{
  unsigned char c = s[0], lo = 0x80, hi = 0xBF;
  size_t n;
  unsigned v;

  *bad = 1;
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    v = c & 0x1Fu;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    v = c & 0x0Fu;
    if (c == 0xE0)
      lo = 0xA0;          /* no overlong forms */
    else if (c == 0xED)
      hi = 0x9F;          /* no surrogates */
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    v = c & 0x07u;
    if (c == 0xF0)
      lo = 0x90;
    else if (c == 0xF4)
      hi = 0x8F;          /* nothing above U+10FFFF */
  } else
    return 0;
  for (size_t i = 1; i < n; i++) {
    unsigned char l = i == 1 ? lo : 0x80, h = i == 1 ? hi : 0xBF;
    if (i >= avail || s[i] < l || s[i] > h) {
      *bad = i;
      return 0;
    }
    v = (v << 6) | (s[i] & 0x3Fu);
  }
  *cp = v;
  return n;
}

/* What kind does with the code point cp (valid UTF-8 of n bytes at p):
 * NULL = copy as it is, else the replacement text (*rlen bytes). */
static const char *replace(rpd_text_kind kind, unsigned cp, char tmp[8],
                           size_t *rlen)
{
  const char *r = NULL;
  int c0 = cp < 0x20, nl = cp == '\t' || cp == '\n' || cp == '\r';

  switch (kind) {
  case RPD_TEXT_PLAIN:
    if (c0 || (cp >= 0x7F && cp <= 0x9F))   /* C0, DEL, C1 (0x9B is CSI) */
      r = " ";
    else if (cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
             (cp >= 0x2066 && cp <= 0x2069))
      r = REPLACEMENT;   /* bidi controls would reorder the rest of the line */
    break;
  case RPD_TEXT_CSV:
    if (cp == 0)        /* only in counted strings: no reader wants it */
      r = REPLACEMENT;
    break;
  case RPD_TEXT_JSON:
    if (cp == '"')
      r = "\\\"";
    else if (cp == '\\')
      r = "\\\\";
    else if (c0) {
      switch (cp) {
      case '\b': r = "\\b"; break;
      case '\f': r = "\\f"; break;
      case '\n': r = "\\n"; break;
      case '\r': r = "\\r"; break;
      case '\t': r = "\\t"; break;
      default:
        memcpy(tmp, "\\u00", 4);
        tmp[4] = "0123456789abcdef"[cp >> 4];
        tmp[5] = "0123456789abcdef"[cp & 15];
        tmp[6] = '\0';
        r = tmp;
      }
    }
    break;
  case RPD_TEXT_HTML:
    switch (cp) {
    case '&': r = "&amp;"; break;
    case '<': r = "&lt;"; break;
    case '>': r = "&gt;"; break;
    case '"': r = "&quot;"; break;
    case '\'': r = "&#39;"; break;
    default:
      if (c0 && !nl)
        r = REPLACEMENT;
    }
    break;
  case RPD_TEXT_XLSX:
    if ((c0 && !nl) || cp == 0xFFFE || cp == 0xFFFF)
      r = REPLACEMENT;
    break;
  }
  if (r)
    *rlen = strlen(r);
  return r;
}

/* Per kind, the ASCII bytes that may need a change (the slow path
 * decides); every other ASCII byte is copied as it is. */
static const unsigned char ascii_special[5][128] = {
  [RPD_TEXT_PLAIN] = {[0 ... 0x1F] = 1, [0x7F] = 1},
  [RPD_TEXT_CSV] = {[0] = 1},
  [RPD_TEXT_JSON] = {[0 ... 0x1F] = 1, ['"'] = 1, ['\\'] = 1},
  [RPD_TEXT_HTML] = {[0 ... 0x1F] = 1, ['&'] = 1, ['<'] = 1, ['>'] = 1, ['"'] = 1, ['\''] = 1},
  [RPD_TEXT_XLSX] = {[0 ... 0x1F] = 1},
};

/* The work of every entry point: with b, append the safe text of s[0..len)
 * and return 1 if anything differs from s; without b, only return whether
 * anything would. */
static int make_safe(rpd_buf *b, const unsigned char *s, size_t len,
                   rpd_text_kind kind)
{
  size_t i = 0, units = 0, run = 0;   /* run: start of the bytes to copy */
  const unsigned char *special = ascii_special[kind];
  int changed = 0;

  while (i < len) {
    unsigned cp = 0;
    size_t bad, n, rlen = 0, j = i;
    const char *r;
    char tmp[8];

    /* a run of ASCII that stays as it is */
    while (j < len && s[j] < 0x80 && !special[s[j]])
      j++;
    if (j > i) {
      if (kind == RPD_TEXT_XLSX && units + (j - i) > RPD_XLSX_CELL_MAX) {
        i += RPD_XLSX_CELL_MAX - units;
        changed = 1;
        break;
      }
      units += j - i;
      i = j;
      if (i == len)
        break;
    }
    n = utf8_decode(s + i, len - i, &cp, &bad);
    if (n) {
      r = replace(kind, cp, tmp, &rlen);
    } else {
      r = REPLACEMENT;
      rlen = 3;
      n = bad;
      cp = 0xFFFD;
    }
    if (kind == RPD_TEXT_XLSX) {
      units += cp >= 0x10000 ? 2 : 1;
      if (units > RPD_XLSX_CELL_MAX) {
        changed = 1;
        break;
      }
    }
    if (r) {
      changed = 1;
      if (!b)
        return 1;
      rpd_buf_add(b, (const char *)s + run, i - run);
      rpd_buf_add(b, r, rlen);
      run = i + n;
    }
    i += n;
  }
  if (b && i > run)
    rpd_buf_add(b, (const char *)s + run, i - run);
  return changed;
}

/* Append the len bytes at s made safe for kind (see textsafe.h). */
void rpd_text_safe_n(rpd_buf *b, const char *s, size_t len, rpd_text_kind kind)
{
  if (!s)
    s = "", len = 0;
  if (!b->s)
    rpd_buf_add(b, "", 0);   /* a safe empty result is still a string */
  make_safe(b, (const unsigned char *)s, len, kind);
}

/* Append the NUL-terminated s made safe for kind (see textsafe.h). */
void rpd_text_safe(rpd_buf *b, const char *s, rpd_text_kind kind)
{
  rpd_text_safe_n(b, s, s ? strlen(s) : 0, kind);
}

/* s when already safe, else the safe copy in b (see textsafe.h). */
const char *rpd_text_safe_str(rpd_buf *b, const char *s, rpd_text_kind kind)
{
  size_t len;

  if (!s)
    return NULL;
  len = strlen(s);
  if (!make_safe(NULL, (const unsigned char *)s, len, kind))
    return s;
  rpd_buf_reset(b);
  rpd_text_safe_n(b, s, len, kind);
  return b->s;
}

/* 1 if s[0..len) is valid UTF-8. */
int rpd_utf8_valid(const char *s, size_t len)
{
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0;

  while (i < len) {
    unsigned cp;
    size_t bad, n = utf8_decode(p + i, len - i, &cp, &bad);
    if (!n)
      return 0;
    i += n;
  }
  return 1;
}

int rpd_utf8_is_bidi_control(const char *s, size_t n)
{
  const unsigned char *u = (const unsigned char *)s;
  if (n < 3 || u[0] != 0xe2)
    return 0;
  return (u[1] == 0x80 && (u[2] == 0x8e || u[2] == 0x8f || (u[2] >= 0xaa && u[2] <= 0xae))) ||
         (u[1] == 0x81 && u[2] >= 0xa6 && u[2] <= 0xa9);
}
