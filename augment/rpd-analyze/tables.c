/* tables.c - rpd-analyze's op side: the one scan of the ops (with their
 * launching calls from the links and the calls' scan) into three bounded
 * sorts: the sweep's GPU work, the kernels' values (launch.c), the
 * queues' depth changes (queue.c). */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "check.h"
#include "intscan.h"
#include "opclass.h"
#include "util/map.h"
#include "xsort.h"

/* ------------------------------------------------------------ op table */

/* The SQL functions of the op table's one scan of rocpd_op: the class and
 * the communication flag of an op, looked up once per distinct opType or
 * description id (a kernel name is matched once, not once per dispatch). */
typedef struct op_funcs {
  sqlite3_stmt *cls, *desc;   /* rpd_opclass_prepare_one; a string by id */
  rpd_i64map cls_of, comm_of;
} op_funcs;

static int contains(const char *s, const char *sub)
{
  return strstr(s, sub) != NULL;
}

/* 1 when a kernel name is a collective: nccl/rccl, all_reduce, allreduce,
 * all_gather, allgather, reduce_scatter, reducescatter, alltoall
 * (ASCII case-insensitive, as SQL lower()) or cross_device_reduce. */
static int is_comm(const char *name)
{
  static const char *const lowered[] = {"nccl", "rccl", "all_reduce", "allreduce",
    "all_gather", "allgather", "reduce_scatter", "reducescatter", "alltoall"};
  size_t n = strlen(name);
  char *low = rpd_xmalloc(n + 1);
  int hit = contains(name, "cross_device_reduce");
  for (size_t i = 0; i <= n; i++)
    low[i] = name[i] >= 'A' && name[i] <= 'Z' ? (char)(name[i] - 'A' + 'a') : name[i];
  for (size_t k = 0; !hit && k < N(lowered); k++)
    hit = contains(low, lowered[k]);
  free(low);
  return hit;
}

/* The class of an op by its opType id (views/opClass.sql; NULL: other),
 * looked up once per id.  -1 on an SQL error (*rc set). */
static int op_class(op_funcs *fn, int is_null, int64_t id, int *rc)
{
  int64_t k;
  if (is_null)
    return RPD_OPCLASS_OTHER;
  if (!rpd_i64map_get(&fn->cls_of, id, &k)) {
    if ((k = rpd_opclass_one(fn->cls, id)) < 0) {
      *rc = rpd_seterr(RPD_ESQL, "SQL: %s", sqlite3_errmsg(sqlite3_db_handle(fn->cls)));
      return -1;
    }
    rpd_i64map_put(&fn->cls_of, id, k);
  }
  return (int)k;
}

int an_string_flag(rpd_i64map *cache, sqlite3_stmt *st, int64_t id, int (*pred)(const char *),
                   int *rc)
{
  int64_t v;
  if (!rpd_i64map_get(cache, id, &v)) {
    int s;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, id);
    s = sqlite3_step(st);
    if (s == SQLITE_ROW) {
      const char *t = (const char *)sqlite3_column_text(st, 0);
      v = t ? pred(t) : 0;
    } else if (s == SQLITE_DONE) {
      v = 0;
    } else {
      *rc = rpd_seterr(RPD_ESQL, "SQL: %s", sqlite3_errmsg(sqlite3_db_handle(st)));
      return 0;
    }
    sqlite3_reset(st);
    rpd_i64map_put(cache, id, v);
  }
  return (int)v;
}

/* 1 when the name of description id `did` is a collective's, 0 for another
 * name or no name (as SQL's NULL, which the sweep reads as 0); looked up
 * once per id. */
static int op_comm(op_funcs *fn, int is_null, int64_t id, int *rc)
{
  if (is_null)
    return 0;
  return an_string_flag(&fn->comm_of, fn->desc, id, is_comm, rc);
}

/* The sort buffer of each bounded sort (xsort.h): beyond it, sorted runs
 * go to a scratch file, so memory stays flat in trace size. */
#define SORT_BYTES (8u << 20)

int an_next_shown(xsort *x, const void **p, const char *what)
{
  int got = xsort_next(x, p);
  an_progress(what, xsort_taken(x), xsort_added(x));
  return got;
}

/* An LSD radix sort of n records of nw 64-bit words at base (nw <= 3), in
 * the order of their words (word 0 first) compared as unsigned after each
 * is XORed with flip[w] (a sign bit flipped: signed order): one counting
 * pass, then a stable pass per byte, skipping every byte that is the same
 * in all records (most of them: small keys, times of a few bytes).  For
 * records that come in no order, where a merge sort mispredicts half its
 * comparisons.  Scratch of n records for the time of the call. */
