/* queue.c - rpd-analyze's queue depth: each op's +1 and -1 kept in
 * (gpu, queue, time) order -- as streams, one a queue and kind, while each
 * comes in time order, else in a bounded sort -- then the rows of
 * ext_analysis_queue_depth streamed from it into one INSERT ... SELECT. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"

/* One change of a queue's depth, +1 at a launch, -1 at an end, as three
 * words in (gpu, queue, time) order compared as unsigned, so that the
 * buffers are radix-sorted (the changes of many queues interleave: a
 * merge sort mispredicted half its comparisons): w[0] the gpu (a checked
 * op's: 0 .. 2^31-1) and, in its low bit, whether the queue is not NULL
 * (NULL sorts first, as in ORDER BY, and equals NULL, as in GROUP BY);
 * w[1] the queue with its sign bit flipped; w[2] the time (a checked
 * op's: 0 .. 2^62) and, in its low bit, whether the change is +1 (the
 * changes of one time are summed, so their order does not matter). */
typedef struct qev {
  uint64_t w[3];
} qev;

#define QEV_SIGN ((uint64_t)1 << 63)

static int qev_cmp(const void *pa, const void *pb)
{
  const qev *a = pa, *b = pb;
  for (int i = 0; i < 3; i++)
    if (a->w[i] != b->w[i])
      return a->w[i] < b->w[i] ? -1 : 1;
  return 0;
}
XSORT_MERGE_DEFINE(qev_merge, qev, qev_cmp)

/* The changes of a buffer split by queue and kind (+1 or -1: the low bit
 * of w[2]), in the order they came; a queue's launches and ends come in
 * time order (tracers number a queue's ops as they are queued, and a
 * queue runs them in turn), so each part is checked, sorted only when it
 * is not (radix), and each queue's two parts merged.  More than QEV_PARTS
 * parts: the radix sort of the whole buffer. */
#define QEV_PARTS 64

typedef struct qev_part {
  uint64_t w0, w1, kind;
  size_t n, at;                /* records; where they go (then: the end) */
  int sorted;
  uint64_t last;               /* the last record's w[2] */
} qev_part;

static int qev_part_cmp(const void *pa, const void *pb)
{
  const qev_part *a = pa, *b = pb;
  if (a->w0 != b->w0)
    return a->w0 < b->w0 ? -1 : 1;
  if (a->w1 != b->w1)
    return a->w1 < b->w1 ? -1 : 1;
  return a->kind < b->kind ? -1 : a->kind > b->kind;
}

static void qev_sort(void *base, size_t n)
{
  static const uint64_t flip[3] = {0, 0, 0};
  qev *a = base, *t;
  qev_part part[QEV_PARTS];
  unsigned char *idx = rpd_xmalloc(n + 1), order[QEV_PARTS];
  size_t np = 0, p = 0, off = 0;
  for (size_t i = 0; i < n; i++) {
    const qev *e = &a[i];
    if (!np || part[p].w0 != e->w[0] || part[p].w1 != e->w[1] || part[p].kind != (e->w[2] & 1)) {
      for (p = 0; p < np; p++)
        if (part[p].w0 == e->w[0] && part[p].w1 == e->w[1] && part[p].kind == (e->w[2] & 1))
          break;
      if (p == np) {
        if (np == QEV_PARTS) {
          free(idx);
          an_radix_words(base, n, 3, flip);
          return;
        }
        part[np++] = (qev_part){e->w[0], e->w[1], e->w[2] & 1, 0, 0, 1, 0};
      }
    }
    idx[i] = (unsigned char)p;
    part[p].sorted &= !part[p].n || e->w[2] >= part[p].last;
    part[p].last = e->w[2];
    part[p].n++;
  }
  /* the parts in (gpu, queue, kind) order: their places in the buffer */
  an_order_parts(order, np, part, sizeof *part, qev_part_cmp);
  for (size_t k = 0; k < np; k++) {
    part[order[k]].at = off;
    off += part[order[k]].n;
  }
  t = rpd_xmalloc((n + 1) * sizeof *t);
  for (size_t i = 0; i < n; i++)
    t[part[idx[i]].at++] = a[i];
  free(idx);
  /* each part sorted; each queue's parts merged back into the buffer */
  off = 0;
  for (size_t k = 0; k < np; k++) {
    qev_part *x = &part[order[k]], *y = NULL;
    size_t xs = x->at - x->n, ys = 0, ye = 0, i, j, o = off;
    if (!x->sorted)
      an_radix_words(t + xs, x->n, 3, flip);
    if (k + 1 < np && part[order[k + 1]].w0 == x->w0 && part[order[k + 1]].w1 == x->w1) {
      y = &part[order[++k]];
      ys = y->at - y->n;
      ye = y->at;
      if (!y->sorted)
        an_radix_words(t + ys, y->n, 3, flip);
    }
    for (i = xs, j = ys; i < x->at && j < ye;)
      a[o++] = t[j].w[2] < t[i].w[2] ? t[j++] : t[i++];
    while (i < x->at)
      a[o++] = t[i++];
    while (j < ye)
      a[o++] = t[j++];
    off = o;
  }
  free(t);
}

