/* v1_json.c - rpd-import: rocprof v1's results.json, the chrome://tracing
 * file rocprof writes next to results.db.
 *
 * Layout (rocprofiler v1 tblextr): "M" process_name events name the lanes
 * ("CPU HIP API", "CPU HSA API", "COPY", "GPU<N>", "GPU Barriers<N>");
 * "X" slices carry the exact times in args.BeginNs/EndNs; api slices have
 * no correlation id, so, as results.db's Index, calls are numbered 1, 2, ...
 * in file order (HIP, then HSA); an op is linked to its call by the
 * DataFlow flow pair with the same id: "s" at a time inside the call on its
 * thread, "t" at the op's own ts on its lane.  The whole file is parsed at
 * once (yajl_tree): rocprof v1 writes it in memory too and the links need
 * both ends, so memory is proportional to the file. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <yajl_tree.h>
#include <zlib.h>

#include "rpd.h"
#include "kinds.h"
#include "strictint.h"

enum { L_OTHER, L_HIP, L_HSA, L_GPU, L_COPY };   /* the write order: as results.db */

typedef struct lane {
  int64_t pid;
  int kind;
} lane;

typedef struct v1ev {
  yajl_val v;               /* the X event */
  int kind;                 /* L_* of its lane */
  int64_t pid, tid, ts, id; /* chrome pid/tid, ts (us), api: its number */
  int64_t begin, end;       /* ns */
  int64_t corr;             /* ops: the linked call's number, 0 = none */
} v1ev;

typedef struct v1j {
  lane *lanes;
  int nlanes;
  v1ev *ev;
  int nev, cap;
  int *calls;               /* indices of the calls, by (tid, begin) */
  int ncalls;
  imap op_ts;               /* op ts -> first op index with it */
  int *op_next;             /* next op index with the same ts, -1 = none */
  int64_t n_unlinked_flow;  /* flows whose ends were not found */
  char bad[200];            /* the first BeginNs/EndNs that is not an integer */
} v1j;

static const char *obj_str(yajl_val o, const char *key)
{
  const char *path[] = { key, NULL };
  yajl_val v = yajl_tree_get(o, path, yajl_t_any);
  if (YAJL_IS_STRING(v))
    return YAJL_GET_STRING(v);
  if (YAJL_IS_NUMBER(v))
    return YAJL_GET_NUMBER(v);
  return NULL;
}

/* An integer written as a number or a string ("3497798450324"). */
static int64_t obj_int(yajl_val o, const char *key, int64_t dflt)
{
  const char *s = obj_str(o, key);
  return s && *s ? strtoll(s, NULL, 10) : dflt;
}

/* A timestamp of the args (BeginNs, EndNs): 0 when absent; a value that
 * is not exactly an integer (common/util/strictint.h) is remembered in j->bad
 * and the import refused, never read as a wrong number. */
static int64_t obj_time(v1j *j, yajl_val o, const char *key)
{
  const char *s = obj_str(o, key);
  int64_t v = 0;
  if (s && *s && rpd_int_text(s, strlen(s), &v) && !j->bad[0])
    snprintf(j->bad, sizeof j->bad, "args.%s: %s", key, rpd_errmsg());
  return v;
}

static yajl_val obj_args(yajl_val o)
{
  const char *path[] = { "args", NULL };
  yajl_val v = yajl_tree_get(o, path, yajl_t_object);
  return v;
}

static int lane_kind(const char *name)
{
  if (!name)
    return L_OTHER;
  if (!strcmp(name, "CPU HIP API"))
    return L_HIP;
  if (!strcmp(name, "CPU HSA API"))
    return L_HSA;
  if (!strcmp(name, "COPY"))
    return L_COPY;
  if (!strncmp(name, "GPU", 3) && name[3] >= '0' && name[3] <= '9')
    return L_GPU;
  return L_OTHER;
}

static int lane_of(const v1j *j, int64_t pid)
{
  for (int i = 0; i < j->nlanes; i++)
    if (j->lanes[i].pid == pid)
      return j->lanes[i].kind;
  return L_OTHER;
}

