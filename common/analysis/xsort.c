/* xsort.c - sort in bounded memory: sorted runs in a scratch file merged
 * back through a tree of losers (xsort.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpd.h"
#include "xsort.h"

#define READ_BYTES (64 * 1024)   /* read buffer of one run, at most */
#define PACK_BYTES (64 * 1024)   /* words: the packed bytes written at once */
#define VARINT_MAX 10            /* bytes of a 64-bit number, 7 bits a byte */

/* One sorted run of the scratch file and its read position. */
typedef struct run {
  off_t pos, end;              /* next byte to read, end of the run */
  char *buf;
  size_t have, at;             /* bytes in buf, next record in buf */
  uint64_t cur;                /* words: the last word read */
} run;

struct xsort {
  size_t rec, cap;             /* record size, records the buffer holds */
  xsort_cmp cmp;
  xsort_fn sort;
  char *buf;
  size_t n, next;              /* records in buf, next one to return */
  int fd;                      /* the scratch file, -1 before a spill */
  off_t size;
  run *runs;
  size_t nruns;
  /* merging: each run's next record (NULL at its end), the tree of
   * losers over them (tree[0] the run of the record returned next) */
  const void **head;
  size_t *tree;
  xsort_merge_fn merge;
  int words;                   /* records are uint64 words (xsort_set_words) */
  uint64_t *key;               /* words: the word of each run of tree */
  unsigned char *pack;         /* words: a run's bytes before they are written */
  int merging;
  size_t read;                 /* bytes of a run's read buffer (records) */
  size_t added, taken;
};

size_t xsort_cap_bytes(size_t dflt)
{
  const char *e = getenv("RPD_ANALYZE_SORT_BYTES");
  char *end;
  unsigned long long v;
  if (!e || !*e || *e == '-')
    return dflt;
  errno = 0;
  v = strtoull(e, &end, 10);
  return errno || *end || v == 0 ? dflt : (size_t)v;
}

xsort *xsort_new(size_t rec, xsort_cmp cmp, xsort_fn sort, size_t cap)
{
  xsort *x = rpd_xcalloc(1, sizeof *x);
  x->rec = rec;
  x->cmp = cmp;
  x->sort = sort;
  x->cap = xsort_cap_bytes(cap) / rec;
  if (x->cap < 1)
    x->cap = 1;
  x->fd = -1;
  return x;
}

void xsort_set_merge(xsort *x, xsort_merge_fn merge)
{
  x->merge = merge;
}

void xsort_set_words(xsort *x)
{
  if (x->rec == sizeof(uint64_t))
    x->words = 1;
}

/* In a merge of words, a run at its end: tree[i] carries the bit, its key
 * is the largest word, so that (key, run with the bit) orders it last. */
#define DEAD ((size_t)1 << (sizeof(size_t) * 8 - 1))

/* The merge's step of words: the matches of the run of tree[0] (whose
 * head has moved on) played again up to the root on (word, run) held in
 * the tree, the winner picked by masks (no call, no branch: which run
 * wins is a coin's toss when records come in no order). */
static void replay_words(xsort *x)
{
  size_t r = x->tree[0] & ~DEAD, cur = r, *tree = x->tree;
  uint64_t ck = UINT64_MAX, *key = x->key;
  if (x->head[r])
    ck = *(const uint64_t *)x->head[r];
  else
    cur |= DEAD;
  for (size_t i = (x->nruns + r) >> 1; i; i >>= 1) {
    uint64_t tk = key[i];
    size_t tr = tree[i];
    int up = (tk < ck) | ((tk == ck) & (tr < cur));
    uint64_t mk = (uint64_t)0 - (uint64_t)up;
    size_t m = (size_t)0 - (size_t)up;
    key[i] = (ck & mk) | (tk & ~mk);
    tree[i] = (cur & m) | (tr & ~m);
    ck = (tk & mk) | (ck & ~mk);
    cur = (tr & m) | (cur & ~m);
  }
  key[0] = ck;
  tree[0] = cur;
}

/* The merge's step with the sorter's cmp through its pointer (a sorter
 * without a merge of its own). */
#define CALL_CMP(a, b) x->cmp(a, b)
static size_t replay_cmp(xsort *x)
{
  XSORT__REPLAY(x->head, x->tree, x->nruns, CALL_CMP);
}
#undef CALL_CMP

/* Run a's record before run b's: the merge's order (a run at its end
 * last, equal records in run order). */
static int run_before(const xsort *x, size_t a, size_t b)
{
  int c;
  if (!x->head[a] || !x->head[b])
    return x->head[a] ? 1 : x->head[b] ? 0 : a < b;
  if (x->words) {
    uint64_t u = *(const uint64_t *)x->head[a], v = *(const uint64_t *)x->head[b];
    return u < v || (u == v && a < b);
  }
  c = x->cmp(x->head[a], x->head[b]);
  return c < 0 || (c == 0 && a < b);
}

