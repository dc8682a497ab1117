#include "tracing.h"
#include "textsafe.h"
#include "pb.h"
#include "perfetto_fields.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Perfetto's native protobuf trace (perfetto.protos.Trace), written with a
 * small wire encoder: varints, fixed64, doubles and length-delimited
 * fields.  Each track of a worker is one packet sequence (odd
 * trusted_packet_sequence_ids for A, even for B) with an incremental clock
 * and the track as its default; the worker's interning state is shared by
 * its sequences: event names, categories, debug annotation names and
 * repeated string values are sent once per sequence and then referred to
 * by iid (args and marker texts from their second sighting).  Flow ids are
 * varints (flow_ids_old / terminating_flow_ids_old); a `desc` that is empty
 * or repeats the event's name is left out.  Tracks are described by a
 * TrackDescriptor before their first event (a process track per pid, a
 * thread track per api thread, a child track per GPU queue lane, graph or
 * marker frame track, a counter track per series); a slice is a
 * TYPE_SLICE_BEGIN and a TYPE_SLICE_END packet.  The subset of the schema
 * used is tests/proto/perfetto_trace.proto; the field numbers, Perfetto's,
 * are in perfetto_fields.h. */


static void pb_msg(pb *b, unsigned field, const pb *inner) { pb_bytes(b, field, inner->p, inner->len); }

/* ------------------------------------------------------------ state */

/* Text -> iid, by content, for one interning index.  Bounded: once full,
 * new strings are written inline instead. */
#define INTERN_MAX 16384
#define INTERN_LONGEST 4096   /* longer strings are written inline */

/* One slot of an index: its fields side by side, so that a probe reads one
 * cache line, not one per field. */
typedef struct islot {
  uint64_t hash;        /* 0 = empty slot */
  uint32_t iid, len;
  char *text;
} islot;

typedef struct intern {
  islot *slot;
  size_t n, cap;
  uint64_t next;        /* next iid */
  /* strings that are not string-table entries are interned only while
   * they repeat: after RAW_TRIAL lookups with fewer than 1 in 16 found,
   * they are written inline */
  uint64_t raw_lookups, raw_hits;
  char **chunks;        /* the texts, packed into 1 MB chunks */
  size_t nchunks, chunk_used;
  uint64_t *seen;       /* hashes of strings seen once (SEEN_SLOTS, direct-mapped) */
  uint64_t *in;         /* a bit per IN_BITS hash class: set when one of
                         * its strings is in the table (a clear bit: not
                         * there, no probe of the slots) */
} intern;

/* A string is interned on its second sighting: the first is written inline
 * and its hash kept in a direct-mapped filter (a later string of the same
 * slot replaces it).  Unique strings (most api args and marker texts) so
 * cost their bytes once, not an InternedData entry and an iid besides. */
#define SEEN_SLOTS ((size_t)1 << 12)

#define CHUNK ((size_t)1 << 20)

/* The classes of intern.in: 16 KB, 8 bits per string of a full table. */
#define IN_BITS ((size_t)1 << 17)

static inline size_t in_class(uint64_t h) { return (size_t)(h >> 40) & (IN_BITS - 1); }

static inline int maybe_in(const intern *t, uint64_t h) {
  return t->in && (t->in[in_class(h) >> 6] >> (in_class(h) & 63) & 1);
}

/* n bytes of t's text arena. */
static char *intern_alloc(intern *t, size_t n) {
  if (!t->nchunks || t->chunk_used + n > CHUNK) {
    t->chunks = rpd_xrealloc(t->chunks, (t->nchunks + 1) * sizeof *t->chunks);
    t->chunks[t->nchunks++] = rpd_xmalloc(CHUNK);
    t->chunk_used = 0;
  }
  char *p = t->chunks[t->nchunks - 1] + t->chunk_used;
  t->chunk_used += n;
  return p;
}

#define RAW_TRIAL 4096

#define NCAT 16

/* A sequence-scoped clock (Perfetto: ids 64-127) counting in deltas, and
 * the built-in clock it maps to (BOOTTIME, the trace's default). */
#define PF_CLOCK_INCREMENTAL 64
#define PF_CLOCK_BOOTTIME 6

/* A set of small iids: one bit each. */
typedef struct bits {
  uint64_t *w;
  size_t n;             /* words */
} bits;

/* 1 when iid was in the set; adds it. */
static int bits_test_set(bits *b, uint64_t iid) {
  size_t i = (size_t)(iid >> 6);
  uint64_t m = 1ull << (iid & 63);
  if (i >= b->n) {
    size_t n = b->n ? b->n : 4;
    while (n <= i) n *= 2;
    b->w = rpd_xrealloc(b->w, n * sizeof *b->w);
    memset(b->w + b->n, 0, (n - b->n) * sizeof *b->w);
    b->n = n;
  }
  if (b->w[i] & m) return 1;
  b->w[i] |= m;
  return 0;
}

/* The pending slice ends of a sequence, largest first: the last is the
 * next to write.  A track nests strictly, so a new end is never past the
 * one below it and goes on top; one that is (a crossing slice) is put in
 * its place.  Ends come out smallest first, as from a min-heap (equal ends
 * are equal values), without a heap's sifting. */
typedef struct ends {
  int64_t *v;
  size_t n, cap;
} ends;

static inline void ends_push(ends *e, int64_t x) {
  if (e->n == e->cap) {
    e->cap = e->cap ? 2 * e->cap : 16;
    e->v = rpd_xrealloc(e->v, e->cap * sizeof *e->v);
  }
  size_t i = e->n++;
  for (; i && e->v[i - 1] < x; i--) e->v[i] = e->v[i - 1];
  e->v[i] = x;
}

