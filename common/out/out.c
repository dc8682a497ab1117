/* out.c - result writers: aligned text table, CSV, JSON.
 *
 *  table  printed by rpd_out_end() with every column as wide as its widest
 *         cell (UTF-8 aware) up to RPD_OUT_PAD_MAX characters: a longer
 *         cell is printed whole and pushes the rest of its own line right,
 *         and no row is padded for it (one 100,000-character name would
 *         otherwise pad every row to it: gigabytes of blanks); numeric
 *         columns are right-aligned; a line of dashes under the header.  Control characters inside cells print
 *         as spaces so rows stay on one line.  The widths are kept while
 *         the rows arrive; the rows themselves stay in memory up to
 *         RPD_OUT_SPILL_DEFAULT bytes of cell text, and beyond that go to
 *         an unnamed temp file in $TMPDIR in chunks that are read back one
 *         at a time when the table prints, so memory stays flat in the
 *         number of rows.  If no temp file can be made or written, the
 *         rest stays in memory (same output, more memory).
 *  csv    RFC 4180, streamed row by row: CRLF line ends (like Python's csv
 *         module and the sqlite3 shell), fields quoted when they contain a
 *         comma, a quote, CR or LF, quotes doubled; NULL is an empty field.
 * Every format writes valid UTF-8: invalid bytes become U+FFFD
 * (common/out/textsafe.c, shared with the xlsx, HTML and JSON writers).
 *  json   an array of objects, one object per line, streamed; strings
 *         escaped per RFC 8259 (invalid UTF-8 becomes U+FFFD); NULL, NaN and
 *         infinities are null.
 * Doubles print with a fixed number of digits after the point, or with
 * digits = -1 as the shortest text that reads back exactly, in the form
 * Python's repr() uses (repr.c), so CSVs compare equal to those of the
 * Python tools.
 */
#define _GNU_SOURCE     /* O_TMPFILE, mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "rpd.h"
#include "textcut.h"
#include "textsafe.h"

/* --csv-raw: CSV cells written as they are (rpd_cli_csv_raw_opt sets it). */
int rpd_csv_raw;

struct rpd_out {
  FILE *f;
  rpd_fmt fmt;
  int ncols;
  char **names;
  int col;             /* cells written in the current row */
  int64_t nrows;
  rpd_buf row;         /* csv/json: the row being built */
  rpd_buf safe;        /* a cell's text made safe for the format */
  /* table mode: the cells of whole rows not yet spilled, each made safe
   * and NUL-terminated (NULL cells are empty text) */
  rpd_buf cells;
  size_t *width;       /* per column: widest cell or name so far */
  int *nonnum;         /* per column: some non-NULL cell is not a number */
  size_t spill_at;     /* spill cells once they hold this many bytes */
  int spill_fd;        /* the unnamed temp file, -1 until the first spill */
  int spill_failed;    /* no (more) spilling: the rest stays in cells */
  size_t *chunk;       /* byte length of each spilled chunk, in file order */
  size_t nchunk, capchunk;
  size_t fit;          /* table: at most this many columns wide (0: any) */
  size_t *full;        /* per column: its width before fitting */
  rpd_buf *cut;        /* per column: a cell cut to fit (rpd_text_cut) */
  size_t **apart;      /* per narrowed column, all rows in memory: each
                        * row's rpd_text_apart offset (else NULL) */
  size_t prow;         /* rows printed so far */
};

/* Cell bytes kept in memory before a table spills to a temp file. */
#define RPD_OUT_SPILL_DEFAULT ((size_t)4 << 20)
/* The widest a table column is padded to, in characters. */
#define RPD_OUT_PAD_MAX 512
#define MIN(a, b) ((a) < (b) ? (a) : (b))

/* "table", "csv", "json" (case-sensitive) -> *fmt.  RPD_EPARSE otherwise. */
int rpd_fmt_parse(const char *s, rpd_fmt *fmt)
{
  if (s && strcmp(s, "table") == 0)
    *fmt = RPD_FMT_TABLE;
  else if (s && strcmp(s, "csv") == 0)
    *fmt = RPD_FMT_CSV;
  else if (s && strcmp(s, "json") == 0)
    *fmt = RPD_FMT_JSON;
  else
    return rpd_seterr(RPD_EPARSE, "unknown format '%s' (use table, csv or json)",
                      s ? s : "");
  return RPD_OK;
}

