/* outfile.c - output files written atomically: where a tool may write
 * (rpd_output_check), temp files next to the target and their cleanup list
 * (shared with open.c), rpd_outfile_*, and stdout write errors. */
#define _GNU_SOURCE
#include "rpd.h"
#include "internal.h"
#include "opening.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* ------------------------------------------------------------ temp list */

/* Live temp files, in fixed storage so that rpd_cleanup_temps() can run
 * from a signal handler without touching the heap. */
#define MAX_TEMPS 64
static char temp_path[MAX_TEMPS][4096];
static volatile sig_atomic_t temp_live[MAX_TEMPS];
static pid_t temp_pid[MAX_TEMPS];      /* a forked child must not remove them */
static int temp_lock[MAX_TEMPS];       /* flock(LOCK_EX)ed descriptor, or -1 */
static dev_t temp_dev[MAX_TEMPS];      /* identity of the file (if temp_lock >= 0) */
static ino_t temp_ino[MAX_TEMPS];

void rpd_cleanup_temps(void)
{
  pid_t me = getpid();

  for (int i = 0; i < MAX_TEMPS; i++) {
    if (temp_live[i] && temp_pid[i] == me) {
      temp_live[i] = 0;
      unlink(temp_path[i]);
      if (temp_lock[i] >= 0) close(temp_lock[i]);   /* after the unlink */
      temp_lock[i] = -1;
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

/* ------------------------------------------------------------ stale temps
 *
 * Every temp file is flock(LOCK_EX)ed by its creator for its whole life
 * (a dup of its descriptor stays open in temp_lock).  A temp whose lock
 * nobody holds belongs to a process that died without cleaning up
 * (kill -9): rpd__temp_reclaim removes it.  flock locks are independent of
 * the fcntl locks SQLite takes on the same file (Linux, local file
 * systems).  On network and cluster file systems flock may be emulated
 * with fcntl locks or be local to one node, so there we neither lock nor
 * reclaim. */

static int network_fs(int fd)
{
  static const uint32_t magic[] = {
    0x6969,       /* NFS */     0x517B,     /* SMB */  0xFF534D42, /* CIFS */
    0xFE534D42,   /* SMB2 */    0x00C36400, /* Ceph */ 0x65735546, /* FUSE */
    0x5346414F,   /* AFS */     0x6B414653, /* kAFS */ 0x01021997, /* 9P */
    0x0BD00BD0,   /* Lustre */  0x47504653, /* GPFS */ 0x7461636F, /* OCFS2 */
    0x01161970,   /* GFS2 */    0x73757245, /* Coda */ 0x564C,     /* NCP */
  };
  struct statfs sf;

  if (fstatfs(fd, &sf) != 0) return 1;
  for (size_t i = 0; i < sizeof magic / sizeof magic[0]; i++)
    if ((uint32_t)sf.f_type == magic[i]) return 1;
  return 0;
}

/* Is st one of this process's own live temp files? */
static int own_temp(const struct stat *st)
{
  for (int i = 0; i < MAX_TEMPS; i++)
    if (temp_live[i] && temp_lock[i] >= 0 && temp_dev[i] == st->st_dev &&
        temp_ino[i] == st->st_ino)
      return 1;
  return 0;
}

static int alnum(int c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Does name start with 6 mkstemp characters?  Returns what follows them,
 * or NULL. */
static const char *skip_x6(const char *name)
{
  for (int i = 0; i < 6; i++)
    if (!alnum((unsigned char)name[i])) return NULL;
  return name + 6;
}

/* Is name prefix + 6 mkstemp characters (1) or that + "-journal" (2)?
 * A temp of a temp, "." + prefix + XXXXXX + ".rpdtools-" + XXXXXX (left by
 * older versions killed while creating a file through a temp), counts as
 * well, so that it is reclaimed with its parent's kind. */
static int temp_name_kind(const char *name, const char *prefix, size_t plen)
{
  static const char nest[] = ".rpdtools-";
  const char *rest;

  if (name[0] == '.' && strncmp(name + 1, prefix, plen) == 0 &&
      (rest = skip_x6(name + 1 + plen)) && strncmp(rest, nest, sizeof nest - 1) == 0)
    name = rest + sizeof nest - 1;
  else if (strncmp(name, prefix, plen) == 0)
    name += plen;
  else
    return 0;
  if (!(rest = skip_x6(name))) return 0;
  if (!*rest) return 1;
  return strcmp(rest, "-journal") == 0 ? 2 : 0;
}

int rpd__temp_is_own(const char *path)
{
  struct stat st;

  return stat(path, &st) == 0 && own_temp(&st);
}

/* Remove the plain file `name` in dfd: never a symlink, a directory, a
 * device or a file with other hard links. */
static void unlink_plain(int dfd, const char *name)
{
  struct stat st;

  if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
      st.st_nlink == 1)
    unlinkat(dfd, name, 0);
}

/* Remove the temp `name` in dfd (and its -journal) if no live process
 * holds its lock.  Our own temps are not even opened: closing a descriptor
 * would drop the fcntl locks SQLite holds on them in this process. */
static void reclaim_one(int dfd, const char *name)
{
  struct stat a, b;
  char journal[512];
  int fd;

  if (fstatat(dfd, name, &a, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(a.st_mode) ||
      a.st_nlink != 1 || own_temp(&a))
    return;
  fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return;
  if (fstat(fd, &b) == 0 && b.st_dev == a.st_dev && b.st_ino == a.st_ino &&
      flock(fd, LOCK_EX | LOCK_NB) == 0 &&
      fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 && b.st_dev == a.st_dev &&
      b.st_ino == a.st_ino) {
    /* journal first: if we die in between, the temp is found next time */
    if ((size_t)snprintf(journal, sizeof journal, "%s-journal", name) < sizeof journal)
      unlink_plain(dfd, journal);
    unlinkat(dfd, name, 0);          /* still under our lock, then released */
  }
  close(fd);
}

/* Remove stale temps made from the template tmpl ("DIR/.NAME.rpdtools-XXXXXX"
 * or "DIR/rpdtools-XXXXXX"): files in DIR named like it, with any 6
 * [A-Za-z0-9] for XXXXXX, that no live process holds locked, with their
 * SQLite "-journal"s (and such journals whose temp is gone).  Silent;
 * errors (no permission, a read-only directory) leave things as they are. */
void rpd__temp_reclaim(const char *tmpl)
{
  const char *slash = strrchr(tmpl, '/');
  const char *base = slash ? slash + 1 : tmpl;
  size_t blen = strlen(base);
  char *dir, *prefix;
  DIR *d;
  struct dirent *e;
  int saved = errno;

  if (blen < 6 || strcmp(base + blen - 6, "XXXXXX") != 0) return;
  dir = !slash ? rpd_xstrdup(".") : slash == tmpl ? rpd_xstrdup("/")
                                  : rpd_xasprintf("%.*s", (int)(slash - tmpl), tmpl);
  prefix = rpd_xasprintf("%.*s", (int)(blen - 6), base);
  d = opendir(dir);
  if (d && !network_fs(dirfd(d))) {
    while ((e = readdir(d))) {
      int kind = temp_name_kind(e->d_name, prefix, blen - 6);
      if (kind == 1) {
        reclaim_one(dirfd(d), e->d_name);
      } else if (kind == 2) {
        char main_name[512];
        struct stat st;
        size_t n = strlen(e->d_name) - strlen("-journal");
        snprintf(main_name, sizeof main_name, "%.*s", (int)n, e->d_name);
        if (fstatat(dirfd(d), main_name, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
          unlink_plain(dirfd(d), e->d_name);     /* its temp is gone */
      }
    }
  }
  if (d) closedir(d);
  free(prefix);
  free(dir);
  errno = saved;
}

/* Lock the new temp `path` (descriptor fd) for its life.  Returns the
 * lock descriptor (a dup of fd), -1 for "no lock" (network file system),
 * -2 if a reclaiming process removed the name before we got the lock
 * (make another one), -3 if the descriptor cannot be duplicated. */
static int lock_new_temp(int fd, const char *path, struct stat *st)
{
  struct stat now;
  int lfd;

  if (fstat(fd, st) != 0 || network_fs(fd) || flock(fd, LOCK_EX) != 0) return -1;
  /* a reclaimer unlinks only while it holds the lock, so once we hold it
   * the name is either still ours (and safe from now on) or gone */
  if (lstat(path, &now) != 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino)
    return -2;
  lfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  return lfd >= 0 ? lfd : -3;
}

/* mkstemp the template `tmpl` (ending in XXXXXX), lock it and register it
 * for cleanup; stale temps of the same template are reclaimed first.
 * *fdp gets its descriptor (O_CLOEXEC) and *path the name (caller frees). */
int rpd__temp_create(const char *tmpl, char **path, int *fdp)
{
  sigset_t all, old;
  int slot = -1, fd = -1, err = 0, lfd = -1;
  struct stat st;

  *path = NULL;
  *fdp = -1;
  rpd__install_cleanup();
  rpd__temp_reclaim(tmpl);
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  for (int i = 0; i < MAX_TEMPS; i++)
    if (!temp_live[i]) { slot = i; break; }
  if (slot >= 0 &&
      (size_t)snprintf(temp_path[slot], sizeof temp_path[slot], "%s", tmpl) <
          sizeof temp_path[slot]) {
    for (int tries = 0; tries < 100; tries++) {
      snprintf(temp_path[slot], sizeof temp_path[slot], "%s", tmpl);
      fd = mkostemp(temp_path[slot], O_CLOEXEC);
      if (fd < 0) {
        err = errno;
        break;
      }
      lfd = lock_new_temp(fd, temp_path[slot], &st);
      if (lfd != -2) break;
      close(fd);                     /* reclaimed under our feet: again */
      fd = -1;
      err = EEXIST;
    }
    if (lfd == -3) {
      unlink(temp_path[slot]);
      close(fd);
      fd = -1;
      err = EMFILE;
    }
    if (fd >= 0) {
      temp_pid[slot] = getpid();
      temp_lock[slot] = lfd;
      if (lfd >= 0) {
        temp_dev[slot] = st.st_dev;
        temp_ino[slot] = st.st_ino;
      }
      temp_live[slot] = 1;
    }
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
    temp_lock[slot] = -1;
    temp_live[slot] = 1;
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  return slot < 0 ? rpd_seterr(RPD_ERR, "too many temporary files") : RPD_OK;
}

/* Stop tracking the temp file `path` (it was renamed or removed) and
 * release its lock.  Closing the lock descriptor drops the fcntl locks this
 * process holds on the file too: call it after SQLite closed the file. */
void rpd__temp_forget(const char *path)
{
  for (int i = 0; i < MAX_TEMPS; i++) {
    if (temp_live[i] && strcmp(temp_path[i], path) == 0) {
      temp_live[i] = 0;
      if (temp_lock[i] >= 0) close(temp_lock[i]);
      temp_lock[i] = -1;
    }
  }
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

/* The rule of the kernel's fs.protected_symlinks: a symbolic link in a
 * sticky world-writable directory (/tmp) is followed only when it is ours
 * or the directory owner's; another user may have planted it to make us
 * replace a file of theirs (or of root) that we can write.  link_st is the
 * lstat of `link`. */
static int planted_link(const char *link, const struct stat *link_st)
{
  struct stat dst;
  char *dir = dir_part(link);
  int bad = stat(dir, &dst) == 0 && (dst.st_mode & S_ISVTX) && (dst.st_mode & S_IWOTH) &&
            link_st->st_uid != geteuid() && link_st->st_uid != dst.st_uid;
  free(dir);
  return bad;
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
    if (planted_link(cur, &st)) {
      free(cur);
      return rpd_seterr(RPD_EEXIST, "is a symbolic link of another user in a sticky "
                        "world-writable directory: not followed");
    }
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

/* Give the temp file what the file it replaces had: its permission bits
 * (a 0600 file stays 0600) and, where we may (root, or a group we are in),
 * its owner and group.  A new file gets 0666 less the umask. */
static int take_over_mode(int fd, const char *target)
{
  struct stat st;
  if (stat(target, &st) != 0 || !S_ISREG(st.st_mode))
    return fchmod(fd, umask_mode()) == 0 ? RPD_OK : io_status(errno, "cannot set the mode");
  /* the owner first: chown clears the set-id bits that fchmod then sets */
  if (fchown(fd, st.st_uid, st.st_gid) != 0 && fchown(fd, (uid_t)-1, st.st_gid) != 0) {
    /* not ours to give: the new file keeps our user and group */
  }
  if (fchmod(fd, st.st_mode & 07777) != 0) return io_status(errno, "cannot set the mode");
  return RPD_OK;
}

/* 1 when RPD_SYNC is set to anything but "" or "0": the commit fsyncs. */
static int outfile_sync(void)
{
  const char *e = getenv("RPD_SYNC");

  return e && *e && strcmp(e, "0") != 0;
}

int rpd_outfile_commit(rpd_outfile *of)
{
  int rc = RPD_OK, fd, sync = outfile_sync();

  if (!of->tmp) return rpd_seterr(RPD_ERR, "output file not open");
  if (of->fp) {
    errno = 0;
    if (fflush(of->fp) != 0 || ferror(of->fp)) rc = io_status(errno, "cannot write");
    if (!rc) rc = take_over_mode(fileno(of->fp), of->target);
    if (!rc && sync && fsync(fileno(of->fp)) != 0) rc = io_status(errno, "cannot write");
    if (fclose(of->fp) != 0 && !rc) rc = io_status(errno, "cannot write");
    of->fp = NULL;
  } else if ((fd = open(of->tmp, O_RDONLY | O_CLOEXEC)) < 0) {
    rc = io_status(errno, "cannot reopen the temporary file");
  } else {
    rc = take_over_mode(fd, of->target);
    if (!rc && sync && fsync(fd) != 0) rc = io_status(errno, "cannot write");
    close(fd);
  }
  if (!rc && rename(of->tmp, of->target) != 0) rc = io_status(errno, "cannot rename into place");
  if (rc) {
    rpd__temp_remove(of->tmp);
  } else {
    if (sync) {
      char *dir = dir_part(of->target);
      fsync_dir(dir);
      free(dir);
    }
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

/* ------------------------------------------------------------ scratch */

int rpd_scratch_fd(void)
{
  const char *dir = getenv("TMPDIR");
  char *tmpl;
  int fd;
  if (!dir || !*dir)
    dir = "/tmp";
#ifdef O_TMPFILE
  fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0)
    return fd;
#endif
  tmpl = rpd_xasprintf("%s/rpdtools-scratch-XXXXXX", dir);
  fd = mkostemp(tmpl, O_CLOEXEC);
  if (fd >= 0)
    unlink(tmpl);
  free(tmpl);
  return fd;
}

int rpd_pwrite_full(int fd, const void *p, size_t len, int64_t off)
{
  size_t done = 0;
  while (done < len) {
    ssize_t w = pwrite(fd, (const char *)p + done, len - done, (off_t)off + (off_t)done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      if (w == 0 || !errno)
        errno = EIO;
      return -1;
    }
    done += (size_t)w;
  }
  return 0;
}

int rpd_pread_full(int fd, void *p, size_t len, int64_t off)
{
  size_t got = 0;
  while (got < len) {
    ssize_t n = pread(fd, (char *)p + got, len - got, (off_t)off + (off_t)got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;
      return -1;
    }
    got += (size_t)n;
  }
  return 0;
}

FILE *rpd_scratch_file(void)
{
  int fd = rpd_scratch_fd();
  FILE *f;
  if (fd < 0)
    return NULL;
  if (!(f = fdopen(fd, "w+")))
    close(fd);
  return f;
}