/* The tree of losers over the runs' first records, its matches played
 * from the leaves up (leaf r at k + r, node i above 2i and 2i + 1). */
static void tree_build(xsort *x)
{
  size_t k = x->nruns, *win = rpd_xmalloc(2 * k * sizeof *win);
  x->tree = rpd_xcalloc(k, sizeof *x->tree);
  for (size_t r = 0; r < k; r++)
    win[k + r] = r;
  for (size_t i = k - 1; i >= 1; i--) {
    size_t a = win[2 * i], b = win[2 * i + 1];
    int first = run_before(x, a, b);
    win[i] = first ? a : b;
    x->tree[i] = first ? b : a;
  }
  x->tree[0] = k > 1 ? win[1] : 0;
  free(win);
  if (x->words) {
    /* each node's word, or the mark of a run at its end */
    x->key = rpd_xmalloc(k * sizeof *x->key);
    for (size_t i = 0; i < k; i++) {
      size_t r = x->tree[i];
      x->key[i] = x->head[r] ? *(const uint64_t *)x->head[r] : UINT64_MAX;
      if (!x->head[r])
        x->tree[i] |= DEAD;
    }
  }
}

static int io_error(const char *what)
{
  return rpd_seterr(RPD_EIO, "cannot %s the sort's scratch file: %s", what,
                    strerror(errno ? errno : EIO));
}

/* Sort the n records of the buffer. */
static void sort_buf(xsort *x)
{
  if (x->sort)
    x->sort(x->buf, x->n);
  else
    qsort(x->buf, x->n, x->rec, x->cmp);
}

/* Words (xsort_set_words) go to the scratch file packed: each the
 * difference from the word before it in its run (the first: from 0), 7
 * bits a byte, the high bit set on every byte but the last (a run is
 * sorted, so the differences are small: a kernel's values take a byte or
 * two, not eight).  The n words at w appended at *at; RPD_OK or an error. */
static int write_words(xsort *x, const uint64_t *w, size_t n, off_t *at)
{
  size_t o = 0;
  uint64_t prev = 0;
  if (!x->pack)
    x->pack = rpd_xmalloc(PACK_BYTES + VARINT_MAX);
  for (size_t i = 0; i < n; i++) {
    uint64_t d = w[i] - prev;
    prev = w[i];
    while (d >= 0x80) {
      x->pack[o++] = (unsigned char)(d | 0x80);
      d >>= 7;
    }
    x->pack[o++] = (unsigned char)d;
    if (o >= PACK_BYTES || i + 1 == n) {
      if (rpd_pwrite_full(x->fd, x->pack, o, *at))
        return io_error("write");
      *at += (off_t)o;
      o = 0;
    }
  }
  return RPD_OK;
}

/* Sort the buffer and append it to the scratch file as one run. */
static int spill(xsort *x)
{
  off_t end = x->size + (off_t)(x->n * x->rec);
  int rc;
  sort_buf(x);
  if (x->fd < 0 && (x->fd = rpd_scratch_fd()) < 0)
    return io_error("create");
  if (x->words) {
    end = x->size;
    if ((rc = write_words(x, (const uint64_t *)x->buf, x->n, &end)))
      return rc;
  } else if (rpd_pwrite_full(x->fd, x->buf, x->n * x->rec, x->size)) {
    return io_error("write");
  }
  x->runs = rpd_xrealloc(x->runs, (x->nruns + 1) * sizeof *x->runs);
  memset(&x->runs[x->nruns], 0, sizeof *x->runs);
  x->runs[x->nruns].pos = x->size;
  x->runs[x->nruns].end = end;
  x->nruns++;
  x->size = end;
  x->n = 0;
  return RPD_OK;
}

int xsort_add(xsort *x, const void *rec)
{
  if (!x->buf)
    x->buf = rpd_xmalloc(x->cap * x->rec);
  if (x->n == x->cap) {
    int rc = spill(x);
    if (rc)
      return rc;
  }
  /* a copy of a size the compiler knows inlines (words: a call each) */
  if (x->rec == sizeof(uint64_t))
    memcpy(x->buf + x->n * sizeof(uint64_t), rec, sizeof(uint64_t));
  else
    memcpy(x->buf + x->n * x->rec, rec, x->rec);
  x->n++;
  x->added++;
  return RPD_OK;
}

/* The next word of run k (packed, write_words) into its cur, reading on
 * when fewer bytes than a whole number's are left in its buffer; NULL at
 * its end or on an error (*rc set). */
