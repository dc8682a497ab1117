/* links: rpd-import */
/* rpd-stackframe - per call site accounting of the host stacks rpd_tracer
 * records with RPDT_STACKFRAMES=1 (rocpd_stackframe), folded stacks and a
 * self-contained SVG flame graph. */
#include "opt.h"

static const rpd_help help = {
  .usage = "usage: rpd-stackframe FILE [-o OUT] [--force]\n"
           "       rpd-stackframe FILE --folded OUT.txt|- [--value cpu|gpu|calls]\n"
           "       rpd-stackframe FILE --svg OUT.svg [--value cpu|gpu|calls]",
  .about =
    "The first form adds, in one transaction, the tables ext_stackframe_stack\n"
    "(id, string = the whole stack folded 'outer;...;inner') and\n"
    "ext_stackframe_call(api_id, stack_id, leaf_id, cpu_time, gpu_time) and the\n"
    "views stackframe_site (per call site = innermost frame: calls, cpu and gpu\n"
    "time), stackframe_stack (per whole stack), stackframe_frame (per frame at\n"
    "any depth, inclusive), stackframe_top (the 20 call sites with the most gpu\n"
    "time) and, when rpd-callstack ran, stackframe_site_inclusive (the sites with\n"
    "the inclusive times of ext_callstack).  cpu_time = the api call's duration,\n"
    "gpu_time = the kernels and copies it launched.\n"
    "\n"
    "The other forms only read FILE: --folded writes one line per distinct\n"
    "stack, 'outer;...;inner;apiName VALUE' (flamegraph.pl, speedscope,\n"
    "inferno read it), --svg a flame graph (no script, no external files).",
};

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opclass.h"
#include "rpd.h"
#include "opt.h"
#include "textsafe.h"
#include "readdirect.h"  /* -o OUT from a rocprofv3 database or Kineto trace */

#define DONE_TAG "rpd-stackframe::done"

enum { V_CPU, V_GPU, V_CALLS };

/* One api call's stack as the stream gives it. */
typedef struct sfcall {
  int64_t api, cpu, gpu, leaf;
  rpd_buf stack;            /* 'outer;...;inner' */
  const char *api_name;
} sfcall;

typedef int (*sf_fn)(void *arg, const sfcall *c);

/* Hand the finished call c to fn (its stack NUL-terminated). */
static int sf_emit(sfcall *c, const char *name, sf_fn fn, void *arg)
{
  rpd_buf_add(&c->stack, "", 1);
  c->stack.len--;
  c->api_name = name ? name : "";
  return fn(arg, c);
}

/* Stream every api call that has frames, outermost frame first, to fn. */
static int sf_stream(rpd *r, sf_fn fn, void *arg)
{
  char *gpu = rpd_opclass_condition("O.opType_id", RPD_OPCLASS_GPU_WORK);
  char *sql = sqlite3_mprintf(
    "SELECT F.api_ptr_id, F.depth, F.name_id, S.string, A.end - A.start,"
    " coalesce(G.g, 0), N.string FROM rocpd_stackframe F"
    " JOIN rocpd_api A ON A.id = F.api_ptr_id"
    " JOIN rocpd_string S ON S.id = F.name_id"
    " JOIN rocpd_string N ON N.id = A.apiName_id"
    " LEFT JOIN (SELECT L.api_id, sum(O.end - O.start) AS g FROM rocpd_api_ops L"
    "  JOIN rocpd_op O ON O.id = L.op_id WHERE %s GROUP BY L.api_id) G"
    "  ON G.api_id = F.api_ptr_id"
    " ORDER BY F.api_ptr_id, F.depth DESC", gpu);
  sqlite3_stmt *st = NULL;
  sfcall c;
  char *name = NULL;
  rpd_progress_sql_total(r, "stack frames", rpd_progress_rows_of(r, (const char *const[]){"rocpd_stackframe", "rocpd_api_ops", "rocpd_op", NULL}));   /* progress (x15) */
  int rc = rpd_prepare(r, sql, &st), s = 0, have = 0;
  memset(&c, 0, sizeof c);
  while (!rc && (s = rpd_step(r, st)) == SQLITE_ROW) {
    int64_t api = sqlite3_column_int64(st, 0);
    if (have && api != c.api) {
      rc = sf_emit(&c, name, fn, arg);
      have = 0;
    }
    if (rc)
      break;
    if (!have) {
      c.api = api;
      c.stack.len = 0;
      c.cpu = sqlite3_column_int64(st, 4);
      c.gpu = sqlite3_column_int64(st, 5);
      free(name);
      const char *an = (const char *)sqlite3_column_text(st, 6);
      name = rpd_xstrdup(an ? an : "");
      have = 1;
    } else
      rpd_buf_add(&c.stack, ";", 1);
    /* ';' separates frames in the folded format: a ';' inside a name is a ':' */
    const char *f = (const char *)sqlite3_column_text(st, 3);
    size_t at = c.stack.len;
    rpd_buf_add(&c.stack, f ? f : "", f ? strlen(f) : 0);
    for (size_t i = at; i < c.stack.len; i++)
      if (c.stack.s[i] == ';' || c.stack.s[i] == '\n')
        c.stack.s[i] = ':';
    c.leaf = sqlite3_column_int64(st, 2);     /* the last row: depth 0 */
  }
  if (!rc && s < 0)
    rc = -s;
  if (!rc && have)
    rc = sf_emit(&c, name, fn, arg);
  rpd_progress_end();   /* progress (x15) */
  sqlite3_finalize(st);
  sqlite3_free(sql);
  free(gpu);
  free(name);
  rpd_buf_free(&c.stack);
  return rc;
}

