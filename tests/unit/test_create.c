/* test_create.c - rpd_create, the one way to make a trace: the schema,
 * the temp file next to the output (gone after a failure, an abort or a
 * fatal signal), .gz output, an existing file's mode kept, what is refused
 * (a directory, the input, a non-empty file without force); and the open
 * profiles. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <zlib.h>

#include "core_fixture.h"

typedef fx_trace fx;

static int setup(void **state)
{
  return fx_trace_setup(state, NULL, 0);
}

static int64_t q(rpd *r, const char *sql)
{
  int64_t v = -1;

  assert_int_equal(rpd_query_int64(r, sql, &v), RPD_OK);
  return v;
}

/* A new trace: schema v3 with its views, one row written, published. */
static void test_create_v3(void **state)
{
  fx *f = *state;
  rpd *r = NULL;
  char *v = NULL;

  assert_int_equal(rpd_create(&r, f->path, NULL), RPD_OK);
  assert_int_equal(rpd_schema(r), 3);
  /* nothing at the target until published, only the temp next to it */
  assert_int_equal(access(f->path, F_OK), -1);
  assert_int_equal(fx_count(f->dir, ".t.rpd.rpdtools-"), 1);
  assert_int_equal(rpd_exec(r, "INSERT INTO rocpd_string(string) VALUES ('k')"), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(fx_entries(f->dir), 1);
  assert_int_equal(rpd_open(&r, f->path, NULL, RPD_READ), RPD_OK);
  assert_int_equal(rpd_schema(r), 3);
  assert_int_equal(rpd_meta_get(r, "schema_version", &v), RPD_OK);
  assert_string_equal(v, "3");
  free(v);
  assert_int_equal(q(r, "SELECT count(*) FROM rocpd_string WHERE string = 'k'"), 1);
  assert_int_equal(rpd_table_exists(r, "api"), 1);     /* a utility view */
  rpd_close(r, 0);
}

/* --schema 2, a page size, and no schema at all (a foreign layout). */
static void test_create_options(void **state)
{
  fx *f = *state;
  rpd *r = NULL;
  rpd_create_opts o = { .schema = 2, .page_size = 16384 };
  char *p2 = fx_path(f->dir, "none.db");

  assert_int_equal(rpd_create(&r, f->path, &o), RPD_OK);
  assert_int_equal(q(r, "PRAGMA page_size"), 16384);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(rpd_open(&r, f->path, NULL, RPD_READ), RPD_OK);
  assert_int_equal(rpd_schema(r), 2);
  rpd_close(r, 0);
  o = (rpd_create_opts){ .schema = RPD_SCHEMA_NONE };
  assert_int_equal(rpd_create(&r, p2, &o), RPD_OK);
  assert_int_equal(rpd_schema(r), 0);
  assert_int_equal(q(r, "SELECT count(*) FROM sqlite_master"), 0);
  assert_int_equal(rpd_exec(r, "CREATE TABLE x(a)"), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(fx_count(f->dir, ".none.db.rpdtools-"), 0);
  assert_int_equal(access(p2, F_OK), 0);
  free(p2);
}

/* OUT.gz: the published file is gzip holding the SQLite trace. */
static void test_create_gz(void **state)
{
  fx *f = *state;
  rpd *r = NULL;
  char *gz = fx_path(f->dir, "t.rpd.gz");
  unsigned char hdr[16];

  assert_int_equal(rpd_create(&r, gz, NULL), RPD_OK);
  assert_int_equal(rpd_exec(r, "INSERT INTO rocpd_string(string) VALUES ('z')"), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(fx_entries(f->dir), 1);
  gzFile g = gzopen(gz, "rb");
  assert_non_null(g);
  assert_int_equal(gzread(g, hdr, sizeof hdr), (int)sizeof hdr);
  assert_false(gzdirect(g));                 /* compressed, not plain */
  gzclose(g);
  assert_memory_equal(hdr, "SQLite format 3", 16);
  assert_int_equal(rpd_open(&r, gz, NULL, RPD_READ), RPD_OK);
  assert_int_equal(q(r, "SELECT count(*) FROM rocpd_string WHERE string = 'z'"), 1);
  rpd_close(r, 0);
  free(gz);
}

/* A failure or an abort leaves no temp file and the target as it was. */
static void test_create_abort(void **state)
{
  fx *f = *state;
  rpd *r = NULL;
  rpd_create_opts o = { .force = 1 };

  fx_write(f->path, "old", 3);
  assert_int_equal(rpd_create(&r, f->path, &o), RPD_OK);
  assert_int_equal(fx_count(f->dir, ".t.rpd.rpdtools-"), 1);
  assert_int_equal(rpd_close(r, 0), RPD_OK);
  assert_int_equal(fx_entries(f->dir), 1);
  size_t n;
  char *s = fx_slurp(f->path, &n);
  assert_int_equal(n, 3);
  assert_memory_equal(s, "old", 3);
  free(s);
  /* a bad schema number fails before any file is made */
  o.schema = 7;
  assert_int_equal(rpd_create(&r, f->path, &o), RPD_ERR);
  assert_null(r);
  /* the tool's work fails after the temp was made (a table dropped):
   * closing without commit removes the temp, the target is untouched */
  o = (rpd_create_opts){ .force = 1, .schema = 3 };
  assert_int_equal(rpd_create(&r, f->path, &o), RPD_OK);
  assert_int_equal(rpd_exec(r, "DROP TABLE rocpd_op"), RPD_OK);
  assert_int_equal(rpd_close(r, 0), RPD_OK);
  assert_int_equal(fx_entries(f->dir), 1);
}

/* A fatal signal while the trace is being filled removes the temp. */
static void test_create_signal(void **state)
{
  fx *f = *state;
  int fds[2], status;
  char c;

  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    rpd *r;
    fx_child_bound();
    close(fds[0]);
    if (rpd_create(&r, f->path, NULL)) _exit(3);
    if (rpd_begin(r) || rpd_exec(r, "INSERT INTO rocpd_string(string) VALUES ('s')")) _exit(4);
    if (write(fds[1], "r", 1) != 1) _exit(5);
    for (;;) pause();
  }
  close(fds[1]);
  assert_int_equal(fx_read(fds[0], &c, 1), 1);
  close(fds[0]);
  assert_int_equal(fx_count(f->dir, ".t.rpd.rpdtools-"), 1);
  kill(pid, SIGTERM);
  assert_int_equal(fx_wait(pid, &status), 0);
  assert_true(WIFSIGNALED(status));
  assert_int_equal(fx_entries(f->dir), 0);
}

/* A replaced file keeps its mode (0640 stays 0640); a new file gets
 * 0666 & ~umask. */
static void test_create_mode(void **state)
{
  fx *f = *state;
  rpd *r = NULL;
  struct stat st;
  rpd_create_opts o = { .force = 1 };
  char *fresh = fx_path(f->dir, "fresh.rpd");
  mode_t old = umask(022);

  fx_write(f->path, "x", 1);
  assert_int_equal(chmod(f->path, 0640), 0);
  assert_int_equal(rpd_create(&r, f->path, &o), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(stat(f->path, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0640);
  assert_true(st.st_size > 1);
  assert_int_equal(rpd_create(&r, fresh, NULL), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(stat(fresh, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0644);
  umask(old);
  free(fresh);
}

/* Refused: a directory, the input itself, a non-empty file without
 * force; nothing is left behind. */
static void test_create_refused(void **state)
{
  fx *f = *state;
  rpd *r = (rpd *)1;
  char *sub = fx_path(f->dir, "sub");
  rpd_create_opts o = { .input = f->path, .force = 1 };

  assert_int_equal(mkdir(sub, 0755), 0);
  assert_int_equal(rpd_create(&r, sub, NULL), RPD_EEXIST);
  assert_null(r);
  assert_non_null(strstr(rpd_errmsg(), "is a directory"));
  fx_write(f->path, "data", 4);
  assert_int_equal(rpd_create(&r, f->path, NULL), RPD_EEXIST);
  assert_non_null(strstr(rpd_errmsg(), "not empty"));
  assert_int_equal(rpd_create(&r, f->path, &o), RPD_EEXIST);
  assert_non_null(strstr(rpd_errmsg(), "is the input file"));
  assert_int_equal(fx_entries(f->dir), 2);      /* sub and t.rpd only */
  rmdir(sub);
  free(sub);
}

/* The profiles set what they say on the handle's connection. */
static void test_profiles(void **state)
{
  fx *f = *state;
  rpd *r = NULL;

  assert_int_equal(rpd_create(&r, f->path, NULL), RPD_OK);
  assert_int_equal(q(r, "PRAGMA cache_size"), -16384);
  assert_int_equal(q(r, "PRAGMA synchronous"), 0);
  assert_int_equal(rpd_profile(r, RPD_OPEN_SCAN), RPD_OK);
  assert_int_equal(q(r, "PRAGMA cache_size"), -4096);
  assert_int_equal(q(r, "PRAGMA temp_store"), 1);
  assert_int_equal(rpd_profile(r, RPD_OPEN_SIDE), RPD_OK);
  assert_int_equal(q(r, "PRAGMA cache_size"), -2048);
  assert_int_equal(rpd_profile(r, RPD_OPEN_SORT), RPD_OK);
  assert_int_equal(q(r, "PRAGMA temp.cache_size"), -16384);
  assert_int_equal(rpd_db_profile(rpd_db(r), RPD_OPEN_DEFAULT), SQLITE_OK);
  assert_int_equal(q(r, "PRAGMA cache_size"), -65536);
  assert_int_equal(rpd_profile(r, 99), RPD_ERR);
  assert_int_equal(rpd_db_profile(rpd_db(r), -1), SQLITE_MISUSE);
  rpd_close(r, 0);
}

int main(void)
{
  fx_default_signals();
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_create_v3, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_create_options, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_create_gz, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_create_abort, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_create_signal, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_create_mode, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_create_refused, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_profiles, setup, fx_trace_teardown),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}
