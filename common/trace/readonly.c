/* readonly.c - opening a trace read-only: a hot journal left by a killed
 * writer, WAL traces on read-only mounts, private copies of .gz inputs. */
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

/* The file at path has a hot journal (a writer was killed mid-commit) that
 * a read-only connection cannot roll back: open it read-write once, so
 * that SQLite rolls the journal back on the first read, when we may;
 * otherwise say what to do. */
static int roll_back_journal(const char *path)
{
  char *real = realpath(path, NULL), *dir;
  struct stat st;
  sqlite3 *db = NULL;
  int rc = RPD_OK, src;

  if (!real) real = rpd_xstrdup(path);
  dir = dir_of(real);
  if (stat(real, &st) != 0 || (st.st_mode & 0222) == 0 || access(real, W_OK) != 0 ||
      check_writable_dir(dir, "directory is read-only") != RPD_OK)
    rc = rpd_seterr(RPD_EROFS, "unfinished transaction left in '%s-journal' by a killed "
                    "writer; open it once with write access (e.g. sqlite3 %s "
                    "'pragma integrity_check')", path, path);
  free(dir);
  free(real);
  if (rc) return rc;
  src = rpd_sqlite_open(path, &db, SQLITE_OPEN_READWRITE);
  if (src == SQLITE_OK) {
    sqlite3_busy_timeout(db, busy_timeout_ms());
    src = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
  }
  if (src != SQLITE_OK) {
    rc = rpd__sqlerr(db, src, NULL);
    rc = rpd_seterr(rc, "cannot roll back the unfinished transaction in '%s-journal': %s",
                    path, rpd_errmsg());
  }
  sqlite3_close(db);
  return rc;
}

/* 1 if the SQLite file at path is in WAL mode (header bytes 18/19 = 2). */
static int wal_header(const char *path)
{
  unsigned char h[20];
  int fd = open(path, O_RDONLY | O_CLOEXEC), wal = 0;

  if (fd < 0) return 0;
  wal = read(fd, h, sizeof h) == (ssize_t)sizeof h && h[18] == 2 && h[19] == 2;
  close(fd);
  return wal;
}

/* Size of path, -1 if absent. */
static off_t file_size(const char *path)
{
  struct stat st;

  return stat(path, &st) == 0 ? st.st_size : -1;
}

/* "file:PATH?immutable=1" with PATH percent-encoded; caller frees. */
static char *immutable_uri(const char *path)
{
  rpd_buf b = { 0 };

  rpd_buf_puts(&b, "file:");
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
        strchr("/-._~", *p))
      rpd_buf_add(&b, (const char *)p, 1);
    else
      rpd_buf_printf(&b, "%%%02X", *p);
  }
  rpd_buf_puts(&b, "?immutable=1");
  return b.s;
}

/* A private copy of the WAL-mode database path and its -wal in $TMPDIR,
 * checkpointed so that it reads as one plain file; opened read-only. */
static int open_wal_copy(rpd *r)
{
  char *tmp = NULL, *wal_src = rpd_xasprintf("%s-wal", r->path), *wal_dst = NULL;
  int fd, wfd = -1, rc = temp_in_dir(tmpdir(), &tmp, &fd), src;
  sqlite3 *db = NULL;

  if (!rc) {
    rc = copy_to(r->path, fd);
    close(fd);
    r->work_path = tmp;
    r->tmp_work = 1;
  }
  if (!rc) {
    wal_dst = rpd_xasprintf("%s-wal", tmp);
    if ((rc = rpd__temp_register(wal_dst))) goto done;
    wfd = open(wal_dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    rc = wfd < 0 ? errno_status(errno, "cannot create temporary file") : copy_to(wal_src, wfd);
    if (wfd >= 0) close(wfd);
  }
  if (!rc) {
    src = rpd_sqlite_open(tmp, &db, SQLITE_OPEN_READWRITE);
    if (src == SQLITE_OK)
      src = sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE",
                         NULL, NULL, NULL);
    if (src != SQLITE_OK) rc = rpd__sqlerr(db, src, "PRAGMA wal_checkpoint");
    sqlite3_close(db);
  }
  if (!rc) rc = open_db(r, 0, 1);
  if (!rc) {
    temp_remove(r->work_path);      /* SQLite holds it open (see open_read) */
    r->tmp_work = 0;
  }
done:
  if (wal_dst) {
    char *shm = rpd_xasprintf("%s-shm", tmp);
    unlink(shm);
    free(shm);
    temp_remove(wal_dst);
  }
  free(wal_dst);
  free(wal_src);
  return rc;
}

/* A WAL-mode trace that a read-only connection cannot open (no -shm and a
 * directory or mount we may not write): nobody can write it either, so
 * read it as an immutable file, or -- when a -wal with content is left --
 * through a private checkpointed copy. */
static int open_wal_readonly(rpd *r)
{
  char *wal = rpd_xasprintf("%s-wal", r->path);
  off_t n = file_size(wal);
  int rc;

  free(wal);
  if (r->db) sqlite3_close(r->db);
  r->db = NULL;
  if (n > 0) {
    free(r->work_path);
    r->work_path = NULL;
    return open_wal_copy(r);
  }
  r->uri = immutable_uri(r->work_path);
  rc = open_db(r, 0, 0);
  return rc;
}

/* Open the plain SQLite file r->work_path read-only in place, rolling back
 * a hot journal first if needed. */
int open_db_read(rpd *r)
{
  int rc = open_db(r, 0, 0);

  if (rc && rc != RPD_ENOTRPD && rc != RPD_EROCPROF && rc != RPD_EBUSY &&
      wal_header(r->work_path) && !r->uri)
    return open_wal_readonly(r);

  if (rc && r->db && sqlite3_extended_errcode(r->db) == SQLITE_READONLY_ROLLBACK) {
    sqlite3_close(r->db);
    r->db = NULL;
    if (!(rc = roll_back_journal(r->work_path))) rc = open_db(r, 0, 0);
  }
  return rc;
}

int open_read(rpd *r)
{
  struct stat st;
  int kind = 0, rc;

  if ((rc = stat_input(r->path, &st)) || (rc = sniff(r->path, &kind))) return rc;
  if (kind == KIND_SQLITE) {
    r->work_path = rpd_xstrdup(r->path);
    return open_db_read(r);
  }
  if ((rc = make_work_copy(r, NULL, kind))) {
    if (strstr(rpd_errmsg(), "temporary file"))
      rc = rpd_seterr(rc, "%s (decompressing into %s; set TMPDIR to use another directory)",
                      rpd_errmsg(), tmpdir());
    return rc;
  }
  if ((rc = open_db(r, 0, 1))) return rc;
  /* SQLite holds the descriptor: the name can go now, so that not even
   * kill -9 leaves the copy behind (closing our lock descriptor would drop
   * SQLite's fcntl locks on the copy, but outside a transaction it holds
   * none, and nobody else can reach an unlinked private file) */
  temp_remove(r->work_path);
  r->tmp_work = 0;
  return RPD_OK;
}