static const char *run_word(xsort *x, size_t k, int *rc)
{
  run *ru = &x->runs[k];
  const unsigned char *p;
  uint64_t d = 0;
  size_t i = 0;
  if (ru->have - ru->at < VARINT_MAX && ru->pos < ru->end) {
    size_t keep = ru->have - ru->at, want = x->read - keep;
    if ((off_t)want > ru->end - ru->pos)
      want = (size_t)(ru->end - ru->pos);
    if (!ru->buf)
      ru->buf = rpd_xmalloc(x->read);
    memmove(ru->buf, ru->buf + ru->at, keep);
    if (rpd_pread_full(x->fd, ru->buf + keep, want, ru->pos)) {
      *rc = io_error("read");
      return NULL;
    }
    ru->pos += (off_t)want;
    ru->have = keep + want;
    ru->at = 0;
  }
  if (ru->at == ru->have)
    return NULL;
  p = (const unsigned char *)ru->buf + ru->at;
  for (;;) {
    if (ru->at + i == ru->have || i == VARINT_MAX) {
      *rc = rpd_seterr(RPD_EIO, "the sort's scratch file holds a broken run");
      return NULL;
    }
    d |= (uint64_t)(p[i] & 0x7f) << (7 * i);
    if (!(p[i++] & 0x80))
      break;
  }
  ru->at += i;
  ru->cur += d;
  return (const char *)&ru->cur;
}

/* The next record of run k, reading on when its buffer is used up; NULL at
 * its end or on an error (*rc set). */
static const char *run_rec(xsort *x, size_t k, int *rc)
{
  run *ru = &x->runs[k];
  if (x->words)
    return run_word(x, k, rc);
  if (ru->at + x->rec > ru->have) {
    size_t want = x->read;
    if ((off_t)want > ru->end - ru->pos)
      want = (size_t)(ru->end - ru->pos);
    if (want == 0)
      return NULL;
    if (!ru->buf)
      ru->buf = rpd_xmalloc(x->read);
    if (rpd_pread_full(x->fd, ru->buf, want, ru->pos)) {
      *rc = io_error("read");
      return NULL;
    }
    ru->pos += (off_t)want;
    ru->have = want;
    ru->at = 0;
  }
  ru->at += x->rec;
  return ru->buf + ru->at - x->rec;
}

int xsort_done(xsort *x)
{
  int rc = RPD_OK;
  if (!x->nruns) {
    if (x->n)
      sort_buf(x);
    return RPD_OK;
  }
  /* spilled: the rest is one more run, and the buffer goes */
  if (x->n && (rc = spill(x)))
    return rc;
  free(x->buf);
  x->buf = NULL;
  x->merging = 1;
  /* the runs' read buffers together take at most the sort buffer's bytes
   * (whatever the number of runs), each at least one record */
  x->read = x->cap * x->rec / x->nruns;
  if (x->read > READ_BYTES)
    x->read = READ_BYTES;
  x->read = x->read / x->rec * x->rec;
  if (x->read < x->rec)
    x->read = x->rec;
  /* words: packed, read whole numbers at a time (two at least) */
  if (x->words && x->read < 2 * VARINT_MAX)
    x->read = 2 * VARINT_MAX;
  free(x->pack);
  x->pack = NULL;
  x->head = rpd_xcalloc(x->nruns, sizeof *x->head);
  for (size_t k = 0; k < x->nruns; k++) {
    x->head[k] = run_rec(x, k, &rc);
    if (rc)
      return rc;
  }
  tree_build(x);
  return RPD_OK;
}

int xsort_next(xsort *x, const void **rec)
{
  int rc = RPD_OK;
  if (!x->merging) {
    if (x->next >= x->n)
      return 0;
    *rec = x->buf + x->next++ * x->rec;
    x->taken++;
    return 1;
  }
  /* the record returned last time is still in its run's buffer: advance
   * that run now, before handing out the new winner */
  if (x->next) {
    size_t k = x->tree[0] & ~DEAD;
    if (!x->head[k])
      return 0;
    x->head[k] = run_rec(x, k, &rc);
    if (rc)
      return -rc;
    if (x->words)
      replay_words(x);
    else if (x->merge)
      x->merge(x->head, x->tree, x->nruns);
    else
      replay_cmp(x);
  }
  x->next = 1;
  if (!(*rec = x->head[x->tree[0] & ~DEAD]))
    return 0;
  x->taken++;
  return 1;
}

size_t xsort_runs(const xsort *x)
{
  return x->nruns;
}

size_t xsort_scratch_bytes(const xsort *x)
{
  return (size_t)x->size;
}

size_t xsort_added(const xsort *x)
{
  return x->added;
}

size_t xsort_taken(const xsort *x)
{
  return x->taken;
}

void xsort_free(xsort *x)
{
  if (!x)
    return;
  free(x->buf);
  for (size_t k = 0; k < x->nruns; k++)
    free(x->runs[k].buf);
  free(x->runs);
  free(x->head);
  free(x->tree);
  free(x->key);
  free(x->pack);
  if (x->fd >= 0)
    close(x->fd);
  free(x);
}
