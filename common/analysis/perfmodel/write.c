/* write.c - the performance model written into a trace: ext_perf_op (one
 * row per op with its model, its kernel time and its roofline), the view
 * perf_op_summary and the arch's metadata (rpd_perf_write, perfmodel.h).
 * rpd-perfmodel runs it as an augmenter; rpd-import's direct reader runs
 * it on a Kineto trace read into memory (`raptor T.json.gz --report`). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callstack.h"
#include "check.h"
#include "../perfmodel.h"
#include "progress.h"
#include "rpd.h"
#include "util/map.h"
#include "xsort.h"

#define ARCH_TAG "PerfModel::arch"
#define LINK_TAG "PerfModel::link_gbs"   /* the arch's link peak, for coll_analysis */

typedef struct ctx {
  const char *dtype;        /* rpd_perf_run's dtype */
  int lean;                 /* rpd_perf_run's lean */
  int autograd;             /* the ops are ext_autogradapi's markers */
  const rpd_perf_arch *arch;
  int64_t ops, modelled;
  struct op_kinds *kinds;   /* which api ids are ops, which modelled */
  int sorted;               /* the ops' scan gives ascending api ids */
  FILE *memo_log;           /* a Kineto import: each op's memo slot, in scan order */
  struct open_ops *open;    /* the sums of the ops open in the walk */
  struct xsort *sums;       /* the sums of the closed ops, by api_id */
  struct model_memo *memo;  /* MEMO_SLOTS, or NULL before the first op */
  rpd_buf key;              /* the key of the op being modelled */
} ctx;

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

int rpd_perf_drop(rpd *r)
{
  int rc = rpd_check_owned(r, "ext_perf_op", table_cols);
  if (rc == RPD_OK)
    rc = rpd_exec(r, "DROP VIEW IF EXISTS perf_op_summary;"
                     "DROP TABLE IF EXISTS ext_perf_op;");
  if (rc == RPD_OK) rc = rpd_meta_clear(r, ARCH_TAG);
  if (rc == RPD_OK) rc = rpd_meta_clear(r, LINK_TAG);
  return rc;
}

