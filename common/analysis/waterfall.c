/* waterfall.c - the exclusive split of a GPU span (rpd-diff --waterfall)
 * and the idle-gap rule of rpd-analyze.  See waterfall.h. */
#include <stdlib.h>
#include <string.h>

#include "rpd.h"
#include "waterfall.h"

rpd_idle_cause rpd_idle_classify(int64_t gap_start, int64_t gap_end, int64_t launch,
                                 double kernel_wait_us)
{
  /* the double comparison is rpd-analyze's: the same gaps fall on the
   * same side of a fractional --kernel-wait-us */
  if (launch >= 0 && launch > gap_start)
    return RPD_IDLE_HOST_WAIT;
  if (launch >= 0 && (double)(gap_end - gap_start) <= kernel_wait_us * 1000)
    return RPD_IDLE_KERNEL_WAIT;
  return RPD_IDLE_OTHER;
}

void rpd_wf_init(rpd_wf *w, int ncat, int comm, double kernel_wait_us)
{
  memset(w, 0, sizeof *w);
  w->ncat = ncat;
  w->comm = comm;
  w->kernel_wait_us = kernel_wait_us;
  w->part_ns = rpd_xcalloc((size_t)rpd_wf_nparts(w), sizeof *w->part_ns);
}

int rpd_wf_nparts(const rpd_wf *w)
{
  return RPD_WF_CAT0 + w->ncat + 1;
}

const char *rpd_wf_part_name(const rpd_wf *w, int part, const char *const *cat_names)
{
  static const char *const fixed[] = {"copy", "communication", "idle: host_wait",
                                      "idle: kernel_wait", "idle: other"};
  if (part >= 0 && part < RPD_WF_CAT0)
    return fixed[part];
  if (part >= RPD_WF_CAT0 && part < RPD_WF_CAT0 + w->ncat)
    return cat_names[part - RPD_WF_CAT0];
  return "other kernels";
}

/* The running op that gets the time now: highest priority, then earliest
 * start, then fed first.  -1 when none runs. */
static int winner(const rpd_wf *w)
{
  int best = -1;
  for (int i = 0; i < w->nact; i++) {
    const rpd_wf_active *a = &w->act[i], *b = best >= 0 ? &w->act[best] : NULL;
    if (!b || a->prio > b->prio ||
        (a->prio == b->prio && (a->start < b->start ||
                                (a->start == b->start && a->seq < b->seq))))
      best = i;
  }
  return best;
}

static void key_add(rpd_wf *w, int64_t key, int64_t ns)
{
  int found;
  int64_t *ix = rpd_i64map_ref(&w->keys, key, (int64_t)w->nkeys, &found);
  if (!found) {
    if (w->nkeys == w->keycap) {
      w->keycap = w->keycap ? 2 * w->keycap : 64;
      w->key_ns = rpd_xrealloc(w->key_ns, w->keycap * sizeof *w->key_ns);
      w->key_id = rpd_xrealloc(w->key_id, w->keycap * sizeof *w->key_id);
    }
    w->key_ns[w->nkeys] = 0;
    w->key_id[w->nkeys++] = key;
  }
  w->key_ns[*ix] += ns;
}

/* Account the running ops from cur up to `to` (or until none runs, when
 * to is INT64_MAX), dropping those that end. */
static void advance(rpd_wf *w, int64_t to)
{
  while (w->nact > 0 && w->cur < to) {
    int64_t next = to;
    for (int i = 0; i < w->nact; i++)
      if (w->act[i].end < next)
        next = w->act[i].end;
    const rpd_wf_active *win = &w->act[winner(w)];
    w->part_ns[win->part] += next - w->cur;
    if (win->key >= 0)
      key_add(w, win->key, next - w->cur);
    w->cur = next;
    for (int i = 0; i < w->nact;)
      if (w->act[i].end <= w->cur)
        w->act[i] = w->act[--w->nact];
      else
        i++;
  }
}

int rpd_wf_op(rpd_wf *w, int64_t start, int64_t end, int kind, int cat, int64_t key,
              int64_t launch)
{
  rpd_wf_active a;
  if (end < start)
    end = start;
  if (w->ops == 0) {
    w->first = w->last = w->cur = start;
  } else {
    if (start < w->prev)
      return rpd_seterr(RPD_ERANGE, "ops not in start order (%lld after %lld)",
                        (long long)start, (long long)w->prev);
    advance(w, start);
    if (w->nact == 0 && w->cur < start) {
      /* an idle gap, decided by the op that ends it */
      static const int part[] = {RPD_WF_HOST_WAIT, RPD_WF_KERNEL_WAIT, RPD_WF_IDLE_OTHER};
      w->part_ns[part[rpd_idle_classify(w->cur, start, launch, w->kernel_wait_us)]] +=
          start - w->cur;
      w->gaps++;
      w->cur = start;
    }
  }
  w->ops++;
  w->prev = start;
  if (end > w->last)
    w->last = end;
  if (end == start)
    return RPD_OK;
  a.start = start;
  a.end = end;
  a.seq = w->seq++;
  if (kind != RPD_WF_OP_KERNEL) {
    a.part = RPD_WF_COPY;
    a.prio = 1;
    a.key = -1;
  } else if (cat >= 0 && cat == w->comm) {
    a.part = RPD_WF_COMM;
    a.prio = 2;
    a.key = key;
  } else if (cat >= 0 && cat < w->ncat) {
    a.part = RPD_WF_CAT0 + cat;
    a.prio = 4 + cat;
    a.key = key;
  } else {
    a.part = RPD_WF_CAT0 + w->ncat;
    a.prio = 3;
    a.key = key;
  }
  if (w->nact == w->cap) {
    w->cap = w->cap ? 2 * w->cap : 16;
    w->act = rpd_xrealloc(w->act, (size_t)w->cap * sizeof *w->act);
  }
  w->act[w->nact++] = a;
  return RPD_OK;
}

void rpd_wf_finish(rpd_wf *w)
{
  advance(w, INT64_MAX);
}

int64_t rpd_wf_span(const rpd_wf *w)
{
  return w->ops ? w->last - w->first : 0;
}

int64_t rpd_wf_key_ns(const rpd_wf *w, int64_t key)
{
  int64_t ix;
  return rpd_i64map_get(&w->keys, key, &ix) ? w->key_ns[ix] : 0;
}

void rpd_wf_free(rpd_wf *w)
{
  free(w->part_ns);
  free(w->act);
  free(w->key_ns);
  free(w->key_id);
  rpd_i64map_free(&w->keys);
  memset(w, 0, sizeof *w);
}
