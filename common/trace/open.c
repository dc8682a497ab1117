/* open.c - opening and closing traces: plain and gzip-compressed files,
 * read-only and read-write, in place or into an output file; temp file
 * bookkeeping; schema detection. */
#define _GNU_SOURCE
#include "rpd.h"
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define IOBUF (1 << 20)
static const char sqlite_magic[16] = "SQLite format 3";   /* + NUL */

/* ------------------------------------------------------------ temp files */

/* The temp file list lives in outfile.c (rpd_cleanup_temps). */
#define temp_forget rpd__temp_forget
#define temp_remove rpd__temp_remove

/* Create a temp file for `path`, next to it (".NAME.rpdtools-XXXXXX", so
 * that the final rename is atomic and 255-byte names still fit). */
static int temp_next_to(const char *path, char **tmp, int *fdp)
{
  char *tmpl = rpd_temp_template(path);
  int rc = rpd__temp_create(tmpl, tmp, fdp);

  free(tmpl);
  return rc;
}

/* Remove stale temps next to the file at path (symlinks resolved), left
 * by a killed writer; silent (see rpd__temp_reclaim in outfile.c). */
static void reclaim_near(const char *path)
{
  char *real = realpath(path, NULL), *tmpl;

  if (!real) return;
  tmpl = rpd_temp_template(real);
  rpd__temp_reclaim(tmpl);
  free(tmpl);
  free(real);
}

/* Create a private temp file "DIR/rpdtools-XXXXXX" in the directory dir. */
static int temp_in_dir(const char *dir, char **tmp, int *fdp)
{
  char *tmpl = rpd_xasprintf("%s/rpdtools-XXXXXX", dir);
  int rc = rpd__temp_create(tmpl, tmp, fdp);

  free(tmpl);
  return rc;
}

/* ------------------------------------------------------------ file utils */

static const char *tmpdir(void)
{
  const char *d = getenv("TMPDIR");

  return d && *d ? d : "/tmp";
}

/* Directory part of path ("." if none); caller frees. */
static char *dir_of(const char *path)
{
  const char *slash = strrchr(path, '/');

  if (!slash) return rpd_xstrdup(".");
  if (slash == path) return rpd_xstrdup("/");
  char *d = rpd_xmalloc((size_t)(slash - path) + 1);
  memcpy(d, path, (size_t)(slash - path));
  d[slash - path] = 0;
  return d;
}

static int ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);

  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int errno_status(int err, const char *what)
{
  if (err == ENOENT || err == ENOTDIR) return rpd_seterr(RPD_ENOENT, "no such file");
  if (err == EACCES || err == EPERM)
    return rpd_seterr(RPD_EIO, "%s: permission denied", what);
  if (err == ENOSPC || err == EDQUOT)
    return rpd_seterr(RPD_EIO, "%s: no space left on device", what);
  if (err == EROFS) return rpd_seterr(RPD_EROFS, "read-only file system");
  return rpd_seterr(RPD_EIO, "%s: %s", what, strerror(err));
}

static int write_all(int fd, const char *p, size_t n)
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
static int stat_input(const char *path, struct stat *st)
{
  if (stat(path, st) != 0) return errno_status(errno, "cannot stat");
  if (S_ISDIR(st->st_mode)) return rpd_seterr(RPD_ENOTDB, "is a directory, not an SQLite database");
  if (!S_ISREG(st->st_mode)) return rpd_seterr(RPD_ENOTDB, "not a regular file");
  return RPD_OK;
}

enum { KIND_SQLITE = 1, KIND_GZIP = 2 };

/* Look at the first bytes of path: KIND_SQLITE, KIND_GZIP, or an error. */
static int sniff(const char *path, int *kind)
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

/* Decompress the gzip file src into the open file dst_fd. */
/* The size of the open file fd (progress totals), -1 if unknown. */
static int64_t fd_size(int fd)
{
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1;
}

/* The progress line of a file copy: done of total bytes (total < 0:
 * unknown); only rpd_progress_end says 100%. */
static void copy_progress(const char *what, int64_t done, int64_t total)
{
  rpd_progress_bytes(what, total > 0 && done >= total ? total - 1 : done, total);
}

/* Limits on what a .gz may inflate to: past GZ_FREE bytes, at most
 * GZ_MAX_RATIO times the compressed size (SQLite traces compress 3-10x;
 * zeros compress 1000x, which is what a gzip bomb is made of). */
#define GZ_FREE ((int64_t)64 << 20)
#define GZ_MAX_RATIO 50