/* One word a record (the kernels' values), in unsigned order: LSD passes
 * of up to RADIX_BITS bits, each starting at the lowest bit that differs
 * between records not yet sorted on (the bits every record shares are
 * skipped: a key of a few bits over a value of a few bytes takes 4
 * passes where bytes took 6). */
#define RADIX_BITS 11
static void radix_one_word(uint64_t *base, size_t n)
{
  uint64_t all = ~(uint64_t)0, any = 0, diff, *a = base, *b, *t;
  int lo[64 / RADIX_BITS + 1], nd = 0;
  size_t (*cnt)[1 << RADIX_BITS];
  for (size_t i = 0; i < n; i++) {
    all &= a[i];
    any |= a[i];
  }
  diff = any & ~all;
  for (int bit = 0; bit < 64 && diff >> bit; bit += RADIX_BITS) {
    while (!(diff >> bit & 1))
      bit++;
    lo[nd++] = bit;
  }
  if (!nd)
    return;
  cnt = rpd_xcalloc((size_t)nd, sizeof *cnt);
  b = rpd_xmalloc((n + 1) * sizeof *b);
  for (size_t i = 0; i < n; i++)
    for (int d = 0; d < nd; d++)
      cnt[d][a[i] >> lo[d] & ((1u << RADIX_BITS) - 1)]++;
  for (int d = 0; d < nd; d++) {
    size_t *c = cnt[d], sum = 0;
    int sh = lo[d];
    for (int v = 0; v < 1 << RADIX_BITS; v++) {
      size_t k = c[v];
      c[v] = sum;
      sum += k;
    }
    for (size_t i = 0; i < n; i++)
      b[c[a[i] >> sh & ((1u << RADIX_BITS) - 1)]++] = a[i];
    t = a, a = b, b = t;
  }
  if (a != base) {
    memcpy(base, a, n * sizeof *a);
    b = a;
  }
  free(b);
  free(cnt);
}

void an_radix_words(void *base, size_t n, int nw, const uint64_t *flip)
{
  size_t (*cnt)[256];
  if (nw == 1 && flip[0] == 0) {
    radix_one_word(base, n);
    return;
  }
  cnt = rpd_xcalloc((size_t)nw * 8, sizeof *cnt);
  uint64_t *a = base, *b = rpd_xmalloc((n + 1) * (size_t)nw * sizeof *a), *t;
  for (size_t i = 0; i < n; i++)
    for (int w = 0; w < nw; w++) {
      uint64_t u = a[i * (size_t)nw + (size_t)w] ^ flip[w];
      for (int d = 0; d < 8; d++)
        cnt[w * 8 + d][u >> (8 * d) & 255]++;
    }
  /* least significant first: the last word's low byte */
  for (int w = nw - 1; n && w >= 0; w--)
    for (int d = 0; d < 8; d++) {
      size_t *c = cnt[w * 8 + d], sum = 0;
      int sh = 8 * d;
      if (c[(a[w] ^ flip[w]) >> sh & 255] == n)
        continue;
      for (int v = 0; v < 256; v++) {
        size_t k = c[v];
        c[v] = sum;
        sum += k;
      }
      for (size_t i = 0; i < n; i++) {
        const uint64_t *r = a + i * (size_t)nw;
        uint64_t *o = b + c[(r[w] ^ flip[w]) >> sh & 255]++ * (size_t)nw;
        for (int k = 0; k < nw; k++)
          o[k] = r[k];
      }
      t = a, a = b, b = t;
    }
  if (a != base) {
    memcpy(base, a, n * (size_t)nw * sizeof *a);
    b = a;
  }
  free(b);
  free(cnt);
}

void an_order_parts(unsigned char *order, size_t n, const void *base, size_t size,
                    int (*cmp)(const void *, const void *))
{
  const char *b = base;
  for (size_t k = 0; k < n; k++) {
    size_t j = k;
    for (; j > 0 && cmp(b + k * size, b + order[j - 1] * size) < 0; j--)
      order[j] = order[j - 1];
    order[j] = (unsigned char)k;
  }
}

/* The ops read once (an_scan_ops): the sorts of the sweep, the launch
 * statistics and the queue depth. */
struct an_scan {
  an_works *work;
  an_queue *queue;
  an_kernels *kern;
  int copy_links;              /* temp.an_copylink holds the copies' links */
};

