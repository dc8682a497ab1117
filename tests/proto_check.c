/* proto_check - read back a Perfetto protobuf trace (plain or .gz) written
 * by rpd2tracing, with its own wire decoder for the subset of
 * tests/proto/perfetto_trace.proto, and print the facts the tests compare
 * with json_check's output of the same trace:
 *
 *   proto_check FILE
 *
 *   packets N                     TracePackets
 *   cat X/CAT N                   slices (BEGIN with its END) per category
 *   cat i/CAT N                   instant events per category
 *   counter PID NAME N            counter points per process and series name
 *   tsrange X/CAT MIN MAX         first and last start (us, 3 decimals)
 *   flows N                       flow ids started (flow_ids)
 *   flow_unmatched N              started and never ended (an end without
 *                                 a start is ignored, as Perfetto does:
 *                                 every op slice ends its id's flow)
 *   nesting N                     slices overlapping an earlier one of their
 *                                 track without nesting in it
 *   unnamed N                     tracks with events but no name, or whose
 *                                 process has no name
 *   bad N                         events on undescribed tracks, unknown
 *                                 iids, END without BEGIN, BEGIN without END,
 *                                 timestamps on an undefined clock
 * Timestamps are resolved as Perfetto does: a packet's timestamp is on its
 * timestamp_clock_id, or its sequence's TracePacketDefaults clock; clock 64
 * defined by the sequence's ClockSnapshot as incremental means deltas.  An
 * event without track_uuid is on its sequence's TrackEventDefaults track;
 * an END closes the last open slice of its track in time order.
 * With --events OUT, every event as one line into OUT (unsorted), the same
 * lines as json_check --events gives for the JSON of the same trace:
 *   X CAT TS DUR PROCESS/TRACK<tab>NAME<tab>KEY=VALUE;   (ns; tab, newline,
 *   i CAT TS PROCESS/TRACK<tab>NAME<tab>KEY=VALUE;        backslash escaped)
 *   C PID SERIES TS VALUE
 *   F TS PROCESS/TRACK -> TS PROCESS/TRACK                a flow's two ends,
 *     each as the start of the slice it binds to (the deepest of its track
 *     open at the point: for a flow on a slice's begin, that slice), or
 *     loose@TS when none is open; with --events also
 *   flow_loose N                  flow points that bind to no slice
 * Exit 0 when the file decodes, 1 (message on stderr) when not. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define EVLINE_PROG "proto_check"
#include "evline.h"

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) { fputs("proto_check: out of memory\n", stderr); exit(2); }
  return p;
}

static int fail(const char *why) {
  fprintf(stderr, "proto_check: %s\n", why);
  exit(1);
}

/* ------------------------------------------------------------ wire */

typedef struct rd {
  const uint8_t *p, *end;
} rd;

static uint64_t varint(rd *r) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (r->p >= r->end) fail("truncated varint");
    uint8_t b = *r->p++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  fail("varint too long");
  return 0;
}

/* The next field: its number, wire type, and value (varint/fixed) or
 * bytes (len). 0 at the end. */
static int next(rd *r, unsigned *field, unsigned *wt, uint64_t *v, rd *sub) {
  if (r->p >= r->end) return 0;
  uint64_t key = varint(r);
  *field = (unsigned)(key >> 3);
  *wt = (unsigned)(key & 7);
  switch (*wt) {
  case 0: *v = varint(r); break;
  case 1:
    if (r->end - r->p < 8) fail("truncated fixed64");
    *v = 0;
    for (int i = 0; i < 8; i++) *v |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8;
    break;
  case 2: {
    uint64_t n = varint(r);
    if ((uint64_t)(r->end - r->p) < n) fail("truncated length-delimited field");
    sub->p = r->p;
    sub->end = r->p + n;
    r->p += n;
    break;
  }
  case 5:
    if (r->end - r->p < 4) fail("truncated fixed32");
    r->p += 4;
    break;
  default: fail("bad wire type");
  }
  return 1;
}

static char *dup_rd(rd s) {
  size_t n = (size_t)(s.end - s.p);
  char *d = xrealloc(NULL, n + 1);
  memcpy(d, s.p, n);
  d[n] = 0;
  return d;
}

/* ------------------------------------------------------------ state */

