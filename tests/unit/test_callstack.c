/* links: rpd-autograd */
/* test_callstack.c - augment/rpd-autograd/autograd_parse.c (the four marker forms, the
 * reference's regex corner cases) and common/analysis/callstack.c (rows, ties,
 * zero-length and overlapping calls, gpu time, rebuild) on tiny v2 traces. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "autograd_parse.h"
#include "callstack.h"
#include "core_fixture.h"

/* ------------------------------------------------------------ parser */

static int parse(const char *s, char out[5][64]) {
  rpd_autograd_parser *p = NULL;
  rpd_autograd_fields f;
  assert_int_equal(rpd_autograd_parser_new(&p), RPD_OK);
  int form = rpd_autograd_parse(p, s, strlen(s), &f);
  const rpd_span *sp[5] = {&f.name, &f.seq, &f.op_id, &f.sizes, &f.input_op_ids};
  for (int i = 0; form && i < 5; i++)
    snprintf(out[i], 64, "%.*s", (int)sp[i]->n, sp[i]->p);
  rpd_autograd_parser_free(p);
  return form;
}

static void parse_forms(void **state) {
  (void)state;
  char o[5][64];
  assert_int_equal(parse("aten::mm, seq = 12, op_id = 5, sizes = [[2, 3]], input_op_ids = [1]", o), 1);
  assert_string_equal(o[0], "aten::mm");
  assert_string_equal(o[1], "12");
  assert_string_equal(o[2], "5");
  assert_string_equal(o[3], "[[2, 3]]");
  assert_string_equal(o[4], "[1]");
  assert_int_equal(parse("aten::add, op_id = 6, sizes = [], input_op_ids = []", o), 2);
  assert_string_equal(o[1], "");
  assert_string_equal(o[2], "6");
  assert_string_equal(o[3], "[]");
  assert_int_equal(parse("aten::relu, seq = 7, op_id = 8", o), 3);
  assert_string_equal(o[1], "7");
  assert_string_equal(o[3], "");
  assert_int_equal(parse("aten::view, op_id = 9", o), 4);
  assert_string_equal(o[0], "aten::view");
  assert_string_equal(o[4], "");
}

static void parse_corners(void **state) {
  (void)state;
  char o[5][64];
  /* NAME is greedy: the last ", op_id = " wins, as with Python's re */
  assert_int_equal(parse("a, op_id = 1, op_id = 2", o), 4);
  assert_string_equal(o[0], "a, op_id = 1");
  assert_string_equal(o[2], "2");
  /* '$' also matches before a final newline */
  assert_int_equal(parse("b, op_id = 3\n", o), 4);
  assert_string_equal(o[2], "3");
  /* ... but '.' does not cross one */
  assert_int_equal(parse("c\nd, op_id = 3", o), 0);
  assert_int_equal(parse("aten::x, seq = 3", o), 0);
  assert_int_equal(parse("aten::y, op_id = 1x", o), 0);
  assert_int_equal(parse(", op_id = 4", o), 0);        /* NAME is .+ */
  assert_int_equal(parse("plain marker", o), 0);
  /* sizes is greedy up to the last ", input_op_ids = " */
  assert_int_equal(parse("m, seq = 1, op_id = 2, sizes = [x, input_op_ids = 5], input_op_ids = [7]", o), 1);
  assert_string_equal(o[3], "[x, input_op_ids = 5]");
  assert_string_equal(o[4], "[7]");
  /* NAME is greedy: the last ", op_id = " that is followed by the rest */
  assert_int_equal(parse("n, op_id = 1, sizes = a, op_id = 2, sizes = b, input_op_ids = c", o), 2);
  assert_string_equal(o[0], "n, op_id = 1, sizes = a");
  assert_string_equal(o[2], "2");
  assert_string_equal(o[3], "b");
  /* a later ", seq = " inside sizes does not end NAME */
  assert_int_equal(parse("p, seq = 3, op_id = 4, sizes = [q, seq = 9], input_op_ids = []\n", o), 1);
  assert_string_equal(o[0], "p");
  assert_string_equal(o[3], "[q, seq = 9]");
  assert_string_equal(o[4], "[]");
  /* sizes must come after the numbers; input_op_ids after sizes */
  assert_int_equal(parse("r, input_op_ids = 1, op_id = 2, sizes = 3", o), 0);
  assert_int_equal(parse("s, seq = 05, op_id = 6", o), 3);
  assert_string_equal(o[1], "05");
  assert_true(rpd_autograd_candidate_n("x\0, seq = 1", 12));
  assert_false(rpd_autograd_candidate_n("x, seq = 1", 6));
  assert_true(rpd_autograd_candidate("x, sizes = 1"));
  assert_false(rpd_autograd_candidate("x, size = 1"));
  assert_false(rpd_autograd_candidate(NULL));
}

