/* test_outfile.c - rpd_output_check, rpd_outfile_*, rpd_temp_template,
 * rpd_vacuum, rpd_finish_stdout: devices, symlinks, the input itself,
 * 255-byte names, abort/commit, signals, stale temps of killed writers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "core_fixture.h"

/* Only f->dir is used (no trace is made). */
typedef fx_trace fx;

static int setup(void **state)
{
  setenv("RPD_BUSY_TIMEOUT_MS", "100", 1);
  return fx_trace_setup(state, NULL, 0);
}

static char *slurp_str(const char *path)
{
  size_t n;
  char *s = fx_slurp(path, &n);

  s = rpd_xrealloc(s, n + 1);    /* fx_slurp does not terminate */
  s[n] = 0;
  return s;
}

/* Write `text` to path through rpd_outfile; returns the status. */
static int write_out(const char *path, const char *input, const char *text)
{
  rpd_outfile of;
  int rc = rpd_outfile_begin(&of, path, input);

  if (rc) return rc;
  fputs(text, of.fp);
  return rpd_outfile_commit(&of);
}

static void check_refused(const char *path, const char *input, int rc, const char *msg)
{
  char *t = (char *)1;

  assert_int_equal(rpd_output_check(path, input, &t), rc);
  assert_null(t);
  if (!strstr(rpd_errmsg(), msg)) fail_msg("message '%s' lacks '%s'", rpd_errmsg(), msg);
}

static void test_template(void **state)
{
  char *t, name[300];

  (void)state;
  t = rpd_temp_template("dir/sub/a.rpd");
  assert_string_equal(t, "dir/sub/.a.rpd.rpdtools-XXXXXX");
  free(t);
  t = rpd_temp_template("a.rpd");
  assert_string_equal(t, ".a.rpd.rpdtools-XXXXXX");
  free(t);
  t = rpd_temp_template("/x");
  assert_string_equal(t, "/.x.rpdtools-XXXXXX");
  free(t);
  /* a 255-byte name is cut to 64 bytes */
  memset(name, 'n', 255);
  name[255] = 0;
  t = rpd_temp_template(name);
  assert_int_equal(strlen(t), 1 + 64 + strlen(".rpdtools-XXXXXX"));
  free(t);
  /* never in the middle of a UTF-8 sequence: 63 x 'a' then "é" */
  memset(name, 'a', 63);
  strcpy(name + 63, "\xc3\xa9zzz");
  t = rpd_temp_template(name);
  assert_int_equal(strlen(t), 1 + 63 + strlen(".rpdtools-XXXXXX"));
  free(t);
}

static void test_check_refusals(void **state)
{
  fx *f = *state;
  char *in = fx_path(f->dir, "in.rpd"), *hard = fx_path(f->dir, "hard.rpd"),
       *lnk = fx_path(f->dir, "lnk"), *d = fx_path(f->dir, "adir"),
       *fifo = fx_path(f->dir, "fifo"), *ro = fx_path(f->dir, "ro"),
       *rodir = fx_path(f->dir, "rodir"), *inro = fx_path(f->dir, "rodir/x"),
       *missing = fx_path(f->dir, "nodir/x");

  fx_write(in, "input", 5);
  assert_int_equal(link(in, hard), 0);
  assert_int_equal(symlink("in.rpd", lnk), 0);
  mkdir(d, 0755);
  assert_int_equal(mkfifo(fifo, 0644), 0);
  fx_write(ro, "r", 1);
  chmod(ro, 0444);
  mkdir(rodir, 0555);
  check_refused("", NULL, RPD_ENOENT, "empty");
  check_refused(d, NULL, RPD_EEXIST, "is a directory");
  check_refused(fifo, NULL, RPD_EEXIST, "not a regular file");
  check_refused("/dev/null", NULL, RPD_EEXIST, "not a regular file");
  check_refused(in, in, RPD_EEXIST, "is the input file");
  check_refused(hard, in, RPD_EEXIST, "is the input file");      /* hard link */
  check_refused(lnk, in, RPD_EEXIST, "is the input file");       /* symlink to it */
  check_refused(in, lnk, RPD_EEXIST, "is the input file");       /* input via link */
  check_refused(ro, NULL, RPD_EROFS, "read-only");
  check_refused(inro, NULL, RPD_EROFS, "read-only");
  check_refused(missing, NULL, RPD_ENOENT, "does not exist");
  /* the refusals wrote nothing */
  assert_true(fx_same_bytes(in, hard));
  assert_int_equal(write_out(in, lnk, "x"), RPD_EEXIST);
  char *s = slurp_str(in);
  assert_string_equal(s, "input");
  free(s);
  assert_int_equal(fx_count(f->dir, ".in.rpd.rpdtools-"), 0);
  chmod(rodir, 0755);
  free(in); free(hard); free(lnk); free(d); free(fifo); free(ro); free(rodir);
  free(inro); free(missing);
}

