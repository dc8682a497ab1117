/* table_md.c - tables as GitHub-flavoured Markdown (a PR comment, a CI
 * summary): a header row of the column names, columns of numbers aligned
 * right, every text cell made safe and its Markdown characters escaped.
 * See table.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "table.h"
#include "textcut.h"
#include "textsafe.h"

/* 1 if s is a number written for reading: [+-]digits with ',' groups,
 * [.digits] ("+2,000,000", "-0.125"). */
static int reads_as_number(const char *s)
{
  if (*s == '+' || *s == '-')
    s++;
  if (*s < '0' || *s > '9')
    return 0;
  while ((*s >= '0' && *s <= '9') || *s == ',')
    s++;
  if (*s == '.') {
    if (s[1] < '0' || s[1] > '9')
      return 0;
    for (s++; *s >= '0' && *s <= '9'; s++)
      ;
  }
  return *s == '\0';
}

/* 1 if every cell of column k that is not NULL is a number (and one is). */
static int numeric_column(const rpd_table *t, int k)
{
  int seen = 0;
  for (size_t r = 0; r < t->nrows; r++) {
    const rpd_cell *c = rpd_table_cell(t, r, k);
    if (c->t == RPD_CELL_NULL)
      continue;
    if (c->t == RPD_CELL_STR && !reads_as_number(c->s))
      return 0;
    seen = 1;
  }
  return seen;
}

/* s (NULL: "") as Markdown text (see table.h). */
void rpd_md_text(FILE *f, const char *s)
{
  rpd_buf b = {0};
  const char *t = rpd_text_safe_str(&b, s ? s : "", RPD_TEXT_PLAIN);
  for (; *t == ' '; t++)   /* a cell's leading blanks would be dropped */
    fputs("&nbsp;", f);
  for (; *t; t++) {
    if (strchr("|\\`*_<", *t))
      fputc('\\', f);
    fputc(*t, f);
  }
  rpd_buf_free(&b);
}

/* One cell between the bars (without them). */
static void md_cell(FILE *f, const rpd_cell *c, size_t width)
{
  char num[64];
  switch (c->t) {
  case RPD_CELL_INT:
    fprintf(f, "%" PRId64, c->i);
    break;
  case RPD_CELL_DBL:
    if (c->digits >= 0)
      snprintf(num, sizeof num, "%.*f", c->digits, c->d);
    else
      rpd__double_repr(num, sizeof num, c->d);
    fputs(num, f);
    break;
  case RPD_CELL_STR:
    if (width) {
      rpd_buf b = {0};
      rpd_md_text(f, rpd_text_cut(&b, c->s, width));
      rpd_buf_free(&b);
    } else {
      rpd_md_text(f, c->s);
    }
    break;
  default:
    break;
  }
}

/* t as a Markdown table (see table.h). */
int rpd_table_md(const rpd_table *t, FILE *f, size_t width)
{
  if (t->sql) {   /* a query table: its rows in memory (alignment needs them all) */
    rpd_table m;
    int rc = rpd__table_load(t, &m);
    if (!rc)
      rc = rpd_table_md(&m, f, width);
    rpd_table_free(&m);
    return rc;
  }
  fputs("|", f);
  for (int k = 0; k < t->ncols; k++) {
    fputc(' ', f);
    rpd_md_text(f, t->cols[k]);
    fputs(" |", f);
  }
  fputs("\n|", f);
  for (int k = 0; k < t->ncols; k++)
    fputs(numeric_column(t, k) ? "---:|" : "---|", f);
  fputc('\n', f);
  for (size_t r = 0; r < t->nrows; r++) {
    fputc('|', f);
    for (int k = 0; k < t->ncols; k++) {
      fputc(' ', f);
      md_cell(f, rpd_table_cell(t, r, k), width);
      fputs(" |", f);
    }
    fputc('\n', f);
  }
  if (ferror(f))
    return rpd_seterr(RPD_EIO, "write error");
  return RPD_OK;
}
