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
 *
 * Work inside SQLite shows the same line through phases (progress.h):
 * SQLite's progress handler counts the rows of full table scans against a
 * total known from max(rowid); copies of files count bytes.
 * RPD_PROGRESS=1/0 forces the line on/off, RPD_PROGRESS_MS sets the
 * 250 ms interval (tests use 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "rpd.h"
#include "internal.h"

static int64_t start_ms = -1;  /* first call of the current line */
static int64_t last_ms = -1;   /* time of the last print */
static int shown;              /* a line is on screen */
static int tty = -1;           /* cached isatty(2) */
static size_t last_len;        /* length of the last line, for erasing */
static const char *cur_unit = "rows";
static int64_t interval_ms = -1; /* RPD_PROGRESS_MS, default 250 */
static const char *last_what;  /* the line on screen, for rpd_progress_end */
static const char *last_unit = "rows";
static int64_t last_total = -1;

/* Whether a line can show: stderr a terminal (RPD_PROGRESS=1 forces it
 * on, RPD_PROGRESS=0 off), no -q; also reads RPD_PROGRESS_MS (the least
 * time before the first print and between prints, default 250). */
int rpd_progress_on(void)
{
  if (tty < 0) {
    const char *force = getenv("RPD_PROGRESS");
    const char *ms = getenv("RPD_PROGRESS_MS");
    tty = force && *force ? atoi(force) != 0 : isatty(2);
    interval_ms = ms && *ms ? atoll(ms) : 250;
    if (interval_ms < 0)
      interval_ms = 250;
  }
  return tty && !rpd_quiet;
}

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

/* rpd_progress counted in bytes (see progress.h). */
void rpd_progress_bytes(const char *what, int64_t done, int64_t total)
{
  const char *u = cur_unit;
  cur_unit = "bytes";
  rpd_progress(what, done, total);
  cur_unit = u;
}

/* Show the progress line (see rpd.h).  Holds no memory. */
void rpd_progress(const char *what, int64_t done, int64_t total)
{
  int finish = (total >= 0 && done >= total) || (total < 0 && done < 0);
  int64_t t;
  char line[256];
  int n;

  if (!rpd_progress_on())
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
    if (t - last_ms < interval_ms)
      return;
  }
  last_ms = t;
  last_what = what;
  last_unit = cur_unit;
  last_total = total;
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

  if (!r || !table || !rpd_progress_on())
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

/* ------------------------------------------------ phases over SQL work */

static sqlite3 *phase_db;        /* the connection with our handler */
static const char *phase_what;
static int64_t phase_total = -1, phase_done;
static int64_t phase_ops_per_row;   /* > 0: count VM steps, not scans */

/* The rows stepped through in full table scans by every statement of db
 * since the last call (each statement's counter is read and reset). */
static int64_t scanned(sqlite3 *db)
{
  int64_t n = 0;
  for (sqlite3_stmt *s = sqlite3_next_stmt(db, NULL); s; s = sqlite3_next_stmt(db, s))
    n += sqlite3_stmt_status(s, SQLITE_STMTSTATUS_FULLSCAN_STEP, 1);
  return n;
}

/* The phase's line, from phase_done. */
static void phase_show(void)
{
  int64_t d = phase_ops_per_row > 0 ? phase_done / phase_ops_per_row : phase_done;
  if (phase_total > 0 && d >= phase_total)
    d = phase_total - 1;      /* only rpd_progress_end says 100% */
  rpd_progress(phase_what, d, phase_total);
}

/* SQLite's progress handler: every PHASE_OPS virtual-machine steps. */
#define PHASE_OPS 20000
static int phase_tick(void *unused)
{
  (void)unused;
  if (phase_ops_per_row > 0)
    phase_done += PHASE_OPS;
  else
    phase_done += scanned(phase_db);
  phase_show();
  return 0;
}

/* Rows a scan read from the file itself (rawscan.c: no VM steps, no
 * full-scan counts), counted in a phase of db that counts rows; minus
 * rows when a scan reads them again through SQLite (intscan.c's hand
 * over), which counts them again. */
void rpd__progress_scanned(sqlite3 *db, int64_t rows)
{
  if (!phase_db || phase_db != db || phase_ops_per_row > 0 || !rows)
    return;
  phase_done = rows < 0 && -rows > phase_done ? 0 : phase_done + rows;
  phase_show();
}

int64_t rpd__progress_done(void)
{
  return phase_db ? phase_done : -1;
}

/* max(rowid) of table, 0 when it is empty, missing or has no rowid. */
static int64_t max_rowid(rpd *r, const char *table)
{
  int64_t n = 0;
  char *sql = sqlite3_mprintf("SELECT ifnull(max(rowid), 0) FROM \"%w\"", table);
  if (!sql || rpd_query_int64(r, sql, &n) != RPD_OK || n < 0) {
    n = 0;
    rpd_clearerr();
  }
  sqlite3_free(sql);
  return n;
}

/* Sum of max(rowid) over tables (see progress.h). */
int64_t rpd_progress_rows_of(rpd *r, const char *const *tables)
{
  int64_t n = 0;
  if (!r || !tables || !rpd_progress_on())
    return 0;
  for (size_t i = 0; tables[i]; i++)
    n += max_rowid(r, tables[i]);
  return n;
}

/* Start a phase with a known total (see progress.h). */
void rpd_progress_sql_total(rpd *r, const char *what, int64_t total)
{
  rpd_progress_end();
  if (!r || !r->db || !rpd_progress_on())
    return;
  phase_db = r->db;
  phase_what = what;
  phase_total = total > 0 ? total : -1;
  phase_done = 0;
  phase_ops_per_row = 0;
  scanned(phase_db);              /* zero the counters */
  rpd_progress(what, 0, phase_total);   /* starts the clock */
  sqlite3_progress_handler(phase_db, PHASE_OPS, phase_tick, NULL);
}

/* Start a phase counted in virtual-machine steps (see progress.h). */
void rpd_progress_sql_ops(rpd *r, const char *what, int64_t rows, int ops_per_row)
{
  rpd_progress_sql_total(r, what, rows);
  if (phase_db)
    phase_ops_per_row = ops_per_row > 0 ? ops_per_row : 1;
}

/* Start a phase over the rows of table (see progress.h). */
void rpd_progress_sql(rpd *r, const char *what, const char *table)
{
  if (!r || !table || !rpd_progress_on())
    return;
  rpd_progress_sql_total(r, what, max_rowid(r, table));
}

/* Finish the line on screen at 100% (see progress.h). */
void rpd_progress_end(void)
{
  if (phase_db) {
    sqlite3_progress_handler(phase_db, 0, NULL, NULL);
    phase_db = NULL;
  }
  if (shown && last_what) {
    const char *u = cur_unit;
    cur_unit = last_unit;
    rpd_progress(last_what, last_total >= 0 ? last_total : -1, last_total >= 0 ? last_total : -1);
    cur_unit = u;
  }
  shown = 0;
  start_ms = last_ms = -1;
  last_len = 0;
}
