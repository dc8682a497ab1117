/* test_table.c - the one table path (common/out/table.h): the table model
 * (cells, column lookup, numbers), one table as CSV and aligned text,
 * --csv-dir (a file per table, refused over the trace), a streamed
 * table writing what the whole table writes, the xlsx
 * workbook written whole, the HTML page showing any table with its
 * strings escaped, and any table as Markdown. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rpd.h"
#include "table.h"

static char dir[] = "/tmp/test_table-XXXXXX";
static const char *const cols[] = { "name", "count", "total_us" };

/* Two rows: a long kernel name, a hostile one, a NULL. */
static void fill(rpd_tables *ts)
{
  rpd_table *t = rpd_tables_add(ts);
  rpd_table_init(t, "kernels", 3, cols, NULL);
  rpd_table_str(t, "Cijk_Alik_Bljk_HHS_BH_MT128x128x64_MI16x16x16x1_SN_1LDSB1_AFC1_AFEM1_"
                   "AFEM1_ASEM1_CLR1_CADS0_DTVA0_DTVB0_EPS1_FSSC10_FL0_GRPM1_GRVW8_GSU1_"
                   "ISA942_IU1_K1_KLA_LBSPPA128_TAIL");
  rpd_table_int(t, 3);
  rpd_table_dbl(t, 12.5, 3);
  rpd_table_str(t, "<b>&\"x\"");
  rpd_table_null(t);
  rpd_table_dbl(t, NAN, 3);   /* non-finite -> NULL */
}

/* The whole of file p (caller frees). */
static char *slurp(const char *p)
{
  FILE *f = fopen(p, "rb");
  char *s;
  long n;
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  rewind(f);
  s = calloc(1, (size_t)n + 1);
  assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  return s;
}

static void test_model(void **state)
{
  rpd_tables ts = {0};
  (void)state;
  fill(&ts);
  const rpd_table *t = rpd_tables_find(&ts, "kernels");
  assert_non_null(t);
  assert_null(rpd_tables_find(&ts, "nope"));
  assert_int_equal(t->nrows, 2);
  assert_int_equal(rpd_table_col(t, "total_us"), 2);
  assert_int_equal(rpd_table_col(t, "x"), -1);
  assert_int_equal(rpd_table_col(NULL, "x"), -1);
  assert_true(rpd_cell_num(rpd_table_cell(t, 0, 2)) == 12.5);
  assert_int_equal(rpd_table_cell(t, 1, 2)->t, RPD_CELL_NULL);
  assert_true(isnan(rpd_cell_num(rpd_table_cell(t, 1, 0))));
  rpd_tables_free(&ts);
  assert_int_equal(ts.n, 0);
}

static void test_csv_full_names(void **state)
{
  rpd_tables ts = {0};
  char p[256];
  (void)state;
  fill(&ts);
  assert_int_equal(rpd_tables_csv_dir(&ts, dir, NULL), RPD_OK);
  snprintf(p, sizeof p, "%s/kernels.csv", dir);
  char *s = slurp(p);
  /* the name whole, the hostile one quoted, NULLs empty */
  assert_non_null(strstr(s, "name,count,total_us\r\n") ? s : strstr(s, "name,count,total_us\n"));
  assert_non_null(strstr(s, "ISA942_IU1_K1_KLA_LBSPPA128_TAIL,3,12.500"));
  assert_non_null(strstr(s, "\"<b>&\"\"x\"\"\",,"));
  free(s);
  /* the trace itself is refused before any work */
  snprintf(p, sizeof p, "%s/kernels.csv", dir);
  assert_int_not_equal(rpd_tables_csv_check(&ts, dir, p), RPD_OK);
  assert_non_null(strstr(rpd_errmsg(), "kernels.csv"));
  rpd_tables_free(&ts);
}

