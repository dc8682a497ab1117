/* remote_host.c - the target process of tests/tools/remote.sh.
 *
 *   remote_host wait SECS    print "ready PID", then idle until SIGTERM or
 *                            SECS seconds (a process for rpdRemote to drive)
 *   remote_host fork SECS    fork first; the child prints "child PID" and
 *                            idles like wait; the parent waits for it
 *   remote_host ctl CMD...   run control-API commands in order and print one
 *                            line each: "CMD rc=R depth=D" (+ " err=MSG")
 *       file:NAME  rpdctl_set_filename(NAME, 0)
 *       append:NAME rpdctl_set_filename(NAME, 1)
 *       push:DOMAIN:NAME:ARGS  rpdctl_range_push(DOMAIN, NAME, ARGS)
 *       pop                    rpdctl_range_pop()
 *       sleep:MS               sleep MS milliseconds
 *       start | stop | flush
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rpd_control.h"

static volatile sig_atomic_t done;

static void on_term(int sig)
{
  (void)sig;
  done = 1;
}

static int wait_mode(int secs)
{
  struct sigaction sa;
  struct timespec tick = {0, 10 * 1000 * 1000};
  long ticks = (long)secs * 100;

  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_term;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  printf("ready %d\n", (int)getpid());
  fflush(stdout);
  while (!done && ticks-- > 0)
    nanosleep(&tick, NULL);
  return 0;
}

static int fork_mode(int secs)
{
  pid_t child = fork();
  int status = 0;

  if (child < 0)
    return 1;
  if (child == 0) {
    printf("child ");
    return wait_mode(secs);
  }
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* push:DOMAIN:NAME:ARGS (ARGS may hold ':') */
static int push_cmd(const char *spec)
{
  char *copy = strdup(spec), *name, *args;
  int rc;

  if (!copy)
    return -1;
  name = strchr(copy, ':');
  if (name)
    *name++ = 0;
  args = name ? strchr(name, ':') : NULL;
  if (args)
    *args++ = 0;
  rc = rpdctl_range_push(copy, name ? name : "", args ? args : "");
  free(copy);
  return rc;
}

static int sleep_ms(long ms)
{
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  return nanosleep(&t, NULL);
}

static int ctl_mode(int argc, char **argv)
{
  for (int i = 0; i < argc; i++) {
    const char *c = argv[i];
    int rc;
    if (strncmp(c, "file:", 5) == 0)
      rc = rpdctl_set_filename(c + 5, 0);
    else if (strncmp(c, "append:", 7) == 0)
      rc = rpdctl_set_filename(c + 7, 1);
    else if (strcmp(c, "start") == 0)
      rc = rpdctl_start();
    else if (strcmp(c, "stop") == 0)
      rc = rpdctl_stop();
    else if (strcmp(c, "flush") == 0)
      rc = rpdctl_flush();
    else if (strncmp(c, "push:", 5) == 0)
      rc = push_cmd(c + 5);
    else if (strcmp(c, "pop") == 0)
      rc = rpdctl_range_pop();
    else if (strncmp(c, "sleep:", 6) == 0)
      rc = sleep_ms(atol(c + 6));
    else {
      fprintf(stderr, "remote_host: unknown command '%s'\n", c);
      return 2;
    }
    printf("%s rc=%d depth=%d", c, rc, rpdctl_depth());
    if (rc)
      printf(" err=%s", rpdctl_errmsg());
    putchar('\n');
  }
  return 0;
}

int main(int argc, char **argv)
{
  if (argc >= 3 && strcmp(argv[1], "wait") == 0)
    return wait_mode(atoi(argv[2]));
  if (argc >= 3 && strcmp(argv[1], "fork") == 0)
    return fork_mode(atoi(argv[2]));
  if (argc >= 2 && strcmp(argv[1], "ctl") == 0)
    return ctl_mode(argc - 2, argv + 2);
  fprintf(stderr, "usage: remote_host wait SECS | fork SECS | ctl CMD...\n");
  return 2;
}