/* ------------------------------------------------ a string -> value map */

typedef struct fold {
  char **key;
  int64_t *val;
  size_t cap, n;
  int value;
} fold;

static uint64_t fnv(const char *s)
{
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

/* The slot of key k, inserted (value 0) if new; *isnew says which. */
static size_t fold_slot(fold *f, const char *k, int *isnew)
{
  if (2 * (f->n + 1) > f->cap) {
    size_t nc = f->cap ? 2 * f->cap : 256;
    char **nk = rpd_xcalloc(nc, sizeof *nk);
    int64_t *nv = rpd_xcalloc(nc, sizeof *nv);
    for (size_t i = 0; i < f->cap; i++)
      if (f->key[i]) {
        size_t j = fnv(f->key[i]) & (nc - 1);
        while (nk[j])
          j = (j + 1) & (nc - 1);
        nk[j] = f->key[i];
        nv[j] = f->val[i];
      }
    free(f->key);
    free(f->val);
    f->key = nk;
    f->val = nv;
    f->cap = nc;
  }
  size_t j = fnv(k) & (f->cap - 1);
  while (f->key[j] && strcmp(f->key[j], k))
    j = (j + 1) & (f->cap - 1);
  *isnew = !f->key[j];
  if (*isnew) {
    f->key[j] = rpd_xstrdup(k);
    f->n++;
  }
  return j;
}

/* Add v to the value of key k. */
static void fold_add(fold *f, const char *k, int64_t v)
{
  int isnew;
  size_t j = fold_slot(f, k, &isnew);   /* may move f->val */
  f->val[j] += v;
}

static void fold_free(fold *f)
{
  for (size_t i = 0; i < f->cap; i++)
    free(f->key[i]);
  free(f->key);
  free(f->val);
  memset(f, 0, sizeof *f);
}

/* ------------------------------------------------------------ augment */

typedef struct actx {
  fold stacks;              /* stack text -> ext_stackframe_stack id */
  sqlite3_stmt *ins, *ins_stack;
  int64_t calls, nstacks;
  int built;
} actx;

static int add_call(void *arg, const sfcall *c)
{
  actx *a = arg;
  int isnew, s;
  size_t slot = fold_slot(&a->stacks, c->stack.s, &isnew);
  if (isnew) {
    a->stacks.val[slot] = ++a->nstacks;
    sqlite3_bind_int64(a->ins_stack, 1, a->nstacks);
    sqlite3_bind_text(a->ins_stack, 2, c->stack.s, -1, SQLITE_STATIC);
    s = sqlite3_step(a->ins_stack);
    sqlite3_reset(a->ins_stack);
    if (s != SQLITE_DONE)
      return rpd_seterr(RPD_ESQL, "inserting ext_stackframe_stack: %s",
                        sqlite3_errstr(s));
  }
  int64_t sid = a->stacks.val[slot];
  sqlite3_bind_int64(a->ins, 1, c->api);
  sqlite3_bind_int64(a->ins, 2, sid);
  sqlite3_bind_int64(a->ins, 3, c->leaf);
  sqlite3_bind_int64(a->ins, 4, c->cpu);
  sqlite3_bind_int64(a->ins, 5, c->gpu);
  s = sqlite3_step(a->ins);
  sqlite3_reset(a->ins);
  if (s != SQLITE_DONE)
    return rpd_seterr(RPD_ESQL, "inserting ext_stackframe_call: %s",
                      sqlite3_errstr(s));
  a->calls++;
  return RPD_OK;
}

static const char views_sql[] =
  "CREATE VIEW stackframe_site AS SELECT C.leaf_id, S.string AS frame,"
  " count(*) AS calls, sum(C.cpu_time) AS cpu_time, sum(C.gpu_time) AS gpu_time"
  " FROM ext_stackframe_call C JOIN rocpd_string S ON S.id = C.leaf_id GROUP BY C.leaf_id;"
  "CREATE VIEW stackframe_stack AS SELECT C.stack_id, K.string AS stack,"
  " count(*) AS calls, sum(C.cpu_time) AS cpu_time, sum(C.gpu_time) AS gpu_time"
  " FROM ext_stackframe_call C JOIN ext_stackframe_stack K ON K.id = C.stack_id"
  " GROUP BY C.stack_id;"
  "CREATE VIEW stackframe_frame AS SELECT F.name_id, S.string AS frame,"
  " count(*) AS calls, sum(C.cpu_time) AS cpu_time, sum(C.gpu_time) AS gpu_time"
  " FROM (SELECT DISTINCT api_ptr_id, name_id FROM rocpd_stackframe) F"
  " JOIN ext_stackframe_call C ON C.api_id = F.api_ptr_id"
  " JOIN rocpd_string S ON S.id = F.name_id GROUP BY F.name_id;"
  "CREATE VIEW stackframe_top AS SELECT frame, calls, cpu_time, gpu_time"
  " FROM stackframe_site ORDER BY gpu_time DESC, cpu_time DESC, frame LIMIT 20;";

static const char inclusive_sql[] =
  "CREATE VIEW stackframe_site_inclusive AS SELECT C.leaf_id, S.string AS frame,"
  " count(*) AS calls, sum(I.cpu_time) AS cpu_time, sum(I.gpu_time) AS gpu_time"
  " FROM ext_stackframe_call C JOIN rocpd_string S ON S.id = C.leaf_id"
  " JOIN callStack_inclusive I ON I.parent_id = C.api_id GROUP BY C.leaf_id;";

static int drop(rpd *r, void *vc)
{
  (void)vc;
  return rpd_exec(r, "DROP VIEW IF EXISTS stackframe_site; DROP VIEW IF EXISTS stackframe_stack;"
                  " DROP VIEW IF EXISTS stackframe_frame; DROP VIEW IF EXISTS stackframe_top;"
                  " DROP VIEW IF EXISTS stackframe_site_inclusive;"
                  " DROP TABLE IF EXISTS ext_stackframe_call;"
                  " DROP TABLE IF EXISTS ext_stackframe_stack;");
}

static int build(rpd *r, void *vc)
{
  actx *a = vc;
  if (!rpd_table_exists(r, "rocpd_stackframe"))
    return rpd_seterr(RPD_ENOTRPD, "no rocpd_stackframe table (schema v2 trace? "
                      "rpd-schema --upgrade adds it; frames need RPDT_STACKFRAMES=1)");
  int rc = rpd_exec(r, "CREATE TABLE ext_stackframe_stack (id INTEGER PRIMARY KEY,"
                    " string TEXT NOT NULL);"
                    " CREATE INDEX ext_stackframe_stack_string ON ext_stackframe_stack(string);"
                    " CREATE TABLE ext_stackframe_call (api_id INTEGER PRIMARY KEY,"
                    " stack_id INTEGER NOT NULL, leaf_id INTEGER NOT NULL,"
                    " cpu_time INTEGER NOT NULL, gpu_time INTEGER NOT NULL)");
  if (!rc)
    rc = rpd_prepare(r, "INSERT INTO ext_stackframe_stack(id, string) VALUES (?,?)",
                     &a->ins_stack);
  if (!rc)
    rc = rpd_prepare(r, "INSERT INTO ext_stackframe_call VALUES (?,?,?,?,?)", &a->ins);
  if (!rc)
    rc = sf_stream(r, add_call, a);
  if (!rc)
    rc = rpd_exec(r, views_sql);
  if (!rc && rpd_table_exists(r, "callStack_inclusive"))
    rc = rpd_exec(r, inclusive_sql);
  sqlite3_finalize(a->ins);
  sqlite3_finalize(a->ins_stack);
  a->ins = a->ins_stack = NULL;
  fold_free(&a->stacks);
  a->built = !rc;
  return rc;
}

static void summary(void *vc)
{
  const actx *a = vc;
  if (a->built)
    printf("%s: %" PRId64 " calls with a stack, %" PRId64 " distinct stacks\n",
           rpd_progname, a->calls, a->nstacks);
}

/* ------------------------------------------------- folded stacks, SVG */

static int fold_call(void *arg, const sfcall *c)
{
  fold *f = arg;
  rpd_buf b = {0};
  rpd_buf_add(&b, c->stack.s, c->stack.len);
  rpd_buf_add(&b, ";", 1);
  rpd_buf_add(&b, c->api_name, strlen(c->api_name));
  rpd_buf_add(&b, "", 1);
  for (char *p = b.s + c->stack.len + 1; *p; p++)
    if (*p == ';' || *p == '\n')
      *p = ':';
  fold_add(f, b.s, f->value == V_CPU ? c->cpu : f->value == V_GPU ? c->gpu : 1);
  rpd_buf_free(&b);
  return RPD_OK;
}

typedef struct kv {
  const char *k;
  int64_t v;
} kv;

static int kv_cmp(const void *a, const void *b)
{
  return strcmp(((const kv *)a)->k, ((const kv *)b)->k);
}

/* The folded stacks sorted by text (new array of n entries). */
static kv *fold_sorted(const fold *f)
{
  kv *e = rpd_xcalloc(f->n ? f->n : 1, sizeof *e);
  size_t n = 0;
  for (size_t i = 0; i < f->cap; i++)
    if (f->key[i]) {
      e[n].k = f->key[i];
      e[n++].v = f->val[i];
    }
  qsort(e, n, sizeof *e, kv_cmp);
  return e;
}

static void put_text(FILE *o, const char *s, size_t n, rpd_text_kind kind)
{
  rpd_buf b = {0};
  rpd_text_safe_n(&b, s, n, kind);
  fwrite(b.s, 1, b.len, o);
  rpd_buf_free(&b);
}

static void write_folded(FILE *o, const kv *e, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (e[i].v > 0) {
      put_text(o, e[i].k, strlen(e[i].k), RPD_TEXT_PLAIN);
      fprintf(o, " %" PRId64 "\n", e[i].v);
    }
}

/* Length of the first `depth + 1` frames of stack s (to the ';' after). */
static size_t prefix_len(const char *s, int depth)
{
  const char *p = s;
  for (int d = 0; d <= depth; d++) {
    const char *q = strchr(p, ';');
    if (!q)
      return strlen(s);
    if (d == depth)
      return (size_t)(q - s);
    p = q + 1;
  }
  return strlen(s);
}

static int nframes(const char *s)
{
  int n = 1;
  for (; *s; s++)
    n += *s == ';';
  return n;
}

enum { SVG_W = 1200, ROW_H = 17, CHAR_W = 7, TITLE_MAX = 1000 };

/* Bytes of the UTF-8 sequence that starts with lead byte c (1 for a
 * stray continuation byte: textsafe turns it into U+FFFD). */
static size_t u8len(unsigned char c)
{
  return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

/* The frame name s[0..n) for display: bidi controls become U+FFFD, an
 * empty name "(no name)", at most max characters (code points, never a
 * split sequence; a cut ends in U+2026), then escaped for SVG. */
static void put_name(FILE *o, const char *s, size_t n, size_t max)
{
  rpd_buf b = {0};
  size_t chars = 0, i = 0;
  if (!n) {
    s = "(no name)";
    n = strlen(s);
  }
  while (i < n) {
    size_t k = u8len((unsigned char)s[i]);
    if (k > n - i)
      k = n - i;
    if (chars + 1 == max && i + k < n) {
      rpd_buf_add(&b, "\xe2\x80\xa6", 3);
      break;
    }
    if (rpd_utf8_is_bidi_control(s + i, n - i))
      rpd_buf_add(&b, "\xef\xbf\xbd", 3);
    else
      rpd_buf_add(&b, s + i, k);
    i += k;
    chars++;
  }
  put_text(o, b.s ? b.s : "", b.len, RPD_TEXT_HTML);
  rpd_buf_free(&b);
}

/* v with thousands separators (into buf). */
static const char *grouped(int64_t v, char *buf, size_t n)
{
  char raw[32];
  int len = snprintf(raw, sizeof raw, "%" PRId64, v < 0 ? -v : v), o = 0;
  if (v < 0 && o + 1 < (int)n)
    buf[o++] = '-';
  for (int i = 0; i < len && o + 2 < (int)n; i++) {
    if (i && (len - i) % 3 == 0)
      buf[o++] = ',';
    buf[o++] = raw[i];
  }
  buf[o] = '\0';
  return buf;
}

/* One box: the frame name[0..nl) weighing w at x (of total), depth row y.
 * The label sits in a nested <svg> of the box's size, which clips it, so
 * no glyph (wide CJK, emoji) can spill into the next box. */
static void svg_box(FILE *o, const char *name, size_t nl, int64_t x, int64_t w,
                    int64_t total, int y, const char *unit)
{
  char g[32];
  double px = (double)x * SVG_W / (double)total;
  double pw = (double)w * SVG_W / (double)total;
  unsigned hue = (unsigned)(fnv(name) % 60);
  fputs("<g><title>", o);
  put_name(o, name, nl, TITLE_MAX);
  fprintf(o, " \xe2\x80\x94 %s%s (%.2f%%)</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\""
          " height=\"%d\" fill=\"hsl(%u,80%%,60%%)\" stroke=\"#fff\" stroke-width=\"0.5\"/>",
          grouped(w, g, sizeof g), unit, 100.0 * (double)w / (double)total, px, y, pw,
          ROW_H - 1, hue);
  size_t fit = pw > 3 * CHAR_W ? (size_t)((pw - 4) / CHAR_W) : 0;
  if (fit >= 2) {
    fprintf(o, "<svg x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\"><text x=\"2\" y=\"%d\">",
            px, y, pw, ROW_H - 1, ROW_H - 5);
    put_name(o, name, nl, fit);
    fputs("</text></svg>", o);
  }
  fputs("</g>\n", o);
}

/* A flame graph: stacks sorted by text share prefixes, so the frames at
 * depth d of consecutive stacks with the same prefix merge into one box. */
static void write_svg(FILE *o, const kv *e, size_t n, const char *title, int value)
{
  int64_t total = 0, stacks = 0;
  int maxd = 0;
  char g[32];
  const char *unit = value == V_CALLS ? " calls" : " ns";
  for (size_t i = 0; i < n; i++)
    if (e[i].v > 0) {
      total += e[i].v;
      stacks++;
      if (nframes(e[i].k) > maxd)
        maxd = nframes(e[i].k);
    }
  int h = (maxd + 3) * ROW_H;
  fprintf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
          " viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"11\">\n"
          "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n"
          "<text x=\"%d\" y=\"16\" text-anchor=\"middle\" font-size=\"14\">",
          SVG_W, h, SVG_W, h, SVG_W / 2);
  put_name(o, title, strlen(title), 80);
  fprintf(o, " \xe2\x80\x94 %s%s%s in %" PRId64 " stack%s%s</text>\n",
          value == V_CPU ? "cpu time: " : value == V_GPU ? "gpu time: " : "",
          grouped(total, g, sizeof g), unit, stacks, stacks == 1 ? "" : "s",
          total ? "" : " (nothing to draw)");
  for (int d = 0; d < maxd && total > 0; d++) {
    int64_t x = 0;
    for (size_t i = 0; i < n;) {
      if (e[i].v <= 0) {
        i++;
        continue;
      }
      if (nframes(e[i].k) <= d) {
        x += e[i].v;
        i++;
        continue;
      }
      size_t pl = prefix_len(e[i].k, d), j = i;
      int64_t w = 0;
      while (j < n && (e[j].v <= 0 || (nframes(e[j].k) > d &&
             prefix_len(e[j].k, d) == pl && !strncmp(e[j].k, e[i].k, pl)))) {
        w += e[j].v > 0 ? e[j].v : 0;
        j++;
      }
      const char *name = e[i].k + (d ? prefix_len(e[i].k, d - 1) + 1 : 0);
      svg_box(o, name, (size_t)(e[i].k + pl - name), x, w, total,
              h - (d + 1) * ROW_H - 4, unit);
      x += w;
      i = j;
    }
  }
  fputs("</svg>\n", o);
}

/* The read-only forms: --folded / --svg. */
static int export_main(const char *path, const char *folded, const char *svg, int value)
{
  rpd *r = NULL;
  fold f = {0};
  f.value = value;
  if (rpd_open_or_report(&r, path, NULL, RPD_READ) != RPD_OK)
    return 1;
  int rc = rpd_table_exists(r, "rocpd_stackframe") ? RPD_OK :
    rpd_seterr(RPD_ENOTRPD, "no rocpd_stackframe table (schema v2 trace? frames need"
               " RPDT_STACKFRAMES=1)");
  if (!rc)
    rc = sf_stream(r, fold_call, &f);
  rpd_close(r, 0);
  if (rc) {
    rpd_fail("cannot read '%s': %s", path, rpd_errmsg());
    goto done;
  }
  kv *e = fold_sorted(&f);
  const char *outs[2] = { folded, svg };
  for (int k = 0; k < 2 && !rc; k++) {
    if (!outs[k])
      continue;
    if (rpd_cli_is_stdout(outs[k])) {
      k ? write_svg(stdout, e, f.n, path, value) : write_folded(stdout, e, f.n);
      if (fflush(stdout) || ferror(stdout))
        rc = rpd_fail("cannot write to stdout");
      continue;
    }
    rpd_outfile of = {0};
    if (rpd_output_check(outs[k], path, NULL) || rpd_outfile_begin(&of, outs[k], path)) {
      rc = rpd_fail("cannot write '%s': %s", outs[k], rpd_errmsg());
      break;
    }
    k ? write_svg(of.fp, e, f.n, path, value) : write_folded(of.fp, e, f.n);
    if (rpd_outfile_commit(&of))
      rc = rpd_fail("cannot write '%s': %s", outs[k], rpd_errmsg());
  }
  free(e);
  if (!rc)
    fprintf(stderr, "%s: %zu distinct stacks\n", rpd_progname, f.n);
done:
  fold_free(&f);
  return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
  rpd_set_import_reader(rpdi_direct_read, NULL);
  const char *folded = NULL, *svg = NULL, *path = NULL;
  int value = V_CPU, exp = 0;
  const char *vname = NULL;
  const rpd_opt opts[] = {
    RPD_OPT_STRING("--folded", &folded, .arg = "OUT",
                   .help = "folded stacks to OUT ('-' = stdout)"),
    RPD_OPT_STRING("--svg", &svg, .arg = "OUT", .help = "the flame graph"),
    RPD_OPT_STRING("--value", &vname, .arg = "V",
                   .help = "what a stack weighs: cpu (ns, default), gpu (ns), calls"),
    RPD_OPT_END(),
  };
  actx c = {0};
  /* the driver's table includes the export options for --help only: it
   * runs when none of them was given */
  const rpd_augment a = {
    .help = &help, .what = "stackframe tables", .done_tag = DONE_TAG,
    .drop = drop, .build = build, .ctx = &c, .summary = summary, .opts = opts,
  };
  if (rpd_augment_init(&a, argc, argv))
    return rpd_cli_status();
  /* --folded / --svg export; else the augmenter (the driver parses argv
   * again, so this first pass works on a copy) */
  char msg[512], *copy[argc + 1];
  memcpy(copy, argv, ((size_t)argc + 1) * sizeof *copy);
  int n = rpd_opt_parse(opts, RPD_OPT_KEEP_UNKNOWN, argc, copy, msg, sizeof msg);
  exp = n < 0 || folded || svg;
  if (!exp && vname)
    return rpd_usage_error("--value needs --folded or --svg");
  if (!exp)
    return rpd_augment_main(&a, argc, argv);
  if (n < 0)
    return rpd_usage_error("%s", msg);
  const char *empty = folded && !*folded ? "--folded" : svg && !*svg ? "--svg"
                    : vname && !*vname ? "--value" : NULL;
  if (empty)
    return rpd_usage_error("%s needs a value", empty);
  if (vname && strcmp(vname, "cpu") && strcmp(vname, "gpu") && strcmp(vname, "calls"))
    return rpd_usage_error("bad --value '%s' (cpu, gpu, calls)", vname);
  value = !vname || !strcmp(vname, "cpu") ? V_CPU : !strcmp(vname, "gpu") ? V_GPU : V_CALLS;
  for (int i = 0; i < n; i++) {
    const char *a = copy[i];
    if (a[0] == '-' && a[1])
      return rpd_usage_error("unknown option '%s' with --folded/--svg", a);
    else if (!path)
      path = a;
    else
      return rpd_usage_error("too many arguments");
  }
  if (!path)
    return rpd_usage_error("need FILE");
  if (rpd_cli_is_stdout(folded) && rpd_cli_is_stdout(svg))
    return rpd_usage_error("--folded and --svg cannot both go to stdout");
  return export_main(path, folded, svg, value);
}
