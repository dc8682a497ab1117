/* rpd-perfmodel - FLOPs, bytes and roofline of every PyTorch op with shapes. */
#include "opt.h"

static const rpd_help help = {
  .usage = "usage: rpd-perfmodel FILE [--arch NAME | --arch-file F] [--dtype T] [-o OUT]\n"
           "                     [--force]",
  .about =
    "Model every PyTorch op of a Kineto import (rpd-import of a PyTorch profiler\n"
    "trace recorded with record_shapes) from its shapes and dtypes; or, in an\n"
    "RPD trace with PyTorch autograd markers, of every marker with sizes\n"
    "(after rpd-autograd: ext_autogradapi; the sizes carry no dtypes, see\n"
    "--dtype):\n"
    "  ext_perf_op        one row per op instance: category (GEMM, SDPA_fwd,\n"
    "                     SDPA_bwd, CONV_fwd, CONV_bwd, Normalization,\n"
    "                     Reduce_fwd, BinaryElementwise, UnaryElementwise, or\n"
    "                     'none'),\n"
    "                     params (JSON), flops, bytes, kernel_ns (kernels of the\n"
    "                     op and the ops it calls), tflops_s, tb_s,\n"
    "                     flops_per_byte, pct_peak_compute, pct_peak_bw, bound,\n"
    "                     roofline_ns (time at the roofline), lost_ns\n"
    "  view perf_op_summary  grouped by op name and parameters, with\n"
    "                     TraceLens's column names (GFLOPS_first, name_count, ...)\n"
    "  metadata PerfModel::arch, PerfModel::link_gbs  the arch and its link peak\n"
    "                     (raptor --report's coll_analysis compares bus bw to it)",
  .notes = "See docs/rpd-perfmodel.md.\n",
};

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callstack.h"
#include "check.h"
#include "perfmodel.h"
#include "rpd.h"

#define DONE_TAG "PerfModel::Generated"
#define ARCH_TAG "PerfModel::arch"
#define LINK_TAG "PerfModel::link_gbs"   /* the arch's link peak, for coll_analysis */

typedef struct ctx {
  const char *arch_name, *arch_file;
  const char *dtype;        /* --dtype as a profiler type name, or NULL */
  int autograd;             /* the ops are ext_autogradapi's markers */
  rpd_perf_arch file_arch;
  const rpd_perf_arch *arch;
  int built;
  int64_t ops, modelled;
  struct op_sum *sums;      /* one per op, ascending api_id */
  size_t nsums;
  struct model_memo *memo;  /* MEMO_SLOTS, or NULL before the first op */
  rpd_buf key;              /* the key of the op being modelled */
} ctx;

/* --arch NAME and --arch-file F: one of them, once. */
static int set_arch(ctx *c, const char **slot, const char *val, char *msg, size_t msgsz)
{
  if (c->arch_name || c->arch_file) {
    snprintf(msg, msgsz, "give one --arch or --arch-file");
    return 2;
  }
  *slot = val;
  return 0;
}

static int on_arch(void *vc, const char *name, const char *val, char *msg, size_t msgsz)
{
  ctx *c = vc;
  (void)name;
  return set_arch(c, &c->arch_name, val, msg, msgsz);
}

static int on_arch_file(void *vc, const char *name, const char *val, char *msg,
                        size_t msgsz)
{
  ctx *c = vc;
  (void)name;
  return set_arch(c, &c->arch_file, val, msg, msgsz);
}

/* --dtype T: the profiler's name of the type T. */
static int on_dtype(void *vc, const char *name, const char *val, char *msg, size_t msgsz)
{
  static const char *const names[][2] = {
    {"bf16", "c10::BFloat16"}, {"fp16", "c10::Half"}, {"fp32", "float"},
    {"fp64", "double"}, {"fp8", "c10::Float8_e4m3fn"},
  };
  ctx *c = vc;
  (void)name;
  for (size_t k = 0; k < sizeof names / sizeof *names; k++)
    if (strcmp(val, names[k][0]) == 0) {
      c->dtype = names[k][1];
      return 0;
    }
  snprintf(msg, msgsz, "bad --dtype '%s': use bf16, fp16, fp32, fp64 or fp8", val);
  return 2;
}

