/* catfile.c - raptor's category JSON files, streamed through yajl so that
 * errors can name the category, the pattern and the line/column.  See
 * catfile.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "catfile.h"
#include "textsafe.h"

typedef struct catparse {
  category **cats;
  int *ncats;
  int depth;        /* 0 top, 1 in the object, 2 in a pattern list */
  int cur;          /* category being filled, -1 none */
  int err;
  char msg[512];
} catparse;

static void free_patterns(category *c)
{
  for (int i = 0; i < c->npat; i++) rpd_regex_free(c->re[i]);
  free(c->re);
  c->re = NULL;
  c->npat = 0;
}

/* Record the first error (yajl then stops: the callbacks return 0). */
static int cat_fail(catparse *p, const char *what)
{
  if (!p->err) {
    p->err = 1;
    if (p->cur >= 0)
      snprintf(p->msg, sizeof p->msg, "category '%s': %s",
               (*p->cats)[p->cur].name, what);
    else
      snprintf(p->msg, sizeof p->msg, "%s", what);
  }
  return 0;
}

static int cb_scalar(void *ctx)
{
  catparse *p = ctx;
  if (p->depth == 2) {
    char m[64];
    snprintf(m, sizeof m, "pattern %d is not a string",
             (*p->cats)[p->cur].npat + 1);
    return cat_fail(p, m);
  }
  return cat_fail(p, p->depth == 1 ? "value is not a list of patterns"
                                   : "not a JSON object of categories");
}
static int cb_null(void *ctx) { return cb_scalar(ctx); }
static int cb_bool(void *ctx, int b) { (void)b; return cb_scalar(ctx); }
static int cb_number(void *ctx, const char *s, size_t n)
{
  (void)s; (void)n;
  return cb_scalar(ctx);
}

static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
  catparse *p = ctx;
  if (p->depth != 2) return cb_scalar(ctx);
  category *c = &(*p->cats)[p->cur];
  char *pat = rpd_xmalloc(n + 1);
  memcpy(pat, s, n);
  pat[n] = 0;
  rpd_regex *re = NULL;
  if (rpd_regex_compile(pat, &re) != RPD_OK) {
    char m[400];
    snprintf(m, sizeof m, "pattern %d '%.80s': %s", c->npat + 1, pat,
             rpd_errmsg());
    free(pat);
    return cat_fail(p, m);
  }
  free(pat);
  c->re = rpd_xrealloc(c->re, (c->npat + 1) * sizeof *c->re);
  c->re[c->npat++] = re;
  return 1;
}

static int cb_start_map(void *ctx)
{
  catparse *p = ctx;
  if (p->depth != 0) return cb_scalar(ctx);
  p->depth = 1;
  return 1;
}

static int cb_map_key(void *ctx, const unsigned char *s, size_t n)
{
  catparse *p = ctx;
  char *name = rpd_xmalloc(n + 1);
  memcpy(name, s, n);
  name[n] = 0;
  for (int i = 0; i < *p->ncats; i++) {
    if (strcmp((*p->cats)[i].name, name) == 0) {
      /* a repeated key replaces the list but keeps its place (Python) */
      free(name);
      free_patterns(&(*p->cats)[i]);
      p->cur = i;
      return 1;
    }
  }
  *p->cats = rpd_xrealloc(*p->cats, (*p->ncats + 1) * sizeof **p->cats);
  (*p->cats)[*p->ncats] = (category){name, 0, NULL};
  p->cur = (*p->ncats)++;
  return 1;
}

static int cb_end_map(void *ctx)
{
  catparse *p = ctx;
  p->depth = 0;
  p->cur = -1;
  return 1;
}

static int cb_start_array(void *ctx)
{
  catparse *p = ctx;
  if (p->depth != 1) return cb_scalar(ctx);
  p->depth = 2;
  return 1;
}

static int cb_end_array(void *ctx)
{
  catparse *p = ctx;
  p->depth = 1;
  return 1;
}

static const yajl_callbacks cat_callbacks = {
  cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
  cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array,
};

/* line:column of byte offset off in text */
static void text_pos(const char *t, size_t len, size_t off, int *line, int *col)
{
  *line = 1;
  *col = 1;
  for (size_t i = 0; i < off && i < len; i++) {
    if (t[i] == '\n') { (*line)++; *col = 1; }
    else (*col)++;
  }
}

/* The yajl syntax error at the point parsing stopped, as one line. */
static int syntax_error(yajl_handle h, const char *file, const char *text, size_t len)
{
  size_t off = yajl_get_bytes_consumed(h);
  unsigned char *e = yajl_get_error(h, 0, (const unsigned char *)text, len);
  char msg[256];
  int line, col;
  snprintf(msg, sizeof msg, "%s", e ? (char *)e : "syntax error");
  for (char *q = msg; *q; q++)
    if (*q == '\n' || *q == '\r') *q = ' ';
  size_t ml = strlen(msg);
  while (ml && msg[ml - 1] == ' ') msg[--ml] = 0;
  if (e) yajl_free_error(h, e);
  text_pos(text, len, off, &line, &col);
  return rpd_seterr(RPD_EPARSE, "bad category file '%s': line %d, column %d: %s",
                    file, line, col, msg);
}

