/* write.c - rpd-synth's rows: a built step into rocpd_api, rocpd_op,
 * rocpd_api_ops, kernel and copy details and stack frames; --order end's
 * queue by end time; sclk samples; the whole run over every thread. */
#include "synth.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ writing */

static int write_op(synth *s, const op_row *o, int64_t api_id)
{
  int64_t desc, type, id = ++s->n_op;
  int rc = synth_string_id(s, o->desc, &desc);
  if (rc == SQLITE_OK)
    rc = synth_string_id(s, o->type, &type);
  if (rc)
    return rc;
  sqlite3_bind_int64(s->ins_op, 1, id);
  sqlite3_bind_int64(s->ins_op, 2, o->gpu);
  sqlite3_bind_int64(s->ins_op, 3, o->queue);
  sqlite3_bind_int64(s->ins_op, 4, 0);
  sqlite3_bind_int64(s->ins_op, 5, o->start);
  sqlite3_bind_int64(s->ins_op, 6, o->end);
  sqlite3_bind_int64(s->ins_op, 7, desc);
  sqlite3_bind_int64(s->ins_op, 8, type);
  rc = synth_put(s->ins_op);
  if (rc)
    return rc;
  if (o->end > s->t_end)
    s->t_end = o->end;
  sqlite3_bind_int64(s->ins_link, 1, ++s->n_link);
  sqlite3_bind_int64(s->ins_link, 2, api_id);
  sqlite3_bind_int64(s->ins_link, 3, id);
  return synth_put(s->ins_link);
}

static int write_kernelapi(synth *s, const api_row *a, int64_t api_id)
{
  int64_t kname;
  int rc = synth_string_id(s, a->k->name, &kname);
  if (rc)
    return rc;
  sqlite3_bind_int64(s->ins_kernel, 1, api_id);
  sqlite3_bind_text(s->ins_kernel, 2, a->stream, -1, SQLITE_STATIC);
  sqlite3_bind_int64(s->ins_kernel, 3, a->grid);
  sqlite3_bind_int64(s->ins_kernel, 4, 1);
  sqlite3_bind_int64(s->ins_kernel, 5, 1);
  sqlite3_bind_int64(s->ins_kernel, 6, a->wg);
  sqlite3_bind_int64(s->ins_kernel, 7, 1);
  sqlite3_bind_int64(s->ins_kernel, 8, 1);
  sqlite3_bind_int64(s->ins_kernel, 9, a->k->cls == K_GEMM ? 65536 : 0);
  sqlite3_bind_int64(s->ins_kernel, 10, 0);
  sqlite3_bind_int64(s->ins_kernel, 11, kname);
  s->n_kernel++;
  return synth_put(s->ins_kernel);
}

static int write_copyapi(synth *s, const api_row *a, int64_t api_id, int gpu)
{
  char dst[24], src[24];
  synth_gaddr(dst, a->dst);
  synth_gaddr(src, a->src);
  sqlite3_bind_int64(s->ins_copy, 1, api_id);
  sqlite3_bind_text(s->ins_copy, 2, a->stream, -1, SQLITE_STATIC);
  sqlite3_bind_int64(s->ins_copy, 3, a->size);
  sqlite3_bind_int64(s->ins_copy, 4, 0);
  sqlite3_bind_int64(s->ins_copy, 5, 0);
  sqlite3_bind_int64(s->ins_copy, 6, a->ckind);
  sqlite3_bind_text(s->ins_copy, 7, dst, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s->ins_copy, 8, src, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s->ins_copy, 9, gpu);
  sqlite3_bind_int64(s->ins_copy, 10, gpu);
  sqlite3_bind_int64(s->ins_copy, 11, 0);
  sqlite3_bind_int64(s->ins_copy, 12, a->pinned);
  s->n_copy++;
  return synth_put(s->ins_copy);
}

/* --------------------------------------------------------- stackframes */

/* The host stack of one api call (--stackframes): deterministic in the
 * call's name and thread, so the same call site always has the same stack
 * and the other tables are the same with or without the option.  Depth 0
 * is the innermost frame (the caller of the api), as rpd_tracer writes;
 * 4 to 6 frames. */
