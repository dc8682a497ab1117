/* strtab.c - string interning over rocpd_string / rocpd_ustring.
 *
 * An open-addressing hash map caches string -> id for the strings a tool
 * touches.  A miss asks the database (SELECT by string; the tracer's files
 * index the column); when the column has no index, the whole table is read
 * once instead so that lookups never scan it repeatedly.  New strings are
 * inserted with one prepared INSERT in the caller's transaction. */
#include "rpd.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *s;     /* NULL = empty slot; points into the arena */
  uint64_t hash;
  int64_t id;
} slot;

struct arena_block {
  struct arena_block *next;
  size_t used, cap;
  char data[];
};

struct rpd_strtab {
  rpd *r;
  char *table;
  sqlite3_stmt *find, *ins;
  slot *slots;
  size_t cap, n;             /* cap is a power of two */
  int all_loaded;            /* the cache holds the whole table */
  struct arena_block *arena;
};

static uint64_t hash_str(const char *s, size_t n)
{
  uint64_t h = 1469598103934665603ULL;       /* FNV-1a, then a final mix */

  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 1099511628211ULL;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h;
}

static const char *arena_dup(rpd_strtab *t, const char *s, size_t n)
{
  struct arena_block *b = t->arena;

  if (!b || b->cap - b->used < n + 1) {
    size_t cap = n + 1 > 65536 ? n + 1 : 65536;
    b = rpd_xmalloc(sizeof *b + cap);
    b->used = 0;
    b->cap = cap;
    b->next = t->arena;
    t->arena = b;
  }
  char *p = b->data + b->used;
  memcpy(p, s, n);
  p[n] = 0;
  b->used += n + 1;
  return p;
}

/* The slot for s: either holding s or the empty slot where it belongs. */
static slot *lookup_slot(rpd_strtab *t, const char *s, size_t n, uint64_t h)
{
  size_t mask = t->cap - 1, i = (size_t)h & mask;

  for (;;) {
    slot *e = &t->slots[i];
    if (!e->s || (e->hash == h && strncmp(e->s, s, n) == 0 && e->s[n] == 0)) return e;
    i = (i + 1) & mask;
  }
}

static void grow(rpd_strtab *t)
{
  slot *old = t->slots;
  size_t oldcap = t->cap;

  t->cap = oldcap ? oldcap * 2 : 1024;
  t->slots = rpd_xcalloc(t->cap, sizeof *t->slots);
  for (size_t i = 0; i < oldcap; i++) {
    if (!old[i].s) continue;
    size_t j = (size_t)old[i].hash & (t->cap - 1);
    while (t->slots[j].s) j = (j + 1) & (t->cap - 1);
    t->slots[j] = old[i];
  }
  free(old);
}

/* Cache (s, id); an existing entry keeps its (smaller, earlier) id. */
static void cache_put(rpd_strtab *t, const char *s, size_t n, uint64_t h, int64_t id)
{
  if ((t->n + 1) * 4 > t->cap * 3) grow(t);
  slot *e = lookup_slot(t, s, n, h);
  if (e->s) return;
  e->s = arena_dup(t, s, n);
  e->hash = h;
  e->id = id;
  t->n++;
}