/* ------------------------------------------------------------ op scan */

static const char scan_sql[] =
  "DROP TABLE IF EXISTS temp.an_launch; DROP TABLE IF EXISTS temp.an_copy;"
  "DROP TABLE IF EXISTS temp.an_shared;"
  "DROP TABLE IF EXISTS temp.an_copylink;"
  "CREATE TEMP TABLE an_shared (api_id INTEGER PRIMARY KEY);"
  "CREATE TEMP TABLE an_copylink (op_id INTEGER, api_id INTEGER);"
  "CREATE TEMP TABLE an_copy (id INTEGER PRIMARY KEY, s INTEGER, e INTEGER,"
  " type INTEGER);";

/* The calls linked to several ops, when the links are not in call order. */
static const char shared_sql[] =
  "DELETE FROM an_shared;"
  "INSERT INTO an_shared SELECT api_id FROM rocpd_api_ops GROUP BY api_id"
  " HAVING count(*) > 1;";

/* The links' columns in the scans of rocpd_api_ops (intscan.h): the
 * call, the op, whether the op is NULL, the link's rowid. */
enum { L_API, L_OP, L_OPNULL, L_ROWID, LCOLS };
static const char links_scan_sql[] =
  "SELECT 1 FROM rocpd_api_ops WHERE rpd_intscan(?1, api_id, op_id, op_id IS NULL, rowid)";
#define LINKS_TYPED (1u << L_API | 1u << L_OP)

/* How the ops find their launching calls (links_peek). */
enum {
  LINKS_JOIN,     /* temp.an_launch: a GROUP BY of the links joined to their calls */
  LINKS_MAP,      /* the links read along with the ops; shared calls from a GROUP BY */
  LINKS_RUNS      /* the same; a call is shared when a neighbouring link has it */
};

/* The links looked at before the ops are read (LINKS_PEEK of them):
 * tracers write them in op order, and most often in call order too;
 * when not, the first ones show it. */
#define LINKS_PEEK 4096

/* How to read the links (the enum above), from the first LINKS_PEEK:
 * op ids (NULLs aside) integers that never go down -- the links are read
 * along with the ops in id order -- and call ids integers that never go
 * down too: each call's links are one run, and a call is shared (linked
 * to several ops) when a neighbouring link has it, no GROUP BY (a sort
 * of every link).  The merge checks the rest and starts again through the
 * GROUP BY when an order breaks later (*redo in scan_pass).  A
 * rocpd_api_ops that is a view takes the GROUP BY. */
static int links_peek(rpd *r, int *mode)
{
  sqlite3_stmt *probe = NULL;
  rpd_intscan sc;
  const int64_t *v = NULL;
  unsigned ints = 0;
  int64_t last_api = INT64_MIN, last_op = INT64_MIN;
  int rc, got = 0, api_order = 1, op_order = 1, n = 0;
  memset(&sc, 0, sizeof sc);
  *mode = LINKS_JOIN;
  /* a table, with rowids (a view has none) */
  if (sqlite3_prepare_v2(rpd_db(r), "SELECT rowid FROM rocpd_api_ops", -1, &probe, NULL)
      != SQLITE_OK) {
    sqlite3_finalize(probe);
    return RPD_OK;
  }
  sqlite3_finalize(probe);
  rc = rpd_intscan_open(r, &sc, links_scan_sql, LCOLS, LINKS_TYPED | RPD_INTSCAN_UNCHANGED);
  while (!rc && op_order && n++ < LINKS_PEEK && (got = rpd_intscan_row(r, &sc, &v, &ints)) > 0) {
    if (!v[L_OPNULL]) {
      op_order = (ints & 1u << L_OP) && v[L_OP] >= last_op;
      last_op = v[L_OP];
    }
    api_order &= (ints & 1u << L_API) && v[L_API] >= last_api;
    last_api = v[L_API];
  }
  if (!rc && got < 0)
    rc = -got;
  rpd_intscan_close(&sc);
  if (op_order)
    *mode = api_order ? LINKS_RUNS : LINKS_MAP;
  return rc;
}

/* When the links are not in op order: per op, the linked call that started
 * first (its start, end, thread) and whether it is the op's own launch. */
