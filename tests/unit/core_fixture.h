/* core_fixture.h - helpers for the unit tests of common/ (test_open.c,
 * test_sql.c, test_strtab.c, test_meta.c, test_augment.c, test_schema.c,
 * test_outfile.c, test_callstack.c): a scratch directory, minimal v2/v3
 * traces built with plain SQL, the cmocka setup/teardown of a scratch trace,
 * file comparison, stream and file contents, gzip writing, bounded waits
 * for forked children.  Header-only; every function is static. */
#ifndef CORE_FIXTURE_H
#define CORE_FIXTURE_H

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "rpd.h"

#define FX static __attribute__((unused))

/* The tables every RPD trace has, schema 2 (as written by the tracer),
 * without rows but the schema version. */
#define FX_V2_TABLES \
    "CREATE TABLE rocpd_metadata (id integer NOT NULL PRIMARY KEY AUTOINCREMENT," \
    " tag varchar(4096) NOT NULL, value varchar(4096) NOT NULL);" \
    "CREATE TABLE rocpd_string (id integer NOT NULL PRIMARY KEY AUTOINCREMENT," \
    " string varchar(4096) NOT NULL);" \
    "CREATE INDEX rocpd_strin_string_c7b9cd_idx ON rocpd_string (string);" \
    "CREATE TABLE rocpd_api (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, pid integer NOT NULL," \
    " tid integer NOT NULL, start integer NOT NULL, end integer NOT NULL," \
    " apiName_id integer NOT NULL, args_id integer NOT NULL);" \
    "CREATE TABLE rocpd_op (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, gpuId integer NOT NULL," \
    " queueId integer NOT NULL, sequenceId integer NOT NULL, completionSignal varchar(18) NOT NULL," \
    " start integer NOT NULL, end integer NOT NULL, description_id integer NOT NULL," \
    " opType_id integer NOT NULL);" \
    "CREATE TABLE rocpd_api_ops (id integer NOT NULL PRIMARY KEY AUTOINCREMENT," \
    " api_id integer NOT NULL, op_id integer NOT NULL);" \
    "INSERT INTO rocpd_metadata(tag, value) VALUES ('schema_version', '2');"

/* FX_V2_TABLES with a small workload: two kernel launches and their ops. */
static const char fx_v2_ddl[] =
    FX_V2_TABLES
    "INSERT INTO rocpd_string(id, string) VALUES (1, ''), (2, 'hipLaunchKernel'),"
    " (3, 'KernelExecution'), (4, 'gemm_kernel'), (5, 'stream = 0x1');"
    "INSERT INTO rocpd_api VALUES (1, 100, 101, 1000, 2000, 2, 5), (2, 100, 101, 3000, 3500, 2, 5);"
    "INSERT INTO rocpd_op VALUES (1, 0, 0, 0, '', 2500, 4000, 4, 3), (2, 0, 0, 1, '', 4000, 5000, 4, 3);"
    "INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (1, 1), (2, 2);";

/* Schema 3: domain/category columns, args in rocpd_ustring, no
 * completionSignal. */
static const char fx_v3_ddl[] =
    "CREATE TABLE rocpd_metadata (id integer NOT NULL PRIMARY KEY AUTOINCREMENT,"
    " tag varchar(4096) NOT NULL, value varchar(4096) NOT NULL);"
    "CREATE TABLE rocpd_string (id integer NOT NULL PRIMARY KEY AUTOINCREMENT,"
    " string varchar(4096) NOT NULL);"
    "CREATE TABLE rocpd_ustring (id integer NOT NULL PRIMARY KEY AUTOINCREMENT,"
    " string varchar(4096) NOT NULL);"
    "CREATE INDEX rocpd_strin_string_c7b9cd_idx ON rocpd_string (string);"
    "CREATE INDEX rocpd_ustri_string_84d4a7_idx ON rocpd_ustring (string);"
    "CREATE TABLE rocpd_api (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, pid integer NOT NULL,"
    " tid integer NOT NULL, start integer NOT NULL, end integer NOT NULL,"
    " apiName_id bigint NOT NULL, category_id bigint NOT NULL, domain_id bigint NOT NULL,"
    " args_id bigint NOT NULL);"
    "CREATE TABLE rocpd_op (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, gpuId integer NOT NULL,"
    " queueId integer NOT NULL, sequenceId integer NOT NULL, start integer NOT NULL,"
    " end integer NOT NULL, description_id bigint NOT NULL, opType_id bigint NOT NULL);"
    "CREATE TABLE rocpd_api_ops (id integer NOT NULL PRIMARY KEY AUTOINCREMENT,"
    " api_id bigint NOT NULL, op_id bigint NOT NULL);"
    "INSERT INTO rocpd_metadata(tag, value) VALUES ('schema_version', '3');"
    "INSERT INTO rocpd_string(id, string) VALUES (1, ''), (2, 'hipLaunchKernel'),"
    " (3, 'KernelExecution'), (4, 'gemm_kernel'), (6, 'hip'), (7, 'api');"
    "INSERT INTO rocpd_ustring(id, string) VALUES (1, ''), (5, 'stream = 0x1');"
    "INSERT INTO rocpd_api VALUES (1, 100, 101, 1000, 2000, 2, 7, 6, 5),"
    " (2, 100, 101, 3000, 3500, 2, 7, 6, 5), (3, 100, 102, 3100, 3200, 2, 7, 6, 1);"
    "INSERT INTO rocpd_op VALUES (1, 0, 0, 0, 2500, 4000, 4, 3);"
    "INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (1, 1);";

