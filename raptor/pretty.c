/* pretty.c - classic raptor's "pretty" kernelseq table (Top Kernels:):
 * the reference's pandas layout for text, real numbers for xlsx, and a
 * text table fitted to --width (names cut apart, then the least needed
 * columns left out).  See docs/raptor.md "Output". */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpd.h"
#include "raptor.h"
#include "sink.h"
#include "textcut.h"

static inline size_t zmin(size_t a, size_t b) { return a < b ? a : b; }
static inline size_t zmax(size_t a, size_t b) { return a > b ? a : b; }

/* The numeric columns of a pretty kernelseq row for xlsx: First_ms ..
 * PctTotal as numbers (percent columns in 0..100), missing values empty. */
static void pretty_numbers(sink *k, const krow *x, double totvar)
{
  sk_dbl(k, (double)x->smin / 1e6);
  sk_dbl(k, (double)x->smax / 1e6);
  sk_dbl(k, x->pg_mean / 1e3);
  sk_dbl(k, x->d_min / 1e3);
  sk_dbl(k, x->d_mean / 1e3);
  sk_dbl(k, x->d_max / 1e3);
  sk_dbl(k, x->varsum / 1000.0 / (double)x->calls);
  sk_dbl(k, totvar > 0 ? x->varsum / totvar * 100.0 : NAN);
  if (x->outliers >= 0) sk_int(k, x->outliers); else sk_dbl(k, NAN);
  sk_int(k, x->calls);
  sk_dbl(k, x->pct);
}

/* Row x's "Kernel Sequence" text into seq (reset first). */
static void seq_label(const raptor *R, const krow *x, int w, rpd_buf *seq)
{
  rpd_buf_reset(seq);
  if (x->key >= 0) {
    for (int j = 0; j < w; j++) {
      if (j) rpd_buf_puts(seq, " <- ");
      rpd_buf_puts(seq, R->names[R->keyk[(size_t)x->key * w + j]]);
    }
  } else {
    rpd_buf_puts(seq, x->label);
  }
}

/* Text tables: where each of the first n rows' sequence text first
 * differs from the most similar other row's (rpd_text_apart), so that
 * the cut keeps it in view; caller frees. */
static size_t *seq_apart(const raptor *R, size_t n, int w)
{
  char **labels = rpd_xcalloc(n + 1, sizeof *labels);
  size_t *apart = rpd_xcalloc(n + 1, sizeof *apart);
  rpd_buf seq = {0};
  for (size_t i = 0; i < n; i++) {
    seq_label(R, &R->rows[i], w, &seq);
    labels[i] = rpd_xstrdup(seq.s ? seq.s : "");
  }
  rpd_text_apart((const char *const *)labels, n, apart);
  for (size_t i = 0; i < n; i++)
    free(labels[i]);
  free(labels);
  rpd_buf_free(&seq);
  return apart;
}

/* The text of the pretty columns after "Kernel Sequence" for row x
 * (c[0] First_ms .. c[10] PctTotal; the category is R->catname[x->cat]).
 * c[6], Var_us, is written as a number cell; its text here is what the
 * table shows, for measuring. */
#define PRETTY_NUMS 11
static void pretty_text(const raptor *R, const krow *x, double totvar,
                        char c[PRETTY_NUMS][48])
{
  double var = x->varsum / 1000.0 / (double)x->calls;
  snprintf(c[0], 48, "%+.3f", (double)x->smin / 1e6);
  snprintf(c[1], 48, "%+.3f", (double)x->smax / 1e6);
  if (isnan(x->pg_mean)) snprintf(c[2], 48, "nan");
  else snprintf(c[2], 48, "%.1f", x->pg_mean / 1e3);
  snprintf(c[3], 48, "%.1f", x->d_min / 1e3);
  snprintf(c[4], 48, "%.1f", x->d_mean / 1e3);
  snprintf(c[5], 48, "%.1f", x->d_max / 1e3);
  if (isfinite(var)) snprintf(c[6], 48, "%.*f", R->float_digits, var);
  else snprintf(c[6], 48, "NaN");
  fmt_pct1(c[7], 48, x->varsum / totvar);
  if (x->outliers >= 0) snprintf(c[8], 48, "%" PRId64, x->outliers);
  else snprintf(c[8], 48, "nan");
  snprintf(c[9], 48, "%" PRId64, x->calls);
  snprintf(c[10], 48, "%.1f%%", x->pct);
}

/* The readable least of a kernel-sequence column fitted to --width. */
#define SEQ_MIN 24

/* Which pretty columns (1..12) a text table at most `width` columns wide
 * keeps, and how wide its "Kernel Sequence" column is: the names shrink
 * first (never below SEQ_MIN), then the least needed columns are left out
 * (timestamps first; PctTotal stays), then the names take back the room
 * left.  cw[k]: the widest text of column k (k = 0 the names, uncut). */