/* 1 if some index on the table starts with column "string". */
static int string_indexed(rpd *r, const char *table)
{
  sqlite3_stmt *st = NULL;
  int found = 0;

  if (sqlite3_prepare_v2(r->db,
                         "SELECT 1 FROM pragma_index_list(?1) AS il, "
                         "pragma_index_info(il.name) AS ii "
                         "WHERE ii.seqno = 0 AND ii.name = 'string'",
                         -1, &st, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
  found = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return found;
}

/* Read the whole table into the cache (for tables without an index). */
static int load_all(rpd_strtab *t)
{
  sqlite3_stmt *st = NULL;
  char *sql = sqlite3_mprintf("SELECT id, string FROM \"%w\" ORDER BY id", t->table);
  int rc = rpd_prepare(t->r, sql, &st), s;

  sqlite3_free(sql);
  if (rc) return rc;
  while ((s = rpd_step(t->r, st)) == SQLITE_ROW) {
    const char *v = (const char *)sqlite3_column_text(st, 1);
    if (!v) continue;
    size_t n = (size_t)sqlite3_column_bytes(st, 1);
    if (memchr(v, 0, n)) continue;           /* embedded NUL: unreachable by C strings */
    cache_put(t, v, n, hash_str(v, n), sqlite3_column_int64(st, 0));
  }
  if (s < 0) rc = -s;
  sqlite3_finalize(st);
  if (!rc) t->all_loaded = 1;
  return rc;
}

int rpd_strtab_open(rpd *r, const char *table, rpd_strtab **out)
{
  rpd_strtab *t;
  char *sql;
  int rc;

  *out = NULL;
  if (!table || (strcmp(table, "rocpd_string") != 0 && strcmp(table, "rocpd_ustring") != 0))
    return rpd_seterr(RPD_ERR, "string table must be rocpd_string or rocpd_ustring, not '%s'",
                      table ? table : "(null)");
  if (!rpd_table_exists(r, table))
    return rpd_seterr(RPD_ENOTRPD, "not an RPD trace: missing table %s", table);
  t = rpd_xcalloc(1, sizeof *t);
  t->r = r;
  t->table = rpd_xstrdup(table);
  grow(t);
  if (string_indexed(r, table)) {
    sql = sqlite3_mprintf("SELECT id FROM \"%w\" WHERE string = ?1 ORDER BY id LIMIT 1", table);
    rc = rpd_prepare(r, sql, &t->find);
    sqlite3_free(sql);
  } else {
    rc = load_all(t);
  }
  if (rc) {
    rpd_strtab_free(t);
    return rc;
  }
  *out = t;
  return RPD_OK;
}

/* Cached or stored id of s; RPD_ENOTFOUND if it is in neither. */
static int find(rpd_strtab *t, const char *s, size_t n, uint64_t h, int64_t *id)
{
  slot *e = lookup_slot(t, s, n, h);
  int rc = RPD_OK, st;

  if (e->s) {
    *id = e->id;
    return RPD_OK;
  }
  if (t->all_loaded || !t->find) return RPD_ENOTFOUND;
  sqlite3_reset(t->find);
  sqlite3_bind_text(t->find, 1, s, (int)n, SQLITE_STATIC);
  st = rpd_step(t->r, t->find);
  if (st == SQLITE_ROW) {
    *id = sqlite3_column_int64(t->find, 0);
    cache_put(t, s, n, h, *id);
  } else {
    rc = st < 0 ? -st : RPD_ENOTFOUND;
  }
  sqlite3_reset(t->find);
  sqlite3_clear_bindings(t->find);
  return rc;
}

int rpd_strtab_find(rpd_strtab *t, const char *s, int64_t *id)
{
  size_t n = strlen(s);
  int rc = find(t, s, n, hash_str(s, n), id);

  if (rc == RPD_ENOTFOUND) rpd_seterr(rc, "string not in %s", t->table);
  return rc;
}

int rpd_strtab_id(rpd_strtab *t, const char *s, int64_t *id)
{
  size_t n = strlen(s);
  uint64_t h = hash_str(s, n);
  int rc = find(t, s, n, h, id), st;

  if (rc != RPD_ENOTFOUND) return rc;
  if (!t->ins) {
    char *sql = sqlite3_mprintf("INSERT INTO \"%w\"(string) VALUES (?1)", t->table);
    rc = rpd_prepare(t->r, sql, &t->ins);
    sqlite3_free(sql);
    if (rc) return rc;
  }
  sqlite3_bind_text(t->ins, 1, s, (int)n, SQLITE_STATIC);
  st = rpd_step(t->r, t->ins);
  sqlite3_reset(t->ins);
  sqlite3_clear_bindings(t->ins);
  if (st < 0) return -st;
  *id = sqlite3_last_insert_rowid(t->r->db);
  cache_put(t, s, n, h, *id);
  return RPD_OK;
}

int rpd_strtab_cached(rpd_strtab *t, const char *s, int64_t *id)
{
  size_t n = strlen(s);
  slot *e = lookup_slot(t, s, n, hash_str(s, n));

  if (!e->s) return RPD_ENOTFOUND;
  *id = e->id;
  return RPD_OK;
}

void rpd_strtab_free(rpd_strtab *t)
{
  if (!t) return;
  sqlite3_finalize(t->find);
  sqlite3_finalize(t->ins);
  while (t->arena) {
    struct arena_block *b = t->arena;
    t->arena = b->next;
    free(b);
  }
  free(t->slots);
  free(t->table);
  free(t);
}