static const char table_sql[] =
  "CREATE TABLE ext_perf_op (api_id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
  " category TEXT NOT NULL, spec TEXT, params TEXT, flops REAL, bytes REAL,"
  " kernel_ns INTEGER NOT NULL, direct_kernel_ns INTEGER NOT NULL,"
  " kernels INTEGER NOT NULL, tflops_s REAL, tb_s REAL, flops_per_byte REAL,"
  " pct_peak_compute REAL, pct_peak_bw REAL, bound TEXT, roofline_ns REAL,"
  " lost_ns REAL, outer INTEGER NOT NULL DEFAULT 0)";

/* Grouped like TraceLens's perf report: the innermost modelled ops that ran
 * kernels, by name and parameters. */
static const char view_sql[] =
  "CREATE VIEW perf_op_summary AS SELECT name, category, params,"
  " spec AS \"Compute Spec\","
  " min(flops) / 1e9 AS \"GFLOPS_first\","
  " min(bytes) / 1048576.0 AS \"Data Moved (MB)_first\","
  " min(flops_per_byte) AS \"FLOPS/Byte_first\","
  " avg(tflops_s) AS \"TFLOPS/s_mean\", avg(tb_s) AS \"TB/s_mean\","
  " avg(kernel_ns) / 1e3 AS \"Kernel Time (µs)_mean\","
  " sum(kernel_ns) / 1e3 AS \"Kernel Time (µs)_sum\","
  " count(*) AS name_count, min(api_id) AS \"UID_first\","
  " avg(pct_peak_compute) AS pct_peak_compute_mean,"
  " avg(pct_peak_bw) AS pct_peak_bw_mean, min(bound) AS bound,"
  " sum(roofline_ns) / 1e3 AS roofline_us_sum, sum(lost_ns) / 1e3 AS lost_us_sum"
  " FROM ext_perf_op WHERE category != 'none' AND outer = 0 AND kernels > 0"
  " GROUP BY name, category, params";

static const char *const table_cols[] = {
  "api_id", "name", "category", "spec", "params", "flops", "bytes", "kernel_ns",
  "direct_kernel_ns", "kernels", "tflops_s", "tb_s", "flops_per_byte",
  "pct_peak_compute", "pct_peak_bw", "bound", "roofline_ns", "lost_ns", "outer",
  NULL,
};

static int drop(rpd *r, void *vc)
{
  int rc = rpd_check_owned(r, "ext_perf_op", table_cols);
  (void)vc;
  if (rc == RPD_OK)
    rc = rpd_exec(r, "DROP VIEW IF EXISTS perf_op_summary;"
                     "DROP TABLE IF EXISTS ext_perf_op;");
  if (rc == RPD_OK) rc = rpd_meta_clear(r, ARCH_TAG);
  if (rc == RPD_OK) rc = rpd_meta_clear(r, LINK_TAG);
  return rc;
}

/* The peaks: --arch-file, --arch, else the trace's device name. */
static int pick_arch(rpd *r, ctx *c)
{
  char *dev = NULL;
  if (c->arch_file) {
    int rc = rpd_perf_arch_load(c->arch_file, &c->file_arch);
    c->arch = &c->file_arch;
    return rc;
  }
  if (c->arch_name) {
    c->arch = rpd_perf_arch_find(c->arch_name);
    return c->arch ? RPD_OK
                   : rpd_seterr(RPD_ENOTFOUND, "unknown arch '%s' (see --help)",
                                c->arch_name);
  }
  if (rpd_meta_get(r, "kineto::gpu.0.name", &dev) == RPD_OK) {
    c->arch = rpd_perf_arch_find(dev);
    free(dev);
  }
  return RPD_OK;
}

/* Ops repeat with the same args (one layer's ops in every layer, every
 * step): the models of the last distinct ones are kept, keyed by the op's
 * name and its args' texts, in a direct-mapped table, so memory stays
 * bounded whatever the trace. */
#define MEMO_SLOTS 4096
typedef struct model_memo {
  char *key;                /* NULL: empty slot */
  size_t klen;
  rpd_perf_op op;           /* its own params */
  uint32_t gen;             /* bumped each time the slot takes a new key */
} model_memo;

/* What the call stack gives one op: the gpu time of the calls under it
 * (kernel_ns), of those one level under it (direct_kernel_ns), how many of
 * them ran gpu work (kernels), and whether a modelled op is under it. */
typedef struct op_sum {
  int64_t api_id, k, d, n;
  int modelled, inner;
  int64_t event;            /* its ext_kineto_event id (a Kineto import) */
  uint32_t slot, gen;       /* its model: memo slot `slot` while its gen is `gen` */
} op_sum;