static size_t pretty_fit(const size_t *cw, size_t width, int *keep)
{
  static const int drop_order[] = {1, 2, 3, 4, 6, 8, 7, 9, 5, 10, 12};
  size_t others = 0;
  for (int k = 1; k < 13; k++) {
    keep[k] = 1;
    others += cw[k] + 2;
  }
  keep[0] = 1;
  for (size_t i = 0; i < sizeof drop_order / sizeof *drop_order &&
                     others + zmin(cw[0], SEQ_MIN) > width; i++) {
    keep[drop_order[i]] = 0;
    others -= cw[drop_order[i]] + 2;
  }
  size_t room = width > others ? width - others : 0;
  return zmax(zmin(cw[0], room), zmin(cw[0], SEQ_MIN));
}

/* The pretty kernelseq table (text tables and xlsx).  A text table on
 * stdout is fitted to table_width (pretty_fit): names cut in the middle
 * where rows differ (rpd_text_cut_apart), columns left out named after
 * it. */
int emit_pretty(raptor *R, sink *k, FILE *f, const char *ws, int limit)
{
  static const char *const cols[] = {
    "Kernel Sequence", "First_ms", "Last_ms", "PreGap_mean_us", "Dur_min_us",
    "Dur_mean_us", "Dur_max_us", "Var_us", "VarTotal_pct", "Outliers",
    "TotalCalls", "PctTotal", "Category"};
  int w = R->seqlen + 1, keep[13], nk = 0;
  const char *kcols[13];
  double totvar = 0;
  char c[PRETTY_NUMS][48];
  size_t width = table_width(R, f, ws);
  size_t seqw = R->display_cols > 3 ? (size_t)R->display_cols : 0;   /* 0: whole */
  for (size_t i = 0; i < R->nrows; i++)
    if (!isnan(R->rows[i].varsum)) totvar += R->rows[i].varsum;
  rpd_buf seq = {0};
  size_t n = R->nrows;
  if (limit >= 0 && n > (size_t)limit) n = (size_t)limit;
  size_t *apart = ws || width ? NULL : seq_apart(R, n, w);
  char **labels = NULL, **cuts = NULL;   /* fitted: the names, as cut */
  rpd_buf cut = {0};
  for (int j = 0; j < 13; j++)
    keep[j] = 1;
  if (width) {   /* measure the columns, then fit them */
    size_t cw[13];
    for (int j = 0; j < 13; j++)
      cw[j] = rpd_text_width(cols[j]);
    labels = rpd_xcalloc(n + 1, sizeof *labels);
    for (size_t i = 0; i < n; i++) {
      const krow *x = &R->rows[i];
      seq_label(R, x, w, &seq);
      labels[i] = rpd_xstrdup(seq.s ? seq.s : "");
      size_t lw = rpd_text_width(labels[i]);
      cw[0] = zmax(cw[0], seqw ? zmin(lw, seqw) : lw);
      pretty_text(R, x, totvar, c);
      for (int j = 0; j < PRETTY_NUMS; j++)
        cw[1 + j] = zmax(cw[1 + j], rpd_text_width(c[j]));
      cw[12] = zmax(cw[12], rpd_text_width(R->catname[x->cat]));
    }
    seqw = pretty_fit(cw, width, keep);
    /* rows that would still read the same get a window where they differ */
    cuts = rpd_text_cut_distinct((const char *const *)labels, n, seqw);
  }
  for (int j = 0; j < 13; j++)
    if (keep[j]) kcols[nk++] = cols[j];
  sk_begin_w(k, R, f, ws, nk, kcols, 0);   /* fitted here, never cut further */
  for (size_t i = 0; i < n; i++) {
    krow *x = &R->rows[i];
    seq_label(R, x, w, &seq);
    if (cuts)
      sk_str(k, cuts[i]);
    else if (ws || !seqw)
      sk_str(k, seq.s);
    else   /* pandas' max_colwidth, cut in the middle where rows differ */
      sk_str(k, rpd_text_cut_apart(&cut, seq.s, seqw, apart[i]));
    if (ws) {   /* xlsx: real numbers in formatted cells, never text */
      pretty_numbers(k, x, totvar);
      sk_str(k, R->catname[x->cat]);
      sk_endrow(k);
      continue;
    }
    pretty_text(R, x, totvar, c);
    for (int j = 1; j < 13; j++) {
      if (!keep[j]) continue;
      if (j == 7) sk_dbl(k, x->varsum / 1000.0 / (double)x->calls);
      else if (j == 12) sk_str(k, R->catname[x->cat]);
      else sk_str(k, c[j - 1]);
    }
    sk_endrow(k);
  }
  rpd_buf_free(&seq);
  rpd_buf_free(&cut);
  free(apart);
  for (size_t i = 0; labels && i < n; i++) {
    free(labels[i]);
    free(cuts[i]);
  }
  free(labels);
  free(cuts);
  int rc = sk_end(k);
  if (nk < 13)
    fprintf(f, "(%d columns left out to fit --width %zu; --width 0 shows them)\n", 13 - nk,
            width);
  return rc;
}