/* ------------------------------------------------------------ escaping */

/* Append s as the body of a JSON string (see rpd.h).  b owns its memory. */
void rpd_json_escape(rpd_buf *b, const char *s)
{
  rpd_text_safe(b, s, RPD_TEXT_JSON);
}

/* 1 if s is a plain decimal number ([+-]digits[.digits][e[+-]digits], or
 * [+-].digits...): a spreadsheet reads it as that number, not a formula. */
static int plain_number(const char *s)
{
  int digits = 0;
  if (*s == '+' || *s == '-')
    s++;
  for (; *s >= '0' && *s <= '9'; s++)
    digits++;
  if (*s == '.')
    for (s++; *s >= '0' && *s <= '9'; s++)
      digits++;
  if (!digits)
    return 0;
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-')
      s++;
    if (*s < '0' || *s > '9')
      return 0;
    while (*s >= '0' && *s <= '9')
      s++;
  }
  return *s == '\0';
}

/* 1 if a spreadsheet would take the text s as a formula (OWASP's list:
 * = + - @ TAB CR first) and it is not a plain number. */
static int formula_like(const char *s)
{
  return s[0] && strchr("=+-@\t\r", s[0]) && !plain_number(s);
}

void rpd_csv_field(rpd_buf *b, const char *s, int quote_all)
{
  rpd_buf tmp = {0};
  int quote;
  s = rpd_text_safe_str(&tmp, s ? s : "", RPD_TEXT_CSV);
  quote = quote_all || strpbrk(s, ",\"\r\n") != NULL;
  if (quote)
    rpd_buf_add(b, "\"", 1);
  if (!rpd_csv_raw && formula_like(s))
    rpd_buf_add(b, "'", 1);
  if (!quote) {
    rpd_buf_puts(b, s);
  } else {
    for (const char *q; (q = strchr(s, '"')); s = q + 1) {
      rpd_buf_add(b, s, (size_t)(q - s));
      rpd_buf_add(b, "\"\"", 2);
    }
    rpd_buf_puts(b, s);
    rpd_buf_add(b, "\"", 1);
  }
  rpd_buf_free(&tmp);
}

/* One CSV field of the writer (rpd_csv_field); plain ASCII that needs
 * nothing done to it, and numbers, in one pass without a copy. */
static void csv_field(rpd_buf *b, const char *s, int numeric)
{
  const unsigned char *p = (const unsigned char *)s;

  if (numeric || !*p || !strchr("=+-@\t\r", *p)) {
    while (*p && *p < 0x80 && *p != ',' && *p != '"' && *p != '\r' && *p != '\n')
      p++;
    if (!*p) {
      rpd_buf_add(b, s, (size_t)(p - (const unsigned char *)s));
      return;
    }
  }
  rpd_csv_field(b, s, 0);
}

/* ------------------------------------------------------------ writer */

static void put_names_csv(rpd_out *o)
{
  rpd_buf_reset(&o->row);
  for (int i = 0; i < o->ncols; i++) {
    if (i)
      rpd_buf_add(&o->row, ",", 1);
    csv_field(&o->row, o->names[i], 0);
  }
  rpd_buf_add(&o->row, "\r\n", 2);
  fwrite(o->row.s, 1, o->row.len, o->f);
  rpd_buf_reset(&o->row);
}

/* Display width of a UTF-8 string: code points (continuation bytes do not
 * count). */
static size_t text_width(const char *s)
{
  size_t w = 0;
  for (; *s; s++)
    w += ((unsigned char)*s & 0xC0) != 0x80;
  return w;
}

/* RPD_OUT_SPILL_BYTES (a positive integer, for tests) or the default. */
static size_t spill_threshold(void)
{
  const char *e = getenv("RPD_OUT_SPILL_BYTES");
  char *end;
  unsigned long long v;
  if (!e || !*e)
    return RPD_OUT_SPILL_DEFAULT;
  errno = 0;
  v = strtoull(e, &end, 10);
  return errno || *end || v == 0 || *e == '-' ? RPD_OUT_SPILL_DEFAULT : (size_t)v;
}