static int write_stackframes(synth *s, const api_row *a, int64_t api_id)
{
  static const char *const outer[] = {
    "_start", "__libc_start_main", "main", "PyEval_EvalFrameDefault"
  };
  static const char *const mid[] = {
    "train_step (train.py:88)", "forward (model.py:41)", "backward (autograd.py:200)",
    "optimizer_step (optim.py:12)", "decode_step (serve.py:57)"
  };
  uint64_t h = synth_hash_str(a->name) ^ ((uint64_t)a->tid * 0x9e3779b97f4a7c15ULL);
  int nouter = 2 + (int)(h % 3);            /* 2..4 outer frames: 4..6 in all */
  char leaf[160];
  snprintf(leaf, sizeof leaf, "at::hip::call_%s (libtorch_hip.so)", a->name);
  const char *frames[6];
  int n = 0;
  frames[n++] = leaf;                                   /* depth 0 */
  frames[n++] = mid[(h >> 8) % (sizeof mid / sizeof mid[0])];
  for (int i = nouter - 1; i >= 0; i--)
    frames[n++] = outer[4 - nouter + i];
  int rc = SQLITE_OK;
  for (int d = 0; d < n && rc == SQLITE_OK; d++) {
    int64_t name;
    rc = synth_string_id(s, frames[d], &name);
    if (rc)
      break;
    sqlite3_bind_int64(s->ins_frame, 1, api_id);
    sqlite3_bind_int64(s->ins_frame, 2, d);
    sqlite3_bind_int64(s->ins_frame, 3, name);
    rc = synth_put(s->ins_frame);
    s->n_frame++;
  }
  return rc;
}

/* One api row with its stack frames, kernelapi/copyapi row and ops (its
 * ops are ops[a->op_first ...]). */
static int write_api(synth *s, const api_row *a, const op_row *ops, int gpu)
{
  int64_t name, args, domain = 0, id = ++s->n_api;
  int rc = synth_string_id(s, a->name, &name);
  if (rc == SQLITE_OK && s->schema == 3)
    rc = synth_string_id(s, a->domain, &domain);
  if (rc == SQLITE_OK)
    rc = synth_args_id(s, a->args, &args);
  if (rc)
    return rc;
  sqlite3_bind_int64(s->ins_api, 1, id);
  sqlite3_bind_int64(s->ins_api, 2, s->pid);
  sqlite3_bind_int64(s->ins_api, 3, a->tid);
  sqlite3_bind_int64(s->ins_api, 4, a->start);
  sqlite3_bind_int64(s->ins_api, 5, a->end);
  sqlite3_bind_int64(s->ins_api, 6, name);
  sqlite3_bind_int64(s->ins_api, 7, args);
  if (s->schema == 3) {
    sqlite3_bind_int64(s->ins_api, 8, domain);
    sqlite3_bind_int64(s->ins_api, 9, 1);   /* category: "" */
  }
  rc = synth_put(s->ins_api);
  if (rc == SQLITE_OK && s->stackframes)
    rc = write_stackframes(s, a, id);
  if (a->end > s->t_end)
    s->t_end = a->end;
  if (rc == SQLITE_OK && a->kind == R_KERNEL)
    rc = write_kernelapi(s, a, id);
  if (rc == SQLITE_OK && a->kind == R_COPY)
    rc = write_copyapi(s, a, id, gpu);
  for (int i = 0; rc == SQLITE_OK && i < a->op_n; i++)
    rc = write_op(s, &ops[a->op_first + i], id);
  return rc;
}

static int write_step(synth *s, int gpu)
{
  int rc = SQLITE_OK;
  for (int i = 0; rc == SQLITE_OK && i < s->st.nrows; i++)
    rc = write_api(s, &s->st.rows[i], s->st.ops, gpu);
  return rc;
}

/* --order end: heap order, by end time and then build order. */
static int pend_less(const pending *x, const pending *y)
{
  return x->a.end != y->a.end ? x->a.end < y->a.end : x->seq < y->seq;
}

/* --order end: queue the step's rows (each with a copy of its ops). */
static void queue_step(synth *s, int gpu)
{
  for (int i = 0; i < s->st.nrows; i++) {
    pending *p = rpd_xcalloc(1, sizeof *p);
    size_t k;
    p->a = s->st.rows[i];
    p->gpu = gpu;
    p->seq = s->pend_seq++;
    if (p->a.op_n) {
      p->ops = rpd_xcalloc((size_t)p->a.op_n, sizeof *p->ops);
      memcpy(p->ops, &s->st.ops[p->a.op_first], (size_t)p->a.op_n * sizeof *p->ops);
    }
    p->a.op_first = 0;
    if (s->npend == s->cappend) {
      s->cappend = s->cappend ? 2 * s->cappend : 1024;
      s->pend = rpd_xrealloc(s->pend, s->cappend * sizeof *s->pend);
    }
    for (k = s->npend++; k > 0 && pend_less(p, s->pend[(k - 1) / 2]); k = (k - 1) / 2)
      s->pend[k] = s->pend[(k - 1) / 2];
    s->pend[k] = p;
  }
}

