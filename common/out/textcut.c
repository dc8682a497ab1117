/* textcut.c - cut names in the middle for terminal tables and chart
 * labels; the terminal's width.  See textcut.h. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "textcut.h"

size_t rpd_text_width(const char *s)
{
  size_t w = 0;
  for (; *s; s++)
    w += ((unsigned char)*s & 0xC0) != 0x80;
  return w;
}

/* Byte offset of the first n characters of s[0..len). */
static size_t head_bytes(const char *s, size_t len, size_t n)
{
  size_t i = 0;
  for (; i < len && n; n--) {
    i++;
    while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
      i++;
  }
  return i;
}

/* Byte offset where the last n characters of s[0..len) start. */
static size_t tail_start(const char *s, size_t len, size_t n)
{
  size_t i = len;
  while (i > 0 && n) {
    i--;
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80)
      i--;
    n--;
  }
  return i;
}

/* Length of s without a template function's parameter list: "f<T>(a, b)"
 * -> length of "f<T>", or 0 if s has no "<...>(...)" ending. */
static size_t template_head(const char *s, size_t len)
{
  int depth = 0;
  if (len < 4 || s[len - 1] != ')')
    return 0;
  for (size_t i = len; i-- > 0;) {
    if (s[i] == ')')
      depth++;
    else if (s[i] == '(' && --depth == 0)
      return i > 0 && s[i - 1] == '>' ? i : 0;
  }
  return 0;
}

const char *rpd_text_cut(rpd_buf *b, const char *s, size_t width)
{
  return rpd_text_cut_apart(b, s, width, 0);
}

const char *rpd_text_cut_apart(rpd_buf *b, const char *s, size_t width, size_t apart)
{
  size_t len = strlen(s), w = rpd_text_width(s), h;

  rpd_buf_reset(b);
  if (w <= width) {
    rpd_buf_add(b, s, len);
    return b->s ? b->s : "";
  }
  if (width < 5) {
    rpd_buf_add(b, s, head_bytes(s, len, width));
    return b->s ? b->s : "";
  }
  h = template_head(s, len);
  if (h) {                                  /* "f<T>(...)" first */
    len = h;
    w = 0;
    for (size_t i = 0; i < len; i++)
      w += ((unsigned char)s[i] & 0xC0) != 0x80;
    if (w + 5 <= width) {
      rpd_buf_add(b, s, len);
      rpd_buf_puts(b, "(...)");
      return b->s;
    }
  }
  size_t room = width - 3, nh = room / 3, nt = room - nh;
  size_t hb = head_bytes(s, len, nh), t = tail_start(s, len, nt);
  if (apart > hb && apart < t && width >= 20) {
    /* head ... window at the difference ... tail */
    size_t r2 = width - 6, wh = r2 / 4, ww = r2 / 2, wt = r2 - wh - ww;
    size_t from = apart, back = 12;
    /* from the start of the word (letters and digits) holding the
     * difference, at most 12 bytes back: "MT256x224" rather than "256x224" */
    while (from > 0 && back-- && isalnum((unsigned char)s[from - 1]))
      from--;
    hb = head_bytes(s, len, wh);
    t = tail_start(s, len, wt);
    if (from < hb)
      from = hb;
    size_t to = from + head_bytes(s + from, len - from, ww);
    rpd_buf_add(b, s, hb);
    if (from > hb)
      rpd_buf_puts(b, "...");
    if (to >= t) {                      /* the window meets the tail */
      size_t t2 = tail_start(s, len, width - rpd_text_width(b->s));
      rpd_buf_add(b, s + (t2 > from ? t2 : from), len - (t2 > from ? t2 : from));
      return b->s;
    }
    rpd_buf_add(b, s + from, to - from);
    rpd_buf_puts(b, "...");
    rpd_buf_add(b, s + t, len - t);
    return b->s;
  }
  rpd_buf_add(b, s, hb);
  rpd_buf_puts(b, "...");
  rpd_buf_add(b, s + t, len - t);
  return b->s;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(**(const char *const *const *)a, **(const char *const *const *)b);
}

