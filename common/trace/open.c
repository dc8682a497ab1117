/* open.c - opening and closing traces: plain and gzip-compressed files,
 * read-only and read-write, in place or into an output file; locks of a .gz
 * rewritten in place; publishing on commit; VACUUM.  The file helpers are in
 * files.c and gz.c, read-only opening in readonly.c, schema detection in
 * detect.c (opening.h). */
#define _GNU_SOURCE
#include "rpd.h"
#include "internal.h"
#include "opening.h"
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ open */

int busy_timeout_ms(void)
{
  const char *s = getenv("RPD_BUSY_TIMEOUT_MS");
  char *end;
  long v;

  if (!s || !*s) return 5000;
  v = strtol(s, &end, 10);
  if (*end || v < 0 || v > 3600000) return 5000;
  return (int)v;
}

/* Did the file at path stop being the inode *before (a concurrent
 * rpd-trim or VACUUM renamed a compacted copy over it)? */
static int replaced_since(const char *path, const struct stat *before)
{
  struct stat now;

  return stat(path, &now) != 0 || now.st_dev != before->st_dev ||
         now.st_ino != before->st_ino;
}

/* Open work_path with SQLite and check what it is. */
int open_db(rpd *r, int writable, int is_temp)
{
  int src, rc;
  struct stat before;
  int have_before = stat(r->work_path, &before) == 0;

  if (r->uri)
    src = rpd_sqlite_open(r->uri, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
  else
    src = rpd_sqlite_open(r->work_path, &r->db,
                          writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY);
  if (src != SQLITE_OK) {
    rc = rpd__sqlerr(r->db, src, NULL);
    if (rc == RPD_ESQL) rc = rpd_seterr(RPD_EIO, "cannot open: %s", sqlite3_errstr(src));
    return rc;
  }
  sqlite3_extended_result_codes(r->db, 0);
  sqlite3_busy_timeout(r->db, busy_timeout_ms());
  rc = rpd_profile(r, RPD_OPEN_DEFAULT);
  if (rc) return rc;
  if (r->flags & RPD_CREATE) {
    r->schema = 3;
  } else if (r->flags & RPD_ANYDB) {
    int why = 0;
    r->schema = rpd_detect_schema(r->db, &why);
    if (why && why != RPD_ENOTRPD && why != RPD_EROCPROF) return why;
    rpd_clearerr();
  } else if ((rc = detect(r->db, &r->schema))) {
    return rc;
  }
  /* a file we did not write: no view or virtual table in place of a
   * rocpd_ table, no planner statistics that lie */
  if (!(r->flags & RPD_CREATE) && (rc = rpd__check_untrusted(r->db, r->schema))) return rc;
  if (writable && is_temp) {
    /* our private copy: keep the rollback journal in memory so a crash
     * leaves no stray -journal file (not for WAL files: that would be
     * persistent) */
    sqlite3_stmt *st = NULL;
    int wal = 0;
    if ((rc = rpd_prepare(r, "PRAGMA journal_mode", &st))) return rc;
    if (sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char *m = sqlite3_column_text(st, 0);
      wal = m && strcmp((const char *)m, "wal") == 0;
    }
    sqlite3_finalize(st);
    if (!wal && (rc = rpd_exec(r, "PRAGMA journal_mode=MEMORY"))) return rc;
  }
  if (writable && !is_temp) {
    /* fail now, not in the middle of the tool, when another writer holds
     * the file; BEGIN IMMEDIATE takes the lock without writing anything */
    if ((rc = rpd_exec(r, "BEGIN IMMEDIATE"))) return rc;
    rpd_rollback(r);
    /* we waited for a writer that renamed a new file over this one (rpd-trim
     * compacting): the handle points at the old, unlinked file; open the
     * new one (a few times at most) */
    if (rpd_file_moved(r) || (have_before && replaced_since(r->work_path, &before))) {
      static int reopened;
      sqlite3_close(r->db);
      r->db = NULL;
      if (reopened++ >= 5)
        return rpd_seterr(RPD_EBUSY, "the file keeps being replaced by another program "
                                     "(a concurrent rpd-trim?)");
      return open_db(r, writable, is_temp);
    }
  }
  return RPD_OK;
}

/* Decompress or copy `path` (of kind) into a new temp file: next to
 * `near` (the file it will replace), or in $TMPDIR when near is NULL. */
int make_work_copy(rpd *r, const char *near, int kind)
{
  char *tmp = NULL;
  int fd, rc = near ? temp_next_to(near, &tmp, &fd) : temp_in_dir(tmpdir(), &tmp, &fd);

  if (rc) return rc;
  rc = kind == KIND_GZIP ? gunzip_to(r->path, fd) : copy_to(r->path, fd);
  if (close(fd) != 0 && !rc) rc = errno_status(errno, "cannot write temporary file");
  r->work_path = tmp;
  r->tmp_work = 1;
  if (!rc) {
    int k2 = 0;
    rc = sniff(tmp, &k2);          /* what was inside the .gz? */
    if (!rc && k2 != KIND_SQLITE)
      rc = rpd_seterr(RPD_ENOTDB, "not an SQLite database (compressed twice?)");
  }
  return rc;
}

static int is_wal(sqlite3 *db)
{
  sqlite3_stmt *st = NULL;
  int wal = 0;

  if (sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL) != SQLITE_OK) return 0;
  if (sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char *m = sqlite3_column_text(st, 0);
    wal = m && strcmp((const char *)m, "wal") == 0;
  }
  sqlite3_finalize(st);
  return wal;
}

