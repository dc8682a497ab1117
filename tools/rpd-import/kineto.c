/* kineto.c - rpd-import: PyTorch profiler (Kineto) traces, the chrome-trace
 * JSON torch.profiler writes (*.pt.trace.json[.gz]: traceEvents,
 * deviceProperties, distributedInfo, baseTimeNanoseconds ...), streamed
 * through kjson.c (yajl's callback interface) with the bytes from jsonfile.c; memory flat in the number of
 * events (one event's fields at a time).
 *
 * Mapping (docs/rpd-import.md has the table):
 *  - "kernel" events -> KernelExecution ops (args.device -> gpuId,
 *    args.stream -> queueId, grid/block -> rocpd_kernelapi); "gpu_memcpy"
 *    -> Copy* ops, "gpu_memset" -> FillBuffer ops (rocpd_copyapi: bytes);
 *  - "cuda_runtime" / "cuda_driver" (and "cuda_sync") -> rocpd_api rows
 *    whose id is 2 x args.correlation, so every GPU event with the same
 *    correlation links to its call through rocpd_api_ops without a lookup
 *    table (the ac2g flow pairs carry the same id);
 *  - "cpu_op", "user_annotation", "python_function" -> UserMarker rows on
 *    odd ids (never a runtime call's); a cpu_op's args are in the autograd
 *    form rpd-autograd parses (NAME, seq = S, op_id = E, sizes = DIMS,
 *    input_op_ids = []); every such event's whole args object is kept as
 *    JSON in ext_kineto_event (input types, strides, concrete inputs,
 *    collective parameters), as are "gpu_user_annotation" ranges, instant
 *    events and the args of collective kernels;
 *  - top-level keys -> rocpd_metadata (kineto::KEY as JSON text; rank,
 *    world_size, the devices and clock_offset_ns = baseTimeNanoseconds).
 * Times: Kineto writes microseconds with three decimals; they are read as
 * decimal text into exact nanoseconds (no floating point). */
#define _GNU_SOURCE /* memmem */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <yajl_parse.h>
#include <zlib.h>

#include "kineto.h"
#include "jsonread.h"
#include "kjson.h"
#include "perfmodel.h"
#include "pipe.h"

/* ------------------------------------------------------------ JSON text */

/* 1 if one of the 8 bytes of w needs escaping in JSON: below 0x20, '"'
 * or '\\' (the classic has-zero-byte / has-less-than word tests). */
static inline int word_needs_esc(uint64_t w)
{
  const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
  uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
  uint64_t lt = (w - ones * 0x20) & ~w;
  return ((((q - ones) & ~q) | ((b - ones) & ~b) | lt) & high) != 0;
}

/* s[0..n) as a JSON string body. */
static void esc(rpd_buf *b, const unsigned char *s, size_t n)
{
  static const char hx[] = "0123456789abcdef";
  size_t i = 0, run = 0;
  for (;;) {
    /* 8 plain bytes at a time: most strings need no escape at all */
    while (i + 8 <= n) {
      uint64_t w;
      memcpy(&w, s + i, 8);
      if (word_needs_esc(w))
        break;
      i += 8;
    }
    if (i >= n)
      break;
    unsigned char c = s[i];
    if (c >= 0x20 && c != '"' && c != '\\') {
      i++;
      continue;
    }
    put(b, (const char *)s + run, i - run);
    run = ++i;
    if (c == '"' || c == '\\') {
      char t[2] = { '\\', (char)c };
      put(b, t, 2);
    } else {
      char t[6] = { '\\', 'u', '0', '0', hx[c >> 4], hx[c & 15] };
      put(b, t, 6);
    }
  }
  put(b, (const char *)s + run, n - run);
}

/* Before a value (or key) at the current depth of the serialization. */
static void ser_sep(kstate *k)
{
  int d = k->depth;
  if (k->is_map[d])
    return;                 /* a map's separator came with its key */
  if (k->need_comma[d])
    put(k->out, ", ", 2);
  k->need_comma[d] = 1;
}