static int gz_too_big(int64_t out, int64_t in)
{
  return out > GZ_FREE && out / GZ_MAX_RATIO > in;
}

static int gz_bomb(void)
{
  return rpd_seterr(RPD_EGZIP, "gzip data inflating to more than %d times its size "
                    "(a gzip bomb?); decompress it yourself if it is genuine", GZ_MAX_RATIO);
}

/* The first 100 inflated bytes (the SQLite header, n of them): RPD_OK and
 * *limit = the database size the header gives (-1 when it gives none), or
 * an error before anything big was written.  `compressed` is the size of
 * the .gz. */
static int sqlite_header_of_gz(const unsigned char *h, size_t n, int64_t compressed, int64_t *limit)
{
  unsigned page;
  uint32_t pages;

  *limit = -1;
  if (n == 0) return RPD_OK;                  /* empty: said after the copy */
  if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
    return rpd_seterr(RPD_ENOTDB, "not an SQLite database (compressed twice?)");
  if (n < sizeof sqlite_magic || memcmp(h, sqlite_magic, sizeof sqlite_magic) != 0)
    return rpd_seterr(RPD_ENOTDB, "not an SQLite database (the gzip data holds something else)");
  if (n < 100) return RPD_OK;                 /* a header cut short: SQLite says */
  page = (unsigned)h[16] << 8 | h[17];
  if (page == 1) page = 65536;
  if (page < 512 || (page & (page - 1)))
    return rpd_seterr(RPD_ENOTDB, "not an SQLite database (bad page size in the header)");
  pages = (uint32_t)h[28] << 24 | (uint32_t)h[29] << 16 | (uint32_t)h[30] << 8 | h[31];
  /* the size is valid when the change counter matches "version valid for"
   * (every SQLite since 3.7.0 writes it so) */
  if (pages && memcmp(h + 24, h + 92, 4) == 0) {
    *limit = (int64_t)pages * page;
    if (compressed > 0 && gz_too_big(*limit, compressed)) return gz_bomb();
  }
  return RPD_OK;
}

/* Decompress the gzip file src into the open file dst_fd.  Checked as it
 * goes: the SQLite header first (nothing big is written for what is not a
 * database), the inflate ratio, and that nothing but further gzip members
 * follows the data (gzip(1) ignores trailing garbage; we refuse it). */
static int gunzip_to(const char *src, int dst_fd)
{
  int fd = open(src, O_RDONLY | O_CLOEXEC), rc = RPD_OK, zr, ended = 0;
  enum { INBUF = 1 << 18 };
  unsigned char hdr[100], *in, *out;
  size_t hdr_n = 0;
  int64_t total, in_total = 0, out_total = 0, limit = -1;
  z_stream z;

  if (fd < 0) return errno_status(errno, "cannot read");
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 15 + 16) != Z_OK) {           /* gzip wrapper only */
    close(fd);
    return rpd_seterr(RPD_ENOMEM, "out of memory for gzip");
  }
  in = rpd_xmalloc(INBUF);
  out = rpd_xmalloc(IOBUF);
  total = fd_size(fd);
  for (;;) {
    if (z.avail_in == 0) {
      ssize_t n = read(fd, in, INBUF);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) { rc = errno_status(errno, "cannot read"); break; }
      if (n == 0) break;
      in_total += n;
      z.next_in = in;
      z.avail_in = (uInt)n;
    }
    if (ended) {          /* a member ended: another one, or garbage */
      if (z.next_in[0] != 0x1f || (z.avail_in > 1 && z.next_in[1] != 0x8b)) {
        rc = rpd_seterr(RPD_EGZIP, "data after the end of the gzip stream (%" PRId64
                        " bytes); not a clean .gz", (int64_t)z.avail_in +
                        (total > in_total ? total - in_total : 0));
        break;
      }
      inflateReset(&z);
      ended = 0;
    }
    z.next_out = out;
    z.avail_out = IOBUF;
    zr = inflate(&z, Z_NO_FLUSH);
    if (zr == Z_STREAM_END) ended = 1;
    else if (zr != Z_OK && !(zr == Z_BUF_ERROR && z.avail_in == 0)) {
      rc = zr == Z_MEM_ERROR ? rpd_seterr(RPD_ENOMEM, "out of memory for gzip")
                             : rpd_seterr(RPD_EGZIP, "truncated or corrupt gzip data");
      break;
    }
    size_t got = IOBUF - z.avail_out, skip = 0;
    if (hdr_n < sizeof hdr && got) {
      size_t k = got < sizeof hdr - hdr_n ? got : sizeof hdr - hdr_n;
      memcpy(hdr + hdr_n, out, k);
      hdr_n += k;
      if (hdr_n == sizeof hdr && (rc = sqlite_header_of_gz(hdr, hdr_n, total, &limit))) break;
    }
    out_total += (int64_t)got;
    if (gz_too_big(out_total, in_total - z.avail_in)) { rc = gz_bomb(); break; }
    /* SQLite reads no further than the size its header gives: bytes past
     * it are inflated (for the checksum) but not stored */
    if (limit >= 0 && out_total > limit)
      skip = (size_t)(out_total - limit < (int64_t)got ? out_total - limit : (int64_t)got);
    if (got > skip && (rc = write_all(dst_fd, (const char *)out, got - skip))) break;
    copy_progress("decompressing", in_total - z.avail_in, total);
  }
  if (!rc && !ended) rc = rpd_seterr(RPD_EGZIP, "truncated or corrupt gzip data");
  if (!rc && hdr_n < sizeof hdr) rc = sqlite_header_of_gz(hdr, hdr_n, total, &limit);
  rpd_progress_end();
  inflateEnd(&z);
  free(in);
  free(out);
  close(fd);
  return rc;
}