/* The ops and their args, in table order (an ORDER BY would sort every
 * row's args: the per-op sums are found by binary search instead).  The
 * args' members are found by rpd_perf_arg: json_extract would parse and
 * re-render each. */
static const char select_sql[] =
  "SELECT E.api_id, E.name, E.args, E.id"
  " FROM ext_kineto_event E WHERE E.cat = 'cpu_op' AND E.api_id IS NOT NULL";

/* The second pass over a Kineto import's ops: an op whose model is still in
 * the memo needs no args; the others are read again by event id. */
static const char fill_sql[] =
  "SELECT E.api_id, E.name, E.id"
  " FROM ext_kineto_event E WHERE E.cat = 'cpu_op' AND E.api_id IS NOT NULL";
static const char event_sql[] =
  "SELECT E.api_id, E.name, E.args FROM ext_kineto_event E WHERE E.id = ?1";

/* The autograd markers: their sizes are the Input Dims. */
static const char select_autograd_sql[] =
  "SELECT A.api_ptr_id, S.string, nullif(A.sizes, '')"
  " FROM ext_autogradapi A JOIN rocpd_string S ON S.id = A.autogradName_id";

static const char insert_sql[] =
  "INSERT INTO ext_perf_op(api_id, name, category, spec, params, flops, bytes,"
  " kernel_ns, direct_kernel_ns, kernels, tflops_s, tb_s, flops_per_byte,"
  " pct_peak_compute, pct_peak_bw, bound, roofline_ns, lost_ns, outer)"
  " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";

/* A model figure, NULL when unknown (< 0). */
static void bind_pos(sqlite3_stmt *s, int i, double v)
{
  if (v < 0)
    sqlite3_bind_null(s, i);
  else
    sqlite3_bind_double(s, i, v);
}

/* The "Input type" of --dtype for sizes DIMS: the type for each tensor,
 * "Scalar" for each [] (into b; NULL without --dtype or sizes). */
static const char *assumed_types(const ctx *c, const char *dims, rpd_buf *b)
{
  int depth = 0, n = 0;
  if (!c->dtype || !dims) return NULL;
  b->len = 0;
  rpd_buf_puts(b, "[");
  for (const char *p = dims; *p; p++) {
    if (*p == '[' && ++depth == 2) {
      const char *q = p + 1;
      while (*q == ' ') q++;
      rpd_buf_printf(b, "%s\"%s\"", n++ ? "," : "", *q == ']' ? "Scalar" : c->dtype);
    } else if (*p == ']') {
      depth--;
    }
  }
  rpd_buf_puts(b, "]");
  return b->s;
}

/* Append a text to the memo key, its length first (NULL: "-"). */
static void key_add(rpd_buf *k, const char *s, size_t n)
{
  char len[24];
  int i = (int)sizeof len;
  size_t m = n;
  if (!s) {
    rpd_buf_puts(k, "-");
    return;
  }
  len[--i] = ':';   /* "N:" without printf, which cost more than the rest */
  do len[--i] = (char)('0' + m % 10); while ((m /= 10) > 0);
  rpd_buf_add(k, len + i, sizeof len - (size_t)i);
  rpd_buf_add(k, s, n);
}

/* The memo slot of key k (FNV-1a). */
static model_memo *memo_slot(ctx *c, const rpd_buf *k)
{
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < k->len; i++) h = (h ^ (unsigned char)k->s[i]) * 1099511628211ULL;
  if (!c->memo) c->memo = rpd_xcalloc(MEMO_SLOTS, sizeof *c->memo);
  return &c->memo[h & (MEMO_SLOTS - 1)];
}

static void memo_free(ctx *c)
{
  for (size_t i = 0; c->memo && i < MEMO_SLOTS; i++) {
    free(c->memo[i].key);
    rpd_perf_op_free(&c->memo[i].op);
  }
  free(c->memo);
  c->memo = NULL;
  rpd_buf_free(&c->key);
}

/* Model the op of the current row of sel (a select_sql, event_sql or
 * select_autograd_sql row) into *op (its own params): from the memo when
 * the same op with the same args was modelled last in its slot.  *slot:
 * the memo slot that now holds its model. */