typedef struct strs { char **v; size_t n; } strs;   /* iid -> text */

static void strs_set(strs *s, uint64_t iid, char *t) {
  if (iid > 100000000) fail("iid too large");
  if (iid >= s->n) {
    s->v = xrealloc(s->v, (iid + 1) * sizeof *s->v);
    memset(s->v + s->n, 0, (iid + 1 - s->n) * sizeof *s->v);
    s->n = iid + 1;
  }
  free(s->v[iid]);
  s->v[iid] = t;
}

static const char *strs_get(strs *s, uint64_t iid) { return iid < s->n ? s->v[iid] : NULL; }

/* A packet sequence: its interning, its incremental clock (id 64, defined
 * by a ClockSnapshot: value, and the BOOTTIME offset), its defaults. */
typedef struct seqstate {
  uint32_t id;
  strs cats, names, anns, values;
  int has_inc;
  long long inc, inc_off;
  uint64_t def_clock, def_track;
} seqstate;

typedef struct track {
  uint64_t uuid, parent;
  char *name;
  long long pid;
  int is_process, is_thread, is_counter, used;
} track;

/* A BEGIN or END; ev: its event line + 1 (0: none). */
typedef struct slice { uint64_t uuid; long long ts, end; size_t order; int is_end; size_t ev; } slice;

/* --events: one line per event, its track resolved at the end. */
typedef struct evline { char kind; char *cat, *name, *args; long long ts, dur; uint64_t uuid; } evline;

/* One end of a flow: its id, time and track. */
typedef struct fpoint { uint64_t id; long long ts; uint64_t uuid; long long bound; } fpoint;
typedef struct fpoints { fpoint *v; size_t n, cap; } fpoints;


typedef struct tally { char *key; long long n, min, max; } tally;

static struct {
  seqstate *seqs; size_t nseqs;
  track *tracks; size_t ntracks;
  slice *slices; size_t nslices;
  tally *tallies; size_t ntallies;
  uint64_t *fstart, *fend; size_t nfs, nfe;
  long long packets, bad;
  FILE *events;             /* --events */
  evline *evs; size_t nevs, evcap;
  fpoints fsp, fep;
  size_t nbegins;            /* after nesting(): the begins first */
  long long loose;          /* --events: flow points on no slice */
} S;

static void flow_point(fpoints *f, uint64_t id, long long ts, uint64_t uuid) {
  if (!S.events) return;
  if (f->n == f->cap) f->v = xrealloc(f->v, (f->cap = f->cap ? f->cap * 2 : 256) * sizeof *f->v);
  f->v[f->n++] = (fpoint){id, ts, uuid, 0};
}

static char *dupz(const char *t, size_t n) {
  char *d = xrealloc(NULL, n + 1);
  memcpy(d, t, n);
  d[n] = 0;
  return d;
}

static void add_ev(char kind, const char *cat, long long ts, uint64_t uuid, const char *name,
                   const char *args, size_t nargs) {
  if (S.nevs == S.evcap) S.evs = xrealloc(S.evs, (S.evcap = S.evcap ? S.evcap * 2 : 1024) * sizeof *S.evs);
  S.evs[S.nevs++] = (evline){kind, strdup(cat), strdup(name), dupz(args, nargs), ts, 0, uuid};
}

static seqstate *seq_get(uint32_t id) {
  for (size_t i = 0; i < S.nseqs; i++)
    if (S.seqs[i].id == id) return &S.seqs[i];
  S.seqs = xrealloc(S.seqs, (S.nseqs + 1) * sizeof *S.seqs);
  memset(&S.seqs[S.nseqs], 0, sizeof *S.seqs);
  S.seqs[S.nseqs].id = id;
  return &S.seqs[S.nseqs++];
}

static track *track_get(uint64_t uuid, int create) {
  for (size_t i = S.ntracks; i-- > 0;)
    if (S.tracks[i].uuid == uuid) return &S.tracks[i];
  if (!create) return NULL;
  S.tracks = xrealloc(S.tracks, (S.ntracks + 1) * sizeof *S.tracks);
  memset(&S.tracks[S.ntracks], 0, sizeof *S.tracks);
  S.tracks[S.ntracks].uuid = uuid;
  return &S.tracks[S.ntracks++];
}

