/* json_rec.c - rpd-import's rocprofiler-sdk JSON reader: a finished record
 * (its fields, flattened keys to values) into rows: kernel dispatches,
 * copies, api calls, metadata, agents, kernel symbols, kind and marker
 * names; the rare kinds through json_kinds.c. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json_int.h"
#include "kinds.h"   /* record kinds: json_kinds.c */
#include "pipe.h"    /* the writer thread, paused for rare records */
#include "strictint.h"

void json_clear_section(jstate *j)
{
  imap_free(&j->agents);
  imap_free(&j->symidx);
  for (int i = 0; i < j->nsyms; i++) {
    free(j->syms[i].short_name);
    free(j->syms[i].full_name);
  }
  free(j->syms);
  j->syms = NULL;
  j->nsyms = j->capsyms = 0;
  for (int i = 0; i < j->nkn; i++) {
    free(j->kn[i].name);
    for (int k = 0; k < j->kn[i].nops; k++)
      free(j->kn[i].ops[k]);
    free(j->kn[i].ops);
  }
  free(j->kn);
  j->kn = NULL;
  j->nkn = j->capkn = 0;
  imap_free(&j->markmsg);
  for (int i = 0; i < j->nmarkers; i++)
    free(j->markers[i]);
  free(j->markers);
  j->markers = NULL;
  j->nmarkers = j->capmarkers = 0;
}

/* The field named key, or NULL.  Records of one kind list their fields in
 * the same order, so the search starts after the last hit. */
static jfield *jf_findn(jstate *j, const char *key, size_t len)
{
  char last = len ? key[len - 1] : 0;
  for (int n = 0, i = j->hint; n < j->nf; n++, i++) {
    if (i >= j->nf)
      i = 0;
    const jfield *f = &j->f[i];
    /* length and last byte first: keys share long prefixes */
    if (f->klen == len && (!len || f->key[len - 1] == last) &&
        !memcmp(f->key, key, len)) {
      j->hint = i + 1;
      return &j->f[i];
    }
  }
  return NULL;
}

/* The lookups name their keys with string literals: their length is
 * known at compile time. */
#define jf_find(j, lit) jf_findn((j), (lit), sizeof(lit) - 1)
#define jstr(j, lit) jstrn((j), (lit), sizeof(lit) - 1)
#define jint(j, lit, dflt) jintn((j), (lit), sizeof(lit) - 1, (dflt))

static const char *jstrn(jstate *j, const char *key, size_t len)
{
  jfield *f = jf_findn(j, key, len);
  return f ? f->val.s : NULL;
}

/* The integer field key: its value when it is an integer (a JSON number
 * or string holding exactly a decimal int64: common/util/strictint.h); dflt
 * when it is absent or null, where dflt = JREQ makes that an error too.
 * An error (a fraction, an exponent, true/false, an array, out of range)
 * is remembered in j->ibad (the first one wins) and dflt returned: the
 * record is refused by jrec_check. */
static int64_t jintn(jstate *j, const char *key, size_t len, int64_t dflt)
{
  jfield *f = jf_findn(j, key, len);
  const char *s = f ? f->val.s : NULL;
  if (!s || !*s) {
    if (dflt == JREQ && !j->ibad[0])
      snprintf(j->ibad, sizeof j->ibad, "field '%.*s' is missing", (int)len, key);
    return dflt == JREQ ? 0 : dflt;
  }
  /* plain decimal integers of up to 18 digits (what rocprofv3 writes)
   * inline; anything else goes to the strict reader */
  const char *p = s + (*s == '-');
  uint64_t v = 0;
  int nd = 0;
  for (; *p >= '0' && *p <= '9' && nd < 18; p++, nd++)
    v = v * 10 + (uint64_t)(*p - '0');
  if (!*p && nd)
    return *s == '-' ? -(int64_t)v : (int64_t)v;
  int64_t x;
  if (f->n == 1 && rpd_int_text(s, f->val.len, &x) == RPD_OK)
    return x;
  if (!j->ibad[0]) {
    if (f->n > 1)
      snprintf(j->ibad, sizeof j->ibad, "field '%.*s': an array, not an integer",
               (int)len, key);
    else
      snprintf(j->ibad, sizeof j->ibad, "field '%.*s': %s", (int)len, key, rpd_errmsg());
  }
  return dflt == JREQ ? 0 : dflt;
}

/* RPD_OK, or the record's first bad integer field as an RPD_EPARSE
 * (json_run adds the byte and line). */
