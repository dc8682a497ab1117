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
 *  - rpd_rangePush/rpd_rangePop as the real tracer: while recording, a
 *    per-thread stack of ranges; each pop records a rocpd_api row written
 *    at the next flush (apiName = the pushed apiName, args = its args,
 *    start = push time, end = pop time; on schema v3 domain = the pushed
 *    domain, category "").  Logged as "push NAME" / "pop NAME".
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

#define MAX_RECS 1024
#define MAX_DEPTH 64

/* one rocpd_api row to write at the next flush (strings owned) */
typedef struct rec {
  int64_t start, end, pid, tid;
  char *name, *args, *domain, *category;
} rec;

/* an open range of this thread (strings owned) */
typedef struct range {
  int64_t start;
  char *name, *args, *domain;
} range;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int active;
static int64_t win_start;
static rec recs[MAX_RECS];
static int nrec, nwritten, nwin;
static __thread range stack[MAX_DEPTH];
static __thread int sp;

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

static char *xdup(const char *s)
{
  char *d = strdup(s ? s : "");
  if (!d)
    abort();
  return d;
}

/* Queue a row (mu held); takes ownership of the strings. */
static void add_rec(int64_t start, int64_t end, char *name, char *args, char *domain,
                    char *category)
{
  if (nrec == MAX_RECS) {
    free(name); free(args); free(domain); free(category);
    return;
  }
  recs[nrec++] = (rec){start, end, getpid(), (int64_t)syscall(SYS_gettid), name, args,
                       domain, category};
}

void rpdstop(void)
{
  pthread_mutex_lock(&mu);
  if (active == 1) {
    char text[64];
    snprintf(text, sizeof text, "window = %d", ++nwin);
    add_rec(win_start, now_ns(), xdup("fake_tracer_window"), xdup(text), xdup("fake"),
            xdup("UserMarker"));
  }
  if (active > 0)
    active--;
  logline("stop %d", active);
  pthread_mutex_unlock(&mu);
}

/* Write the rows recorded since the last flush; returns rows written or
 * -1 (reason logged). */
static int write_recs(void)
{
  rpd *r = NULL;
  rpd_strtab *names = NULL, *args = NULL;
  sqlite3_stmt *ins = NULL;
  int rc, written = 0;

  if (nwritten == nrec)
    return 0;
  rc = rpd_open(&r, trace_file(), NULL, RPD_WRITE);
  if (!rc)
    rc = rpd_begin(r);
  if (!rc)
    rc = rpd_strtab_open(r, "rocpd_string", &names);
  if (!rc)
    rc = rpd_strtab_open(r, rpd_args_table(r), &args);
  if (!rc && rpd_schema(r) == 3)
    rc = rpd_prepare(r, "INSERT INTO rocpd_api(pid, tid, start, end, apiName_id, "
                        "args_id, domain_id, category_id) "
                        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", &ins);
  else if (!rc)
    rc = rpd_prepare(r, "INSERT INTO rocpd_api(pid, tid, start, end, apiName_id, "
                        "args_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", &ins);
  for (int i = nwritten; !rc && i < nrec; i++) {
    const rec *x = &recs[i];
    int64_t name_id = 0, args_id = 0, dom_id = 0, cat_id = 0, s;
    rc = rpd_strtab_id(names, x->name, &name_id);
    if (!rc)
      rc = rpd_strtab_id(args, x->args, &args_id);
    if (!rc && rpd_schema(r) == 3)
      rc = rpd_strtab_id(names, x->domain, &dom_id);
    if (!rc && rpd_schema(r) == 3)
      rc = rpd_strtab_id(names, x->category, &cat_id);
    if (rc)
      break;
    sqlite3_bind_int64(ins, 1, x->pid);
    sqlite3_bind_int64(ins, 2, x->tid);
    sqlite3_bind_int64(ins, 3, x->start);
    sqlite3_bind_int64(ins, 4, x->end);
    sqlite3_bind_int64(ins, 5, name_id);
    sqlite3_bind_int64(ins, 6, args_id);
    if (rpd_schema(r) == 3) {
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
  nwritten = nrec;
  return written;
}

void rpdflush(void)
{
  int n;
  pthread_mutex_lock(&mu);
  n = write_recs();
  logline("flush rows=%d", n);
  pthread_mutex_unlock(&mu);
}

void rpd_mark(const char *domain, const char *apiName, const char *args)
{
  (void)domain; (void)apiName; (void)args;
}

void rpd_rangePush(const char *domain, const char *apiName, const char *args)
{
  pthread_mutex_lock(&mu);
  if (active && sp < MAX_DEPTH) {
    stack[sp++] = (range){now_ns(), xdup(apiName), xdup(args), xdup(domain)};
    logline("push %s", apiName ? apiName : "");
  }
  pthread_mutex_unlock(&mu);
}

void rpd_rangePop(void)
{
  pthread_mutex_lock(&mu);
  if (active && sp > 0) {
    range *x = &stack[--sp];
    logline("pop %s", x->name);
    add_rec(x->start, now_ns(), x->name, x->args, x->domain, xdup(""));
  }
  pthread_mutex_unlock(&mu);
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