/* ------------------------------------------------------------ call stack */

typedef struct fx {
  char *dir, *path;
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  f->dir = fx_mkdtemp();
  f->path = fx_path(f->dir, "t.rpd");
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  fx_rm_tree(f->dir);
  free(f->dir), free(f->path), free(f);
  return 0;
}

/* Build the call stack of `calls` (VALUES rows id,pid,tid,start,end) into a
 * fresh v2 trace. */
/* A fresh trace made by sql (freed here), its call stack built. */
static void build_sql(fx *f, char *sql, rpd_callstack_stats *st) {
  unlink(f->path);
  assert_int_equal(fx_make_db(f->path, sql), 0);
  free(sql);
  rpd *r = NULL;
  assert_int_equal(rpd_open(&r, f->path, NULL, RPD_WRITE), RPD_OK);
  assert_int_equal(rpd_begin(r), RPD_OK);
  assert_int_equal(rpd_callstack_build(r, st), RPD_OK);
  assert_int_equal(rpd_commit(r), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
}

/* The fixture's trace with rocpd_api holding calls (an SQL VALUES list
 * of id, pid, tid, start, end), its call stack built. */
static void build(fx *f, const char *calls, rpd_callstack_stats *st) {
  build_sql(f, rpd_xasprintf("%s DELETE FROM rocpd_api; DELETE FROM rocpd_api_ops;"
                             " INSERT INTO rocpd_api SELECT column1, column2, column3,"
                             " column4, column5, 2, 5 FROM (VALUES %s);", fx_v2_ddl, calls),
            st);
}

static void nested_rows(void **state) {
  fx *f = *state;
  rpd_callstack_stats st;
  build(f, "(1,1,1,0,100),(2,1,1,10,50),(3,1,1,20,30)", &st);
  assert_int_equal(st.calls, 3);
  assert_int_equal(st.rows, 6);
  assert_int_equal(st.max_depth, 3);
  assert_int_equal(st.overlaps, 0);
  /* exclusive cpu: 3 -> 10, 2 -> 40 - 10 = 30, 1 -> 100 - 40 = 60 */
  assert_int_equal(fx_q(f->path, "SELECT cpu_time FROM ext_callstack WHERE child_id = 1 AND depth = 0"), 60);
  assert_int_equal(fx_q(f->path, "SELECT cpu_time FROM ext_callstack WHERE child_id = 2 AND depth = 0"), 30);
  assert_int_equal(fx_q(f->path, "SELECT depth FROM ext_callstack WHERE parent_id = 1 AND child_id = 3"), 2);
  assert_int_equal(fx_q(f->path, "SELECT cpu_time FROM callStack_inclusive WHERE parent_id = 1"), 100);
}

static void ties_and_zero_length(void **state) {
  fx *f = *state;
  rpd_callstack_stats st;
  /* 2 ends as 3 starts; 4 is zero-length as 3 ends; 5 starts as 1 ends */
  build(f, "(1,1,1,0,100),(2,1,1,10,20),(3,1,1,20,30),(4,1,1,30,30),(5,1,1,100,110)", &st);
  assert_int_equal(st.rows, 8);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM ext_callstack WHERE parent_id = 2 AND child_id = 3"), 0);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM ext_callstack WHERE parent_id = 3 AND child_id = 4"), 0);
  assert_int_equal(fx_q(f->path, "SELECT depth FROM ext_callstack WHERE parent_id = 1 AND child_id = 4"), 1);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM ext_callstack WHERE child_id = 5"), 1);
  assert_int_equal(fx_q(f->path, "SELECT cpu_time FROM ext_callstack WHERE child_id = 1 AND depth = 0"), 80);
}