/* The peaks when the caller gave none: from the trace's device name. */
static void pick_arch(rpd *r, ctx *c)
{
  char *dev = NULL;
  if (rpd_meta_get(r, "kineto::gpu.0.name", &dev) == RPD_OK) {
    c->arch = rpd_perf_arch_find(dev);
    free(dev);
  }
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
 * them ran gpu work (kernels), and whether a modelled op is under it.
 * Written to the sort when the op's call ends (its sums are final then),
 * read back by api_id in the second pass: memory holds the open calls
 * only, whatever the number of ops. */
typedef struct op_sum {
  int64_t api_id, k, d;
  int64_t n2;               /* kernels * 2 + (a modelled op is under it) */
} op_sum;

/* An op's memo slot as the first pass left it, one per op in scan order
 * (a Kineto import: the second pass takes the model from the slot while
 * its generation is unchanged, without reading the args again). */
typedef struct memo_ref {
  int64_t event;            /* its ext_kineto_event id */
  uint32_t slot, gen;
} memo_ref;

/* The ops and their args, in table order (an ORDER BY would sort every
 * row's args; an import's order is ascending api_id, which the second pass
 * needs, and only when it is not does that pass, reading no args, sort).  The
 * args' members are found by rpd_perf_arg: json_extract would parse and
 * re-render each. */
#define KINETO_OPS " FROM ext_kineto_event E WHERE E.cat = 'cpu_op' AND E.api_id IS NOT NULL"
static const char select_sql[] = "SELECT E.api_id, E.name, E.args, E.id" KINETO_OPS;

/* The second pass over a Kineto import's ops (the same rows as the first):
 * an op whose model is still in the memo needs no args; the others are
 * read again by event id. */
#define FILL_SQL "SELECT E.api_id, E.name, E.id" KINETO_OPS
static const char fill_sql[] = FILL_SQL;
static const char fill_sorted_sql[] = FILL_SQL " ORDER BY E.api_id";
static const char event_sql[] =
  "SELECT E.api_id, E.name, E.args FROM ext_kineto_event E WHERE E.id = ?1";

/* The autograd markers: their sizes are the Input Dims. */
#define SELECT_AUTOGRAD_SQL \
  "SELECT A.api_ptr_id, S.string, nullif(A.sizes, '')" \
  " FROM ext_autogradapi A JOIN rocpd_string S ON S.id = A.autogradName_id"
static const char select_autograd_sql[] = SELECT_AUTOGRAD_SQL;
static const char select_autograd_sorted_sql[] = SELECT_AUTOGRAD_SQL " ORDER BY A.api_ptr_id";

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
    size_t len[RPD_PERF_NARGS];
    rpd_perf_args(col, rpd_perf_arg_keys, RPD_PERF_NARGS, a, len);
    for (int i = 0; i < RPD_PERF_NARGS; i++)
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

/* Which api ids are ops (bit 1) and which of those are modelled (bit 2):
 * two bits per id in pages of KIND_PAGE ids, found through a map from the
 * page's number, so ids with gaps cost only the pages they touch.  At
 * 10^8 api calls, 25 MB; the walk asks once per call. */
#define KIND_SHIFT 12
#define KIND_PAGE (1 << KIND_SHIFT)
typedef struct op_kinds {
  rpd_i64map page_of;       /* id / KIND_PAGE -> index in pages */
  uint64_t (*pages)[KIND_PAGE / 32];
  size_t npages, cap;
  int64_t last_key;         /* the page found last, to skip the map */
  uint64_t *last;
} op_kinds;

/* The page of id, created when `make` (else NULL when absent). */
static uint64_t *kinds_page(op_kinds *k, int64_t id, int make)
{
  int64_t key = id >> KIND_SHIFT, ix;
  int found;
  if (k->last && key == k->last_key) return k->last;
  if (!make) {
    if (!rpd_i64map_get(&k->page_of, key, &ix)) return NULL;
  } else {
    int64_t *v = rpd_i64map_ref(&k->page_of, key, (int64_t)k->npages, &found);
    ix = *v;
    if (!found) {
      if (k->npages == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 16;
        k->pages = rpd_xrealloc(k->pages, k->cap * sizeof *k->pages);
      }
      memset(k->pages[k->npages++], 0, sizeof *k->pages);
    }
  }
  k->last_key = key;
  return k->last = k->pages[ix];
}

static void kinds_set(op_kinds *k, int64_t id, unsigned v)
{
  uint64_t *p = kinds_page(k, id, 1);
  unsigned off = (unsigned)(id & (KIND_PAGE - 1));
  p[off / 32] |= (uint64_t)v << (2 * (off % 32));
}

static unsigned kinds_get(op_kinds *k, int64_t id)
{
  uint64_t *p = kinds_page(k, id, 0);
  unsigned off = (unsigned)(id & (KIND_PAGE - 1));
  return p ? (unsigned)(p[off / 32] >> (2 * (off % 32))) & 3 : 0;
}

static void kinds_free(op_kinds *k)
{
  if (!k) return;
  rpd_i64map_free(&k->page_of);
  free(k->pages);
  free(k);
}

/* The sums of the ops whose calls are open in the walk, in slots reused
 * through a free list: a call's tag is its op's slot. */
typedef struct open_ops {
  struct open_op {
    op_sum s;
    int modelled;
  } *v;
  int64_t *free_slots;
  size_t n, nfree, cap;
} open_ops;

static int64_t open_take(open_ops *o, int64_t api_id, int modelled)
{
  int64_t i;
  if (o->nfree) {
    i = o->free_slots[--o->nfree];
  } else {
    if (o->n == o->cap) {
      o->cap = o->cap ? 2 * o->cap : 64;
      o->v = rpd_xrealloc(o->v, o->cap * sizeof *o->v);
      o->free_slots = rpd_xrealloc(o->free_slots, o->cap * sizeof *o->free_slots);
    }
    i = (int64_t)o->n++;
  }
  o->v[i] = (struct open_op){.s = {.api_id = api_id}, .modelled = modelled};
  return i;
}

static void open_free(open_ops *o)
{
  if (!o) return;
  free(o->v);
  free(o->free_slots);
  free(o);
}

static int cmp_sum(const void *a, const void *b)
{
  int64_t x = ((const op_sum *)a)->api_id, y = ((const op_sum *)b)->api_id;
  return (x > y) - (x < y);
}

XSORT_DEFINE(sort_sums, op_sum, cmp_sum)

/* The sort's buffer: the sums of 128k ops (memory the same at any size;
 * more ops are merged from sorted runs in a scratch file). */
#define SUM_SORT_BYTES (4u << 20)

/* A new sorter of op sums by api id (the merge of its runs inlined). */
static xsort *sums_new(void)
{
  xsort *x = xsort_new(sizeof(op_sum), cmp_sum, sort_sums, SUM_SORT_BYTES);
  xsort_set_merge(x, sort_sums_merge);
  return x;
}

/* First pass over the ops: which are modelled (an op with a modelled op
 * under it is "outer") into c->kinds; for a Kineto import each op's memo
 * slot into c->memo_log. */
static int collect(rpd *r, ctx *c)
{
  sqlite3_stmt *sel = NULL;
  rpd_buf types = {0};
  int64_t prev = INT64_MIN;
  int s = SQLITE_DONE,
      rc = rpd_prepare(r, c->autograd ? select_autograd_sql : select_sql, &sel);
  c->kinds = rpd_xcalloc(1, sizeof *c->kinds);
  c->sorted = 1;
  if (rc == RPD_OK && !c->autograd) {
    int fd = rpd_scratch_fd();
    c->memo_log = fd >= 0 ? fdopen(fd, "w+b") : NULL;
    if (!c->memo_log) {
      if (fd >= 0) close(fd);
      rc = rpd_seterr(RPD_EIO, "cannot create a scratch file: %s", strerror(errno));
    }
  }
  while (rc == RPD_OK && (s = rpd_step(r, sel)) == SQLITE_ROW) {
    rpd_perf_op op;
    uint32_t slot;
    int64_t id = sqlite3_column_int64(sel, 0);
    model_row(c, sel, &types, &op, &slot);
    kinds_set(c->kinds, id, strcmp(op.category, "none") != 0 ? 3 : 1);
    if (id < prev) c->sorted = 0;
    prev = id;
    if (c->memo_log) {
      memo_ref m = {sqlite3_column_int64(sel, 3), slot, c->memo[slot].gen};
      if (fwrite(&m, sizeof m, 1, c->memo_log) != 1)
        rc = rpd_seterr(RPD_EIO, "cannot write a scratch file: %s", strerror(errno));
    }
    rpd_perf_op_free(&op);
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  if (rc == RPD_OK && c->memo_log && fflush(c->memo_log) != 0)
    rc = rpd_seterr(RPD_EIO, "cannot write a scratch file: %s", strerror(errno));
  if (c->memo_log) rewind(c->memo_log);
  sqlite3_finalize(sel);
  rpd_buf_free(&types);
  return rc;
}

/* The call stack visitor: a call of an op gets a slot of c->open. */
static int64_t visit_tag(void *vc, int64_t id)
{
  ctx *c = vc;
  unsigned k = kinds_get(c->kinds, id);
  return k ? open_take(c->open, id, k == 3) : -1;
}

static void add_sat(int64_t *to, int64_t v)
{
  if (!rpd_ns_add(*to, v, to)) *to = INT64_MAX;
}

/* A call ends: its gpu time counts for every op below it (as the rows of
 * ext_callstack of depth > 0 would), and a modelled op makes them outer.
 * An op's call ends after every call under it: its sums go to the sort. */
static int visit_close(void *vc, const int64_t *tags, int depth, int64_t gpu)
{
  ctx *c = vc;
  open_ops *o = c->open;
  int inner = tags[depth] >= 0 && o->v[tags[depth]].modelled;
  if (gpu != 0 || inner)
    for (int j = 0; j < depth; j++) {
      if (tags[j] < 0) continue;
      op_sum *s = &o->v[tags[j]].s;
      add_sat(&s->k, gpu);
      if (j == depth - 1) add_sat(&s->d, gpu);
      if (gpu > 0) s->n2 += 2;
      if (inner) s->n2 |= 1;
    }
  if (tags[depth] >= 0) {
    const op_sum *s = &o->v[tags[depth]].s;
    o->free_slots[o->nfree++] = tags[depth];
    if (s->k || s->d || s->n2) return xsort_add(c->sums, s);
  }
  return RPD_OK;
}

static void visit_reset(void *vc)
{
  ctx *c = vc;
  c->open->n = c->open->nfree = 0;
  xsort_free(c->sums);
  c->sums = sums_new();
}

/* The sums of op `id` (zero if it has none) from the sorted sums, read in
 * ascending api_id order; *have is xsort_next's last answer and *cur its
 * record.  RPD_OK or an error code. */
static int sum_of(ctx *c, int64_t id, int *have, op_sum *cur, op_sum *out)
{
  const void *rec;
  while (*have == 1 && cur->api_id < id) {
    *have = xsort_next(c->sums, &rec);
    if (*have == 1) memcpy(cur, rec, sizeof *cur);
  }
  if (*have < 0) return -*have;
  *out = *have == 1 && cur->api_id == id ? *cur : (op_sum){.api_id = id};
  return RPD_OK;
}

/* Second pass over the ops, in ascending api_id order (the first pass's
 * order when it was so, else sorted by SQLite): model each again and write
 * its row with the sums of the walk. */
static int fill(rpd *r, ctx *c)
{
  sqlite3_stmt *sel = NULL, *ins = NULL, *ev = NULL;
  rpd_buf types = {0};
  op_sum cur = {.api_id = INT64_MIN};
  int have = 1;
  int rc = rpd_prepare(r, c->autograd ? (c->sorted ? select_autograd_sql
                                                   : select_autograd_sorted_sql)
                                      : (c->sorted ? fill_sql : fill_sorted_sql), &sel),
      s = SQLITE_DONE;
  if (rc == RPD_OK) rc = xsort_done(c->sums);
  if (rc == RPD_OK) rc = rpd_prepare(r, insert_sql, &ins);
  if (rc == RPD_OK && !c->autograd) rc = rpd_prepare(r, event_sql, &ev);
  while (rc == RPD_OK && (s = rpd_step(r, sel)) == SQLITE_ROW) {
    rpd_perf_op op;
    rpd_perf_roof roof;
    const char *name = (const char *)sqlite3_column_text(sel, 1);
    int64_t id = sqlite3_column_int64(sel, 0);
    op_sum sum_v, *sum = &sum_v;
    memo_ref m;
    int64_t kns;
    int logged;
    uint32_t slot;
    if ((rc = sum_of(c, id, &have, &cur, sum)) != RPD_OK) break;
    kns = sum->k;
    /* the memo log is in the first pass's order: read only in that order */
    logged = c->memo_log && c->sorted && fread(&m, sizeof m, 1, c->memo_log) == 1;
    if (c->lean && kinds_get(c->kinds, id) != 3) {
      c->ops++;             /* no model: no row (see rpd_perf_run.lean) */
      continue;
    }
    if (c->autograd) {
      model_row(c, sel, &types, &op, &slot);
    } else if (logged && m.event == sqlite3_column_int64(sel, 2) &&
               c->memo[m.slot].gen == m.gen) {
      op = c->memo[m.slot].op;   /* modelled in the first pass, still kept */
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
    sqlite3_bind_int64(ins, 10, sum->n2 >> 1);
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
    sqlite3_bind_int(ins, 19, strcmp(op.category, "none") != 0 && (sum->n2 & 1));
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
int rpd_perf_write(rpd *r, rpd_perf_run *run)
{
  ctx cv = {0}, *c = &cv;
  const rpd_callstack_visitor vis = {visit_tag, visit_close, visit_reset, c};
  int rc;
  c->dtype = run->dtype;
  c->lean = run->lean;
  c->arch = run->arch;
  c->autograd = !rpd_table_exists(r, "ext_kineto_event");
  if (c->autograd && !rpd_table_exists(r, "ext_autogradapi"))
    return rpd_seterr(RPD_ENOTRPD, "no ops with shapes: missing table ext_kineto_event "
                      "(rpd-import a PyTorch profiler trace) or ext_autogradapi "
                      "(rpd-autograd a trace with PyTorch autograd markers)");
  if (!c->arch) pick_arch(r, c);
  rc = rpd_perf_drop(r);
  if (rc == RPD_OK) rc = rpd_exec(r, table_sql);
  rpd_progress_sql(r, "ops", c->autograd ? "ext_autogradapi" : "ext_kineto_event");
  if (rc == RPD_OK) rc = collect(r, c);
  rpd_progress_end();
  c->open = rpd_xcalloc(1, sizeof *c->open);
  c->sums = sums_new();
  if (rc == RPD_OK) rc = rpd_callstack_visit(r, &vis, NULL);
  open_free(c->open);
  c->open = NULL;
  rpd_progress_sql(r, "ops", c->autograd ? "ext_autogradapi" : "ext_kineto_event");
  if (rc == RPD_OK) rc = fill(r, c);
  rpd_progress_end();
  kinds_free(c->kinds);
  c->kinds = NULL;
  xsort_free(c->sums);
  c->sums = NULL;
  if (c->memo_log) fclose(c->memo_log);
  c->memo_log = NULL;
  memo_free(c);
  if (rc == RPD_OK) rc = rpd_exec(r, view_sql);
  if (rc == RPD_OK && c->arch) rc = rpd_meta_set(r, ARCH_TAG, c->arch->name);
  if (rc == RPD_OK && c->arch && c->arch->link_gbs > 0) {
    char v[32];
    snprintf(v, sizeof v, "%.17g", c->arch->link_gbs);
    rc = rpd_meta_set(r, LINK_TAG, v);
  }
  run->arch = c->arch;
  run->autograd = c->autograd;
  run->ops = c->ops;
  run->modelled = c->modelled;
  return rc;
}