static tally *tally_get(const char *key) {
  for (size_t i = 0; i < S.ntallies; i++)
    if (!strcmp(S.tallies[i].key, key)) return &S.tallies[i];
  S.tallies = xrealloc(S.tallies, (S.ntallies + 1) * sizeof *S.tallies);
  S.tallies[S.ntallies] = (tally){strdup(key), 0, 0, 0};
  return &S.tallies[S.ntallies++];
}

static void count(const char *key, long long ts) {
  tally *t = tally_get(key);
  if (!t->n || ts < t->min) t->min = ts;
  if (!t->n || ts > t->max) t->max = ts;
  t->n++;
}

static void push_u64(uint64_t **v, size_t *n, uint64_t x) {
  if (!(*n & (*n - 1)) || !*n) *v = xrealloc(*v, (*n ? *n * 2 : 16) * sizeof **v);
  (*v)[(*n)++] = x;
}

/* ------------------------------------------------------------ messages */

/* One interned entry {iid = 1, name/str = 2}. */
static void interned_entry(strs *s, rd r) {
  unsigned f, wt;
  uint64_t v = 0, iid = 0;
  rd sub;
  char *text = NULL;
  while (next(&r, &f, &wt, &v, &sub)) {
    if (f == 1 && wt == 0) iid = v;
    if (f == 2 && wt == 2) { free(text); text = dup_rd(sub); }
  }
  if (!iid || !text) { S.bad++; free(text); return; }
  strs_set(s, iid, text);
}

static void interned_data(seqstate *q, rd r) {
  unsigned f, wt;
  uint64_t v;
  rd sub;
  while (next(&r, &f, &wt, &v, &sub)) {
    if (wt != 2) continue;
    if (f == 1) interned_entry(&q->cats, sub);
    else if (f == 2) interned_entry(&q->names, sub);
    else if (f == 3) interned_entry(&q->anns, sub);
    else if (f == 29) interned_entry(&q->values, sub);
  }
}

static void descriptor(rd r) {
  unsigned f, wt, f2, wt2;
  uint64_t v, v2;
  rd sub, s2;
  track t = {0};
  while (next(&r, &f, &wt, &v, &sub)) {
    if (f == 1 && wt == 0) t.uuid = v;
    else if (f == 5 && wt == 0) t.parent = v;
    else if (f == 2 && wt == 2) { free(t.name); t.name = dup_rd(sub); }
    else if (f == 8 && wt == 2) t.is_counter = 1;
    else if ((f == 3 || f == 4) && wt == 2) {
      if (f == 3) t.is_process = 1; else t.is_thread = 1;
      while (next(&sub, &f2, &wt2, &v2, &s2)) {
        if (f2 == 1 && wt2 == 0) t.pid = (long long)(int32_t)v2;
        if (((f == 3 && f2 == 6) || (f == 4 && f2 == 5)) && wt2 == 2) { free(t.name); t.name = dup_rd(s2); }
      }
    }
  }
  track *d = track_get(t.uuid, 1);
  int used = d->used;
  if (d->name && t.name && strcmp(d->name, t.name)) {
    fprintf(stderr, "proto_check: track %llu described twice with names '%s' and '%s'\n",
            (unsigned long long)t.uuid, d->name, t.name);
    S.bad++;
  }
  free(d->name);
  *d = t;
  d->used = used;
}

/* The debug annotations of an event as "key=value;" pairs into b. */
static void annotations(seqstate *q, rd sub, tbuf *b) {
  unsigned f2, wt2;
  uint64_t v2;
  rd s2;
  char num[32];
  while (next(&sub, &f2, &wt2, &v2, &s2)) {
    const char *t;
    if (f2 == 1 && wt2 == 0) {
      if (!(t = strs_get(&q->anns, v2))) { S.bad++; t = "?"; }
      tbuf_esc(b, t, strlen(t));
      tbuf_add(b, "=", 1);
    } else if (f2 == 10 && wt2 == 2) {
      tbuf_esc(b, (const char *)s2.p, (size_t)(s2.end - s2.p));
      tbuf_add(b, "=", 1);
    } else if (f2 == 4 && wt2 == 0) {
      snprintf(num, sizeof num, "%lld", (long long)v2);
      tbuf_add(b, num, strlen(num));
    } else if (f2 == 6 && wt2 == 2) {
      tbuf_esc(b, (const char *)s2.p, (size_t)(s2.end - s2.p));
    } else if (f2 == 17 && wt2 == 0) {
      if (!(t = strs_get(&q->values, v2))) { S.bad++; t = "?"; }
      tbuf_esc(b, t, strlen(t));
    }
  }
  tbuf_add(b, ";", 1);
}

