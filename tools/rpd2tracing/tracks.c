#include "tracing.h"

/* Track layout: every slice goes to a (pid, tid) track on which slices nest
 * strictly, as Perfetto's JSON importer needs.  A slice that would overlap
 * one of its track without nesting goes to the first extra lane track of
 * the same base track where it fits; lanes are numbered in the order they
 * are needed, so the layout depends on the rows alone.
 *
 * Ops (disjoint slices only) keep their start order on a lane (a slice
 * starting before the lane's last start takes another lane), so the check
 * needs only the lane's open ends.
 *
 * Calls and frames nest, and they come in either order: rocpd_api rows are
 * written when a call ends, so a UserMarker range comes after the calls
 * inside it (end order); frames and generated traces come in start order.
 * A nesting lane keeps its outermost slices (disjoint, by start) and the
 * rightmost path down the last of them (its last child, that one's last
 * child, ...).  A slice fits when it is disjoint from the outermost ones,
 * or contains the ones it overlaps (it becomes their parent: end order), or
 * lies inside the last one and to the right of or inside each slice of the
 * path (start order).  Anything the lane cannot decide from what it keeps
 * takes another lane, so a lane never holds a crossing.  A slice that
 * starts with one it would contain takes another lane too: the readers
 * sort by start, ties in file order, and would open the child first. */

/* A slice's time range. */
typedef struct span {
  int64_t s, e;
} span;

/* Outermost slices a nesting lane keeps at most: beyond it the older half
 * is forgotten and nothing starting before their end fits any more. */
#define LANE_TOPS_MAX 4096

/* One lane: its tid and, for ops, the ends of its open slices (a stack)
 * and its last start; for calls and frames, the outermost slices, the
 * path down the last one, and the time before which it fits nothing. */
typedef struct lane {
  int64_t *ends;
  uint32_t depth, cap;
  int64_t last_start;
  span *top, *path;
  uint32_t ntop, topcap, npath, pathcap;
  int64_t floor;
  int64_t tid;
  size_t info;          /* index in layout.tracks */
} lane;

typedef struct base_track {
  lane *lanes;
  size_t n;
} base_track;

uint8_t op_class_of(int cls) {
  switch (cls) {
  case RPD_OPCLASS_KERNEL: return OPC_KERNEL;
  case RPD_OPCLASS_COPY: return OPC_COPY;
  case RPD_OPCLASS_BARRIER: return OPC_BARRIER;
  default: return OPC_OTHER;
  }
}

const char *op_class_name(uint8_t cls) {
  static const char *const names[] = {"kernel", "copy", "barrier", "other"};
  return cls < 4 ? names[cls] : "other";
}

void layout_init(layout *l, int64_t first_tid) {
  memset(l, 0, sizeof *l);
  l->next_tid = first_tid;
  l->last = (size_t)-1;
}

/* 1 when [start, end] fits on an op lane (popping the slices that ended). */
static int lane_fits(lane *ln, int64_t start) {
  if (ln->depth && start < ln->last_start) return 0;
  while (ln->depth && ln->ends[ln->depth - 1] <= start) ln->depth--;
  return !ln->depth;
}

static void span_room(span **v, uint32_t *cap, uint32_t need) {
  if (need <= *cap) return;
  *cap = *cap ? *cap * 2 : 8;
  if (*cap < need) *cap = need;
  *v = rpd_xrealloc(*v, *cap * sizeof **v);
}

/* Put [s, e] on the path at depth d (the last child of path[d - 1], or of
 * the last outermost slice when d is 0), dropping what was below. */
static void path_put(lane *ln, uint32_t d, int64_t s, int64_t e) {
  span_room(&ln->path, &ln->pathcap, d + 1);
  ln->path[d] = (span){s, e};
  ln->npath = d + 1;
}

/* [s, e] inside the last outermost slice: 1 and added when it is to the
 * right of or inside each slice of the path, else 0 (unknown: another
 * lane). */
static int path_fits(lane *ln, int64_t s, int64_t e) {
  for (uint32_t d = 0;; d++) {
    if (d == ln->npath) {
      path_put(ln, d, s, e);
      return 1;
    }
    const span *c = &ln->path[d];
    if (c->e <= s) {   /* after it: the new last child */
      path_put(ln, d, s, e);
      return 1;
    }
    if (!(c->s <= s && e <= c->e)) return 0;
  }
}