/* --order end: write (and free) the queued rows that end before `before`
 * (no row built later can end before it), in order. */
static int flush_pending(synth *s, int64_t before)
{
  int rc = SQLITE_OK;
  while (rc == SQLITE_OK && s->npend && s->pend[0]->a.end < before) {
    pending *top = s->pend[0], *last = s->pend[--s->npend];
    size_t k = 0;
    for (;;) {
      size_t c = 2 * k + 1;
      if (c >= s->npend)
        break;
      if (c + 1 < s->npend && pend_less(s->pend[c + 1], s->pend[c]))
        c++;
      if (!pend_less(s->pend[c], last))
        break;
      s->pend[k] = s->pend[c];
      k = c;
    }
    if (s->npend)
      s->pend[k] = last;
    rc = write_api(s, &top->a, top->ops, top->gpu);
    free(top->ops);
    free(top);
  }
  return rc;
}

/* sclk samples: per GPU, contiguous 1 ms intervals (longer for long traces,
 * at most ~2000 per GPU) over the whole trace; values 800..2100 MHz in steps
 * of 100 from their own rng (idle periods are not modelled). */
static int write_monitor(synth *s)
{
  int64_t span = s->t_end - s->t0, step_ns = 1000000, n;
  int rc = SQLITE_OK;
  rng r = {(uint64_t)s->seed * 7919 + 17};
  char val[16];

  while (span / step_ns > 2000)
    step_ns *= 10;
  n = span / step_ns + 1;
  for (int g = 0; g < s->gpus && rc == SQLITE_OK; g++)
    for (int64_t i = 0; i < n && rc == SQLITE_OK; i++) {
      snprintf(val, sizeof val, "%d", (int)rng_range(&r, 8, 21) * 100);
      sqlite3_bind_text(s->ins_mon, 1, "gpu", -1, SQLITE_STATIC);
      sqlite3_bind_int64(s->ins_mon, 2, g);
      sqlite3_bind_text(s->ins_mon, 3, "sclk", -1, SQLITE_STATIC);
      sqlite3_bind_int64(s->ins_mon, 4, s->t0 + i * step_ns);
      sqlite3_bind_int64(s->ins_mon, 5, s->t0 + (i + 1) * step_ns);
      sqlite3_bind_text(s->ins_mon, 6, val, -1, SQLITE_TRANSIENT);
      rc = synth_put(s->ins_mon);
      s->n_mon++;
    }
  return rc;
}

/* Prepare every insert statement of the run; SQLite status. */
int synth_prepare_all(synth *s)
{
  const char *api = s->schema == 3
      ? "INSERT INTO rocpd_api(id, pid, tid, start, \"end\", apiName_id, "
        "args_id, domain_id, category_id) VALUES (?,?,?,?,?,?,?,?,?)"
      : "INSERT INTO rocpd_api(id, pid, tid, start, \"end\", apiName_id, "
        "args_id) VALUES (?,?,?,?,?,?,?)";
  const char *op = s->schema == 3
      ? "INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, \"end\", "
        "description_id, opType_id) VALUES (?,?,?,?,?,?,?,?)"
      : "INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, \"end\", "
        "description_id, opType_id, completionSignal) VALUES (?,?,?,?,?,?,?,?,'')";
  struct { sqlite3_stmt **st; const char *sql; } p[] = {
    {&s->ins_api, api},
    {&s->ins_op, op},
    {&s->ins_link, "INSERT INTO rocpd_api_ops(id, api_id, op_id) VALUES (?,?,?)"},
    {&s->ins_kernel, "INSERT INTO rocpd_kernelapi(api_ptr_id, stream, gridX, "
     "gridY, gridZ, workgroupX, workgroupY, workgroupZ, groupSegmentSize, "
     "privateSegmentSize, kernelName_id) VALUES (?,?,?,?,?,?,?,?,?,?,?)"},
    {&s->ins_copy, "INSERT INTO rocpd_copyapi(api_ptr_id, stream, size, width, "
     "height, kind, dst, src, dstDevice, srcDevice, sync, pinned) VALUES "
     "(?,?,?,?,?,?,?,?,?,?,?,?)"},
    {&s->ins_str, "INSERT INTO rocpd_string(id, string) VALUES (?,?)"},
    {&s->ins_ustr, s->schema == 3
     ? "INSERT INTO rocpd_ustring(id, string) VALUES (?,?)" : "SELECT ?, ?"},
    {&s->ins_mon, "INSERT INTO rocpd_monitor(deviceType, deviceId, monitorType, "
     "start, \"end\", value) VALUES (?,?,?,?,?,?)"},
  };
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
    if (sqlite3_prepare_v2(s->db, p[i].sql, -1, p[i].st, NULL) != SQLITE_OK)
      return SQLITE_ERROR;
  if (s->stackframes &&
      sqlite3_prepare_v2(s->db, "INSERT INTO rocpd_stackframe(api_ptr_id, depth, "
                         "name_id) VALUES (?,?,?)", -1, &s->ins_frame, NULL) != SQLITE_OK)
    return SQLITE_ERROR;
  return SQLITE_OK;
}

