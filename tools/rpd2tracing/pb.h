/* pb.h - the protobuf wire encoder of rpd2tracing's Perfetto writer
 * (proto.c): varints, fixed64, doubles and length-delimited fields appended
 * to a growable buffer.  Inline: they are the writer's hot path. */
#ifndef RPD2TRACING_PB_H
#define RPD2TRACING_PB_H
#include "rpd.h"

#include <stdint.h>
#include <string.h>

#define WIRE_VARINT 0
#define WIRE_FIXED64 1
#define WIRE_LEN 2

/* A growable byte buffer for one message being built. */
typedef struct pb {
  uint8_t *p;
  size_t len, cap;
} pb;

/* Room for n more bytes in b. */
static inline __attribute__((always_inline)) void pb_room(pb *b, size_t n) {
  if (b->len + n <= b->cap) return;
  b->cap = (b->len + n) * 2 + 64;
  b->p = rpd_xrealloc(b->p, b->cap);
}

/* v as a base-128 varint at q (at most 10 bytes); returns its length. */
static inline __attribute__((always_inline)) size_t put_varint(uint8_t *q, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    q[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  q[n++] = (uint8_t)v;
  return n;
}

/* v as 8 little-endian bytes at q; returns 8. */
static inline size_t put_fixed64(uint8_t *q, uint64_t v) {
  for (int i = 0; i < 8; i++) q[i] = (uint8_t)(v >> (8 * i));
  return 8;
}

/* Field `field` as a varint (wire type 0). */
static inline __attribute__((always_inline)) void pb_varint(pb *b, unsigned field, uint64_t v) {
  pb_room(b, 20);
  b->len += put_varint(b->p + b->len, (uint64_t)field << 3 | WIRE_VARINT);
  b->len += put_varint(b->p + b->len, v);
}

/* Field `field` as 8 little-endian bytes (wire type 1). */
static inline void pb_fixed64(pb *b, unsigned field, uint64_t v) {
  pb_room(b, 20);
  b->len += put_varint(b->p + b->len, (uint64_t)field << 3 | WIRE_FIXED64);
  b->len += put_fixed64(b->p + b->len, v);
}

/* A double as fixed64: its IEEE-754 bits. */
static inline void pb_double(pb *b, unsigned field, double d) {
  uint64_t v;
  memcpy(&v, &d, sizeof v);
  pb_fixed64(b, field, v);
}

/* Field `field` as a length-delimited run of n bytes (wire type 2). */
static inline void pb_bytes(pb *b, unsigned field, const void *s, size_t n) {
  pb_room(b, n + 20);
  b->len += put_varint(b->p + b->len, (uint64_t)field << 3 | WIRE_LEN);
  b->len += put_varint(b->p + b->len, n);
  memcpy(b->p + b->len, s, n);
  b->len += n;
}

#endif