static void test_text_cut(void **state)
{
  rpd_tables ts = {0};
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  (void)state;
  fill(&ts);
  assert_int_equal(rpd_table_write(&ts.t[0], f, RPD_FMT_TABLE, 80), RPD_OK);
  fclose(f);
  /* fitted to 80 columns: the long name is cut in the middle (head ...
   * tail), every line at most 80 characters */
  for (char *l = buf, *e; *l; l = e + 1) {
    e = strchr(l, '\n');
    assert_non_null(e);
    assert_true(e - l <= 80);
  }
  assert_non_null(strstr(buf, "Cijk_Alik_Bljk_"));
  assert_non_null(strstr(buf, "..."));
  assert_non_null(strstr(buf, "LBSPPA128_TAIL"));
  assert_null(strstr(buf, "ASEM1_CLR1_CADS0"));
  free(buf);
  /* width 0: no limit, the name whole */
  f = open_memstream(&buf, &n);
  assert_int_equal(rpd_table_write(&ts.t[0], f, RPD_FMT_TABLE, 0), RPD_OK);
  fclose(f);
  assert_non_null(strstr(buf, "ASEM1_CLR1_CADS0"));
  free(buf);
  rpd_tables_free(&ts);
}

/* A streamed table writes what the whole table writes, row by row, and
 * holds one row at a time. */
static void test_stream_same_as_table(void **state)
{
  rpd_tables ts = {0};
  rpd_tstream st;
  char *a = NULL, *b = NULL;
  size_t na = 0, nb = 0;
  FILE *f;
  (void)state;
  fill(&ts);
  f = open_memstream(&a, &na);
  assert_int_equal(rpd_table_write(&ts.t[0], f, RPD_FMT_JSON, 0), RPD_OK);
  fclose(f);
  f = open_memstream(&b, &nb);
  rpd_tstream_out(&st, "kernels", 3, cols, f, RPD_FMT_JSON, 0);
  for (size_t r = 0; r < ts.t[0].nrows; r++) {
    for (int k = 0; k < 3; k++) {
      const rpd_cell *c = rpd_table_cell(&ts.t[0], r, k);
      if (c->t == RPD_CELL_STR) rpd_table_str(&st.t, c->s);
      else if (c->t == RPD_CELL_INT) rpd_table_int(&st.t, c->i);
      else if (c->t == RPD_CELL_DBL) rpd_table_dbl(&st.t, c->d, c->digits);
      else rpd_table_null(&st.t);
    }
    rpd_tstream_endrow(&st);
    assert_int_equal(st.t.nrows, 0);   /* nothing kept */
  }
  assert_int_equal(st.rows, 2);
  assert_int_equal(rpd_tstream_end(&st), RPD_OK);
  fclose(f);
  assert_string_equal(a, b);
  free(a);
  free(b);
  rpd_tables_free(&ts);
}

static void test_xlsx_whole(void **state)
{
  rpd_tables ts = {0};
  char p[256];
  struct stat sb;
  const char *info[] = { "trace", "t.rpd" };
  (void)state;
  fill(&ts);
  snprintf(p, sizeof p, "%s/t.xlsx", dir);
  assert_int_equal(rpd_tables_xlsx(&ts, p, NULL, "test", info, 1, NULL, NULL), RPD_OK);
  assert_int_equal(stat(p, &sb), 0);
  assert_true(sb.st_size > 1000);
  /* never over the input */
  assert_int_not_equal(rpd_tables_xlsx(&ts, p, p, "test", info, 1, NULL, NULL), RPD_OK);
  assert_non_null(strstr(rpd_errmsg(), "cannot write"));
  rpd_tables_free(&ts);
}