static const char launch_sql[] =
  "CREATE TEMP TABLE an_launch (op_id INTEGER PRIMARY KEY, launch INTEGER,"
  " api_end INTEGER, tid INTEGER, own INTEGER);"
  "INSERT INTO an_launch SELECT X.op_id, min(A.start), A.\"end\", A.tid,"
  " A.id NOT IN (SELECT api_id FROM an_shared)"
  "  AND coalesce(N.string NOT GLOB '*GraphLaunch*', 1)"
  " FROM rocpd_api_ops X JOIN rocpd_api A ON A.id = X.api_id"
  " LEFT JOIN rocpd_string N ON N.id = A.apiName_id GROUP BY X.op_id;";

/* One op of the scan: its row of rocpd_op and its launching call. */
typedef struct opv {
  int64_t id, gpu, queue, type, did;   /* as sqlite3_column_int64 reads them */
  unsigned nulls;              /* bit OP_xxx: that value is NULL */
  sqlite3_stmt *vals;          /* a statement on the op's row (id first, opType_id
                                  sixth), or NULL when id and opType_id are INTEGERs */
  int64_t s, e;                /* sane (the check in the scan) */
  int has_launch, own;
  int64_t launch, api_end;
} opv;

/* The columns of the op scans: in both statements (the intscan's after
 * ?1), and bits of opv.nulls. */
enum { OP_ID, OP_GPU, OP_QUEUE, OP_START, OP_END, OP_TYPE, OP_DID, OP_ROWID, OPCOLS };

/* A link's call when its api_id is not an INTEGER: the join's own rule. */
static const char link_call_sql[] =
  "SELECT A.id, A.start, A.\"end\", A.apiName_id FROM rocpd_api_ops X"
  " CROSS JOIN rocpd_api A ON A.id = X.api_id WHERE X.rowid = ?";

/* The links in op order, read along with the ops; their calls from the
 * scan of rocpd_api (an_calls_find).  One link ahead is read too: with
 * runs, a call is shared when the link before or after has it. */
typedef struct links {
  rpd_intscan sc;
  sqlite3_stmt *by_link;       /* link_call_sql */
  sqlite3_stmt *copy_link;     /* INSERT INTO an_copylink */
  rpd_i64map shared;           /* without runs: the shared calls */
  int runs;                    /* LINKS_RUNS */
  int64_t v[LCOLS], next[LCOLS];   /* the link (when have), the one after (have_next) */
  unsigned ints, next_ints;
  int have, have_next;
  int64_t prev_api;            /* the call of the link before v (have_prev) */
  int have_prev;
  int64_t last_op, last_api;   /* the order of the links read */
  int disorder;                /* an order the reading relies on broke: start again */
  int64_t *api;                /* the call ids of the last op's links */
  size_t napi, cap;
  int api_not_int;             /* one of a copy's call ids was not an INTEGER */
} links;

/* Read the link after the next one, checking the orders. */
static int links_ahead(rpd *r, links *k)
{
  const int64_t *v = NULL;
  int got = rpd_intscan_row(r, &k->sc, &v, &k->next_ints);
  k->have_next = got > 0;
  if (got <= 0)
    return got < 0 ? -got : RPD_OK;
  memcpy(k->next, v, sizeof k->next);
  if (!v[L_OPNULL]) {
    k->disorder |= !(k->next_ints & 1u << L_OP) || v[L_OP] < k->last_op;
    k->last_op = v[L_OP];
  }
  if (k->runs) {
    k->disorder |= !(k->next_ints & 1u << L_API) || v[L_API] < k->last_api;
    k->last_api = v[L_API];
  }
  return RPD_OK;
}

static int links_next(rpd *r, links *k)
{
  if (k->have) {
    k->prev_api = k->v[L_API];
    k->have_prev = 1;
  }
  k->have = k->have_next;
  memcpy(k->v, k->next, sizeof k->v);
  k->ints = k->next_ints;
  return k->have ? links_ahead(r, k) : RPD_OK;
}

/* Is the call of the current link, call id `id`, linked to other ops? */
static int links_shared(const links *k, int64_t id)
{
  if (k->runs)
    return (k->have_prev && k->prev_api == k->v[L_API]) ||
           (k->have_next && k->next[L_API] == k->v[L_API]);
  return rpd_i64map_count(&k->shared) && rpd_i64map_get(&k->shared, id, NULL);
}

/* The launch of op `id` from the links: the linked call that started first
 * (the first of equal starts), as min() of a GROUP BY gives it. */