int category_parse(category **cats, int *ncats, const char *file, const char *text,
                   size_t len)
{
  int n0 = *ncats;
  catparse p = {cats, ncats, 0, -1, 0, ""};
  /* a UTF-8 byte order mark (Windows editors write one) is not JSON */
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
    text += 3;
    len -= 3;
  }
  yajl_handle h = yajl_alloc(&cat_callbacks, NULL, &p);
  yajl_status st = yajl_parse(h, (const unsigned char *)text, len);
  if (st == yajl_status_ok) st = yajl_complete_parse(h);
  int rc = RPD_OK;
  if (p.err) {
    rc = rpd_seterr(RPD_EPARSE, "bad category file '%s': %s", file, p.msg);
  } else if (st != yajl_status_ok) {
    rc = syntax_error(h, file, text, len);
  } else if (len == 0 || *ncats == n0) {
    int blank = 1;
    for (size_t i = 0; i < len; i++)
      if (!isspace((unsigned char)text[i])) blank = 0;
    if (blank) rc = rpd_seterr(RPD_EPARSE, "bad category file '%s': empty", file);
  }
  yajl_free(h);
  return rc;
}

int category_load(category **cats, int *ncats, const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return rpd_seterr(RPD_ENOENT, "cannot open category file '%s': %s", path,
                      strerror(errno));
  rpd_buf b = {0};
  char chunk[65536];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) rpd_buf_add(&b, chunk, got);
  int bad = ferror(f);
  fclose(f);
  int rc = bad ? rpd_seterr(RPD_EIO, "cannot read category file '%s'", path)
               : category_parse(cats, ncats, path, b.s ? b.s : "", b.len);
  rpd_buf_free(&b);
  return rc;
}

int category_match(const category *cats, int ncats, const char *name, int *hit)
{
  *hit = -1;
  /* the last category with a match wins: try them from the last one, so
   * that the patterns of earlier categories cost nothing once one hits */
  for (int i = ncats - 1; i >= 0; i--)
    for (int j = 0; j < cats[i].npat; j++) {
      int m = rpd_regex_search(cats[i].re[j], name);
      if (m == 1) {
        *hit = i;
        return RPD_OK;
      }
      if (m < 0) {
        char why[256];
        rpd_buf safe = {0};
        snprintf(why, sizeof why, "%s", rpd_errmsg());
        rpd_text_safe(&safe, name, RPD_TEXT_PLAIN);
        size_t cut = safe.len;
        if (cut > 60)   /* the start of the name, cut at a character */
          for (cut = 60; cut && (safe.s[cut] & 0xC0) == 0x80; cut--) {}
        int rc = rpd_seterr(-m, "category '%s' pattern %d cannot be matched against "
                            "kernel '%.*s%s': %s; simplify the pattern",
                            cats[i].name, j + 1, (int)cut, safe.s ? safe.s : "",
                            cut < safe.len ? "..." : "", why);
        rpd_buf_free(&safe);
        return rc;
      }
    }
  return RPD_OK;
}

void category_list_free(category *cats, int n)
{
  for (int i = 0; i < n; i++) {
    free_patterns(&cats[i]);
    free(cats[i].name);
  }
  free(cats);
}

/* The built-in rule set = raptor/categories.json (tests/tools/raptor.sh
 * checks they are equal): TraceLens's functional categories first, then the
 * reference raptor's (the LAST matching category wins, so the specific
 * vllm/aten/attention kernels of the reference override the general ones).
 * Patterns that would hit inside another word ("conv" in "typeConvert",
 * "sum" in "cumsum", "norm" in "normal") are anchored on letter boundaries. */
static const char builtin_json[] =
"{\n"
"    \"Memory\" : [\"^Copy[A-Z]\", \"(?i)memcpy\", \"(?i)memset\", \"^FillBuffer\"],\n"
"    \"Elementwise\" : [\"(?i)elementwise\"],\n"
"    \"Reduction\" : [\"(?i)(?<![a-z])reduce\", \"(?i)reduction\", \"(?i)(?<![a-z])sum(?![a-z])\"],\n"
"    \"Convolution\" : [\"(?i)(?<![a-z])conv(olution)?(?![a-z])\", \"(?i)(?<![a-z])conv[123]d\"],\n"
"    \"Normalization\" : [\"(?i)(layer|rms|batch|group|instance)_?norm\", \"(?i)(?<![a-z])norm(?![a-z])\", \"(?i)normaliz\"],\n"
"    \"Attention\" : [\"(?i)flash\", \"(?i)attn\", \"(?i)attention\", \"(?i)fmha\"],\n"
"    \"GEMM\" : [\"^Cijk_\", \"^void wvSpltK\", \"(?i)gemm\", \"(?i)matmul\"],\n"
"    \"CopyD2D\" : [\"CopyDeviceToDevice\"],\n"
"    \"_COMM\" : [\"ncclDevKernel_Generic\", \"void vllm::cross_device_reduce\", \"(?i)(?<![a-z])[nr]ccl\", \"(?i)all_?reduce\", \"(?i)all_?gather\", \"(?i)reduce_?scatter\"],\n"
"    \"aten\" : [\"^.* at::\"],\n"
"    \"vllm\" : [\"vllm::.*\"],\n"
"    \"topk\" : [\"^.*topk\"],\n"
"    \"DecodeAttn\" : [\"paged_attention*\"],\n"
"    \"PrefillAttn\" : [\"attn_fwd\"],\n"
"    \"SILU\" : [\"_ZN4vllm25scaled_act_and_mul_kernelIN3c104HalfETnPFT_RKS3_EXadL_ZNS_11silu_kernelIS2_EES3_S5_EEEEvPNS1_15Float8_e4m3fnuzEPS4_if\"]\n"
"}\n";

const char *category_builtin(void)
{
  return builtin_json;
}

int category_load_or_builtin(category **cats, int *ncats, const char *path)
{
  if (path)
    return category_load(cats, ncats, path);
  return category_parse(cats, ncats, "<built-in>", builtin_json, strlen(builtin_json));
}

int category_comm_index(const category *cats, int ncats)
{
  int hit = -1;
  for (int i = 0; i < ncats; i++)
    if (!strcmp(cats[i].name, "_COMM") || !strcmp(cats[i].name, "_Collective"))
      hit = i;
  return hit;
}
