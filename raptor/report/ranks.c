/* ranks.c - the cross-rank tables of raptor --report: on a trace of more
 * than one rank (rpd-merge output; rank = gpuId / gpu_stride) the report
 * gains byrank_<table> for each table of raptor --by-rank, computed by
 * byrank.c (the same SQL, so the same numbers). */
#include <stdlib.h>
#include <string.h>

#include "../byrank.h"
#include "internal.h"
#include "intscan.h"
#include "opclass.h"
#include "ranks.h"

/* report names of byrank_table_names, in the same order */
static const char *const names[BYRANK_NT] = {
  "byrank_ranks", "byrank_categories", "byrank_kernels", "byrank_sequences",
  "byrank_collectives", "byrank_stragglers",
};

/* 1 if name is a cross-rank table name (see internal.h). */
int report_rank_name(const char *name)
{
  for (int k = 0; k < BYRANK_NT; k++)
    if (!strcmp(name, names[k]))
      return 1;
  return 0;
}

/* The number of distinct ranks of GPU work is above one, from one read in
 * C (rpd_intscan) while the opTypes and the GPU work's gpuIds are
 * integers: 1, 0, or -1 when a value needs the query. */
static int several_ranks_c(rpd *r, int64_t stride, int *several)
{
  const rpd_opclass_map *m = rpd_opclass_now(r);
  rpd_intscan sc;
  const int64_t *v = NULL;
  unsigned ints = 0;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  int s = 0, ok = 1;
  if (!m || rpd_intscan_open(r, &sc, "SELECT 1 FROM rocpd_op WHERE rpd_intscan(?1, gpuId,"
                             " opType_id)", 2, 3u))
    return -1;
  while (ok && (s = rpd_intscan_row(r, &sc, &v, &ints)) == 1) {
    if (!(ints & 2u)) {
      ok = 0;
      break;
    }
    if (!rpd_opclass_in(m, v[1], RPD_OPCLASS_GPU_WORK))
      continue;
    if (!(ints & 1u)) {
      ok = 0;
      break;
    }
    int64_t rank = v[0] / stride;   /* SQLite's integer division: toward 0 */
    lo = rank < lo ? rank : lo;
    hi = rank > hi ? rank : hi;
  }
  rpd_intscan_close(&sc);
  if (!ok || s < 0)
    return -1;
  *several = hi > lo;
  return 1;
}

/* The number of distinct ranks of GPU work is above one: one scan without
 * a sort (min and max of the rank). */
static int several_ranks(rpd *r, int *several)
{
  if (several_ranks_c(r, rpd_gpu_stride(r), several) == 1)
    return RPD_OK;
  rpd_clearerr();   /* the query meets it again */
  char *work = NULL;
  int rc = rpd_opclass_condition_now(r, "O.opType_id", RPD_OPCLASS_GPU_WORK, &work);
  if (rc)
    return rc;
  char *rank = rpd_rank_of_gpu(r, "O.gpuId");
  char *sql = rpd_xasprintf("SELECT max(%s) > min(%s) FROM rocpd_op O WHERE %s", rank,
                            rank, work);
  int64_t v = 0;
  rc = rpd_query_int64(r, sql, &v);
  if (rc == RPD_ENOTFOUND) {
    rpd_clearerr();
    rc = RPD_OK;
  }
  *several = !rc && v;
  free(sql);
  free(work);
  free(rank);
  return rc;
}

/* The byrank_* tables when the trace has several ranks (see internal.h). */
int report_rank_tables(rpd *r, const cats *c, const ropts *o, report *rep, int *nranks)
{
  byrank_sql bs;
  int several = 0, rc;
  *nranks = 1;
  if (o->gpu >= 0)       /* one GPU is one rank */
    return RPD_OK;
  if ((rc = several_ranks(r, &several)) || !several)
    return rc;
  if ((rc = byrank_compute(r, c->r, c->n, o->rank_top, &bs)))
    return rc;
  *nranks = bs.nranks;
  for (int k = 0; k < BYRANK_NT && !rc; k++)
    rc = t_from_sql(report_add(rep), r, names[k], bs.sql[k]);
  byrank_sql_free(&bs);
  return rc;
}