/* Create path with the given SQL through plain SQLite. 0 on success. */
FX int fx_make_db(const char *path, const char *sql)
{
  sqlite3 *db = NULL;
  int rc = sqlite3_open(path, &db);

  if (rc == SQLITE_OK) rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
  if (rc != SQLITE_OK) fprintf(stderr, "fixture: %s\n", sqlite3_errmsg(db));
  sqlite3_close(db);
  return rc;
}

/* mkdtemp under $TMPDIR (or /tmp); caller frees. */
FX char *fx_mkdtemp(void)
{
  const char *t = getenv("TMPDIR");
  char *d = rpd_xasprintf("%s/rpdunit-XXXXXX", t && *t ? t : "/tmp");

  if (!mkdtemp(d)) {
    perror("mkdtemp");
    abort();
  }
  return d;
}

/* rm -rf dir (scratch directories only; makes read-only parts writable). */
FX void fx_rm_tree(const char *dir)
{
  DIR *d;
  struct dirent *e;

  chmod(dir, 0700);
  if ((d = opendir(dir))) {
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char *p = rpd_xasprintf("%s/%s", dir, e->d_name);
      struct stat st;
      if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) fx_rm_tree(p);
      else unlink(p);
      free(p);
    }
    closedir(d);
  }
  rmdir(dir);
}

/* The whole file in a new buffer (caller frees), NULL if unreadable. */
FX char *fx_slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t cap = 0, n = 0, got;

  *len = 0;
  if (!f) return NULL;
  do {
    if (n == cap) buf = rpd_xrealloc(buf, cap = cap ? cap * 2 : 65536);
    got = fread(buf + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  fclose(f);
  *len = n;
  return buf ? buf : rpd_xmalloc(1);
}

/* Everything written to the stream f so far, as a new NUL-terminated
 * string (caller frees); f is left at its start.  Aborts on a short read. */
FX char *fx_stream_text(FILE *f)
{
  long n;
  char *s;

  fflush(f);
  n = ftell(f);
  if (n < 0) abort();
  s = rpd_xmalloc((size_t)n + 1);
  rewind(f);
  if (fread(s, 1, (size_t)n, f) != (size_t)n) abort();
  s[n] = '\0';
  return s;
}

/* 1 if both files exist and have the same bytes. */
FX int fx_same_bytes(const char *a, const char *b)
{
  size_t la, lb;
  char *x = fx_slurp(a, &la), *y = fx_slurp(b, &lb);
  int same = x && y && la == lb && memcmp(x, y, la) == 0;

  free(x);
  free(y);
  return same;
}

FX void fx_copy(const char *src, const char *dst)
{
  size_t n;
  char *b = fx_slurp(src, &n);
  FILE *f = fopen(dst, "wb");

  if (!b || !f || fwrite(b, 1, n, f) != n) abort();
  fclose(f);
  free(b);
}

FX void fx_write(const char *path, const void *data, size_t n)
{
  FILE *f = fopen(path, "wb");

  if (!f || (n && fwrite(data, 1, n, f) != n)) abort();
  fclose(f);
}

/* gzip src into dst; keep only the first `keep` bytes of the result when
 * keep > 0 (a truncated download). */
FX void fx_gzip(const char *src, const char *dst, size_t keep)
{
  size_t n, gn;
  char *b = fx_slurp(src, &n), *tmp = rpd_xasprintf("%s.full", dst);
  gzFile g = gzopen(tmp, "wb6");

  if (!b || !g || gzwrite(g, b, (unsigned)n) != (int)n || gzclose(g) != Z_OK) abort();
  free(b);
  b = fx_slurp(tmp, &gn);
  fx_write(dst, b, keep && keep < gn ? keep : gn);
  unlink(tmp);
  free(tmp);
  free(b);
}

/* gunzip src into dst; 0 on success. */
FX int fx_gunzip(const char *src, const char *dst)
{
  gzFile g = gzopen(src, "rb");
  FILE *f = fopen(dst, "wb");
  char buf[65536];
  int n, rc = 0;

  if (!g || !f) abort();
  while ((n = gzread(g, buf, sizeof buf)) > 0) fwrite(buf, 1, (size_t)n, f);
  if (n < 0) rc = -1;
  if (gzclose(g) != Z_OK) rc = -1;
  fclose(f);
  return rc;
}

/* Number of entries in dir whose name starts with prefix. */
FX int fx_count(const char *dir, const char *prefix)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;

  if (!d) return -1;
  while ((e = readdir(d)))
    if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) n++;
  closedir(d);
  return n;
}