/* Finalize the statements of synth_prepare_all. */
void synth_finalize_all(synth *s)
{
  sqlite3_finalize(s->ins_api);
  sqlite3_finalize(s->ins_op);
  sqlite3_finalize(s->ins_link);
  sqlite3_finalize(s->ins_kernel);
  sqlite3_finalize(s->ins_copy);
  sqlite3_finalize(s->ins_str);
  sqlite3_finalize(s->ins_ustr);
  sqlite3_finalize(s->ins_mon);
  sqlite3_finalize(s->ins_frame);
}

static void init_threads(synth *s)
{
  s->thr = rpd_xcalloc((size_t)s->threads, sizeof *s->thr);
  for (int k = 0; k < s->threads; k++) {
    thr *t = &s->thr[k];
    t->idx = k;
    t->tid = (int)s->pid + k;
    t->gpu = k % s->gpus;
    t->kq = 2 * (k / s->gpus);
    t->cq = t->kq + 1;
    snprintf(t->kstream, sizeof t->kstream, "0x%x", 0x66bb0000 + 0x10 * k);
    snprintf(t->cstream, sizeof t->cstream, "0x%x", 0x55aa0000 + 0x10 * k);
    t->now = s->t0 + 10000 + 1237 * k;
    if (s->ranks > 1 && s->rank == s->ranks - 1)
      t->straggle_ns = STRAGGLE_NS;
    t->slow_attn = s->ranks > 1 && s->rank == s->ranks / 2;
    t->r.s = (uint64_t)s->seed * 1000003ULL + (uint64_t)k * 7777777ULL + 1;
    t->ngraph_want = s->graphs / s->threads + (k < s->graphs % s->threads);
    if (t->ngraph_want > 8)
      t->ngraph_want = 8;
  }
}

/* Generate everything inside the open transaction. */
int synth_generate(synth *s)
{
  int rc = SQLITE_OK;
  int64_t empty, built = 0;
  s->next_str = 1;
  s->next_ustr = 2;
  if (s->schema == 3) {          /* rocpd_ustring id 1 is "" */
    sqlite3_bind_int64(s->ins_ustr, 1, 1);
    sqlite3_bind_text(s->ins_ustr, 2, "", -1, SQLITE_STATIC);
    rc = synth_put(s->ins_ustr);
  }
  if (rc == SQLITE_OK)
    rc = synth_string_id(s, "", &empty);     /* rocpd_string id 1 is "" */
  init_threads(s);
  while (rc == SQLITE_OK && built < s->api_want) {
    thr *t = &s->thr[0], saved;
    for (int k = 1; k < s->threads; k++)
      if (s->thr[k].now < t->now)
        t = &s->thr[k];
    saved = *t;
    synth_build_step(s, &s->st, t);
    if (s->st.overflow || s->st.nrows > s->api_want - built) {
      *t = saved;                /* does not fit: a one-row filler */
      t->r.s ^= 0x5555;
      if (t->ngraph < t->ngraph_want)
        t->ngraph_want = t->ngraph;    /* no room left for captures */
      if (t->idx == 0)
        t->hostile_done = 1;
      synth_filler(&s->st, t);
    }
    built += s->st.nrows;
    if (!s->order_end) {
      rc = write_step(s, t->gpu);
      continue;
    }
    queue_step(s, t->gpu);
    int64_t low = s->thr[0].now;   /* no later row ends before this */
    for (int k = 1; k < s->threads; k++)
      if (s->thr[k].now < low)
        low = s->thr[k].now;
    rc = flush_pending(s, low);
  }
  if (rc == SQLITE_OK)
    rc = flush_pending(s, INT64_MAX);
  if (rc == SQLITE_OK)
    rc = write_monitor(s);
  return rc;
}