/* Move the buffered rows (whole rows only) to the end of the temp file as
 * one chunk.  On any failure spilling stops and the rows stay in memory;
 * a chunk written in part is never read (only recorded chunks are). */
static void table_spill(rpd_out *o)
{
  size_t done = 0;
  if (o->spill_failed || o->cells.len == 0)
    return;
  if (o->spill_fd < 0 && (o->spill_fd = rpd_scratch_fd()) < 0) {
    o->spill_failed = 1;
    return;
  }
  while (done < o->cells.len) {
    ssize_t n = write(o->spill_fd, o->cells.s + done, o->cells.len - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      o->spill_failed = 1;
      return;
    }
    done += (size_t)n;
  }
  if (o->nchunk == o->capchunk) {
    o->capchunk = o->capchunk ? 2 * o->capchunk : 16;
    o->chunk = rpd_xrealloc(o->chunk, o->capchunk * sizeof *o->chunk);
  }
  o->chunk[o->nchunk++] = o->cells.len;
  rpd_buf_reset(&o->cells);
}

/* Read exactly n bytes at offset off of fd into *buf (grown as needed,
 * *cap its size; the caller frees *buf).  RPD_EIO on a read error or a
 * short file. */
static int read_chunk(int fd, off_t off, size_t n, char **buf, size_t *cap)
{
  size_t done = 0;
  if (n > *cap) {
    *buf = rpd_xrealloc(*buf, n);
    *cap = n;
  }
  while (done < n) {
    ssize_t k = pread(fd, *buf + done, n - done, off + (off_t)done);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return rpd_seterr(RPD_EIO, "cannot read the table's temporary file: %s",
                        k < 0 ? strerror(errno) : "file is short");
    done += (size_t)k;
  }
  return RPD_OK;
}

/* Start a writer (see rpd.h).  The writer copies names; f stays the
 * caller's.  Free with rpd_out_end(). */
rpd_out *rpd_out_new(FILE *f, rpd_fmt fmt, int ncols, const char *const *names)
{
  rpd_out *o = rpd_xcalloc(1, sizeof *o);
  o->f = f;
  o->fmt = fmt == RPD_FMT_MD ? RPD_FMT_TABLE : fmt;   /* Markdown: table.h's writers */
  fmt = o->fmt;
  o->ncols = ncols > 0 ? ncols : 0;
  o->names = rpd_xcalloc((size_t)o->ncols + 1, sizeof *o->names);
  for (int i = 0; i < o->ncols; i++) {
    const char *n = names && names[i] ? names[i] : "";
    if (fmt == RPD_FMT_TABLE)   /* printed as they are: make them safe now */
      n = rpd_text_safe_str(&o->safe, n, RPD_TEXT_PLAIN);
    o->names[i] = rpd_xstrdup(n);
  }
  o->nonnum = rpd_xcalloc((size_t)o->ncols + 1, sizeof *o->nonnum);
  o->width = rpd_xcalloc((size_t)o->ncols + 1, sizeof *o->width);
  for (int i = 0; i < o->ncols; i++)
    o->width[i] = MIN(text_width(o->names[i]), RPD_OUT_PAD_MAX);
  o->spill_fd = -1;
  o->spill_at = spill_threshold();
  if (fmt == RPD_FMT_CSV)
    put_names_csv(o);
  else if (fmt == RPD_FMT_JSON)
    fputs("[", f);
  return o;
}

/* Record one table cell (text copied; control characters become spaces,
 * invalid UTF-8 U+FFFD) and widen its column if needed. */
static void table_cell(rpd_out *o, const char *s, int numeric)
{
  size_t start = o->cells.len;
  if (s) {
    rpd_text_safe(&o->cells, s, RPD_TEXT_PLAIN);
    if (!numeric)
      o->nonnum[o->col] = 1;
  }
  rpd_buf_add(&o->cells, " ", 1);  /* room for the terminating NUL */
  o->cells.s[o->cells.len - 1] = '\0';
  size_t w = text_width(o->cells.s + start);
  w = MIN(w, RPD_OUT_PAD_MAX);
  if (w > o->width[o->col])
    o->width[o->col] = w;
}

/* One cell: s is its text (NULL = SQL NULL), numeric says whether s is a
 * number (JSON writes it unquoted). */