static void model_row(ctx *c, sqlite3_stmt *sel, rpd_buf *types, rpd_perf_op *op,
                      uint32_t *slot)
{
  const char *name = (const char *)sqlite3_column_text(sel, 1),
             *col = (const char *)sqlite3_column_text(sel, 2), *a[4] = {NULL};
  rpd_buf *k = &c->key;
  model_memo *m;
  int rc;
  k->len = 0;
  key_add(k, name, name ? strlen(name) : 0);
  if (c->autograd) {
    key_add(k, col, col ? strlen(col) : 0);
  } else {
    static const char *const keys[4] = {"Input Dims", "Input type", "Input Strides",
                                        "Concrete Inputs"};
    size_t len[4];
    rpd_perf_args(col, keys, 4, a, len);
    for (int i = 0; i < 4; i++)
      key_add(k, a[i], len[i]);
  }
  m = memo_slot(c, k);
  *slot = (uint32_t)(m - c->memo);
  if (m->key && m->klen == k->len && memcmp(m->key, k->s, k->len) == 0) {
    *op = m->op;
    op->params = m->op.params ? rpd_xstrdup(m->op.params) : NULL;
    return;
  }
  if (c->autograd)
    rc = rpd_perf_model(name, col, assumed_types(c, col, types), NULL, NULL, op);
  else
    rc = rpd_perf_model(name, a[0], a[1], a[2], a[3], op);
  if (rc != RPD_OK)
    rpd_perf_op_free(op);   /* dims that are not an array: no model */
  free(m->key);
  rpd_perf_op_free(&m->op);
  m->key = rpd_xmalloc(k->len ? k->len : 1);
  memcpy(m->key, k->s, k->len);
  m->klen = k->len;
  m->gen++;
  m->op = *op;
  m->op.params = op->params ? rpd_xstrdup(op->params) : NULL;
}

/* The index in c->sums of the op of api call `id`, -1 if none. */
static int64_t sum_index(const ctx *c, int64_t id)
{
  size_t lo = 0, hi = c->nsums;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->sums[mid].api_id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < c->nsums && c->sums[lo].api_id == id ? (int64_t)lo : -1;
}

static int cmp_sum(const void *a, const void *b)
{
  int64_t x = ((const op_sum *)a)->api_id, y = ((const op_sum *)b)->api_id;
  return (x > y) - (x < y);
}

/* First pass over the ops: which are modelled (an op with a modelled op
 * under it is "outer"), into c->sums sorted by api_id. */
