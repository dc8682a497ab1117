/* csvread.c - rpd-import: the rocprofv3 CSV parser, one record at a time
 * (see csvread.h). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rpd.h"
#include "csvread.h"
#include "strictint.h"

/* ------------------------------------------------------------ CSV input */

enum { CSV_CHUNK = 1 << 18 };

/* The import whose progress line counts the bytes read (import_csv sets
 * it for the duration of a set; NULL otherwise). */
imp *csv_prog;

/* Read the next block: 1 when there are bytes, 0 at the end. */
static int csv_refill(csv *c)
{
  if (!c->buf)
    c->buf = rpd_xmalloc(CSV_CHUNK);
  c->len = fread(c->buf, 1, CSV_CHUNK, c->f);
  c->pos = 0;
  if (csv_prog)
    prog_add(csv_prog, (int64_t)c->len);
  return c->len > 0;
}

/* Room for n more bytes in the record (and its final NUL). */
static void rec_reserve(csv *c, size_t n)
{
  if (c->rlen + n + 1 > c->rcap) {
    while (c->rlen + n + 1 > c->rcap)
      c->rcap = c->rcap ? 2 * c->rcap : 1024;
    c->rec = rpd_xrealloc(c->rec, c->rcap);
  }
}

/* Room for one more field offset. */
static void fld_reserve(csv *c)
{
  if (c->nfld == c->capfld) {
    c->capfld = c->capfld ? 2 * c->capfld : 32;
    c->off = rpd_xrealloc(c->off, c->capfld * sizeof *c->off);
  }
}

/* Scanner states of csv_next, kept across buffer refills. */
enum { CS_PLAIN, CS_QUOTED, CS_QUOTE_SEEN, CS_SKIP, CS_SKIP_QUOTED };

/* Read one RFC 4180 record into c->rec/off; 1 = got one, 0 = EOF,
 * -1 = error.  Quoted fields may hold commas, "" and newlines; CR is
 * dropped outside quotes.  One pass over the read buffer with a write
 * pointer into the record: the record has room for the whole buffered
 * rest before the scan, so the inner loop checks no capacity. */
int csv_next(csv *c)
{
  int st = CS_PLAIN, any = 0;
  size_t fstart = 0;        /* start of the current field in rec */
  c->rlen = 0;
  c->nfld = 0;
  c->line = c->nextline;
  fld_reserve(c);
  c->off[c->nfld++] = 0;
  for (;;) {
    if (c->pos >= c->len && !csv_refill(c)) {
      if (st == CS_QUOTED || st == CS_SKIP_QUOTED)
        return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": unterminated quoted "
                          "field at end of file", c->path, c->line), -1;
      if (!any)
        return 0;
      rec_reserve(c, 0);
      c->rec[c->rlen] = '\0';
      return 1;
    }
    any = 1;
    rec_reserve(c, c->len - c->pos);
    const char *p = c->buf + c->pos, *e = c->buf + c->len;
    char *w = c->rec + c->rlen;
    int64_t nl = 0;
    while (p < e) {
      if (st >= CS_SKIP) {
        /* the fields after c->keep: find the record's end, minding
         * quotes ("" toggles twice), copying nothing */
        if (st == CS_SKIP_QUOTED) {
          const char *q = memchr(p, '"', (size_t)(e - p));
          for (const char *x = p; x < (q ? q : e); x++)
            nl += *x == '\n';
          p = q ? q + 1 : e;
          if (q)
            st = CS_SKIP;
          continue;
        }
        while (p < e && *p != '\n' && *p != '"')
          p++;
        if (p < e && *p == '"') {
          p++;
          st = CS_SKIP_QUOTED;
          continue;
        }
        if (p == e)
          continue;
      }
      char ch = *p++;
      if (st == CS_QUOTED) {
        /* the run up to the closing quote */
        const char *q = p - 1;
        while (q < e && *q != '"') {
          nl += *q == '\n';
          *w++ = *q++;
        }
        p = q + (q < e);
        if (q < e)
          st = CS_QUOTE_SEEN;
        continue;
      }
      if (st == CS_QUOTE_SEEN) {
        if (ch == '"') {          /* "" inside quotes */
          *w++ = '"';
          st = CS_QUOTED;
          continue;
        }
        st = CS_PLAIN;
      }
      if (ch == ',') {
        *w++ = '\0';
        c->rlen = (size_t)(w - c->rec);
        fld_reserve(c);
        c->off[c->nfld++] = c->rlen;
        fstart = c->rlen;
        if (c->keep && c->nfld > c->keep)
          st = CS_SKIP;
      } else if (ch == '"' && (size_t)(w - c->rec) == fstart) {
        st = CS_QUOTED;
      } else if (ch == '\n') {
        *w = '\0';
        c->rlen = (size_t)(w - c->rec);
        c->pos = (size_t)(p - c->buf);
        c->nextline += nl + 1;
        return 1;
      } else if (ch != '\r') {
        *w++ = ch;
      }
    }
    c->rlen = (size_t)(w - c->rec);
    c->pos = c->len;
    c->nextline += nl;
  }
}

void csv_close(csv *c)
{
  if (c->f)
    fclose(c->f);
  free(c->buf);
  free(c->rec);
  free(c->off);
  for (int i = 0; i < c->nhdr; i++)
    free(c->hdr[i]);
  free(c->hdr);
  memset(c, 0, sizeof *c);
}

/* Open the CSV file path -- or read the stream f (taken over) when not
 * NULL -- and read its header. */
