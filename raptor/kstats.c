/* kstats.c - raptor --format kernel-stats / api-stats / copy-stats /
 * domain-stats: the statistics files rocprofv3 --stats writes
 * (kernel_stats.csv, hip_api_stats.csv, memory_copy_stats.csv,
 * domain_stats.csv), byte for byte in rocprofv3's layout:
 *
 *   "Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev"
 *
 * Rows by TotalDurationNs descending (then name); AverageNs %.6f;
 * Percentage of the file's total: %.2f at >= 1, %.4f at >= 0.01, else
 * %.3e; StdDev the sample standard deviation (n - 1), %.6f, or %.8e below
 * 0.01 (so 0 prints 0.00000000e+00, as rocprofv3 does).  Reached from
 * raptor.c's main (one hook line) when --format names one of these. */
#include "opt.h"

static const rpd_help help = {
  .usage = "usage: raptor FILE.rpd --format STATS [-o OUT.csv] [--domain NAME] [-q]",
  .about =
    "Write one of rocprofv3's --stats files from an RPD trace, in exactly\n"
    "rocprofv3's CSV layout (\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\n"
    "\"Percentage\",\"MinNs\",\"MaxNs\",\"StdDev\"):\n"
    "  kernel-stats   kernel_stats.csv: kernels (op class kernel) by name\n"
    "  copy-stats     memory_copy_stats.csv: copies by opType\n"
    "  api-stats      hip_api_stats.csv: api calls by name (--domain HIP, the\n"
    "                 default; HSA, ROCTX, RCCL, ... for the others)\n"
    "  domain-stats   domain_stats.csv: one row per domain (KERNEL_DISPATCH,\n"
    "                 MEMORY_COPY, HIP_API, HSA_API, MARKER_API, ...)",
};

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpd.h"
#include "opclass.h"
#include "util/map.h"
#include "textsafe.h"
#include "kstats.h"
#include "intscan.h"

enum { KS_KERNEL, KS_COPY, KS_API, KS_DOMAIN };

static const char *const ks_names[] = {
  "kernel-stats", "copy-stats", "api-stats", "domain-stats", NULL
};

int raptor_kstats_format(const char *name)
{
  for (int i = 0; ks_names[i]; i++)
    if (!strcmp(name, ks_names[i]))
      return 1;
  return 0;
}

/* The api domain of each rocpd_api row A (joined with its name N): the
 * domain column on schema v3 when set, else from the name (schema v2 and
 * rpd_tracer traces leave it empty): UserMarker -> ROCTX, hsa_* -> HSA,
 * hip* and __hip* -> HIP, the rest (the tracer's own ranges) OTHER.  On
 * schema v3 the source joins the domain's string as D (ks_domain_join). */
static char *ks_domain(int schema)
{
  const char *guess = "CASE WHEN N.string = 'UserMarker' THEN 'ROCTX'"
                      " WHEN N.string GLOB 'hsa_*' THEN 'HSA' WHEN N.string GLOB 'hip*'"
                      " OR N.string GLOB '__hip*' THEN 'HIP' ELSE 'OTHER' END";
  if (schema != 3)
    return sqlite3_mprintf("%s", guess);
  return sqlite3_mprintf("CASE WHEN D.string <> '' THEN D.string ELSE %s END", guess);
}

/* The join giving ks_domain its D on schema v3: one look-up per row (two
 * correlated sub-selects cost twice that). */
static const char *ks_domain_join(int schema)
{
  return schema == 3 ? " LEFT JOIN rocpd_string D ON D.id = A.domain_id" : "";
}

/* The durations to aggregate, as "SELECT name, dur" SQL in *out (new
 * text, free with sqlite3_free).  RPD_OK or an error. */