/* One packet sequence per track and worker: the track is its default
 * (TrackEventDefaults.track_uuid) and its timestamps are deltas on an
 * incremental clock, so the events of one track must come in time order.
 * They do, except slice ends: a slice's END is held back (ends)
 * until an event of the track starts at or after it (the layout makes every
 * track nest strictly, so ends stays as deep as the nesting). */
typedef struct pseq {
  uint32_t id;              /* trusted_packet_sequence_id */
  uint8_t head[8], nhead;   /* an event packet's first nhead bytes: its
                             * tag, length byte, sequence id field */
  uint64_t uuid;            /* its track */
  int64_t clock;            /* the incremental clock's value */
  ends ends;                /* pending slice ends */
  bits names, values;       /* interned iids sent on this sequence */
  uint32_t cats, anns;      /* small iids sent (bit iid - 1) */
  int described;            /* its track's descriptor is written */
} pseq;

#define SEQC 256

typedef struct pstate {
  uint32_t worker;          /* 1: A, 2: B (sequence ids are odd / even) */
  idmap tracks;             /* uuids already described */
  intern names, values;     /* iids of this worker, shared by its sequences */
  const char *cats[NCAT];   /* category iid = index + 1 */
  int ncats;
  const char *anns[NCAT];   /* debug annotation name iid = index + 1 */
  int nanns;
  pseq *seqs;               /* in creation order */
  size_t nseqs, seqcap;
  idmap seqmap;             /* track uuid -> index in seqs */
  size_t lastseq;           /* cache: the last sequence used */
  uint64_t seqc_uuid[SEQC]; /* cache: uuid -> index + 1 in seqs (direct-mapped) */
  uint32_t seqc_ix[SEQC];
  /* counter series of this worker: (pid, name) -> uuid */
  int64_t *cpid;
  char **cname;
  size_t ncounters;
  pb pkt, te, interned, sub, entry;   /* scratch messages */
  rpd_buf utf8, utf8v;      /* names, values made valid UTF-8 */
} pstate;

static pstate *st_of(conv *c) {
  if (!c->wstate) {
    pstate *s = rpd_xcalloc(1, sizeof *s);
    s->worker = (uint32_t)c->worker;
    s->names.next = s->values.next = 1;
    s->lastseq = (size_t)-1;
    c->wstate = s;
  }
  return c->wstate;
}

/* The last r < 8 bytes of a text of n bytes (r <= n), at s, as a
 * little-endian word with zeros above them, as memcpy into a zeroed word
 * gives it, but read with whole loads inside the text: a word assembled on
 * the stack costs a store-forwarding stall per text. */
static inline uint64_t tail_word(const char *s, size_t r, size_t n) {
  uint64_t w;
  uint32_t a, b;
  if (!r) return 0;
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
  (void)a, (void)b, (void)n;
  w = 0;
  memcpy(&w, s, r);
  return w;
#endif
  if (n >= 8) {   /* the 8 bytes ending at s + r: the r wanted ones on top */
    memcpy(&w, s + r - 8, 8);
    return w >> (64 - 8 * r);
  }
  if (r >= 4) {   /* two 4-byte loads that overlap in the middle */
    memcpy(&a, s, 4);
    memcpy(&b, s + r - 4, 4);
    return (uint64_t)a | (uint64_t)b << (8 * (r - 4));
  }
  return (uint64_t)(uint8_t)s[0] | (uint64_t)(uint8_t)s[r / 2] << (8 * (r / 2)) |
         (uint64_t)(uint8_t)s[r - 1] << (8 * (r - 1));
}

/* 1 when the n bytes at a and b are the same: 8 at a time, inline (the
 * texts that hit are ~50 bytes: a call to memcmp costs more). */
static inline int same_bytes(const char *a, const char *b, size_t n) {
  uint64_t x, y;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    memcpy(&x, a + i, 8);
    memcpy(&y, b + i, 8);
    if (x != y) return 0;
  }
  return tail_word(a + i, n - i, n) == tail_word(b + i, n - i, n);
}

/* A hash of n bytes, 8 at a time (never 0: 0 marks an empty slot), and in
 * the same pass whether the n bytes are plain ASCII without NUL (*clean:
 * valid UTF-8 as they are). */
static inline uint64_t text_hash_check(const char *s, size_t n, int *clean) {
  const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  uint64_t h = 0x9E3779B97F4A7C15ull ^ n, w, any = 0, zero = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    memcpy(&w, s + i, 8);
    any |= w;
    zero |= (w - ones) & ~w;   /* a high bit where a byte is 0 */
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  size_t r = n - i;
  w = tail_word(s + i, r, n);
  if (r) {   /* the bytes past the tail count as 1s */
    uint64_t x = w | ones << (8 * r);
    any |= w;
    zero |= (x - ones) & ~x;
  }
  *clean = !((any | zero) & highs);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 29;
  return h ? h : 1;
}

/* text_hash_check's hash alone (inlined, the check's work is dropped). */
static inline uint64_t text_hash(const char *s, size_t n) {
  int clean;
  return text_hash_check(s, n, &clean);
}

/* 1 when intern_get would write a text of n bytes inline at once, without
 * a look-up. */
static inline int intern_skip(const intern *t, size_t n, int raw) {
  return n > INTERN_LONGEST ||
         (raw && t->raw_lookups >= RAW_TRIAL && t->raw_hits * 16 < t->raw_lookups);
}

/* The iid of s in t; *fresh = 1 when it is new.  0 when the table is
 * full, s too long, seen for the first time (SEEN_SLOTS; unless eager: a
 * rocpd_string entry, a name that repeats), or a raw string
 * (raw = 1) of a kind that does not repeat: write s inline.  h: s's
 * text_hash, or 0 when not known yet. */