static void cell(rpd_out *o, const char *s, int numeric)
{
  if (o->col >= o->ncols)
    return;  /* extra cells are ignored */
  switch (o->fmt) {
  case RPD_FMT_MD:      /* never: rpd_out_new makes it TABLE */
  case RPD_FMT_TABLE:
    table_cell(o, s, numeric);
    break;
  case RPD_FMT_CSV:
    if (o->col)
      rpd_buf_add(&o->row, ",", 1);
    if (s)
      csv_field(&o->row, s, numeric);
    break;
  case RPD_FMT_JSON:
    rpd_buf_add(&o->row, o->col ? ", \"" : "{\"", o->col ? 3 : 2);
    rpd_json_escape(&o->row, o->names[o->col]);
    rpd_buf_add(&o->row, "\": ", 3);
    if (!s)
      rpd_buf_add(&o->row, "null", 4);
    else if (numeric)
      rpd_buf_puts(&o->row, s);
    else {
      rpd_buf_add(&o->row, "\"", 1);
      rpd_json_escape(&o->row, s);
      rpd_buf_add(&o->row, "\"", 1);
    }
    break;
  }
  o->col++;
}

/* A text cell; NULL s is SQL NULL. */
void rpd_out_str(rpd_out *o, const char *s)
{
  cell(o, s, 0);
}

/* An integer cell (formatted by hand: snprintf dominates large dumps). */
void rpd_out_int(rpd_out *o, int64_t v)
{
  char t[24], *p = t + sizeof t - 1;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

  *p = '\0';
  do {
    *--p = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0)
    *--p = '-';
  cell(o, p, 1);
}

/* A floating-point cell: digits after the point, or -1 for the shortest
 * exact form.  NaN and infinities are null in JSON. */
void rpd_out_double(rpd_out *o, double v, int digits)
{
  char t[400];
  if (!isfinite(v) && o->fmt == RPD_FMT_JSON) {
    cell(o, NULL, 1);
    return;
  }
  if (digits >= 0 && isfinite(v))
    snprintf(t, sizeof t, "%.*f", digits > 30 ? 30 : digits, v);
  else
    rpd__double_repr(t, sizeof t, v);
  cell(o, t, 1);
}

/* A NULL cell. */
void rpd_out_null(rpd_out *o)
{
  cell(o, NULL, 0);
}

/* End the current row; missing cells are NULL. */
void rpd_out_endrow(rpd_out *o)
{
  while (o->col < o->ncols)
    cell(o, NULL, 0);
  switch (o->fmt) {
  case RPD_FMT_MD:
  case RPD_FMT_TABLE:
    if (o->cells.len >= o->spill_at)
      table_spill(o);
    break;
  case RPD_FMT_CSV:
    rpd_buf_add(&o->row, "\r\n", 2);
    fwrite(o->row.s, 1, o->row.len, o->f);
    break;
  case RPD_FMT_JSON:
    if (o->ncols == 0)
      rpd_buf_add(&o->row, "{", 1);
    rpd_buf_add(&o->row, "}", 1);
    fputs(o->nrows ? ",\n" : "\n", o->f);
    fwrite(o->row.s, 1, o->row.len, o->f);
    break;
  }
  rpd_buf_reset(&o->row);
  o->col = 0;
  o->nrows++;
}

static void pad(rpd_buf *b, size_t n)
{
  while (n--)
    rpd_buf_add(b, " ", 1);
}

/* Print one table line; right-aligned columns are those without
 * non-numeric cells.  Trailing blanks are dropped. */
static void table_line(rpd_out *o, const char *const *text, const size_t *w,
                       rpd_buf *line)
{
  rpd_buf_reset(line);
  for (int i = 0; i < o->ncols; i++) {
    size_t tw = text_width(text[i]);
    int right = !o->nonnum[i];
    size_t gap = tw < w[i] ? w[i] - tw : 0;   /* a cell past the cap: none */
    if (i)
      rpd_buf_add(line, "  ", 2);
    if (right)
      pad(line, gap);
    rpd_buf_puts(line, text[i]);
    if (!right)
      pad(line, gap);
  }
  while (line->len > 0 && line->s[line->len - 1] == ' ')
    line->len--;
  rpd_buf_add(line, "\n", 1);
  fwrite(line->s, 1, line->len, o->f);
}