static int ks_source(rpd *r, int which, char **out)
{
  int schema = rpd_schema(r);
  char *kern = NULL, *copy = NULL, *sql = NULL;
  *out = NULL;
  if (which == KS_API) {
    kern = rpd_xstrdup("0");   /* not used */
    copy = rpd_xstrdup("0");
  } else {
    int rc = rpd_opclass_condition_now(r, "O.opType_id", RPD_OPCLASS_BIT(RPD_OPCLASS_KERNEL),
                                       &kern);
    if (!rc)
      rc = rpd_opclass_condition_now(r, "O.opType_id", RPD_OPCLASS_BIT(RPD_OPCLASS_COPY),
                                     &copy);
    if (rc) {
      free(kern);
      return rc;
    }
  }
  char *dom = ks_domain(schema);
  switch (which) {
  case KS_KERNEL:
    sql = sqlite3_mprintf("SELECT S.string AS name, O.end - O.start AS dur FROM rocpd_op O"
                          " JOIN rocpd_string S ON S.id = O.description_id WHERE %s", kern);
    break;
  case KS_COPY:
    sql = sqlite3_mprintf("SELECT S.string AS name, O.end - O.start AS dur FROM rocpd_op O"
                          " JOIN rocpd_string S ON S.id = O.opType_id WHERE %s", copy);
    break;
  case KS_API:
    /* the ids and durations only: ks_api resolves each (name, domain)
     * pair once instead of two string look-ups and the domain's CASE per
     * row; same rows in the same (rowid) order as the join gave them */
    sql = sqlite3_mprintf("SELECT A.apiName_id, %s, A.end - A.start FROM rocpd_api A",
                          schema == 3 ? "A.domain_id" : "NULL");
    break;
  default:
    /* rocprofv3's domain names: HIP -> HIP_API, ROCTX -> MARKER_API */
    sql = sqlite3_mprintf(
      "SELECT 'KERNEL_DISPATCH' AS name, O.end - O.start AS dur FROM rocpd_op O WHERE %s"
      " UNION ALL SELECT 'MEMORY_COPY', O.end - O.start FROM rocpd_op O WHERE %s"
      " UNION ALL SELECT CASE (%s) WHEN 'ROCTX' THEN 'MARKER_API'"
      "   ELSE upper(%s) || '_API' END, A.end - A.start"
      " FROM rocpd_api A JOIN rocpd_string N ON N.id = A.apiName_id%s", kern, copy, dom, dom,
      ks_domain_join(schema));
  }
  free(kern);
  free(copy);
  sqlite3_free(dom);
  *out = sql;
  return sql ? RPD_OK : RPD_ENOMEM;
}

/* Percentage as rocprofv3 prints it. */
static void ks_pct(FILE *f, double p)
{
  if (p >= 1.0)
    fprintf(f, "%.2f", p);
  else if (p >= 0.01)
    fprintf(f, "%.4f", p);
  else
    fprintf(f, "%.3e", p);
}

/* One name's statistics while the source is read. */
typedef struct ks_group {
  char *name;
  int64_t n, nv, isum, mn, mx;   /* rows, rows with a duration */
  double rsum, ss;
  int approx;   /* a duration was not an integer */
} ks_group;

/* The groups by name: a 64-bit hash of the name keys the map (the next key
 * on a collision), the value is the group's index. */
typedef struct ks_groups {
  rpd_i64map by_hash;
  ks_group *g;
  size_t n, cap;
} ks_groups;

/* The group of name (added when new). */
static ks_group *ks_group_of(ks_groups *G, const char *name, int add)
{
  uint64_t h = 14695981039346656037ULL;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    h = (h ^ *p) * 1099511628211ULL;
  for (;; h++) {
    int64_t idx;
    if (!rpd_i64map_get(&G->by_hash, (int64_t)h, &idx))
      break;
    if (!strcmp(G->g[idx].name, name))
      return &G->g[idx];
  }
  if (!add)
    return NULL;
  if (G->n == G->cap) {
    G->cap = G->cap ? 2 * G->cap : 64;
    G->g = rpd_xrealloc(G->g, G->cap * sizeof *G->g);
  }
  ks_group *g = &G->g[G->n];
  memset(g, 0, sizeof *g);
  g->name = rpd_xstrdup(name);
  rpd_i64map_put(&G->by_hash, (int64_t)h, (int64_t)G->n++);
  return g;
}

/* The mean as SQLite's avg() gives it: its double running sum over the
 * count. */
