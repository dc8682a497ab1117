/* outfile.c - output files written atomically: where a tool may write
 * (rpd_output_check), temp files next to the target and their cleanup list
 * (shared with open.c), rpd_outfile_*, and stdout write errors. */
#define _GNU_SOURCE
#include "rpd.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Used by open.c (internal to common/). */
void rpd__install_cleanup(void);
int rpd__temp_create(const char *tmpl, char **path, int *fdp);
void rpd__temp_forget(const char *path);
void rpd__temp_remove(const char *path);
int rpd__temp_register(const char *path);

/* ------------------------------------------------------------ temp list */

/* Live temp files, in fixed storage so that rpd_cleanup_temps() can run
 * from a signal handler without touching the heap. */
#define MAX_TEMPS 64
static char temp_path[MAX_TEMPS][4096];
static volatile sig_atomic_t temp_live[MAX_TEMPS];
static pid_t temp_pid[MAX_TEMPS];      /* a forked child must not remove them */

void rpd_cleanup_temps(void)
{
  pid_t me = getpid();

  for (int i = 0; i < MAX_TEMPS; i++) {
    if (temp_live[i] && temp_pid[i] == me) {
      temp_live[i] = 0;
      unlink(temp_path[i]);
    }
  }
}

static void on_fatal_signal(int sig)
{
  int saved = errno;

  rpd_cleanup_temps();
  signal(sig, SIG_DFL);
  raise(sig);                 /* delivered when the handler returns */
  errno = saved;
}

/* atexit + handlers for the usual fatal signals, but only where the
 * program left the default disposition (an ignored SIGPIPE stays ignored). */
void rpd__install_cleanup(void)
{
  static int done;
  static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

  if (done) return;
  done = 1;
  atexit(rpd_cleanup_temps);
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction old, sa;
    if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL)
      continue;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(sigs[i], &sa, NULL);
  }
}

/* mkstemp the template `tmpl` (ending in XXXXXX) and register the file for
 * cleanup; *fdp gets its descriptor (O_CLOEXEC) and *path the name (caller
 * frees). */