/* Are a and b of the same queue (n = 2), and time (n = 3)? */
static int qev_same(const qev *a, const qev *b, int n)
{
  return a->w[0] == b->w[0] && a->w[1] == b->w[1] && (n < 3 || a->w[2] >> 1 == b->w[2] >> 1);
}

static int64_t qev_time(const qev *e) { return (int64_t)(e->w[2] >> 1); }
static int qev_delta(const qev *e) { return e->w[2] & 1 ? 1 : -1; }

/* The change d at time t of a checked op's gpu and queue (NULL or not). */
static qev qev_of(int64_t gpu, int has_queue, int64_t queue, int64_t t, int d)
{
  qev ev;
  ev.w[0] = (uint64_t)gpu << 1 | (uint64_t)has_queue;
  ev.w[1] = has_queue ? (uint64_t)queue ^ QEV_SIGN : 0;
  ev.w[2] = (uint64_t)t << 1 | (uint64_t)(d > 0);
  return ev;
}

/* The changes as they come: tracers queue a queue's ops in order, so the
 * launches (+1) of a queue come in time order, and its ends (-1) too: each
 * (gpu, queue, kind) is a stream of times kept in order as it comes (8
 * bytes a change, not 24; no sort), in chunks of a buffer written to a
 * scratch file, and the two streams of each queue are merged as they are
 * read.  The first change that comes before the one its stream had last,
 * or a stream past QEV_PARTS, sends every change to the bounded sort
 * (those kept so far read back into it). */
typedef struct qstream {
  uint64_t w0, w1, kind, last;
  uint64_t *buf;               /* the times not yet written (chunk words) */
  size_t n;
  off_t *chunks;               /* where each written chunk starts */
  size_t nchunks, total;
  size_t rd, at, chunk;        /* reading: times in buf, the next; next chunk */
  uint64_t head;               /* reading: the next time, when has */
  int has;
} qstream;

struct an_queue {
  xsort *x;
  int sorting;                 /* every change goes to x */
  qstream s[QEV_PARTS];
  size_t ns, hint, words;      /* streams; the last one used; chunk words */
  int fd;                      /* the scratch file, -1 before a chunk */
  off_t size;
  size_t added, taken;
  /* reading: the streams in (gpu, queue, kind) order, the queue's two */
  unsigned char order[QEV_PARTS];
  size_t next;
  qstream *a, *b;
  qev cur;
};

an_queue *an_queue_new(size_t sort_bytes)
{
  an_queue *q = rpd_xcalloc(1, sizeof *q);
  q->x = xsort_new(sizeof(qev), qev_cmp, qev_sort, sort_bytes);
  xsort_set_merge(q->x, qev_merge);
  /* the chunks of all streams take at most the sort's bytes */
  q->words = xsort_cap_bytes(sort_bytes) / QEV_PARTS / 8;
  if (q->words > 8192)
    q->words = 8192;
  if (q->words < 1)
    q->words = 1;
  q->fd = -1;
  return q;
}

void an_queue_free(an_queue *q)
{
  if (!q)
    return;
  xsort_free(q->x);
  for (size_t i = 0; i < q->ns; i++) {
    free(q->s[i].buf);
    free(q->s[i].chunks);
  }
  if (q->fd >= 0)
    close(q->fd);
  free(q);
}

