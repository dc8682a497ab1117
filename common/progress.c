/* progress.c - a progress line on stderr for long work.
 *
 * Printed only when stderr is a terminal, at most four times a second, as
 * one line rewritten in place with '\r'.  The final call (done == total, or
 * done < 0 && total < 0) prints the last state and a newline, and only if
 * a line was shown at all, so short runs stay silent.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rpd.h"

static int64_t last_ms = -1;   /* time of the last print */
static int shown;              /* a line is on screen */
static int tty = -1;           /* cached isatty(2) */
static size_t last_len;        /* length of the last line, for erasing */

static int64_t now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Show "PROG: WHAT: DONE/TOTAL (P%)" (or "PROG: WHAT: DONE" when total < 0)
 * on stderr; see rpd.h.  Holds no memory. */
void rpd_progress(const char *what, int64_t done, int64_t total)
{
  int finish = (total >= 0 && done >= total) || (total < 0 && done < 0);
  int64_t t;
  char line[256];
  int n;

  if (tty < 0)
    tty = isatty(2);
  if (!tty)
    return;
  t = now_ms();
  if (finish && !shown)
    return;
  if (!finish) {
    if (last_ms < 0) {
      last_ms = t;     /* the first call starts the clock: no flash */
      return;
    }
    if (t - last_ms < 250)
      return;
  }
  last_ms = t;
  if (total >= 0)
    n = snprintf(line, sizeof line, "%s: %s: %lld/%lld (%d%%)",
                 rpd_progname ? rpd_progname : "rpd", what ? what : "",
                 (long long)(done < 0 ? total : done), (long long)total,
                 total > 0 ? (int)((done < 0 ? total : done) * 100 / total)
                           : 100);
  else if (done >= 0)
    n = snprintf(line, sizeof line, "%s: %s: %lld",
                 rpd_progname ? rpd_progname : "rpd", what ? what : "",
                 (long long)done);
  else
    n = snprintf(line, sizeof line, "%s: %s: done",
                 rpd_progname ? rpd_progname : "rpd", what ? what : "");
  if (n < 0)
    return;
  if ((size_t)n >= sizeof line)
    n = (int)sizeof line - 1;
  fprintf(stderr, "\r%s", line);
  for (size_t i = (size_t)n; i < last_len; i++)
    fputc(' ', stderr);
  last_len = (size_t)n;
  if (finish) {
    fputc('\n', stderr);
    shown = 0;
    last_ms = -1;
    last_len = 0;
  } else
    shown = 1;
  fflush(stderr);
}