static void track_event(seqstate *q, rd r, long long ts) {
  unsigned f, wt;
  uint64_t v, type = 0, uuid = q->def_track, name_iid = 0;
  rd sub, name_rd = {0};
  int cat_ok = 0, has_name = 0;
  const char *cat = NULL;
  double value = 0;
  tbuf args = {0};
  size_t nfs = S.nfs, nfe = S.nfe;
  while (next(&r, &f, &wt, &v, &sub)) {
    if (f == 9 && wt == 0) type = v;
    else if (f == 11 && wt == 0) uuid = v;
    else if (f == 3 && wt == 0) { cat = strs_get(&q->cats, v); cat_ok = cat != NULL; }
    else if (f == 10 && wt == 0) { name_iid = v; has_name = 1; }
    else if (f == 23 && wt == 2) { has_name = 1; name_rd = sub; }
    else if (f == 22 && wt == 2) { cat_ok = 1; cat = "?"; }
    else if (f == 30 && wt == 0) value = (double)(int64_t)v;
    else if (f == 44 && wt == 1) memcpy(&value, &v, sizeof value);
    else if ((f == 47 && wt == 1) || (f == 36 && wt == 0)) push_u64(&S.fstart, &S.nfs, v);
    else if ((f == 48 && wt == 1) || (f == 42 && wt == 0)) push_u64(&S.fend, &S.nfe, v);
    else if (f == 4 && wt == 2) annotations(q, sub, &args);
  }
  const char *name = NULL;
  if (name_iid && !(name = strs_get(&q->names, name_iid))) S.bad++;
  track *t = track_get(uuid, 0);
  if (!t) { S.bad++; free(args.p); return; }
  t->used = 1;
  for (size_t i = nfs; i < S.nfs; i++) flow_point(&S.fsp, S.fstart[i], ts, uuid);
  for (size_t i = nfe; i < S.nfe; i++) flow_point(&S.fep, S.fend[i], ts, uuid);
  char key[300];
  if (type == 1 || type == 3) {
    if (!cat_ok || !has_name) S.bad++;
    snprintf(key, sizeof key, "%s/%s", type == 1 ? "X" : "i", cat ? cat : "");
    count(key, ts);
    if (S.events && !(type == 3 && nfs < S.nfs)) {   /* flow starts: F lines */
      tbuf nb = {0};
      if (name) tbuf_esc(&nb, name, strlen(name));
      else tbuf_esc(&nb, (const char *)name_rd.p, (size_t)(name_rd.end - name_rd.p));
      tbuf_add(&nb, "", 1);
      add_ev(type == 1 ? 'X' : 'i', cat ? cat : "", ts, uuid, nb.p, args.p ? args.p : "", args.n);
      free(nb.p);
    }
    if (type == 3) { free(args.p); return; }
  }
  free(args.p);
  if (type == 1 || type == 2) {   /* matched per track in time order: nesting() */
    if (!(S.nslices & (S.nslices - 1)))   /* 0, 1, 2, 4 ...: double */
      S.slices = xrealloc(S.slices, (S.nslices ? 2 * S.nslices : 1) * sizeof *S.slices);
    S.slices[S.nslices] = (slice){uuid, ts, -1, S.nslices, type == 2, type == 1 && S.events ? S.nevs : 0};
    S.nslices++;
  } else if (type == 4) {
    long long pid = -1;
    track *p = track_get(t->parent, 0);
    if (p) pid = p->pid;
    snprintf(key, sizeof key, "counter %lld %s", pid, t->name ? t->name : "?");
    count(key, ts);
    if (S.events)
      fprintf(S.events, "C %lld %s %lld %.17g\n", pid, t->name ? t->name : "?", ts, value);
  } else {
    S.bad++;
  }
}

