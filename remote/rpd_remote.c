/* rpd_remote.c - librpd_remote.so: start and stop the ROCm tracer in a
 * running process with signals.
 *
 * Loaded with LD_PRELOAD (or linked), it installs handlers for
 *   SIGUSR1  start recording: on the first start, load librpd_tracer.so
 *            (RPDT_TRACER_LIB overrides the name/path) and call rpdstart();
 *   SIGUSR2  stop recording: rpdstop() then rpdflush(), so the trace file
 *            can be inspected after every stop.
 * Start while recording and stop while stopped are no-ops (reported).
 * The tracer is never unloaded.
 *
 * The signal handler only writes one byte to a pipe (write(2) is
 * async-signal-safe); a helper thread, created when the library loads and
 * blocking all signals, reads the pipe and does the dlopen and the tracer
 * calls.  Messages go to stderr prefixed "rpdRemote:".  RPDT_REMOTE_QUIET=1
 * silences the informational ones (errors are always printed).
 *
 * RPDT_AUTOSTART is set to 0 when the library loads: the tracer would
 * otherwise start itself when loaded by the first start, and the matching
 * stop would only lower its reference count, leaving it recording.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CMD_START 'S'
#define CMD_STOP 'T'

static int cmd_pipe[2] = {-1, -1};
static void *tracer;                    /* dlopen handle, never closed */
static void (*tracer_start)(void);
static void (*tracer_stop)(void);
static void (*tracer_flush)(void);
static int recording;                   /* only touched by the worker */

static void say(int always, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* One "rpdRemote: ..." line on stderr, written with one write(2) so lines
 * of several processes do not interleave.  Not for the signal handler. */
static void say(int always, const char *fmt, ...)
{
  const char *quiet = getenv("RPDT_REMOTE_QUIET");
  char line[1024];
  va_list ap;
  int n;

  if (!always && quiet && *quiet && strcmp(quiet, "0") != 0)
    return;
  n = snprintf(line, sizeof line, "rpdRemote: ");
  va_start(ap, fmt);
  n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
  va_end(ap);
  if (n > (int)sizeof line - 2)
    n = (int)sizeof line - 2;
  line[n++] = '\n';
  (void)!write(2, line, (size_t)n);
}

/* Async-signal-safe: pass the request to the worker. */
static void on_signal(int sig)
{
  int saved = errno;
  char c = sig == SIGUSR1 ? CMD_START : CMD_STOP;
  (void)!write(cmd_pipe[1], &c, 1);   /* a full pipe drops the request */
  errno = saved;
}

/* Load the tracer and look up its entry points; 0 on success. */
static int load_tracer(void)
{
  const char *name = getenv("RPDT_TRACER_LIB");
  void *h;

  if (tracer)
    return 0;
  if (!name || !*name)
    name = "librpd_tracer.so";
  h = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
  if (!h) {
    say(1, "cannot load the tracer library '%s': %s (install it, or set "
           "LD_LIBRARY_PATH or RPDT_TRACER_LIB)", name, dlerror());
    return -1;
  }
  *(void **)&tracer_start = dlsym(h, "rpdstart");
  *(void **)&tracer_stop = dlsym(h, "rpdstop");
  *(void **)&tracer_flush = dlsym(h, "rpdflush");
  if (!tracer_start || !tracer_stop || !tracer_flush) {
    say(1, "'%s' is not the rpd tracer: rpdstart/rpdstop/rpdflush missing",
        name);
    tracer_start = tracer_stop = tracer_flush = NULL;
    dlclose(h);
    return -1;
  }
  tracer = h;
  return 0;
}

static void do_start(void)
{
  if (recording) {
    say(0, "already recording (pid %d); start ignored", (int)getpid());
    return;
  }
  if (load_tracer() != 0)
    return;
  tracer_start();
  recording = 1;
  say(0, "recording started (pid %d)", (int)getpid());
}

static void do_stop(void)
{
  if (!recording) {
    say(0, "not recording (pid %d); stop ignored", (int)getpid());
    return;
  }
  tracer_stop();
  tracer_flush();
  recording = 0;
  say(0, "recording stopped and flushed (pid %d)", (int)getpid());
}

static void *worker(void *arg)
{
  int fd = (int)(intptr_t)arg;
  char c;

  for (;;) {
    ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return NULL;
    if (c == CMD_START)
      do_start();
    else if (c == CMD_STOP)
      do_stop();
  }
}

/* Create the pipe and the worker (all signals blocked in it), then install
 * the handlers.  Without a worker the handlers are not installed, so
 * rpdRemote sees no handler and refuses to signal. */
static void setup(void)
{
  sigset_t all, old;
  pthread_t th;
  pthread_attr_t attr;
  struct sigaction sa;
  int rc;

  if (pipe2(cmd_pipe, O_CLOEXEC) != 0) {
    say(1, "cannot create a pipe: %s; remote control disabled", strerror(errno));
    return;
  }
  fcntl(cmd_pipe[1], F_SETFL, O_NONBLOCK);
  sigfillset(&all);
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  rc = pthread_create(&th, &attr, worker, (void *)(intptr_t)cmd_pipe[0]);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    say(1, "cannot create the helper thread: %s; remote control disabled",
        strerror(rc));
    close(cmd_pipe[0]);
    close(cmd_pipe[1]);
    cmd_pipe[0] = cmd_pipe[1] = -1;
    return;
  }
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;
  /* one handler at a time per thread: a stop cannot overtake a start */
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGUSR1);
  sigaddset(&sa.sa_mask, SIGUSR2);
  sigaction(SIGUSR1, &sa, NULL);
  sigaction(SIGUSR2, &sa, NULL);
}

/* In a forked child the worker thread does not exist and the pipe is
 * shared with the parent: give the child its own.  The child inherits the
 * parent's tracer state (a copy), and so our `recording` flag as well.
 * Until the new worker runs, the signals are ignored, not fatal. */
static void after_fork_child(void)
{
  struct sigaction sa;

  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_IGN;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, NULL);
  sigaction(SIGUSR2, &sa, NULL);
  if (cmd_pipe[0] >= 0) {
    close(cmd_pipe[0]);
    close(cmd_pipe[1]);
    cmd_pipe[0] = cmd_pipe[1] = -1;
  }
  setup();
}

__attribute__((constructor)) static void rpd_remote_init(void)
{
  /* now, while the process is (almost surely) single-threaded: setenv
   * racing with another thread's getenv is not safe */
  setenv("RPDT_AUTOSTART", "0", 1);
  setup();
  if (cmd_pipe[1] >= 0) {
    pthread_atfork(NULL, NULL, after_fork_child);
    say(0, "ready in pid %d: 'rpdRemote start %d' / 'rpdRemote stop %d'",
        (int)getpid(), (int)getpid(), (int)getpid());
  }
}