/* Bytes s and t share at their start, backed off to a character start. */
static size_t common_prefix(const char *s, const char *t)
{
  size_t i = 0;
  while (s[i] && s[i] == t[i])
    i++;
  while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80)
    i--;
  return i;
}

void rpd_text_apart(const char *const *s, size_t n, size_t *apart)
{
  const char *const **ord = rpd_xcalloc(n + 1, sizeof *ord);
  for (size_t i = 0; i < n; i++) {
    ord[i] = &s[i];
    apart[i] = 0;
  }
  qsort(ord, n, sizeof *ord, cmp_str);
  for (size_t i = 0; i < n; i++) {
    const char *x = *ord[i];
    size_t best = 0, j;
    /* the nearest distinct neighbours on both sides */
    for (j = i; j-- > 0 && strcmp(*ord[j], x) == 0;)
      ;
    if (j != (size_t)-1) {
      size_t p = common_prefix(x, *ord[j]);
      if (p > best)
        best = p;
    }
    for (j = i + 1; j < n && strcmp(*ord[j], x) == 0; j++)
      ;
    if (j < n) {
      size_t p = common_prefix(x, *ord[j]);
      if (p > best)
        best = p;
    }
    apart[ord[i] - s] = best;
  }
  free(ord);
}

/* A cut name and the index of its string, sorted by the cut text. */
typedef struct cut_ref {
  const char *t;
  size_t i;
} cut_ref;

static int cmp_cut(const void *a, const void *b)
{
  return strcmp(((const cut_ref *)a)->t, ((const cut_ref *)b)->t);
}

char **rpd_text_cut_distinct(const char *const *s, size_t n, size_t width)
{
  size_t *apart = rpd_xcalloc(n + 1, sizeof *apart);
  cut_ref *ord = rpd_xcalloc(n + 1, sizeof *ord);
  char **out = rpd_xcalloc(n + 1, sizeof *out);
  rpd_buf b = {0};
  rpd_text_apart(s, n, apart);
  for (size_t i = 0; i < n; i++)
    out[i] = rpd_xstrdup(rpd_text_cut_apart(&b, s[i], width, apart[i]));
  /* a few rounds: where different names still read the same, move each
   * one's window to where it differs from the others that read like it */
  for (int round = 0, changed = 1; round < 3 && changed; round++) {
    changed = 0;
    for (size_t i = 0; i < n; i++)
      ord[i] = (cut_ref){out[i], i};
    qsort(ord, n, sizeof *ord, cmp_cut);
    for (size_t g = 0, e; g < n; g = e) {
      for (e = g + 1; e < n && !strcmp(ord[e].t, ord[g].t); e++)
        ;
      for (size_t x = g; e - g > 1 && x < e; x++) {
        size_t i = ord[x].i, best = 0;
        for (size_t y = g; y < e; y++)
          if (strcmp(s[ord[y].i], s[i]) != 0) {
            size_t p = common_prefix(s[i], s[ord[y].i]);
            best = p > best ? p : best;
          }
        if (best && best != apart[i]) {
          apart[i] = best;
          changed = 1;
        }
      }
    }
    for (size_t i = 0; changed && i < n; i++) {
      free(out[i]);
      out[i] = rpd_xstrdup(rpd_text_cut_apart(&b, s[i], width, apart[i]));
    }
  }
  rpd_buf_free(&b);
  free(apart);
  free(ord);
  return out;
}

size_t rpd_term_width(int fd, size_t fallback)
{
  struct winsize ws;
  const char *c;
  if (!isatty(fd))
    return fallback;
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  c = getenv("COLUMNS");
  if (c && atoi(c) > 0)
    return (size_t)atoi(c);
  return fallback;
}
