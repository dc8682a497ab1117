#include "tracing.h"
#include "textsafe.h"

/* Perfetto's native protobuf trace (perfetto.protos.Trace), written with a
 * small wire encoder: varints, fixed64, doubles and length-delimited
 * fields.  Each worker is one packet sequence (trusted_packet_sequence_id
 * 1 for A, 2 for B) with its own interning state: event names, categories,
 * debug annotation names and repeated string values are sent once per
 * sequence and then referred to by iid.  Tracks are described by a
 * TrackDescriptor before their first event (a process track per pid, a
 * thread track per api thread, a child track per GPU queue lane, graph or
 * marker frame track, a counter track per series); a slice is a
 * TYPE_SLICE_BEGIN and a TYPE_SLICE_END packet.  The subset of the schema
 * used is tests/proto/perfetto_trace.proto; field numbers below are
 * Perfetto's. */

/* Trace and TracePacket */
#define F_TRACE_PACKET 1
#define F_PKT_TIMESTAMP 8
#define F_PKT_SEQ_ID 10
#define F_PKT_TRACK_EVENT 11
#define F_PKT_INTERNED 12
#define F_PKT_SEQ_FLAGS 13
#define F_PKT_TRACK_DESC 60
#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define SEQ_NEEDS_INCREMENTAL_STATE 2
/* TrackDescriptor, ProcessDescriptor, ThreadDescriptor */
#define F_TD_UUID 1
#define F_TD_NAME 2
#define F_TD_PROCESS 3
#define F_TD_THREAD 4
#define F_TD_PARENT 5
#define F_TD_COUNTER 8
#define F_PD_PID 1
#define F_PD_NAME 6
#define F_THD_PID 1
#define F_THD_TID 2
#define F_THD_NAME 5
/* TrackEvent */
#define F_TE_CATEGORY_IIDS 3
#define F_TE_DEBUG_ANN 4
#define F_TE_TYPE 9
#define F_TE_NAME_IID 10
#define F_TE_TRACK_UUID 11
#define F_TE_NAME 23
#define F_TE_COUNTER_VALUE 30
#define F_TE_DOUBLE_COUNTER_VALUE 44
#define F_TE_FLOW_IDS 47
#define F_TE_TERMINATING_FLOW_IDS 48
#define TYPE_SLICE_BEGIN 1
#define TYPE_SLICE_END 2
#define TYPE_INSTANT 3
#define TYPE_COUNTER 4
/* DebugAnnotation */
#define F_DA_NAME_IID 1
#define F_DA_INT 4
#define F_DA_STRING 6
#define F_DA_STRING_IID 17
/* InternedData and its entries (iid = 1, name/str = 2) */
#define F_ID_CATEGORIES 1
#define F_ID_EVENT_NAMES 2
#define F_ID_ANN_NAMES 3
#define F_ID_ANN_STRINGS 29

#define WIRE_VARINT 0
#define WIRE_FIXED64 1
#define WIRE_LEN 2

/* ------------------------------------------------------------ encoder */

/* A growable byte buffer for one message being built. */
typedef struct pb {
  uint8_t *p;
  size_t len, cap;
} pb;

static inline __attribute__((always_inline)) void pb_room(pb *b, size_t n) {
  if (b->len + n <= b->cap) return;
  b->cap = (b->len + n) * 2 + 64;
  b->p = rpd_xrealloc(b->p, b->cap);
}

