/* json.c - rpd-import: rocprofiler-sdk-tool JSON (.json, .json.gz), streamed
 * through yajl; memory flat in the number of records.  The bytes come
 * from jsonfile.c (a file) or a memory buffer (import_json_buf). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <yajl_parse.h>

#include "rpd.h"
#include "import.h"
#include "json_int.h"
#include "kinds.h"   /* record kinds: json_kinds.c */
#include "pipe.h"    /* the writer thread, paused for rare records */
#include "jsonread.h"
#include "strictint.h"

/* One of 128 bits for a key (its length, last and middle bytes: the
 * flattened keys of a record differ in those). */
static unsigned jkey_bit(const char *key, size_t kl)
{
  unsigned h = (unsigned)kl * 7u;
  if (kl)
    h += (unsigned char)key[kl - 1] * 31u + (unsigned char)key[kl / 2];
  return h & 127u;
}

static void jrec_value(jstate *j, const char *s, size_t len)
{
  const char *key = j->path;
  size_t kl = j->plen;
  int in_array = !j->is_map[j->depth];
  /* the next element of an array is appended to the newest field */
  jfield *f = in_array && !j->arr_fresh[j->depth] && j->nf &&
              j->f[j->nf - 1].klen == kl &&
              !memcmp(j->f[j->nf - 1].key, key, kl) ? &j->f[j->nf - 1] : NULL;
  if (in_array)
    j->arr_fresh[j->depth] = 0;
  if (!f) {
    unsigned bit = jkey_bit(key, kl);
    uint64_t *w = &j->keybits[bit >> 6], mask = UINT64_C(1) << (bit & 63);
    if (*w & mask) {
      /* maybe a key seen before in this record: the earlier field is
       * retired (no key), so lookups find this, the last value */
      for (int i = j->barrier[j->depth]; i < j->nf; i++)
        if (j->f[i].klen == kl && !memcmp(j->f[i].key, key, kl)) {
          j->f[i].klen = (size_t)-1;
          j->f[i].key[0] = '\0';
        }
    }
    *w |= mask;
    if (j->nf == j->capf) {
      j->capf = j->capf ? 2 * j->capf : 32;
      j->f = rpd_xrealloc(j->f, j->capf * sizeof *j->f);
      memset(j->f + j->nf, 0, (j->capf - j->nf) * sizeof *j->f);
    }
    f = &j->f[j->nf++];
    /* records of one kind repeat their keys in the same order: the slot
     * usually holds this key already */
    if (f->klen != kl || memcmp(f->key, key, kl)) {
      f->klen = kl;
      memcpy(f->key, key, kl);
      f->key[kl] = '\0';
    }
    rpd_buf_reset(&f->val);
    f->n = 0;
  }
  if (f->n++)
    rpd_buf_add(&f->val, "\x1f", 1);
  rpd_buf_add(&f->val, s, len);
}

