/* rpdRemote.c - start/stop recording in a process that runs librpd_remote.so. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "rpd.h"
#include "opt.h"
#include "util/num.h"

static const rpd_help help = {
  .usage = "usage: rpdRemote start|stop|status PID",
  .about =
    "Control recording in a running process started with librpd_remote.so\n"
    "(LD_PRELOAD=librpd_remote.so PROGRAM, or linked with it).\n"
    "\n"
    "  start PID   start recording (SIGUSR1); the first start loads the tracer\n"
    "  stop PID    stop recording and flush the trace file (SIGUSR2)\n"
    "  status PID  say whether librpd_remote.so is loaded and ready in PID",
  .quiet = "accepted; the one line of the answer is printed anyway",
  .notes =
    "Before signalling, rpdRemote checks that PID exists, that librpd_remote.so\n"
    "is mapped in it (/proc/PID/maps) and that its handlers are installed\n"
    "(/proc/PID/status): SIGUSR1 would kill a process without them.\n"
    "rpdRemote returns when the process has taken the signal, so commands given\n"
    "one after the other arrive in order.  The process reports what it did on\n"
    "its own stderr (\"rpdRemote: ...\").\n"
    "\n"
    "Exit status: 0 ok (status: the shim is ready), 1 failure (status: not\n"
    "loaded or not ready), 2 usage.\n",
};

#define SHIM "librpd_remote"

/* Path of the librpd_remote*.so mapped in pid, into buf ("" if none).
 * Returns 0, or -1 with errno when the maps cannot be read. */
static int find_shim(pid_t pid, char *buf, size_t size)
{
  char path[64], line[4608];
  FILE *f;

  buf[0] = '\0';
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  if (!(f = fopen(path, "re")))
    return -1;
  while (fgets(line, sizeof line, f)) {
    char *file = strchr(line, '/');
    char *base;
    size_t n;
    if (!file)
      continue;
    n = strcspn(file, "\n");
    file[n] = '\0';
    base = strrchr(file, '/') + 1;
    if (strncmp(base, SHIM, strlen(SHIM)) == 0 && strstr(base, ".so")) {
      snprintf(buf, size, "%s", file);
      break;
    }
  }
  fclose(f);
  return 0;
}

/* 1 if pid catches both SIGUSR1 and SIGUSR2 (SigCgt of /proc/PID/status),
 * 0 if not, -1 if unknown. */
static int handlers_installed(pid_t pid)
{
  char path[64], line[256];
  unsigned long long mask = 0;
  int found = 0;
  FILE *f;

  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  if (!(f = fopen(path, "re")))
    return -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "SigCgt: %llx", &mask) == 1) {
      found = 1;
      break;
    }
  fclose(f);
  if (!found)
    return -1;
  return (mask >> (SIGUSR1 - 1) & 1) && (mask >> (SIGUSR2 - 1) & 1);
}

/* Wait (up to 2 s) until sig is no longer pending for pid, i.e. a thread
 * took it and ran the handler, so the next rpdRemote cannot overtake it.
 * 0 delivered, 1 still pending, -1 the process is gone. */
static int wait_delivered(pid_t pid, int sig)
{
  char path[64], line[256];
  struct timespec tick = {0, 2 * 1000 * 1000};

  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  for (int i = 0; i < 1000; i++) {
    unsigned long long pend = 0;
    int pending = 0;
    FILE *f = fopen(path, "re");
    if (!f)
      return -1;
    while (fgets(line, sizeof line, f)) {
      if (strncmp(line, "State:", 6) == 0 && strchr(line, 'Z'))
        pending = -1;  /* zombie: gone */
      if (sscanf(line, "ShdPnd: %llx", &pend) == 1 || sscanf(line, "SigPnd: %llx", &pend) == 1)
        if (pend >> (sig - 1) & 1)
          pending = pending < 0 ? -1 : 1;
    }
    fclose(f);
    if (pending <= 0)
      return pending;
    nanosleep(&tick, NULL);
  }
  return 1;
}

/* Parse a positive pid; 0 if malformed. */
static pid_t parse_pid(const char *s)
{
  int64_t v;

  if (rpd_parse_i64_range(s, 1, 0x3fffffff, &v))
    return 0;
  return (pid_t)v;
}

int main(int argc, char **argv)
{
  char shim[4096];
  const char *cmd;
  pid_t pid;
  int ready, sig;

  /* no options but the common ones (-q, --) */
  const rpd_opt opts[] = { RPD_OPT_END() };
  if (rpd_cli_init_opts(argc, argv, &help, opts))
    return rpd_cli_status();
  int rc = rpd_cli_options(opts, 0, &argc, argv);
  if (rc)
    return rc;
  if (argc != 2)
    return rpd_usage_error(argc < 2 ? "expected a command and a PID"
                                    : "too many arguments");
  cmd = argv[0];
  if (strcmp(cmd, "start") && strcmp(cmd, "stop") && strcmp(cmd, "status"))
    return rpd_usage_error("unknown command '%s' (use start, stop or status)", cmd);
  if (!(pid = parse_pid(argv[1])))
    return rpd_usage_error("bad PID '%s'", argv[1]);

  if (kill(pid, 0) != 0 && errno == ESRCH)
    return rpd_fail("no process with PID %d", (int)pid);
  if (find_shim(pid, shim, sizeof shim) != 0) {
    if (errno == ENOENT)
      return rpd_fail("no process with PID %d", (int)pid);
    return rpd_fail("cannot read /proc/%d/maps: %s", (int)pid, strerror(errno));
  }
  if (!shim[0]) {
    if (strcmp(cmd, "status") == 0)
      printf("%d: %s.so not loaded\n", (int)pid, SHIM);
    else
      rpd_fail("PID %d does not have %s.so loaded; not signalling it (start "
               "the program with LD_PRELOAD=%s.so)", (int)pid, SHIM, SHIM);
    return 1;
  }
  ready = handlers_installed(pid);
  if (strcmp(cmd, "status") == 0) {
    printf("%d: %s loaded%s\n", (int)pid, shim,
           ready == 1 ? ", ready" : ready == 0 ? ", handlers not installed"
                                               : ", handlers unknown");
    return ready == 1 ? 0 : 1;
  }
  if (ready == 0)
    return rpd_fail("PID %d has %s loaded but its SIGUSR1/SIGUSR2 handlers are "
                    "not installed (yet); not signalling it", (int)pid, shim);
  sig = strcmp(cmd, "start") == 0 ? SIGUSR1 : SIGUSR2;
  if (kill(pid, sig) != 0)
    return rpd_fail("cannot signal PID %d: %s", (int)pid, strerror(errno));
  switch (wait_delivered(pid, sig)) {
  case 1:
    return rpd_fail("%s sent to %d, but it is still pending after 2 s (is the "
                    "process stopped?)", cmd, (int)pid);
  case -1:
    return rpd_fail("%s sent to %d, but the process exited", cmd, (int)pid);
  }
  printf("%s sent to %d\n", cmd, (int)pid);
  return 0;
}