static inline __attribute__((always_inline)) size_t put_varint(uint8_t *q, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    q[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  q[n++] = (uint8_t)v;
  return n;
}

static inline __attribute__((always_inline)) void pb_varint(pb *b, unsigned field, uint64_t v) {
  pb_room(b, 20);
  b->len += put_varint(b->p + b->len, (uint64_t)field << 3 | WIRE_VARINT);
  b->len += put_varint(b->p + b->len, v);
}

static void pb_fixed64(pb *b, unsigned field, uint64_t v) {
  pb_room(b, 20);
  b->len += put_varint(b->p + b->len, (uint64_t)field << 3 | WIRE_FIXED64);
  for (int i = 0; i < 8; i++) b->p[b->len++] = (uint8_t)(v >> (8 * i));
}

static void pb_double(pb *b, unsigned field, double d) {
  uint64_t v;
  memcpy(&v, &d, sizeof v);
  pb_fixed64(b, field, v);
}

static void pb_bytes(pb *b, unsigned field, const void *s, size_t n) {
  pb_room(b, n + 20);
  b->len += put_varint(b->p + b->len, (uint64_t)field << 3 | WIRE_LEN);
  b->len += put_varint(b->p + b->len, n);
  memcpy(b->p + b->len, s, n);
  b->len += n;
}

static void pb_msg(pb *b, unsigned field, const pb *inner) { pb_bytes(b, field, inner->p, inner->len); }

/* ------------------------------------------------------------ state */

/* Text -> iid, by content, for one interning index.  Bounded: once full,
 * new strings are written inline instead. */
#define INTERN_MAX 16384
#define INTERN_LONGEST 4096   /* longer strings are written inline */

typedef struct intern {
  uint64_t *hash;       /* 0 = empty slot */
  uint32_t *iid;
  char **text;
  uint32_t *len;
  size_t n, cap;
  uint64_t next;        /* next iid */
  /* strings that are not string-table entries are interned only while
   * they repeat: after RAW_TRIAL lookups with fewer than 1 in 16 found,
   * they are written inline */
  uint64_t raw_lookups, raw_hits;
  char **chunks;        /* the texts, packed into 1 MB chunks */
  size_t nchunks, chunk_used;
} intern;

#define CHUNK ((size_t)1 << 20)

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

typedef struct pstate {
  uint32_t seq;             /* trusted_packet_sequence_id */
  int cleared;              /* the first packet (SEQ_INCREMENTAL_STATE_CLEARED) is out */
  idmap tracks;             /* uuids already described */
  intern names, values;
  const char *cats[NCAT];   /* category iid = index + 1 */
  int ncats;
  const char *anns[NCAT];   /* debug annotation name iid = index + 1 */
  int nanns;
  /* counter series of this sequence: (pid, name) -> uuid */
  int64_t *cpid;
  char **cname;
  size_t ncounters;
  pb pkt, te, ann, interned, sub, entry;   /* scratch messages */
  rpd_buf utf8;             /* names made valid UTF-8 */
  uint64_t seen[64];        /* cache of described uuids, by uuid % 64 */
} pstate;

static pstate *st_of(conv *c) {
  if (!c->wstate) {
    pstate *s = rpd_xcalloc(1, sizeof *s);
    s->seq = (uint32_t)c->worker;
    s->names.next = s->values.next = 1;
    c->wstate = s;
  }
  return c->wstate;
}

/* A hash of n bytes, 8 at a time (never 0: 0 marks an empty slot). */
static uint64_t text_hash(const char *s, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ n, w;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    memcpy(&w, s + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  w = 0;
  memcpy(&w, s + i, n - i);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 29;
  return h ? h : 1;
}

/* The iid of s in t; *fresh = 1 when it is new (the caller sends it).
 * 0 when the table is full, s too long, or s a raw string (raw = 1) of a
 * kind that does not repeat: write s inline. */
static uint64_t intern_get(intern *t, const char *s, size_t n, int raw, int *fresh) {
  size_t j;
  *fresh = 0;
  if (n > INTERN_LONGEST) return 0;
  if (raw && t->raw_lookups >= RAW_TRIAL && t->raw_hits * 16 < t->raw_lookups) return 0;
  uint64_t h = text_hash(s, n);
  t->raw_lookups += raw;
  if (t->cap) {
    for (j = h & (t->cap - 1); t->hash[j]; j = (j + 1) & (t->cap - 1))
      if (t->hash[j] == h && t->len[j] == n && !memcmp(t->text[j], s, n)) {
        t->raw_hits += raw;
        return t->iid[j];
      }
  }
  if (t->n >= INTERN_MAX) return 0;
  if (2 * (t->n + 1) > t->cap) {
    size_t ncap = t->cap ? t->cap * 2 : 1024;
    uint64_t *nh = rpd_xcalloc(ncap, sizeof *nh);
    uint32_t *ni = rpd_xmalloc(ncap * sizeof *ni), *nl = rpd_xmalloc(ncap * sizeof *nl);
    char **nt = rpd_xmalloc(ncap * sizeof *nt);
    for (size_t i = 0; i < t->cap; i++) {
      if (!t->hash[i]) continue;
      for (j = t->hash[i] & (ncap - 1); nh[j]; j = (j + 1) & (ncap - 1)) {}
      nh[j] = t->hash[i];
      ni[j] = t->iid[i];
      nl[j] = t->len[i];
      nt[j] = t->text[i];
    }
    free(t->hash);
    free(t->iid);
    free(t->len);
    free(t->text);
    t->hash = nh;
    t->iid = ni;
    t->len = nl;
    t->text = nt;
    t->cap = ncap;
  }
  for (j = h & (t->cap - 1); t->hash[j]; j = (j + 1) & (t->cap - 1)) {}
  t->hash[j] = h;
  t->iid[j] = (uint32_t)t->next;
  t->len[j] = (uint32_t)n;
  t->text[j] = intern_alloc(t, n);   /* n <= INTERN_LONGEST < CHUNK */
  memcpy(t->text[j], s, n);
  t->n++;
  *fresh = 1;
  return t->next++;
}

static void intern_free(intern *t) {
  for (size_t i = 0; i < t->nchunks; i++) free(t->chunks[i]);
  free(t->chunks);
  free(t->hash);
  free(t->iid);
  free(t->len);
  free(t->text);
}

/* The n bytes at s up to the first NUL, made valid UTF-8 by the common
 * text rules (textsafe.h: each invalid sequence becomes U+FFFD), as the JSON
 * writer's escaping keeps them (rpd_json_escape). */
static void utf8_repair(rpd_buf *b, const char *s, size_t n) {
  const char *nul = memchr(s, 0, n);
  rpd_text_safe_n(b, s, nul ? (size_t)(nul - s) : n, RPD_TEXT_CSV);
}

/* Protobuf strings must be UTF-8: see utf8_repair. */
static txt valid_utf8(pstate *s, txt t) {
  const char *p = t.e ? t.e->raw : t.s;
  size_t n = t.e ? t.e->rawlen : t.n;
  const unsigned char *u = (const unsigned char *)p;
  size_t i = 0;
  if (t.e && t.e->clean) return txt_s(p, n);
  for (; i + 8 <= n; i += 8) {   /* 8 bytes at a time: no high bit, no NUL */
    uint64_t w;
    memcpy(&w, u + i, 8);
    if ((w & 0x8080808080808080ull) || ((w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull))
      break;
  }
  while (i < n && u[i] < 0x80 && u[i]) i++;
  if (i == n) return txt_s(p, n);
  rpd_buf_reset(&s->utf8);
  utf8_repair(&s->utf8, p, n);
  return txt_s(s->utf8.s, s->utf8.len);
}

/* ------------------------------------------------------------ packets */

/* Write the packet being built (s->pkt) as one Trace.packet field. */
static void emit_packet(conv *c, pstate *s) {
  sink *k = &c->out;
  uint8_t hdr[16];
  size_t h = put_varint(hdr, F_TRACE_PACKET << 3 | WIRE_LEN);
  h += put_varint(hdr + h, s->pkt.len);
  size_t need = h + s->pkt.len;
  if (k->len + need > k->cap) {
    sink_flush(k);
    if (need > k->cap) {
      k->cap = need;
      k->buf = rpd_xrealloc(k->buf, k->cap);
    }
  }
  memcpy(k->buf + k->len, hdr, h);
  memcpy(k->buf + k->len + h, s->pkt.p, s->pkt.len);
  k->len += need;
  s->pkt.len = 0;
}

/* Start a packet: its sequence, and the flags of the sequence's first one. */
static void pkt_begin(pstate *s) {
  s->pkt.len = 0;
  s->interned.len = 0;
  pb_varint(&s->pkt, F_PKT_SEQ_ID, s->seq);
  if (!s->cleared) {   /* the others use the state without saying so */
    pb_varint(&s->pkt, F_PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED | SEQ_NEEDS_INCREMENTAL_STATE);
    s->cleared = 1;
  }
}

/* Add an interned entry {iid, text} to field `field` of the packet's
 * InternedData. */
static void interned_add(pstate *s, unsigned field, uint64_t iid, const char *t, size_t n) {
  s->entry.len = 0;
  pb_varint(&s->entry, 1, iid);
  pb_bytes(&s->entry, 2, t, n);
  pb_msg(&s->interned, field, &s->entry);
}

/* The iid of a category or annotation name from a small fixed set. */
static uint64_t small_iid(pstate *s, const char **v, int *n, const char *name, unsigned field) {
  for (int i = 0; i < *n; i++)
    if (v[i] == name || !strcmp(v[i], name)) return (uint64_t)i + 1;
  if (*n == NCAT) return 0;
  v[*n] = name;
  interned_add(s, field, (uint64_t)*n + 1, name, strlen(name));
  return (uint64_t)++*n;
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

/* Describe pid's process track once: "GPU<n>" or "Process <n>". */
static uint64_t describe_process(conv *c, pstate *s, int64_t pid, int gpu) {
  uint64_t uuid = process_uuid(pid);
  int64_t dummy;
  char name[48];
  if (idmap_get(&s->tracks, (int64_t)uuid, &dummy)) return uuid;
  idmap_put(&s->tracks, (int64_t)uuid, 1);
  snprintf(name, sizeof name, gpu ? "GPU%lld" : "Process %lld", (long long)pid);
  pkt_begin(s);
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

/* Describe track t once; returns its uuid. */
static uint64_t describe_track(conv *c, pstate *s, const track_info *t) {
  uint64_t uuid = track_uuid(t);
  int64_t dummy;
  char name[64];
  if (s->seen[uuid % 64] == uuid) return uuid;
  s->seen[uuid % 64] = uuid;
  if (idmap_get(&s->tracks, (int64_t)uuid, &dummy)) return uuid;
  uint64_t parent = describe_process(c, s, t->pid, gpu_kind(t->kind));
  idmap_put(&s->tracks, (int64_t)uuid, 1);
  track_name(t, name, sizeof name);
  pkt_begin(s);
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
  return uuid;
}

/* The event name: an iid (sent along when new) or inline.  A string-table
 * entry remembers its iid. */
static void te_name(pstate *s, txt name) {
  int fresh;
  if (name.e && name.e->name_iid) {
    pb_varint(&s->te, F_TE_NAME_IID, name.e->name_iid);
    return;
  }
  txt v = valid_utf8(s, name);
  uint64_t iid = intern_get(&s->names, v.s, v.n, !name.e, &fresh);
  if (fresh) interned_add(s, F_ID_EVENT_NAMES, iid, v.s, v.n);
  if (name.e) ((name_ent *)name.e)->name_iid = (uint32_t)iid;
  if (iid) pb_varint(&s->te, F_TE_NAME_IID, iid);
  else pb_bytes(&s->te, F_TE_NAME, v.s, v.n);
}

static void te_arg(pstate *s, const arg *a) {
  int fresh;
  if (!a) return;
  s->ann.len = 0;
  pb_varint(&s->ann, F_DA_NAME_IID, small_iid(s, s->anns, &s->nanns, a->key, F_ID_ANN_NAMES));
  if (a->is_int) {
    pb_varint(&s->ann, F_DA_INT, (uint64_t)a->ival);
  } else if (a->text.e && a->text.e->value_iid) {
    pb_varint(&s->ann, F_DA_STRING_IID, a->text.e->value_iid);
  } else {
    txt v = valid_utf8(s, a->text);
    uint64_t iid = intern_get(&s->values, v.s, v.n, !a->text.e, &fresh);
    if (fresh) interned_add(s, F_ID_ANN_STRINGS, iid, v.s, v.n);
    if (a->text.e) ((name_ent *)a->text.e)->value_iid = (uint32_t)iid;
    if (iid) pb_varint(&s->ann, F_DA_STRING_IID, iid);
    else pb_bytes(&s->ann, F_DA_STRING, v.s, v.n);
  }
  pb_msg(&s->te, F_TE_DEBUG_ANN, &s->ann);
}

/* Finish the packet: timestamp, the TrackEvent in s->te, interned data. */
static void pkt_event(conv *c, pstate *s, int64_t ts) {
  pb_varint(&s->pkt, F_PKT_TIMESTAMP, (uint64_t)ts);
  pb_msg(&s->pkt, F_PKT_TRACK_EVENT, &s->te);
  if (s->interned.len) pb_msg(&s->pkt, F_PKT_INTERNED, &s->interned);
  emit_packet(c, s);
}

/* A slice, an instant (dur < 0) or a flow end point (flow != 0). */
static void event(conv *c, const char *cat, const track_info *t, txt name, int64_t ts,
                  int64_t dur, const arg *a, uint64_t flow, int flow_end) {
  pstate *s = st_of(c);
  uint64_t uuid = describe_track(c, s, t);
  pkt_begin(s);
  s->te.len = 0;
  pb_varint(&s->te, F_TE_TYPE, dur < 0 ? TYPE_INSTANT : TYPE_SLICE_BEGIN);
  pb_varint(&s->te, F_TE_TRACK_UUID, uuid);
  pb_varint(&s->te, F_TE_CATEGORY_IIDS, small_iid(s, s->cats, &s->ncats, cat, F_ID_CATEGORIES));
  te_name(s, name);
  te_arg(s, a);
  if (flow) pb_fixed64(&s->te, flow_end ? F_TE_TERMINATING_FLOW_IDS : F_TE_FLOW_IDS, flow);
  pkt_event(c, s, ts);
  c->out.nevents++;
  if (dur < 0) return;
  pkt_begin(s);
  s->te.len = 0;
  pb_varint(&s->te, F_TE_TYPE, TYPE_SLICE_END);
  pb_varint(&s->te, F_TE_TRACK_UUID, uuid);
  pkt_event(c, s, ts + dur);
}

static void proto_slice(conv *c, const char *cat, const track_info *t, txt name, int64_t ts,
                        int64_t dur, const arg *a, int64_t flow_end) {
  event(c, cat, t, name, ts, dur < 0 ? 0 : dur, a, (uint64_t)flow_end, 1);
}

static void proto_instant(conv *c, const char *cat, const track_info *t, txt name, int64_t ts,
                          const arg *a) {
  event(c, cat, t, name, ts, -1, a, 0, 0);
}

/* A flow starts at an instant on the api call's track, inside the call (as
 * the JSON's "s" event), and ends on the op slice (flow_on_op_slice). */
static void proto_flow(conv *c, int64_t id, const track_info *t, int64_t ts, int end) {
  event(c, "api_op", t, txt_z("api_op"), ts, -1, NULL, (uint64_t)id, end);
}

/* The uuid of counter series (pid, name) of this sequence, described once. */
static uint64_t counter_track(conv *c, pstate *s, int64_t pid, const char *name) {
  size_t i;
  for (i = 0; i < s->ncounters; i++)
    if (s->cpid[i] == pid && !strcmp(s->cname[i], name)) break;
  uint64_t uuid = ((uint64_t)s->seq << 24 | i) << 3 | 5;
  if (i < s->ncounters) return uuid;
  uint64_t parent = describe_process(c, s, pid, 1);
  s->cpid = rpd_xrealloc(s->cpid, (i + 1) * sizeof *s->cpid);
  s->cname = rpd_xrealloc(s->cname, (i + 1) * sizeof *s->cname);
  s->cpid[i] = pid;
  s->cname[i] = rpd_xstrdup(name);
  s->ncounters++;
  txt v = valid_utf8(s, txt_z(name));
  pkt_begin(s);
  s->te.len = 0;
  pb_varint(&s->te, F_TD_UUID, uuid);
  pb_varint(&s->te, F_TD_PARENT, parent);
  pb_bytes(&s->te, F_TD_NAME, v.s, v.n);
  s->sub.len = 0;
  pb_msg(&s->te, F_TD_COUNTER, &s->sub);
  pb_msg(&s->pkt, F_PKT_TRACK_DESC, &s->te);
  emit_packet(c, s);
  return uuid;
}

static void proto_counter(conv *c, const char *cat, int64_t pid, const char *name, int64_t ts,
                          const char *key, int is_int, int64_t ival, double dval) {
  pstate *s = st_of(c);
  (void)cat;
  (void)key;
  uint64_t uuid = counter_track(c, s, pid, name);
  pkt_begin(s);
  s->te.len = 0;
  pb_varint(&s->te, F_TE_TYPE, TYPE_COUNTER);
  pb_varint(&s->te, F_TE_TRACK_UUID, uuid);
  if (is_int) pb_varint(&s->te, F_TE_COUNTER_VALUE, (uint64_t)ival);
  else pb_double(&s->te, F_TE_DOUBLE_COUNTER_VALUE, dval);
  pkt_event(c, s, ts);
  c->out.nevents++;
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
  intern_free(&s->names);
  intern_free(&s->values);
  for (size_t i = 0; i < s->ncounters; i++) free(s->cname[i]);
  free(s->cname);
  free(s->cpid);
  free(s->pkt.p);
  free(s->te.p);
  free(s->ann.p);
  free(s->interned.p);
  free(s->sub.p);
  free(s->entry.p);
  rpd_buf_free(&s->utf8);
  free(s);
  c->wstate = NULL;
}

/* Perfetto protobuf (.pftrace). */
const writer proto_writer = {
  "proto", proto_begin, proto_begin, proto_slice, proto_instant, proto_counter, proto_flow,
  proto_name, proto_done, 1,
};