/* Print the rows held in s[0..len) (whole rows of NUL-terminated cells);
 * a cell of a column narrowed by table_fit is cut in its middle. */
static void table_rows(rpd_out *o, const char *s, size_t len, const char **text)
{
  const char *end = s + len;
  while (s < end) {
    for (int c = 0; c < o->ncols; c++) {
      text[c] = s;
      s += strlen(s) + 1;
      if (o->cut && o->width[c] < o->full[c])
        text[c] = rpd_text_cut_apart(&o->cut[c], text[c], o->width[c],
                                     o->apart && o->apart[c] ? o->apart[c][o->prow] : 0);
    }
    table_line(o, text, o->width, &o->row);
    o->prow++;
  }
}

/* For each narrowed column of a table held wholly in memory: where each
 * cell first differs from the cells most like it (rpd_text_apart), so
 * that the cut keeps that place in view. */
static void table_apart(rpd_out *o)
{
  const char *s = o->cells.s, *end = o->cells.s + o->cells.len;
  const char **col;
  if (o->nchunk || !o->nrows || !s)
    return;
  col = rpd_xcalloc((size_t)o->nrows * (size_t)o->ncols + 1, sizeof *col);
  for (size_t r = 0; s < end; r++)
    for (int c = 0; c < o->ncols; c++) {
      col[(size_t)c * (size_t)o->nrows + r] = s;
      s += strlen(s) + 1;
    }
  o->apart = rpd_xcalloc((size_t)o->ncols + 1, sizeof *o->apart);
  for (int c = 0; c < o->ncols; c++)
    if (o->width[c] < o->full[c]) {
      o->apart[c] = rpd_xcalloc((size_t)o->nrows + 1, sizeof **o->apart);
      rpd_text_apart(col + (size_t)c * (size_t)o->nrows, (size_t)o->nrows, o->apart[c]);
    }
  free(col);
}

/* With o->fit set: narrow the widest text columns, one character at a
 * time, until a line is at most o->fit wide; a column keeps at least its
 * name's width and 12 characters.  Numbers are never cut. */
static void table_fit(rpd_out *o)
{
  size_t total = o->ncols > 0 ? 2 * (size_t)(o->ncols - 1) : 0;
  if (!o->fit || o->fmt != RPD_FMT_TABLE)
    return;
  for (int c = 0; c < o->ncols; c++)
    total += o->width[c];
  if (total <= o->fit)
    return;
  o->full = rpd_xcalloc((size_t)o->ncols + 1, sizeof *o->full);
  o->cut = rpd_xcalloc((size_t)o->ncols + 1, sizeof *o->cut);
  for (int c = 0; c < o->ncols; c++)
    o->full[c] = o->width[c];
  while (total > o->fit) {
    int widest = -1;
    for (int c = 0; c < o->ncols; c++) {
      size_t least = text_width(o->names[c]);
      if (least < 12)
        least = 12;
      if (o->nonnum[c] && o->width[c] > least &&
          (widest < 0 || o->width[c] > o->width[widest]))
        widest = c;
    }
    if (widest < 0)
      break;                  /* nothing left to narrow: print it wide */
    o->width[widest]--;
    total--;
  }
  table_apart(o);
}

void rpd_out_fit(rpd_out *o, size_t width)
{
  if (o)
    o->fit = width;
}

/* Print the header, the dashes, the spilled chunks in order, then the rows
 * still in memory.  RPD_EIO if a chunk cannot be read back. */
static int table_print(rpd_out *o)
{
  const char **text = rpd_xcalloc((size_t)o->ncols + 1, sizeof *text);
  char **dash = rpd_xcalloc((size_t)o->ncols + 1, sizeof *dash);
  char *back = NULL;
  size_t backcap = 0;
  off_t off = 0;
  int rc = RPD_OK;

  table_fit(o);
  for (int c = 0; c < o->ncols; c++) {
    dash[c] = rpd_xmalloc(o->width[c] + 1);
    memset(dash[c], '-', o->width[c]);
    dash[c][o->width[c]] = '\0';
  }
  table_line(o, (const char *const *)o->names, o->width, &o->row);
  table_line(o, (const char *const *)dash, o->width, &o->row);
  for (size_t i = 0; !rc && i < o->nchunk && !ferror(o->f); i++) {
    rc = read_chunk(o->spill_fd, off, o->chunk[i], &back, &backcap);
    if (!rc)
      table_rows(o, back, o->chunk[i], text);
    off += (off_t)o->chunk[i];
  }
  if (!rc && o->cells.len)
    table_rows(o, o->cells.s, o->cells.len, text);
  for (int c = 0; c < o->ncols; c++)
    free(dash[c]);
  free(dash);
  free(text);
  free(back);
  return rc;
}