static inline uint64_t intern_get(intern *t, const char *s, size_t n, uint64_t h, int raw,
                                  int eager, int *fresh) {
  size_t j;
  *fresh = 0;
  if (intern_skip(t, n, raw)) return 0;
  if (!h) h = text_hash(s, n);
  t->raw_lookups += raw;
  if (maybe_in(t, h)) {
    for (j = h & (t->cap - 1); t->slot[j].hash; j = (j + 1) & (t->cap - 1)) {
      const islot *e = &t->slot[j];
      if (e->hash == h && e->len == n && same_bytes(e->text, s, n)) {
        t->raw_hits += raw;
        return e->iid;
      }
    }
  }
  if (t->n >= INTERN_MAX) return 0;
  if (!t->seen) t->seen = rpd_xcalloc(SEEN_SLOTS, sizeof *t->seen);
  uint64_t *seen = &t->seen[(h >> 20) & (SEEN_SLOTS - 1)];
  if (!eager && *seen != h) {   /* the first sighting: inline */
    *seen = h;
    return 0;
  }
  if (2 * (t->n + 1) > t->cap) {
    size_t ncap = t->cap ? t->cap * 2 : 1024;
    islot *ns = rpd_xcalloc(ncap, sizeof *ns);
    for (size_t i = 0; i < t->cap; i++) {
      if (!t->slot[i].hash) continue;
      for (j = t->slot[i].hash & (ncap - 1); ns[j].hash; j = (j + 1) & (ncap - 1)) {}
      ns[j] = t->slot[i];
    }
    free(t->slot);
    t->slot = ns;
    t->cap = ncap;
  }
  for (j = h & (t->cap - 1); t->slot[j].hash; j = (j + 1) & (t->cap - 1)) {}
  islot *e = &t->slot[j];
  e->hash = h;
  e->iid = (uint32_t)t->next;
  e->len = (uint32_t)n;
  e->text = intern_alloc(t, n);   /* n <= INTERN_LONGEST < CHUNK */
  memcpy(e->text, s, n);
  t->n++;
  if (!t->in) t->in = rpd_xcalloc(IN_BITS / 64, sizeof *t->in);
  t->in[in_class(h) >> 6] |= 1ull << (in_class(h) & 63);
  *fresh = 1;
  return t->next++;
}

static void intern_free(intern *t) {
  for (size_t i = 0; i < t->nchunks; i++) free(t->chunks[i]);
  free(t->chunks);
  free(t->slot);
  free(t->seen);
  free(t->in);
}

/* The n bytes at s up to the first NUL, made valid UTF-8 by the common
 * text rules (textsafe.h: each invalid sequence becomes U+FFFD), as the JSON
 * writer's escaping keeps them (rpd_json_escape). */
static __attribute__((noinline, cold)) void utf8_repair(rpd_buf *b, const char *s, size_t n) {
  const char *nul = memchr(s, 0, n);
  rpd_text_safe_n(b, s, nul ? (size_t)(nul - s) : n, RPD_TEXT_CSV);
}

/* Protobuf strings must be UTF-8: the text of t as it is when it is plain
 * ASCII without NUL (a string-table entry knows; else 16 bytes a step),
 * else repaired into *fix (utf8_repair; valid until fix's next use). */