/* 1 and [s, e] added when it fits on a nesting lane (see the top). */
static int nest_fits(lane *ln, int64_t s, int64_t e) {
  uint32_t n = ln->ntop, i, j, lo = 0, hi = n;
  span *t = ln->top;
  if (s < ln->floor) return 0;
  /* i: the first outermost slice ending after s.  A few steps back from
   * the end first: in end order the slices a range contains are the last
   * ones (and go), in start order most calls come after the last one */
  for (i = n; i > 0 && n - i < 8 && t[i - 1].e > s; i--) {}
  if (i == 0 || t[i - 1].e <= s) lo = hi = i;
  else hi = i;
  while (lo < hi) {
    uint32_t m = lo + (hi - lo) / 2;
    if (t[m].e > s) hi = m;
    else lo = m + 1;
  }
  i = lo;
  for (j = i; j < n && t[j].s < e; j++) {}
  if (j == i) {   /* disjoint from all: a new outermost slice */
    span_room(&ln->top, &ln->topcap, n + 1);
    t = ln->top;
    memmove(t + i + 1, t + i, (n - i) * sizeof *t);
    t[i] = (span){s, e};
    ln->ntop = ++n;
    if (i == n - 1) ln->npath = 0;
  } else if (j == i + 1 && t[i].s <= s && e <= t[i].e) {   /* inside one */
    if (i != n - 1 || !path_fits(ln, s, e)) return 0;
  } else {   /* it must contain every one it overlaps */
    if (t[i].s < s || t[j - 1].e > e || (t[i].s == s && t[i].e > s)) return 0;
    span last = t[j - 1];
    if (j == n) {   /* the last one becomes its last child */
      span_room(&ln->path, &ln->pathcap, ln->npath + 1);
      memmove(ln->path + 1, ln->path, ln->npath * sizeof *ln->path);
      ln->path[0] = last;
      ln->npath++;
    }
    t[i] = (span){s, e};
    memmove(t + i + 1, t + j, (n - j) * sizeof *t);
    ln->ntop = n -= j - i - 1;
  }
  if (n > LANE_TOPS_MAX) {   /* forget the older half */
    uint32_t k = n / 2;
    ln->floor = ln->top[k - 1].e;
    memmove(ln->top, ln->top + k, (n - k) * sizeof *ln->top);
    ln->ntop = n - k;
  }
  return 1;
}

static void lane_push(lane *ln, int64_t start, int64_t end) {
  if (ln->depth == ln->cap) {
    ln->cap = ln->cap ? ln->cap * 2 : 4;
    ln->ends = rpd_xrealloc(ln->ends, ln->cap * sizeof *ln->ends);
  }
  ln->ends[ln->depth++] = end;
  ln->last_start = start;
}

/* Remember a track for its name ("M" events, track descriptors). */
static void layout_register(layout *l, int kind, int64_t pid, int64_t base, int64_t tid,
                            uint32_t lane_no) {
  if (l->ntracks == l->trcap) {
    l->trcap = l->trcap ? l->trcap * 2 : 16;
    l->tracks = rpd_xrealloc(l->tracks, l->trcap * sizeof *l->tracks);
  }
  l->tracks[l->ntracks++] = (track_info){pid, tid, base, kind, lane_no};
}

/* The tid of lane 0 of a base track: the base itself for api calls and
 * ops, tid + 1 for HSA calls (as the reference), a new tid for the others
 * (graph and marker frames have tracks of their own). */
static int64_t lane_tid(layout *l, int kind, int64_t base, size_t lane_no) {
  if (lane_no == 0 && (kind == TRACK_API || kind == TRACK_OP)) return base;
  if (lane_no == 0 && kind == TRACK_HSA) return base + 1;
  return l->next_tid++;
}