/* A ClockSnapshot: the incremental clock 64 and its BOOTTIME (6) value. */
static void clock_snapshot(seqstate *q, rd r) {
  unsigned f, wt, f2, wt2;
  uint64_t v, v2;
  rd sub, s2;
  long long inc = -1, boot = -1;
  int incremental = 0;
  while (next(&r, &f, &wt, &v, &sub)) {
    if (f != 1 || wt != 2) continue;
    uint64_t id = 0, ts = 0, isinc = 0;
    while (next(&sub, &f2, &wt2, &v2, &s2)) {
      if (f2 == 1) id = v2;
      else if (f2 == 2) ts = v2;
      else if (f2 == 3) isinc = v2;
    }
    if (id == 64) { inc = (long long)ts; incremental = (int)isinc; }
    if (id == 6) boot = (long long)ts;
  }
  if (inc < 0 || boot < 0 || !incremental) { S.bad++; return; }
  q->has_inc = 1;
  q->inc = inc;
  q->inc_off = boot - inc;
}

static void defaults(seqstate *q, rd r) {
  unsigned f, wt, f2, wt2;
  uint64_t v, v2;
  rd sub, s2;
  while (next(&r, &f, &wt, &v, &sub)) {
    if (f == 58 && wt == 0) q->def_clock = v;
    if (f == 11 && wt == 2)
      while (next(&sub, &f2, &wt2, &v2, &s2))
        if (f2 == 11 && wt2 == 0) q->def_track = v2;
  }
}

static void packet(rd r) {
  unsigned f, wt;
  uint64_t v, clock = 0;
  rd sub, te = {0}, in = {0}, cs = {0}, def = {0};
  int has_te = 0, has_in = 0, has_ts = 0, has_clock = 0, has_cs = 0, has_def = 0;
  uint32_t seq = 0;
  long long ts = 0;
  S.packets++;
  while (next(&r, &f, &wt, &v, &sub)) {
    if (f == 8 && wt == 0) { ts = (long long)v; has_ts = 1; }
    else if (f == 58 && wt == 0) { clock = v; has_clock = 1; }
    else if (f == 10 && wt == 0) seq = (uint32_t)v;
    else if (f == 11 && wt == 2) { te = sub; has_te = 1; }
    else if (f == 12 && wt == 2) { in = sub; has_in = 1; }
    else if (f == 6 && wt == 2) { cs = sub; has_cs = 1; }
    else if (f == 59 && wt == 2) { def = sub; has_def = 1; }
    else if (f == 60 && wt == 2) descriptor(sub);
  }
  seqstate *q = seq_get(seq);
  if (has_def) defaults(q, def);
  if (has_cs) clock_snapshot(q, cs);
  if (!has_clock) clock = q->def_clock;
  if (has_ts && clock == 64) {   /* a delta on the sequence's incremental clock */
    if (!q->has_inc) S.bad++;
    q->inc += ts;
    ts = q->inc + q->inc_off;
  } else if (has_ts && clock && clock != 6) {
    S.bad++;
  }
  if (has_in) interned_data(q, in);   /* an event may use what its packet interns */
  if (has_te) track_event(q, te, ts);
}

/* ------------------------------------------------------------ checks */