static int jrec_check(jstate *j)
{
  if (!j->ibad[0])
    return RPD_OK;
  static const char *const what[] = { "", "metadata", "agents", "kernel_symbols",
                                      "strings.buffer_records", "strings.marker_api" };
  const char *rec = j->rec_kind > 0 && j->rec_kind < RK_BUF ? what[j->rec_kind] : j->recarr;
  return rpd_seterr(RPD_EPARSE, "%s record: %s", rec, j->ibad);
}

static ksym *sym_of(jstate *j, int64_t kernel_id)
{
  int64_t i;
  return imap_get(&j->symidx, kernel_id, &i) ? &j->syms[i] : NULL;
}

static int sym_ids(jstate *j, int64_t kernel_id, int64_t *desc, int64_t *full)
{
  imp *m = j->m;
  ksym *k = sym_of(j, kernel_id);
  int rc = RPD_OK;
  if (!k) {
    char b[48];
    snprintf(b, sizeof b, "unknown_kernel_%" PRId64, kernel_id);
    return w_kernel_name(m, b, b, desc, full);
  }
  if (k->full_id < 0)
    rc = w_kernel_name(m, k->full_name, k->short_name, &k->desc_id, &k->full_id);
  *desc = k->desc_id;
  *full = k->full_id;
  return rc;
}

static const char *first_nonempty(const char *a, const char *b, const char *c)
{
  if (a && *a)
    return a;
  if (b && *b)
    return b;
  return c ? c : "";
}

static int64_t agent_gpu(jstate *j, int64_t handle)
{
  int64_t g;
  return imap_get(&j->agents, handle, &g) ? g : -1;
}

/* Name of operation op of buffer kind k (strings.buffer_records), or NULL. */
static const char *op_name(jstate *j, int64_t k, int64_t op)
{
  if (k < 0 || k >= j->nkn || op < 0 || op >= j->kn[k].nops)
    return NULL;
  return j->kn[k].ops[op];
}

static const char *kind_name(jstate *j, int64_t k)
{
  return k >= 0 && k < j->nkn ? j->kn[k].name : NULL;
}

static int rec_kernel(jstate *j)
{
  kern k = {0};
  /* in the order rocprofv3 writes the fields: each lookup starts where
   * the last one hit (jf_find), so it is found at once */
  k.corr = jint(j, "correlation_id.internal", 0);
  k.start = jint(j, "start_timestamp", JREQ);
  k.end = jint(j, "end_timestamp", JREQ);
  k.gpu = agent_gpu(j, jint(j, "dispatch_info.agent_id.handle", -1));
  k.queue = jint(j, "dispatch_info.queue_id.handle", 0);
  int64_t kid = jint(j, "dispatch_info.kernel_id", -1);
  k.seq = jint(j, "dispatch_info.dispatch_id", 0);
  k.scratch = jint(j, "dispatch_info.private_segment_size", 0);
  k.lds = jint(j, "dispatch_info.group_segment_size", 0);
  k.wg[0] = jint(j, "dispatch_info.workgroup_size.x", 0);
  k.wg[1] = jint(j, "dispatch_info.workgroup_size.y", 0);
  k.wg[2] = jint(j, "dispatch_info.workgroup_size.z", 0);
  k.grid[0] = jint(j, "dispatch_info.grid_size.x", 0);
  k.grid[1] = jint(j, "dispatch_info.grid_size.y", 0);
  k.grid[2] = jint(j, "dispatch_info.grid_size.z", 0);
  k.stream = jint(j, "stream_id.handle", 0);
  int rc = jrec_check(j);
  if (!rc)
    rc = sym_ids(j, kid, &k.desc_id, &k.name_id);
  return rc ? rc : w_kernel(j->m, &k);
}

static int rec_copy(jstate *j)
{
  copyrec c = {0};
  int64_t kind = jint(j, "kind", -1), op = jint(j, "operation", -1);
  const char *nm = op_name(j, kind, op);
  c.kind = copy_kind(nm);
  if (c.kind < 0 && op >= 1 && op <= 4)
    c.kind = (int)op - 1;       /* rocprofiler enum order: H2H H2D D2H D2D */
  c.src_gpu = agent_gpu(j, jint(j, "src_agent_id.handle", -1));
  c.dst_gpu = agent_gpu(j, jint(j, "dst_agent_id.handle", -1));
  c.start = jint(j, "start_timestamp", JREQ);
  c.end = jint(j, "end_timestamp", JREQ);
  c.corr = jint(j, "correlation_id.internal", 0);
  c.bytes = jint(j, "bytes", 0);
  c.stream = jint(j, "stream_id.handle", 0);
  int rc = jrec_check(j);
  return rc ? rc : w_copy(j->m, &c);
}

