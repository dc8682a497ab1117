/* error.c - the last-error message, aborting allocators, growable buffers. */
#include "rpd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* Process settings every layer reads (the OOM message and the progress
 * line name the program; -q silences progress); cli.c sets them. */
const char *rpd_progname = "rpdtools";
int rpd_quiet;

/* The message of the last failure, one per thread (a helper thread's
 * failure never overwrites what another thread is reporting; code that
 * fails on one thread and reports on another copies the text across).
 * Never NULL. */
static _Thread_local char errbuf[2048];

const char *rpd_errmsg(void)
{
  return errbuf;
}

/* Format into a scratch buffer first: the arguments may point into errbuf
 * itself (rpd_seterr(rc, "x: %s", rpd_errmsg())).  The message is kept on
 * one line whatever the arguments hold (a file name, a pattern, an SQLite
 * message): control characters become \n, \r, \t or \xHH. */
int rpd_seterr(int rc, const char *fmt, ...)
{
  char tmp[sizeof errbuf];
  va_list ap;
  size_t o = 0;

  va_start(ap, fmt);
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  for (const unsigned char *p = (const unsigned char *)tmp; *p && o + 5 < sizeof errbuf; p++) {
    if (*p >= 0x20 && *p != 0x7F) {
      errbuf[o++] = (char)*p;
      continue;
    }
    errbuf[o++] = '\\';
    switch (*p) {
    case '\n': errbuf[o++] = 'n'; break;
    case '\r': errbuf[o++] = 'r'; break;
    case '\t': errbuf[o++] = 't'; break;
    default: o += (size_t)snprintf(errbuf + o, 4, "x%02X", *p); break;
    }
  }
  errbuf[o] = 0;
  return rc;
}

void rpd_clearerr(void)
{
  errbuf[0] = 0;
}

/* ------------------------------------------------------------ memory */

/* Out of memory: one line and exit status 1 (a failure, not a crash).
 * exit() runs the atexit handlers: rpd_cleanup_temps removes the temp
 * files rpd_open and rpd_outfile made, and a tool's own handler its
 * journal.  A second failure while those run (or on another thread)
 * leaves at once. */
static void oom(size_t n)
{
  static atomic_flag exiting = ATOMIC_FLAG_INIT;
  if (atomic_flag_test_and_set(&exiting))
    _exit(1);
  fprintf(stderr, "%s: out of memory (%zu bytes)\n",
          rpd_progname ? rpd_progname : "rpdtools", n);
  exit(1);
}

void *rpd_xmalloc(size_t n)
{
  void *p = malloc(n ? n : 1);

  if (!p) oom(n);
  return p;
}

void *rpd_xcalloc(size_t n, size_t size)
{
  void *p = calloc(n ? n : 1, size ? size : 1);

  if (!p) oom(n * size);
  return p;
}

void *rpd_xrealloc(void *p, size_t n)
{
  void *q = realloc(p, n ? n : 1);

  if (!q) oom(n);
  return q;
}

char *rpd_xstrdup(const char *s)
{
  size_t n = strlen(s) + 1;

  return memcpy(rpd_xmalloc(n), s, n);
}

static char *xvasprintf(const char *fmt, va_list ap)
{
  va_list ap2;
  int n;
  char *s;

  va_copy(ap2, ap);
  n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) n = 0;
  s = rpd_xmalloc((size_t)n + 1);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  return s;
}

char *rpd_xasprintf(const char *fmt, ...)
{
  va_list ap;
  char *s;

  va_start(ap, fmt);
  s = xvasprintf(fmt, ap);
  va_end(ap);
  return s;
}

/* ------------------------------------------------------------ rpd_buf */

static void buf_reserve(rpd_buf *b, size_t extra)
{
  size_t need = b->len + extra + 1;

  if (need <= b->cap) return;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need) cap *= 2;
  b->s = rpd_xrealloc(b->s, cap);
  b->cap = cap;
}

void rpd_buf_add(rpd_buf *b, const char *s, size_t n)
{
  buf_reserve(b, n);
  if (n) memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = 0;
}

void rpd_buf_puts(rpd_buf *b, const char *s)
{
  rpd_buf_add(b, s, strlen(s));
}

void rpd_buf_printf(rpd_buf *b, const char *fmt, ...)
{
  va_list ap;
  int n;

  va_start(ap, fmt);
  n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n <= 0) {
    buf_reserve(b, 0);
    b->s[b->len] = 0;
    return;
  }
  buf_reserve(b, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void rpd_buf_reset(rpd_buf *b)
{
  b->len = 0;
  if (b->s) b->s[0] = 0;
}

void rpd_buf_free(rpd_buf *b)
{
  free(b->s);
  b->s = NULL;
  b->len = b->cap = 0;
}
