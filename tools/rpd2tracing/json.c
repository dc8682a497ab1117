#include "tracing.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The JSON writer: trace-event JSON formatted straight into the sink. */

/* Start an event with room for `extra` bytes of strings on top of the fixed
 * part; returns the cursor (after the separator). */
char *ev_begin(sink *s, size_t extra) {
  sink_reserve(s, EV_FIXED + extra);
  char *p = s->buf + s->len;
  if (s->nevents++) p = W(p, ",\n");
  return p;
}

void ev_end(sink *s, char *p) { s->len = (size_t)(p - s->buf); }

static const char digits2[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* u in decimal, written backwards ending at q; returns the first char. */
static char *dec_back(char *q, uint64_t u) {
  while (u >= 100) {
    unsigned d = (unsigned)(u % 100) * 2;
    u /= 100;
    *--q = digits2[d + 1];
    *--q = digits2[d];
  }
  if (u >= 10) {
    *--q = digits2[u * 2 + 1];
    *--q = digits2[u * 2];
  } else {
    *--q = (char)('0' + u);
  }
  return q;
}

static const uint64_t pow10_tab[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
    1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
    100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
    1000000000000000000ull, 10000000000000000000ull};

/* Decimal digits of u: log10 from the bit length, then one comparison
 * (u | 1 has the same digits and is never 0). */
static unsigned dec_len(uint64_t u) {
  u |= 1;
  unsigned t = (unsigned)((64 - __builtin_clzll(u)) * 1233) >> 12;
  return t + (t < 20 && u >= pow10_tab[t]);
}

/* u in decimal at p (digits written in place, no copy); returns the end. */
static char *w_u64(char *p, uint64_t u) {
  char *end = p + dec_len(u);
  dec_back(end, u);
  return end;
}

char *w_i64(char *p, int64_t v) {
  if (v < 0) {
    *p++ = '-';
    return w_u64(p, -(uint64_t)v);
  }
  return w_u64(p, (uint64_t)v);
}

static char *put2(char *p, unsigned v) {
  p[0] = digits2[v * 2];
  p[1] = digits2[v * 2 + 1];
  return p + 2;
}

/* ns -> microseconds with exactly three decimals ("12.345"). */
char *w_us(char *p, int64_t ns) {
  /* Timestamps are ~1e12 us and close together: the digits above the
   * seconds are formatted once and reused (one cache per thread). */
  static __thread uint64_t hi_key = UINT64_MAX;
  static __thread char hi_txt[24];
  static __thread size_t hi_len;
  if (ns >= 1000000000) {
    uint64_t us = (uint64_t)ns / 1000, hi = us / 1000000;
    unsigned lo = (unsigned)(us % 1000000), frac = (unsigned)((uint64_t)ns % 1000);
    if (hi != hi_key) {
      char *e = hi_txt + sizeof hi_txt, *q = dec_back(e, hi);
      hi_len = (size_t)(e - q);
      memmove(hi_txt, q, hi_len);
      hi_key = hi;
    }
    if (hi_len <= 16)   /* one fixed-size copy; the digits below overwrite the rest */
      memcpy(p, hi_txt, 16);
    else
      memcpy(p, hi_txt, hi_len);
    p += hi_len;
    p = put2(p, lo / 10000);
    p = put2(p, lo / 100 % 100);
    p = put2(p, lo % 100);
    *p++ = '.';
    *p++ = (char)('0' + frac / 100);
    return put2(p, frac % 100);
  }
  uint64_t u = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
  unsigned frac = (unsigned)(u % 1000);
  if (ns < 0) *p++ = '-';
  p = w_u64(p, u / 1000);
  *p++ = '.';
  *p++ = (char)('0' + frac / 100);
  return put2(p, frac % 100);
}

/* Bytes a quoted, escaped string of n input bytes can take (\u00XX). */

/* 1 when one of the 8 bytes in x needs escaping: a control character (or
 * NUL), non-ASCII, '"' or '\\'. */
static int word_special(uint64_t x) {
  return ((x | ((x - ONES * 0x20) & ~x)) & HIGHS) || HAS_ZERO(x ^ (ONES * '"')) ||
         HAS_ZERO(x ^ (ONES * '\\'));
}

/* The n bytes at s as a quoted JSON string: plain ASCII is copied 8 bytes at
 * a time; a string with anything else goes through rpd_json_escape (so
 * escapes, U+FFFD for invalid UTF-8 and a stop at NUL are exactly the
 * common ones).  Needs ESC_MAX(n) room. */
char *w_strn(sink *k, char *p, const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  char *start = ++p;
  size_t i = 0;
  p[-1] = '"';
#ifdef __SSE2__
  {   /* 16 bytes a step: below 0x20 or from 0x80 (signed: below 0x20), '"', '\\' */
    const __m128i sp = _mm_set1_epi8(0x20), qu = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
    for (; i + 16 <= n; i += 16, p += 16) {
      __m128i x = _mm_loadu_si128((const __m128i *)(u + i));
      __m128i bad = _mm_or_si128(_mm_cmplt_epi8(x, sp),
                                 _mm_or_si128(_mm_cmpeq_epi8(x, qu), _mm_cmpeq_epi8(x, bs)));
      if (_mm_movemask_epi8(bad)) break;
      _mm_storeu_si128((__m128i *)p, x);
    }
    /* the last n - i < 16 bytes in one step too: an overlapping load of the
     * string's last 16, or (a string under 16 bytes, at least 3, so its
     * ESC_MAX room holds a 16-byte store) a padded copy */
    size_t r = n - i;
    if (r && r < 16 && n >= 3) {
      __m128i x;
      unsigned m;
      if (n >= 16) {
        x = _mm_loadu_si128((const __m128i *)(u + n - 16));
      } else {
        unsigned char b[16] = {0};
        memcpy(b, u, n);
        x = _mm_loadu_si128((const __m128i *)b);
      }
      __m128i bad = _mm_or_si128(_mm_cmplt_epi8(x, sp),
                                 _mm_or_si128(_mm_cmpeq_epi8(x, qu), _mm_cmpeq_epi8(x, bs)));
      m = (unsigned)_mm_movemask_epi8(bad);
      m = n >= 16 ? m >> (16 - r) : m & ((1u << n) - 1);
      if (!m) {
        _mm_storeu_si128((__m128i *)(start + n - (n >= 16 ? 16 : n)), x);
        i = n;
        p = start + n;
      }
    }
  }
#endif
  for (; i + 8 <= n; i += 8, p += 8) {
    uint64_t x;
    memcpy(&x, u + i, 8);
    if (word_special(x)) break;
    memcpy(p, &x, 8);
  }
  for (; i < n; i++) {
    unsigned char ch = u[i];
    if (ch < 0x20 || ch >= 0x80 || ch == '"' || ch == '\\') break;
    *p++ = (char)ch;
  }
  if (i < n) {
    rpd_buf_reset(&k->scratch);
    rpd_json_escape(&k->scratch, s);
    memcpy(start, k->scratch.s, k->scratch.len);
    p = start + k->scratch.len;
  }
  *p++ = '"';
  return p;
}

/* s (NULL: "") as a quoted JSON string; needs ESC_MAX(strlen(s)) room. */
char *w_str(sink *k, char *p, const char *s) {
  s = s ? s : "";
  return w_strn(k, p, s, strlen(s));
}

/* Each worker keeps its own error text (the common error buffer is one
 * static for the whole process). */

int cerr(char *buf, int rc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, ERR_MAX, fmt, ap);
  va_end(ap);
  return rc;
}