/* "name=value | name=value" from the record's args.* fields. */
static const char *rec_args(jstate *j)
{
  rpd_buf *b = &j->m->args;
  rpd_buf_reset(b);
  rpd_buf_add(b, "", 0);
  for (int i = 0; i < j->nf; i++) {
    const char *k = j->f[i].key;
    if (strncmp(k, "args.", 5))
      continue;
    if (b->len)
      rpd_buf_puts(b, " | ");
    rpd_buf_printf(b, "%s=%s", k + 5, j->f[i].val.s ? j->f[i].val.s : "");
  }
  return b->s;
}

static int rec_api(jstate *j, const char *section)
{
  apirec a = {0};
  char opb[32];
  int64_t kind = jint(j, "kind", -1), op = jint(j, "operation", -1);
  const char *nm = op_name(j, kind, op);
  if (!nm) {
    snprintf(opb, sizeof opb, "operation_%" PRId64, op);
    nm = opb;
  }
  a.tid = jint(j, "thread_id", 0);            /* rocprofv3's field order */
  a.corr = jint(j, "correlation_id.internal", 0);
  a.pid = j->m->pid;
  a.start = jint(j, "start_timestamp", JREQ);
  a.end = jint(j, "end_timestamp", JREQ);
  a.category = kind_name(j, kind);
  a.name = nm;
  a.args = rec_args(j);
  if (!strcmp(section, "hip_api"))
    a.domain = "HIP";
  else if (!strcmp(section, "hsa_api"))
    a.domain = "HSA";
  else if (!strcmp(section, "rccl_api"))
    a.domain = "RCCL";
  else {
    int64_t mi;
    a.domain = "ROCTX";
    a.name = "UserMarker";
    if (imap_get(&j->markmsg, a.corr, &mi))
      a.args = j->markers[mi];
    else if (!*a.args)
      a.args = nm;
  }
  int rc = jrec_check(j);
  return rc ? rc : w_api(j->m, &a);
}

static int rec_meta(jstate *j)
{
  imp *m = j->m;
  m->pid = jint(j, "pid", 0);
  int64_t init = jint(j, "init_time", 0), fini = jint(j, "fini_time", 0);
  int rc = jrec_check(j);
  if (rc)
    return rc;
  w_meta_time(m, init, fini);
  jfield *cmd = jf_find(j, "command");
  if (cmd && cmd->val.s)
    for (char *p = cmd->val.s; *p; p++)
      if (*p == '\x1f')
        *p = ' ';
  rc = w_meta_int(m, "rocprofv3::pid", m->pid);
  if (!rc)
    rc = w_meta_add(m, "rocprofv3::hostname", jstr(j, "node.hostname"));
  if (!rc)
    rc = w_meta_add(m, "rocprofv3::command", cmd ? cmd->val.s : NULL);
  return rc;
}

static void rec_agent(jstate *j)
{
  int64_t h = jint(j, "id.handle", -1);
  int64_t type = jint(j, "type", 0);
  imap_put(&j->agents, h, type == 2 ? jint(j, "logical_node_type_id", 0) : -1);
}

static char *xstrdup0(const char *s)
{
  return rpd_xstrdup(s ? s : "");
}

static void rec_sym(jstate *j)
{
  if (j->nsyms == j->capsyms) {
    j->capsyms = j->capsyms ? 2 * j->capsyms : 256;
    j->syms = rpd_xrealloc(j->syms, j->capsyms * sizeof *j->syms);
  }
  ksym *k = &j->syms[j->nsyms];
  const char *tr = jstr(j, "truncated_kernel_name");
  const char *fo = jstr(j, "formatted_kernel_name");
  const char *kn = jstr(j, "kernel_name");
  k->short_name = xstrdup0(first_nonempty(tr, fo, kn));
  k->full_name = xstrdup0(first_nonempty(fo, jstr(j, "demangled_kernel_name"), kn));
  k->desc_id = k->full_id = -1;
  imap_put(&j->symidx, jint(j, "kernel_id", -1), j->nsyms++);
}