/* ------------------------------------------------------------ callbacks */

static int fail(kstate *k, int rc)
{
  k->rc = rc;
  return 0;
}

/* The role of a container opened inside the current one. */
static int child_role(kstate *k)
{
  int d = k->depth, pr = d ? k->role[d] : P_NONE;
  switch (pr) {
  case P_NONE: return d ? P_SKIP : P_TOP;
  case P_TOP:
    if (!strcmp(k->topkey, "traceEvents")) {
      k->saw_events = 1;
      return P_EVENTS;
    }
    return P_META;
  case P_EVENTS: return P_EVENT;
  case P_EVENT:
    /* a python_function's args (its python ids) are not kept: skipped
     * unread (Kineto writes cat before args) */
    return k->field == F_ARGS && k->ev.ck != CK_PYTHON ? P_ARGS : P_SKIP;
  case P_ARGS: case P_META: return pr;
  default: return P_SKIP;
  }
}

static void ev_reset(kev *e)
{
  e->ph[0] = e->cat[0] = e->pid[0] = e->tid[0] = '\0';
  e->ck = CK_OTHER;
  rpd_buf_reset(&e->name);
  rpd_buf_add(&e->name, "", 0);
  e->has_ts = e->has_dur = e->ts_str = e->dur_str = e->has_name = e->lite = 0;
  rpd_buf_reset(&e->args);
  e->na = 0;
}

/* 1 if only the values of this event's args are read (no JSON text is
 * kept): runtime calls, copies and kernels other than collectives, whose
 * args become columns; in a lean read (m->lean) also the events whose
 * args it does not keep (annotations, instant events).  Kineto writes ph,
 * cat and name before args; without them the args are kept whole. */
static int args_lite(const kstate *k)
{
  const kev *e = &k->ev;
  if (k->m->lean && (e->ck == CK_ANNOTATION || e->ck == CK_GPU_ANNOTATION ||
                     ((e->ph[0] == 'i' || e->ph[0] == 'I') && !e->ph[1])))
    return 1;
  if (e->ck == CK_KERNEL)
    return e->has_name && !kineto_is_collective(e->name.s);
  return e->ck == CK_RUNTIME || e->ck == CK_MEMCPY || e->ck == CK_MEMSET ||
         e->ck == CK_SYNC;
}

/* 1 if an args key of a cpu_op is one the performance model reads (a lean
 * read keeps only those of a cpu_op's args: see readdirect.h). */
static int model_key(const unsigned char *s, size_t len)
{
  for (int i = 0; i < RPD_PERF_NARGS; i++)
    if (len == strlen(rpd_perf_arg_keys[i]) && !memcmp(s, rpd_perf_arg_keys[i], len))
      return 1;
  return 0;
}

static int open_c(kstate *k, int is_map)
{
  int role = child_role(k);
  if (k->depth >= KMAXD)
    return fail(k, rpd_seterr(RPD_EPARSE, "JSON nested deeper than %d levels", KMAXD));
  if (k->depth == 0 && !is_map)
    return fail(k, rpd_seterr(RPD_EPARSE, "not a Kineto trace: the JSON is an array,"
                              " not an object with 'traceEvents'"));
  if (role == P_EVENTS && is_map)
    role = P_SKIP;
  if (role == P_EVENT && !is_map)
    role = P_SKIP;
  if (role == P_ARGS && k->drop_member && k->out && k->depth == k->serial_base + 1)
    role = P_SKIP;          /* a member a lean read leaves out */
  if (role == P_ARGS || role == P_META) {
    if (k->out && k->depth > k->serial_base)
      ser_sep(k);
    else {
      /* the start of an args object or a top-level value */
      k->out = role == P_ARGS ? &k->ev.args : &k->meta;
      rpd_buf_reset(k->out);
      k->serial_base = k->depth;
      k->drop_member = 0;
      if (role == P_ARGS)
        k->ev.lite = is_map && args_lite(k);
    }
    put(k->out, is_map ? "{" : "[", 1);
    if (k->out->len > (role == P_ARGS ? KTEXT_MAX : KMETA_MAX))
      return fail(k, rpd_seterr(RPD_EPARSE, "event %" PRId64 ": args longer than"
                                " 16 MiB", k->nev));
  }
  k->depth++;
  k->role[k->depth] = role;
  k->is_map[k->depth] = (char)is_map;
  k->need_comma[k->depth] = 0;
  if (role == P_EVENT) {
    ev_reset(&k->ev);
    k->argkey = -1;
    k->nev++;               /* messages name the event 1, 2, ... */
  }
  return 1;
}

