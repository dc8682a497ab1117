/* test_open.c - rpd_open/rpd_close: every error class leaves the input
 * byte-identical and no temp file; gzip read, write-back, -o copies,
 * rollback on close(0), create, temp cleanup on signals, stale temps of a
 * killed writer reclaimed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>

#include "core_fixture.h"
#include "internal.h"   /* white-box: final_path, gz_out of the handle */

typedef struct {
  char *dir;      /* scratch dir for the test's files */
  char *tmp;      /* $TMPDIR during the test */
} fx;

static int setup(void **state)
{
  fx *f = rpd_xcalloc(1, sizeof *f);

  unsetenv("TMPDIR");
  f->dir = fx_mkdtemp();
  f->tmp = fx_path(f->dir, "tmpdir");
  mkdir(f->tmp, 0700);
  setenv("TMPDIR", f->tmp, 1);
  setenv("RPD_BUSY_TIMEOUT_MS", "100", 1);
  *state = f;
  return 0;
}

static int teardown(void **state)
{
  fx *f = *state;

  fx_rm_tree(f->dir);
  free(f->dir);
  free(f->tmp);
  free(f);
  unsetenv("TMPDIR");
  return 0;
}

/* Open must fail with rc and a message containing msg; the file stays
 * byte-identical and no temp file appears anywhere. */
static void expect_fail(fx *f, const char *path, const char *out, int flags, int rc,
                        const char *msg)
{
  char *before = fx_path(f->dir, "before.copy");
  struct stat st;
  int existed = stat(path, &st) == 0 && S_ISREG(st.st_mode);
  int n_tmp = fx_entries(f->tmp), n_dir = fx_entries(f->dir);
  rpd *r = (rpd *)1;

  if (existed) fx_copy(path, before);
  assert_int_equal(rpd_open(&r, path, out, flags), rc);
  assert_null(r);
  if (!strstr(rpd_errmsg(), msg)) fail_msg("message '%s' lacks '%s'", rpd_errmsg(), msg);
  if (existed) assert_true(fx_same_bytes(path, before));
  unlink(before);
  assert_int_equal(fx_entries(f->tmp), n_tmp);
  assert_int_equal(fx_entries(f->dir), n_dir);
  free(before);
}

static void test_v2_v3_detected(void **state)
{
  fx *f = *state;
  char *v2 = fx_path(f->dir, "v2.rpd"), *v3 = fx_path(f->dir, "v3.rpd"), *copy = fx_path(f->dir, "c");
  rpd *r;
  int64_t n = 0;

  assert_int_equal(fx_make_db(v2, fx_v2_ddl), 0);
  assert_int_equal(fx_make_db(v3, fx_v3_ddl), 0);
  fx_copy(v2, copy);
  assert_int_equal(rpd_open(&r, v2, NULL, RPD_READ), RPD_OK);
  assert_int_equal(rpd_schema(r), 2);
  assert_string_equal(rpd_args_table(r), "rocpd_string");
  assert_string_equal(rpd_path(r), v2);
  assert_string_equal(rpd_work_path(r), v2);
  assert_null(r->final_path);
  assert_int_equal(rpd_query_int64(r, "SELECT count(*) FROM rocpd_api", &n), RPD_OK);
  assert_int_equal(n, 2);
  assert_int_equal(rpd_close(r, 0), RPD_OK);
  assert_true(fx_same_bytes(v2, copy));

  assert_int_equal(rpd_open(&r, v3, NULL, RPD_READ), RPD_OK);
  assert_int_equal(rpd_schema(r), 3);
  assert_string_equal(rpd_args_table(r), "rocpd_ustring");
  assert_int_equal(rpd_query_int64(r, "SELECT count(*) FROM rocpd_api", &n), RPD_OK);
  assert_int_equal(n, 3);
  /* read-only really is read-only */
  assert_int_equal(rpd_exec(r, "DELETE FROM rocpd_api"), RPD_EROFS);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(fx_q(v3, "SELECT count(*) FROM rocpd_api"), 3);
  free(v2);
  free(v3);
  free(copy);
}

static void test_not_files(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "nope.rpd"), *d = fx_path(f->dir, "sub.rpd");

  expect_fail(f, p, NULL, RPD_READ, RPD_ENOENT, "no such file");
  expect_fail(f, p, NULL, RPD_WRITE, RPD_ENOENT, "no such file");
  expect_fail(f, "", NULL, RPD_READ, RPD_ENOENT, "no such file");
  mkdir(d, 0755);
  expect_fail(f, d, NULL, RPD_READ, RPD_ENOTDB, "directory");
  expect_fail(f, d, NULL, RPD_WRITE, RPD_ENOTDB, "directory");
  free(p);
  free(d);
}

static void test_not_sqlite(void **state)
{
  fx *f = *state;
  char *empty = fx_path(f->dir, "empty.rpd"), *text = fx_path(f->dir, "text.rpd"),
       *junk = fx_path(f->dir, "junk.rpd"), *short_ = fx_path(f->dir, "short.rpd");
  char hdr[4096];

  fx_write(empty, "", 0);
  fx_write(text, "id,name\n1,x\n", 12);
  memset(hdr, 0x5a, sizeof hdr);
  memcpy(hdr, "SQLite format 3", 16);            /* valid magic, garbage after */
  fx_write(junk, hdr, sizeof hdr);
  fx_write(short_, "SQLite", 6);
  for (int flags = RPD_READ; flags <= RPD_WRITE; flags++) {
    expect_fail(f, empty, NULL, flags, RPD_ENOTDB, "empty file, not an SQLite database");
    expect_fail(f, text, NULL, flags, RPD_ENOTDB, "not an SQLite database");
    expect_fail(f, short_, NULL, flags, RPD_ENOTDB, "not an SQLite database");
    expect_fail(f, junk, NULL, flags, RPD_ENOTDB, "");
  }
  /* -o must not create the output either */
  char *out = fx_path(f->dir, "out.rpd");
  expect_fail(f, text, out, RPD_WRITE, RPD_ENOTDB, "not an SQLite database");
  assert_int_equal(access(out, F_OK), -1);
  struct stat st;
  assert_int_equal(stat(empty, &st), 0);
  assert_int_equal(st.st_size, 0);
  free(empty);
  free(text);
  free(junk);
  free(short_);
  free(out);
}

/* rpd_looks_like_trace: the first bytes, as rpd_open reads them. */
static void test_looks_like_trace(void **state)
{
  fx *f = *state;
  char *empty = fx_path(f->dir, "e.txt"), *text = fx_path(f->dir, "t.txt"),
       *sq = fx_path(f->dir, "s.rpd"), *gz = fx_path(f->dir, "g.rpd.gz"),
       *none = fx_path(f->dir, "missing.txt");
  int t = -1;

  fx_write(empty, "", 0);
  fx_write(text, "idle pct <= 5\n", 14);
  fx_write(sq, "SQLite format 3", 16);
  fx_write(gz, "\x1f\x8b\x08", 3);
  assert_int_equal(rpd_looks_like_trace(empty, &t), RPD_OK);
  assert_int_equal(t, 0);
  assert_int_equal(rpd_looks_like_trace(text, &t), RPD_OK);
  assert_int_equal(t, 0);
  assert_int_equal(rpd_looks_like_trace(sq, &t), RPD_OK);
  assert_int_equal(t, 1);
  assert_int_equal(rpd_looks_like_trace(gz, &t), RPD_OK);
  assert_int_equal(t, 1);
  assert_int_not_equal(rpd_looks_like_trace(none, &t), RPD_OK);
  assert_int_equal(t, 0);
  assert_int_not_equal(rpd_looks_like_trace(f->dir, &t), RPD_OK);
  free(empty);
  free(text);
  free(sq);
  free(gz);
  free(none);
}