/* Chunk k of stream st (k < its chunks written; each full but the last)
 * into its buffer. */
static int qs_read_chunk(an_queue *q, qstream *st, size_t k)
{
  size_t n = st->total - k * q->words < q->words ? st->total - k * q->words : q->words;
  int rc = an_scratch_read(q->fd, st->buf, n * 8, st->chunks[k]);
  st->rd = n;
  st->at = 0;
  return rc;
}

/* The buffer of stream st written to the scratch file as one chunk. */
static int qs_write_chunk(an_queue *q, qstream *st)
{
  int rc;
  st->chunks = rpd_xrealloc(st->chunks, (st->nchunks + 1) * sizeof *st->chunks);
  if ((rc = an_scratch_append(&q->fd, &q->size, st->buf, st->n * 8, &st->chunks[st->nchunks])))
    return rc;
  st->nchunks++;
  st->n = 0;
  return RPD_OK;
}

static qev qs_rec(const qstream *st, uint64_t w2)
{
  qev e = {{st->w0, st->w1, w2}};
  return e;
}

/* Every change the streams kept into the sort, the streams let go. */
static int qs_to_sort(an_queue *q)
{
  int rc = RPD_OK;
  q->sorting = 1;
  for (size_t i = 0; i < q->ns; i++) {
    qstream *st = &q->s[i];
    size_t tail = st->n;
    uint64_t *keep = rpd_xmalloc((tail + 1) * 8);
    memcpy(keep, st->buf, tail * 8);
    for (size_t k = 0; !rc && k < st->nchunks; k++)
      if (!(rc = qs_read_chunk(q, st, k)))
        for (size_t j = 0; !rc && j < st->rd; j++) {
          qev e = qs_rec(st, st->buf[j]);
          rc = xsort_add(q->x, &e);
        }
    for (size_t j = 0; !rc && j < tail; j++) {
      qev e = qs_rec(st, keep[j]);
      rc = xsort_add(q->x, &e);
    }
    free(keep);
    free(st->buf);
    free(st->chunks);
    memset(st, 0, sizeof *st);
  }
  q->ns = 0;
  return rc;
}

int an_queue_add(an_queue *q, int64_t gpu, int has_queue, int64_t queue, int64_t t, int d)
{
  qev e = qev_of(gpu, has_queue, queue, t, d);
  qstream *st;
  size_t i;
  q->added++;
  if (q->sorting)
    return xsort_add(q->x, &e);
  st = &q->s[q->hint];
  if (!q->ns || st->w0 != e.w[0] || st->w1 != e.w[1] || st->kind != (e.w[2] & 1)) {
    for (i = 0; i < q->ns; i++)
      if (q->s[i].w0 == e.w[0] && q->s[i].w1 == e.w[1] && q->s[i].kind == (e.w[2] & 1))
        break;
    if (i == q->ns) {
      if (q->ns == QEV_PARTS) {
        int rc = qs_to_sort(q);
        return rc ? rc : xsort_add(q->x, &e);
      }
      q->s[q->ns++] = (qstream){.w0 = e.w[0], .w1 = e.w[1], .kind = e.w[2] & 1,
                                .buf = rpd_xmalloc(q->words * 8)};
    }
    q->hint = i;
    st = &q->s[i];
  }
  if (st->total && e.w[2] < st->last) {
    int rc = qs_to_sort(q);
    return rc ? rc : xsort_add(q->x, &e);
  }
  st->last = e.w[2];
  st->total++;
  st->buf[st->n++] = e.w[2];
  return st->n == q->words ? qs_write_chunk(q, st) : RPD_OK;
}

/* The next time of stream st into st->head (st->has: 0 at its end): 1,
 * 0, or minus an error code. */
static int qs_pull(an_queue *q, qstream *st)
{
  if (st->at == st->rd) {
    int rc;
    if (st->chunk >= st->nchunks)
      return st->has = 0;
    if ((rc = qs_read_chunk(q, st, st->chunk++)))
      return -rc;
  }
  st->head = st->buf[st->at++];
  return st->has = 1;
}