static int close_c(kstate *k)
{
  int d = k->depth, role = k->role[d];
  int rc = RPD_OK;
  if (role == P_ARGS || role == P_META) {
    put(k->out, k->is_map[d] ? "}" : "]", 1);
    if (d - 1 == k->serial_base + 1 && role == P_ARGS && k->argkey >= 0) {
      /* a nested value of an args key ends */
      karg *a = &k->ev.a[k->argkey];
      a->len = k->out->len - a->off;
      k->argkey = -1;
    }
    if (d - 1 == k->serial_base) {
      k->out = NULL;
      if (role == P_META)
        rc = kineto_meta_end(k);
    }
  } else if (role == P_EVENT)
    rc = kineto_event_end(k);
  k->depth--;
  if (rc)
    return fail(k, rc);
  return 1;
}

static int cb_start_map(void *ctx) { return open_c(ctx, 1); }
static int cb_end_map(void *ctx) { return close_c(ctx); }
static int cb_start_array(void *ctx) { return open_c(ctx, 0); }
static int cb_end_array(void *ctx) { return close_c(ctx); }

static int cb_key(void *ctx, const unsigned char *s, size_t len)
{
  kstate *k = ctx;
  int role = k->role[k->depth];
  if (role == P_TOP) {
    size_t n = len < sizeof k->topkey - 1 ? len : sizeof k->topkey - 1;
    memcpy(k->topkey, s, n);
    k->topkey[n] = '\0';
    return 1;
  }
  if (role == P_EVENT) {
    k->field = F_OTHER;
    if (len == 2 && !memcmp(s, "ph", 2)) k->field = F_PH;
    else if (len == 3 && !memcmp(s, "cat", 3)) k->field = F_CAT;
    else if (len == 4 && !memcmp(s, "name", 4)) k->field = F_NAME;
    else if (len == 3 && !memcmp(s, "pid", 3)) k->field = F_PID;
    else if (len == 3 && !memcmp(s, "tid", 3)) k->field = F_TID;
    else if (len == 2 && !memcmp(s, "ts", 2)) k->field = F_TS;
    else if (len == 3 && !memcmp(s, "dur", 3)) k->field = F_DUR;
    else if (len == 4 && !memcmp(s, "args", 4)) k->field = F_ARGS;
    return 1;
  }
  if (role == P_ARGS && k->ev.lite && k->depth == k->serial_base + 1) {
    /* only where the value will be */
    karg *a = &k->ev.a[k->ev.na];
    k->argkey = -1;
    if (k->ev.na < KARGS && len < sizeof a->key) {
      memcpy(a->key, s, len);
      a->key[len] = '\0';
      a->klen = len;
      a->off = k->out->len;
      a->len = 0;
      a->str = 0;
      k->argkey = k->ev.na++;
    }
    return 1;
  }
  if (role == P_ARGS && k->depth == k->serial_base + 1) {
    k->drop_member = k->m->lean && k->ev.ck == CK_CPU_OP && !model_key(s, len);
    if (k->drop_member) {
      k->argkey = -1;
      return 1;
    }
  }
  if (role == P_ARGS || role == P_META) {
    rpd_buf *o = k->out;
    int d = k->depth;
    if (k->need_comma[d])
      put(o, ", ", 2);
    k->need_comma[d] = 1;
    put(o, "\"", 1);
    esc(o, s, len);
    put(o, "\": ", 3);
    if (role == P_ARGS && d == k->serial_base + 1) {
      k->argkey = -1;
      if (k->ev.na < KARGS && len < sizeof k->ev.a[0].key) {
        karg *a = &k->ev.a[k->ev.na];
        memcpy(a->key, s, len);
        a->key[len] = '\0';
        a->klen = len;
        a->off = o->len;
        a->len = 0;
        a->str = 0;
        k->argkey = k->ev.na++;
      }
    }
  }
  return 1;
}