static int cmp_slice(const void *a, const void *b) {
  const slice *x = a, *y = b;
  if (x->uuid != y->uuid) return x->uuid < y->uuid ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* Match each END with the last open BEGIN of its track in time order (ties
 * in file order, as Perfetto sorts), then count the slices that overlap an
 * earlier one of their track without nesting in it. */
static long long nesting(void) {
  long long bad = 0, *stack = NULL;
  size_t depth = 0, cap = 0, *open = NULL, nopen = 0, ocap = 0, n = 0;
  if (S.nslices) qsort(S.slices, S.nslices, sizeof *S.slices, cmp_slice);
  for (size_t i = 0; i < S.nslices; i++) {
    slice *e = &S.slices[i];
    if (i && e->uuid != S.slices[i - 1].uuid) {
      S.bad += (long long)nopen;   /* BEGIN without END */
      nopen = 0;
    }
    if (!e->is_end) {
      if (nopen == ocap) open = xrealloc(open, (ocap = ocap ? ocap * 2 : 64) * sizeof *open);
      open[nopen++] = i;
    } else if (!nopen) {
      S.bad++;   /* END without BEGIN */
    } else {
      S.slices[open[--nopen]].end = e->ts;
    }
  }
  S.bad += (long long)nopen;
  free(open);
  for (size_t i = 0; i < S.nslices; i++)   /* the begins, still in order */
    if (!S.slices[i].is_end) S.slices[n++] = S.slices[i];
  S.nbegins = n;
  for (size_t i = 0; i < n; i++) {
    slice *e = &S.slices[i];
    if (e->end < 0) continue;
    if (i && e->uuid != S.slices[i - 1].uuid) depth = 0;
    while (depth && stack[depth - 1] <= e->ts) depth--;
    if (e->ev) S.evs[e->ev - 1].dur = e->end - e->ts;
    if (depth && e->end > stack[depth - 1]) { bad++; continue; }
    if (depth == cap) stack = xrealloc(stack, (cap = cap ? cap * 2 : 64) * sizeof *stack);
    stack[depth++] = e->end;
  }
  free(stack);
  return bad;
}

/* "process name/track name" of track uuid. */
static void track_key(uint64_t uuid, char *out, size_t n) {
  track *t = track_get(uuid, 0), *p = NULL;
  if (t && t->is_thread) {
    for (size_t i = 0; i < S.ntracks; i++)
      if (S.tracks[i].is_process && S.tracks[i].pid == t->pid) p = &S.tracks[i];
  } else if (t) {
    p = track_get(t->parent, 0);
  }
  snprintf(out, n, "%s/%s", p && p->name ? p->name : "?", t && t->name ? t->name : "?");
}

static int cmp_fpoint(const void *a, const void *b) {
  const fpoint *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* Bind each flow point of f to the deepest slice of its track open at its
 * time (after nesting(): the first S.nbegins slices are the begins with
 * their ends); the number that bind to none. */
static long long bind_flows(fpoints *f) {
  bspan *sp = xrealloc(NULL, (S.nbegins + 1) * sizeof *sp);
  bpoint *pt = xrealloc(NULL, (f->n + 1) * sizeof *pt);
  size_t ns = 0;
  for (size_t i = 0; i < S.nbegins; i++)
    if (S.slices[i].end >= 0)
      sp[ns++] = (bspan){(long long)S.slices[i].uuid, 0, S.slices[i].ts, S.slices[i].end};
  for (size_t i = 0; i < f->n; i++) pt[i] = (bpoint){(long long)f->v[i].uuid, 0, f->v[i].ts, 0, i};
  long long loose = bind_points(sp, ns, pt, f->n);
  for (size_t i = 0; i < f->n; i++) f->v[pt[i].idx].bound = pt[i].bound;
  free(sp);
  free(pt);
  return loose;
}

/* The event lines of --events (after nesting(): slices know their ends). */
static void print_events(void) {
  char k1[300], k2[300];
  for (size_t i = 0; i < S.nevs; i++) {
    evline *e = &S.evs[i];
    track_key(e->uuid, k1, sizeof k1);
    if (e->kind == 'X')
      fprintf(S.events, "X %s %lld %lld %s\t%s\t%s\n", e->cat, e->ts, e->dur, k1, e->name,
              evline_args(e->name, e->args));
    else
      fprintf(S.events, "i %s %lld %s\t%s\t%s\n", e->cat, e->ts, k1, e->name,
              evline_args(e->name, e->args));
    free(e->cat);
    free(e->name);
    free(e->args);
  }
  S.loose = bind_flows(&S.fsp) + bind_flows(&S.fep);
  if (S.fsp.n) qsort(S.fsp.v, S.fsp.n, sizeof *S.fsp.v, cmp_fpoint);
  if (S.fep.n) qsort(S.fep.v, S.fep.n, sizeof *S.fep.v, cmp_fpoint);
  for (size_t i = 0, j = 0; i < S.fsp.n && j < S.fep.n;) {
    if (S.fsp.v[i].id < S.fep.v[j].id) { i++; continue; }
    if (S.fsp.v[i].id > S.fep.v[j].id) { j++; continue; }
    track_key(S.fsp.v[i].uuid, k1, sizeof k1);
    track_key(S.fep.v[j].uuid, k2, sizeof k2);
    char b1[48], b2[48];
    fprintf(S.events, "F %s %s -> %s %s\n", bound_text(S.fsp.v[i].bound, S.fsp.v[i].ts, b1, sizeof b1),
            k1, bound_text(S.fep.v[j].bound, S.fep.v[j].ts, b2, sizeof b2), k2);
    i++;
    j++;
  }
  free(S.evs);
  free(S.fsp.v);
  free(S.fep.v);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static long long unmatched(void) {
  size_t i = 0, j = 0;
  long long n = 0;
  if (S.nfs) qsort(S.fstart, S.nfs, sizeof *S.fstart, cmp_u64);
  if (S.nfe) qsort(S.fend, S.nfe, sizeof *S.fend, cmp_u64);
  while (i < S.nfs || j < S.nfe) {
    if (j == S.nfe || (i < S.nfs && S.fstart[i] < S.fend[j])) { n++; i++; }
    else if (i == S.nfs || S.fend[j] < S.fstart[i]) j++;
    else { i++; j++; }
  }
  return n;
}

static long long unnamed(void) {
  long long n = 0;
  for (size_t i = 0; i < S.ntracks; i++) {
    track *t = &S.tracks[i];
    if (!t->used) continue;
    track *p = t->is_thread ? NULL : track_get(t->parent, 0);
    int ok = t->name && *t->name;
    if (!t->is_thread && (!p || !p->name || !*p->name)) ok = 0;
    if (!ok) {
      n++;
      fprintf(stderr, "proto_check: track %llu has no name\n", (unsigned long long)t->uuid);
    }
  }
  return n;
}

static int cmp_tally(const void *a, const void *b) {
  return strcmp(((const tally *)a)->key, ((const tally *)b)->key);
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[2], "--events")) {
    if (!(S.events = fopen(argv[3], "w"))) { fprintf(stderr, "proto_check: cannot write '%s'\n", argv[3]); return 1; }
  } else if (argc != 2) {
    fputs("usage: proto_check FILE [--events OUT]\n", stderr);
    return 2;
  }
  gzFile in = gzopen(argv[1], "rb");
  if (!in) { fprintf(stderr, "proto_check: cannot open '%s'\n", argv[1]); return 1; }
  size_t n = 0, cap = 1 << 20;
  uint8_t *buf = xrealloc(NULL, cap);
  int k;
  while ((k = gzread(in, buf + n, (unsigned)(cap - n))) > 0) {
    n += (size_t)k;
    if (n == cap) buf = xrealloc(buf, cap *= 2);
  }
  gzclose(in);
  rd r = {buf, buf + n}, sub;
  unsigned f, wt;
  uint64_t v;
  while (next(&r, &f, &wt, &v, &sub)) {
    if (f != 1 || wt != 2) fail("not a Trace: a field other than packet");
    packet(sub);
  }
  printf("packets %lld\n", S.packets);
  long long flows = (long long)S.nfs;
  long long nest = nesting();
  if (S.events) {
    print_events();
    if (fclose(S.events)) fail("cannot write the event lines");
  }
  if (S.ntallies) qsort(S.tallies, S.ntallies, sizeof *S.tallies, cmp_tally);
  for (size_t i = 0; i < S.ntallies; i++)
    if (strncmp(S.tallies[i].key, "counter ", 8)) printf("cat %s %lld\n", S.tallies[i].key, S.tallies[i].n);
  for (size_t i = 0; i < S.ntallies; i++)
    if (!strncmp(S.tallies[i].key, "counter ", 8)) printf("%s %lld\n", S.tallies[i].key, S.tallies[i].n);
  for (size_t i = 0; i < S.ntallies; i++) {
    tally *t = &S.tallies[i];
    if (!strncmp(t->key, "counter ", 8)) continue;
    printf("tsrange %s %lld.%03lld %lld.%03lld\n", t->key, t->min / 1000, t->min % 1000,
           t->max / 1000, t->max % 1000);
  }
  printf("flows %lld\n", flows);
  printf("flow_unmatched %lld\n", unmatched());
  if (S.events) printf("flow_loose %lld\n", S.loose);
  printf("nesting %lld\n", nest);
  printf("unnamed %lld\n", unnamed());
  printf("bad %lld\n", S.bad);
  free(buf);
  return 0;
}