static int collect(rpd *r, ctx *c)
{
  sqlite3_stmt *sel = NULL;
  rpd_buf types = {0};
  size_t cap = 0;
  int sorted = 1, s = SQLITE_DONE,
      rc = rpd_prepare(r, c->autograd ? select_autograd_sql : select_sql, &sel);
  while (rc == RPD_OK && (s = rpd_step(r, sel)) == SQLITE_ROW) {
    rpd_perf_op op;
    uint32_t slot;
    model_row(c, sel, &types, &op, &slot);
    if (c->nsums == cap) {
      cap = cap ? 2 * cap : 1024;
      c->sums = rpd_xrealloc(c->sums, cap * sizeof *c->sums);
    }
    c->sums[c->nsums] = (op_sum){.api_id = sqlite3_column_int64(sel, 0),
                                 .modelled = strcmp(op.category, "none") != 0,
                                 .event = c->autograd ? -1 : sqlite3_column_int64(sel, 3),
                                 .slot = slot, .gen = c->memo[slot].gen};
    if (c->nsums && c->sums[c->nsums].api_id < c->sums[c->nsums - 1].api_id)
      sorted = 0;
    c->nsums++;
    rpd_perf_op_free(&op);
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  sqlite3_finalize(sel);
  rpd_buf_free(&types);
  if (!sorted) qsort(c->sums, c->nsums, sizeof *c->sums, cmp_sum);
  return rc;
}

/* The call stack visitor: each call's tag is its op's index in c->sums. */
static int64_t visit_tag(void *vc, int64_t id)
{
  return sum_index(vc, id);
}

static void add_sat(int64_t *to, int64_t v)
{
  if (!rpd_ns_add(*to, v, to)) *to = INT64_MAX;
}

/* A call ends: its gpu time counts for every op below it (as the rows of
 * ext_callstack of depth > 0 would), and a modelled op makes them outer. */
static int visit_close(void *vc, const int64_t *tags, int depth, int64_t gpu)
{
  ctx *c = vc;
  int inner = tags[depth] >= 0 && c->sums[tags[depth]].modelled;
  if (gpu == 0 && !inner) return RPD_OK;
  for (int j = 0; j < depth; j++) {
    if (tags[j] < 0) continue;
    op_sum *o = &c->sums[tags[j]];
    add_sat(&o->k, gpu);
    if (j == depth - 1) add_sat(&o->d, gpu);
    if (gpu > 0) o->n++;
    if (inner) o->inner = 1;
  }
  return RPD_OK;
}

static void visit_reset(void *vc)
{
  ctx *c = vc;
  for (size_t i = 0; i < c->nsums; i++) {
    c->sums[i].k = c->sums[i].d = c->sums[i].n = 0;
    c->sums[i].inner = 0;
  }
}

/* Second pass over the ops: model each again and write its row with the
 * sums of the walk. */
static int fill(rpd *r, ctx *c)
{
  sqlite3_stmt *sel = NULL, *ins = NULL, *ev = NULL;
  rpd_buf types = {0};
  int rc = rpd_prepare(r, c->autograd ? select_autograd_sql : fill_sql, &sel),
      s = SQLITE_DONE;
  if (rc == RPD_OK) rc = rpd_prepare(r, insert_sql, &ins);
  if (rc == RPD_OK && !c->autograd) rc = rpd_prepare(r, event_sql, &ev);
  while (rc == RPD_OK && (s = rpd_step(r, sel)) == SQLITE_ROW) {
    rpd_perf_op op;
    rpd_perf_roof roof;
    const char *name = (const char *)sqlite3_column_text(sel, 1);
    int64_t id = sqlite3_column_int64(sel, 0), i = sum_index(c, id);
    op_sum none = {.event = -1}, *sum = i >= 0 ? &c->sums[i] : &none;
    int64_t kns = sum->k;
    uint32_t slot;
    if (c->autograd) {
      model_row(c, sel, &types, &op, &slot);
    } else if (sum->event == sqlite3_column_int64(sel, 2) &&
               c->memo[sum->slot].gen == sum->gen) {
      op = c->memo[sum->slot].op;   /* modelled in the first pass, still kept */
      op.params = op.params ? rpd_xstrdup(op.params) : NULL;
    } else {
      sqlite3_bind_int64(ev, 1, sqlite3_column_int64(sel, 2));
      if ((s = rpd_step(r, ev)) != SQLITE_ROW) {
        rc = s < 0 ? -s : rpd_seterr(RPD_ENOTRPD, "ext_kineto_event changed while read");
        break;
      }
      model_row(c, ev, &types, &op, &slot);
      sqlite3_reset(ev);
    }
    rpd_perf_roofline(c->arch, op.spec, op.flops, op.bytes, (double)kns, &roof);
    c->ops++;
    if (strcmp(op.category, "none") != 0) c->modelled++;
    sqlite3_bind_int64(ins, 1, id);
    sqlite3_bind_text(ins, 2, name ? name : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 3, op.category, -1, SQLITE_STATIC);
    if (op.spec[0])
      sqlite3_bind_text(ins, 4, op.spec, -1, SQLITE_TRANSIENT);
    else
      sqlite3_bind_null(ins, 4);
    if (op.params)
      sqlite3_bind_text(ins, 5, op.params, -1, SQLITE_TRANSIENT);
    else
      sqlite3_bind_null(ins, 5);
    bind_pos(ins, 6, op.flops);
    bind_pos(ins, 7, op.bytes);
    sqlite3_bind_int64(ins, 8, kns);
    sqlite3_bind_int64(ins, 9, sum->d);
    sqlite3_bind_int64(ins, 10, sum->n);
    bind_pos(ins, 11, roof.tflops_s);
    bind_pos(ins, 12, roof.tb_s);
    bind_pos(ins, 13, roof.flops_per_byte);
    bind_pos(ins, 14, roof.pct_compute);
    bind_pos(ins, 15, roof.pct_bw);
    if (roof.bound)
      sqlite3_bind_text(ins, 16, roof.bound, -1, SQLITE_STATIC);
    else
      sqlite3_bind_null(ins, 16);
    bind_pos(ins, 17, roof.roofline_ns);
    if (roof.roofline_ns >= 0 && kns > 0)
      sqlite3_bind_double(ins, 18, (double)kns - roof.roofline_ns);
    else
      sqlite3_bind_null(ins, 18);
    /* ops with a modelled op inside them (linear around addmm, matmul
     * around mm, scaled_dot_product_attention around the flash kernel's
     * op) count once, as the inner op, in perf_op_summary */
    sqlite3_bind_int(ins, 19, strcmp(op.category, "none") != 0 && sum->inner);
    s = rpd_step(r, ins);
    sqlite3_reset(ins);
    sqlite3_clear_bindings(ins);
    rpd_perf_op_free(&op);
    if (s < 0) rc = -s;
    s = SQLITE_ROW;
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  sqlite3_finalize(sel);
  sqlite3_finalize(ins);
  sqlite3_finalize(ev);
  rpd_buf_free(&types);
  return rc;
}

/* The kernel time under each op comes from one walk of the call stack
 * (rpd_callstack_visit: per thread, the calls in time order on a stack),
 * never from ext_callstack: summing its closure rows per op costs more than
 * the walk, and building it costs more again. */
static int build(rpd *r, void *vc)
{
  ctx *c = vc;
  const rpd_callstack_visitor vis = {visit_tag, visit_close, visit_reset, c};
  int rc;
  c->autograd = !rpd_table_exists(r, "ext_kineto_event");
  if (c->autograd && !rpd_table_exists(r, "ext_autogradapi"))
    return rpd_seterr(RPD_ENOTRPD, "no ops with shapes: missing table ext_kineto_event "
                      "(rpd-import a PyTorch profiler trace) or ext_autogradapi "
                      "(rpd-autograd a trace with PyTorch autograd markers)");
  rc = pick_arch(r, c);
  if (rc == RPD_OK) rc = drop(r, c);
  if (rc == RPD_OK) rc = rpd_exec(r, table_sql);
  rpd_progress_sql(r, "ops", c->autograd ? "ext_autogradapi" : "ext_kineto_event");
  if (rc == RPD_OK) rc = collect(r, c);
  rpd_progress_end();
  if (rc == RPD_OK) rc = rpd_callstack_visit(r, &vis, NULL);
  rpd_progress_sql(r, "ops", c->autograd ? "ext_autogradapi" : "ext_kineto_event");
  if (rc == RPD_OK) rc = fill(r, c);
  rpd_progress_end();
  free(c->sums);
  c->sums = NULL;
  c->nsums = 0;
  memo_free(c);
  if (rc == RPD_OK) rc = rpd_exec(r, view_sql);
  if (rc == RPD_OK && c->arch) rc = rpd_meta_set(r, ARCH_TAG, c->arch->name);
  if (rc == RPD_OK && c->arch && c->arch->link_gbs > 0) {
    char v[32];
    snprintf(v, sizeof v, "%.17g", c->arch->link_gbs);
    rc = rpd_meta_set(r, LINK_TAG, v);
  }
  c->built = rc == RPD_OK;
  return rc;
}

static void summary(void *vc)
{
  const ctx *c = vc;
  if (!c->built) return;
  printf("%s: %" PRId64 " ops, %" PRId64 " modelled; peaks %s\n",
         rpd_progname, c->ops, c->modelled, c->arch ? c->arch->name : "unknown");
  fflush(stdout);
  if (c->autograd && !c->modelled)
    rpd_note("the autograd markers carry no sizes: record with record_shapes=True");
}

int main(int argc, char **argv)
{
  ctx c = {0};
  const rpd_opt opts[] = {
    RPD_OPT_CALL("--arch", on_arch, &c, .arg = "NAME",
                 .help = "peaks of NAME (MI300X, MI325X, MI355X, MI250X, MI210, H100, H200, "
                         "GB200, B200, A100); default: from the trace's device name "
                         "(metadata kineto::gpu.0.name)"),
    RPD_OPT_CALL("--arch-file", on_arch_file, &c, .arg = "F",
                 .help = "peaks from a file of 'key value' lines (name, bf16, fp16, fp8, "
                         "fp32, tf32, fp64, vec_fp32, hbm_tbs, link_gbs: GPU-GPU links, "
                         "GB/s one way)"),
    RPD_OPT_CALL("--dtype", on_dtype, &c, .arg = "T",
                 .help = "the element type of every tensor of an autograd marker (bf16, "
                         "fp16, fp32, fp64, fp8); without it their bytes and % of peak "
                         "are NULL"),
    RPD_OPT_END(),
  };
  const rpd_augment a = {
    .help = &help,
    .what = "the performance model",
    .done_tag = DONE_TAG,
    .opts = opts,
    .drop = drop,
    .build = build,
    .ctx = &c,
    .summary = summary,
  };
  return rpd_augment_main(&a, argc, argv);
}