/* A scalar: text s (numbers, literals) or a string (is_str). */
static int scalar(kstate *k, const char *s, size_t len, int is_str)
{
  int role = k->role[k->depth];
  if (role == P_EVENT) {
    kev *e = &k->ev;
    char *dst = NULL;
    size_t cap = 0;
    switch (k->field) {
    case F_PH: dst = e->ph; cap = sizeof e->ph; break;
    case F_CAT: dst = e->cat; cap = sizeof e->cat; break;
    case F_PID: dst = e->pid; cap = sizeof e->pid; break;
    case F_TID: dst = e->tid; cap = sizeof e->tid; break;
    case F_TS: dst = e->ts; cap = sizeof e->ts; e->has_ts = 1; e->ts_str = is_str; break;
    case F_DUR: dst = e->dur; cap = sizeof e->dur; e->has_dur = 1; e->dur_str = is_str; break;
    case F_NAME:
      if (len > KTEXT_MAX)
        return fail(k, rpd_seterr(RPD_EPARSE, "event %" PRId64 ": name longer than"
                                  " 16 MiB", k->nev));
      rpd_buf_reset(&e->name);
      rpd_buf_add(&e->name, s, len);
      e->has_name = 1;
      return 1;
    default: return 1;
    }
    if (len >= cap) {
      if (k->field == F_TS || k->field == F_DUR)
        return fail(k, kineto_event_fail(k, k->field == F_TS ? "'ts' is not a number of microseconds"
                                                   : "'dur' is not a number of microseconds"));
      len = cap - 1;    /* a long cat/ph/pid/tid: kept cut */
    }
    memcpy(dst, s, len);
    dst[len] = '\0';
    if (k->field == F_CAT)
      e->ck = kineto_cat_kind(dst);
    return 1;
  }
  if (role == P_TOP) {
    /* a top-level scalar: its text is the metadata value */
    rpd_buf_reset(&k->meta);
    rpd_buf_add(&k->meta, s, len);
    int rc = kineto_meta_end(k);
    return rc ? fail(k, rc) : 1;
  }
  if (role == P_ARGS && k->drop_member && k->depth == k->serial_base + 1)
    return 1;               /* a member a lean read leaves out */
  if (role == P_ARGS || role == P_META) {
    rpd_buf *o = k->out;
    if (k->ev.lite && k->depth == k->serial_base + 1) {
      /* a bare value: no quotes, no escapes */
      size_t at = o->len;
      put(o, s, len);
      if (k->argkey >= 0) {
        karg *a = &k->ev.a[k->argkey];
        a->off = at;
        a->len = len;
        a->str = is_str;
        k->argkey = -1;
      }
      if (o->len > KTEXT_MAX)
        return fail(k, rpd_seterr(RPD_EPARSE, "event %" PRId64 ": args longer than"
                                  " 16 MiB", k->nev));
      return 1;
    }
    ser_sep(k);
    size_t at = o->len;
    if (is_str) {
      put(o, "\"", 1);
      esc(o, (const unsigned char *)s, len);
      put(o, "\"", 1);
    } else
      put(o, s, len);
    if (role == P_ARGS && k->depth == k->serial_base + 1 && k->argkey >= 0) {
      karg *a = &k->ev.a[k->argkey];
      if (is_str) {
        /* the text without quotes (escaped only if it needed escapes) */
        a->off = at + 1;
        a->len = o->len - at - 2;
        a->str = 1;
      } else {
        a->off = at;
        a->len = o->len - at;
      }
      k->argkey = -1;
    }
    if (o->len > KTEXT_MAX)
      return fail(k, rpd_seterr(RPD_EPARSE, "event %" PRId64 ": args longer than"
                                " 16 MiB", k->nev));
  }
  return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
  return scalar(ctx, (const char *)s, len, 1);
}

