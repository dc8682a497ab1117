/* strings.c - rpd-synth's string ids: rocpd_string / rocpd_ustring rows,
 * each string inserted once (a string -> id map). */
#include "synth.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ strings */

/* FNV-1a of s (the string map; stack frames of an api call). */
uint64_t synth_hash_str(const char *s)
{
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

static void strmap_grow(strmap *m)
{
  size_t ncap = m->cap ? m->cap * 2 : 4096;
  char **nk = rpd_xcalloc(ncap, sizeof *nk);
  int64_t *ni = rpd_xcalloc(ncap, sizeof *ni);
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->key[i])
      continue;
    size_t j = synth_hash_str(m->key[i]) & (ncap - 1);
    while (nk[j])
      j = (j + 1) & (ncap - 1);
    nk[j] = m->key[i];
    ni[j] = m->id[i];
  }
  free(m->key);
  free(m->id);
  m->key = nk;
  m->id = ni;
  m->cap = ncap;
}

/* Free the map's keys and slots. */
void synth_strmap_free(strmap *m)
{
  for (size_t i = 0; i < m->cap; i++)
    free(m->key[i]);
  free(m->key);
  free(m->id);
}

/* Step a write statement to completion and reset it; SQLite status. */
int synth_put(sqlite3_stmt *st)
{
  int src = sqlite3_step(st);
  sqlite3_reset(st);
  return src == SQLITE_DONE ? SQLITE_OK : src;
}

/* Id of s in rocpd_string, inserting it when new. */
int synth_string_id(synth *s, const char *str, int64_t *id)
{
  strmap *m = &s->strings;
  size_t j;
  if ((m->n + 1) * 2 > m->cap)
    strmap_grow(m);
  j = synth_hash_str(str) & (m->cap - 1);
  while (m->key[j]) {
    if (strcmp(m->key[j], str) == 0) {
      *id = m->id[j];
      return SQLITE_OK;
    }
    j = (j + 1) & (m->cap - 1);
  }
  m->key[j] = rpd_xstrdup(str);
  m->id[j] = *id = s->next_str++;
  m->n++;
  sqlite3_bind_int64(s->ins_str, 1, *id);
  sqlite3_bind_text(s->ins_str, 2, str, -1, SQLITE_STATIC);
  return synth_put(s->ins_str);
}

/* Id of an api args string: v2 interns it in rocpd_string; v3 appends a new
 * rocpd_ustring row per non-empty args, as the tracer does ("" is id 1). */
int synth_args_id(synth *s, const char *str, int64_t *id)
{
  if (s->schema == 2)
    return synth_string_id(s, str, id);
  if (!*str) {
    *id = 1;
    return SQLITE_OK;
  }
  *id = s->next_ustr++;
  sqlite3_bind_int64(s->ins_ustr, 1, *id);
  sqlite3_bind_text(s->ins_ustr, 2, str, -1, SQLITE_STATIC);
  return synth_put(s->ins_ustr);
}
