/* kjson.c - rpd-import: the streaming JSON reader of the Kineto parser.
 *
 * yajl's lexer looks at every byte through a table and copies each string
 * into its own buffer; on a Kineto trace that was 40% of the import's
 * instructions.  This reader scans strings 8 bytes at a time and hands the
 * callbacks a pointer into its window when the string has no escape (the
 * common case), so the bytes are touched about once.  It keeps yajl's
 * callback table and its results on every input yajl accepts (numbers as
 * their text; escapes decoded as yajl decodes them, also its handling of
 * unpaired UTF-16 surrogates; strings not checked for UTF-8), so the
 * Kineto parser did not change.
 *
 * The window holds the unparsed tail of the input plus the next chunk; a
 * token cut by a chunk's end is lexed again once the window has at least
 * doubled (the parser state only moves on whole tokens), so a string of
 * any size costs linear time. */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "rpd.h"
#include "kjson.h"

enum { KJ_MAXD = 1024 };

/* What the parser expects next. */
enum { ST_VALUE, ST_KEY, ST_COLON, ST_NEXT, ST_DONE };

/* A token: its length, or one of these. */
enum { T_MORE = -1, T_BAD = -2 };

typedef struct kj {
  const yajl_callbacks *cb;
  void *ctx;
  json_read_fn rd;
  void *rdctx;
  const unsigned char *chunk;  /* rd's last chunk (rd takes it back) */
  unsigned char *b;         /* the window: b[pos..len) not yet parsed */
  size_t pos, len, cap;
  uint64_t base;            /* input offset of b[0] */
  uint64_t fed;             /* bytes read */
  int eof;
  rpd_buf str;              /* a string with escapes, decoded */
  char stk[KJ_MAXD];        /* 'm' or 'a' per open container */
  int depth;
  const char *msg;
} kj;

/* Move the unparsed tail to the front and append the next chunk: 1, 0 at
 * the end of the input, -1 when rd failed. */
static int more(kj *k)
{
  if (k->eof)
    return 0;
  if (k->pos) {
    memmove(k->b, k->b + k->pos, k->len - k->pos);
    k->base += k->pos;
    k->len -= k->pos;
    k->pos = 0;
  }
  int n = k->rd(k->rdctx, &k->chunk, k->fed);
  const unsigned char *buf = k->chunk;
  if (n < 0)
    return -1;
  if (n == 0) {
    k->eof = 1;
    return 0;
  }
  if (k->len + (size_t)n + 8 > k->cap) {
    size_t c = k->cap ? k->cap : 1 << 18;
    while (k->len + (size_t)n + 8 > c)
      c *= 2;
    k->b = rpd_xrealloc(k->b, c);
    k->cap = c;
  }
  memcpy(k->b + k->len, buf, (size_t)n);
  k->len += (size_t)n;
  k->fed += (uint64_t)n;
  return 1;
}

static int bad(kj *k, const char *msg)
{
  k->msg = msg;
  return T_BAD;
}

/* The high bit of each of the 8 bytes of w (little-endian) that ends a
 * plain string run: below 0x20, '"' or '\\' (the has-zero-byte /
 * has-less-than word tests).  A borrow can only flag bytes above a real
 * stop, so the lowest flag is exact. */
static inline uint64_t word_stops(uint64_t w)
{
  const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
  uint64_t q = w ^ (ones * '"'), e = w ^ (ones * '\\');
  uint64_t lt = (w - ones * 0x20) & ~w;
  return (((q - ones) & ~q) | ((e - ones) & ~e) | lt) & high;
}

static int hex4(const unsigned char *p, unsigned *v)
{
  unsigned x = 0;
  for (int i = 0; i < 4; i++) {
    unsigned c = p[i];
    if (c >= '0' && c <= '9') c -= '0';
    else if (c >= 'a' && c <= 'f') c -= 'a' - 10;
    else if (c >= 'A' && c <= 'F') c -= 'A' - 10;
    else return 0;
    x = x << 4 | c;
  }
  *v = x;
  return 1;
}