static void test_gzip_errors(void **state)
{
  fx *f = *state;
  char *v2 = fx_path(f->dir, "v2.rpd"), *gz = fx_path(f->dir, "t.rpd.gz"),
       *txt = fx_path(f->dir, "a.txt"), *tgz = fx_path(f->dir, "text.rpd.gz"),
       *out = fx_path(f->dir, "o.rpd");

  assert_int_equal(fx_make_db(v2, fx_v2_ddl), 0);
  fx_gzip(v2, gz, 300);                            /* truncated download */
  for (int flags = RPD_READ; flags <= RPD_WRITE; flags++)
    expect_fail(f, gz, NULL, flags, RPD_EGZIP, "truncated or corrupt gzip data");
  expect_fail(f, gz, out, RPD_WRITE, RPD_EGZIP, "truncated or corrupt gzip data");
  /* a flipped byte in the middle: CRC or inflate error */
  fx_gzip(v2, gz, 0);
  size_t n;
  char *b = fx_slurp(gz, &n);
  b[n / 2] ^= 0x55;
  fx_write(gz, b, n);
  free(b);
  expect_fail(f, gz, NULL, RPD_READ, RPD_EGZIP, "truncated or corrupt gzip data");
  /* gzip of a text file */
  fx_write(txt, "hello\n", 6);
  fx_gzip(txt, tgz, 0);
  expect_fail(f, tgz, NULL, RPD_READ, RPD_ENOTDB, "not an SQLite database");
  expect_fail(f, tgz, NULL, RPD_WRITE, RPD_ENOTDB, "not an SQLite database");
  free(v2);
  free(gz);
  free(txt);
  free(tgz);
  free(out);
}

static void test_not_rpd(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "other.db"), *q = fx_path(f->dir, "noop.db"),
       *w = fx_path(f->dir, "weird.db"), *u = fx_path(f->dir, "nou.db");
  rpd *r;

  assert_int_equal(fx_make_db(p, "CREATE TABLE t(x); INSERT INTO t VALUES (1);"), 0);
  expect_fail(f, p, NULL, RPD_READ, RPD_ENOTRPD, "not an RPD trace: missing table rocpd_api");
  expect_fail(f, p, NULL, RPD_WRITE, RPD_ENOTRPD, "not an RPD trace: missing table rocpd_api");
  assert_int_equal(fx_make_db(q, fx_v2_ddl), 0);
  assert_int_equal(fx_make_db(q, "DROP TABLE rocpd_op"), 0);
  expect_fail(f, q, NULL, RPD_READ, RPD_ENOTRPD, "not an RPD trace: missing table rocpd_op");
  assert_int_equal(fx_make_db(w, "CREATE TABLE rocpd_api(id, name); CREATE TABLE rocpd_op(id);"
                                 "CREATE TABLE rocpd_string(id, string);"
                                 "CREATE TABLE rocpd_api_ops(api_id, op_id);"), 0);
  expect_fail(f, w, NULL, RPD_READ, RPD_ENOTRPD, "not an RPD trace: rocpd_api has neither");
  assert_int_equal(fx_make_db(u, fx_v3_ddl), 0);
  assert_int_equal(fx_make_db(u, "DROP TABLE rocpd_ustring"), 0);
  expect_fail(f, u, NULL, RPD_READ, RPD_ENOTRPD, "rocpd_ustring");

  /* RPD_ANYDB opens anything SQLite */
  assert_int_equal(rpd_open(&r, p, NULL, RPD_READ | RPD_ANYDB), RPD_OK);
  assert_int_equal(rpd_schema(r), 0);
  assert_int_equal(rpd_close(r, 0), RPD_OK);
  assert_int_equal(rpd_open(&r, q, NULL, RPD_READ | RPD_ANYDB), RPD_OK);
  assert_int_equal(rpd_schema(r), 0);
  assert_int_equal(rpd_close(r, 0), RPD_OK);
  free(p);
  free(q);
  free(w);
  free(u);
}

static void test_rocprofv3(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "results.db"), *v = fx_path(f->dir, "views.db");
  rpd *r;
  int why = 0;

  assert_int_equal(fx_make_db(p,
      "CREATE TABLE rocpd_metadata_00003fdc_92cb(id, tag, value);"
      "INSERT INTO rocpd_metadata_00003fdc_92cb VALUES (1, 'schema_version', '3');"
      "CREATE VIEW rocpd_metadata AS SELECT * FROM rocpd_metadata_00003fdc_92cb;"
      "CREATE TABLE rocpd_string_00003fdc_92cb(id, guid, string);"
      "CREATE VIEW rocpd_string AS SELECT * FROM rocpd_string_00003fdc_92cb;"
      "CREATE TABLE rocpd_info_node_00003fdc_92cb(id, guid);"
      "CREATE TABLE rocpd_kernel_dispatch_00003fdc_92cb(id, guid, start, end);"), 0);
  expect_fail(f, p, NULL, RPD_READ, RPD_EROCPROF,
              "rocprofv3 database, not an RPD trace; convert it with: rpd-import ");
  if (!strstr(rpd_errmsg(), "results.db results.rpd"))
    fail_msg("no rpd-import command line in '%s'", rpd_errmsg());
  expect_fail(f, p, NULL, RPD_WRITE, RPD_EROCPROF, "rpd-import");
  /* only the views */
  assert_int_equal(fx_make_db(v, "CREATE TABLE x(a); CREATE VIEW kernels AS SELECT * FROM x;"
                                 "CREATE VIEW regions AS SELECT * FROM x;"), 0);
  expect_fail(f, v, NULL, RPD_READ, RPD_EROCPROF, "rocprofv3");
  /* the detector on its own */
  assert_int_equal(rpd_open(&r, p, NULL, RPD_READ | RPD_ANYDB), RPD_OK);
  assert_int_equal(rpd_schema(r), 0);
  assert_int_equal(rpd_detect_schema(rpd_db(r), &why), 0);
  assert_int_equal(why, RPD_EROCPROF);
  assert_int_equal(rpd_close(r, 0), RPD_OK);
  free(p);
  free(v);
}