/* Pass 1: lanes from the process_name metadata. */
static void v1j_lanes(v1j *j, yajl_val evs)
{
  for (size_t i = 0; i < YAJL_GET_ARRAY(evs)->len; i++) {
    yajl_val e = YAJL_GET_ARRAY(evs)->values[i];
    const char *ph = obj_str(e, "ph"), *nm = obj_str(e, "name");
    if (!ph || strcmp(ph, "M") || !nm || strcmp(nm, "process_name"))
      continue;
    yajl_val a = obj_args(e);
    j->lanes = rpd_xrealloc(j->lanes, (j->nlanes + 1) * sizeof *j->lanes);
    j->lanes[j->nlanes].pid = obj_int(e, "pid", -1);
    j->lanes[j->nlanes++].kind = lane_kind(a ? obj_str(a, "name") : NULL);
  }
}

/* Pass 2: the slices of known lanes, api calls numbered HIP first. */
static void v1j_slices(imp *m, v1j *j, yajl_val evs)
{
  int64_t next = 0;
  for (int pass = L_HIP; pass <= L_COPY; pass++)
    for (size_t i = 0; i < YAJL_GET_ARRAY(evs)->len; i++) {
      yajl_val e = YAJL_GET_ARRAY(evs)->values[i];
      const char *ph = obj_str(e, "ph");
      if (!ph || strcmp(ph, "X"))
        continue;
      int kind = lane_of(j, obj_int(e, "pid", -1));
      if (kind != pass)
        continue;
      yajl_val a = obj_args(e);
      v1ev *v;
      if (j->nev == j->cap) {
        j->cap = j->cap ? 2 * j->cap : 256;
        j->ev = rpd_xrealloc(j->ev, j->cap * sizeof *j->ev);
      }
      v = &j->ev[j->nev++];
      memset(v, 0, sizeof *v);
      v->v = e;
      v->kind = kind;
      v->pid = obj_int(e, "pid", -1);
      v->tid = obj_int(e, "tid", -1);
      v->ts = obj_int(e, "ts", -1);
      v->begin = a ? obj_time(j, a, "BeginNs") : 0;
      v->end = a ? obj_time(j, a, "EndNs") : 0;
      if (kind == L_HIP || kind == L_HSA)
        v->id = ++next;
    }
  for (size_t i = 0; i < YAJL_GET_ARRAY(evs)->len; i++) {
    yajl_val e = YAJL_GET_ARRAY(evs)->values[i];
    const char *ph = obj_str(e, "ph");
    if (ph && !strcmp(ph, "X") && lane_of(j, obj_int(e, "pid", -1)) == L_OTHER)
      count_read(m, "v1 json other slice", 0);
  }
}

static v1j *sort_ctx;   /* qsort has no context argument */

static int call_cmp(const void *pa, const void *pb)
{
  const v1ev *a = &sort_ctx->ev[*(const int *)pa], *b = &sort_ctx->ev[*(const int *)pb];
  if (a->tid != b->tid)
    return a->tid < b->tid ? -1 : 1;
  return a->begin < b->begin ? -1 : a->begin > b->begin;
}

/* The lookups of pass 3: calls sorted by (thread, start), ops by ts. */
static void v1j_index(v1j *j)
{
  j->calls = rpd_xcalloc(j->nev ? j->nev : 1, sizeof *j->calls);
  j->op_next = rpd_xcalloc(j->nev ? j->nev : 1, sizeof *j->op_next);
  for (int i = j->nev - 1; i >= 0; i--) {
    v1ev *v = &j->ev[i];
    int64_t first;
    j->op_next[i] = -1;
    if (v->kind == L_HIP || v->kind == L_HSA)
      continue;
    if (imap_get(&j->op_ts, v->ts, &first))
      j->op_next[i] = (int)first;
    imap_put(&j->op_ts, v->ts, i);
  }
  for (int i = 0; i < j->nev; i++)
    if (j->ev[i].kind == L_HIP || j->ev[i].kind == L_HSA)
      j->calls[j->ncalls++] = i;
  sort_ctx = j;
  qsort(j->calls, (size_t)j->ncalls, sizeof *j->calls, call_cmp);
}