static int links_launch(rpd *r, links *k, an_calls *calls, int64_t id, opv *o)
{
  int rc = RPD_OK;
  o->has_launch = 0;
  while (!rc && k->have && (k->v[L_OPNULL] || k->v[L_OP] < id))
    rc = links_next(r, k);
  k->napi = 0;
  while (!rc && k->have && !k->v[L_OPNULL] && k->v[L_OP] == id) {
    an_call c;
    int got;
    if (k->napi == k->cap) {
      k->cap = k->cap ? 2 * k->cap : 16;
      k->api = rpd_xrealloc(k->api, k->cap * sizeof *k->api);
    }
    /* a non-INTEGER call id stands for the link, for the copies' links */
    k->api[k->napi++] = k->ints & 1u << L_API ? k->v[L_API] : INT64_MIN;
    if (k->ints & 1u << L_API) {
      got = an_calls_find(calls, k->v[L_API], &c);
    } else {
      sqlite3_bind_int64(k->by_link, 1, k->v[L_ROWID]);
      got = an_calls_resolve(calls, k->by_link, &c);
    }
    if (got < 0)
      return -got;
    if (got && (!o->has_launch || c.start < o->launch)) {
      o->has_launch = 1;
      o->launch = c.start;
      o->api_end = c.end;
      o->own = !links_shared(k, c.id) && !c.graph;
    }
    rc = links_next(r, k);
  }
  return rc;
}

/* The links of copy `id` (the last op links_launch read) into
 * temp.an_copylink, in their order: the memcpy buckets join the copies'
 * sizes through them, not through a probe of rocpd_copyapi per link. */
static int copy_links(links *k, int64_t id)
{
  for (size_t i = 0; i < k->napi; i++) {
    int s;
    if (k->api[i] == INT64_MIN) {
      k->api_not_int = 1;   /* the join's own rule: the buckets join every link */
      continue;
    }
    sqlite3_reset(k->copy_link);
    sqlite3_bind_int64(k->copy_link, 1, id);
    sqlite3_bind_int64(k->copy_link, 2, k->api[i]);
    if ((s = sqlite3_step(k->copy_link)) != SQLITE_DONE)
      return rpd_seterr(RPD_ESQL, "SQL: %s", sqlite3_errmsg(sqlite3_db_handle(k->copy_link)));
  }
  return RPD_OK;
}

/* One op into the sorts (and temp.an_copy for a copy), with the values the
 * temp op table's readers computed: the queue's launch time
 * min(coalesce(launch, s), s), the api duration of a dispatch with a call
 * of its own, the launch delay s - launch, the GPU time e - s. */
static int scan_op(an_scan *sc, op_funcs *fn, const opv *o, sqlite3_stmt *copy, links *k)
{
  int rc = RPD_OK, cls, s;
  int64_t t = o->has_launch && o->launch < o->s ? o->launch : o->s;
  int has_queue = !(o->nulls & 1u << OP_QUEUE);
  /* the gpu checked: an integer */
  if ((rc = an_queue_add(sc->queue, o->gpu, has_queue, o->queue, t, 1)) ||
      (rc = an_queue_add(sc->queue, o->gpu, has_queue, o->queue, o->e, -1)))
    return rc;
  if ((cls = op_class(fn, o->nulls >> OP_TYPE & 1, o->type, &rc)) < 0)
    return rc;
  if (cls == RPD_OPCLASS_KERNEL && !(o->nulls & 1u << OP_DID)) {
    int64_t v[NMETRICS] = {o->api_end - o->launch, o->s - o->launch, o->e - o->s};
    int has[NMETRICS] = {o->has_launch && o->own, o->has_launch, 1};
    if ((rc = an_kernels_add(sc->kern, o->did, v, has)))
      return rc;
  }
  if (cls != RPD_OPCLASS_KERNEL && cls != RPD_OPCLASS_COPY)
    return RPD_OK;
  /* the sweep reads a NULL gpu as 0, as sqlite3_column_int64 did */
  an_work w;
  memset(&w, 0, sizeof w);
  w.id = o->id;
  if (o->nulls & 1u << OP_GPU)
    w.flags |= AN_W_GPU_NULL;
  w.gpu = o->gpu;
  w.s = o->s;
  w.e = o->e;
  if (o->has_launch) {
    w.flags |= AN_W_API;
    w.launch = o->launch;
    w.api_end = o->api_end;
    if (o->own)
      w.flags |= AN_W_OWN;
  }
  if (cls == RPD_OPCLASS_KERNEL) {
    w.flags |= AN_W_KERNEL;
    if (op_comm(fn, o->nulls >> OP_DID & 1, o->did, &rc))
      w.flags |= AN_W_COMM;
    if (rc)
      return rc;
  } else {
    sqlite3_reset(copy);
    /* the values as stored (an_copy's id and type are read by SQL) */
    if (o->vals) {
      sqlite3_bind_value(copy, 1, sqlite3_column_value(o->vals, OP_ID));
      sqlite3_bind_value(copy, 4, sqlite3_column_value(o->vals, OP_TYPE));
    } else {
      sqlite3_bind_int64(copy, 1, o->id);
      sqlite3_bind_int64(copy, 4, o->type);
    }
    sqlite3_bind_int64(copy, 2, o->s);
    sqlite3_bind_int64(copy, 3, o->e);
    if ((s = sqlite3_step(copy)) != SQLITE_DONE)
      return rpd_seterr(RPD_ESQL, "SQL: %s", sqlite3_errmsg(sqlite3_db_handle(copy)));
    if (k && (rc = copy_links(k, w.id)))
      return rc;
  }
  return an_works_add(sc->work, &w);
}