/* Compress the file src into the open file dst_fd (gzip, level from
 * RPD_GZIP_LEVEL, default 6). */
static int gzip_to(const char *src, int dst_fd)
{
  const char *lv = getenv("RPD_GZIP_LEVEL");
  char mode[4] = "wb6";
  int fd, dfd, rc = RPD_OK;
  gzFile g;
  char *buf;

  if (lv && lv[0] >= '0' && lv[0] <= '9' && !lv[1]) mode[2] = lv[0];
  if ((fd = open(src, O_RDONLY | O_CLOEXEC)) < 0) return errno_status(errno, "cannot read work file");
  if ((dfd = dup(dst_fd)) < 0) { close(fd); return errno_status(errno, "dup"); }
  if (!(g = gzdopen(dfd, mode))) {
    close(fd);
    close(dfd);
    return rpd_seterr(RPD_ENOMEM, "out of memory for gzip");
  }
  gzbuffer(g, 1 << 18);
  buf = rpd_xmalloc(IOBUF);
  int64_t total = fd_size(fd), done = 0;
  for (;;) {
    ssize_t n = read(fd, buf, IOBUF);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) { rc = errno_status(errno, "cannot read work file"); break; }
    if (n == 0) break;
    copy_progress("compressing", done += n, total);
    if (gzwrite(g, buf, (unsigned)n) != (int)n) {
      int zerr;
      const char *m = gzerror(g, &zerr);
      rc = zerr == Z_ERRNO ? errno_status(errno, "cannot write compressed file")
                           : rpd_seterr(RPD_EIO, "gzip: %s", m);
      break;
    }
  }
  rpd_progress_end();
  free(buf);
  close(fd);
  if (gzclose_w(g) != Z_OK && !rc)
    rc = rpd_seterr(RPD_EIO, "cannot write compressed file: %s", strerror(errno));
  return rc;
}

/* Copy the plain file src into dst_fd. */
static int copy_to(const char *src, int dst_fd)
{
  int fd = open(src, O_RDONLY | O_CLOEXEC), rc = RPD_OK;
  char *buf;

  if (fd < 0) return errno_status(errno, "cannot read");
  buf = rpd_xmalloc(IOBUF);
  int64_t total = fd_size(fd), done = 0;
  for (;;) {
    ssize_t n = read(fd, buf, IOBUF);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) { rc = errno_status(errno, "cannot read"); break; }
    if (n == 0) break;
    if ((rc = write_all(dst_fd, buf, (size_t)n))) break;
    copy_progress("copying", done += n, total);
  }
  rpd_progress_end();
  free(buf);
  close(fd);
  return rc;
}

/* 0 if we may write `path` (a file), else RPD_EROFS with msg.  Root passes
 * access(2) on 0444 files, so the mode bits are checked as well. */
static int check_writable_file(const char *path, const struct stat *st, const char *msg)
{
  if ((st->st_mode & 0222) == 0 || access(path, W_OK) != 0)
    return rpd_seterr(RPD_EROFS, "%s", msg);
  return RPD_OK;
}

static int check_writable_dir(const char *dir, const char *msg)
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

static mode_t new_file_mode(void)
{
  mode_t m = umask(0);

  umask(m);
  return 0666 & ~m;
}