static void test_html_any_table(void **state)
{
  rpd_tables ts = {0};
  rpd_html h;
  char p[256];
  const char *info[] = { "trace", "a<b>.rpd" };
  (void)state;
  fill(&ts);
  snprintf(p, sizeof p, "%s/t.html", dir);
  assert_int_equal(rpd_html_begin(&h, p, NULL, "title", info, 1), RPD_OK);
  rpd_html_table(&h, &ts.t[0]);
  assert_int_equal(rpd_html_end(&h, RPD_OK), RPD_OK);
  char *s = slurp(p);
  assert_non_null(strstr(s, "<h2 id=\"kernels\">kernels</h2>"));
  assert_non_null(strstr(s, "a&lt;b&gt;.rpd"));
  assert_non_null(strstr(s, "&lt;b&gt;&amp;"));
  assert_null(strstr(s, "<b>&"));
  assert_non_null(strstr(s, "<td class=\"n\" data-v=\"3\">3</td>"));
  assert_non_null(strstr(s, "</body></html>\n"));
  free(s);
  /* a failed page leaves nothing */
  snprintf(p, sizeof p, "%s/u.html", dir);
  assert_int_equal(rpd_html_begin(&h, p, NULL, "title", info, 1), RPD_OK);
  assert_int_equal(rpd_html_end(&h, RPD_EIO), RPD_EIO);
  assert_int_not_equal(access(p, F_OK), 0);
  rpd_tables_free(&ts);
}

static int setup(void **state)
{
  (void)state;
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
  char cmd[300];
  (void)state;
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* Markdown: numbers right-aligned (also text that reads as a number),
 * Markdown characters escaped, leading blanks kept, full names unless
 * cut; RPD_FMT_MD through rpd_table_write and under "### name" on stdout. */
static void test_markdown(void **state)
{
  static const char *const mc[] = {"part", "ms", "change"};
  rpd_tables ts = {0};
  rpd_table *t;
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  (void)state;
  fill(&ts);
  t = rpd_tables_add(&ts);
  rpd_table_init(t, "parts", 3, mc, NULL);
  rpd_table_str(t, "GEMM|x");
  rpd_table_dbl(t, 2.5, 3);
  rpd_table_str(t, "+2,000,000");
  rpd_table_str(t, "  ↳ gemm_kernel");
  rpd_table_int(t, 7);
  rpd_table_str(t, "-0.125");
  assert_int_equal(rpd_table_write(t, f, RPD_FMT_MD, 80), RPD_OK);
  fclose(f);
  assert_string_equal(buf, "| part | ms | change |\n|---|---:|---:|\n"
                      "| GEMM\\|x | 2.500 | +2,000,000 |\n"
                      "| &nbsp;&nbsp;↳ gemm\\_kernel | 7 | -0.125 |\n");
  free(buf);
  /* the kernels table: text column left, numbers right, NULL empty, the
   * long name whole (rpd_table_write) or cut (rpd_table_md width 40) */
  f = open_memstream(&buf, &n);
  assert_int_equal(rpd_table_write(&ts.t[0], f, RPD_FMT_MD, 0), RPD_OK);
  fclose(f);
  assert_non_null(strstr(buf, "| name | count | total\\_us |\n|---|---:|---:|\n"));
  assert_non_null(strstr(buf, "ASEM1\\_CLR1\\_CADS0"));
  assert_non_null(strstr(buf, "| \\<b>&\"x\" |  |  |\n"));
  free(buf);
  f = open_memstream(&buf, &n);
  assert_int_equal(rpd_table_md(&ts.t[0], f, 40), RPD_OK);
  fclose(f);
  assert_null(strstr(buf, "ASEM1\\_CLR1\\_CADS0"));
  assert_non_null(strstr(buf, "..."));
  free(buf);
  /* no stream for Markdown: the alignment needs every row */
  rpd_tstream s;
  rpd_tstream_out(&s, "x", 3, mc, stdout, RPD_FMT_MD, 0);
  assert_int_not_equal(rpd_tstream_end(&s), RPD_OK);
  rpd_tables_free(&ts);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_model),
    cmocka_unit_test(test_csv_full_names),
    cmocka_unit_test(test_text_cut),
    cmocka_unit_test(test_stream_same_as_table),
    cmocka_unit_test(test_xlsx_whole),
    cmocka_unit_test(test_html_any_table),
    cmocka_unit_test(test_markdown),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
