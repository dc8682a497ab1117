/* rpdctl.c - librpdctl.so: the C control API of include/rpd_control.h.
 *
 * Prepares the trace file with the common schema code (the tracer only
 * appends to an existing trace), loads the tracer with autostart off and
 * reference-counts start/stop.  All state is behind one mutex.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rpd.h"
#include "rpd_control.h"

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char *chosen_name;        /* from rpdctl_set_filename, owned */
static int chosen_append;
static void *tracer;             /* dlopen handle, never closed */
static void (*tracer_start)(void);
static void (*tracer_stop)(void);
static void (*tracer_flush)(void);
static void (*tracer_push)(const char *, const char *, const char *);  /* NULL: none */
static void (*tracer_pop)(void);
static int depth;
static __thread char errbuf[1024];

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(errbuf, sizeof errbuf, fmt, ap);
  va_end(ap);
  return -1;
}

/* 1 if path starts with the SQLite header, 0 if not, -1 if unreadable. */
static int is_plain_sqlite(const char *path)
{
  static const char magic[16] = "SQLite format 3";
  char hdr[16];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  ssize_t n;

  if (fd < 0)
    return -1;
  n = read(fd, hdr, sizeof hdr);
  close(fd);
  return n == (ssize_t)sizeof hdr && memcmp(hdr, magic, sizeof hdr) == 0;
}

/* Create a new schema-v3 trace at path (rpd_create: built in a temp file
 * next to it and renamed into place); force: replace the trace there
 * atomically. */
static int create_trace(const char *path, int force)
{
  rpd *r = NULL;
  rpd_create_opts o = { .schema = 3, .force = force };
  int rc = rpd_create(&r, path, &o);

  if (!rc)
    rc = rpd_close(r, 1);
  if (rc)
    return fail("cannot create trace '%s': %s", path, rpd_errmsg());
  return 0;
}

/* Make sure `path` is an RPD trace the tracer can append to. */
static int prepare_file(const char *path, int append)
{
  struct stat st;
  rpd *r = NULL;
  int plain;
  size_t n = strlen(path);

  /* the tracer appends to the file as SQLite while the program runs */
  if (n > 3 && strcmp(path + n - 3, ".gz") == 0)
    return fail("cannot use '%s': the tracer writes plain SQLite while the program "
                "runs; name it .rpd and gzip it afterwards", path);

  if (stat(path, &st) != 0) {
    if (errno != ENOENT)
      return fail("cannot use '%s': %s", path, strerror(errno));
    return create_trace(path, 0);
  }
  if (S_ISDIR(st.st_mode))
    return fail("cannot use '%s': is a directory", path);
  if (st.st_size == 0)
    return create_trace(path, 0);
  plain = is_plain_sqlite(path);
  if (plain < 0)
    return fail("cannot read '%s': %s", path, strerror(errno));
  if (!plain || rpd_open(&r, path, NULL, RPD_READ) != RPD_OK)
    return fail("'%s' exists and is not an RPD trace (%s); refusing to "
                "overwrite it", path,
                plain ? rpd_errmsg() : "not an uncompressed SQLite database");
  rpd_close(r, 0);
  if (append)
    return 0;
  return create_trace(path, 1);
}

/* Prepare the file and load the tracer (once). */
static int load(void)
{
  const char *env = getenv("RPDT_FILENAME");
  const char *lib = getenv("RPDT_TRACER_LIB");
  const char *path;
  int append = chosen_append;
  void *h;

  if (chosen_name)
    path = chosen_name;
  else if (env && *env) {
    path = env;        /* set by a recorded parent: append, never replace */
    append = 1;
  } else
    path = "trace.rpd";
  if (prepare_file(path, append))
    return -1;
  if (setenv("RPDT_FILENAME", path, 1) != 0 || setenv("RPDT_AUTOSTART", "0", 1) != 0)
    return fail("cannot set the environment: %s", strerror(errno));
  if (!lib || !*lib)
    lib = "librpd_tracer.so";
  h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
  if (!h)
    return fail("cannot load the tracer library '%s': %s", lib, dlerror());
  *(void **)&tracer_start = dlsym(h, "rpdstart");
  *(void **)&tracer_stop = dlsym(h, "rpdstop");
  *(void **)&tracer_flush = dlsym(h, "rpdflush");
  if (!tracer_start || !tracer_stop || !tracer_flush) {
    dlclose(h);
    return fail("'%s' is not the rpd tracer: rpdstart/rpdstop/rpdflush missing", lib);
  }
  /* the range API is optional: an older tracer without it still records */
  *(void **)&tracer_push = dlsym(h, "rpd_rangePush");
  *(void **)&tracer_pop = dlsym(h, "rpd_rangePop");
  if (!tracer_push || !tracer_pop)
    tracer_push = NULL, tracer_pop = NULL;
  tracer = h;
  return 0;
}