static void put_utf8(rpd_buf *o, unsigned cp)
{
  char t[4];
  size_t n;
  if (cp < 0x80) { t[0] = (char)cp; n = 1; }
  else if (cp < 0x800) { t[0] = (char)(0xC0 | cp >> 6); t[1] = (char)(0x80 | (cp & 0x3F)); n = 2; }
  else if (cp < 0x10000) {
    t[0] = (char)(0xE0 | cp >> 12); t[1] = (char)(0x80 | (cp >> 6 & 0x3F));
    t[2] = (char)(0x80 | (cp & 0x3F)); n = 3;
  } else if (cp < 0x200000) {
    t[0] = (char)(0xF0 | cp >> 18); t[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    t[2] = (char)(0x80 | (cp >> 6 & 0x3F)); t[3] = (char)(0x80 | (cp & 0x3F)); n = 4;
  } else { t[0] = '?'; n = 1; }
  rpd_buf_add(o, t, n);
}

/* The string whose quote is at b[p]: its length through the closing quote,
 * T_MORE or T_BAD; *s / *n the text (in the window, or k->str decoded). */
static long lex_string(kj *k, size_t p, const unsigned char **s, size_t *n)
{
  const unsigned char *b = k->b;
  size_t i = p + 1, end = k->len;
  for (;;) {
    if (i + 8 > end) {
      while (i < end && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\')
        i++;
      break;
    }
    uint64_t w, m;
    memcpy(&w, b + i, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);   /* the first byte in the low bits */
#endif
    if ((m = word_stops(w))) {
      i += (size_t)(__builtin_ctzll(m) >> 3);
      break;
    }
    i += 8;
  }
  if (i >= end)
    return T_MORE;
  if (b[i] == '"') {
    *s = b + p + 1;
    *n = i - p - 1;
    return (long)(i + 1 - p);
  }
  if (b[i] < 0x20)
    return bad(k, "a control character inside a string (escape it)");
  /* escapes: check the whole string first, then decode */
  size_t q = i;
  for (;;) {
    while (q < end && b[q] >= 0x20 && b[q] != '"' && b[q] != '\\')
      q++;
    if (q >= end)
      return T_MORE;
    if (b[q] == '"')
      break;
    if (b[q] < 0x20)
      return bad(k, "a control character inside a string (escape it)");
    if (q + 1 >= end)
      return T_MORE;
    unsigned char c = b[q + 1];
    if (c == 'u') {
      unsigned v;
      if (q + 6 > end)
        return T_MORE;
      if (!hex4(b + q + 2, &v))
        return bad(k, "a \\u escape without 4 hex digits");
      q += 6;
    } else if (strchr("\"\\/bfnrt", c) && c) {
      q += 2;
    } else
      return bad(k, "an invalid escape in a string");
  }
  /* b[p+1..q) is the body, every escape in it valid */
  rpd_buf *o = &k->str;
  rpd_buf_reset(o);
  rpd_buf_add(o, "", 0);
  size_t j = p + 1, run = j;
  while (j < q) {
    if (b[j] != '\\') {
      j++;
      continue;
    }
    rpd_buf_add(o, (const char *)b + run, j - run);
    unsigned char c = b[j + 1];
    j += 2;
    switch (c) {
    case 'b': rpd_buf_add(o, "\b", 1); break;
    case 'f': rpd_buf_add(o, "\f", 1); break;
    case 'n': rpd_buf_add(o, "\n", 1); break;
    case 'r': rpd_buf_add(o, "\r", 1); break;
    case 't': rpd_buf_add(o, "\t", 1); break;
    case 'u': {
      unsigned cp, lo;
      hex4(b + j, &cp);
      j += 4;
      if ((cp & 0xFC00) == 0xD800) {
        /* a high surrogate: combined with the \u that follows, whatever it
         * is; alone it is '?' (as yajl 2.1) */
        if (j + 1 < q && b[j] == '\\' && b[j + 1] == 'u') {
          hex4(b + j + 2, &lo);
          cp = ((cp & 0x3F) << 10) | ((((cp >> 6) & 0xF) + 1) << 16) | (lo & 0x3FF);
          j += 6;
        } else {
          rpd_buf_add(o, "?", 1);
          break;
        }
      }
      put_utf8(o, cp);
      break;
    }
    default: rpd_buf_add(o, (const char *)&c, 1); break;
    }
    run = j;
  }
  if (run < q)
    rpd_buf_add(o, (const char *)b + run, q - run);
  *s = (const unsigned char *)(o->s ? o->s : "");
  *n = o->len;
  return (long)(q + 1 - p);
}

static int digit(unsigned char c)
{
  return c >= '0' && c <= '9';
}

/* The number at b[p]: its length, T_MORE or T_BAD. */
static long lex_number(kj *k, size_t p)
{
  const unsigned char *b = k->b;
  size_t i = p, end = k->len;
  /* the whole run of number characters must be in the window */
  while (i < end && (digit(b[i]) || b[i] == '-' || b[i] == '+' || b[i] == '.' ||
                     b[i] == 'e' || b[i] == 'E'))
    i++;
  if (i == end && !k->eof)
    return T_MORE;
  size_t q = p;
  if (q < i && b[q] == '-')
    q++;
  if (q >= i || !digit(b[q]))
    return bad(k, "a number without a digit after its minus sign");
  if (b[q] == '0')
    q++;
  else
    while (q < i && digit(b[q]))
      q++;
  if (q < i && b[q] == '.') {
    q++;
    if (q >= i || !digit(b[q]))
      return bad(k, "a number without a digit after its decimal point");
    while (q < i && digit(b[q]))
      q++;
  }
  if (q < i && (b[q] == 'e' || b[q] == 'E')) {
    q++;
    if (q < i && (b[q] == '+' || b[q] == '-'))
      q++;
    if (q >= i || !digit(b[q]))
      return bad(k, "a number without a digit in its exponent");
    while (q < i && digit(b[q]))
      q++;
  }
  /* what follows the number (another '-', a second '.') is the next
   * token, which the grammar then refuses, as in yajl */
  return (long)(q - p);
}

/* true / false / null at b[p]: its length, T_MORE or T_BAD. */
static long lex_word(kj *k, size_t p, const char *w)
{
  size_t n = strlen(w), have = k->len - p;
  if (memcmp(k->b + p, w, have < n ? have : n))
    return bad(k, "an invalid literal (not true, false or null)");
  return have < n ? (k->eof ? bad(k, "an invalid literal (not true, false or null)") : T_MORE)
                  : (long)n;
}

/* The first non-blank byte of b[pos..len), or len.  Pretty-printed
 * traces indent every line (40% of a Kineto trace's bytes are blanks):
 * with SSE2, 16 bytes a compare. */
static size_t skip_space(const unsigned char *b, size_t pos, size_t len)
{
#define KJ_BLANK(c) ((c) == ' ' || (c) == '\n' || (c) == '\r' || (c) == '\t')
  /* most tokens follow no blank or one (", " and ": " in compact
   * files): two scalar looks before the 16-byte compares */
  if (pos >= len || !KJ_BLANK(b[pos])) return pos;
  if (++pos >= len || !KJ_BLANK(b[pos])) return pos;
#ifdef __SSE2__
  const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n'),
                cr = _mm_set1_epi8('\r'), tab = _mm_set1_epi8('\t');
  while (pos + 16 <= len) {
    __m128i v = _mm_loadu_si128((const __m128i *)(b + pos));
    __m128i blank = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
                                 _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tab)));
    unsigned m = ~(unsigned)_mm_movemask_epi8(blank) & 0xFFFFu;
    if (m)
      return pos + (size_t)__builtin_ctz(m);
    pos += 16;
  }