static inline txt valid_utf8(rpd_buf *fix, const txt *t) {
  const char *p = t->e ? t->e->raw : t->s;
  size_t n = t->e ? t->e->rawlen : t->n;
  const unsigned char *u = (const unsigned char *)p;
  size_t i = 0;
  if (t->e && t->e->clean) return txt_s(p, n);
#ifdef __SSE2__
  {   /* 16 bytes a step: no high bit (movemask), no NUL */
    const __m128i zero = _mm_setzero_si128();
    for (; i + 16 <= n; i += 16) {
      __m128i x = _mm_loadu_si128((const __m128i *)(u + i));
      if (_mm_movemask_epi8(_mm_or_si128(x, _mm_cmpeq_epi8(x, zero)))) break;
    }
  }
#endif
  for (; i + 8 <= n; i += 8) {   /* 8 bytes at a time: no high bit, no NUL */
    uint64_t w;
    memcpy(&w, u + i, 8);
    if ((w & 0x8080808080808080ull) || ((w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull))
      break;
  }
  while (i < n && u[i] < 0x80 && u[i]) i++;
  if (i == n) return txt_s(p, n);
  rpd_buf_reset(fix);
  utf8_repair(fix, p, n);
  return txt_s(fix->s, fix->len);
}

/* Events are encoded straight into the sink, each byte written once where
 * it stays: the sink is made to hold the packet's bound first (ev_room),
 * then fields are appended at a cursor (w_varint, w_bytes).  A message
 * whose length is not known before its fields is opened with a one-byte
 * length (w_open) and closed after them (w_close), which moves its bytes up
 * in the rare case the length takes more (a long text): the bytes are those
 * of a message built apart and copied in. */

/* Room for n more bytes in the sink (sink_reserve only when short). */
static inline void ev_room(sink *k, size_t n) {
  if (k->cap - k->len < n) sink_reserve(k, n);
}

static inline uint8_t *w_varint(uint8_t *p, unsigned field, uint64_t v) {
  p += put_varint(p, (uint64_t)field << 3 | WIRE_VARINT);
  return p + put_varint(p, v);
}

static inline uint8_t *w_double(uint8_t *p, unsigned field, double d) {
  uint64_t v;
  memcpy(&v, &d, sizeof v);
  p += put_varint(p, (uint64_t)field << 3 | WIRE_FIXED64);
  return p + put_fixed64(p, v);
}

/* memcpy(d, s, n) inline for 16..64 bytes (most texts: overlapping
 * 16-byte moves, no call). */
static inline void copy_text(uint8_t *d, const void *s, size_t n) {
  const uint8_t *q = s;
  if (n < 16 || n > 64) {
    memcpy(d, q, n);
  } else if (n <= 32) {
    memcpy(d, q, 16);
    memcpy(d + n - 16, q + n - 16, 16);
  } else {
    memcpy(d, q, 16);
    memcpy(d + 16, q + 16, 16);
    memcpy(d + n - 32, q + n - 32, 16);
    memcpy(d + n - 16, q + n - 16, 16);
  }
}

static inline uint8_t *w_bytes(uint8_t *p, unsigned field, const void *s, size_t n) {
  p += put_varint(p, (uint64_t)field << 3 | WIRE_LEN);
  p += put_varint(p, n);
  copy_text(p, s, n);
  return p + n;
}

/* Open a length-delimited field at p: its tag and a one-byte length; the
 * message's bytes start at the return value. */
static inline uint8_t *w_open(uint8_t *p, unsigned field) {
  *p = (uint8_t)(field << 3 | WIRE_LEN);   /* fields < 16: one byte */
  return p + 2;
}

/* Close the field opened at h whose bytes are [body, end): the length in
 * place, the bytes moved up when it needs more than one (the bound of the
 * room has 9 bytes for each open field).  Returns the new end. */
static inline uint8_t *w_close(uint8_t *h, uint8_t *body, uint8_t *end) {
  size_t n = (size_t)(end - body);
  if (n < 128) {
    h[1] = (uint8_t)n;
    return end;
  }
  uint8_t len[10];
  size_t ln = put_varint(len, n);
  memmove(body + ln - 1, body, n);
  memcpy(h + 1, len, ln);
  return end + ln - 1;
}

/* ------------------------------------------------------------ packets */

/* Write the packet being built (s->pkt) as one Trace.packet field. */
static void emit_packet(conv *c, pstate *s) {
  sink *k = &c->out;
  uint8_t hdr[16];
  size_t h = put_varint(hdr, F_TRACE_PACKET << 3 | WIRE_LEN);
  h += put_varint(hdr + h, s->pkt.len);
  size_t need = h + s->pkt.len;
  sink_reserve(k, need);
  memcpy(k->buf + k->len, hdr, h);
  memcpy(k->buf + k->len + h, s->pkt.p, s->pkt.len);
  k->len += need;
  s->pkt.len = 0;
}

/* Start a packet of sequence q. */
static void pkt_begin(pstate *s, const pseq *q) {
  s->pkt.len = 0;
  s->interned.len = 0;
  pb_varint(&s->pkt, F_PKT_SEQ_ID, q->id);
}

static inline size_t seqc_slot(uint64_t uuid) { return (size_t)(uuid >> 3 ^ uuid >> 11) & (SEQC - 1); }

/* The sequence of track uuid, started when new: a first packet that clears
 * the incremental state and defines the incremental clock at t0 (= BOOTTIME
 * t0), then the defaults (that clock, that track). */
static pseq *seq_new(conv *c, pstate *s, uint64_t uuid, int64_t t0) {
  int64_t ix;
  size_t cj = seqc_slot(uuid);
  if (idmap_get(&s->seqmap, (int64_t)uuid, &ix)) {
    s->lastseq = (size_t)ix;
    s->seqc_uuid[cj] = uuid;
    s->seqc_ix[cj] = (uint32_t)ix + 1;
    return &s->seqs[ix];
  }
  if (s->nseqs == s->seqcap) {
    s->seqcap = s->seqcap ? s->seqcap * 2 : 16;
    s->seqs = rpd_xrealloc(s->seqs, s->seqcap * sizeof *s->seqs);
  }
  pseq *q = &s->seqs[s->nseqs];
  memset(q, 0, sizeof *q);
  q->id = (uint32_t)(2 * s->nseqs + s->worker);   /* A: 1, 3, 5 ...  B: 2, 4, 6 ... */
  q->uuid = uuid;
  q->clock = t0 < 0 ? 0 : t0;
  q->nhead = (uint8_t)(w_varint(w_open(q->head, F_TRACE_PACKET), F_PKT_SEQ_ID, q->id) - q->head);
  idmap_put(&s->seqmap, (int64_t)uuid, (int64_t)s->nseqs);
  s->lastseq = s->nseqs++;
  pkt_begin(s, q);
  pb_varint(&s->pkt, F_PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED | SEQ_NEEDS_INCREMENTAL_STATE);
  s->te.len = 0;
  s->sub.len = 0;
  pb_varint(&s->sub, F_CLK_ID, PF_CLOCK_INCREMENTAL);
  pb_varint(&s->sub, F_CLK_TIMESTAMP, (uint64_t)q->clock);
  pb_varint(&s->sub, F_CLK_INCREMENTAL, 1);
  pb_msg(&s->te, F_CS_CLOCKS, &s->sub);
  s->sub.len = 0;
  pb_varint(&s->sub, F_CLK_ID, PF_CLOCK_BOOTTIME);
  pb_varint(&s->sub, F_CLK_TIMESTAMP, (uint64_t)q->clock);
  pb_msg(&s->te, F_CS_CLOCKS, &s->sub);
  pb_msg(&s->pkt, F_PKT_CLOCK_SNAPSHOT, &s->te);
  emit_packet(c, s);
  pkt_begin(s, q);
  s->te.len = 0;
  s->sub.len = 0;
  pb_varint(&s->sub, F_TED_TRACK_UUID, uuid);
  pb_varint(&s->te, F_TPD_CLOCK_ID, PF_CLOCK_INCREMENTAL);
  pb_msg(&s->te, F_TPD_TRACK_EVENT, &s->sub);
  pb_msg(&s->pkt, F_PKT_DEFAULTS, &s->te);
  emit_packet(c, s);
  return q;
}

/* seq_new's sequence: the last one or a cached one inline. */
static inline pseq *seq_of(conv *c, pstate *s, uint64_t uuid, int64_t t0) {
  if (s->lastseq < s->nseqs && s->seqs[s->lastseq].uuid == uuid) return &s->seqs[s->lastseq];
  size_t cj = seqc_slot(uuid);
  if (s->seqc_ix[cj] && s->seqc_uuid[cj] == uuid) {
    s->lastseq = s->seqc_ix[cj] - 1;
    return &s->seqs[s->lastseq];
  }
  return seq_new(c, s, uuid, t0);
}

/* The packet's timestamp: a delta on the sequence's clock, or absolute
 * (BOOTTIME) for the rare event earlier than the clock. */
static inline uint8_t *w_ts(uint8_t *p, pseq *q, int64_t ts) {
  if (ts >= q->clock) {
    p = w_varint(p, F_PKT_TIMESTAMP, (uint64_t)(ts - q->clock));
    q->clock = ts;
    return p;
  }
  p = w_varint(p, F_PKT_CLOCK_ID, PF_CLOCK_BOOTTIME);
  return w_varint(p, F_PKT_TIMESTAMP, (uint64_t)ts);
}

/* Bytes of a packet besides its texts and flows (12 bytes each): the tags
 * and lengths of its fields and messages (with 9 more for each w_close),
 * its sequence id and times. */
#define EV_BOUND 256

/* Start an event packet of sequence q at ts in the sink (room made): the
 * packet's tag, sequence id and time.  Returns the cursor; the packet's
 * bytes start at k->buf + k->len + 2. */
static inline uint8_t *evpkt_begin(sink *k, pseq *q, int64_t ts) {
  uint8_t *p = (uint8_t *)k->buf + k->len;
  memcpy(p, q->head, 8);   /* w_open(F_TRACE_PACKET), w_varint(F_PKT_SEQ_ID, q->id) */
  return w_ts(p + q->nhead, q, ts);
}

/* End the event packet whose TrackEvent was opened at te (w_open) and ends
 * at p: its length, the packet's InternedData (s->interned), the packet's
 * length. */
static inline void evpkt_end(sink *k, pstate *s, uint8_t *te, uint8_t *p) {
  uint8_t *b = (uint8_t *)k->buf + k->len;
  p = w_close(te, te + 2, p);
  if (s->interned.len) p = w_bytes(p, F_PKT_INTERNED, s->interned.p, s->interned.len);
  p = w_close(b, b + 2, p);
  k->len = (size_t)((char *)p - k->buf);
}

/* An END packet of sequence q at e: a TrackEvent that is only {type:
 * TYPE_SLICE_END} (a third of the packets). */
static void end_packet(conv *c, pseq *q, int64_t e) {
  sink *k = &c->out;
  ev_room(k, 48);
  uint8_t *b = (uint8_t *)k->buf + k->len, *p = evpkt_begin(k, q, e);
  *p++ = F_PKT_TRACK_EVENT << 3 | WIRE_LEN;
  *p++ = 2;
  *p++ = F_TE_TYPE << 3 | WIRE_VARINT;
  *p++ = TYPE_SLICE_END;
  b[1] = (uint8_t)(p - b - 2);   /* < 128 */
  k->len += (size_t)(p - b);
}

/* The END packets of q's slices that end by t (all: t = INT64_MAX). */
static void flush_ends(conv *c, pseq *q, int64_t t) {
  while (q->ends.n && q->ends.v[q->ends.n - 1] <= t) end_packet(c, q, q->ends.v[--q->ends.n]);
}

/* Add an interned entry {iid, text} to field `field` of the packet's
 * InternedData. */
static void interned_add(pstate *s, unsigned field, uint64_t iid, const char *t, size_t n) {
  s->entry.len = 0;
  pb_varint(&s->entry, 1, iid);
  pb_bytes(&s->entry, 2, t, n);
  pb_msg(&s->interned, field, &s->entry);
}

/* The iid of a category or annotation name from a small fixed set (0: the
 * set is full), sent along when new on sequence q (*sent: its bits). */
static uint64_t small_iid_slow(pstate *s, const char **v, int *n, uint32_t *sent,
                               const char *name, unsigned field) {
  int i;
  for (i = 0; i < *n; i++)   /* the callers pass the same literals: pointers first */
    if (v[i] == name) break;
  if (i == *n)
    for (i = 0; i < *n; i++)
      if (!strcmp(v[i], name)) break;
  if (i == *n) {
    if (*n == NCAT) return 0;
    v[(*n)++] = name;
  }
  if (!(*sent & 1u << i)) {
    *sent |= 1u << i;
    interned_add(s, field, (uint64_t)i + 1, name, strlen(name));
  }
  return (uint64_t)i + 1;
}

/* small_iid_slow, first the common case inline: the same literal, already
 * sent on this sequence. */
static inline uint64_t small_iid(pstate *s, const char **v, int *n, uint32_t *sent,
                                 const char *name, unsigned field) {
  for (int i = 0; i < *n; i++)
    if (v[i] == name) {
      if (*sent & 1u << i) return (uint64_t)i + 1;
      break;
    }
  return small_iid_slow(s, v, n, sent, name, field);
}

/* Track uuids: small varints, derived from the track alone so that both
 * workers name the same track the same way.  The low 3 bits say the kind:
 * 0 hashed, 1 GPU queue, 2 api thread, 3 lane or frame track, 4 process,
 * 5 counter, 6 HSA thread. */
static uint64_t hashed_uuid(int64_t a, int64_t b) {
  uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull ^ (uint64_t)b * 0xC2B2AE3D27D4EB4Full;
  return (h ^ (h >> 29)) << 3;   /* kind 0 */
}

static uint64_t process_uuid(int64_t pid) {
  return pid >= 0 && pid < ((int64_t)1 << 40) ? (uint64_t)pid << 3 | 4 : hashed_uuid(pid, -1);
}

static uint64_t track_uuid(const track_info *t) {
  if (t->tid >= LANE_TIDS_A && t->tid < ((int64_t)1 << 31))
    return (uint64_t)(t->tid - LANE_TIDS_A) << 3 | 3;
  if (t->kind == TRACK_OP && t->pid >= 0 && t->pid < 4096 && t->tid >= 0 && t->tid < 65536)
    return ((uint64_t)t->pid << 16 | (uint64_t)t->tid) << 3 | 1;
  if ((t->kind == TRACK_API || t->kind == TRACK_HSA) && t->tid >= 0 &&
      t->tid < ((int64_t)1 << 40))   /* HSA on tid + 1: apart from a thread tid + 1 */
    return (uint64_t)t->tid << 3 | (t->kind == TRACK_HSA ? 6 : 2);
  return hashed_uuid(t->pid, t->tid);
}

static int gpu_kind(int kind) { return kind == TRACK_OP || kind == TRACK_GRAPH || kind == TRACK_FRAME; }

/* Describe pid's process track once (on sequence q): "GPU<n>" or
 * "Process <n>". */
static uint64_t describe_process(conv *c, pstate *s, const pseq *q, int64_t pid, int gpu) {
  uint64_t uuid = process_uuid(pid);
  int64_t dummy;
  char name[48];
  if (idmap_get(&s->tracks, (int64_t)uuid, &dummy)) return uuid;
  idmap_put(&s->tracks, (int64_t)uuid, 1);
  snprintf(name, sizeof name, gpu ? "GPU%lld" : "Process %lld", (long long)pid);
  pkt_begin(s, q);
  s->te.len = 0;
  pb_varint(&s->te, F_TD_UUID, uuid);
  s->sub.len = 0;
  pb_varint(&s->sub, F_PD_PID, (uint64_t)pid);
  pb_bytes(&s->sub, F_PD_NAME, name, strlen(name));
  pb_msg(&s->te, F_TD_PROCESS, &s->sub);
  pb_msg(&s->pkt, F_PKT_TRACK_DESC, &s->te);
  emit_packet(c, s);
  return uuid;
}

/* The sequence of track t, described once (an event at ts is coming). */
static pseq *describe_track(conv *c, pstate *s, const track_info *t, int64_t ts) {
  uint64_t uuid = track_uuid(t);
  int64_t dummy;
  char name[64];
  pseq *q = seq_of(c, s, uuid, ts);
  if (q->described) return q;
  q->described = 1;
  if (idmap_get(&s->tracks, (int64_t)uuid, &dummy)) return q;
  uint64_t parent = describe_process(c, s, q, t->pid, gpu_kind(t->kind));
  idmap_put(&s->tracks, (int64_t)uuid, 1);
  track_name(t, name, sizeof name);
  pkt_begin(s, q);
  s->te.len = 0;
  pb_varint(&s->te, F_TD_UUID, uuid);
  if ((t->kind == TRACK_API || t->kind == TRACK_HSA) && !t->lane) {
    s->sub.len = 0;
    pb_varint(&s->sub, F_THD_PID, (uint64_t)t->pid);
    pb_varint(&s->sub, F_THD_TID, (uint64_t)t->tid);
    pb_bytes(&s->sub, F_THD_NAME, name, strlen(name));
    pb_msg(&s->te, F_TD_THREAD, &s->sub);
  } else {
    pb_varint(&s->te, F_TD_PARENT, parent);
    pb_bytes(&s->te, F_TD_NAME, name, strlen(name));
  }
  pb_msg(&s->pkt, F_PKT_TRACK_DESC, &s->te);
  emit_packet(c, s);
  return q;
}

/* A text being looked up in an index: its iid from a string-table entry's
 * cache, else (have = 1) its bytes made valid UTF-8 and their hash, the
 * index's slot and "seen" entry for it asked of the memory ahead of the
 * look-up (look_finish) while other work is done. */
typedef struct look {
  uint64_t iid, h;
  txt v;
  int have;
} look;

static inline void look_begin(look *L, const intern *t, const txt *v0, const uint32_t *cache,
                              rpd_buf *fix) {
  L->iid = cache ? *cache : 0;
  L->have = 0;
  if (L->iid) return;
  const char *p = v0->e ? v0->e->raw : v0->s;
  size_t n = v0->e ? v0->e->rawlen : v0->n;
  int clean;
  L->have = 1;
  L->h = 0;
  if (intern_skip(t, n, !v0->e)) {   /* inline: only made valid */
    L->v = valid_utf8(fix, v0);
    return;
  }
  if (v0->e && v0->e->clean) {
    L->h = text_hash(p, n);
    L->v = txt_s(p, n);
  } else {
    L->h = text_hash_check(p, n, &clean);
    L->v = txt_s(p, n);
    if (!clean) {
      rpd_buf_reset(fix);
      utf8_repair(fix, p, n);
      L->v = txt_s(fix->s, fix->len);
      L->h = text_hash(L->v.s, L->v.n);
    }
  }
  if (t->cap) __builtin_prefetch(&t->slot[L->h & (t->cap - 1)]);   /* no branch on the hash */
  if (t->seen) __builtin_prefetch(&t->seen[(L->h >> 20) & (SEEN_SLOTS - 1)]);
}

/* The iid of the text of look_begin in index t (sent along when new on
 * sequence q: set bit in *sent), or 0 and the text to write inline in *inl
 * (valid until fix's next use: repaired texts go there).  A string-table
 * entry remembers its iid in *cache. */
static inline uint64_t look_finish(pstate *s, intern *t, bits *sent, unsigned id_field,
                                   const txt *v0, uint32_t *cache, look *L, txt *inl,
                                   rpd_buf *fix) {
  uint64_t iid = L->iid;
  int fresh;
  if (!iid) {
    iid = intern_get(t, L->v.s, L->v.n, L->h, !v0->e, v0->e && v0->e->common, &fresh);
    if (cache) *cache = (uint32_t)iid;
    if (!iid) {
      *inl = L->v;
      return 0;
    }
  }
  if (!bits_test_set(sent, iid)) {
    if (!L->have) L->v = valid_utf8(fix, v0);
    interned_add(s, id_field, iid, L->v.s, L->v.n);
  }
  return iid;
}

/* The bytes of a piece of text. */
static inline const char *txt_bytes(const txt *t, size_t *n) {
  *n = t->e ? t->e->rawlen : t->n;
  return t->e ? t->e->raw : t->s;
}

/* 1 when a is a `desc` that says nothing the event does not: empty, or the
 * event's name again (UserMarker ranges: the marker text is both).  The
 * JSON writes it, as the reference does; the protobuf leaves it out. */
static inline int arg_redundant(const arg *a, const txt *name) {
  size_t an, nn;
  const char *k = a->key;   /* "desc", without a call */
  if (a->is_int || k[0] != 'd' || k[1] != 'e' || k[2] != 's' || k[3] != 'c' || k[4]) return 0;
  const char *ap = txt_bytes(&a->text, &an), *np = txt_bytes(name, &nn);
  return !an || (an == nn && (ap == np || !memcmp(ap, np, an)));
}

/* A slice, an instant (dur < 0) or a flow end point (flow != 0).  What the
 * TrackEvent refers to is looked up first, in the order of its fields (the
 * category, the name, the argument's key and value: the InternedData
 * entries come in that order), so that the packet's bound is known; then
 * the packet goes straight into the sink. */
static void event(conv *c, const char *cat, const track_info *t, const txt *name, int64_t ts,
                  int64_t dur, const arg *a, uint64_t flow, int flow_end) {
  pstate *s = st_of(c);
  sink *k = &c->out;
  int has_arg = a && !arg_redundant(a, name);
  uint32_t *ncache = name->e ? &((name_ent *)name->e)->name_iid : NULL;
  uint32_t *vcache = has_arg && a->text.e ? &((name_ent *)a->text.e)->value_iid : NULL;
  look ln, lv;
  look_begin(&ln, &s->names, name, ncache, &s->utf8);
  if (has_arg && !a->is_int) look_begin(&lv, &s->values, &a->text, vcache, &s->utf8v);
  pseq *q = describe_track(c, s, t, ts);
  flush_ends(c, q, ts);
  s->interned.len = 0;
  uint64_t kcat = small_iid(s, s->cats, &s->ncats, &q->cats, cat, F_ID_CATEGORIES);
  size_t catn = kcat ? 0 : strlen(cat);
  txt vn = {0}, vv = {0};
  uint64_t niid = look_finish(s, &s->names, &q->names, F_ID_EVENT_NAMES, name, ncache, &ln, &vn,
                              &s->utf8);
  uint64_t kkey = 0, viid = 0;
  size_t keyn = 0;
  if (has_arg) {
    kkey = small_iid(s, s->anns, &s->nanns, &q->anns, a->key, F_ID_ANN_NAMES);
    if (!kkey) keyn = strlen(a->key);   /* the key inline: never with the writer's few keys */
    if (!a->is_int)
      viid = look_finish(s, &s->values, &q->values, F_ID_ANN_STRINGS, &a->text, vcache, &lv, &vv,
                         &s->utf8v);
  }
  ev_room(k, EV_BOUND + catn + vn.n + keyn + vv.n + s->interned.len + 12 * (c->nflow_from + 1));
  uint8_t *p = evpkt_begin(k, q, ts), *te = p, *da;
  p = w_open(p, F_PKT_TRACK_EVENT);
  p = w_varint(p, F_TE_TYPE, dur < 0 ? TYPE_INSTANT : TYPE_SLICE_BEGIN);
  if (kcat) p = w_varint(p, F_TE_CATEGORY_IIDS, kcat);
  else p = w_bytes(p, F_TE_CATEGORIES, cat, catn);
  if (niid) p = w_varint(p, F_TE_NAME_IID, niid);
  else p = w_bytes(p, F_TE_NAME, vn.s, vn.n);
  if (has_arg) {   /* a DebugAnnotation */
    p = w_open(da = p, F_TE_DEBUG_ANN);
    if (kkey) p = w_varint(p, F_DA_NAME_IID, kkey);
    else p = w_bytes(p, F_DA_NAME, a->key, keyn);
    if (a->is_int) p = w_varint(p, F_DA_INT, (uint64_t)a->ival);
    else if (viid) p = w_varint(p, F_DA_STRING_IID, viid);
    else p = w_bytes(p, F_DA_STRING, vv.s, vv.n);
    p = w_close(da, da + 2, p);
  }
  if (flow) p = w_varint(p, flow_end ? F_TE_TERMINATING_FLOW_IDS_OLD : F_TE_FLOW_IDS_OLD, flow);
  for (size_t i = 0; i < c->nflow_from; i++)   /* an api call's own flows */
    p = w_varint(p, F_TE_FLOW_IDS_OLD, (uint64_t)c->flow_from[i]);
  evpkt_end(k, s, te, p);
  c->out.nevents++;
  if (dur >= 0) ends_push(&q->ends, ts + dur);
}

static void proto_slice(conv *c, const char *cat, const track_info *t, txt name, int64_t ts,
                        int64_t dur, const arg *a, int64_t flow_end) {
  event(c, cat, t, &name, ts, dur < 0 ? 0 : dur, a, (uint64_t)flow_end, 1);
}

static void proto_instant(conv *c, const char *cat, const track_info *t, txt name, int64_t ts,
                          const arg *a) {
  event(c, cat, t, &name, ts, -1, a, 0, 0);
}

/* A flow starts on the api call's own event (c->flow_from) and ends on the
 * op slice (flow_on_op_slice); only a link out of api order starts at an
 * instant on the call's track, inside the call (as the JSON's "s"). */
static void proto_flow(conv *c, int64_t id, const track_info *t, int64_t ts, int end) {
  txt name = txt_z("api_op");
  event(c, "api_op", t, &name, ts, -1, NULL, (uint64_t)id, end);
}

/* The sequence of counter series (pid, name) of this worker, its track
 * described once. */
static pseq *counter_track(conv *c, pstate *s, int64_t pid, const char *name, int64_t ts) {
  size_t i;
  for (i = 0; i < s->ncounters; i++)   /* the first byte before a call */
    if (s->cpid[i] == pid && s->cname[i][0] == name[0] && !strcmp(s->cname[i], name)) break;
  uint64_t uuid = ((uint64_t)s->worker << 24 | i) << 3 | 5;
  pseq *q = seq_of(c, s, uuid, ts);
  if (i < s->ncounters) return q;
  uint64_t parent = describe_process(c, s, q, pid, 1);
  s->cpid = rpd_xrealloc(s->cpid, (i + 1) * sizeof *s->cpid);
  s->cname = rpd_xrealloc(s->cname, (i + 1) * sizeof *s->cname);
  s->cpid[i] = pid;
  s->cname[i] = rpd_xstrdup(name);
  s->ncounters++;
  txt z = txt_z(name), v = valid_utf8(&s->utf8, &z);
  pkt_begin(s, q);
  s->te.len = 0;
  pb_varint(&s->te, F_TD_UUID, uuid);
  pb_varint(&s->te, F_TD_PARENT, parent);
  pb_bytes(&s->te, F_TD_NAME, v.s, v.n);
  s->sub.len = 0;
  pb_msg(&s->te, F_TD_COUNTER, &s->sub);
  pb_msg(&s->pkt, F_PKT_TRACK_DESC, &s->te);
  emit_packet(c, s);
  return q;
}

static void proto_counter(conv *c, const char *cat, int64_t pid, const char *name, int64_t ts,
                          const char *key, int is_int, int64_t ival, double dval) {
  pstate *s = st_of(c);
  sink *k = &c->out;
  (void)cat;
  (void)key;
  pseq *q = counter_track(c, s, pid, name, ts);
  if (!is_int && dval >= -9007199254740992.0 && dval <= 9007199254740992.0 &&
      dval == (double)(int64_t)dval && !(dval == 0 && signbit(dval))) {
    is_int = 1;   /* a whole number: a varint, not 8 bytes (Perfetto keeps doubles) */
    ival = (int64_t)dval;
  }
  s->interned.len = 0;
  ev_room(k, EV_BOUND);
  uint8_t *p = evpkt_begin(k, q, ts), *te = p;
  p = w_open(p, F_PKT_TRACK_EVENT);
  p = w_varint(p, F_TE_TYPE, TYPE_COUNTER);
  if (is_int) {
    p = w_varint(p, F_TE_COUNTER_VALUE, (uint64_t)ival);
  } else {
    p = w_double(p, F_TE_DOUBLE_COUNTER_VALUE, dval);
  }
  evpkt_end(k, s, te, p);
  c->out.nevents++;
}

/* The worker wrote its last event: the slice ends still held back, sequence
 * by sequence in the order they were made. */
static void proto_flush(conv *c) {
  pstate *s = c->wstate;
  if (!s) return;
  for (size_t i = 0; i < s->nseqs; i++) flush_ends(c, &s->seqs[i], INT64_MAX);
}

/* Names travel in the track descriptors. */
static void proto_name(conv *c, int64_t pid, int64_t tid, const char *name, int64_t sort) {
  (void)c;
  (void)pid;
  (void)tid;
  (void)name;
  (void)sort;
}

static void proto_begin(sink *s, int array) {
  (void)s;
  (void)array;
}

static void proto_done(conv *c) {
  pstate *s = c->wstate;
  if (!s) return;
  idmap_free(&s->tracks);
  idmap_free(&s->seqmap);
  for (size_t i = 0; i < s->nseqs; i++) {
    free(s->seqs[i].ends.v);
    free(s->seqs[i].names.w);
    free(s->seqs[i].values.w);
  }
  free(s->seqs);
  intern_free(&s->names);
  intern_free(&s->values);
  for (size_t i = 0; i < s->ncounters; i++) free(s->cname[i]);
  free(s->cname);
  free(s->cpid);
  free(s->pkt.p);
  free(s->te.p);
  free(s->interned.p);
  free(s->sub.p);
  free(s->entry.p);
  rpd_buf_free(&s->utf8);
  rpd_buf_free(&s->utf8v);
  free(s);
  c->wstate = NULL;
}

/* Perfetto protobuf (.pftrace). */
const writer proto_writer = {
  "proto", proto_begin, proto_begin, proto_slice, proto_instant, proto_counter, proto_flow,
  proto_name, proto_done, 1, proto_flush,
};