/* Finish the output (tables print here), flush, free o.  RPD_EIO if any
 * write to the stream failed. */
int rpd_out_end(rpd_out *o)
{
  int rc = RPD_OK;
  if (!o)
    return RPD_OK;
  if (o->col)
    rpd_out_endrow(o);
  if (o->fmt == RPD_FMT_TABLE && o->ncols > 0)
    rc = table_print(o);
  else if (o->fmt == RPD_FMT_JSON)
    fputs(o->nrows ? "\n]\n" : "]\n", o->f);
  if ((fflush(o->f) != 0 || ferror(o->f)) && rc == RPD_OK)
    rc = rpd_seterr(RPD_EIO, "write error on output");
  for (int i = 0; i < o->ncols; i++)
    free(o->names[i]);
  free(o->names);
  free(o->nonnum);
  free(o->width);
  free(o->chunk);
  if (o->cut)
    for (int i = 0; i < o->ncols; i++)
      rpd_buf_free(&o->cut[i]);
  free(o->cut);
  free(o->full);
  if (o->apart)
    for (int i = 0; i < o->ncols; i++)
      free(o->apart[i]);
  free(o->apart);
  if (o->spill_fd >= 0)
    close(o->spill_fd);
  rpd_buf_free(&o->cells);
  rpd_buf_free(&o->row);
  rpd_buf_free(&o->safe);
  free(o);
  return rc;
}

/* Write every row of st (from its current position) to f in fmt, column
 * names from the statement, each value by its SQLite type (integer, real
 * in shortest exact form, text, NULL; blobs as text).  r (may be NULL) is
 * used for error reporting.  The caller still finalizes st. */
int rpd_out_stmt(rpd *r, sqlite3_stmt *st, FILE *f, rpd_fmt fmt)
{
  return rpd_out_stmt_fit(r, st, f, fmt, 0);
}

/* rpd_out_stmt with the table at most width columns wide (rpd_out_fit;
 * 0 = as wide as the widest cells). */
int rpd_out_stmt_fit(rpd *r, sqlite3_stmt *st, FILE *f, rpd_fmt fmt, size_t width)
{
  int n = sqlite3_column_count(st), s, rc = RPD_OK;
  const char **names = rpd_xcalloc((size_t)n + 1, sizeof *names);
  rpd_out *o;

  for (int i = 0; i < n; i++)
    names[i] = sqlite3_column_name(st, i);
  o = rpd_out_new(f, fmt, n, names);
  rpd_out_fit(o, width);
  free(names);
  for (;;) {
    s = r ? rpd_step(r, st) : sqlite3_step(st);
    if (s != SQLITE_ROW)
      break;
    for (int i = 0; i < n; i++) {
      switch (sqlite3_column_type(st, i)) {
      case SQLITE_INTEGER:
        rpd_out_int(o, sqlite3_column_int64(st, i));
        break;
      case SQLITE_FLOAT:
        rpd_out_double(o, sqlite3_column_double(st, i), -1);
        break;
      case SQLITE_NULL:
        rpd_out_null(o);
        break;
      default:
        rpd_out_str(o, (const char *)sqlite3_column_text(st, i));
      }
    }
    rpd_out_endrow(o);
    if (ferror(f))
      break;
  }
  if (s < 0)
    rc = -s;
  else if (s != SQLITE_ROW && s != SQLITE_DONE)
    rc = rpd_seterr(RPD_ESQL, "%s", sqlite3_errstr(s));
  {
    int rc2 = rpd_out_end(o);
    if (rc == RPD_OK)
      rc = rc2;
  }
  return rc;
}