/* The op scans (columns: OP_ID ...): with the links read along, in id
 * order through rpd_intscan when rocpd_op is a table that can be read so
 * without a sort, else (and with temp.an_launch) through the columns. */
static const char ops_int_sql[] =
  "SELECT 1 FROM rocpd_op WHERE rpd_intscan(?1, id, gpuId, queueId, start, \"end\","
  " opType_id, description_id, rowid) ORDER BY id";
#define OPS_TYPED ((1u << OP_ROWID) - 1)   /* every column but the rowid */
static const char ops_row_sql[] =
  "SELECT id, gpuId, queueId, start, \"end\", opType_id, description_id FROM rocpd_op"
  " WHERE rowid = ?";
static const char ops_merge_sql[] =
  "SELECT O.id, O.gpuId, O.queueId, O.start, O.\"end\", O.opType_id,"
  " O.description_id FROM rocpd_op O ORDER BY O.id";
static const char ops_join_sql[] =
  "SELECT O.id, O.gpuId, O.queueId, O.start, O.\"end\", O.opType_id,"
  " O.description_id, L.launch, L.api_end, L.own"
  " FROM rocpd_op O LEFT JOIN an_launch L ON L.op_id = O.id";

typedef struct ops {
  sqlite3_stmt *st;            /* the columns' scan (NULL: the intscan's) */
  rpd_intscan sc;
  sqlite3_stmt *row;           /* ops_row_sql: an op with a value not an INTEGER */
} ops;

/* 1 when rocpd_op has rowids (not a view) and ops_int_sql needs no sort. */
static int ops_by_ints(rpd *r, int *rc)
{
  sqlite3_stmt *st = NULL;
  int sorts = 0;
  if (sqlite3_prepare_v2(rpd_db(r), "SELECT rowid FROM rocpd_op", -1, &st, NULL) != SQLITE_OK) {
    sqlite3_finalize(st);
    return 0;
  }
  sqlite3_finalize(st);
  *rc = rpd_plan_sorts(r, "SELECT 1 FROM rocpd_op WHERE rpd_intscan(?1, id, gpuId, queueId,"
                          " start, \"end\", opType_id, description_id, rowid) ORDER BY id", &sorts);
  return !*rc && !sorts;
}

/* The op of the columns of st into *o. */
static void op_of_columns(sqlite3_stmt *st, opv *o)
{
  memset(o, 0, sizeof *o);
  for (int c = 0; c <= OP_DID; c++)
    if (sqlite3_column_type(st, c) == SQLITE_NULL)
      o->nulls |= 1u << c;
  o->id = sqlite3_column_int64(st, OP_ID);
  o->gpu = sqlite3_column_int64(st, OP_GPU);
  o->queue = sqlite3_column_int64(st, OP_QUEUE);
  o->s = sqlite3_column_int64(st, OP_START);
  o->e = sqlite3_column_int64(st, OP_END);
  o->type = sqlite3_column_int64(st, OP_TYPE);
  o->did = sqlite3_column_int64(st, OP_DID);
  o->vals = st;
}

/* The next op the trace check passes into *o (a bad one counted in *bad,
 * the check's rule, types read before the integers): 1, 0 at the end, or
 * minus an error. */