/* as root: a private twin of /dev/null stays a device */
static void test_device(void **state)
{
  fx *f = *state;
  char *dev = fx_path(f->dir, "null");
  struct stat st;

  if (mknod(dev, S_IFCHR | 0666, makedev(1, 3)) != 0) {
    free(dev);
    skip();
  }
  assert_int_equal(write_out(dev, NULL, "trace"), RPD_EEXIST);
  assert_int_equal(stat(dev, &st), 0);
  assert_true(S_ISCHR(st.st_mode));
  assert_int_equal(fx_entries(f->dir), 1);
  free(dev);
}

static void test_symlinks(void **state)
{
  fx *f = *state;
  char *target = fx_path(f->dir, "target"), *l1 = fx_path(f->dir, "l1"),
       *l2 = fx_path(f->dir, "l2"), *dangling = fx_path(f->dir, "dangling"),
       *newf = fx_path(f->dir, "sub/new"), *sub = fx_path(f->dir, "sub"), *t = NULL, *s;
  struct stat st;

  fx_write(target, "old", 3);
  assert_int_equal(symlink("target", l1), 0);
  assert_int_equal(symlink("l1", l2), 0);         /* a chain */
  mkdir(sub, 0755);
  assert_int_equal(symlink("sub/new", dangling), 0);
  assert_int_equal(rpd_output_check(l2, NULL, &t), RPD_OK);
  assert_string_equal(t, target);
  free(t);
  assert_int_equal(write_out(l2, NULL, "new"), RPD_OK);
  assert_int_equal(lstat(l1, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  assert_int_equal(lstat(l2, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  s = slurp_str(target);
  assert_string_equal(s, "new");
  free(s);
  /* a dangling link: its target is created, the link stays */
  assert_int_equal(write_out(dangling, NULL, "made"), RPD_OK);
  assert_int_equal(lstat(dangling, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  s = slurp_str(newf);
  assert_string_equal(s, "made");
  free(s);
  /* a loop */
  unlink(l1);
  assert_int_equal(symlink("l2", l1), 0);
  check_refused(l2, NULL, RPD_EIO, "symbolic link");
  free(target); free(l1); free(l2); free(dangling); free(newf); free(sub);
}

/* A symbolic link in a sticky world-writable directory (/tmp) that
 * belongs to another user is not followed (the kernel's
 * fs.protected_symlinks rule): it may point at a file of the directory's
 * other users that we can write.  Ours, or the directory owner's, is. */
static void test_sticky_symlinks(void **state)
{
  fx *f = *state;
  char *pub = fx_path(f->dir, "pub"), *victim = fx_path(f->dir, "victim"),
       *planted = fx_path(f->dir, "pub/out.csv"), *mine = fx_path(f->dir, "pub/mine.csv"),
       *s;
  struct stat st;

  if (geteuid() != 0) {
    skip();   /* planting a link of another user needs root */
    return;
  }
  assert_int_equal(mkdir(pub, 0777), 0);
  assert_int_equal(chmod(pub, 01777), 0);
  fx_write(victim, "secret", 6);
  chmod(victim, 0600);
  assert_int_equal(symlink(victim, planted), 0);
  assert_int_equal(lchown(planted, 4321, 4321), 0);
  check_refused(planted, NULL, RPD_EEXIST, "symbolic link of another user");
  assert_int_equal(write_out(planted, NULL, "pwned"), RPD_EEXIST);
  s = slurp_str(victim);
  assert_string_equal(s, "secret");
  free(s);
  assert_int_equal(lstat(planted, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  /* the directory's owner's link is followed (as the kernel does) */
  assert_int_equal(chown(pub, 4321, 4321), 0);
  assert_int_equal(write_out(planted, NULL, "owner's"), RPD_OK);
  s = slurp_str(victim);
  assert_string_equal(s, "owner's");
  free(s);
  /* so is our own, and one in a directory that is not sticky */
  assert_int_equal(symlink(victim, mine), 0);
  assert_int_equal(write_out(mine, NULL, "ours"), RPD_OK);
  assert_int_equal(chown(pub, 0, 0), 0);
  assert_int_equal(chmod(pub, 0777), 0);
  assert_int_equal(write_out(planted, NULL, "plain"), RPD_OK);
  s = slurp_str(victim);
  assert_string_equal(s, "plain");
  free(s);
  assert_int_equal(stat(victim, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0600);   /* the victim's mode kept */
  unlink(planted);
  unlink(mine);
  unlink(victim);
  rmdir(pub);
  free(pub); free(victim); free(planted); free(mine);
}

static void test_commit_abort_mode(void **state)
{
  fx *f = *state;
  char *out = fx_path(f->dir, "out.txt"), *tmp, *s;
  rpd_outfile of;
  struct stat st;
  mode_t old = umask(027);

  fx_write(out, "previous", 8);
  chmod(out, 0600);
  assert_int_equal(rpd_outfile_begin(&of, out, NULL), RPD_OK);
  assert_string_equal(of.target, out);
  assert_non_null(strstr(of.tmp, "/.out.txt.rpdtools-"));
  fputs("partial", of.fp);
  fflush(of.fp);
  tmp = rpd_xstrdup(of.tmp);
  assert_int_equal(access(tmp, F_OK), 0);
  rpd_outfile_abort(&of);
  assert_null(of.tmp);
  assert_int_equal(access(tmp, F_OK), -1);
  s = slurp_str(out);
  assert_string_equal(s, "previous");
  free(s);
  free(tmp);
  /* commit: content, the replaced file's mode (0600 stays 0600) and, for
   * root, its owner; no temp left */
  if (geteuid() == 0) assert_int_equal(chown(out, 4321, 4322), 0);
  assert_int_equal(rpd_outfile_begin(&of, out, NULL), RPD_OK);
  fputs("complete", of.fp);
  assert_int_equal(rpd_outfile_commit(&of), RPD_OK);
  assert_null(of.target);
  s = slurp_str(out);
  assert_string_equal(s, "complete");
  free(s);
  assert_int_equal(stat(out, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0600);
  if (geteuid() == 0) {
    assert_int_equal(st.st_uid, 4321);
    assert_int_equal(st.st_gid, 4322);
  }
  assert_int_equal(fx_entries(f->dir), 1);
  /* a new file: 0666 & ~umask */
  char *fresh = fx_path(f->dir, "fresh.txt");
  assert_int_equal(write_out(fresh, NULL, "x"), RPD_OK);
  assert_int_equal(stat(fresh, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0640);
  unlink(fresh);
  free(fresh);
  /* the caller closes fp and writes tmp by name */
  assert_int_equal(rpd_outfile_begin(&of, out, NULL), RPD_OK);
  fclose(of.fp);
  of.fp = NULL;
  fx_write(of.tmp, "byname", 6);
  assert_int_equal(rpd_outfile_commit(&of), RPD_OK);
  s = slurp_str(out);
  assert_string_equal(s, "byname");
  free(s);
  umask(old);
  free(out);
}

static void test_long_name(void **state)
{
  fx *f = *state;
  char name[256], *p, *s;

  memset(name, '0', 251);
  strcpy(name + 251, ".out");
  p = fx_path(f->dir, name);
  assert_int_equal(write_out(p, NULL, "long"), RPD_OK);
  s = slurp_str(p);
  assert_string_equal(s, "long");
  free(s);
  assert_int_equal(fx_entries(f->dir), 1);
  free(p);
}

static void test_signal_cleanup(void **state)
{
  fx *f = *state;
  char *out = fx_path(f->dir, "o");
  int fds[2], status;
  char c;

  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    fx_child_bound();
    rpd_outfile of;
    close(fds[0]);
    if (rpd_outfile_begin(&of, out, NULL)) _exit(3);
    fputs("x", of.fp);
    fflush(of.fp);
    if (write(fds[1], "r", 1) != 1) _exit(4);
    for (;;) pause();
  }
  close(fds[1]);
  assert_int_equal(fx_read(fds[0], &c, 1), 1);
  close(fds[0]);
  assert_int_equal(fx_count(f->dir, ".o.rpdtools-"), 1);
  kill(pid, SIGTERM);
  assert_int_equal(fx_wait(pid, &status), 0);
  assert_true(WIFSIGNALED(status));
  assert_int_equal(fx_entries(f->dir), 0);
  free(out);
}


/* A child starts rpd_outfile_begin(out) and waits; *tmp gets its temp's
 * path (caller frees).  Returns the child's pid. */
static pid_t start_holder(const char *out, char **tmp)
{
  int fds[2];
  char buf[4096];
  ssize_t n;

  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    fx_child_bound();
    rpd_outfile of;
    close(fds[0]);
    if (rpd_outfile_begin(&of, out, NULL)) _exit(3);
    fputs("partial", of.fp);
    fflush(of.fp);
    if (write(fds[1], of.tmp, strlen(of.tmp)) != (ssize_t)strlen(of.tmp)) _exit(4);
    close(fds[1]);
    for (;;) pause();
  }
  close(fds[1]);
  n = fx_read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  assert_true(n > 0);
  buf[n] = 0;
  *tmp = rpd_xstrdup(buf);
  return pid;
}

static int exists(const char *dir, const char *name)
{
  struct stat st;
  char *p = fx_path(dir, name);
  int e = lstat(p, &st) == 0;

  free(p);
  return e;
}

static void make_file(const char *dir, const char *name)
{
  char *p = fx_path(dir, name);

  fx_write(p, "x", 1);
  free(p);
}

/* kill -9 leaves a writer's temp; the next rpd_outfile_begin for the same
 * target removes it, never a live writer's temp or anything else. */
static void test_stale_temps(void **state)
{
  fx *f = *state;
  char *out = fx_path(f->dir, "t.out"), *live = NULL, *dead = NULL, *p, *q;
  static const char *const keep[] = {
    ".t.out.rpdtools-abc12",     /* 5 characters */
    ".t.out.rpdtools-abc1234",   /* 7 characters */
    ".t.out.rpdtools-abc!23",    /* not mkstemp's alphabet */
    ".t.out.rpdtools-abcdef.bak",
    ".t.out.rpdtools-abcdef-journal.x",
    ".u.out.rpdtools-abcdef",    /* another target's temp */
    ".t.ou.rpdtools-abcdef",
    "t.out.rpdtools-abcdef",     /* no leading dot */
    "rpdtools-abcdef",           /* $TMPDIR pattern, not next to t.out */
    "victim",
  };
  int status, fd;

  /* a live writer: its temp survives other writers of the same target */
  pid_t pid = start_holder(out, &live);
  assert_int_equal(write_out(out, NULL, "one"), RPD_OK);
  assert_int_equal(access(live, F_OK), 0);
  fd = open(live, O_RDONLY);
  assert_true(fd >= 0);
  assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), -1);    /* it is locked */
  close(fd);
  /* killed: its temp stays (nothing can run at kill -9) ... */
  kill(pid, SIGKILL);
  assert_int_equal(fx_wait(pid, &status), 0);
  assert_true(WIFSIGNALED(status));
  assert_int_equal(access(live, F_OK), 0);
  /* ... with a journal, other files that must stay, and a second stale one */
  p = rpd_xasprintf("%s-journal", live);
  fx_write(p, "j", 1);
  for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) make_file(f->dir, keep[i]);
  make_file(f->dir, ".t.out.rpdtools-Zz09aB");                 /* stale */
  make_file(f->dir, ".t.out.rpdtools-gone00-journal");         /* orphan journal */
  assert_int_equal(symlink("victim", q = fx_path(f->dir, ".t.out.rpdtools-symlnk")), 0);
  free(q);
  q = fx_path(f->dir, ".t.out.rpdtools-hardln");               /* 2 links */
  dead = fx_path(f->dir, "victim");
  assert_int_equal(link(dead, q), 0);
  free(q);
  assert_int_equal(mkdir(q = fx_path(f->dir, ".t.out.rpdtools-dirdir"), 0700), 0);
  free(q);
  assert_int_equal(mkfifo(q = fx_path(f->dir, ".t.out.rpdtools-fifo00"), 0600), 0);
  free(q);
  /* a live holder of a hand-made temp */
  q = fx_path(f->dir, ".t.out.rpdtools-held00");
  fx_write(q, "h", 1);
  int pfd[2];
  char c;
  assert_int_equal(pipe(pfd), 0);
  pid_t holder = fork();
  if (holder == 0) {
    fx_child_bound();
    int hfd = open(q, O_RDONLY);
    if (hfd < 0 || flock(hfd, LOCK_EX) != 0) _exit(3);
    if (write(pfd[1], "r", 1) != 1) _exit(4);
    for (;;) pause();
  }
  close(pfd[1]);
  assert_int_equal(fx_read(pfd[0], &c, 1), 1);
  close(pfd[0]);

  assert_int_equal(write_out(out, NULL, "two"), RPD_OK);
  free(dead);
  dead = slurp_str(out);
  assert_string_equal(dead, "two");
  assert_int_equal(access(live, F_OK), -1);                    /* reclaimed */
  assert_int_equal(access(p, F_OK), -1);                       /* its journal */
  assert_false(exists(f->dir, ".t.out.rpdtools-Zz09aB"));
  assert_false(exists(f->dir, ".t.out.rpdtools-gone00-journal"));
  for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
    if (!exists(f->dir, keep[i])) fail_msg("%s was removed", keep[i]);
  assert_true(exists(f->dir, ".t.out.rpdtools-symlnk"));
  assert_true(exists(f->dir, ".t.out.rpdtools-hardln"));
  assert_true(exists(f->dir, ".t.out.rpdtools-dirdir"));
  assert_true(exists(f->dir, ".t.out.rpdtools-fifo00"));
  assert_true(exists(f->dir, ".t.out.rpdtools-held00"));       /* locked */
  /* t.out + keep + symlnk, hardln, dirdir, fifo00, held00 */
  assert_int_equal(fx_entries(f->dir), 1 + (int)(sizeof keep / sizeof keep[0]) + 5);
  kill(holder, SIGKILL);
  assert_int_equal(fx_wait(holder, &status), 0);
  /* holder dead: now it goes too */
  assert_int_equal(write_out(out, NULL, "three"), RPD_OK);
  assert_false(exists(f->dir, ".t.out.rpdtools-held00"));
  assert_int_equal(fx_entries(f->dir), 1 + (int)(sizeof keep / sizeof keep[0]) + 4);
  free(p);
  free(q);
  free(dead);
  free(live);
  free(out);
}

static void test_vacuum(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "v.rpd"), *gz = fx_path(f->dir, "v.rpd.gz");
  rpd *r;
  struct stat a, b;
  int64_t n = 0;

  assert_int_equal(fx_make_db(p, fx_v2_ddl), 0);
  assert_int_equal(fx_make_db(p, "CREATE TABLE big(x); WITH RECURSIVE c(i) AS "
                                 "(SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 20000) "
                                 "INSERT INTO big SELECT randomblob(100) FROM c; DROP TABLE big;"), 0);
  chmod(p, 0640);
  assert_int_equal(stat(p, &a), 0);
  assert_int_equal(rpd_open(&r, p, NULL, RPD_WRITE), RPD_OK);
  assert_int_equal(rpd_begin(r), RPD_OK);
  assert_int_not_equal(rpd_vacuum(r), RPD_OK);     /* not inside a transaction */
  rpd_rollback(r);
  assert_int_equal(rpd_vacuum(r), RPD_OK);
  assert_int_equal(rpd_query_int64(r, "SELECT count(*) FROM rocpd_api_ops", &n), RPD_OK);
  assert_int_equal(n, 2);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(stat(p, &b), 0);
  assert_true(b.st_size < a.st_size / 4);
  assert_int_equal(b.st_mode & 0777, 0640);
  assert_int_equal(fx_entries(f->dir), 1);
  assert_int_equal(fx_q(p, "SELECT count(*) FROM rocpd_api_ops"), 2);
  /* a .gz work copy vacuums in place */
  fx_gzip(p, gz, 0);
  assert_int_equal(rpd_open(&r, gz, NULL, RPD_WRITE), RPD_OK);
  assert_int_equal(rpd_vacuum(r), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(fx_entries(f->dir), 2);
  free(p);
  free(gz);
}

static void test_finish_stdout(void **state)
{
  (void)state;
  int saved = dup(1), fd = open("/dev/full", O_WRONLY);

  if (fd < 0) {
    close(saved);
    skip();
  }
  fflush(stdout);
  dup2(fd, 1);
  close(fd);
  printf("this goes nowhere\n");
  int rc = rpd_finish_stdout();
  dup2(saved, 1);
  close(saved);
  assert_int_equal(rc, RPD_EIO);
  assert_non_null(strstr(rpd_errmsg(), "no space left"));
  assert_int_equal(rpd_finish_stdout(), RPD_OK);
}

/* Scratch files go to $TMPDIR, leave no name behind, and read back. */
static void test_scratch_tmpdir(void **state)
{
  fx_trace *f = *state;
  char *old = getenv("TMPDIR") ? rpd_xstrdup(getenv("TMPDIR")) : NULL;
  char *none = rpd_xasprintf("%s/no-such-dir", f->dir), buf[8] = {0};
  FILE *fp;
  int fd, n0 = fx_entries(f->dir);

  setenv("TMPDIR", none, 1);
  assert_int_equal(rpd_scratch_fd(), -1);
  assert_null(rpd_scratch_file());
  setenv("TMPDIR", f->dir, 1);
  fd = rpd_scratch_fd();
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "scratch", 7), 7);
  assert_int_equal(pread(fd, buf, 7, 0), 7);
  assert_string_equal(buf, "scratch");
  close(fd);
  fp = rpd_scratch_file();
  assert_non_null(fp);
  assert_int_equal(fputs("abc", fp) >= 0, 1);
  rewind(fp);
  assert_int_equal(fgetc(fp), 'a');
  assert_int_equal(fx_entries(f->dir), n0);   /* unnamed: nothing in the dir */
  fclose(fp);
  if (old)
    setenv("TMPDIR", old, 1);
  else
    unsetenv("TMPDIR");
  free(old);
  free(none);
}

int main(void)
{
  fx_default_signals();
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_template),
    cmocka_unit_test_setup_teardown(test_check_refusals, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_device, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_symlinks, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_commit_abort_mode, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_sticky_symlinks, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_long_name, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_signal_cleanup, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_stale_temps, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_vacuum, setup, fx_trace_teardown),
    cmocka_unit_test(test_finish_stdout),
    cmocka_unit_test_setup_teardown(test_scratch_tmpdir, setup, fx_trace_teardown),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}