static void test_readonly_for_write(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "ro.rpd"), *sub = fx_path(f->dir, "rodir"),
       *q = fx_path(f->dir, "rodir/t.rpd"), *out = fx_path(f->dir, "rodir/out.rpd"),
       *gz = fx_path(f->dir, "ro.rpd.gz"), *outro = fx_path(f->dir, "outro.rpd");
  rpd *r;

  assert_int_equal(fx_make_db(p, fx_v2_ddl), 0);
  fx_gzip(p, gz, 0);
  chmod(p, 0444);
  chmod(gz, 0444);
  expect_fail(f, p, NULL, RPD_WRITE, RPD_EROFS, "read-only file");
  expect_fail(f, gz, NULL, RPD_WRITE, RPD_EROFS, "read-only file");
  expect_fail(f, p, p, RPD_WRITE, RPD_EROFS, "read-only file");   /* -o same file */
  /* reading a read-only file is fine */
  assert_int_equal(rpd_open(&r, p, NULL, RPD_READ), RPD_OK);
  assert_int_equal(rpd_close(r, 0), RPD_OK);

  mkdir(sub, 0755);
  assert_int_equal(fx_make_db(q, fx_v2_ddl), 0);
  chmod(sub, 0555);
  expect_fail(f, q, NULL, RPD_WRITE, RPD_EROFS, "directory is read-only");
  /* -o into a read-only directory; the read-only input itself is fine */
  expect_fail(f, p, out, RPD_WRITE, RPD_EROFS, "output directory is read-only");
  assert_int_equal(fx_entries(sub), 1);
  /* -o over an existing read-only file */
  fx_write(outro, "x", 1);
  chmod(outro, 0444);
  expect_fail(f, p, outro, RPD_WRITE, RPD_EROFS, "output file is read-only");
  chmod(sub, 0755);
  free(p);
  free(sub);
  free(q);
  free(out);
  free(gz);
  free(outro);
}