const char *col_text(sqlite3_stmt *st, int i) {
  const char *s = (const char *)sqlite3_column_text(st, i);
  return s ? s : "";
}

/* Room a text takes quoted and escaped. */
static size_t txt_room(txt t) { return t.e ? t.e->len : ESC_MAX(t.n); }

static char *w_txt(sink *k, char *p, txt t) {
  if (t.e) {
    memcpy(p, t.e->json, t.e->len);
    return p + t.e->len;
  }
  return w_strn(k, p, t.s, t.n);
}

static char *w_lit(char *p, const char *s) {
  size_t n = strlen(s);
  memcpy(p, s, n);
  return p + n;
}

/* "pid":P,"tid":T */
static char *w_track(char *p, const track_info *t) {
  p = W(p, "\"pid\":");
  p = w_i64(p, t->pid);
  p = W(p, ",\"tid\":");
  return w_i64(p, t->tid);
}

/* ,"args":{KEY:VALUE}} or ,"args":{}} */
static char *w_args(sink *k, char *p, const arg *a) {
  p = W(p, ",\"args\":{");
  if (a) {
    *p++ = '"';
    p = w_lit(p, a->key);
    p = W(p, "\":");
    p = a->is_int ? w_i64(p, a->ival) : w_txt(k, p, a->text);
  }
  return W(p, "}}");
}

static size_t arg_room(const arg *a) {
  return a ? strlen(a->key) + (a->is_int ? 0 : txt_room(a->text)) : 0;
}