/* Before the first an_queue_next: the streams in (gpu, queue, kind)
 * order, the tail of each written out when it has chunks (else read from
 * its buffer); or the sort done. */
static int an_queue_done(an_queue *q)
{
  qev_part key[QEV_PARTS];
  int rc = RPD_OK;
  if (q->sorting)
    return xsort_done(q->x);
  for (size_t i = 0; i < q->ns; i++) {
    qstream *st = &q->s[i];
    key[i] = (qev_part){.w0 = st->w0, .w1 = st->w1, .kind = st->kind};
    if (st->nchunks && st->n && (rc = qs_write_chunk(q, st)))
      return rc;
    st->rd = st->nchunks ? 0 : st->n;
    st->at = 0;
  }
  an_order_parts(q->order, q->ns, key, sizeof *key, qev_part_cmp);
  return RPD_OK;
}

/* The next change in (gpu, queue, time) order into *p (valid until the
 * next call): 1, 0 at the end, or minus an error code.  A queue's two
 * streams (its ends' times are below its launches' at equal times, as
 * the kind is the low bit) merged by their next times. */
static int an_queue_next(an_queue *q, const void **p)
{
  qstream *st;
  int rc;
  if (q->sorting)
    return an_next_shown(q->x, p, "queue depth");
  an_progress("queue depth", q->taken, q->added);
  while (!q->a || (!q->a->has && (!q->b || !q->b->has))) {
    if (q->next == q->ns)
      return 0;
    q->a = &q->s[q->order[q->next++]];
    q->b = NULL;
    if (q->next < q->ns && q->s[q->order[q->next]].w0 == q->a->w0 &&
        q->s[q->order[q->next]].w1 == q->a->w1)
      q->b = &q->s[q->order[q->next++]];
    if ((rc = qs_pull(q, q->a)) < 0 || (q->b && (rc = qs_pull(q, q->b)) < 0))
      return rc;
  }
  st = q->a->has && (!q->b || !q->b->has || q->a->head < q->b->head) ? q->a : q->b;
  q->cur = qs_rec(st, st->head);
  if ((rc = qs_pull(q, st)) < 0)
    return rc;
  q->taken++;
  *p = &q->cur;
  return 1;
}

/* The rows of ext_analysis_queue_depth, made from the queues' sorted
 * changes as SQLite asks for them: the eponymous virtual table QD_VTAB
 * streams them into one INSERT ... SELECT (a prepared INSERT stepped per
 * row cost twice the whole write). */
#define QD_VTAB "rpd_analyze_queue_depth_rows_"

typedef struct qd_gen {
  an_queue *x;
  const void *p;               /* the next change, when got > 0 */
  int got;                     /* as xsort_next */
  int have, eof, rc;
  qev part, key;               /* the queue of depth; the row's time */
  int64_t depth, row;
  char msg[256];               /* the sort's message when rc is set */
} qd_gen;

/* The next row: every change of the queue at the next time summed, the
 * queue's depth after them; eof at the end, rc on an error. */
static void qd_advance(qd_gen *g)
{
  int64_t d = 0;
  if (g->got < 0) {
    g->eof = 1;
    g->rc = -g->got;
    snprintf(g->msg, sizeof g->msg, "%s", rpd_errmsg());
    return;
  }
  if (g->got == 0) {
    g->eof = 1;
    return;
  }
  g->key = *(const qev *)g->p;
  while (g->got > 0 && qev_same((const qev *)g->p, &g->key, 3)) {
    d += qev_delta((const qev *)g->p);
    g->got = an_queue_next(g->x, &g->p);
  }
  if (g->got < 0) {
    qd_advance(g);   /* the error */
    return;
  }
  if (!g->have || !qev_same(&g->part, &g->key, 2)) {
    g->part = g->key;
    g->depth = 0;
    g->have = 1;
  }
  g->depth += d;
  g->row++;
}

typedef struct qd_vtab {
  sqlite3_vtab base;
  qd_gen *g;
} qd_vtab;

static int qd_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                      sqlite3_vtab **out, char **err)
{
  qd_vtab *v;
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(gpuId, queueId, time_ns, depth)");
  (void)argc, (void)argv, (void)err;
  if (rc != SQLITE_OK)
    return rc;
  if (!(v = sqlite3_malloc(sizeof *v)))
    return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->g = aux;
  *out = &v->base;
  return SQLITE_OK;
}