static void test_locked(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "locked.rpd");
  sqlite3 *other = NULL;
  rpd *r;

  assert_int_equal(fx_make_db(p, fx_v2_ddl), 0);
  assert_int_equal(sqlite3_open(p, &other), SQLITE_OK);
  assert_int_equal(sqlite3_exec(other, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
  expect_fail(f, p, NULL, RPD_READ, RPD_EBUSY, "database is locked");
  expect_fail(f, p, NULL, RPD_WRITE, RPD_EBUSY, "database is locked");
  assert_int_equal(sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);

  /* a writer holding RESERVED: readers are fine, a writer fails at open */
  assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE; INSERT INTO rocpd_metadata(tag, value)"
                                       " VALUES ('x', 'y')", NULL, NULL, NULL), SQLITE_OK);
  assert_int_equal(rpd_open(&r, p, NULL, RPD_READ), RPD_OK);
  assert_int_equal(rpd_close(r, 0), RPD_OK);
  expect_fail(f, p, NULL, RPD_WRITE, RPD_EBUSY, "database is locked");
  assert_int_equal(sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(other);

  /* released: works again */
  assert_int_equal(rpd_open(&r, p, NULL, RPD_WRITE), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  free(p);
}

static void test_gz_read_no_temp(void **state)
{
  fx *f = *state;
  char *v3 = fx_path(f->dir, "v3.rpd"), *gz = fx_path(f->dir, "v3.rpd.gz"),
       *copy = fx_path(f->dir, "copy.gz"), *hidden = fx_path(f->dir, "plain-named.rpd");
  rpd *r;
  int64_t n = 0;

  assert_int_equal(fx_make_db(v3, fx_v3_ddl), 0);
  fx_gzip(v3, gz, 0);
  fx_copy(gz, copy);
  assert_int_equal(rpd_open(&r, gz, NULL, RPD_READ), RPD_OK);
  assert_int_equal(rpd_schema(r), 3);
  /* the private copy is already unlinked while in use */
  assert_int_equal(fx_entries(f->tmp), 0);
  assert_int_equal(rpd_query_int64(r, "SELECT sum(end - start) FROM rocpd_api", &n), RPD_OK);
  assert_int_equal(n, 1000 + 500 + 100);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(fx_entries(f->tmp), 0);
  assert_true(fx_same_bytes(gz, copy));
  /* detected by magic, not by name */
  fx_copy(gz, hidden);
  assert_int_equal(rpd_open(&r, hidden, NULL, RPD_READ), RPD_OK);
  assert_int_equal(rpd_schema(r), 3);
  assert_int_equal(rpd_close(r, 0), RPD_OK);
  assert_int_equal(fx_entries(f->tmp), 0);
  free(v3);
  free(gz);
  free(copy);
  free(hidden);
}

static void test_gz_write_back(void **state)
{
  fx *f = *state;
  char *v2 = fx_path(f->dir, "v2.rpd"), *gz = fx_path(f->dir, "w.rpd.gz"),
       *orig = fx_path(f->dir, "orig.gz"), *plain = fx_path(f->dir, "check.rpd");
  rpd *r;
  struct stat st;
  int n_dir;

  assert_int_equal(fx_make_db(v2, fx_v2_ddl), 0);
  fx_gzip(v2, gz, 0);
  chmod(gz, 0640);
  fx_copy(gz, orig);
  n_dir = fx_entries(f->dir);

  /* discarded: identical, nothing left over */
  assert_int_equal(rpd_open(&r, gz, NULL, RPD_WRITE), RPD_OK);
  assert_non_null(r->final_path);
  assert_int_equal(r->gz_out, 1);
  assert_int_equal(rpd_begin(r), RPD_OK);
  assert_int_equal(rpd_exec(r, "DELETE FROM rocpd_api"), RPD_OK);
  assert_int_equal(rpd_commit(r), RPD_OK);
  assert_int_equal(rpd_close(r, 0), RPD_OK);
  assert_true(fx_same_bytes(gz, orig));
  assert_int_equal(fx_entries(f->dir), n_dir);

  /* committed: recompressed in place, mode kept */
  assert_int_equal(rpd_open(&r, gz, NULL, RPD_WRITE), RPD_OK);
  assert_int_equal(rpd_begin(r), RPD_OK);
  assert_int_equal(rpd_exec(r, "INSERT INTO rocpd_metadata(tag, value) VALUES ('t', 'v')"), RPD_OK);
  assert_int_equal(rpd_commit(r), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(fx_entries(f->dir), n_dir);
  assert_int_equal(stat(gz, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0640);
  assert_int_equal(fx_gunzip(gz, plain), 0);
  assert_int_equal(fx_q(plain, "SELECT count(*) FROM rocpd_metadata WHERE tag = 't'"), 1);
  assert_int_equal(fx_q(plain, "SELECT count(*) FROM rocpd_api"), 2);
  assert_int_equal(fx_q(plain, "SELECT count(*) FROM rocpd_op"), 2);
  assert_int_equal(fx_entries(f->tmp), 0);
  free(v2);
  free(gz);
  free(orig);
  free(plain);
}

static void test_out_copy(void **state)
{
  fx *f = *state;
  char *v2 = fx_path(f->dir, "in.rpd"), *orig = fx_path(f->dir, "orig.rpd"),
       *out = fx_path(f->dir, "out.rpd"), *outgz = fx_path(f->dir, "out.rpd.gz"),
       *plain = fx_path(f->dir, "check.rpd"), *gz = fx_path(f->dir, "in.rpd.gz"),
       *out2 = fx_path(f->dir, "out2.rpd");
  rpd *r;
  struct stat st;

  assert_int_equal(fx_make_db(v2, fx_v2_ddl), 0);
  chmod(v2, 0444);                      /* -o never needs a writable input */
  fx_copy(v2, orig);

  assert_int_equal(rpd_open(&r, v2, out, RPD_WRITE), RPD_OK);
  assert_string_equal(r->final_path, out);
  assert_int_equal(r->gz_out, 0);
  assert_int_equal(rpd_begin(r), RPD_OK);
  assert_int_equal(rpd_meta_set(r, "copy", "yes"), RPD_OK);
  assert_int_equal(rpd_commit(r), RPD_OK);
  /* nothing at OUT until close */
  assert_int_equal(access(out, F_OK), -1);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_true(fx_same_bytes(v2, orig));
  assert_int_equal(fx_q(out, "SELECT count(*) FROM rocpd_metadata WHERE tag = 'copy'"), 1);
  assert_int_equal(fx_q(out, "SELECT count(*) FROM rocpd_api"), 2);
  assert_int_equal(stat(out, &st), 0);
  assert_true(st.st_mode & S_IWUSR);    /* the copy is writable */

  /* compressed output; no journal or temp left next to it */
  assert_int_equal(rpd_open(&r, v2, outgz, RPD_WRITE), RPD_OK);
  assert_int_equal(r->gz_out, 1);
  assert_int_equal(rpd_begin(r), RPD_OK);
  assert_int_equal(rpd_meta_set(r, "copy", "gz"), RPD_OK);
  assert_int_equal(rpd_commit(r), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(fx_gunzip(outgz, plain), 0);
  assert_int_equal(fx_q(plain, "SELECT count(*) FROM rocpd_metadata WHERE tag = 'copy'"), 1);
  assert_int_equal(fx_count(f->dir, "rpdtools-"), 0);

  /* .gz input, plain output */
  fx_gzip(orig, gz, 0);
  assert_int_equal(rpd_open(&r, gz, out2, RPD_WRITE), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_true(fx_same_bytes(out2, orig));

  /* discarded: OUT does not appear */
  unlink(out2);
  assert_int_equal(rpd_open(&r, v2, out2, RPD_WRITE), RPD_OK);
  assert_int_equal(rpd_close(r, 0), RPD_OK);
  assert_int_equal(access(out2, F_OK), -1);
  assert_int_equal(fx_count(f->dir, "rpdtools-"), 0);
  free(v2);
  free(orig);
  free(out);
  free(outgz);
  free(plain);
  free(gz);
  free(out2);
}

static void test_rollback_on_close(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "inplace.rpd"), *orig = fx_path(f->dir, "orig.rpd"),
       *journal = fx_path(f->dir, "inplace.rpd-journal");
  rpd *r;

  assert_int_equal(fx_make_db(p, fx_v2_ddl), 0);
  fx_copy(p, orig);
  assert_int_equal(rpd_open(&r, p, NULL, RPD_WRITE), RPD_OK);
  assert_string_equal(rpd_work_path(r), p);
  assert_int_equal(rpd_begin(r), RPD_OK);
  assert_int_equal(rpd_exec(r, "DELETE FROM rocpd_api; DROP TABLE rocpd_op"), RPD_OK);
  assert_int_equal(rpd_close(r, 0), RPD_OK);
  assert_true(fx_same_bytes(p, orig));
  assert_int_equal(access(journal, F_OK), -1);

  /* -o p (the same file) is in place */
  assert_int_equal(rpd_open(&r, p, p, RPD_WRITE), RPD_OK);
  assert_null(r->final_path);
  assert_int_equal(rpd_begin(r), RPD_OK);
  assert_int_equal(rpd_exec(r, "DELETE FROM rocpd_api WHERE id = 2"), RPD_OK);
  /* close(1) with an open transaction commits it */
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(fx_q(p, "SELECT count(*) FROM rocpd_api"), 1);
  free(p);
  free(orig);
  free(journal);
}

static void test_create(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "new.rpd"), *e = fx_path(f->dir, "existing.rpd"),
       *z = fx_path(f->dir, "zero.rpd");
  rpd *r;

  assert_int_equal(rpd_open(&r, p, NULL, RPD_WRITE | RPD_CREATE), RPD_OK);
  assert_int_equal(rpd_schema(r), 3);
  assert_int_equal(access(p, F_OK), -1);          /* appears on commit */
  assert_int_equal(rpd_exec(r, fx_v3_ddl), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(fx_q(p, "SELECT count(*) FROM rocpd_api"), 3);
  assert_int_equal(fx_count(f->dir, "rpdtools-"), 0);

  fx_write(e, "data", 4);
  expect_fail(f, e, NULL, RPD_WRITE | RPD_CREATE, RPD_EEXIST, "exists");
  fx_write(z, "", 0);
  assert_int_equal(rpd_open(&r, z, NULL, RPD_WRITE | RPD_CREATE), RPD_OK);
  assert_int_equal(rpd_exec(r, "CREATE TABLE t(x)"), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(fx_q(z, "SELECT count(*) FROM t"), 0);
  /* discarded create leaves nothing */
  unlink(p);
  assert_int_equal(rpd_open(&r, p, NULL, RPD_WRITE | RPD_CREATE), RPD_OK);
  assert_int_equal(rpd_close(r, 0), RPD_OK);
  assert_int_equal(access(p, F_OK), -1);
  assert_int_equal(fx_count(f->dir, "rpdtools-"), 0);
  free(p);
  free(e);
  free(z);
}

/* A child opens (mode) and then dies by sig; returns the number of files
 * left in dir and TMPDIR beyond what was there. */
static int die_while_open(fx *f, const char *path, int flags, int sig)
{
  int before = fx_entries(f->dir) + fx_entries(f->tmp), fds[2];
  pid_t pid;
  char c;

  assert_int_equal(pipe(fds), 0);
  pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    fx_child_bound();
    rpd *r;
    close(fds[0]);
    if (rpd_open(&r, path, NULL, flags)) _exit(3);
    if (flags & RPD_WRITE) {
      rpd_begin(r);
      rpd_exec(r, "DELETE FROM rocpd_api_ops");
    }
    if (write(fds[1], "x", 1) != 1) _exit(4);
    for (;;) pause();
  }
  close(fds[1]);
  assert_int_equal(fx_read(fds[0], &c, 1), 1);
  close(fds[0]);
  kill(pid, sig);
  int status;
  assert_int_equal(fx_wait(pid, &status), 0);
  assert_true(WIFSIGNALED(status));
  assert_int_equal(WTERMSIG(status), sig);
  return fx_entries(f->dir) + fx_entries(f->tmp) - before;
}

static void test_signals_remove_temps(void **state)
{
  fx *f = *state;
  char *v2 = fx_path(f->dir, "v2.rpd"), *gz = fx_path(f->dir, "s.rpd.gz"),
       *orig = fx_path(f->dir, "orig.gz"), *plain = fx_path(f->dir, "p.rpd"),
       *porig = fx_path(f->dir, "porig.rpd");

  assert_int_equal(fx_make_db(v2, fx_v2_ddl), 0);
  fx_gzip(v2, gz, 0);
  fx_copy(gz, orig);
  fx_copy(v2, plain);
  fx_copy(v2, porig);
  assert_int_equal(die_while_open(f, gz, RPD_READ, SIGKILL), 0);
  assert_int_equal(die_while_open(f, gz, RPD_READ, SIGTERM), 0);
  assert_int_equal(die_while_open(f, gz, RPD_WRITE, SIGTERM), 0);
  assert_int_equal(die_while_open(f, gz, RPD_WRITE, SIGINT), 0);
  assert_int_equal(die_while_open(f, gz, RPD_WRITE, SIGHUP), 0);
  assert_true(fx_same_bytes(gz, orig));
  /* in place, killed mid-transaction: the journal restores the file */
  die_while_open(f, plain, RPD_WRITE, SIGKILL);
  assert_int_equal(fx_q(plain, "SELECT count(*) FROM rocpd_api_ops"), 2);
  free(v2);
  free(gz);
  free(orig);
  free(plain);
  free(porig);
}

static void test_cleanup_temps_direct(void **state)
{
  fx *f = *state;
  char *v2 = fx_path(f->dir, "v2.rpd"), *gz = fx_path(f->dir, "c.rpd.gz"), *plain;
  rpd *r;

  assert_int_equal(fx_make_db(v2, fx_v2_ddl), 0);
  fx_gzip(v2, gz, 0);
  assert_int_equal(rpd_open(&r, gz, NULL, RPD_WRITE), RPD_OK);
  plain = rpd_xstrdup(rpd_work_path(r));
  assert_int_equal(access(plain, F_OK), 0);
  /* a forked child that exits does not take the parent's temp files */
  pid_t pid = fork();
  if (pid == 0) {
    fx_child_bound();
    rpd_cleanup_temps();
    exit(0);
  }
  assert_true(pid > 0);
  assert_int_equal(fx_wait(pid, NULL), 0);
  assert_int_equal(access(plain, F_OK), 0);
  rpd_cleanup_temps();
  assert_int_equal(access(plain, F_OK), -1);
  assert_int_equal(rpd_close(r, 0), RPD_OK);
  free(v2);
  free(gz);
  free(plain);
}

static void test_symlinks_and_missing_dirs(void **state)
{
  fx *f = *state;
  char *v2 = fx_path(f->dir, "v2.rpd"), *gz = fx_path(f->dir, "real.rpd.gz"),
       *link = fx_path(f->dir, "link.rpd.gz"), *plain = fx_path(f->dir, "p.rpd"),
       *nodir = fx_path(f->dir, "nodir/out.rpd");
  rpd *r;
  struct stat st;

  assert_int_equal(fx_make_db(v2, fx_v2_ddl), 0);
  fx_gzip(v2, gz, 0);
  assert_int_equal(symlink("real.rpd.gz", link), 0);
  assert_int_equal(rpd_open(&r, link, NULL, RPD_WRITE), RPD_OK);
  assert_int_equal(rpd_begin(r), RPD_OK);
  assert_int_equal(rpd_meta_set(r, "via", "link"), RPD_OK);
  assert_int_equal(rpd_commit(r), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  /* the link is still a link; its target was rewritten */
  assert_int_equal(lstat(link, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  assert_int_equal(fx_gunzip(gz, plain), 0);
  assert_int_equal(fx_q(plain, "SELECT count(*) FROM rocpd_metadata WHERE tag = 'via'"), 1);
  assert_int_equal(fx_count(f->dir, "rpdtools-"), 0);
  /* -o into a directory that does not exist */
  expect_fail(f, v2, nodir, RPD_WRITE, RPD_ENOENT, "output directory does not exist");
  free(v2);
  free(gz);
  free(link);
  free(plain);
  free(nodir);
}

/* -o of a WAL-mode file includes what is still only in the -wal file */
static void test_out_copy_wal(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "wal.rpd"), *out = fx_path(f->dir, "out.rpd");
  sqlite3 *db = NULL;
  rpd *r;

  assert_int_equal(fx_make_db(p, fx_v2_ddl), 0);
  assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
  assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;"
                                    "INSERT INTO rocpd_api SELECT id + 10, pid, tid, start, end,"
                                    " apiName_id, args_id FROM rocpd_api", NULL, NULL, NULL),
                   SQLITE_OK);
  assert_int_equal(rpd_open(&r, p, out, RPD_WRITE), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  sqlite3_close(db);
  assert_int_equal(fx_q(out, "SELECT count(*) FROM rocpd_api"), 4);
  free(p);
  free(out);
}

/* Leave a hot journal on path: a child spills an uncommitted transaction
 * into the file and exits without closing (like kill -9 mid-commit). */
static void make_hot_journal(const char *path)
{
  pid_t pid = fork();

  if (pid == 0) {
    fx_child_bound();
    sqlite3 *db = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK ||
        sqlite3_exec(db, "PRAGMA cache_size=2; BEGIN; CREATE TABLE filler(x);"
                         "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c "
                         "WHERE i < 3000) INSERT INTO filler SELECT randomblob(500) FROM c;"
                         "DELETE FROM rocpd_api;", NULL, NULL, NULL) != SQLITE_OK)
      _exit(3);
    _exit(0);            /* no COMMIT, no close: the journal stays hot */
  }
  int status;
  assert_true(pid > 0);
  assert_int_equal(fx_wait(pid, &status), 0);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_hot_journal(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "hot.rpd"), *j = fx_path(f->dir, "hot.rpd-journal"),
       *out = fx_path(f->dir, "out.rpd"), *orig = fx_path(f->dir, "orig.rpd"),
       *hp = fx_path(f->dir, "ro/hot.rpd"), *hj = fx_path(f->dir, "ro/hot.rpd-journal"),
       *ro = fx_path(f->dir, "ro");
  struct stat st;
  rpd *r;
  int64_t n = 0;

  assert_int_equal(fx_make_db(p, fx_v2_ddl), 0);
  fx_copy(p, orig);
  make_hot_journal(p);
  assert_int_equal(stat(j, &st), 0);
  assert_true(st.st_size > 0);
  assert_false(fx_same_bytes(p, orig));
  /* read-only open: the journal is rolled back first, data as before */
  assert_int_equal(rpd_open(&r, p, NULL, RPD_READ), RPD_OK);
  assert_int_equal(rpd_query_int64(r, "SELECT count(*) FROM rocpd_api", &n), RPD_OK);
  assert_int_equal(n, 2);
  assert_int_equal(rpd_table_exists(r, "filler"), 0);
  assert_int_equal(rpd_close(r, 0), RPD_OK);
  assert_true(stat(j, &st) != 0 || st.st_size == 0);
  /* the read for -o OUT too */
  make_hot_journal(p);
  assert_int_equal(rpd_open(&r, p, out, RPD_WRITE), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(fx_q(out, "SELECT count(*) FROM rocpd_api"), 2);
  /* a read-only file: one clear message, nothing touched */
  mkdir(ro, 0755);
  assert_int_equal(fx_make_db(hp, fx_v2_ddl), 0);
  make_hot_journal(hp);
  chmod(hp, 0444);
  fx_copy(hp, orig);
  assert_int_equal(rpd_open(&r, hp, NULL, RPD_READ), RPD_EROFS);
  assert_null(r);
  assert_non_null(strstr(rpd_errmsg(), "unfinished transaction left in"));
  assert_non_null(strstr(rpd_errmsg(), "hot.rpd-journal' by a killed writer"));
  assert_true(fx_same_bytes(hp, orig));
  assert_int_equal(stat(hj, &st), 0);
  assert_true(st.st_size > 0);
  chmod(hp, 0644);
  free(p); free(j); free(out); free(orig); free(hp); free(hj); free(ro);
}

static void test_out_checks(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "in.rpd"), *lnk = fx_path(f->dir, "lnk.rpd"),
       *fifo = fx_path(f->dir, "fifo"), *orig = fx_path(f->dir, "orig");
  rpd *r;

  assert_int_equal(fx_make_db(p, fx_v2_ddl), 0);
  fx_copy(p, orig);
  assert_int_equal(mkfifo(fifo, 0644), 0);
  expect_fail(f, p, "/dev/null", RPD_WRITE, RPD_EEXIST, "not a regular file");
  expect_fail(f, p, fifo, RPD_WRITE, RPD_EEXIST, "not a regular file");
  assert_true(fx_same_bytes(p, orig));
  /* OUT is the input through a symlink: in place */
  assert_int_equal(symlink("in.rpd", lnk), 0);
  assert_int_equal(rpd_open(&r, p, lnk, RPD_WRITE), RPD_OK);
  assert_null(r->final_path);
  assert_int_equal(rpd_exec(r, "DELETE FROM rocpd_api_ops"), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(fx_q(p, "SELECT count(*) FROM rocpd_api_ops"), 0);
  free(p); free(lnk); free(fifo); free(orig);
}


/* Can another process take SQLite's write lock on path right now? */
static int sqlite_writable_elsewhere(const char *path)
{
  int status;
  pid_t pid = fork();

  if (pid == 0) {
    fx_child_bound();
    sqlite3 *db = NULL;
    int s = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
    if (s == SQLITE_OK) s = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    _exit(s == SQLITE_OK ? 0 : s == SQLITE_BUSY ? 1 : 2);
  }
  assert_int_equal(fx_wait(pid, &status), 0);
  assert_true(WIFEXITED(status));
  assert_int_not_equal(WEXITSTATUS(status), 2);
  return WEXITSTATUS(status) == 0;
}

/* A writer of a .gz killed with kill -9 leaves its decompressed copy; the
 * next rpd_open of the file (reader or writer) removes it.  A live
 * writer's copy is never touched, and the flock on it does not disturb
 * SQLite's own locks. */
static void test_stale_temps_reclaimed(void **state)
{
  fx *f = *state;
  char *v2 = fx_path(f->dir, "v2.rpd"), *gz = fx_path(f->dir, "k.rpd.gz"),
       *orig = fx_path(f->dir, "orig.gz"), *tmp, *journal, buf[4096];
  int fds[2], status, fd;
  ssize_t n;
  rpd *r = NULL, *r2 = NULL;

  assert_int_equal(fx_make_db(v2, fx_v2_ddl), 0);
  fx_gzip(v2, gz, 0);
  fx_copy(gz, orig);
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    fx_child_bound();
    close(fds[0]);
    if (rpd_open(&r, gz, NULL, RPD_WRITE)) _exit(3);
    if (rpd_exec(r, "BEGIN IMMEDIATE; DELETE FROM rocpd_api_ops")) _exit(4);
    n = (ssize_t)strlen(rpd_work_path(r));
    if (write(fds[1], rpd_work_path(r), (size_t)n) != n) _exit(5);
    close(fds[1]);
    for (;;) pause();
  }
  close(fds[1]);
  n = fx_read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  assert_true(n > 0);
  buf[n] = 0;
  tmp = rpd_xstrdup(buf);
  journal = rpd_xasprintf("%s-journal", tmp);
  assert_int_equal(fx_count(f->dir, ".k.rpd.gz.rpdtools-"), 1);
  /* live: flock-locked, SQLite's write lock still works, readers and
   * other writers of the file leave the copy alone */
  fd = open(tmp, O_RDONLY);
  assert_true(fd >= 0);
  assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), -1);
  close(fd);
  assert_false(sqlite_writable_elsewhere(tmp));
  assert_int_equal(rpd_open(&r, gz, NULL, RPD_READ), RPD_OK);
  assert_int_equal(fx_q(rpd_work_path(r), "SELECT count(*) FROM rocpd_api_ops"), -1); /* unlinked */
  rpd_close(r, 0);
  /* a second writer of the .gz waits for the first (flock on the .gz),
   * then fails with "locked" after the busy timeout */
  assert_int_equal(rpd_open(&r, gz, NULL, RPD_WRITE), RPD_EBUSY);
  assert_non_null(strstr(rpd_errmsg(), "locked"));
  assert_int_equal(access(tmp, F_OK), 0);
  assert_false(sqlite_writable_elsewhere(tmp));
  /* kill -9: the copy stays behind (add the journal a killed VACUUM INTO
   * or a journaled temp could leave) */
  kill(pid, SIGKILL);
  assert_int_equal(fx_wait(pid, &status), 0);
  assert_true(WIFSIGNALED(status));
  assert_int_equal(access(tmp, F_OK), 0);
  fx_write(journal, "j", 1);
  /* the next reader removes both, silently; the .gz is untouched */
  assert_int_equal(rpd_open(&r, gz, NULL, RPD_READ), RPD_OK);
  assert_int_equal(access(tmp, F_OK), -1);
  assert_int_equal(access(journal, F_OK), -1);
  assert_int_equal(strcmp(rpd_errmsg(), ""), 0);
  rpd_close(r, 0);
  assert_true(fx_same_bytes(gz, orig));
  assert_int_equal(fx_entries(f->dir), 4);          /* v2, k.rpd.gz, orig, tmpdir */

  /* our own live copy survives a second open in the same process, and
   * that open does not drop the SQLite locks on it */
  assert_int_equal(rpd_open(&r, gz, NULL, RPD_WRITE), RPD_OK);
  assert_int_equal(rpd_exec(r, "BEGIN IMMEDIATE; DELETE FROM rocpd_api_ops"), RPD_OK);
  assert_false(sqlite_writable_elsewhere(rpd_work_path(r)));
  assert_int_equal(rpd_open(&r2, gz, NULL, RPD_READ), RPD_OK);
  rpd_close(r2, 0);
  assert_int_equal(access(rpd_work_path(r), F_OK), 0);
  assert_false(sqlite_writable_elsewhere(rpd_work_path(r)));
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(fx_entries(f->dir), 4);
  assert_false(fx_same_bytes(gz, orig));            /* the commit landed */
  free(v2); free(gz); free(orig); free(tmp); free(journal);
}

/* ------------------------------------------------------------ untrusted files */

/* fx_v2_ddl plus sql, in path. */
static void make_v2(const char *path, const char *sql)
{
  assert_int_equal(fx_make_db(path, fx_v2_ddl), 0);
  assert_int_equal(fx_make_db(path, sql), 0);
}

/* An FTS5 and an R-tree table keep prepared statements of their own on the
 * connection: rpd_close must leave them to SQLite (finalizing every
 * statement of the connection freed those twice: abort or worse). */
static void test_close_with_virtual_tables(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "fts.rpd");
  sqlite3_stmt *st = NULL;
  rpd *r;

  make_v2(p, "CREATE VIRTUAL TABLE notes USING fts5(body);"
             "INSERT INTO notes VALUES ('hello kernel'), ('other');"
             "CREATE VIRTUAL TABLE boxes USING rtree(id, x0, x1);"
             "INSERT INTO boxes VALUES (1, 0, 10), (2, 5, 20);");
  for (int flags = RPD_READ; flags <= RPD_WRITE; flags++) {
    assert_int_equal(rpd_open(&r, p, NULL, flags), RPD_OK);
    assert_int_equal(rpd_prepare(r, "SELECT (SELECT count(*) FROM notes WHERE notes MATCH"
                                    " 'hello'), (SELECT count(*) FROM boxes WHERE x1 > 12)",
                                 &st), RPD_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 1);
    assert_int_equal(sqlite3_column_int(st, 1), 1);
    sqlite3_finalize(st);
    if (flags == RPD_WRITE) {
      assert_int_equal(rpd_exec(r, "BEGIN; INSERT INTO notes VALUES ('hello again');"
                                   "INSERT INTO boxes VALUES (3, 1, 30)"), RPD_OK);
    } else {
      /* a statement left running at close is stopped, not freed twice */
      assert_int_equal(rpd_prepare(r, "SELECT rowid FROM notes WHERE notes MATCH 'hello'", &st),
                       RPD_OK);
      assert_int_equal(sqlite3_step(st), SQLITE_ROW);
      sqlite3_finalize(st);
    }
    assert_int_equal(rpd_close(r, 1), RPD_OK);
  }
  assert_int_equal(fx_q(p, "SELECT count(*) FROM notes WHERE notes MATCH 'hello'"), 2);
  assert_int_equal(fx_q(p, "SELECT count(*) FROM boxes"), 3);
  free(p);
}

/* Triggers of the file never fire on our writes; the connection is
 * defensive and does not trust the schema. */
static void test_planted_triggers(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "trig.rpd");
  rpd *r;
  int v = -1;

  make_v2(p, "CREATE TRIGGER evil AFTER INSERT ON rocpd_metadata BEGIN"
             " DELETE FROM rocpd_op; DELETE FROM rocpd_api; END;"
             "CREATE TRIGGER times10 AFTER UPDATE ON rocpd_op BEGIN"
             " UPDATE rocpd_op SET \"end\" = start + (\"end\" - start) * 10 WHERE id = new.id; END;"
             "CREATE TABLE victim(x); INSERT INTO victim VALUES (1);"
             "CREATE TRIGGER wipe BEFORE DELETE ON rocpd_api_ops BEGIN DELETE FROM victim; END;");
  int64_t api = fx_q(p, "SELECT count(*) FROM rocpd_api"), ops = fx_q(p, "SELECT count(*) FROM rocpd_op");
  int64_t dur = fx_q(p, "SELECT sum(\"end\" - start) FROM rocpd_op");
  assert_true(api > 0 && ops > 0);
  assert_int_equal(rpd_open(&r, p, NULL, RPD_WRITE), RPD_OK);
  assert_int_equal(sqlite3_db_config(rpd_db(r), SQLITE_DBCONFIG_ENABLE_TRIGGER, -1, &v), SQLITE_OK);
  assert_int_equal(v, 0);
  assert_int_equal(sqlite3_db_config(rpd_db(r), SQLITE_DBCONFIG_TRUSTED_SCHEMA, -1, &v), SQLITE_OK);
  assert_int_equal(v, 0);
  assert_int_equal(sqlite3_db_config(rpd_db(r), SQLITE_DBCONFIG_DEFENSIVE, -1, &v), SQLITE_OK);
  assert_int_equal(v, 1);
  assert_int_equal(rpd_exec(r, "BEGIN; INSERT INTO rocpd_metadata(tag, value) VALUES ('a', 'b');"
                               "UPDATE rocpd_op SET \"end\" = \"end\" + 1;"
                               "DELETE FROM rocpd_api_ops WHERE api_id = 999"), RPD_OK);
  /* defensive: the schema cannot be edited behind SQLite's back */
  assert_int_not_equal(rpd_exec(r, "PRAGMA writable_schema = ON; UPDATE sqlite_master SET"
                                   " sql = 'x' WHERE name = 'victim'"), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(fx_q(p, "SELECT count(*) FROM rocpd_api"), api);
  assert_int_equal(fx_q(p, "SELECT count(*) FROM rocpd_op"), ops);
  assert_int_equal(fx_q(p, "SELECT sum(\"end\" - start) FROM rocpd_op"), dur + ops);
  assert_int_equal(fx_q(p, "SELECT count(*) FROM victim"), 1);
  assert_int_equal(fx_q(p, "SELECT count(*) FROM rocpd_metadata WHERE tag = 'a'"), 1);
  free(p);
}

/* A rocpd_ table that is a view (here an endless recursive one), a virtual
 * table or has a generated column is refused at open, before any query of
 * the tool runs into it; the message names the object. */
static void test_core_views_refused(void **state)
{
  fx *f = *state;
  static const struct { const char *sql, *msg; } cases[] = {
    { "ALTER TABLE rocpd_op RENAME TO op_data;"
      "CREATE VIEW rocpd_op AS SELECT * FROM op_data", "rocpd_op is a view" },
    { "DROP TABLE rocpd_api_ops; CREATE VIEW rocpd_api_ops AS WITH RECURSIVE n(i) AS"
      " (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i AS id, i AS api_id, i AS op_id FROM n",
      "rocpd_api_ops is a view" },
    { "DROP TABLE rocpd_string; CREATE VIRTUAL TABLE rocpd_string USING fts5(id, string)",
      "rocpd_string is a virtual table" },
    { "CREATE TABLE rocpd_monitor(id INTEGER PRIMARY KEY, v INTEGER,"
      " w AS (length(printf('%.*c', 100000000, 'x'))))", "rocpd_monitor.w is a generated column" },
  };
  char *p = fx_path(f->dir, "view.rpd");

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    unlink(p);
    make_v2(p, cases[i].sql);
    for (int flags = RPD_READ; flags <= RPD_WRITE; flags++)
      expect_fail(f, p, NULL, flags, RPD_ENOTRPD, cases[i].msg);
  }
  free(p);
}