int rpd__temp_create(const char *tmpl, char **path, int *fdp)
{
  sigset_t all, old;
  int slot = -1, fd = -1, err = 0;

  *path = NULL;
  *fdp = -1;
  rpd__install_cleanup();
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  for (int i = 0; i < MAX_TEMPS; i++)
    if (!temp_live[i]) { slot = i; break; }
  if (slot >= 0 &&
      (size_t)snprintf(temp_path[slot], sizeof temp_path[slot], "%s", tmpl) <
          sizeof temp_path[slot]) {
    fd = mkostemp(temp_path[slot], O_CLOEXEC);
    if (fd >= 0) {
      temp_pid[slot] = getpid();
      temp_live[slot] = 1;
    }
    else err = errno;
  } else if (slot >= 0) {
    err = ENAMETOOLONG;
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (slot < 0) return rpd_seterr(RPD_ERR, "too many temporary files");
  if (fd < 0) {
    if (err == EACCES || err == EROFS || err == EPERM)
      return rpd_seterr(RPD_EROFS, "cannot create a temporary file: %s", strerror(err));
    if (err == ENOENT || err == ENOTDIR)
      return rpd_seterr(RPD_ENOENT, "cannot create a temporary file: directory does not exist");
    return rpd_seterr(RPD_EIO, "cannot create a temporary file: %s",
                      strerror(err ? err : ENAMETOOLONG));
  }
  *path = rpd_xstrdup(temp_path[slot]);
  *fdp = fd;
  return RPD_OK;
}

/* Track `path`, a file someone else creates (SQLite's journal of a
 * VACUUM INTO target), so that a fatal signal or exit removes it too. */
int rpd__temp_register(const char *path)
{
  sigset_t all, old;
  int slot = -1;

  if (strlen(path) >= sizeof temp_path[0]) return rpd_seterr(RPD_EIO, "path too long");
  rpd__install_cleanup();
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  for (int i = 0; i < MAX_TEMPS && slot < 0; i++)
    if (!temp_live[i]) slot = i;
  if (slot >= 0) {
    strcpy(temp_path[slot], path);
    temp_pid[slot] = getpid();
    temp_live[slot] = 1;
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  return slot < 0 ? rpd_seterr(RPD_ERR, "too many temporary files") : RPD_OK;
}

/* Stop tracking the temp file `path` (it was renamed or removed). */
void rpd__temp_forget(const char *path)
{
  for (int i = 0; i < MAX_TEMPS; i++)
    if (temp_live[i] && strcmp(temp_path[i], path) == 0) temp_live[i] = 0;
}

/* Remove the temp file `path` and stop tracking it. */
void rpd__temp_remove(const char *path)
{
  unlink(path);
  rpd__temp_forget(path);
}

/* ------------------------------------------------------------ names */

/* Directory part of path ("." if none); caller frees. */
static char *dir_part(const char *path)
{
  const char *slash = strrchr(path, '/');

  if (!slash) return rpd_xstrdup(".");
  if (slash == path) return rpd_xstrdup("/");
  return rpd_xasprintf("%.*s", (int)(slash - path), path);
}

char *rpd_temp_template(const char *path)
{
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  size_t n = strlen(base);

  if (n > 64) {
    n = 64;
    /* do not cut a UTF-8 sequence in half */
    while (n > 0 && ((unsigned char)base[n] & 0xC0) == 0x80) n--;
  }
  if (!slash) return rpd_xasprintf(".%.*s.rpdtools-XXXXXX", (int)n, base);
  return rpd_xasprintf("%.*s.%.*s.rpdtools-XXXXXX", (int)(base - path), path, (int)n, base);
}

/* The target of the symbolic link `link` as a path usable from here (a
 * relative target is relative to the link's directory); caller frees;
 * NULL on error. */
static char *read_link(const char *link)
{
  char buf[4096];
  ssize_t n = readlink(link, buf, sizeof buf - 1);
  const char *slash;

  if (n < 0 || n >= (ssize_t)sizeof buf - 1) return NULL;
  buf[n] = 0;
  slash = strrchr(link, '/');
  if (buf[0] == '/' || !slash) return rpd_xstrdup(buf);
  return rpd_xasprintf("%.*s/%s", (int)(slash - link), link, buf);
}

static int writable_dir(const char *dir)
{
  struct stat st;

  if (stat(dir, &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR)
      return rpd_seterr(RPD_ENOENT, "output directory does not exist");
    return rpd_seterr(RPD_EIO, "cannot stat the output directory: %s", strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) return rpd_seterr(RPD_ENOENT, "output directory does not exist");
  /* root passes access(2) on a 0555 directory: look at the bits as well */
  if ((st.st_mode & 0222) == 0 || access(dir, W_OK | X_OK) != 0)
    return rpd_seterr(RPD_EROFS, "output directory is read-only");
  return RPD_OK;
}

int rpd_output_check(const char *path, const char *input, char **target)
{
  struct stat st, ist;
  char *cur, *dir;
  int rc = RPD_OK;

  if (target) *target = NULL;
  if (!path || !*path) return rpd_seterr(RPD_ENOENT, "empty output file name");
  cur = rpd_xstrdup(path);
  for (int hops = 0; lstat(cur, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
    char *next = hops < 40 ? read_link(cur) : NULL;
    free(cur);
    if (!next) return rpd_seterr(RPD_EIO, "cannot follow the symbolic link");
    cur = next;
  }
  if (lstat(cur, &st) == 0) {
    if (S_ISDIR(st.st_mode)) rc = rpd_seterr(RPD_EEXIST, "is a directory");
    else if (!S_ISREG(st.st_mode)) rc = rpd_seterr(RPD_EEXIST, "not a regular file");
    else if (input && stat(input, &ist) == 0 && ist.st_dev == st.st_dev &&
             ist.st_ino == st.st_ino)
      rc = rpd_seterr(RPD_EEXIST, "is the input file");
    else if ((st.st_mode & 0222) == 0 || access(cur, W_OK) != 0)
      rc = rpd_seterr(RPD_EROFS, "output file is read-only");
  } else if (errno != ENOENT) {
    rc = errno == ENOTDIR || errno == ENAMETOOLONG || errno == ELOOP
             ? rpd_seterr(RPD_ENOENT, "output directory does not exist")
             : rpd_seterr(RPD_EIO, "cannot stat: %s", strerror(errno));
  }
  if (!rc) {
    dir = dir_part(cur);
    rc = writable_dir(dir);
    free(dir);
  }
  if (!rc && target) {
    *target = cur;
    cur = NULL;
  }
  free(cur);
  return rc;
}

/* ------------------------------------------------------------ outfile */

static int io_status(int err, const char *what)
{
  if (err == ENOSPC || err == EDQUOT)
    return rpd_seterr(RPD_EIO, "%s: no space left on device", what);
  if (err == EROFS) return rpd_seterr(RPD_EROFS, "%s: read-only file system", what);
  return rpd_seterr(RPD_EIO, "%s: %s", what, strerror(err ? err : EIO));
}

static void outfile_free(rpd_outfile *of)
{
  free(of->target);
  free(of->tmp);
  of->target = of->tmp = NULL;
  of->fp = NULL;
}

int rpd_outfile_begin(rpd_outfile *of, const char *path, const char *input)
{
  char *tmpl;
  int fd, rc;

  memset(of, 0, sizeof *of);
  if ((rc = rpd_output_check(path, input, &of->target))) return rc;
  tmpl = rpd_temp_template(of->target);
  rc = rpd__temp_create(tmpl, &of->tmp, &fd);
  free(tmpl);
  if (rc) {
    outfile_free(of);
    return rc;
  }
  if (!(of->fp = fdopen(fd, "wb"))) {
    close(fd);
    rpd_outfile_abort(of);
    return rpd_seterr(RPD_ENOMEM, "out of memory");
  }
  return RPD_OK;
}

static mode_t umask_mode(void)
{
  mode_t m = umask(0);

  umask(m);
  return 0666 & ~m;
}

int rpd_outfile_commit(rpd_outfile *of)
{
  int rc = RPD_OK, fd;

  if (!of->tmp) return rpd_seterr(RPD_ERR, "output file not open");
  if (of->fp) {
    errno = 0;
    if (fflush(of->fp) != 0 || ferror(of->fp)) rc = io_status(errno, "cannot write");
    if (!rc && fsync(fileno(of->fp)) != 0) rc = io_status(errno, "cannot write");
    if (fclose(of->fp) != 0 && !rc) rc = io_status(errno, "cannot write");
    of->fp = NULL;
  } else if ((fd = open(of->tmp, O_RDONLY | O_CLOEXEC)) < 0) {
    rc = io_status(errno, "cannot reopen the temporary file");
  } else {
    if (fsync(fd) != 0) rc = io_status(errno, "cannot write");
    close(fd);
  }
  if (!rc && chmod(of->tmp, umask_mode()) != 0) rc = io_status(errno, "cannot set the mode");
  if (!rc && rename(of->tmp, of->target) != 0) rc = io_status(errno, "cannot rename into place");
  if (rc) {
    rpd__temp_remove(of->tmp);
  } else {
    char *dir = dir_part(of->target);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      fsync(dfd);
      close(dfd);
    }
    free(dir);
    rpd__temp_forget(of->tmp);
  }
  outfile_free(of);
  return rc;
}

void rpd_outfile_abort(rpd_outfile *of)
{
  if (of->fp) fclose(of->fp);
  if (of->tmp) rpd__temp_remove(of->tmp);
  outfile_free(of);
}

/* ------------------------------------------------------------ stdout */

int rpd_finish_stdout(void)
{
  int err;

  errno = 0;
  if (fflush(stdout) == 0 && !ferror(stdout)) return RPD_OK;
  err = errno;
  clearerr(stdout);
  if (err == ENOSPC || err == EDQUOT)
    return rpd_seterr(RPD_EIO, "cannot write standard output: no space left on device");
  return rpd_seterr(RPD_EIO, "cannot write standard output: %s",
                    err ? strerror(err) : "write error");
}