#endif
  while (pos < len && KJ_BLANK(b[pos])) pos++;
  return pos;
#undef KJ_BLANK
}

int kjson_run(const yajl_callbacks *cb, void *ctx, json_read_fn rd, void *rdctx,
              uint64_t *at, const char **msg)
{
  kj k;
  memset(&k, 0, sizeof k);
  k.cb = cb;
  k.ctx = ctx;
  k.rd = rd;
  k.rdctx = rdctx;
  int st = ST_VALUE, first = 0, rc = KJ_OK;
  *msg = NULL;
  for (;;) {
    k.pos = skip_space(k.b, k.pos, k.len);
    if (k.pos == k.len) {
      int r = more(&k);
      if (r < 0) {
        rc = KJ_READ;
        break;
      }
      if (r == 0) {
        rc = st == ST_DONE || k.fed == 0 ? KJ_OK : KJ_TRUNCATED;
        *at = k.fed;
        break;
      }
      continue;
    }
    unsigned char c = k.b[k.pos];
    long t = 0;
    int ok = 1, value = 0;
    switch (st) {
    case ST_DONE:
      t = bad(&k, "more text after the JSON value");
      break;
    case ST_COLON:
      if (c == ':') {
        t = 1;
        st = ST_VALUE;
        first = 0;
      } else
        t = bad(&k, "an object key without ':' after it");
      break;
    case ST_NEXT:
      if (c == ',') {
        t = 1;
        st = k.stk[k.depth - 1] == 'm' ? ST_KEY : ST_VALUE;
        first = 0;
      } else if (c == (k.stk[k.depth - 1] == 'm' ? '}' : ']')) {
        t = 1;
        k.depth--;
        ok = c == '}' ? cb->yajl_end_map(ctx) : cb->yajl_end_array(ctx);
        value = 1;
      } else
        t = bad(&k, k.stk[k.depth - 1] == 'm' ? "expected ',' or '}' after an object member"
                                              : "expected ',' or ']' after an array element");
      break;
    case ST_KEY:
      if (c == '"') {
        const unsigned char *s;
        size_t n;
        t = lex_string(&k, k.pos, &s, &n);
        if (t > 0) {
          ok = cb->yajl_map_key(ctx, s, n);
          st = ST_COLON;
        }
      } else if (c == '}' && first) {
        t = 1;
        k.depth--;
        ok = cb->yajl_end_map(ctx);
        value = 1;
      } else
        t = bad(&k, "an object key that is not a string");
      break;
    default: /* ST_VALUE */
      if (c == '{' || c == '[') {
        if (k.depth >= KJ_MAXD) {
          t = bad(&k, "nested too deep");
          break;
        }
        t = 1;
        k.stk[k.depth++] = c == '{' ? 'm' : 'a';
        ok = c == '{' ? cb->yajl_start_map(ctx) : cb->yajl_start_array(ctx);
        st = c == '{' ? ST_KEY : ST_VALUE;
        first = 1;
      } else if (c == ']' && first && k.depth && k.stk[k.depth - 1] == 'a') {
        t = 1;
        k.depth--;
        ok = cb->yajl_end_array(ctx);
        value = 1;
      } else if (c == '"') {
        const unsigned char *s;
        size_t n;
        t = lex_string(&k, k.pos, &s, &n);
        if (t > 0) {
          ok = cb->yajl_string(ctx, s, n);
          value = 1;
        }
      } else if (c == '-' || digit(c)) {
        t = lex_number(&k, k.pos);
        if (t > 0) {
          ok = cb->yajl_number(ctx, (const char *)k.b + k.pos, (size_t)t);
          value = 1;
        }
      } else if (c == 't' || c == 'f') {
        t = lex_word(&k, k.pos, c == 't' ? "true" : "false");
        if (t > 0) {
          ok = cb->yajl_boolean(ctx, c == 't');
          value = 1;
        }
      } else if (c == 'n') {
        t = lex_word(&k, k.pos, "null");
        if (t > 0) {
          ok = cb->yajl_null(ctx);
          value = 1;
        }
      } else
        t = bad(&k, "a value expected here");
      break;
    }
    if (t == T_MORE) {
      /* read until the window at least doubles: a token of any length is
       * then lexed O(its length) times in all, not once per chunk */
      size_t want = 2 * (k.len - k.pos);
      uint64_t fed0 = k.fed;
      int r, eof0 = k.eof;
      while ((r = more(&k)) == 1 && k.len - k.pos < want)
        ;
      if (r < 0) {
        rc = KJ_READ;
        break;
      }
      if (k.fed == fed0 && eof0) {
        rc = KJ_TRUNCATED;
        *at = k.fed;
        break;
      }
      continue;         /* lexed again: more bytes, or the end is known */
    }
    if (t == T_BAD) {
      rc = KJ_MALFORMED;
      *at = k.base + k.pos;
      *msg = k.msg;
      break;
    }
    k.pos += (size_t)t;
    if (!ok) {
      rc = KJ_CANCELED;
      *at = k.base + k.pos;
      break;
    }
    if (value) {
      st = k.depth ? ST_NEXT : ST_DONE;
      first = 0;
    }
  }
  free(k.b);
  rpd_buf_free(&k.str);
  return rc;
}
