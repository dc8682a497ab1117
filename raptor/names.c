/* names.c - raptor's engine: kernel names and categories, the bottom of the
 * engine (load.c and analyze.c use it; it uses neither). */
#include <stdlib.h>
#include <string.h>

#include "catfile.h"
#include "rpd.h"
#include "raptor.h"

/* ------------------------------------------------------------ hashing */

uint64_t hash_bytes(const void *p, size_t n, uint64_t h)
{
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) {
    h ^= s[i];
    h *= 1099511628211ULL;
  }
  return h;
}

void islots_init(islots *t, size_t cap)
{
  t->cap = cap;
  t->v = rpd_xmalloc(cap * sizeof *t->v);
  memset(t->v, 0xff, cap * sizeof *t->v);
}

/* ------------------------------------------------------------ categories */

int categories_load(raptor *R)
{
  R->res.cats = rpd_xcalloc(1, sizeof *R->res.cats);
  R->res.cats[0].name = rpd_xstrdup(IDLE_CAT);
  R->res.cats[0].re = rpd_xmalloc(sizeof *R->res.cats[0].re);
  if (rpd_regex_compile("^GAP ", &R->res.cats[0].re[0]) != RPD_OK)
    return raptor_fail(R, 1, "internal regex: %s", rpd_errmsg());
  R->res.cats[0].npat = 1;
  R->res.ncats = 1;
  int rc = category_load_or_builtin(&R->res.cats, &R->res.ncats, R->opt.cat_file);
  if (rc) return raptor_fail(R, 1, "%s", rpd_errmsg());
  /* names: categories, then _Other and _Latency unless the file has them */
  R->res.catname = rpd_xmalloc((R->res.ncats + 2) * sizeof *R->res.catname);
  R->res.cat_other = R->res.cat_latency = -1;
  for (int i = 0; i < R->res.ncats; i++) {
    R->res.catname[i] = R->res.cats[i].name;
    if (strcmp(R->res.cats[i].name, OTHER_CAT) == 0) R->res.cat_other = i;
    if (strcmp(R->res.cats[i].name, LATENCY_CAT) == 0) R->res.cat_latency = i;
  }
  R->res.cat_comm = category_comm_index(R->res.cats, R->res.ncats);
  int k = R->res.ncats;
  if (R->res.cat_other < 0) { R->res.catname[k] = OTHER_CAT; R->res.cat_other = k++; }
  if (R->res.cat_latency < 0) { R->res.catname[k] = LATENCY_CAT; R->res.cat_latency = k++; }
  return 0;
}

/* Category of a kernel name: the last category with a matching pattern.
 * A search PCRE2 cannot finish is kept in R->cat_error (the run fails
 * with it after analyze) and counts as _Other until then. */
int category_of(raptor *R, const char *name)
{
  int cat;
  if (category_match(R->res.cats, R->res.ncats, name, &cat) != RPD_OK) {
    if (!R->cat_error) R->cat_error = rpd_xstrdup(rpd_errmsg());
    cat = -1;
  }
  return cat >= 0 ? cat : R->res.cat_other;
}

/* ------------------------------------------------------------ kernel names */

int32_t name_intern(raptor *R, const char *s)
{
  size_t len = strlen(s);
  if (R->res.nnames * 2 >= R->name_slots.cap) {
    free(R->name_slots.v);
    islots_init(&R->name_slots, R->name_slots.cap ? R->name_slots.cap * 2 : 1024);
    for (size_t i = 0; i < R->res.nnames; i++) {
      size_t m = R->name_slots.cap - 1;
      size_t h = hash_bytes(R->res.names[i], strlen(R->res.names[i]), 14695981039346656037ULL) & m;
      while (R->name_slots.v[h] >= 0) h = (h + 1) & m;
      R->name_slots.v[h] = (int32_t)i;
    }
  }
  size_t m = R->name_slots.cap - 1;
  size_t h = hash_bytes(s, len, 14695981039346656037ULL) & m;
  while (R->name_slots.v[h] >= 0) {
    if (strcmp(R->res.names[R->name_slots.v[h]], s) == 0) return R->name_slots.v[h];
    h = (h + 1) & m;
  }
  if (R->res.nnames == R->res.capnames) {
    R->res.capnames = R->res.capnames ? R->res.capnames * 2 : 256;
    R->res.names = rpd_xrealloc(R->res.names, R->res.capnames * sizeof *R->res.names);
  }
  R->res.names[R->res.nnames] = rpd_xstrdup(s);
  R->name_slots.v[h] = (int32_t)R->res.nnames;
  return (int32_t)R->res.nnames++;
}

int32_t key_start_name(raptor *R)
{
  if (R->opt.reference_ops || R->opt.seqlen <= 0)
    return -1;
  return name_intern(R, "(trace start)");
}
