/* test_attach.c - rpd_attach / rpd_detach: an rpd handle over a
 * connection the caller owns. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "rpd.h"

static void test_attach_schema_and_detach(void **state)
{
  (void)state;
  sqlite3 *db = NULL;
  rpd *r;
  int64_t n = -1;

  assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
  r = rpd_attach(db, 2, RPD_WRITE | RPD_CREATE);
  assert_non_null(r);
  assert_ptr_equal(rpd_db(r), db);
  assert_int_equal(rpd_schema(r), 2);
  assert_int_equal(rpd_schema_create(r), RPD_OK);
  assert_int_equal(rpd_table_exists(r, "rocpd_api"), 1);
  assert_int_equal(rpd_table_exists(r, "rocpd_ustring"), 0);     /* v2 */
  rpd_detach(r);
  rpd_detach(NULL);
  /* the connection outlives the handle */
  assert_int_equal(sqlite3_exec(db, "INSERT INTO rocpd_string(string) VALUES ('x')",
                                NULL, NULL, NULL), SQLITE_OK);
  r = rpd_attach(db, 2, RPD_READ);
  assert_int_equal(rpd_query_int64(r, "SELECT count(*) FROM rocpd_string WHERE string = 'x'",
                                   &n), RPD_OK);
  assert_int_equal(n, 1);
  rpd_detach(r);
  assert_int_equal(sqlite3_close(db), SQLITE_OK);   /* no statement left open */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_attach_schema_and_detach),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