static void overlap_counted(void **state) {
  fx *f = *state;
  rpd_callstack_stats st;
  build(f, "(1,1,1,0,20),(2,1,1,10,30),(3,1,1,12,15),(4,2,9,0,5)", &st);
  assert_int_equal(st.overlaps, 1);
  assert_int_equal(st.threads, 2);
  /* 1 ends while 2 is open: 1 is its own root, 2 keeps no parent */
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM ext_callstack WHERE child_id = 1"), 1);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM ext_callstack WHERE child_id = 2"), 1);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM ext_callstack WHERE child_id = 3"), 3);
  assert_int_equal(fx_q(f->path, "SELECT cpu_time FROM ext_callstack WHERE child_id = 1"), 17);
}

static void gpu_time_and_rebuild(void **state) {
  fx *f = *state;
  rpd_callstack_stats st;
  build(f, "(1,100,101,1000,2000),(2,100,101,3000,3500)", &st);
  rpd *r = NULL;
  assert_int_equal(rpd_open(&r, f->path, NULL, RPD_WRITE), RPD_OK);
  assert_int_equal(rpd_exec(r, "INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (1, 1), (1, 2)"), RPD_OK);
  assert_int_equal(rpd_meta_set(r, RPD_CALLSTACK_DONE_TAG, "True"), RPD_OK);
  assert_true(rpd_callstack_present(r));
  assert_int_equal(rpd_begin(r), RPD_OK);
  assert_int_equal(rpd_callstack_build(r, &st), RPD_OK);   /* rebuilds */
  assert_int_equal(rpd_commit(r), RPD_OK);
  assert_int_equal(rpd_callstack_drop(r), RPD_OK);
  assert_false(rpd_callstack_present(r));
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(st.rows, 2);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'callStack%'"), 0);
}

