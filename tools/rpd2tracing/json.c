#include "tracing.h"

/* ------------------------------------------------------------ writer */



/* Start the disk writes of what OUT got since the last call, once that is
 * WRITEBACK bytes: the commit's fsync then finds little left to write
 * instead of the whole file (0.2 s for 500 MB), and the disk works while
 * the events are formatted.  Asynchronous; errors show at the fsync. */
void sink_writeback(sink *s) {
  off_t end;
  if (s->wb < 0 || (end = lseek(s->fd, 0, SEEK_CUR)) < s->wb + WRITEBACK) return;
  sync_file_range(s->fd, s->wb, end - s->wb, SYNC_FILE_RANGE_WRITE);
  s->wb = end;
}

void sink_flush(sink *s) {
  const char *p = s->buf;
  size_t n = s->len;
  s->len = 0;
  if (!n || s->failed) return;
  if (s->gz) {
    if (gzwrite(s->gz, p, (unsigned)n) != (int)n) {
      s->failed = 1;
      s->err = errno;
    }
    return;
  }
  /* Allocating the file 64 MB ahead saves the filesystem a block
   * reservation per page; close_sink cuts the file to its length. */
  if (s->prealloc >= 0 && s->pos + (off_t)n > s->alloc) {
    if (fallocate(s->fd, 0, s->alloc, PREALLOC) == 0) {
      s->alloc += PREALLOC;
      s->prealloc = 1;
    } else {
      s->prealloc = -1;
    }
  }
  s->pos += (off_t)n;
  while (n) {
    ssize_t w = write(s->fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      s->failed = 1;
      s->err = w < 0 ? errno : ENOSPC;
      return;
    }
    p += w;
    n -= (size_t)w;
    if (s->notify) job_wrote(s->notify, (size_t)w);
  }
  sink_writeback(s);
}

/* Append raw text (the array's brackets). */
void sink_raw(sink *s, const char *t) {
  size_t n = strlen(t);
  if (s->len + n > s->cap) sink_flush(s);
  memcpy(s->buf + s->len, t, n);
  s->len += n;
}

/* Start an event with room for `extra` bytes of strings on top of the fixed
 * part; returns the cursor (after the separator). */
char *ev_begin(sink *s, size_t extra) {
  size_t need = EV_FIXED + extra;
  if (s->len + need > s->cap) {
    sink_flush(s);
    if (need > s->cap) {
      s->cap = need;
      s->buf = rpd_xrealloc(s->buf, s->cap);
    }
  }
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

char *w_i64(char *p, int64_t v) {
  char tmp[24], *end = tmp + sizeof tmp;
  char *q = dec_back(end, v < 0 ? -(uint64_t)v : (uint64_t)v);
  if (v < 0) *--q = '-';
  memcpy(p, q, (size_t)(end - q));
  return p + (end - q);
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
    memcpy(p, hi_txt, hi_len);
    p += hi_len;
    p = put2(p, lo / 10000);
    p = put2(p, lo / 100 % 100);
    p = put2(p, lo % 100);
    *p++ = '.';
    *p++ = (char)('0' + frac / 100);
    return put2(p, frac % 100);
  }
  char tmp[32], *end = tmp + sizeof tmp, *q = end;
  uint64_t u = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
  unsigned frac = (unsigned)(u % 1000);
  q -= 3;
  q[0] = (char)('0' + frac / 100);
  q[1] = digits2[frac % 100 * 2];
  q[2] = digits2[frac % 100 * 2 + 1];
  *--q = '.';
  q = dec_back(q, u / 1000);
  if (ns < 0) *--q = '-';
  memcpy(p, q, (size_t)(end - q));
  return p + (end - q);
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

/* {"ph":"X","cat":CAT,"pid":P,"tid":T,"name": -- the caller writes the name
 * (extra: room for the name and the args), then ev_times. */
char *ev_head(sink *s, const char *cat, int64_t pid, int64_t tid, size_t extra) {
  char *p = ev_begin(s, extra);
  p = W(p, "{\"ph\":\"X\",\"cat\":\"");
  size_t n = strlen(cat);
  memcpy(p, cat, n);
  p += n;
  p = W(p, "\",\"pid\":");
  p = w_i64(p, pid);
  p = W(p, ",\"tid\":");
  p = w_i64(p, tid);
  return W(p, ",\"name\":");
}

/* ,"ts":..,"dur":..,"args":{ */
char *ev_times(char *p, int64_t start, int64_t dur) {
  p = W(p, ",\"ts\":");
  p = w_us(p, start);
  p = W(p, ",\"dur\":");
  p = w_us(p, dur);
  return W(p, ",\"args\":{");
}


/* A queue counter point: Idle (idle = 1) or QueueDepth. */
void ev_counter(sink *s, int64_t pid, int idle, int64_t ts, int64_t value) {
  char *p = ev_begin(s, 0);
  p = W(p, "{\"ph\":\"C\",\"pid\":");
  p = w_i64(p, pid);
  p = idle ? W(p, ",\"name\":\"Idle\",\"ts\":") : W(p, ",\"name\":\"QueueDepth\",\"ts\":");
  p = w_us(p, ts);
  p = idle ? W(p, ",\"args\":{\"idle\":") : W(p, ",\"args\":{\"depth\":");
  p = w_i64(p, value);
  ev_end(s, W(p, "}}"));
}