/* 200 strings, then ANALYZE: true statistics are fine; planted ones that
 * make the planner scan a big table once per row are refused. */
static void test_planted_stat1(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "stat.rpd");
  rpd *r;

  make_v2(p, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)"
             " INSERT INTO rocpd_string(string) SELECT 'k' || i FROM n; ANALYZE");
  assert_int_equal(rpd_open(&r, p, NULL, RPD_READ), RPD_OK);
  rpd_close(r, 0);
  /* stale statistics of a trace that lost rows claim more: harmless */
  assert_int_equal(fx_make_db(p, "DELETE FROM rocpd_string WHERE id > 150"), 0);
  assert_int_equal(rpd_open(&r, p, NULL, RPD_READ), RPD_OK);
  rpd_close(r, 0);
  assert_int_equal(fx_make_db(p, "UPDATE sqlite_stat1 SET stat = '1 1'"), 0);
  for (int flags = RPD_READ; flags <= RPD_WRITE; flags++)
    expect_fail(f, p, NULL, flags, RPD_ENOTRPD,
                "sqlite_stat1 says rocpd_string has 1 row, it has 150");
  free(p);
}

/* gzip `parts` (file, or NULL for `zeros` zero bytes) into one .gz. */
static void gzip_parts(const char *dst, const char *src, int64_t zeros)
{
  gzFile g = gzopen(dst, "wb1");
  size_t n = 0;
  char *b = src ? fx_slurp(src, &n) : NULL, *z = calloc(1, 1 << 20);

  assert_non_null(g);
  if (b) assert_int_equal(gzwrite(g, b, (unsigned)n), (int)n);
  for (int64_t left = zeros; left > 0; left -= 1 << 20)
    assert_true(gzwrite(g, z, left < (1 << 20) ? (unsigned)left : 1u << 20) > 0);
  assert_int_equal(gzclose(g), Z_OK);
  free(b);
  free(z);
}