static void fsync_dir(const char *dir)
{
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
}

/* ------------------------------------------------------------ schema */

/* *found = whether the one-parameter query returns a row. */
static int q_exists(sqlite3 *db, const char *sql, const char *a, const char *b, int *found)
{
  sqlite3_stmt *st = NULL;
  int src = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

  if (src != SQLITE_OK) return rpd__sqlerr(db, src, sql);
  if (a) sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
  if (b) sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
  src = sqlite3_step(st);
  *found = src == SQLITE_ROW;
  if (src != SQLITE_ROW && src != SQLITE_DONE) {
    int rc = rpd__sqlerr(db, src, sql);
    sqlite3_finalize(st);
    return rc;
  }
  sqlite3_finalize(st);
  return RPD_OK;
}

static int has_object(sqlite3 *db, const char *name, int *found)
{
  return q_exists(db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') "
                      "AND name = ?1 COLLATE NOCASE", name, NULL, found);
}

static int has_column(sqlite3 *db, const char *table, const char *col, int *found)
{
  return q_exists(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2 COLLATE NOCASE",
                  table, col, found);
}

/* Schema of db in *schema (2 or 3), or an error status with the reason. */
static int detect(sqlite3 *db, int *schema)
{
  static const char *const required[] = { "rocpd_op", "rocpd_string", "rocpd_api_ops" };
  int rc, api = 0, f = 0, dom = 0, cat = 0, name = 0, args = 0;

  *schema = 0;
  rc = q_exists(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rocpd_api' "
                    "COLLATE NOCASE", NULL, NULL, &api);
  if (rc) return rc;
  if (!api) {
    int guid = 0, kernels = 0, regions = 0;
    rc = q_exists(db, "SELECT 1 FROM sqlite_master WHERE name LIKE 'rocpd\\_info\\_node\\_%' "
                      "ESCAPE '\\' OR name LIKE 'rocpd\\_kernel\\_dispatch\\_%' ESCAPE '\\'",
                  NULL, NULL, &guid);
    if (!rc) rc = has_object(db, "kernels", &kernels);
    if (!rc) rc = has_object(db, "regions", &regions);
    if (rc) return rc;
    if (guid || (kernels && regions))
      return rpd_seterr(RPD_EROCPROF, "a rocprofv3 database, not an RPD trace; "
                                      "convert it with rpd-import");
    return rpd_seterr(RPD_ENOTRPD, "not an RPD trace: missing table rocpd_api");
  }
  for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
    if ((rc = has_object(db, required[i], &f))) return rc;
    if (!f) return rpd_seterr(RPD_ENOTRPD, "not an RPD trace: missing table %s", required[i]);
  }
  if ((rc = has_column(db, "rocpd_api", "domain_id", &dom)) ||
      (rc = has_column(db, "rocpd_api", "category_id", &cat)) ||
      (rc = has_column(db, "rocpd_api", "apiName_id", &name)) ||
      (rc = has_column(db, "rocpd_api", "args_id", &args)))
    return rc;
  if (dom && cat && name && args) {
    if ((rc = has_object(db, "rocpd_ustring", &f))) return rc;
    if (!f)
      return rpd_seterr(RPD_ENOTRPD, "not an RPD trace: schema 3 (rocpd_api has domain_id) "
                                     "but missing table rocpd_ustring");
    *schema = 3;
    return RPD_OK;
  }
  if (name && args && !dom) {
    *schema = 2;
    return RPD_OK;
  }
  return rpd_seterr(RPD_ENOTRPD, "not an RPD trace: rocpd_api has neither the schema 2 "
                                 "nor the schema 3 columns");
}

int rpd_detect_schema(sqlite3 *db, int *why)
{
  int schema = 0, rc = detect(db, &schema);

  if (why) *why = rc;
  return rc ? 0 : schema;
}

const char *rpd_args_table(const rpd *r)
{
  return r && r->schema == 2 ? "rocpd_string" : "rocpd_ustring";
}

/* ------------------------------------------------------------ open */

static int busy_timeout_ms(void)
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
static int open_db(rpd *r, int writable, int is_temp)
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
static int make_work_copy(rpd *r, const char *near, int kind)
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
static int open_db_read(rpd *r)
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

static int open_read(rpd *r)
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
    /* rocprofv3 output given where a trace belongs: say how to convert it */
    if (!(flags & (RPD_ANYDB | RPD_CREATE)) && rc != RPD_EBUSY && rc != RPD_ENOENT)
      rc = rpd__explain_rocprof(path, rc);
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