static void gpu_time_sum(void **state) {
  fx *f = *state;
  rpd_callstack_stats st;
  char *sql = rpd_xasprintf("%s INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (1, 2);", fx_v2_ddl);
  unlink(f->path);
  assert_int_equal(fx_make_db(f->path, sql), 0);
  free(sql);
  rpd *r = NULL;
  assert_int_equal(rpd_open(&r, f->path, NULL, RPD_WRITE), RPD_OK);
  assert_int_equal(rpd_begin(r), RPD_OK);
  assert_int_equal(rpd_callstack_build(r, &st), RPD_OK);
  assert_int_equal(rpd_commit(r), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  /* api 1 has ops 1 (1500) and 2 (1000); api 2 has op 2 */
  assert_int_equal(fx_q(f->path, "SELECT gpu_time FROM ext_callstack WHERE child_id = 1"), 2500);
  assert_int_equal(fx_q(f->path, "SELECT gpu_time FROM ext_callstack WHERE child_id = 2"), 1000);
}

/* Calls numbered against time (ids 8..1 run one after another), each with
 * ops linked in api_id order; call 3 has two ops.  With the default merge
 * limit the op stream is merged; with a limit of 2 the merge gives up and
 * the temp table answers (created while the calls are being read): the
 * same gpu times either way. */
static void gpu_merge_and_fallback(void **state) {
  fx *f = *state;
  for (int run = 0; run < 3; run++) {
    int limit = run ? 2 : 0;  /* run 2: SQLite sorts the calls, too */
    rpd_callstack_stats st;
    char *sql = rpd_xasprintf(
        "%s DELETE FROM rocpd_api; DELETE FROM rocpd_api_ops;"
        " WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 8)"
        " INSERT INTO rocpd_api SELECT i, 7, 7, (8 - i) * 100, (8 - i) * 100 + 50, 2, 5 FROM k;"
        " INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (1, 2), (2, 1), (3, 2), (3, 1),"
        " (4, 1), (5, 2), (6, 1), (7, 2), (8, 1);", fx_v2_ddl);
    rpd_callstack_set_merge_limit((size_t)limit);
    rpd_callstack_set_sort_limit(run == 2 ? 1 : 0);
    build_sql(f, sql, &st);
    rpd_callstack_set_merge_limit(0);
    rpd_callstack_set_sort_limit(0);
    assert_int_equal(st.gpu_fallback, limit != 0);
    assert_int_equal(st.c_sort, run == 2);
    assert_int_equal(st.sql_sort, 0);
    assert_int_equal(st.rows, 8);
    /* odd ids: op 2 (1000); even: op 1 (1500); 3: both */
    assert_int_equal(fx_q(f->path, "SELECT gpu_time FROM ext_callstack WHERE child_id = 1"), 1000);
    assert_int_equal(fx_q(f->path, "SELECT gpu_time FROM ext_callstack WHERE child_id = 3"), 2500);
    assert_int_equal(fx_q(f->path, "SELECT gpu_time FROM ext_callstack WHERE child_id = 8"), 1500);
    assert_int_equal(fx_q(f->path, "SELECT sum(gpu_time) FROM ext_callstack"), 11500);
  }
}

/* The in-memory sort and SQLite's sort walk the calls in the same order:
 * the same rows with the same ids.  Ties, zero-length calls, an overlap,
 * two threads. */
static const char mixed_calls[] =
    "(1,1,1,0,100),(2,1,1,10,20),(3,1,1,20,30),(4,1,1,30,30),(5,1,1,100,110),"
    "(6,1,1,40,50),(7,1,1,40,45),(8,1,1,40,45),(9,1,1,120,140),(10,1,1,130,150),"
    "(11,1,1,135,137),(12,%s,2,0,60),(13,%s,2,5,60),(14,%s,2,60,60)";
static const char rows_hash[] =
    "SELECT sum(((id * 1000003 + parent_id) * 1009 + child_id) * 31 + depth"
    " + cpu_time * 13 + gpu_time * 17) FROM ext_callstack";

static void sorts_agree(void **state) {
  fx *f = *state;
  rpd_callstack_stats st;
  char *calls = rpd_xasprintf(mixed_calls, "2", "2", "2");
  build(f, calls, &st);
  assert_int_equal(st.sql_sort, 0);
  int64_t rows = st.rows, hash = fx_q(f->path, rows_hash);
  assert_int_equal(rows, 26);
  rpd_callstack_set_sort_limit(3);
  build(f, calls, &st);
  assert_int_equal(st.c_sort, 1);
  assert_int_equal(st.sql_sort, 0);
  assert_int_equal(st.rows, rows);
  assert_int_equal(st.overlaps, 1);
  assert_int_equal(fx_q(f->path, rows_hash), hash);
  /* the same sorted by SQLite */
  rpd_callstack_set_sql_sort(1);
  build(f, calls, &st);
  rpd_callstack_set_sql_sort(0);
  rpd_callstack_set_sort_limit(0);
  free(calls);
  assert_int_equal(st.sql_sort, 1);
  assert_int_equal(st.c_sort, 0);
  assert_int_equal(st.rows, rows);
  assert_int_equal(fx_q(f->path, rows_hash), hash);
  /* a pid that needs 64 bits: sorted in C, same rows but for the pid */
  calls = rpd_xasprintf(mixed_calls, "5000000000", "5000000000", "5000000000");
  build(f, calls, &st);
  free(calls);
  assert_int_equal(st.c_sort, 1);
  assert_int_equal(st.threads, 2);
  assert_int_equal(fx_q(f->path, rows_hash), hash);
}

/* Calls stored as a tracer stores them, in completion order (a caller
 * after its callees), two threads interleaved: walked in memory with no
 * sort, the same rows with the same ids as SQLite's sort gives (a reorder
 * buffer of one call cannot hold a caller back, so that walk sorts). */
static const char completion_calls[] =
    "(1,1,1,15,20),(2,1,1,25,30),(3,1,1,10,40),(4,1,2,6,50),(5,1,2,60,61),"
    "(6,1,1,60,70),(7,1,1,50,90),(8,1,2,55,94),(9,1,2,5,95),(10,1,1,0,100)";

static void completion_order_agrees(void **state) {
  fx *f = *state;
  rpd_callstack_stats st;
  build(f, completion_calls, &st);
  assert_int_equal(st.sql_sort, 0);
  assert_int_equal(st.max_depth, 3);
  assert_int_equal(st.rows, 10 + 12);   /* depth 0 + one per ancestor */
  int64_t hash = fx_q(f->path, rows_hash);
  assert_int_equal(fx_q(f->path, "SELECT depth FROM ext_callstack WHERE parent_id = 10 AND child_id = 1"), 2);
  assert_int_equal(fx_q(f->path, "SELECT cpu_time FROM ext_callstack WHERE parent_id = 9 AND child_id = 9"), 90 - 44 - 39);
  rpd_callstack_set_sort_limit(1);
  build(f, completion_calls, &st);
  assert_int_equal(st.c_sort, 1);
  assert_int_equal(fx_q(f->path, rows_hash), hash);
  rpd_callstack_set_sql_sort(1);
  build(f, completion_calls, &st);
  rpd_callstack_set_sql_sort(0);
  rpd_callstack_set_sort_limit(0);
  assert_int_equal(st.sql_sort, 1);
  assert_int_equal(fx_q(f->path, rows_hash), hash);
}

/* Calls stored against time (each earlier than the one before it): placing
 * each would shift every call held, so the walk gives up early and SQLite
 * sorts; every call is still there once. */
static void reversed_calls_sorted(void **state) {
  fx *f = *state;
  rpd_callstack_stats st;
  rpd_buf calls = {0};
  for (int i = 0; i < 3000; i++) {
    char one[64];
    snprintf(one, sizeof one, "%s(%d,1,1,%d,%d)", i ? "," : "", i + 1,
             (3000 - i) * 10, (3000 - i) * 10 + 5);
    rpd_buf_puts(&calls, one);
  }
  build(f, calls.s, &st);
  assert_int_equal(st.c_sort, 1);
  assert_int_equal(st.rows, 3000);
  assert_int_equal(fx_q(f->path, "SELECT count(DISTINCT child_id) FROM ext_callstack WHERE depth = 0 AND cpu_time = 5"), 3000);
  int64_t hash = fx_q(f->path, rows_hash);
  /* the C sort's buffer of 10 calls: 300 runs spilled and merged */
  setenv("RPD_ANALYZE_SORT_BYTES", "400", 1);
  build(f, calls.s, &st);
  unsetenv("RPD_ANALYZE_SORT_BYTES");
  assert_int_equal(st.c_sort, 1);
  assert_int_equal(st.rows, 3000);
  assert_int_equal(fx_q(f->path, rows_hash), hash);
  rpd_callstack_set_sql_sort(1);
  build(f, calls.s, &st);
  rpd_callstack_set_sql_sort(0);
  rpd_buf_free(&calls);
  assert_int_equal(st.sql_sort, 1);
  assert_int_equal(fx_q(f->path, rows_hash), hash);
}

/* Calls stored as a Kineto import stores them: a thread's ops in time
 * order, then its runtime calls (each inside one op) in time order.  Each
 * runtime call would go hundreds of calls back into the ops' queue; it
 * opens a second queue instead, so the walk needs no sort, and gives the
 * rows SQLite's sort gives. */
static void two_runs_merged(void **state) {
  fx *f = *state;
  rpd_callstack_stats st;
  rpd_buf calls = {0};
  for (int i = 0; i < 800; i++) {
    char one[80];
    int k = i % 400, rt = i >= 400;
    snprintf(one, sizeof one, "%s(%d,1,1,%d,%d)", i ? "," : "", i + 1,
             10 * k + rt, 10 * k + (rt ? 2 : 5));
    rpd_buf_puts(&calls, one);
  }
  build(f, calls.s, &st);
  assert_int_equal(st.sql_sort, 0);
  assert_int_equal(st.rows, 1200);
  assert_int_equal(st.max_depth, 2);
  int64_t hash = fx_q(f->path, rows_hash);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM ext_callstack WHERE depth = 1"
                                 " AND child_id = parent_id + 400"), 400);
  rpd_callstack_set_sort_limit(1);
  build(f, calls.s, &st);
  rpd_callstack_set_sort_limit(0);
  rpd_buf_free(&calls);
  assert_int_equal(st.c_sort, 1);
  assert_int_equal(fx_q(f->path, rows_hash), hash);
}