static int ops_next(rpd *r, ops *p, rpd_check_rows *bad, opv *o)
{
  for (;;) {
    int64_t was_bad = bad->bad;
    int s;
    if (p->st) {
      if ((s = rpd_step(r, p->st)) != SQLITE_ROW)
        return s == SQLITE_DONE ? 0 : s;
      rpd_check_values(bad, sqlite3_column_value(p->st, OP_START),
                       sqlite3_column_value(p->st, OP_END), sqlite3_column_value(p->st, OP_GPU));
      if (bad->bad == was_bad) {
        op_of_columns(p->st, o);
        return 1;
      }
      continue;
    }
    const int64_t *v = NULL;
    unsigned ints = 0;
    if ((s = rpd_intscan_row(r, &p->sc, &v, &ints)) <= 0)
      return s;
    rpd_check_ints(bad, v[OP_START], v[OP_END], v[OP_GPU], RPD_CHECK_WITH_GPU |
                   (ints & 1u << OP_START ? RPD_CHECK_START_INT : 0) |
                   (ints & 1u << OP_END ? RPD_CHECK_END_INT : 0) |
                   (ints & 1u << OP_GPU ? RPD_CHECK_GPU_INT : 0));
    if (bad->bad != was_bad)
      continue;
    if ((ints & OPS_TYPED) != OPS_TYPED) {
      /* a NULL or another type: the row's values, as the columns give them */
      sqlite3_reset(p->row);
      sqlite3_bind_int64(p->row, 1, v[OP_ROWID]);
      if ((s = rpd_step(r, p->row)) < 0)
        return s;
      if (s != SQLITE_ROW)
        return -rpd_seterr(RPD_ERR, "internal error: op at rowid %lld not found",
                           (long long)v[OP_ROWID]);
      op_of_columns(p->row, o);
      return 1;
    }
    memset(o, 0, sizeof *o);
    o->id = v[OP_ID];
    o->gpu = v[OP_GPU];
    o->queue = v[OP_QUEUE];
    o->s = v[OP_START];
    o->e = v[OP_END];
    o->type = v[OP_TYPE];
    o->did = v[OP_DID];
    return 1;
  }
}

/* The sorts and sums of a scan, empty. */
static void scan_init(an_scan *sc)
{
  sc->work = an_works_new(SORT_BYTES);
  /* half a buffer: its radix sort takes a copy of it while it sorts */
  sc->kern = an_kernels_new(SORT_BYTES / 2);
  sc->queue = an_queue_new(SORT_BYTES);
}

/* One scan of the ops into sc: with merge, the links read along (they are
 * in op order) and their calls found through calls, else joined through
 * temp.an_launch. */