static int qd_disconnect(sqlite3_vtab *v)
{
  sqlite3_free(v);
  return SQLITE_OK;
}

static int qd_best_index(sqlite3_vtab *v, sqlite3_index_info *ii)
{
  (void)v;
  ii->estimatedCost = 1e6;
  return SQLITE_OK;
}

static int qd_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
  sqlite3_vtab_cursor *c = sqlite3_malloc(sizeof *c);
  (void)v;
  if (!c)
    return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *out = c;
  return SQLITE_OK;
}

static int qd_close(sqlite3_vtab_cursor *c)
{
  sqlite3_free(c);
  return SQLITE_OK;
}

/* One pass only: the rows come from the sort as it is read. */
static int qd_next(sqlite3_vtab_cursor *c)
{
  qd_gen *g = ((qd_vtab *)c->pVtab)->g;
  qd_advance(g);
  return g->rc ? SQLITE_ERROR : SQLITE_OK;
}

static int qd_filter(sqlite3_vtab_cursor *c, int idx, const char *str, int argc,
                     sqlite3_value **argv)
{
  qd_gen *g = ((qd_vtab *)c->pVtab)->g;
  (void)idx, (void)str, (void)argc, (void)argv;
  if (g->row || g->eof)
    return SQLITE_ERROR;   /* a second pass would find the sort used up */
  g->got = an_queue_next(g->x, &g->p);
  return qd_next(c);
}

static int qd_eof(sqlite3_vtab_cursor *c)
{
  return ((qd_vtab *)c->pVtab)->g->eof;
}

static int qd_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col)
{
  const qd_gen *g = ((qd_vtab *)c->pVtab)->g;
  const qev *k = &g->key;
  if (col == 0)
    sqlite3_result_int64(ctx, (int64_t)(k->w[0] >> 1));
  else if (col == 1 && !(k->w[0] & 1))
    sqlite3_result_null(ctx);
  else if (col == 1)
    sqlite3_result_int64(ctx, (int64_t)(k->w[1] ^ QEV_SIGN));
  else if (col == 2)
    sqlite3_result_int64(ctx, qev_time(k));
  else
    sqlite3_result_int64(ctx, g->depth);
  return SQLITE_OK;
}

static int qd_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *rowid)
{
  *rowid = ((qd_vtab *)c->pVtab)->g->row;
  return SQLITE_OK;
}

static const sqlite3_module qd_module = {
  .xConnect = qd_connect,      /* no xCreate: eponymous only */
  .xBestIndex = qd_best_index,
  .xDisconnect = qd_disconnect,
  .xDestroy = qd_disconnect,
  .xOpen = qd_open,
  .xClose = qd_close,
  .xFilter = qd_filter,
  .xNext = qd_next,
  .xEof = qd_eof,
  .xColumn = qd_column,
  .xRowid = qd_rowid,
};

/* Queue depth: +1 at each launch (the op start when it has no api or
 * starts first), -1 at each end; one row per queue and distinct time with
 * the depth after every change at that time.  The op scan put both
 * changes of each op into a bounded sort (xsort.h); the sorted stream is
 * summed per time and run per queue as the insert reads QD_VTAB. */
int an_queue_write(rpd *r, an_queue *x)
{
  qd_gen g;
  int rc;
  memset(&g, 0, sizeof g);
  g.x = x;
  if ((rc = an_queue_done(x)))
    return rc;
  if (sqlite3_create_module(rpd_db(r), QD_VTAB, &qd_module, &g) != SQLITE_OK)
    return rpd_seterr(RPD_ESQL, "cannot register the queue depth's row source: %s",
                      sqlite3_errmsg(rpd_db(r)));
  rc = rpd_exec(r, "INSERT INTO ext_analysis_queue_depth SELECT * FROM " QD_VTAB);
  sqlite3_create_module(rpd_db(r), QD_VTAB, NULL, NULL);
  /* the sort's own error (its message) before SQLite's report of it */
  if (g.rc)
    return rpd_seterr(g.rc, "%s", g.msg);
  return rc;
}