const track_info *layout_place(layout *l, int kind, int64_t pid, int64_t base, int64_t start,
                               int64_t end) {
  size_t k, i;
  if (end < start) end = start;
  if (l->last != (size_t)-1 && l->last_kind == kind && l->last_pid == pid &&
      l->last_base == base) {
    k = l->last;
  } else {
    /* kind folded into the key's high bits: one map for all kinds */
    k = pair_get(&l->keys, pid, (int64_t)((uint64_t)base ^ ((uint64_t)kind << 56)));
    if (k >= l->nbase) {
      l->base = rpd_xrealloc(l->base, (k + 1) * sizeof *l->base);
      for (; l->nbase <= k; l->nbase++) l->base[l->nbase] = (base_track){0};
    }
    l->last = k;
    l->last_kind = kind;
    l->last_pid = pid;
    l->last_base = base;
  }
  base_track *bt = &l->base[k];
  int nest = kind != TRACK_OP;
  for (i = 0; i < bt->n; i++)
    if (nest ? nest_fits(&bt->lanes[i], start, end) : lane_fits(&bt->lanes[i], start))
      break;
  if (i == bt->n) {
    bt->lanes = rpd_xrealloc(bt->lanes, (bt->n + 1) * sizeof *bt->lanes);
    bt->lanes[i] = (lane){.tid = lane_tid(l, kind, base, i), .info = l->ntracks,
                          .floor = INT64_MIN};
    bt->n++;
    layout_register(l, kind, pid, base, bt->lanes[i].tid, (uint32_t)i);
    if (nest) nest_fits(&bt->lanes[i], start, end);
  }
  if (!nest) lane_push(&bt->lanes[i], start, end);
  return &l->tracks[bt->lanes[i].info];
}

void layout_free(layout *l) {
  for (size_t k = 0; k < l->nbase; k++) {
    for (size_t i = 0; i < l->base[k].n; i++) {
      free(l->base[k].lanes[i].ends);
      free(l->base[k].lanes[i].top);
      free(l->base[k].lanes[i].path);
    }
    free(l->base[k].lanes);
  }
  free(l->base);
  free(l->tracks);
  pair_free(&l->keys);
  memset(l, 0, sizeof *l);
}

/* The name of a track: "Queue 3", "Queue 3 (2)" for its third lane,
 * "Graphs 3", "Markers 3", "Hip 1234 (2)", "HSA 1234 (2)". */
void track_name(const track_info *t, char *buf, size_t n) {
  static const char *const kinds[] = {"Hip", "HSA", "Queue", "Graphs", "Markers"};
  const char *what = t->kind >= 0 && t->kind < TRACK_KINDS ? kinds[t->kind] : "Track";
  if (t->lane)
    snprintf(buf, n, "%s %lld (%u)", what, (long long)t->base, t->lane + 1);
  else
    snprintf(buf, n, "%s %lld", what, (long long)t->base);
}

/* ------------------------------------------------------------ id -> tid */

static size_t id_hash(int64_t id) {
  uint64_t h = (uint64_t)id * 0x9E3779B97F4A7C15ull;
  return (size_t)(h ^ (h >> 31));
}

void idmap_put(idmap *m, int64_t key, int64_t val) {
  size_t j;
  if (2 * (m->n + 1) > m->cap) {
    size_t ncap = m->cap ? m->cap * 2 : 64;
    int64_t *nk = rpd_xmalloc(ncap * sizeof *nk), *nv = rpd_xmalloc(ncap * sizeof *nv);
    uint8_t *nu = rpd_xcalloc(ncap, 1);
    for (size_t i = 0; i < m->cap; i++) {
      if (!m->used[i]) continue;
      j = id_hash(m->key[i]) & (ncap - 1);
      while (nu[j]) j = (j + 1) & (ncap - 1);
      nu[j] = 1;
      nk[j] = m->key[i];
      nv[j] = m->val[i];
    }
    free(m->key);
    free(m->val);
    free(m->used);
    m->key = nk;
    m->val = nv;
    m->used = nu;
    m->cap = ncap;
  }
  j = id_hash(key) & (m->cap - 1);
  while (m->used[j] && m->key[j] != key) j = (j + 1) & (m->cap - 1);
  if (!m->used[j]) m->n++;
  m->used[j] = 1;
  m->key[j] = key;
  m->val[j] = val;
}

int idmap_get(const idmap *m, int64_t key, int64_t *val) {
  if (!m->cap) return 0;
  size_t j = id_hash(key) & (m->cap - 1);
  while (m->used[j]) {
    if (m->key[j] == key) {
      *val = m->val[j];
      return 1;
    }
    j = (j + 1) & (m->cap - 1);
  }
  return 0;
}

void idmap_free(idmap *m) {
  free(m->key);
  free(m->val);
  free(m->used);
  memset(m, 0, sizeof *m);
}
