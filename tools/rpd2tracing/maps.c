#include "tracing.h"

static size_t pair_hash(int64_t a, int64_t b) {
  uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull ^ (uint64_t)b * 0xC2B2AE3D27D4EB4Full;
  return (size_t)(h ^ (h >> 29));
}

size_t pair_get(pairmap *m, int64_t a, int64_t b) {
  size_t j;
  if (2 * (m->n + 1) > m->cap) {
    size_t ncap = m->cap ? m->cap * 2 : 64;
    int32_t *ns = rpd_xcalloc(ncap, sizeof *ns);
    for (size_t i = 0; i < m->n; i++) {
      j = pair_hash(m->a[i], m->b[i]) & (ncap - 1);
      while (ns[j]) j = (j + 1) & (ncap - 1);
      ns[j] = (int32_t)i + 1;
    }
    free(m->slot);
    m->slot = ns;
    m->cap = ncap;
  }
  j = pair_hash(a, b) & (m->cap - 1);
  while (m->slot[j]) {
    size_t i = (size_t)m->slot[j] - 1;
    if (m->a[i] == a && m->b[i] == b) return i;
    j = (j + 1) & (m->cap - 1);
  }
  if (m->n == m->vcap) {
    m->vcap = m->vcap ? m->vcap * 2 : 32;
    m->a = rpd_xrealloc(m->a, m->vcap * sizeof *m->a);
    m->b = rpd_xrealloc(m->b, m->vcap * sizeof *m->b);
  }
  m->a[m->n] = a;
  m->b[m->n] = b;
  m->slot[j] = (int32_t)m->n + 1;
  return m->n++;
}

void pair_free(pairmap *m) {
  free(m->a);
  free(m->b);
  free(m->slot);
}


static void names_clear(names *t) {
  for (size_t i = 0; i < t->cap; i++) {
    free(t->slot[i].json);
    free(t->slot[i].raw);
    t->slot[i].raw = NULL;
    t->slot[i].json = NULL;
  }
  t->n = 0;
}

/* Make the table big enough for `more` new entries at half load.  Moves
 * every entry: never between the lookups of one row. */
static void names_room(names *t, size_t more) {
  size_t j;
  if (2 * (t->n + more) <= t->cap) return;
  size_t ncap = t->cap ? t->cap * 2 : 256;
  while (2 * (t->n + more) > ncap) ncap *= 2;
  name_ent *ns = rpd_xcalloc(ncap, sizeof *ns);
  for (size_t i = 0; i < t->cap; i++) {
    if (!t->slot[i].json) continue;
    j = pair_hash(t->slot[i].id, 0) & (ncap - 1);
    while (ns[j].json) j = (j + 1) & (ncap - 1);
    ns[j] = t->slot[i];
  }
  free(t->slot);
  t->slot = ns;
  t->cap = ncap;
}

/* Empty the cache when full, and make room for a row's lookups (up to 4);
 * call before them so that the entries returned for one row stay valid
 * while it is written (growing the table in the middle of a row moved the
 * entries a first lookup had returned). */
void names_trim(names *t) {
  if (t->n + 4 > t->max) names_clear(t);
  names_room(t, 4);
}

/* The entry for id (a missing string is ""); NULL on an SQL error.  Owned
 * by the cache, valid until the next names_trim. */
const name_ent *names_get(sink *k, names *t, int64_t id) {
  size_t j;
  names_room(t, 1);   /* no-op after names_trim: the row's room is there */
  j = pair_hash(id, 0) & (t->cap - 1);
  while (t->slot[j].json) {
    if (t->slot[j].id == id) return &t->slot[j];
    j = (j + 1) & (t->cap - 1);
  }
  sqlite3_bind_int64(t->look, 1, id);
  int s = sqlite3_step(t->look);
  if (s != SQLITE_ROW && s != SQLITE_DONE) {
    sqlite3_reset(t->look);
    return NULL;
  }
  const char *str = s == SQLITE_ROW ? col_text(t->look, 0) : "";
  size_t n = strlen(str);
  name_ent *e = &t->slot[j];
  e->json = rpd_xmalloc(ESC_MAX(n));
  e->len = (uint32_t)(w_str(k, e->json, str) - e->json);
  e->marker = strcmp(str, "UserMarker") == 0;
  e->opclass = OPC_UNKNOWN;
  e->raw = rpd_xmalloc(n + 1);
  memcpy(e->raw, str, n + 1);
  e->rawlen = (uint32_t)n;
  e->clean = 1;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)str[i] >= 0x80) e->clean = 0;
  e->name_iid = e->value_iid = 0;
  e->common = (uint8_t)t->common;
  e->id = id;
  sqlite3_reset(t->look);
  t->n++;
  return e;
}

void names_free(names *t) {
  if (t->slot) names_clear(t);
  free(t->slot);
  sqlite3_finalize(t->look);
}