/* A WAL database is more than its main file: copy it through SQLite into a
 * temp file next to `near`. */
static int backup_copy(rpd *r, sqlite3 *src, const char *near)
{
  char *tmp = NULL;
  int fd, rc = temp_next_to(near, &tmp, &fd), s;
  sqlite3 *dst = NULL;
  sqlite3_backup *b;

  if (rc) return rc;
  close(fd);
  r->work_path = tmp;
  r->tmp_work = 1;
  s = rpd_sqlite_open(tmp, &dst, SQLITE_OPEN_READWRITE);
  if (s == SQLITE_OK && (b = sqlite3_backup_init(dst, "main", src, "main"))) {
    s = sqlite3_backup_step(b, -1);
    sqlite3_backup_finish(b);
    if (s == SQLITE_DONE) s = SQLITE_OK;
  } else if (s == SQLITE_OK) {
    s = sqlite3_errcode(dst);
  }
  if (s != SQLITE_OK) rc = rpd__sqlerr(dst, s, NULL);
  if (rc == RPD_ESQL) rc = rpd_seterr(RPD_EIO, "cannot copy the database: %s", sqlite3_errstr(s));
  sqlite3_close(dst);
  return rc;
}

static int same_file(const char *a, const char *b)
{
  struct stat sa, sb;

  if (strcmp(a, b) == 0) return 1;
  if (stat(a, &sa) != 0 || stat(b, &sb) != 0) return 0;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void sleep_ms(int ms)
{
  struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

  while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
    ;
}

/* Writers of a .gz exclude each other as SQLite's locks do on a plain file:
 * take flock(LOCK_EX) on the .gz itself (waiting up to the busy timeout),
 * and hold it until the rewritten file is renamed over it.  The lock sits on
 * the inode, so once we hold it we check that `real` still names that inode
 * (the writer before us may have just replaced it) and else lock anew. */
static int lock_gz(rpd *r, const char *real)
{
  int waited = 0, limit = busy_timeout_ms();

  for (;;) {
    struct stat a, b;
    int fd = open(real, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno_status(errno, "cannot read");
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if ((errno != EWOULDBLOCK && errno != EINTR) || waited >= limit) {
        int err = errno;
        close(fd);
        if (err == EWOULDBLOCK || err == EINTR)
          return rpd_seterr(RPD_EBUSY, "database is locked: another program is rewriting "
                                       "this .gz (waited %d ms)", waited);
        return RPD_OK;         /* no flock here (some network file systems) */
      }
      sleep_ms(20);
      waited += 20;
    }
    if (fstat(fd, &a) == 0 && stat(real, &b) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino) {
      r->lock_fd = fd;
      return RPD_OK;
    }
    close(fd);                 /* replaced while we waited: lock the new one */
  }
}

/* In place: a plain file is opened read-write; a .gz is decompressed next
 * to its (symlink-resolved) self and replaced on commit. */
static int open_in_place(rpd *r, const struct stat *st, int kind)
{
  char *real = realpath(r->path, NULL), *dir;
  int rc;

  /* through a symlink the target and its directory count (SQLite puts the
   * journal there, and a .gz target is replaced) */
  if (!real) real = rpd_xstrdup(r->path);
  dir = dir_of(real);
  if (!(rc = check_writable_file(r->path, st, "read-only file")))
    rc = check_writable_dir(dir, "directory is read-only");
  if (!rc && kind == KIND_SQLITE) {
    r->work_path = rpd_xstrdup(r->path);
    rc = open_db(r, 1, 0);
  } else if (!rc) {
    r->final_path = real;
    real = NULL;
    r->gz_out = 1;
    if (!(rc = lock_gz(r, r->final_path)) && !(rc = make_work_copy(r, r->final_path, kind)))
      rc = open_db(r, 1, 1);
  }
  free(real);
  free(dir);
  return rc;
}

static int open_write(rpd *r, const char *out_path)
{
  struct stat st;
  int kind = 0, rc;

  if ((rc = stat_input(r->path, &st)) || (rc = sniff(r->path, &kind))) return rc;
  if (!out_path || same_file(r->path, out_path)) return open_in_place(r, &st, kind);
  /* -o OUT: work on a copy next to OUT's final target (symlinks followed,
   * like cp; never a device, a directory or the input) */
  if ((rc = rpd_output_check(out_path, r->path, &r->final_path))) return rc;
  r->gz_out = ends_with(out_path, ".gz");
  if (kind == KIND_SQLITE) {
    /* copy under a shared lock so a concurrent writer cannot tear it */
    rpd tmp = { 0 };
    tmp.path = r->path;
    tmp.work_path = r->path;
    tmp.flags = r->flags;
    rc = open_db_read(&tmp);
    if (!rc) rc = rpd_exec(&tmp, "BEGIN; SELECT count(*) FROM sqlite_master");
    if (!rc && is_wal(tmp.db)) rc = backup_copy(r, tmp.db, r->final_path);
    else if (!rc) rc = make_work_copy(r, r->final_path, kind);
    if (tmp.db) sqlite3_close(tmp.db);
  } else {
    rc = make_work_copy(r, r->final_path, kind);
  }
  if (!rc) rc = open_db(r, 1, 1);
  return rc;
}

static int open_create(rpd *r)
{
  struct stat st;
  int rc, fd;
  char *target = NULL, *tmp = NULL;

  if ((rc = rpd_output_check(r->path, NULL, &target))) {
    if (rc == RPD_EROFS && strstr(rpd_errmsg(), "file is read-only"))
      rc = rpd_seterr(RPD_EROFS, "read-only file");
    else if (rc == RPD_EROFS)
      rc = rpd_seterr(RPD_EROFS, "directory is read-only");
    else if (rc == RPD_ENOENT)
      rc = rpd_seterr(RPD_ENOENT, "directory does not exist");
    return rc;
  }
  r->final_path = target;
  if (stat(target, &st) == 0 && st.st_size > 0)
    return rpd_seterr(RPD_EEXIST, "file exists and is not empty");
  if (rpd__temp_is_own(target)) {
    /* the tool's own rpd_outfile temp: SQLite works on it directly and the
     * tool commits it; a temp of a temp would outlive a kill -9 */
    r->work_path = rpd_xstrdup(target);
    return open_db(r, 1, 1);
  }
  if ((rc = temp_next_to(target, &tmp, &fd))) return rc;
  close(fd);
  r->work_path = tmp;
  r->tmp_work = 1;
  r->gz_out = ends_with(r->path, ".gz");
  return open_db(r, 1, 1);
}

/* Reset every statement still running on db, so that COMMIT or ROLLBACK
 * and the close find no read in progress.  Never finalize them: some are
 * not ours -- an FTS5 or R-tree table of the file keeps prepared
 * statements of its own and finalizes them when the connection closes
 * (finalizing them here freed them twice).  Statements a tool leaked stay
 * allocated, and sqlite3_close_v2 closes the connection once they go. */
static void stop_statements(sqlite3 *db)
{
  for (sqlite3_stmt *st = sqlite3_next_stmt(db, NULL); st; st = sqlite3_next_stmt(db, st))
    sqlite3_reset(st);
}

/* Free everything of a handle; remove its temp work file. */
static void discard(rpd *r)
{
  if (r->db) {
    stop_statements(r->db);
    sqlite3_close_v2(r->db);
  }
  if (r->tmp_work && r->work_path) temp_remove(r->work_path);
  if (r->lock_fd >= 0) close(r->lock_fd);     /* after the rename */
  free(r->path);
  free(r->work_path);
  free(r->final_path);
  free(r->uri);
  rpd__opclass_drop(r);
  free(r);
}

/* rpd_create's file (create.c): a temp file next to path's target (the
 * input refused, symlinks followed), opened by SQLite, published by
 * rpd_close(r, 1) -- compressed when path ends in .gz, an existing file's
 * mode and owner kept.  An existing non-empty target is refused unless
 * force. */
int rpd__create_file(rpd **out, const char *path, const char *input, int force)
{
  struct stat st;
  rpd *r;
  int rc, fd;
  char *tmp = NULL;

  *out = NULL;
  rpd_clearerr();
  if (!path || !*path) return rpd_seterr(RPD_ENOENT, "empty output file name");
  rpd__install_cleanup();
  r = rpd_xcalloc(1, sizeof *r);
  r->lock_fd = -1;
  r->flags = RPD_WRITE | RPD_CREATE;
  r->path = rpd_xstrdup(path);
  rc = rpd_output_check(path, input, &r->final_path);
  if (!rc && !force && stat(r->final_path, &st) == 0 && st.st_size > 0)
    rc = rpd_seterr(RPD_EEXIST, "file exists and is not empty");
  if (!rc && !(rc = temp_next_to(r->final_path, &tmp, &fd))) {
    close(fd);
    r->work_path = tmp;
    r->tmp_work = 1;
    r->gz_out = ends_with(path, ".gz");
    rc = open_db(r, 1, 1);
  }
  if (rc) {
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", rpd_errmsg());
    discard(r);
    return rpd_seterr(rc, "%s", msg);
  }
  *out = r;
  return RPD_OK;
}

static rpd_import_reader import_reader;
static void *import_reader_arg;

void rpd_set_import_reader(rpd_import_reader fn, void *arg)
{
  import_reader = fn;
  import_reader_arg = arg;
}

/* A writer with -o OUT given a file the registered reader reads (a
 * rocprofv3 database, a PyTorch profiler trace): the reader's trace in
 * memory is copied into a work file next to OUT, which the writer then
 * changes as it would any -o copy (OUT appears at the commit, complete).
 * The reader's row check carries over to the copy.  RPD_ENOTDB (message
 * not needed) when the reader does not read path. */
static int open_imported(rpd **out, const char *path, const char *out_path, int flags)
{
  rpd *m = NULL, *r;
  int rc = import_reader(path, import_reader_arg, &m), passed;

  if (rc) return rc;
  passed = rpd_check_passed(m);
  r = rpd_xcalloc(1, sizeof *r);
  r->lock_fd = -1;
  r->flags = flags;
  r->path = rpd_xstrdup(path);
  if (!(rc = rpd_output_check(out_path, path, &r->final_path))) {
    r->gz_out = ends_with(out_path, ".gz");
    rc = backup_copy(r, m->db, r->final_path);
  }
  if (!rc) rc = open_db(r, 1, 1);
  if (!rc) {
    rpd_close(m, 0);
    if (passed) rpd_check_mark_passed(r);
    *out = r;
    return RPD_OK;
  }
  char msg[2048];
  snprintf(msg, sizeof msg, "%s", rpd_errmsg());
  discard(r);
  rpd_close(m, 0);
  return rpd_seterr(rc, "%s", msg);
}

int rpd_open(rpd **out, const char *path, const char *out_path, int flags)
{
  rpd *r;
  int rc;

  *out = NULL;
  rpd_clearerr();
  if (!path || !*path) return rpd_seterr(RPD_ENOENT, "no such file");
  rpd__install_cleanup();
  if (!(flags & RPD_CREATE)) reclaim_near(path);
  r = rpd_xcalloc(1, sizeof *r);
  r->lock_fd = -1;
  r->flags = flags;
  if (flags & RPD_CREATE) {
    r->flags |= RPD_WRITE;
    r->path = rpd_xstrdup(out_path ? out_path : path);
    rc = open_create(r);
  } else {
    r->path = rpd_xstrdup(path);
    rc = (flags & RPD_WRITE) ? open_write(r, out_path) : open_read(r);
    /* a writer never builds on a damaged file: what it writes could land
     * in a corrupt page, and it would report success */
    if (!rc && (flags & RPD_WRITE)) rc = rpd__check_integrity(r->db);
  }
  if (rc) {
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", rpd_errmsg());
    discard(r);
    rpd_seterr(rc, "%s", msg);
    /* a file rpd-import reads (a rocprofv3 database, a PyTorch profiler
     * trace) given to a tool that registered rpd_set_import_reader: a
     * reader reads it, never writes it; a writer with -o OUT gets the
     * trace rpd-import would write as OUT to change (in place it is
     * refused).  Not an SQLite file at all: the reader says RPD_ENOTDB
     * when it is none of its formats either, and the open's own message
     * stands */
    if ((rc == RPD_EROCPROF || rc == RPD_ENOTDB) && import_reader &&
        !(flags & (RPD_ANYDB | RPD_CREATE)) && (!(flags & RPD_WRITE) || out_path)) {
      int rrc = (flags & RPD_WRITE) ? open_imported(out, path, out_path, flags)
                                    : import_reader(path, import_reader_arg, out);
      if (rc == RPD_EROCPROF || rrc != RPD_ENOTDB) return rrc;
      rpd_seterr(rc, "%s", msg);
    }
    /* rocprofv3 output given where a trace belongs: say how to convert it */
    if (!(flags & (RPD_ANYDB | RPD_CREATE)) && rc != RPD_EBUSY && rc != RPD_ENOENT)
      rc = rpd__explain_rocprof(path, rc, import_reader && !out_path &&
                                 (flags & RPD_WRITE) && (flags & RPD_OFFER_OUT));
    return rc;
  }
  *out = r;
  return RPD_OK;
}

/* ------------------------------------------------------------ close */

/* Move the finished work file to final_path (compressing if asked). */
static int publish(rpd *r)
{
  struct stat st;
  mode_t mode = new_file_mode();
  char *dir = dir_of(r->final_path), *tmp = NULL;
  int rc = RPD_OK, fd;

  int keep_owner = 0;

  if (stat(r->final_path, &st) == 0 && S_ISREG(st.st_mode)) {
    mode = st.st_mode & 07777;           /* a replaced file (in place or -o OUT)
                                            keeps its mode, as rpd_outfile's do */
    keep_owner = 1;                      /* and owner, where we may */
  }
  if (r->gz_out) {
    if ((rc = temp_next_to(r->final_path, &tmp, &fd))) {
      free(dir);
      return rc;
    }
    rc = gzip_to(r->work_path, fd);
  } else {
    tmp = rpd_xstrdup(r->work_path);
    fd = open(tmp, O_RDWR | O_CLOEXEC);
    if (fd < 0) rc = errno_status(errno, "cannot reopen work file");
  }
  if (fd >= 0) {
    if (!rc && keep_owner && fchown(fd, st.st_uid, st.st_gid) != 0) { /* best effort */ }
    if (!rc && fchmod(fd, mode) != 0) rc = errno_status(errno, "cannot set mode");
    if (!rc && fsync(fd) != 0) rc = errno_status(errno, "cannot write output");
    if (close(fd) != 0 && !rc) rc = errno_status(errno, "cannot write output");
  }
  if (!rc && rename(tmp, r->final_path) != 0) rc = errno_status(errno, "cannot rename into place");
  if (!rc) {
    temp_forget(tmp);
    fsync_dir(dir);
  } else if (r->gz_out && tmp) {
    temp_remove(tmp);
  }
  free(tmp);
  free(dir);
  return rc;
}

int rpd_close(rpd *r, int commit)
{
  int rc = RPD_OK;

  if (!r) return RPD_OK;
  if (r->db) {
    stop_statements(r->db);
    if (!sqlite3_get_autocommit(r->db)) {
      if (commit) rc = rpd_exec(r, "COMMIT");
      rpd_rollback(r);
    }
    int src = sqlite3_close_v2(r->db);
    r->db = NULL;
    if (src != SQLITE_OK && !rc) rc = rpd_seterr(RPD_EIO, "cannot close: %s", sqlite3_errstr(src));
  }
  /* a temp work copy is published; so is the tool's own temp (RPD_CREATE
   * on an rpd_outfile) when the tool asked for compression (gz_out) */
  if (commit && !rc && r->final_path && (r->tmp_work || r->gz_out)) {
    rc = publish(r);
    if (!rc && !r->gz_out) r->tmp_work = 0;    /* renamed, nothing to remove */
  }
  discard(r);
  return rc;
}

/* ------------------------------------------------------------ vacuum */

/* VACUUM INTO a temp file next to the user's file `real` (mode and owner
 * as st), then rename it over the file.  A second connection holds the
 * RESERVED lock meanwhile, so no other writer can commit in between. */
static int vacuum_into(rpd *r, const char *real, const struct stat *st)
{
  sqlite3 *lock = NULL;
  char *tmp = NULL, *dir = dir_of(real), *journal = NULL;
  int fd = -1, rc, src;

  if ((rc = temp_next_to(real, &tmp, &fd))) goto done;
  /* SQLite writes the target through a rollback journal of its own */
  journal = rpd_xasprintf("%s-journal", tmp);
  if ((rc = rpd__temp_register(journal))) goto done;
  src = rpd_sqlite_open(r->work_path, &lock, SQLITE_OPEN_READWRITE);
  if (src == SQLITE_OK) {
    sqlite3_busy_timeout(lock, busy_timeout_ms());
    src = sqlite3_exec(lock, "BEGIN IMMEDIATE", NULL, NULL, NULL);
  }
  if (src != SQLITE_OK) {
    rc = rpd__sqlerr(lock, src, "BEGIN IMMEDIATE");
    goto done;
  }
  if ((rc = rpd_execf(r, "VACUUM INTO %Q", tmp))) goto done;
  if (fchown(fd, st->st_uid, st->st_gid) != 0) { /* best effort */ }
  if (fchmod(fd, st->st_mode & 07777) != 0) rc = errno_status(errno, "cannot set mode");
  if (!rc && fsync(fd) != 0) rc = errno_status(errno, "cannot write the vacuumed file");
  if (!rc && rename(tmp, real) != 0) rc = errno_status(errno, "cannot rename into place");
  if (!rc) {
    temp_forget(tmp);
    fsync_dir(dir);
  }
done:
  if (fd >= 0) close(fd);
  if (rc && tmp) temp_remove(tmp);
  if (journal) temp_remove(journal);
  if (lock) {
    sqlite3_exec(lock, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(lock);
  }
  free(journal);
  free(tmp);
  free(dir);
  return rc;
}

int rpd_vacuum(rpd *r)
{
  struct stat st;
  char *real;
  int rc;

  if (!sqlite3_get_autocommit(r->db))
    return rpd_seterr(RPD_ERR, "cannot VACUUM inside a transaction");
  /* our own work copy, a WAL file (atomic by itself) or a file with other
   * hard links (a rename would split them): VACUUM in place; SQLite's
   * journal rolls a failed or killed VACUUM back */
  if (r->tmp_work || is_wal(r->db) || stat(r->work_path, &st) != 0 || st.st_nlink > 1)
    return rpd_exec(r, "VACUUM");
  if (!(real = realpath(r->work_path, NULL))) return errno_status(errno, "cannot resolve path");
  rc = vacuum_into(r, real, &st);
  free(real);
  if (rc) return rc;
  /* the handle still reads the old, now unlinked file: reopen */
  sqlite3_close(r->db);
  r->db = NULL;
  return open_db(r, 1, 0);
}

/* ------------------------------------------------------------ accessors */

sqlite3 *rpd_db(const rpd *r) { return r->db; }
int rpd_schema(const rpd *r) { return r->schema; }
void rpd_set_schema(rpd *r, int schema) { r->schema = schema; }
const char *rpd_path(const rpd *r) { return r->path; }
const char *rpd_work_path(const rpd *r) { return r->work_path; }
const char *rpd_uri(const rpd *r) { return r->uri; }
