/* patch_fuzz.h - the file-patching fuzz targets' shared parts (fuzz_pages,
 * fuzz_rawscan; header only): a base SQLite file made once from SQL, and
 * each input applied to a copy of it as 3-byte patches (a 16-bit offset,
 * a byte to store there). */
#ifndef PATCH_FUZZ_H
#define PATCH_FUZZ_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Report a broken property or setup (target: the fuzz target's name)
 * and abort. */
static inline void pf_die(const char *target, const char *what, const char *detail)
{
  fprintf(stderr, "%s: %s%s%s\n", target, what, detail ? ": " : "", detail ? detail : "");
  abort();
}

/* A new temp file path[size] ("/tmp/TARGET.XXXXXX") made by sql; returns
 * its bytes (*n of them; the caller keeps them for the whole run). */
static inline unsigned char *pf_make_base(const char *target, const char *sql, char *path,
                                          size_t size, size_t *n)
{
  sqlite3 *db = NULL;
  unsigned char *b;
  FILE *f;
  int fd;

  snprintf(path, size, "/tmp/%s.XXXXXX", target);
  if ((fd = mkstemp(path)) < 0) pf_die(target, "cannot make a temp file", NULL);
  close(fd);
  unlink(path);
  if (sqlite3_open(path, &db) != SQLITE_OK ||
      sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
    pf_die(target, "cannot make the base file", sqlite3_errmsg(db));
  sqlite3_close(db);
  if (!(f = fopen(path, "rb"))) pf_die(target, "cannot read the base file", NULL);
  fseek(f, 0, SEEK_END);
  *n = (size_t)ftell(f);
  rewind(f);
  b = malloc(*n);
  if (!b || fread(b, 1, *n, f) != *n) pf_die(target, "cannot read the base file", NULL);
  fclose(f);
  return b;
}

/* base (n bytes) with the input's patches applied, written to path; no
 * journal, WAL or shared-memory file of an earlier input is left. */
static inline void pf_write_patched(const char *target, const char *path,
                                    const unsigned char *base, size_t n, const uint8_t *data,
                                    size_t size)
{
  unsigned char *b = malloc(n);
  char side[96];
  FILE *f;

  if (!b) pf_die(target, "out of memory", NULL);
  memcpy(b, base, n);
  for (size_t i = 0; i + 3 <= size; i += 3) b[((size_t)data[i] << 8 | data[i + 1]) % n] = data[i + 2];
  if (!(f = fopen(path, "wb")) || fwrite(b, 1, n, f) != n || fclose(f))
    pf_die(target, "cannot write the patched file", NULL);
  free(b);
  snprintf(side, sizeof side, "%s-journal", path);
  unlink(side);
  snprintf(side, sizeof side, "%s-wal", path);
  unlink(side);
  snprintf(side, sizeof side, "%s-shm", path);
  unlink(side);
}

#endif