static void json_slice(conv *c, const char *cat, const track_info *t, txt name, int64_t ts,
                       int64_t dur, const arg *a, int64_t flow_end) {
  sink *s = &c->out;
  (void)flow_end;
  size_t cn = strlen(cat);
  char *p = ev_begin(s, txt_room(name) + arg_room(a) + cn);
  p = W(p, "{\"ph\":\"X\",\"cat\":\"");
  memcpy(p, cat, cn);
  p += cn;
  p = W(p, "\",");
  p = w_track(p, t);
  p = W(p, ",\"name\":");
  p = w_txt(s, p, name);
  p = W(p, ",\"ts\":");
  p = w_us(p, ts);
  p = W(p, ",\"dur\":");
  p = w_us(p, dur);
  ev_end(s, w_args(s, p, a));
}

static void json_instant(conv *c, const char *cat, const track_info *t, txt name, int64_t ts,
                         const arg *a) {
  sink *s = &c->out;
  size_t cn = strlen(cat);
  char *p = ev_begin(s, txt_room(name) + arg_room(a) + cn);
  p = W(p, "{\"ph\":\"i\",\"s\":\"p\",\"cat\":\"");
  memcpy(p, cat, cn);
  p += cn;
  p = W(p, "\",");
  p = w_track(p, t);
  p = W(p, ",\"name\":");
  p = w_txt(s, p, name);
  p = W(p, ",\"ts\":");
  p = w_us(p, ts);
  ev_end(s, w_args(s, p, a));
}

static void json_counter(conv *c, const char *cat, int64_t pid, const char *name, int64_t ts,
                         const char *key, int is_int, int64_t ival, double dval) {
  sink *s = &c->out;
  size_t cn = strlen(cat), nn = strlen(name), kn = strlen(key);
  char *p = ev_begin(s, cn + ESC_MAX(nn) + ESC_MAX(kn) + 32);
  p = W(p, "{\"ph\":\"C\",\"cat\":\"");
  memcpy(p, cat, cn);
  p += cn;
  p = W(p, "\",\"pid\":");
  p = w_i64(p, pid);
  p = W(p, ",\"name\":");
  p = w_strn(s, p, name, nn);
  p = W(p, ",\"ts\":");
  p = w_us(p, ts);
  p = W(p, ",\"args\":{");
  p = w_strn(s, p, key, kn);
  *p++ = ':';
  if (is_int)
    p = w_i64(p, ival);
  else
    p += snprintf(p, 32, "%.17g", dval);
  ev_end(s, W(p, "}}"));
}

/* Flow arrows as the reference: "s" binds to the enclosing slice, "f" with
 * bp e to the enclosing slice at its ts. */
static void json_flow(conv *c, int64_t id, const track_info *t, int64_t ts, int end) {
  sink *s = &c->out;
  char *p = ev_begin(s, 0);
  p = end ? W(p, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"api_op\",\"name\":\"api_op\",\"id\":")
          : W(p, "{\"ph\":\"s\",\"cat\":\"api_op\",\"name\":\"api_op\",\"id\":");
  p = w_i64(p, id);
  *p++ = ',';
  p = w_track(p, t);
  p = W(p, ",\"ts\":");
  p = w_us(p, ts);
  ev_end(s, W(p, "}"));
}

static void json_meta(sink *s, const char *what, int64_t pid, int64_t tid, const char *key,
                      const char *sval, int64_t ival) {
  char *p = ev_begin(s, ESC_MAX(strlen(what) + (sval ? strlen(sval) : 0)));
  p = W(p, "{\"name\":");
  p = w_str(s, p, what);
  p = W(p, ",\"ph\":\"M\",\"pid\":");
  p = w_i64(p, pid);
  if (tid >= 0) {
    p = W(p, ",\"tid\":");
    p = w_i64(p, tid);
  }
  p = W(p, ",\"args\":{");
  p = w_str(s, p, key);
  *p++ = ':';
  p = sval ? w_str(s, p, sval) : w_i64(p, ival);
  ev_end(s, W(p, "},\"cat\":\"__metadata\"}"));
}

/* process_name/process_sort_index (tid < 0) or thread_name/thread_sort_index. */
static void json_name(conv *c, int64_t pid, int64_t tid, const char *name, int64_t sort) {
  json_meta(&c->out, tid < 0 ? "process_name" : "thread_name", pid, tid, "name", name, 0);
  json_meta(&c->out, tid < 0 ? "process_sort_index" : "thread_sort_index", pid, tid,
            "sort_index", NULL, sort);
}

static void json_begin(sink *s, int array) { sink_raw(s, array ? "[\n" : "{\"traceEvents\":[\n"); }

static void json_finish(sink *s, int array) {
  sink_raw(s, array ? "\n]\n" : "\n],\"displayTimeUnit\":\"ns\"}\n");
}

/* Chrome/Perfetto trace-event JSON. */
const writer json_writer = {
  "json", json_begin, json_finish, json_slice, json_instant, json_counter, json_flow, json_name,
  NULL, 0, NULL,
};