/* Number of directory entries other than . and .. */
FX int fx_entries(const char *dir)
{
  return fx_count(dir, "") - 2;
}

/* First column of the first row of sql on path, opened by plain SQLite
 * read-only; -1 on any failure. */
FX int64_t fx_q(const char *path, const char *sql)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int64_t v = -1;

  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

FX char *fx_path(const char *dir, const char *name)
{
  return rpd_xasprintf("%s/%s", dir, name);
}

/* The state of a test on one scratch trace: dir (a new scratch directory),
 * path = dir/t.rpd, r = the handle open on it (NULL when not opened). */
typedef struct fx_trace {
  char *dir, *path;
  rpd *r;
} fx_trace;

/* cmocka setup: a new fx_trace in *state; when ddl is not NULL, path is
 * created with it (fx_make_db) and opened with rpd_open(flags).  Returns 0,
 * or -1 when the trace cannot be made or opened. */
FX int fx_trace_setup(void **state, const char *ddl, int flags)
{
  fx_trace *f = rpd_xcalloc(1, sizeof *f);

  f->dir = fx_mkdtemp();
  f->path = fx_path(f->dir, "t.rpd");
  if (ddl) {
    if (fx_make_db(f->path, ddl) != 0) return -1;
    if (rpd_open(&f->r, f->path, NULL, flags) != RPD_OK) return -1;
  }
  *state = f;
  return 0;
}

/* cmocka teardown of fx_trace_setup: closes r (discarding), removes the
 * directory, frees everything. */
FX int fx_trace_teardown(void **state)
{
  fx_trace *f = *state;

  rpd_close(f->r, 0);
  fx_rm_tree(f->dir);
  free(f->dir);
  free(f->path);
  free(f);
  return 0;
}

/* How long a test waits for a child or a pipe before it gives up (s). */
#define FX_WAIT_LIMIT 60

/* Call first thing in main() of a test that signals its children.  A
 * shell that starts the test as a background job ignores SIGINT and
 * SIGQUIT (nohup: SIGHUP); children inherit that, and common/ rightly
 * leaves an ignored signal ignored, so a child sent SIGINT would live on
 * and the test would wait for it.  The tests rely on the default. */
FX void fx_default_signals(void)
{
  static const int sigs[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGALRM };

  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], SIG_DFL);
}

/* Call first thing in a forked child that waits to be killed: it dies by
 * SIGALRM after 2 x FX_WAIT_LIMIT seconds if the test never gets that far
 * (longer than any one wait of the parent, so a slow machine does not end
 * it while the test still needs it). */
FX void fx_child_bound(void)
{
  alarm(2 * FX_WAIT_LIMIT);
}

/* waitpid(pid, status, 0) with a bound: 0 once the child has ended
 * (*status set); -1 if it is still running after FX_WAIT_LIMIT seconds
 * (then it is killed with SIGKILL and reaped) or waitpid fails. */
FX int fx_wait(pid_t pid, int *status)
{
  int st = 0;

  for (int i = 0; i < FX_WAIT_LIMIT * 100; i++) {
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) {
      if (status) *status = st;
      return 0;
    }
    if (r < 0 && errno != EINTR) return -1;
    usleep(10000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &st, 0);
  return -1;
}

/* read(fd, buf, n) that waits at most FX_WAIT_LIMIT seconds for data:
 * read's result, or -1 when nothing came in time. */
FX ssize_t fx_read(int fd, void *buf, size_t n)
{
  struct pollfd p = { .fd = fd, .events = POLLIN };
  int r;

  do r = poll(&p, 1, FX_WAIT_LIMIT * 1000);
  while (r < 0 && errno == EINTR);
  if (r != 1) return -1;
  return read(fd, buf, n);
}

#endif