static double ks_mean(const ks_group *g)
{
  return g->nv ? g->rsum / (double)g->nv : 0.0;
}

/* Order of the rows: total descending, then name. */
static int ks_cmp(const void *a, const void *b)
{
  const ks_group *x = a, *y = b;
  int64_t tx = x->approx ? (int64_t)x->rsum : x->isum;
  int64_t ty = y->approx ? (int64_t)y->rsum : y->isum;
  if (tx != ty)
    return tx > ty ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* The api calls of one domain read by ids (the KS_API source: apiName_id,
 * domain_id, dur): what the join of the names and the domain's CASE gives
 * a row, (name, in the domain or not), asked once per pair of integer ids
 * and kept; other ids are asked per row (the same statement, the values
 * bound as the row holds them, so the joins compare as the SQL would). */
typedef struct ks_memo {
  int64_t dom, next;         /* domain id; next entry of its apiName_id + 1 */
  int dom_null, in;          /* domain id NULL; 0 out of the domain, 1 in */
  char *name;                /* NULL: a NULL name (in the total, no row) */
} ks_memo;

typedef struct ks_api {
  sqlite3_stmt *q;           /* (N.string, selected) of (?1, ?2) */
  rpd_i64map first;          /* apiName_id -> first entry + 1 */
  ks_memo *m;
  size_t n, cap;
  char *once;                /* the name of an id pair not kept */
} ks_api;

static int ks_api_init(rpd *r, ks_api *a, const char *domain)
{
  int schema = rpd_schema(r);
  char *dom = ks_domain(schema);
  char *sql = sqlite3_mprintf("SELECT N.string, (%s) = %Q COLLATE NOCASE"
                              " FROM (SELECT ?1 AS apiName_id, ?2 AS domain_id) A"
                              " JOIN rocpd_string N ON N.id = A.apiName_id%s",
                              dom, domain, ks_domain_join(schema));
  memset(a, 0, sizeof *a);
  int rc = sql ? rpd_prepare(r, sql, &a->q) : RPD_ENOMEM;
  sqlite3_free(sql);
  sqlite3_free(dom);
  return rc;
}

static void ks_api_free(ks_api *a)
{
  sqlite3_finalize(a->q);
  for (size_t i = 0; i < a->n; i++)
    free(a->m[i].name);
  free(a->m);
  free(a->once);
  rpd_i64map_free(&a->first);
  memset(a, 0, sizeof *a);
}

/* Ask the statement about the ids bound on it: *in (0/1) and *name (new
 * memory or NULL). */
static int ks_api_ask(rpd *r, ks_api *a, int *in, char **name)
{
  int s = rpd_step(r, a->q);
  *in = s == SQLITE_ROW && sqlite3_column_int(a->q, 1);
  const char *t = *in ? (const char *)sqlite3_column_text(a->q, 0) : NULL;
  *name = t ? rpd_xstrdup(t) : NULL;
  sqlite3_reset(a->q);
  return s < 0 ? -s : RPD_OK;
}

/* Whether the call of integer ids name id and domain dom (NULL when
 * dom_null) is in the domain (1) or not (0), its name in *name (valid
 * until the next call); -rc on an error.  Each pair is asked once. */
static int ks_api_ids(rpd *r, ks_api *a, int64_t id, int dom_null, int64_t dom,
                      const char **name)
{
  int64_t e = 0;
  int in = 0, rc;
  if (dom_null)
    dom = 0;
  rpd_i64map_get(&a->first, id, &e);
  for (; e; e = a->m[e - 1].next) {
    const ks_memo *k = &a->m[e - 1];
    if (k->dom_null == dom_null && k->dom == dom) {
      *name = k->name;
      return k->in;
    }
  }
  char *nm = NULL;
  sqlite3_bind_int64(a->q, 1, id);
  if (dom_null)
    sqlite3_bind_null(a->q, 2);
  else
    sqlite3_bind_int64(a->q, 2, dom);
  if ((rc = ks_api_ask(r, a, &in, &nm)))
    return -rc;
  if (a->n == a->cap) {
    a->cap = a->cap ? 2 * a->cap : 16;
    a->m = rpd_xrealloc(a->m, a->cap * sizeof *a->m);
  }
  int64_t head = 0;
  rpd_i64map_get(&a->first, id, &head);
  a->m[a->n] = (ks_memo){ .dom = dom, .next = head, .dom_null = dom_null, .in = in, .name = nm };
  rpd_i64map_put(&a->first, id, (int64_t)++a->n);
  *name = nm;
  return in;
}

/* Whether the api row st is in the domain (1) or not (0), its name in
 * *name (valid until the next call); -rc on an error.  Ids that are not
 * integers are asked as the row holds them, each time (the join compares
 * them as the SQL would). */
static int ks_api_row(rpd *r, ks_api *a, sqlite3_stmt *st, const char **name)
{
  int tn = sqlite3_column_type(st, 0), td = sqlite3_column_type(st, 1), in = 0, rc;
  if (tn != SQLITE_INTEGER || (td != SQLITE_INTEGER && td != SQLITE_NULL)) {
    free(a->once);
    sqlite3_bind_value(a->q, 1, sqlite3_column_value(st, 0));
    sqlite3_bind_value(a->q, 2, sqlite3_column_value(st, 1));
    rc = ks_api_ask(r, a, &in, &a->once);
    *name = a->once;
    return rc ? -rc : in;
  }
  return ks_api_ids(r, a, sqlite3_column_int64(st, 0), td == SQLITE_NULL,
                    sqlite3_column_int64(st, 1), name);
}

/* What pass 1 needs of each row, kept by pass 0 up to KS_KEEP rows (12
 * bytes each) so that pass 1 need not read the source again; past that
 * pass 1 reads it (memory stays bounded). */
enum { KS_KEEP = 1 << 20 };

typedef struct ks_kept {
  double *dur;               /* the row's duration as a double */
  int32_t *grp;              /* its group, -1 for none (NULL name or duration) */
  size_t n;
  int over;                  /* more than KS_KEEP rows: not kept */
} ks_kept;

static void ks_keep(ks_kept *k, int32_t grp, double dur)
{
  if (k->over)
    return;
  if (k->n == KS_KEEP) {
    k->over = 1;
    return;
  }
  if (!(k->n & (k->n - 1))) {   /* 0, 1, 2, 4, ...: grow */
    size_t cap = k->n ? 2 * k->n : 1;
    k->dur = rpd_xrealloc(k->dur, cap * sizeof *k->dur);
    k->grp = rpd_xrealloc(k->grp, cap * sizeof *k->grp);
  }
  k->dur[k->n] = dur;
  k->grp[k->n++] = grp;
}

static void ks_kept_clear(ks_kept *k)
{
  free(k->dur);
  free(k->grp);
  memset(k, 0, sizeof *k);
}

static void ks_groups_clear(ks_groups *G)
{
  for (size_t i = 0; i < G->n; i++)
    free(G->g[i].name);
  free(G->g);
  rpd_i64map_free(&G->by_hash);
  memset(G, 0, sizeof *G);
}

/* Pass 1 over the kept rows: as ks_pass's, in the same row order. */
static void ks_kept_pass(const ks_kept *k, ks_groups *G)
{
  for (size_t i = 0; i < k->n; i++) {
    ks_group *g = k->grp[i] >= 0 ? &G->g[k->grp[i]] : NULL;
    if (g && g->n > 1) {
      double d = k->dur[i] - ks_mean(g);
      g->ss += d * d;
    }
  }
}

/* One row into the statistics: its name (NULL: in the total, no row), its
 * duration's type ty (SQLITE_NULL: none) and value as an integer v and a
 * double dv; pass 0 counts, sums and keeps it, pass 1 sums its squared
 * deviation from its group's mean. */
static void ks_row(ks_groups *G, const char *name, int pass, int ty, int64_t v, double dv,
                   int64_t *total, int *approx, double *rtotal, ks_kept *kept)
{
  if (pass == 1) {
    ks_group *g = name && ty != SQLITE_NULL ? ks_group_of(G, name, 0) : NULL;
    if (g && g->n > 1) {
      double d = dv - ks_mean(g);
      g->ss += d * d;
    }
    return;
  }
  if (ty != SQLITE_NULL) {   /* the file's total counts every duration */
    if (ty == SQLITE_INTEGER)
      *total += v;
    else
      *approx = 1;
    *rtotal += dv;
  }
  if (!name || ty == SQLITE_NULL) {
    if (kept)
      ks_keep(kept, -1, 0);
  }
  if (!name)   /* a NULL name is in the total but has no row */
    return;
  ks_group *g = ks_group_of(G, name, 1);
  g->n++;
  if (ty == SQLITE_NULL)
    return;
  if (kept)
    ks_keep(kept, (int32_t)(g - G->g), dv);
  if (ty != SQLITE_INTEGER)
    g->approx = 1;
  g->nv++;
  g->isum += v;
  g->rsum += dv;
  if (g->nv == 1 || v < g->mn)
    g->mn = v;
  if (g->nv == 1 || v > g->mx)
    g->mx = v;
}

/* Read the source query src once (pass 0: counts, sums, extremes; the rows
 * kept in *kept when not NULL) or again (pass 1: the squared deviations
 * from each group's mean, summed in the same row order as the sums).  With
 * api, src is the KS_API id source (name and domain from ks_api_row, the
 * duration in column 2). */
static int ks_pass(rpd *r, const char *src, ks_api *api, ks_groups *G, int pass,
                   int64_t *total, int *approx, double *rtotal, ks_kept *kept)
{
  sqlite3_stmt *st = NULL;
  int rc = rpd_prepare(r, src, &st), s = 0, dc = api ? 2 : 1;
  while (!rc && (s = rpd_step(r, st)) == SQLITE_ROW) {
    const char *name = NULL;
    if (api) {
      int in = ks_api_row(r, api, st, &name);
      if (in < 0)
        rc = -in;
      if (in <= 0)
        continue;
    } else {
      name = (const char *)sqlite3_column_text(st, 0);
    }
    ks_row(G, name, pass, sqlite3_column_type(st, dc), sqlite3_column_int64(st, dc),
           sqlite3_column_double(st, dc), total, approx, rtotal, kept);
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  return rc;
}

/* ks_pass of the api source read in C (rpd_intscan: a batch per step, or
 * the table's pages read directly, in the same scan order) while every
 * row has integer ids (the domain may be NULL) and times whose difference
 * is an integer: then each row is what the SQL gives.  *done = 1 every
 * row read; 0 at the first row that is not (or a scan that cannot open):
 * what was counted so far is the caller's to clear before ks_pass reads
 * the SQL from the start. */
static int ks_api_pass_int(rpd *r, ks_api *api, ks_groups *G, int pass, int64_t *total,
                           int *approx, double *rtotal, ks_kept *kept, int *done)
{
  enum { C_NAME, C_DOM, C_START, C_END, C_DOM_NULL, NC };
  const unsigned must = 1u << C_NAME | 1u << C_START | 1u << C_END;
  rpd_intscan sc;
  const int64_t *v = NULL;
  unsigned ints = 0;
  int rc = rpd_intscan_open(r, &sc, "SELECT 1 FROM rocpd_api WHERE rpd_intscan(?1, apiName_id,"
                            " domain_id, start, end, domain_id IS NULL)", NC, 0xfu), s = 0;
  *done = 0;
  if (rc) {
    rpd_clearerr();   /* the SQL meets it again */
    return RPD_OK;
  }
  while ((s = rpd_intscan_row(r, &sc, &v, &ints)) == 1) {
    int64_t dur;
    int dom_null = v[C_DOM_NULL] != 0;
    if ((ints & must) != must || (!dom_null && !(ints & 1u << C_DOM)) ||
        __builtin_sub_overflow(v[C_END], v[C_START], &dur))
      break;
    const char *name = NULL;
    int in = ks_api_ids(r, api, v[C_NAME], dom_null, v[C_DOM], &name);
    if (in < 0) {
      rc = -in;
      break;
    }
    if (in)
      ks_row(G, name, pass, SQLITE_INTEGER, dur, (double)dur, total, approx, rtotal, kept);
  }
  rpd_intscan_close(&sc);
  if (!rc && s < 0)
    rc = -s;
  *done = !rc && s == 0;
  return rc;
}

/* Hand each statistics row of the source query src ("SELECT name, dur") to
 * fn.  Two plain reads of the source and no sort of its rows: the first
 * aggregates per name, the second sums the squared deviations from each
 * name's mean (the sample standard deviation, as a two-pass sum keeps it
 * exact); only the groups are sorted.  A NULL name counts in the total but
 * gives no row. */
static int ks_rows(rpd *r, const char *src, const char *api_domain,
                   int (*fn)(void *ctx, const kstats_row *row), void *ctx)
{
  ks_groups G = {0};
  ks_api api;
  int64_t itotal = 0;
  double rtotal = 0;
  int approx = 0;
  ks_kept kept = {0};
  int rc = api_domain ? ks_api_init(r, &api, api_domain) : RPD_OK, in_c = 0;
  /* the api calls read in C when every row allows (else from the start
   * through the SQL) */
  if (!rc && api_domain)
    rc = ks_api_pass_int(r, &api, &G, 0, &itotal, &approx, &rtotal, &kept, &in_c);
  if (!rc && !in_c) {
    ks_groups_clear(&G);
    ks_kept_clear(&kept);
    itotal = 0;
    rtotal = 0;
    approx = 0;
    rc = ks_pass(r, src, api_domain ? &api : NULL, &G, 0, &itotal, &approx, &rtotal, &kept);
  }
  if (!rc && !kept.over) {
    ks_kept_pass(&kept, &G);
  } else if (!rc && in_c) {
    int again = 0;
    rc = ks_api_pass_int(r, &api, &G, 1, &itotal, &approx, &rtotal, NULL, &again);
    if (!rc && !again)
      rc = rpd_seterr(RPD_ERR, "rocpd_api changed while it was read");
  } else if (!rc) {
    rc = ks_pass(r, src, api_domain ? &api : NULL, &G, 1, &itotal, &approx, &rtotal, NULL);
  }
  ks_kept_clear(&kept);
  if (api_domain)
    ks_api_free(&api);
  int64_t total = approx ? (int64_t)rtotal : itotal;
  if (!rc && G.n)
    qsort(G.g, G.n, sizeof *G.g, ks_cmp);
  for (size_t i = 0; !rc && i < G.n; i++) {
    const ks_group *g = &G.g[i];
    kstats_row row;
    row.name = g->name;
    row.calls = g->n;
    row.total = g->approx ? (int64_t)g->rsum : g->isum;
    row.mean = ks_mean(g);
    row.min = g->mn;
    row.max = g->mx;
    row.std = row.calls > 1 ? sqrt(g->ss / (double)(row.calls - 1)) : 0.0;
    row.pct = total ? 100.0 * (double)row.total / (double)total : 0.0;
    rc = fn(ctx, &row);
  }
  ks_groups_clear(&G);
  return rc;
}

/* Where ks_print writes a row. */
typedef struct ks_out {
  FILE *f;
  rpd_buf b;
} ks_out;

/* One row as rocprofv3's CSV line. */
static int ks_print(void *ctx, const kstats_row *row)
{
  ks_out *o = ctx;
  FILE *f = o->f;
  o->b.len = 0;
  rpd_csv_field(&o->b, row->name, 1);   /* always quoted, as rocprofv3 */
  fwrite(o->b.s, 1, o->b.len, f);
  fprintf(f, ",%lld,%lld,%.6f,", (long long)row->calls, (long long)row->total, row->mean);
  ks_pct(f, row->pct);
  fprintf(f, ",%lld,%lld,", (long long)row->min, (long long)row->max);
  fprintf(f, row->std < 0.01 ? "%.8e\n" : "%.6f\n", row->std);
  return RPD_OK;
}

/* Write the statistics rows of the source query src to f. */
static int ks_write(rpd *r, const char *src, const char *api_domain, FILE *f)
{
  ks_out o = {f, {0}};
  fputs("\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\","
        "\"MinNs\",\"MaxNs\",\"StdDev\"\n", f);
  int rc = ks_rows(r, src, api_domain, ks_print, &o);
  rpd_buf_free(&o.b);
  return rc;
}

/* See kstats.h. */
int raptor_api_stats(rpd *r, const char *domain,
                     int (*fn)(void *ctx, const kstats_row *row), void *ctx)
{
  char *src = NULL;
  if (!domain)
    domain = "HIP";
  int rc = ks_source(r, KS_API, &src);
  if (!rc)
    rc = ks_rows(r, src, domain, fn, ctx);
  sqlite3_free(src);
  return rc;
}

/* A value that is not empty into *(const char **)ctx. */
static int value_opt(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  if (!*v) {
    snprintf(msg, msgsz, "%s needs a value", name);
    return -1;
  }
  *(const char **)ctx = v;
  return 0;
}

int raptor_kstats_main(int argc, char **argv)
{
  const char *path = NULL, *out = NULL, *domain = "HIP", *fmt = NULL;
  const rpd_opt opts[] = {
    RPD_OPT_CALL("--format", value_opt, &fmt, .arg = "STATS",
                 .help = "kernel-stats, copy-stats, api-stats or domain-stats (above)"),
    RPD_OPT_CALL("-o|--output", value_opt, &out, .arg = "OUT.csv",
                 .help = "write to OUT.csv (default: stdout)"),
    RPD_OPT_CALL("--domain", value_opt, &domain, .arg = "NAME",
                 .help = "api-stats: the rocpd_api domain to count (default HIP)"),
    RPD_OPT_FLAG("--csv-raw", &rpd_csv_raw,
                 .help = "names as they are (default: a name that starts with = + - @ TAB "
                         "CR gets a leading ', not run as a formula)"),
    RPD_OPT_END(),
  };
  char msg[1024];
  if (rpd_cli_init_opts(argc, argv, &help, opts))
    return rpd_cli_status();
  int n = rpd_opt_parse(opts, 0, argc, argv, msg, sizeof msg);
  if (n == RPD_OPT_EUNKNOWN)   /* which format refused it (the one given so far) */
    return rpd_usage_error("%s with --format %s", msg, fmt ? fmt : "STATS");
  if (n < 0)
    return rpd_usage_error("%s", msg);
  if (n > 1)
    return rpd_usage_error("too many arguments");
  if (n < 1)
    return rpd_usage_error("need FILE.rpd");
  path = argv[0];
  int which = -1;
  for (int i = 0; ks_names[i]; i++)
    if (fmt && !strcmp(fmt, ks_names[i]))
      which = i;
  if (!fmt)   /* `raptor stats FILE` without it */
    return rpd_usage_error("stats needs --format kernel-stats, api-stats, copy-stats or "
                           "domain-stats");
  if (which < 0)
    return rpd_usage_error("bad --format '%s'", fmt);
  if (out && rpd_output_check(out, path, NULL))
    return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());

  rpd *r = NULL;
  if (rpd_open_or_report(&r, path, out, RPD_READ) != RPD_OK)
    return 1;
  rpd_outfile of = {0};
  FILE *f = stdout;
  int rc = RPD_OK;
  if (out) {
    rc = rpd_outfile_begin(&of, out, path);
    f = of.fp;
  }
  char *src = NULL;
  if (!rc)
    rc = ks_source(r, which, &src);
  if (!rc)
    rc = ks_write(r, src, which == KS_API ? domain : NULL, f);
  sqlite3_free(src);
  rpd_close(r, 0);
  if (out) {
    if (rc) {
      rpd_outfile_abort(&of);
      return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
    }
    if (rpd_outfile_commit(&of))
      return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
    return 0;
  }
  if (rc)
    return rpd_fail("cannot read '%s': %s", path, rpd_errmsg());
  if (fflush(stdout) || ferror(stdout))
    return rpd_fail("cannot write the statistics to stdout");
  return 0;
}