/* Role of a container opened at depth d+1 inside the container at d. */
static int child_role(jstate *j, int is_map, int *rec_kind)
{
  int d = j->depth, pr = d ? j->role[d] : R_NONE;
  const char *k = d && j->is_map[d] ? j->key[d] : "";
  *rec_kind = 0;
  if (j->rec_depth)
    return R_INREC;
  switch (pr) {
  case R_NONE: return is_map ? R_TOP : R_NONE;
  case R_TOP:
    if (!is_map && !strcmp(k, "rocprofiler-sdk-tool")) {
      j->saw_tool = 1;
      return R_TOOL;
    }
    if (!is_map && !strcmp(k, "traceEvents"))
      j->saw_events = 1;
    return R_NONE;
  case R_TOOL: return is_map ? R_SECTION : R_NONE;
  case R_SECTION:
    if (is_map && !strcmp(k, "metadata")) { *rec_kind = RK_META; return R_RECORD; }
    if (is_map && !strcmp(k, "strings")) return R_STRINGS;
    if (is_map && !strcmp(k, "buffer_records")) return R_BUFREC;
    /* json_kinds.c: counter records and the counter list */
    if (is_map && !strcmp(k, "callback_records")) return R_BUFREC;
    if (!is_map && !strcmp(k, "counters")) { strcpy(j->recarr, "counters"); return R_RECARR; }
    if (!is_map && !strcmp(k, "agents")) return R_AGENTS;
    if (!is_map && !strcmp(k, "kernel_symbols")) return R_SYMS;
    return R_NONE;
  case R_STRINGS:
    if (!is_map && !strcmp(k, "buffer_records")) return R_KINDNAMES;
    if (!is_map && !strcmp(k, "marker_api")) return R_MARKERSTR;
    return R_NONE;
  case R_BUFREC:
    if (!is_map) {
      snprintf(j->recarr, sizeof j->recarr, "%s", k);
      return R_RECARR;
    }
    return R_NONE;
  case R_AGENTS: *rec_kind = RK_AGENT; return is_map ? R_RECORD : R_NONE;
  case R_SYMS: *rec_kind = RK_SYM; return is_map ? R_RECORD : R_NONE;
  case R_KINDNAMES: *rec_kind = RK_KIND; return is_map ? R_RECORD : R_NONE;
  case R_MARKERSTR: *rec_kind = RK_MARKER; return is_map ? R_RECORD : R_NONE;
  case R_RECARR: *rec_kind = RK_BUF; return is_map ? R_RECORD : R_NONE;
  default: return R_NONE;
  }
}

static int j_open(jstate *j, int is_map)
{
  int rk;
  j->ncb++;
  int role = child_role(j, is_map, &rk);
  if (j->depth >= JMAXD) {
    j->rc = rpd_seterr(RPD_EPARSE, "JSON nested deeper than %d levels", JMAXD);
    return 0;
  }
  j->depth++;
  j->is_map[j->depth] = (char)is_map;
  j->role[j->depth] = role;
  j->key[j->depth][0] = '\0';
  j->klen[j->depth] = 0;
  j->pbase[j->depth] = j->plen;
  if (role == R_SECTION) {
    if (!j->rc && (j->rc = json_flush_paused(j->m)))   /* held counters */
      return 0;
    json_clear_section(j);
    new_section(j->m);
  }
  if (role == R_RECORD) {
    j->rec_depth = j->depth;
    j->rec_kind = rk;
    j->nf = 0;
    j->plen = j->pbase[j->depth] = 0;
    j->keybits[0] = j->keybits[1] = 0;
    j->barrier[j->depth] = 0;
    j->ibad[0] = '\0';
  } else if (j->rec_depth) {
    int parent_map = j->is_map[j->depth - 1];
    j->barrier[j->depth] = parent_map ? j->barrier[j->depth - 1] : j->nf;
    j->arr_fresh[j->depth] = !is_map && parent_map;
  }
  return 1;
}

static int j_close(jstate *j)
{
  int rc = RPD_OK;
  j->ncb++;
  if (j->rec_depth && j->depth == j->rec_depth) {
    rc = json_rec_end(j);
    j->rec_depth = 0;
  }
  j->plen = j->pbase[j->depth];
  j->depth--;
  if (rc) {
    j->rc = rc;
    return 0;
  }
  return 1;
}

static int cb_start_map(void *ctx) { return j_open(ctx, 1); }
static int cb_end_map(void *ctx) { return j_close(ctx); }
static int cb_start_array(void *ctx) { return j_open(ctx, 0); }
static int cb_end_array(void *ctx) { return j_close(ctx); }

/* Copy a short key: 8 bytes at a time, never reading past s + n.  (GCC
 * turns a plain memcpy of a variable length here into `rep movsq`, whose
 * start-up cost was half of cb_key's time on rocprofv3's short keys.) */
static void copy_key(char *d, const unsigned char *s, size_t n)
{
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    memcpy(d + i, &w, 8);
  }
  if (i + 4 <= n) {
    uint32_t w;
    memcpy(&w, s + i, 4);
    memcpy(d + i, &w, 4);
    i += 4;
  }
  for (; i < n; i++)
    d[i] = (char)s[i];
}