int csv_open(csv *c, const char *path, FILE *f)
{
  memset(c, 0, sizeof *c);
  c->path = path;
  c->nextline = 1;
  c->f = f ? f : fopen(path, "r");
  if (!c->f)
    return rpd_seterr(RPD_EIO, "cannot read '%s': %s", path, strerror(errno));
  int g = csv_next(c);
  if (g < 0)
    return RPD_EPARSE;
  if (g == 0)
    return rpd_seterr(RPD_EPARSE, "%s: empty file (no header line)", path);
  c->nhdr = c->nfld;
  c->hdr = rpd_xcalloc(c->nhdr, sizeof *c->hdr);
  for (int i = 0; i < c->nhdr; i++)
    c->hdr[i] = rpd_xstrdup(c->rec + c->off[i]);
  return RPD_OK;
}

/* Column index of the first of the '|'-separated names, or -1. */
int csv_col(const csv *c, const char *names)
{
  const char *p = names;
  while (*p) {
    size_t len = strcspn(p, "|");
    for (int i = 0; i < c->nhdr; i++)
      if (strlen(c->hdr[i]) == len && !strncasecmp(c->hdr[i], p, len))
        return i;
    p += len;
    if (*p)
      p++;
  }
  return -1;
}

const char *cval(const csv *c, int col)
{
  return col >= 0 && col < c->nfld ? c->rec + c->off[col] : "";
}

/* Integer field, read by the strict reader (common/util/strictint.h) after an
 * "Agent 3" style prefix and before trailing spaces.  An empty cell is 0,
 * except in a *_Timestamp column: a time that is not there is refused. */
int cint(const csv *c, int col, int64_t *v)
{
  const char *s = cval(c, col), *p = s;
  *v = 0;
  if (col < 0)
    return RPD_OK;
  if (!*s) {
    size_t hl = strlen(c->hdr[col]);
    if (hl < 10 || strcasecmp(c->hdr[col] + hl - 10, "_Timestamp"))
      return RPD_OK;
    return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": column '%s' is empty",
                      c->path, c->line, c->hdr[col]);
  }
  while (*p && !isdigit((unsigned char)*p) && *p != '-')
    p++;
  size_t n = strlen(p);
  while (n && p[n - 1] == ' ')
    n--;
  if (rpd_int_text(p, n, v))
    return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": column '%s': not a "
                      "number: '%.40s'", c->path, c->line, c->hdr[col], s);
  return RPD_OK;
}

/* Floating-point field ("16384.000000", "1.5e+03"; empty = 0). */
int cdbl(const csv *c, int col, double *v)
{
  const char *s = cval(c, col);
  char *e;
  *v = 0;
  if (col < 0 || !*s)
    return RPD_OK;
  *v = strtod(s, &e);
  while (*e == ' ')
    e++;
  if (e == s || *e || *v != *v)
    return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": column '%s': not a "
                      "number: '%.40s'", c->path, c->line, c->hdr[col], s);
  return RPD_OK;
}

static int need_cols(const csv *c, const char *const *names, int *cols, int n)
{
  for (int i = 0; i < n; i++) {
    int optional = names[i][0] == '?';
    cols[i] = csv_col(c, names[i] + optional);
    if (cols[i] < 0 && !optional)
      return rpd_seterr(RPD_EPARSE, "%s: missing column '%s'", c->path, names[i]);
  }
  return RPD_OK;
}

static int check_width(const csv *c)
{
  if (c->nfld != c->nhdr)
    return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": %d fields, header has %d",
                      c->path, c->line, c->nfld, c->nhdr);
  return RPD_OK;
}

enum { CSV_MAXCOLS = 16 };

/* Read every record of the CSV file `path`, which must have the columns
 * `names` (n <= CSV_MAXCOLS, see need_cols): count it as `kind`, check its
 * width and hand it to row(m, c, col, arg). */
int csv_each(imp *m, const char *path, FILE *f, const char *kind,
                    const char *const *names, int n, csv_row_fn row, const void *arg)
{
  int col[CSV_MAXCOLS], g = 0;
  csv c;
  int rc = csv_open(&c, path, f);
  if (!rc)
    rc = need_cols(&c, names, col, n);
  while (!rc && (g = csv_next(&c)) > 0) {
    if (c.nfld == 1 && !c.rec[0] && c.nhdr > 1) {
      m->n_blank++;             /* a blank line (some samples end with one) */
      continue;
    }
    count_read(m, kind, 1);
    rc = check_width(&c);
    if (!rc)
      rc = row(m, &c, col, arg);
  }
  if (!rc && g < 0)
    rc = RPD_EPARSE;
  csv_close(&c);
  return rc;
}

int csv_rows(const char *path, csv_rows_fn fn, void *arg)
{
  csv c;
  int rc = csv_open(&c, path, NULL), g = 0;
  const char **f = NULL;
  int cap = 0;
  if (!rc)
    rc = fn(arg, c.line, c.nhdr, (const char *const *)c.hdr);
  while (!rc && (g = csv_next(&c)) > 0) {
    if (c.nfld == 1 && !c.rec[0])
      continue;                         /* a blank line */
    if (c.nfld > cap) {
      cap = c.nfld;
      f = rpd_xrealloc(f, (size_t)cap * sizeof *f);
    }
    for (int i = 0; i < c.nfld; i++)
      f[i] = c.rec + c.off[i];
    rc = fn(arg, c.line, c.nfld, f);
  }
  if (!rc && g < 0)
    rc = RPD_EPARSE;
  free(f);
  csv_close(&c);
  return rc;
}