/* Many threads each holding a long range open, rows in completion order:
 * 20 threads, each an outer call around 15,000 calls, the inner calls of
 * all threads interleaved by end and the outer ones last.  The walk must
 * hold 300,000 calls (more than 2^18) until the outer calls come; the
 * buffer grows with the threads (2^15 calls each), so it walks them with
 * no sort, and the rows are those of the sorted walk. */
static void many_threads_held(void **state) {
  fx *f = *state;
  rpd_callstack_stats st;
  for (int forced = 0; forced < 2; forced++) {
    char *sql = rpd_xasprintf(
        "%s DELETE FROM rocpd_api; DELETE FROM rocpd_api_ops;"
        " WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 14999),"
        " t(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM t WHERE k < 19)"
        " INSERT INTO rocpd_api(pid, tid, start, end, apiName_id, args_id)"
        " SELECT 1, k, 100 + i * 1000 + k, 600 + i * 1000 + k, 2, 5 FROM n, t"
        " ORDER BY 600 + i * 1000 + k;"
        " WITH RECURSIVE t(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM t WHERE k < 19)"
        " INSERT INTO rocpd_api(pid, tid, start, end, apiName_id, args_id)"
        " SELECT 1, k, k, 1000000000 + k, 2, 5 FROM t;", fx_v2_ddl);
    rpd_callstack_set_sort_limit(forced ? (size_t)1 << 18 : 0);   /* the fixed old limit */
    build_sql(f, sql, &st);
    rpd_callstack_set_sort_limit(0);
    assert_int_equal(st.c_sort, forced);
    assert_int_equal(st.sql_sort, 0);
    assert_int_equal(st.threads, 20);
    assert_int_equal(st.rows, 300020 + 300000);
    /* each inner call's parent is its thread's outer call */
    assert_int_equal(fx_q(f->path, "SELECT count(*) FROM ext_callstack C"
                                   " JOIN rocpd_api A ON A.id = C.child_id"
                                   " JOIN rocpd_api O ON O.id = C.parent_id WHERE C.depth = 1"
                                   " AND O.tid = A.tid AND O.end >= 1000000000"), 300000);
  }
}

