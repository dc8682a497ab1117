/* fake_tracer.c - a stand-in for librpd_tracer.so in the remote tests.
 *
 * Exports the tracer's control entry points rpdstart, rpdstop, rpdflush
 * with the real tracer's semantics (reference-counted start/stop; flush
 * writes what was recorded into RPDT_FILENAME, default ./trace.rpd, which
 * must already exist), and:
 *  - appends one line per call to the file named by FAKE_TRACER_LOG:
 *      load file=F autostart=A     (when the library is loaded)
 *      start N / stop N            (N = active count after the call)
 *      flush rows=R                (R = rows written by this flush)
 *  - records one "window" per outermost start..stop and, on flush, writes
 *    each as a rocpd_api row (apiName "fake_tracer_window", args
 *    "window = K", pid/tid of the caller) through the common layer, in one
 *    transaction.
 * Like the real tracer it starts recording on load unless RPDT_AUTOSTART=0.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rpd.h"

#define MAX_WINDOWS 1024

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int active;
static int64_t win_start, windows[MAX_WINDOWS][2];
static int nwin, nwritten;

static int64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void logline(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logline(const char *fmt, ...)
{
  const char *path = getenv("FAKE_TRACER_LOG");
  char line[512];
  va_list ap;
  int fd, n;

  if (!path)
    return;
  va_start(ap, fmt);
  n = vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if (n > (int)sizeof line - 2)
    n = (int)sizeof line - 2;
  line[n++] = '\n';
  fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) {
    (void)!write(fd, line, (size_t)n);
    close(fd);
  }
}

static const char *trace_file(void)
{
  const char *f = getenv("RPDT_FILENAME");
  return f && *f ? f : "./trace.rpd";
}

static void start_locked(void)
{
  if (active++ == 0)
    win_start = now_ns();
}

void rpdstart(void)
{
  pthread_mutex_lock(&mu);
  start_locked();
  logline("start %d", active);
  pthread_mutex_unlock(&mu);
}

void rpdstop(void)
{
  pthread_mutex_lock(&mu);
  if (active == 1 && nwin < MAX_WINDOWS) {
    windows[nwin][0] = win_start;
    windows[nwin][1] = now_ns();
    nwin++;
  }
  if (active > 0)
    active--;
  logline("stop %d", active);
  pthread_mutex_unlock(&mu);
}

/* Write the windows recorded since the last flush; returns rows written or
 * -1 (reason logged). */
static int write_windows(void)
{
  rpd *r = NULL;
  rpd_strtab *names = NULL, *args = NULL;
  sqlite3_stmt *ins = NULL;
  int rc, written = 0;
  int64_t name_id = 0, dom_id = 0, cat_id = 0;

  if (nwritten == nwin)
    return 0;
  rc = rpd_open(&r, trace_file(), NULL, RPD_WRITE);
  if (!rc)
    rc = rpd_begin(r);
  if (!rc)
    rc = rpd_strtab_open(r, "rocpd_string", &names);
  if (!rc)
    rc = rpd_strtab_open(r, rpd_args_table(r), &args);
  if (!rc)
    rc = rpd_strtab_id(names, "fake_tracer_window", &name_id);
  if (!rc && r->schema == 3) {
    rc = rpd_strtab_id(names, "fake", &dom_id);
    if (!rc)
      rc = rpd_strtab_id(names, "UserMarker", &cat_id);
    if (!rc)
      rc = rpd_prepare(r, "INSERT INTO rocpd_api(pid, tid, start, end, apiName_id, "
                          "args_id, domain_id, category_id) "
                          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", &ins);
  } else if (!rc) {
    rc = rpd_prepare(r, "INSERT INTO rocpd_api(pid, tid, start, end, apiName_id, "
                        "args_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", &ins);
  }
  for (int i = nwritten; !rc && i < nwin; i++) {
    char text[64];
    int64_t args_id = 0, s;
    snprintf(text, sizeof text, "window = %d", i + 1);
    if ((rc = rpd_strtab_id(args, text, &args_id)))
      break;
    sqlite3_bind_int64(ins, 1, getpid());
    sqlite3_bind_int64(ins, 2, (int64_t)syscall(SYS_gettid));
    sqlite3_bind_int64(ins, 3, windows[i][0]);
    sqlite3_bind_int64(ins, 4, windows[i][1]);
    sqlite3_bind_int64(ins, 5, name_id);
    sqlite3_bind_int64(ins, 6, args_id);
    if (r->schema == 3) {
      sqlite3_bind_int64(ins, 7, dom_id);
      sqlite3_bind_int64(ins, 8, cat_id);
    }
    if ((s = rpd_step(r, ins)) < 0)
      rc = (int)-s;
    sqlite3_reset(ins);
    written++;
  }
  sqlite3_finalize(ins);
  rpd_strtab_free(names);
  rpd_strtab_free(args);
  if (!rc)
    rc = rpd_commit(r);
  if (rc) {
    logline("error %s", rpd_errmsg());
    if (r)
      rpd_rollback(r);
    rpd_close(r, 0);
    return -1;
  }
  rc = rpd_close(r, 1);
  if (rc) {
    logline("error %s", rpd_errmsg());
    return -1;
  }
  nwritten = nwin;
  return written;
}

void rpdflush(void)
{
  int n;
  pthread_mutex_lock(&mu);
  n = write_windows();
  logline("flush rows=%d", n);
  pthread_mutex_unlock(&mu);
}

void rpd_mark(const char *domain, const char *apiName, const char *args)
{
  (void)domain; (void)apiName; (void)args;
}

void rpd_rangePush(const char *domain, const char *apiName, const char *args)
{
  (void)domain; (void)apiName; (void)args;
}

void rpd_rangePop(void)
{
}

__attribute__((constructor)) static void fake_tracer_load(void)
{
  const char *a = getenv("RPDT_AUTOSTART");
  logline("load file=%s autostart=%s", trace_file(), a ? a : "unset");
  if (!a || atoi(a) != 0) {
    pthread_mutex_lock(&mu);
    start_locked();
    pthread_mutex_unlock(&mu);
  }
}