/* The api call on chrome thread tid whose time holds ts (us): the last call
 * of the thread starting by ts, or one of the few before it (nesting). */
static v1ev *call_at(v1j *j, int64_t tid, int64_t ts)
{
  int lo = 0, hi = j->ncalls;   /* first call after (tid, ts) */
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    const v1ev *v = &j->ev[j->calls[mid]];
    if (v->tid < tid || (v->tid == tid && v->begin / 1000 <= ts))
      lo = mid + 1;
    else
      hi = mid;
  }
  for (int k = lo - 1; k >= 0 && k >= lo - 8; k--) {
    v1ev *v = &j->ev[j->calls[k]];
    if (v->tid != tid)
      break;
    if (v->begin / 1000 <= ts && ts <= v->end / 1000)
      return v;
  }
  return NULL;
}

static v1ev *op_at(v1j *j, int64_t pid, int64_t tid, int64_t ts)
{
  int64_t i;
  if (!imap_get(&j->op_ts, ts, &i))
    return NULL;
  for (; i >= 0; i = j->op_next[i])
    if (j->ev[i].pid == pid && j->ev[i].tid == tid)
      return &j->ev[i];
  return NULL;
}

/* Pass 3: the DataFlow flows ("s" at the call, "t" at the op, same id),
 * O(n log n): the heads by flow id, calls by binary search, ops by ts. */
static void v1j_flows(v1j *j, yajl_val evs)
{
  size_t n = YAJL_GET_ARRAY(evs)->len;
  imap head = {0};          /* flow id -> index of its "t" event */
  v1j_index(j);
  for (size_t i = n; i-- > 0;) {
    yajl_val t = YAJL_GET_ARRAY(evs)->values[i];
    const char *ph = obj_str(t, "ph");
    if (ph && !strcmp(ph, "t"))
      imap_put(&head, obj_int(t, "id", -1), (int64_t)i);
  }
  for (size_t i = 0; i < n; i++) {
    yajl_val s = YAJL_GET_ARRAY(evs)->values[i];
    const char *ph = obj_str(s, "ph");
    int64_t ti;
    if (!ph || strcmp(ph, "s"))
      continue;
    v1ev *call = call_at(j, obj_int(s, "tid", -1), obj_int(s, "ts", -1)), *op = NULL;
    if (call && imap_get(&head, obj_int(s, "id", -1), &ti)) {
      yajl_val t = YAJL_GET_ARRAY(evs)->values[ti];
      op = op_at(j, obj_int(t, "pid", -1), obj_int(t, "tid", -1), obj_int(t, "ts", -1));
    }
    if (call && op)
      op->corr = call->id;
    else
      j->n_unlinked_flow++;
  }
  imap_free(&head);
}

/* Pass 4: write calls (sizes of copy calls noted), then ops. */
static int v1j_write(imp *m, v1j *j)
{
  imap sizes = {0};
  int rc = RPD_OK;
  for (int i = 0; i < j->nev && !rc; i++) {
    v1ev *v = &j->ev[i];
    yajl_val a = obj_args(v->v);
    const char *name = a ? obj_str(a, "Name") : NULL;
    if (!name)
      name = obj_str(v->v, "name");
    if (v->kind == L_HIP || v->kind == L_HSA) {
      apirec r = {0};
      const char *args = a ? obj_str(a, "args") : NULL;
      count_read(m, v->kind == L_HIP ? "v1 json HIP" : "v1 json HSA", 1);
      r.corr = v->id;
      r.pid = a ? obj_int(a, "pid", 0) : 0;
      r.tid = a ? obj_int(a, "tid", 0) : 0;
      r.start = v->begin;
      r.end = v->end;
      r.domain = v->kind == L_HIP ? "HIP" : "HSA";
      r.category = v->kind == L_HIP ? "HIP_API" : "HSA_API";
      r.name = name ? name : "";
      r.args = args ? args : "";
      rc = w_api(m, &r);
      int64_t size = args_size(args);
      if (!rc && size >= 0)
        imap_put(&sizes, v->id, size);
      continue;
    }
    int64_t gpu = a ? obj_int(a, "dev-id", 0) : 0;
    if (v->kind == L_COPY) {
      copyrec c = {0};
      count_read(m, "v1 json COPY", 1);
      c.kind = copy_kind(name);
      c.src_gpu = c.kind == 2 || c.kind == 3 ? gpu : -1;
      c.dst_gpu = c.kind == 1 || c.kind == 3 ? gpu : -1;
      c.start = v->begin;
      c.end = v->end;
      c.corr = v->corr;
      if (!imap_get(&sizes, c.corr, &c.bytes))
        c.bytes = 0;
      rc = w_copy(m, &c);
    } else {
      kern k = {0};
      count_read(m, "v1 json OPS", 1);
      k.gpu = gpu;
      k.queue = a ? obj_int(a, "queue-id", 0) : 0;
      k.start = v->begin;
      k.end = v->end;
      k.corr = v->corr;
      rc = w_kernel_name(m, name ? name : "", NULL, &k.desc_id, &k.name_id);
      if (!rc)
        rc = w_kernel(m, &k);
    }
  }
  imap_free(&sizes);
  return rc;
}