/* The visitor walk sees what ext_callstack holds: every (parent, child,
 * depth, gpu_time) row, with ties, a zero-length call, an overlap, two
 * threads and linked ops; the same when SQLite must sort (the visitor is
 * reset once), and nothing is written. */
typedef struct visit_sum {
  int64_t hash, rows, resets;
} visit_sum;

static int64_t vs_tag(void *arg, int64_t id) {
  (void)arg;
  return id;
}

static int vs_close(void *arg, const int64_t *tags, int depth, int64_t gpu) {
  visit_sum *v = arg;
  for (int j = 0; j <= depth; j++, v->rows++)
    v->hash += (tags[j] * 1009 + tags[depth]) * 31 + (depth - j) + gpu * 17;
  return RPD_OK;
}

static void vs_reset(void *arg) {
  visit_sum *v = arg;
  v->hash = v->rows = 0;
  v->resets++;
}

static void visit_agrees(void **state) {
  fx *f = *state;
  char *calls = rpd_xasprintf(mixed_calls, "2", "2", "2");
  char *sql = rpd_xasprintf("%s DELETE FROM rocpd_api; DELETE FROM rocpd_api_ops;"
                            " INSERT INTO rocpd_api SELECT column1, column2, column3,"
                            " column4, column5, 2, 5 FROM (VALUES %s);"
                            " INSERT INTO rocpd_api_ops(api_id, op_id) VALUES"
                            " (2, 1), (4, 2), (7, 1), (7, 2), (11, 2), (13, 1);",
                            fx_v2_ddl, calls);
  free(calls);
  unlink(f->path);
  assert_int_equal(fx_make_db(f->path, sql), 0);
  free(sql);
  for (int run = 0; run < 2; run++) {
    visit_sum v = {0};
    const rpd_callstack_visitor vis = {vs_tag, vs_close, vs_reset, &v};
    rpd_callstack_stats st;
    rpd *r = NULL;
    rpd_callstack_set_sort_limit(run ? 3 : 0);
    assert_int_equal(rpd_open(&r, f->path, NULL, RPD_WRITE), RPD_OK);
    assert_int_equal(rpd_begin(r), RPD_OK);
    assert_int_equal(rpd_callstack_visit(r, &vis, &st), RPD_OK);
    assert_int_equal(rpd_commit(r), RPD_OK);
    assert_int_equal(rpd_close(r, 1), RPD_OK);
    rpd_callstack_set_sort_limit(0);
    assert_int_equal(st.c_sort, run);
    assert_int_equal(v.resets, run);
    assert_int_equal(fx_q(f->path, "SELECT count(*) FROM sqlite_master WHERE name = 'ext_callstack'"), 0);
    /* the rows rpd_callstack_build writes */
    rpd_callstack_stats bst;
    assert_int_equal(rpd_open(&r, f->path, NULL, RPD_WRITE), RPD_OK);
    assert_int_equal(rpd_begin(r), RPD_OK);
    assert_int_equal(rpd_callstack_build(r, &bst), RPD_OK);
    assert_int_equal(rpd_commit(r), RPD_OK);
    assert_int_equal(rpd_close(r, 1), RPD_OK);
    assert_int_equal(v.rows, 26);
    assert_int_equal(st.rows, 26);
    assert_int_equal(fx_q(f->path, "SELECT count(*) FROM ext_callstack WHERE gpu_time > 0"), 12);
    assert_int_equal(fx_q(f->path, "SELECT sum((parent_id * 1009 + child_id) * 31 + depth"
                                   " + gpu_time * 17) FROM ext_callstack"), v.hash);
    assert_int_equal(rpd_open(&r, f->path, NULL, RPD_WRITE), RPD_OK);
    assert_int_equal(rpd_begin(r), RPD_OK);
    assert_int_equal(rpd_callstack_drop(r), RPD_OK);
    assert_int_equal(rpd_commit(r), RPD_OK);
    assert_int_equal(rpd_close(r, 1), RPD_OK);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(parse_forms),
      cmocka_unit_test(parse_corners),
      cmocka_unit_test_setup_teardown(nested_rows, setup, teardown),
      cmocka_unit_test_setup_teardown(ties_and_zero_length, setup, teardown),
      cmocka_unit_test_setup_teardown(overlap_counted, setup, teardown),
      cmocka_unit_test_setup_teardown(gpu_time_and_rebuild, setup, teardown),
      cmocka_unit_test_setup_teardown(gpu_time_sum, setup, teardown),
      cmocka_unit_test_setup_teardown(gpu_merge_and_fallback, setup, teardown),
      cmocka_unit_test_setup_teardown(sorts_agree, setup, teardown),
      cmocka_unit_test_setup_teardown(completion_order_agrees, setup, teardown),
      cmocka_unit_test_setup_teardown(reversed_calls_sorted, setup, teardown),
      cmocka_unit_test_setup_teardown(visit_agrees, setup, teardown),
      cmocka_unit_test_setup_teardown(two_runs_merged, setup, teardown),
      cmocka_unit_test_setup_teardown(many_threads_held, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
