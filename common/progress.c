/* progress.c - one progress line on stderr for long work, one format for
 * every tool:
 *
 *   rpd2tracing: ops: 1234567/3000000 rows (41%), 812k rows/s, ETA 2s
 *
 * Printed only when stderr is a terminal and -q was not given, at most four
 * times a second, as one line rewritten in place with '\r'.  The first call
 * starts the clock and prints nothing; the final call (done == total, or
 * done < 0 && total < 0) prints the last state and a newline, and only if a
 * line was shown at all, so short runs stay silent.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rpd.h"

static int64_t start_ms = -1;  /* first call of the current line */
static int64_t last_ms = -1;   /* time of the last print */
static int shown;              /* a line is on screen */
static int tty = -1;           /* cached isatty(2) */
static size_t last_len;        /* length of the last line, for erasing */
static const char *cur_unit = "rows";

static int64_t now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Set the unit of the progress line (see rpd.h). */
void rpd_progress_unit(const char *unit)
{
  cur_unit = unit && *unit ? unit : "rows";
}

/* "812k", "3.1M", "950" into b. */
static void human(char *b, size_t n, double v)
{
  if (v >= 1e9) snprintf(b, n, "%.1fG", v / 1e9);
  else if (v >= 1e6) snprintf(b, n, "%.1fM", v / 1e6);
  else if (v >= 1e4) snprintf(b, n, "%.0fk", v / 1e3);
  else snprintf(b, n, "%.0f", v);
}

/* "2s", "3m05s", "1h02m" into b. */
static void duration(char *b, size_t n, int64_t s)
{
  if (s < 60) snprintf(b, n, "%llds", (long long)s);
  else if (s < 3600) snprintf(b, n, "%lldm%02llds", (long long)(s / 60), (long long)(s % 60));
  else snprintf(b, n, "%lldh%02lldm", (long long)(s / 3600), (long long)(s % 3600 / 60));
}

/* The line text (see rpd.h). */
void rpd_progress_format(char *buf, size_t n, const char *what, const char *unit,
                         int64_t done, int64_t total, int64_t elapsed_ms)
{
  int bytes = unit && strcmp(unit, "bytes") == 0;
  const char *u = bytes ? "MB" : unit ? unit : "rows";
  double scale = bytes ? 1e6 : 1;
  char rate[64] = "", eta[64] = "", d[32], t[32];
  int64_t now = done < 0 ? total : done;

  if (elapsed_ms > 0 && now > 0) {
    double r = (double)now / scale * 1000.0 / (double)elapsed_ms;
    human(d, sizeof d, r);
    snprintf(rate, sizeof rate, ", %s %s/s", d, u);
    if (total > now && now > 0) {
      int64_t left = (int64_t)((double)(total - now) * (double)elapsed_ms / (double)now / 1000.0 + 0.5);
      duration(t, sizeof t, left);
      snprintf(eta, sizeof eta, ", ETA %s", t);
    }
  }
  if (bytes) {
    snprintf(d, sizeof d, "%.1f", (double)(now < 0 ? 0 : now) / scale);
    snprintf(t, sizeof t, "%.1f", (double)total / scale);
  } else {
    snprintf(d, sizeof d, "%lld", (long long)(now < 0 ? 0 : now));
    snprintf(t, sizeof t, "%lld", (long long)total);
  }
  if (total >= 0)
    snprintf(buf, n, "%s: %s/%s %s (%d%%)%s%s", what ? what : "", d, t, u,
             total > 0 ? (int)((double)now * 100.0 / (double)total) : 100, rate, eta);
  else if (done >= 0)
    snprintf(buf, n, "%s: %s %s%s", what ? what : "", d, u, rate);
  else
    snprintf(buf, n, "%s: done", what ? what : "");
}

/* Show the progress line (see rpd.h).  Holds no memory. */
void rpd_progress(const char *what, int64_t done, int64_t total)
{
  int finish = (total >= 0 && done >= total) || (total < 0 && done < 0);
  int64_t t;
  char line[256];
  int n;

  if (tty < 0)
    tty = isatty(2);
  if (!tty || rpd_quiet)
    return;
  t = now_ms();
  if (finish && !shown) {
    start_ms = last_ms = -1;
    return;
  }
  if (!finish) {
    if (last_ms < 0) {
      start_ms = last_ms = t;   /* the first call starts the clock: no flash */
      return;
    }
    if (t - last_ms < 250)
      return;
  }
  last_ms = t;
  n = snprintf(line, sizeof line, "%s: ", rpd_progname ? rpd_progname : "rpd");
  if (n < 0 || (size_t)n >= sizeof line)
    return;
  rpd_progress_format(line + n, sizeof line - (size_t)n, what, cur_unit, done, total,
                      start_ms >= 0 ? t - start_ms : 0);
  n = (int)strlen(line);
  fprintf(stderr, "\r%s", line);
  for (size_t i = (size_t)n; i < last_len; i++)
    fputc(' ', stderr);
  last_len = (size_t)n;
  if (finish) {
    fputc('\n', stderr);
    shown = 0;
    start_ms = last_ms = -1;
    last_len = 0;
  } else
    shown = 1;
  fflush(stderr);
}

/* Progress over the rows of `table` read in id order (see rpd.h). */
void rpd_progress_rows(rpd *r, const char *what, const char *table, int64_t id)
{
  static char cached[64];
  static int64_t total = -1;

  if (!r || !table || rpd_quiet)
    return;
  if (tty < 0)
    tty = isatty(2);
  if (!tty)
    return;
  if (strncmp(cached, table, sizeof cached) != 0) {
    char *sql = sqlite3_mprintf("SELECT max(id) FROM \"%w\"", table);
    snprintf(cached, sizeof cached, "%s", table);
    if (!sql || rpd_query_int64(r, sql, &total) != RPD_OK || total <= 0) {
      total = -1;
      rpd_clearerr();
    }
    sqlite3_free(sql);
  }
  rpd_progress(what, id, total);
}