int import_v1_json_buf(imp *m, const void *data, size_t n)
{
  char err[160] = "";
  char *text = rpd_xmalloc(n + 1);
  memcpy(text, data, n);
  text[n] = '\0';
  yajl_val root = yajl_tree_parse(text, err, sizeof err);
  free(text);
  if (!root) {
    err[strcspn(err, "\n")] = '\0';
    return rpd_seterr(RPD_EPARSE, "malformed JSON: %s", *err ? err : "parse error");
  }
  const char *path[] = { "traceEvents", NULL };
  yajl_val evs = yajl_tree_get(root, path, yajl_t_array);
  v1j j;
  memset(&j, 0, sizeof j);
  int rc = RPD_OK;
  if (evs) {
    v1j_lanes(&j, evs);
    v1j_slices(m, &j, evs);
    v1j_flows(&j, evs);
  }
  if (j.bad[0])
    rc = rpd_seterr(RPD_EPARSE, "rocprof v1 results.json: %s", j.bad);
  else if (!j.nev)
    rc = rpd_seterr(RPD_EPARSE, "not rocprofv3 output (no 'rocprofiler-sdk-tool' key) and"
                    " not a rocprof v1 results.json (a chrome trace with no 'CPU HIP API',"
                    " 'COPY' or 'GPU<N>' slices)");
  else
    rc = v1j_write(m, &j);
  m->n_v1_unlinked_flow += j.n_unlinked_flow;
  free(j.lanes);
  free(j.ev);
  free(j.calls);
  free(j.op_next);
  imap_free(&j.op_ts);
  yajl_tree_free(root);
  return rc;
}

int v1_json_is(const char *path)
{
  char h[512];
  gzFile gz = gzopen(path, "rb");
  int n = gz ? gzread(gz, h, sizeof h - 1) : -1;
  if (gz)
    gzclose(gz);
  if (n <= 0)
    return 0;
  h[n] = '\0';
  const char *p = h + strspn(h, " \t\r\n");
  if (*p++ != '{')
    return 0;
  p += strspn(p, " \t\r\n");
  return !strncmp(p, "\"traceEvents\"", 13);
}

int import_v1_json(imp *m, const char *path)
{
  gzFile gz = gzopen(path, "rb");
  rpd_buf b = {0};
  char chunk[65536];
  int n, rc = RPD_OK;
  if (!gz)
    return rpd_seterr(RPD_EIO, "cannot read");
  while ((n = gzread(gz, chunk, sizeof chunk)) > 0)
    rpd_buf_add(&b, chunk, (size_t)n);
  if (n < 0) {
    int zerr;
    const char *zm = gzerror(gz, &zerr);
    rc = rpd_seterr(RPD_EGZIP, "corrupt or truncated gzip stream: %s", zm ? zm : "read error");
  }
  gzclose(gz);
  if (!rc)
    rc = import_v1_json_buf(m, b.s ? b.s : "", b.len);
  rpd_buf_free(&b);
  return rc;
}