/* A .gz is checked as it inflates: the SQLite header first, the inflate
 * ratio (a gzip bomb never fills $TMPDIR), nothing after the stream. */
static void test_gzip_untrusted(void **state)
{
  fx *f = *state;
  char *v2 = fx_path(f->dir, "v2.rpd"), *gz = fx_path(f->dir, "t.rpd.gz"),
       *two = fx_path(f->dir, "two.rpd.gz");
  size_t n;
  char *b;
  rpd *r;

  assert_int_equal(fx_make_db(v2, fx_v2_ddl), 0);
  /* trailing garbage after a valid stream */
  fx_gzip(v2, gz, 0);
  b = fx_slurp(gz, &n);
  b = realloc(b, n + 7);
  memcpy(b + n, "garbage", 7);
  fx_write(gz, b, n + 7);
  expect_fail(f, gz, NULL, RPD_READ, RPD_EGZIP, "data after the end of the gzip stream (7 bytes)");
  expect_fail(f, gz, NULL, RPD_WRITE, RPD_EGZIP, "data after the end of the gzip stream");
  /* two members (cat a.gz b.gz) are one valid stream */
  fx_write(two, b, n);
  b = realloc(b, 2 * n);
  memcpy(b + n, b, n);
  fx_write(two, b, 2 * n);
  free(b);
  assert_int_equal(rpd_open(&r, two, NULL, RPD_READ), RPD_OK);
  rpd_close(r, 0);
  /* 100 MB of zeros: not SQLite, refused at its first bytes */
  unlink(gz);
  gzip_parts(gz, NULL, (int64_t)100 << 20);
  expect_fail(f, gz, NULL, RPD_READ, RPD_ENOTDB, "the gzip data holds something else");
  /* a trace followed by 100 MB of zeros: the ratio cap */
  unlink(gz);
  gzip_parts(gz, v2, (int64_t)100 << 20);
  expect_fail(f, gz, NULL, RPD_READ, RPD_EGZIP, "gzip bomb");
  expect_fail(f, gz, NULL, RPD_WRITE, RPD_EGZIP, "gzip bomb");
  /* a header that claims 4 GiB in a few kilobytes: refused before it
   * inflates further */
  b = fx_slurp(v2, &n);
  b[28] = 0; b[29] = 0x10; b[30] = 0; b[31] = 0;       /* 1 Mi pages */
  b[16] = 0x10; b[17] = 0;                              /* of 4096 bytes */
  fx_write(v2, b, n);
  free(b);
  unlink(gz);
  fx_gzip(v2, gz, 0);
  expect_fail(f, gz, NULL, RPD_READ, RPD_EGZIP, "gzip bomb");
  free(v2);
  free(gz);
  free(two);
}

