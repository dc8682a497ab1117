/* fuzz_input.h - helpers shared by the fuzz targets (header only: each
 * target is one translation unit plus librpdcommon).
 *
 *   fz_str      the input as a NUL-terminated copy (caller frees)
 *   fz          a cursor over the input: bytes, integers, strings
 *   fz_fail     report a broken property (with the detail) and abort */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* data[0..size) as a new NUL-terminated string (embedded NULs end it
 * early, as they would in any C caller).  The caller frees it. */
static inline char *fz_str(const uint8_t *data, size_t size)
{
  char *s = malloc(size + 1);
  if (!s)
    abort();
  memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

typedef struct fz {
  const uint8_t *p;
  size_t n;
} fz;

/* One byte (0 when the input is used up). */
static inline unsigned fz_byte(fz *f)
{
  if (!f->n)
    return 0;
  f->n--;
  return *f->p++;
}

/* n bytes as an unsigned integer, little-endian (missing bytes are 0). */
static inline uint64_t fz_bits(fz *f, int n)
{
  uint64_t v = 0;
  for (int i = 0; i < n; i++)
    v |= (uint64_t)fz_byte(f) << (8 * i);
  return v;
}

/* A string of at most max bytes: a length byte, then the bytes.  Points
 * into the input (not NUL-terminated); *len gets its length. */
static inline const char *fz_bytes(fz *f, size_t max, size_t *len)
{
  size_t n = fz_byte(f);
  const char *s = (const char *)f->p;
  if (n > max)
    n = max;
  if (n > f->n)
    n = f->n;
  f->p += n;
  f->n -= n;
  *len = n;
  return s;
}

/* A property the target checks does not hold: say which (detail may be
 * NULL) and abort, which libFuzzer records as a crash. */
static inline void fz_fail(const char *what, const char *detail)
{
  fprintf(stderr, "fuzz: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  abort();
}

#endif