static int cb_key(void *ctx, const unsigned char *s, size_t len)
{
  jstate *j = ctx;
  j->ncb++;
  if (len >= JKEY)
    len = JKEY - 1;
  if (!j->rec_depth) {
    /* outside a record the key picks the role of what it opens
     * (child_role); inside one only the path counts */
    memcpy(j->key[j->depth], s, len);
    j->key[j->depth][len] = '\0';
    j->klen[j->depth] = (unsigned char)len;
  } else {
    /* the record's path: the parent's path, '.', this key (keys that do
     * not fit in 127 bytes are left out, as they always were) */
    size_t b = j->pbase[j->depth];
    if (b + (b > 0) + len < sizeof j->path) {
      if (b)
        j->path[b++] = '.';
      copy_key(j->path + b, s, len);
      j->plen = b + len;
    } else
      j->plen = b;
    j->path[j->plen] = '\0';
  }
  return 1;
}

static int scalar(jstate *j, const char *s, size_t len)
{
  j->ncb++;
  if (j->rec_depth)
    jrec_value(j, s, len);
  return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
  return scalar(ctx, (const char *)s, len);
}

static int cb_number(void *ctx, const char *s, size_t len)
{
  return scalar(ctx, s, len);
}

static int cb_bool(void *ctx, int b)
{
  /* as text: never read as an integer (true is not 1) */
  return b ? scalar(ctx, "true", 4) : scalar(ctx, "false", 5);
}

static int cb_null(void *ctx)
{
  return scalar(ctx, "", 0);
}

static const yajl_callbacks jcb = {
  cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
  cb_start_map, cb_key, cb_end_map, cb_start_array, cb_end_array
};

/* yajl's memory through the suite's allocators: out of memory is one line
 * and exit 1 (rpd_xmalloc), not a NULL yajl would write through. */
static void *jmalloc(void *ctx, size_t n) { (void)ctx; return rpd_xmalloc(n); }
static void *jrealloc(void *ctx, void *p, size_t n) { (void)ctx; return rpd_xrealloc(p, n); }
static void jfree(void *ctx, void *p) { (void)ctx; free(p); }
static yajl_alloc_funcs json_alloc = { jmalloc, jrealloc, jfree, NULL };

/* One line from yajl's error text (it carries a context excerpt). */
static void yajl_msg(yajl_handle h, const unsigned char *chunk, size_t len,
                     char *out, size_t n)
{
  unsigned char *e = yajl_get_error(h, 0, chunk, len);
  snprintf(out, n, "%s", e ? (char *)e : "parse error");
  if (e)
    yajl_free_error(h, e);
  out[strcspn(out, "\n")] = '\0';
}


/* Newlines in buf[0..n). */
static uint64_t count_nl(const unsigned char *buf, size_t n)
{
  uint64_t k = 0;
  const unsigned char *p = buf, *e = buf + n;
  while ((p = memchr(p, '\n', (size_t)(e - p)))) {
    k++;
    p++;
  }
  return k;
}