/* A writer never builds on a file with corrupt pages; a reader may read
 * what is intact. */
static void test_writer_integrity(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "bad.rpd"), *out = fx_path(f->dir, "o.rpd");
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int page = 0;
  rpd *r;

  make_v2(p, "PRAGMA page_size = 4096; VACUUM; CREATE TABLE filler(x);"
             "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)"
             " INSERT INTO filler SELECT randomblob(100) FROM n");
  /* overwrite a leaf page of filler with garbage */
  assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
  assert_int_equal(sqlite3_prepare_v2(db, "SELECT max(pageno) FROM dbstat WHERE name = 'filler'"
                                          " AND pagetype = 'leaf'", -1, &st, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  page = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  assert_true(page > 2);
  size_t n;
  char *b = fx_slurp(p, &n);
  memset(b + (size_t)(page - 1) * 4096, 'Z', 4096);
  fx_write(p, b, n);
  free(b);
  assert_int_equal(rpd_open(&r, p, NULL, RPD_READ), RPD_OK);
  rpd_close(r, 0);
  expect_fail(f, p, NULL, RPD_WRITE, RPD_ENOTDB, "corrupt SQLite database");
  expect_fail(f, p, out, RPD_WRITE, RPD_ENOTDB, "corrupt SQLite database");
  free(p);
  free(out);
}

int main(void)
{
  fx_default_signals();
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_v2_v3_detected, setup, teardown),
    cmocka_unit_test_setup_teardown(test_not_files, setup, teardown),
    cmocka_unit_test_setup_teardown(test_not_sqlite, setup, teardown),
    cmocka_unit_test_setup_teardown(test_gzip_errors, setup, teardown),
    cmocka_unit_test_setup_teardown(test_not_rpd, setup, teardown),
    cmocka_unit_test_setup_teardown(test_rocprofv3, setup, teardown),
    cmocka_unit_test_setup_teardown(test_readonly_for_write, setup, teardown),
    cmocka_unit_test_setup_teardown(test_locked, setup, teardown),
    cmocka_unit_test_setup_teardown(test_gz_read_no_temp, setup, teardown),
    cmocka_unit_test_setup_teardown(test_gz_write_back, setup, teardown),
    cmocka_unit_test_setup_teardown(test_out_copy, setup, teardown),
    cmocka_unit_test_setup_teardown(test_rollback_on_close, setup, teardown),
    cmocka_unit_test_setup_teardown(test_create, setup, teardown),
    cmocka_unit_test_setup_teardown(test_signals_remove_temps, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cleanup_temps_direct, setup, teardown),
    cmocka_unit_test_setup_teardown(test_symlinks_and_missing_dirs, setup, teardown),
    cmocka_unit_test_setup_teardown(test_out_copy_wal, setup, teardown),
    cmocka_unit_test_setup_teardown(test_hot_journal, setup, teardown),
    cmocka_unit_test_setup_teardown(test_out_checks, setup, teardown),
    cmocka_unit_test_setup_teardown(test_stale_temps_reclaimed, setup, teardown),
    cmocka_unit_test_setup_teardown(test_close_with_virtual_tables, setup, teardown),
    cmocka_unit_test_setup_teardown(test_planted_triggers, setup, teardown),
    cmocka_unit_test_setup_teardown(test_core_views_refused, setup, teardown),
    cmocka_unit_test_setup_teardown(test_planted_stat1, setup, teardown),
    cmocka_unit_test_setup_teardown(test_gzip_untrusted, setup, teardown),
    cmocka_unit_test_setup_teardown(test_writer_integrity, setup, teardown),
    cmocka_unit_test_setup_teardown(test_looks_like_trace, setup, teardown),
  };
  /* the signal tests kill children with SIGTERM, SIGINT and SIGHUP and
   * rely on rpd_open's handler, which it installs only over the default
   * disposition: under nohup SIGHUP would be ignored and the child never
   * die */
  signal(SIGHUP, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