static int scan_pass(rpd *r, an_scan *sc, an_calls *calls, int mode, int *redo)
{
  sqlite3_stmt *copy = NULL, *sh = NULL;
  links k;
  ops p;
  op_funcs fn;
  int rc = RPD_OK, s = 0, have_last = 0, merge = mode != LINKS_JOIN;
  int64_t last_id = 0;
  opv last, o;
  rpd_check_rows bad;
  memset(&bad, 0, sizeof bad);
  memset(&fn, 0, sizeof fn);
  memset(&k, 0, sizeof k);
  memset(&p, 0, sizeof p);
  memset(&last, 0, sizeof last);
  k.runs = mode == LINKS_RUNS;
  k.last_op = k.last_api = INT64_MIN;
  *redo = 0;
  if (mode != LINKS_RUNS)
    rc = rpd_exec(r, shared_sql);
  if (!rc && !merge)
    rc = rpd_exec(r, launch_sql);
  if (!rc && mode == LINKS_MAP) {
    rc = rpd_prepare(r, "SELECT api_id FROM an_shared", &sh);
    while (!rc && (s = rpd_step(r, sh)) == SQLITE_ROW)
      rpd_i64map_put(&k.shared, sqlite3_column_int64(sh, 0), 1);
    if (!rc && s < 0)
      rc = -s;
  }
  if (!rc && merge) {
    rc = rpd_intscan_open(r, &k.sc, links_scan_sql, LCOLS, LINKS_TYPED | RPD_INTSCAN_UNCHANGED);
    if (!rc)
      rc = rpd_prepare(r, link_call_sql, &k.by_link);
    if (!rc)
      rc = rpd_prepare(r, "INSERT INTO an_copylink VALUES (?,?)", &k.copy_link);
    if (!rc)
      rc = links_ahead(r, &k);
    if (!rc)
      rc = links_next(r, &k);
  }
  if (!rc)
    rc = rpd_opclass_prepare_one(rpd_db(r), &fn.cls);
  if (!rc)
    rc = rpd_prepare(r, "SELECT string FROM rocpd_string WHERE id = ?", &fn.desc);
  if (!rc)
    rc = rpd_prepare(r, "INSERT INTO an_copy VALUES (?,?,?,?)", &copy);
  if (!rc && merge && ops_by_ints(r, &rc)) {
    rc = rpd_intscan_open(r, &p.sc, ops_int_sql, OPCOLS, OPS_TYPED | RPD_INTSCAN_UNCHANGED);
    if (!rc)
      rc = rpd_prepare(r, ops_row_sql, &p.row);
  } else if (!rc) {
    rc = rpd_prepare(r, merge ? ops_merge_sql : ops_join_sql, &p.st);
  }
  while (!rc && !k.disorder && (s = ops_next(r, &p, &bad, &o)) > 0) {
    if (merge) {
      if (have_last && o.id == last_id) {
        /* an op id seen again (a view): the same launch, as a join gives */
        o.has_launch = last.has_launch;
        o.launch = last.launch;
        o.api_end = last.api_end;
        o.own = last.own;
      } else if ((rc = links_launch(r, &k, calls, o.id, &o)) || k.disorder) {
        break;
      }
      last_id = o.id;
      last = o;
      have_last = 1;
    } else if (sqlite3_column_type(p.st, 7) != SQLITE_NULL &&
               sqlite3_column_type(p.st, 8) != SQLITE_NULL) {
      o.has_launch = 1;
      o.launch = sqlite3_column_int64(p.st, 7);
      o.api_end = sqlite3_column_int64(p.st, 8);
      o.own = sqlite3_column_int(p.st, 9) != 0;
    }
    rc = scan_op(sc, &fn, &o, copy, merge ? &k : NULL);
  }
  if (!rc && s < 0)
    rc = -s;
  /* the links past the last op: in the orders read too? */
  while (!rc && merge && k.have && !k.disorder)
    rc = links_next(r, &k);
  *redo = !rc && k.disorder;
  if (!rc && !*redo)
    rc = rpd_check_rows_result(&bad, "rocpd_op");
  if (!rc && !*redo)
    rc = an_works_done(sc->work);
  sc->copy_links = merge && !k.api_not_int;
  sqlite3_finalize(p.st);
  rpd_intscan_close(&p.sc);
  sqlite3_finalize(p.row);
  sqlite3_finalize(copy);
  sqlite3_finalize(sh);
  rpd_intscan_close(&k.sc);
  sqlite3_finalize(k.by_link);
  sqlite3_finalize(k.copy_link);
  free(k.api);
  rpd_i64map_free(&k.shared);
  sqlite3_finalize(fn.cls);
  sqlite3_finalize(fn.desc);
  rpd_i64map_free(&fn.cls_of);
  rpd_i64map_free(&fn.comm_of);
  return rc;
}

int an_scan_ops(rpd *r, an_calls *calls, an_scan **out)
{
  an_scan *sc = rpd_xcalloc(1, sizeof *sc);
  int rc, mode = LINKS_JOIN, redo = 0;
  scan_init(sc);
  *out = sc;
  rc = rpd_exec(r, scan_sql);
  if (!rc)
    rc = links_peek(r, &mode);
  if (!rc && !an_calls_in_id_order(calls))
    mode = LINKS_JOIN;
  if (!rc)
    rc = scan_pass(r, sc, calls, mode, &redo);
  /* an order broke after the first links: again, through the GROUP BY,
   * from empty sorts and no copies */
  if (!rc && redo) {
    an_works_free(sc->work);
    an_kernels_free(sc->kern);
    an_queue_free(sc->queue);
    scan_init(sc);
    rc = rpd_exec(r, "DELETE FROM an_copy; DELETE FROM an_copylink");
    if (!rc)
      rc = scan_pass(r, sc, calls, LINKS_JOIN, &redo);
  }
  return rc;
}

int an_launch_stats(rpd *r, an_scan *sc)
{
  return an_kernels_write(r, sc->kern);
}

int an_queue_depth(rpd *r, an_scan *sc)
{
  return an_queue_write(r, sc->queue);
}

int an_scan_copy_links(const an_scan *sc)
{
  return sc->copy_links;
}

int an_scan_work(an_scan *sc, const an_work **w)
{
  return an_works_next(sc->work, w);
}

void an_scan_free(an_scan *sc)
{
  if (!sc)
    return;
  an_works_free(sc->work);
  an_kernels_free(sc->kern);
  an_queue_free(sc->queue);
  free(sc);
}