static void rec_kindnames(jstate *j)
{
  if (j->nkn == j->capkn) {
    j->capkn = j->capkn ? 2 * j->capkn : 32;
    j->kn = rpd_xrealloc(j->kn, j->capkn * sizeof *j->kn);
  }
  kindnames *k = &j->kn[j->nkn++];
  k->name = xstrdup0(jstr(j, "kind"));
  k->ops = NULL;
  k->nops = 0;
  jfield *f = jf_find(j, "operations");
  if (!f || !f->n)
    return;
  k->ops = rpd_xcalloc(f->n, sizeof *k->ops);
  char *p = f->val.s;
  for (int i = 0; i < f->n && p; i++) {
    char *e = strchr(p, '\x1f');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    k->ops[i] = rpd_xmalloc(len + 1);
    memcpy(k->ops[i], p, len);
    k->ops[i][len] = '\0';
    k->nops++;
    p = e ? e + 1 : NULL;
  }
}

static void rec_marker(jstate *j)
{
  const char *key = jstr(j, "key"), *val = jstr(j, "value");
  if (!key || !val)
    return;
  if (j->nmarkers == j->capmarkers) {
    j->capmarkers = j->capmarkers ? 2 * j->capmarkers : 64;
    j->markers = rpd_xrealloc(j->markers, j->capmarkers * sizeof *j->markers);
  }
  int64_t id = jint(j, "key", 0);
  if (j->ibad[0])
    return;             /* refused by rec_end */
  j->markers[j->nmarkers] = rpd_xstrdup(val);
  imap_put(&j->markmsg, id, j->nmarkers++);
}

/* --- how json_kinds.c reads the current record (kinds.h) */
static int jk_field(void *c, int i, const char **k, const char **v)
{
  jstate *j = c;
  if (i >= j->nf)
    return 0;
  *k = j->f[i].key;
  *v = j->f[i].val.s ? j->f[i].val.s : "";
  return 1;
}
static int64_t jk_gpu(void *c, int64_t h) { return agent_gpu(c, h); }
static const char *jk_op(void *c, int64_t k, int64_t op) { return op_name(c, k, op); }
static const char *jk_kind(void *c, int64_t k) { return kind_name(c, k); }
static int jk_sym(void *c, int64_t id, int64_t *d, int64_t *f) { return sym_ids(c, id, d, f); }
static int64_t jk_integer(void *c, const char *key, int64_t dflt)
{
  return jintn(c, key, strlen(key), dflt);
}
static const jk_access jk_acc = { jk_field, jk_gpu, jk_op, jk_kind, jk_sym, jk_integer };
/* --- end of the record-kinds block */

/* A record of json_kinds.c's (or an agent): it may use the output
 * connection directly, so the writer thread is paused around it. */
static int rec_kinds(jstate *j, int *rc)
{
  int hit, prc = pipe_pause(j->m);
  if (prc) {
    pipe_resume(j->m);
    *rc = prc;
    return 1;
  }
  if (j->rec_kind == RK_AGENT) {
    rec_agent(j);
    *rc = jk_agent(j->m, &jk_acc, j);
    hit = 1;
  } else
    hit = jk_record(j->m, j->recarr, &jk_acc, j, rc);
  pipe_resume(j->m);
  return hit;
}

/* jk_flush with the writer thread paused. */
int json_flush_paused(imp *m)
{
  int rc = pipe_pause(m);
  if (!rc)
    rc = jk_flush(m);
  pipe_resume(m);
  return rc;
}

int json_rec_end(jstate *j)
{
  const char *s = j->recarr;
  int rc;
  switch (j->rec_kind) {
  case RK_META: return rec_meta(j);
  case RK_AGENT: rec_kinds(j, &rc); return rc ? rc : jrec_check(j);
  case RK_SYM: rec_sym(j); return jrec_check(j);
  case RK_KIND: rec_kindnames(j); return RPD_OK;
  case RK_MARKER: rec_marker(j); return jrec_check(j);
  default: break;
  }
  if (!strcmp(s, "kernel_dispatch")) {
    count_read(j->m, s, 1);
    return rec_kernel(j);
  }
  if (!strcmp(s, "memory_copy")) {
    count_read(j->m, s, 1);
    return rec_copy(j);
  }
  if (!strcmp(s, "hip_api") || !strcmp(s, "hsa_api") || !strcmp(s, "marker_api") ||
      !strcmp(s, "rccl_api")) {
    count_read(j->m, s, 1);
    return rec_api(j, s);
  }
  /* counters, allocations, scratch, rocdecode, rocjpeg */
  if (rec_kinds(j, &rc))
    return rc ? rc : jrec_check(j);
  count_read(j->m, s, 0);
  return RPD_OK;
}
