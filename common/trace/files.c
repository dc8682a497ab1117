/* files.c - the file side of opening a trace: temp files next to a trace or
 * in $TMPDIR, errno as a status, what an input file is, writable checks. */
#define _GNU_SOURCE
#include "rpd.h"
#include "internal.h"
#include "opening.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char sqlite_magic[16] = "SQLite format 3";   /* + NUL */

/* ------------------------------------------------------------ temp files */

/* Create a temp file for `path`, next to it (".NAME.rpdtools-XXXXXX", so
 * that the final rename is atomic and 255-byte names still fit). */
int temp_next_to(const char *path, char **tmp, int *fdp)
{
  char *tmpl = rpd_temp_template(path);
  int rc = rpd__temp_create(tmpl, tmp, fdp);

  free(tmpl);
  return rc;
}

/* Remove stale temps next to the file at path (symlinks resolved), left
 * by a killed writer; silent (see rpd__temp_reclaim in outfile.c). */
void reclaim_near(const char *path)
{
  char *real = realpath(path, NULL), *tmpl;

  if (!real) return;
  tmpl = rpd_temp_template(real);
  rpd__temp_reclaim(tmpl);
  free(tmpl);
  free(real);
}

/* Create a private temp file "DIR/rpdtools-XXXXXX" in the directory dir. */
int temp_in_dir(const char *dir, char **tmp, int *fdp)
{
  char *tmpl = rpd_xasprintf("%s/rpdtools-XXXXXX", dir);
  int rc = rpd__temp_create(tmpl, tmp, fdp);

  free(tmpl);
  return rc;
}

/* ------------------------------------------------------------ file utils */

const char *tmpdir(void)
{
  const char *d = getenv("TMPDIR");

  return d && *d ? d : "/tmp";
}

/* Directory part of path ("." if none); caller frees. */
char *dir_of(const char *path)
{
  const char *slash = strrchr(path, '/');

  if (!slash) return rpd_xstrdup(".");
  if (slash == path) return rpd_xstrdup("/");
  char *d = rpd_xmalloc((size_t)(slash - path) + 1);
  memcpy(d, path, (size_t)(slash - path));
  d[slash - path] = 0;
  return d;
}

int ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);

  return n >= m && strcmp(s + n - m, suffix) == 0;
}

int errno_status(int err, const char *what)
{
  if (err == ENOENT || err == ENOTDIR) return rpd_seterr(RPD_ENOENT, "no such file");
  if (err == EACCES || err == EPERM)
    return rpd_seterr(RPD_EIO, "%s: permission denied", what);
  if (err == ENOSPC || err == EDQUOT)
    return rpd_seterr(RPD_EIO, "%s: no space left on device", what);
  if (err == EROFS) return rpd_seterr(RPD_EROFS, "read-only file system");
  return rpd_seterr(RPD_EIO, "%s: %s", what, strerror(err));
}

int write_all(int fd, const char *p, size_t n)
{
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno_status(errno, "cannot write temporary file");
    }
    p += w;
    n -= (size_t)w;
  }
  return RPD_OK;
}

/* Stat an input path; a regular file is required. */
int stat_input(const char *path, struct stat *st)
{
  if (stat(path, st) != 0) return errno_status(errno, "cannot stat");
  if (S_ISDIR(st->st_mode)) return rpd_seterr(RPD_ENOTDB, "is a directory, not an SQLite database");
  if (!S_ISREG(st->st_mode)) return rpd_seterr(RPD_ENOTDB, "not a regular file");
  return RPD_OK;
}

/* Look at the first bytes of path: KIND_SQLITE, KIND_GZIP, or an error. */
int sniff(const char *path, int *kind)
{
  unsigned char hdr[16];
  size_t got = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);

  if (fd < 0) return errno_status(errno, "cannot read");
  while (got < sizeof hdr) {
    ssize_t n = read(fd, hdr + got, sizeof hdr - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      return errno_status(err, "cannot read");
    }
    if (n == 0) break;
    got += (size_t)n;
  }
  close(fd);
  if (got == 0) return rpd_seterr(RPD_ENOTDB, "empty file, not an SQLite database");
  if (got >= 2 && hdr[0] == 0x1f && hdr[1] == 0x8b) { *kind = KIND_GZIP; return RPD_OK; }
  if (got == sizeof hdr && memcmp(hdr, sqlite_magic, sizeof hdr) == 0) {
    *kind = KIND_SQLITE;
    return RPD_OK;
  }
  return rpd_seterr(RPD_ENOTDB, "not an SQLite database");
}

int rpd_looks_like_trace(const char *path, int *is_trace)
{
  struct stat st;
  int kind = 0, rc = stat_input(path, &st);

  *is_trace = 0;
  if (rc) return rc;
  rc = sniff(path, &kind);
  *is_trace = !rc && kind != 0;
  return rc == RPD_ENOTDB ? RPD_OK : rc;   /* not a trace: an answer, not an error */
}

/* 0 if we may write `path` (a file), else RPD_EROFS with msg.  Root passes
 * access(2) on 0444 files, so the mode bits are checked as well. */
int check_writable_file(const char *path, const struct stat *st, const char *msg)
{
  if ((st->st_mode & 0222) == 0 || access(path, W_OK) != 0)
    return rpd_seterr(RPD_EROFS, "%s", msg);
  return RPD_OK;
}

int check_writable_dir(const char *dir, const char *msg)
{
  struct stat st;

  if (stat(dir, &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR)
      return rpd_seterr(RPD_ENOENT, "%s", strncmp(msg, "output", 6) == 0
                                               ? "output directory does not exist"
                                               : "directory does not exist");
    return errno_status(errno, "cannot stat directory");
  }
  if (!S_ISDIR(st.st_mode)) return rpd_seterr(RPD_ENOENT, "not a directory");
  if ((st.st_mode & 0222) == 0 || access(dir, W_OK | X_OK) != 0)
    return rpd_seterr(RPD_EROFS, "%s", msg);
  return RPD_OK;
}

mode_t new_file_mode(void)
{
  mode_t m = umask(0);

  umask(m);
  return 0666 & ~m;
}

void fsync_dir(const char *dir)
{
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
}