static int cb_number(void *ctx, const char *s, size_t len)
{
  return scalar(ctx, s, len, 0);
}

static int cb_bool(void *ctx, int b)
{
  return scalar(ctx, b ? "true" : "false", b ? 4 : 5, 0);
}

static int cb_null(void *ctx)
{
  return scalar(ctx, "null", 4, 0);
}

static const yajl_callbacks kcb = {
  cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
  cb_start_map, cb_key, cb_end_map, cb_start_array, cb_end_array
};

/* ------------------------------------------------------------ the run */

/* Parse the stream from rd into m (the Kineto counterpart of json_run). */
static int kineto_run(imp *m, json_read_fn rd, void *ctx)
{
  kstate *k = rpd_xcalloc(1, sizeof *k);
  k->m = m;
  k->next_marker = -1;
  k->argkey = -1;
  uint64_t fed = 0;
  const char *msg = NULL;
  int rc;

  rc = pipe_pause(m);
  if (!rc)
    rc = rpd_exec(m->r, kineto_ext_ddl);
  pipe_resume(m);
  if (rc)
    goto cleanup;
  switch (kjson_run(&kcb, k, rd, ctx, &fed, &msg)) {
  case KJ_OK:
    break;
  case KJ_CANCELED:
    rc = k->rc ? k->rc : RPD_ERR;
    if (rc == RPD_EPARSE || rc == RPD_ERR)
      rc = rpd_seterr(RPD_EPARSE, "at byte %" PRIu64 ": %s", fed, rpd_errmsg());
    goto cleanup;
  case KJ_MALFORMED:
    rc = rpd_seterr(RPD_EPARSE, "malformed JSON at byte %" PRIu64 ": %s", fed, msg);
    goto cleanup;
  case KJ_TRUNCATED:
    rc = rpd_seterr(RPD_EPARSE, "truncated JSON: input ends at byte %" PRIu64
                    " inside an open %s", fed,
                    k->depth > 0 && k->is_map[k->depth] ? "object" : "array");
    goto cleanup;
  default:
    rc = RPD_EGZIP;
    goto cleanup;
  }
  if (!fed) {
    rc = rpd_seterr(RPD_EPARSE, "empty file");
    goto cleanup;
  }
  if (!k->saw_events) {
    rc = rpd_seterr(RPD_EPARSE, "not a Kineto trace: no 'traceEvents' array");
    goto cleanup;
  }
  rc = kineto_ext_flush(k);
  if (!rc)
    rc = kineto_meta_derived(m);
  if (!rc)
    rc = w_meta_add(m, "rpd-import::format", "kineto");

cleanup:
  /* the writer thread may still hold ext rows that use k's statement */
  {
    int prc = pipe_pause(m);
    if (!rc)
      rc = prc;
    sqlite3_finalize(k->st_ext);
    sqlite3_finalize(k->st_ext_many);
    pipe_resume(m);
  }
  rpd_buf_free(&k->ev.name);
  rpd_buf_free(&k->ev.args);
  rpd_buf_free(&k->meta);
  rpd_buf_free(&k->text);
  rpd_buf_free(&k->extq);
  kineto_event_free(k);
  free(k);
  return rc;
}

int import_kineto(imp *m, const char *path)
{
  return import_json_with(m, path, kineto_run);
}

/* A memory buffer being read (the fuzz entry). */
typedef struct kmem {
  const unsigned char *p;
  size_t left;
} kmem;

static int kmem_read(void *ctx, const unsigned char **buf, uint64_t fed)
{
  kmem *b = ctx;
  (void)fed;
  size_t n = b->left < (1 << 16) ? b->left : (1 << 16);
  *buf = b->p;
  b->p += n;
  b->left -= n;
  return (int)n;
}

int import_kineto_buf(imp *m, const void *data, size_t n)
{
  kmem b = { data, n };
  return kineto_run(m, kmem_read, &b);
}

