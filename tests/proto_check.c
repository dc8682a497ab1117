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
 *   flow_unmatched N              started and never ended, or ended only
 *   nesting N                     slices overlapping an earlier one of their
 *                                 track without nesting in it
 *   unnamed N                     tracks with events but no name, or whose
 *                                 process has no name
 *   bad N                         events on undescribed tracks, unknown
 *                                 iids, END without BEGIN, BEGIN without END
 * Exit 0 when the file decodes, 1 (message on stderr) when not. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

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

typedef struct seqstate { uint32_t id; strs cats, names, anns, values; } seqstate;

typedef struct track {
  uint64_t uuid, parent;
  char *name;
  long long pid;
  int is_process, is_thread, is_counter, used;
} track;

typedef struct slice { uint64_t uuid; long long ts, end; size_t order; int cat; } slice;

typedef struct tally { char *key; long long n, min, max; } tally;

static struct {
  seqstate *seqs; size_t nseqs;
  track *tracks; size_t ntracks;
  slice *slices; size_t nslices;
  tally *tallies; size_t ntallies;
  uint64_t *fstart, *fend; size_t nfs, nfe;
  long long packets, bad;
} S;

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

static void track_event(seqstate *q, rd r, long long ts) {
  unsigned f, wt;
  uint64_t v, type = 0, uuid = 0, name_iid = 0;
  rd sub;
  int cat_ok = 0, has_name = 0;
  const char *cat = NULL;
  while (next(&r, &f, &wt, &v, &sub)) {
    if (f == 9 && wt == 0) type = v;
    else if (f == 11 && wt == 0) uuid = v;
    else if (f == 3 && wt == 0) { cat = strs_get(&q->cats, v); cat_ok = cat != NULL; }
    else if (f == 10 && wt == 0) { name_iid = v; has_name = 1; }
    else if (f == 23 && wt == 2) has_name = 1;
    else if (f == 47 && wt == 1) push_u64(&S.fstart, &S.nfs, v);
    else if (f == 48 && wt == 1) push_u64(&S.fend, &S.nfe, v);
    else if (f == 4 && wt == 2) {
      unsigned f2, wt2;
      uint64_t v2;
      rd s2;
      while (next(&sub, &f2, &wt2, &v2, &s2)) {
        if (f2 == 1 && !strs_get(&q->anns, v2)) S.bad++;
        if (f2 == 17 && !strs_get(&q->values, v2)) S.bad++;
      }
    }
  }
  if (name_iid && !strs_get(&q->names, name_iid)) S.bad++;
  track *t = track_get(uuid, 0);
  if (!t) { S.bad++; return; }
  t->used = 1;
  char key[300];
  if (type == 1 || type == 3) {
    if (!cat_ok || !has_name) S.bad++;
    snprintf(key, sizeof key, "%s/%s", type == 1 ? "X" : "i", cat ? cat : "");
    count(key, ts);
    if (type == 3) return;
    S.slices = xrealloc(S.slices, (S.nslices + 1) * sizeof *S.slices);
    S.slices[S.nslices] = (slice){uuid, ts, -1, S.nslices, 0};
    S.nslices++;
  } else if (type == 2) {
    /* the writer puts each END right after its BEGIN: the last open one */
    size_t i = S.nslices;
    while (i > 0 && !(S.slices[i - 1].uuid == uuid && S.slices[i - 1].end < 0)) i--;
    if (!i) { S.bad++; return; }
    S.slices[i - 1].end = ts;
  } else if (type == 4) {
    long long pid = -1;
    track *p = track_get(t->parent, 0);
    if (p) pid = p->pid;
    snprintf(key, sizeof key, "counter %lld %s", pid, t->name ? t->name : "?");
    count(key, ts);
  } else {
    S.bad++;
  }
}

static void packet(rd r) {
  unsigned f, wt;
  uint64_t v;
  rd sub, te = {0}, in = {0};
  int has_te = 0, has_in = 0;
  uint32_t seq = 0;
  long long ts = 0;
  S.packets++;
  while (next(&r, &f, &wt, &v, &sub)) {
    if (f == 8 && wt == 0) ts = (long long)v;
    else if (f == 10 && wt == 0) seq = (uint32_t)v;
    else if (f == 11 && wt == 2) { te = sub; has_te = 1; }
    else if (f == 12 && wt == 2) { in = sub; has_in = 1; }
    else if (f == 60 && wt == 2) descriptor(sub);
  }
  seqstate *q = seq_get(seq);
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

static long long nesting(void) {
  long long bad = 0, *stack = NULL;
  size_t depth = 0, cap = 0;
  if (S.nslices) qsort(S.slices, S.nslices, sizeof *S.slices, cmp_slice);
  for (size_t i = 0; i < S.nslices; i++) {
    slice *e = &S.slices[i];
    if (e->end < 0) { S.bad++; continue; }
    if (i && e->uuid != S.slices[i - 1].uuid) depth = 0;
    while (depth && stack[depth - 1] <= e->ts) depth--;
    if (depth && e->end > stack[depth - 1]) { bad++; continue; }
    if (depth == cap) stack = xrealloc(stack, (cap = cap ? cap * 2 : 64) * sizeof *stack);
    stack[depth++] = e->end;
  }
  free(stack);
  return bad;
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
    else if (i == S.nfs || S.fend[j] < S.fstart[i]) { n++; j++; }
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
  if (argc != 2) { fputs("usage: proto_check FILE\n", stderr); return 2; }
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
  printf("nesting %lld\n", nest);
  printf("unnamed %lld\n", unnamed());
  printf("bad %lld\n", S.bad);
  free(buf);
  return 0;
}