int json_run(imp *m, json_read_fn rd, void *ctx)
{
  jstate j;
  memset(&j, 0, sizeof j);
  j.m = m;
  yajl_handle h = yajl_alloc(&jcb, &json_alloc, &j);
  yajl_config(h, yajl_dont_validate_strings, 1);
  const unsigned char *buf = NULL;
  uint64_t fed = 0, lines = 1;
  int rc = RPD_OK, n;
  yajl_status st = yajl_status_ok;
  char msg[256];
  /* Inside one long token (a string of many MB) yajl keeps what it has
   * lexed so far and lexes it again from its start on every call: fed in
   * fixed chunks that is quadratic in the token's length.  When a call
   * made no callback at all, the bytes are held back (pending) until they
   * are as many as yajl holds (stuck), so each call at least doubles the
   * token and the total work stays linear. */
  rpd_buf pending = {0};
  uint64_t stuck = 0;

  for (;;) {
    const unsigned char *chunk;
    size_t len;
    n = rd(ctx, &buf, fed + pending.len);
    if (n > 0 && stuck) {
      rpd_buf_add(&pending, (const char *)buf, (size_t)n);
      if (pending.len < stuck)
        continue;
    }
    if (n <= 0 && !pending.len)
      break;
    if (pending.len) {
      chunk = (const unsigned char *)pending.s;
      len = pending.len;
    } else {
      chunk = buf;
      len = (size_t)n;
    }
    uint64_t ncb = j.ncb;
    st = yajl_parse(h, chunk, len);
    if (st != yajl_status_ok) {
      size_t at = yajl_get_bytes_consumed(h);
      for (size_t i = 0; i < at && i < len; i++)
        lines += chunk[i] == '\n';
      if (st == yajl_status_client_canceled) {
        rc = j.rc ? j.rc : RPD_ERR;
        if (rc == RPD_EPARSE || rc == RPD_ERR)
          rc = rpd_seterr(RPD_EPARSE, "at byte %" PRIu64 " (line %" PRIu64 "): %s",
                          fed + at, lines, rpd_errmsg());
      } else {
        yajl_msg(h, chunk, len, msg, sizeof msg);
        rc = rpd_seterr(RPD_EPARSE, "malformed JSON at byte %" PRIu64
                        " (line %" PRIu64 "): %s", fed + at, lines, msg);
      }
      goto cleanup;
    }
    lines += count_nl(chunk, len);
    fed += (uint64_t)len;
    stuck = j.ncb == ncb ? stuck + len : 0;
    rpd_buf_reset(&pending);
    if (n <= 0)
      break;
  }
  if (n < 0) {
    rc = RPD_EGZIP;
    goto cleanup;
  }
  st = yajl_complete_parse(h);
  if (st != yajl_status_ok) {
    if (st == yajl_status_client_canceled) {
      rc = j.rc ? j.rc : RPD_ERR;
    } else {
      yajl_msg(h, NULL, 0, msg, sizeof msg);
      rc = rpd_seterr(RPD_EPARSE, "truncated JSON: input ends at byte %" PRIu64
                      " (line %" PRIu64 ") inside an open %s", fed, lines,
                      j.depth > 0 && j.is_map[j.depth] ? "object" : "array");
    }
    goto cleanup;
  }
  if ((rc = json_flush_paused(m)))   /* held counters */
    goto cleanup;
  if (!fed) {
    rc = rpd_seterr(RPD_EPARSE, "empty file");
    goto cleanup;
  }
  if (!j.saw_tool && j.saw_events)
    rc = rpd_seterr(RPD_EPARSE, "a chrome://tracing JSON (rocprof v1 results.json?), not"
                    " rocprofv3 output (no 'rocprofiler-sdk-tool' key): import"
                    " rocprof v1's results.db or its rpl directory instead");
  else if (!j.saw_tool)
    rc = rpd_seterr(RPD_EPARSE, "not a rocprofv3 JSON: no 'rocprofiler-sdk-tool' key");

cleanup:
  jk_free(m);
  yajl_free(h);
  rpd_buf_free(&pending);
  json_clear_section(&j);
  for (int i = 0; i < j.capf; i++)
    rpd_buf_free(&j.f[i].val);
  free(j.f);
  return rc;
}

/* A memory buffer being read. */
typedef struct membuf {
  const unsigned char *p;
  size_t left;
} membuf;

/* The next 64 KiB of it, in place. */
static int mem_read(void *ctx, const unsigned char **buf, uint64_t fed)
{
  membuf *b = ctx;
  (void)fed;
  size_t k = b->left < (1 << 16) ? b->left : (1 << 16);
  *buf = b->p;
  b->p += k;
  b->left -= k;
  return (int)k;
}

int import_json_buf(imp *m, const void *data, size_t n)
{
  membuf b = { data, n };
  return json_run(m, mem_read, &b);
}