/* The tracer's range functions, or 0 with both NULL when the tracer is not
 * loaded yet (ranges are then no-ops, as in the reference); -1 when the
 * loaded tracer has none. */
static int range_api(void (**push)(const char *, const char *, const char *),
                     void (**pop)(void))
{
  int rc = 0;

  pthread_mutex_lock(&mu);
  *push = tracer_push;
  *pop = tracer_pop;
  if (tracer && !tracer_push)
    rc = fail("the loaded tracer has no range API (rpd_rangePush/rpd_rangePop)");
  pthread_mutex_unlock(&mu);
  return rc;
}

/* See rpd_control.h. */
EXPORT int rpdctl_set_filename(const char *name, int append)
{
  const char *env = getenv("RPDT_FILENAME");
  int rc = 0;

  if (!name || !*name)
    return fail("empty trace file name");
  pthread_mutex_lock(&mu);
  if (tracer)
    rc = fail("the tracer is already loaded; the trace file can no longer change");
  else if (env && *env && strcmp(env, name) != 0)
    rc = fail("RPDT_FILENAME is already set to '%s'; recording goes there", env);
  else {
    free(chosen_name);
    chosen_name = strdup(name);
    chosen_append = append != 0;
    if (!chosen_name)
      rc = fail("out of memory");
  }
  pthread_mutex_unlock(&mu);
  return rc;
}

/* See rpd_control.h. */
EXPORT int rpdctl_start(void)
{
  int rc = 0;

  pthread_mutex_lock(&mu);
  if (depth == 0) {
    if (!tracer)
      rc = load();
    if (rc == 0)
      tracer_start();
  }
  if (rc == 0)
    depth++;
  pthread_mutex_unlock(&mu);
  return rc;
}

/* See rpd_control.h. */
EXPORT int rpdctl_stop(void)
{
  int rc = 0;

  pthread_mutex_lock(&mu);
  if (depth == 0)
    rc = fail("not recording: rpdctl_stop() without rpdctl_start()");
  else if (--depth == 0) {
    tracer_stop();
    tracer_flush();
  }
  pthread_mutex_unlock(&mu);
  return rc;
}

/* See rpd_control.h. */
EXPORT int rpdctl_flush(void)
{
  int rc = 0;

  pthread_mutex_lock(&mu);
  if (!tracer)
    rc = fail("the tracer is not loaded (call rpdctl_start() first)");
  else
    tracer_flush();
  pthread_mutex_unlock(&mu);
  return rc;
}

/* See rpd_control.h. */
EXPORT int rpdctl_range_push(const char *domain, const char *api_name, const char *args)
{
  void (*push)(const char *, const char *, const char *);
  void (*pop)(void);

  if (range_api(&push, &pop))
    return -1;
  if (push)    /* outside the lock: the tracer takes its own */
    push(domain ? domain : "", api_name ? api_name : "", args ? args : "");
  return 0;
}

/* See rpd_control.h. */
EXPORT int rpdctl_range_pop(void)
{
  void (*push)(const char *, const char *, const char *);
  void (*pop)(void);

  if (range_api(&push, &pop))
    return -1;
  if (pop)
    pop();
  return 0;
}

/* See rpd_control.h. */
EXPORT int rpdctl_depth(void)
{
  int d;
  pthread_mutex_lock(&mu);
  d = depth;
  pthread_mutex_unlock(&mu);
  return d;
}

/* See rpd_control.h. */
EXPORT const char *rpdctl_errmsg(void)
{
  return errbuf;
}
