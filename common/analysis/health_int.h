/* health_int.h - what health.c (the checks as data, their SQL) and
 * health_ops.c (the one read of rocpd_op in C behind several of them)
 * share.  Internal to common/analysis. */
#ifndef RPD_HEALTH_INT_H
#define RPD_HEALTH_INT_H

#include <stddef.h>
#include <stdint.h>

#include "rpd.h"
#include "util/map.h"

/* Launch calls: what a runtime names the call that queues one kernel; and
 * the calls that begin a stream capture, and those that begin or end one
 * (lists of rocpd_string ids, as subqueries). */
#define LAUNCH_NAMES \
  "(SELECT id FROM rocpd_string WHERE string GLOB '*Launch*Kernel*'" \
  " OR string GLOB 'cuLaunch*' OR string GLOB 'hipExtLaunch*')"
#define BEGIN_CAPTURE_NAMES "(SELECT id FROM rocpd_string WHERE string GLOB '*BeginCapture*')"
#define CAPTURE_CALL_NAMES \
  "(SELECT id FROM rocpd_string WHERE string GLOB '*BeginCapture*'" \
  " OR string GLOB '*EndCapture*')"

/* A set of ids 0 .. IDSET_MAX - 1 as bits (16 MB at most). */
enum { IDSET_MAX = 1 << 27 };

typedef struct idset {
  uint64_t *bits;
  int64_t nbits;
} idset;

/* Add v: 1, or 0 when v is outside 0 .. IDSET_MAX - 1 (the set cannot
 * hold it and the caller falls back to SQL). */
int rpd__idset_add(idset *s, int64_t v);

static inline int rpd__idset_has(const idset *s, int64_t v)
{
  return v >= 0 && v < s->nbits && (s->bits[v / 64] >> (v % 64) & 1);
}

void rpd__idset_free(idset *s);

/* The queue checks' walk (queue_overlap, duplicate_op) over the GPU ops,
 * each queue's ops arriving in (start, id) order: the ops that start
 * before the latest end of the ops before them on their queue, and per
 * (queue, start) the ops whose (end, description_id) an earlier op of the
 * same start has. */
typedef struct qstate qstate;
typedef struct qwalk {
  rpd_i64map first;          /* hash of (gpu, queue) -> first queue + 1 */
  qstate *qs;
  size_t nq, cap;
  int64_t overlaps, dups;
  int sorted;                /* 0 once a queue's op came out of order */
} qwalk;

void rpd__qwalk_init(qwalk *w);
/* One op: gpuId, queueId, start, end, description_id.  0 (and w->sorted
 * 0, nothing more counted) when it starts before the last op of its
 * queue, else 1. */
int rpd__qwalk_add(qwalk *w, const int64_t op[5]);
/* After the last op: the runs still open counted into w->dups. */
void rpd__qwalk_finish(qwalk *w);
void rpd__qwalk_free(qwalk *w);

/* What one read of rocpd_op counts: the four op checks of health.c's
 * OPS_SQL and, when every queue came in order, the two queue checks. */
typedef struct ops_counts {
  int64_t outside, unlaunched, zero_len, unnamed;
  int64_t overlaps, dups;
  int queues_done;           /* overlaps and dups counted */
} ops_counts;

/* Count *c from one read of rocpd_op in C (rpd_intscan), given the op ids
 * rocpd_api_ops links (linked_ops).  *done = 1 counted; 0 when the data
 * needs health.c's SQL (a value that is not an integer where one is
 * compared, ids the sets cannot hold, no integer primary key on
 * rocpd_string, a table the scan cannot read in id order): nothing is
 * counted then.  RPD_OK or an error. */
int rpd__health_ops_pass(rpd *r, const idset *linked_ops, ops_counts *c, int *done);

/* launch_without_op's count into *n from one read of rocpd_api in C: the
 * launch calls rocpd_api_ops does not link (linked_apis) and that no
 * stream capture of their thread holds (from a Begin*Capture call to the
 * thread's next capture call, both ends in).  *done = 0 when the data
 * needs health.c's SQL (a name id that is not an integer, a capture or
 * unlinked launch whose id, pid, tid or start is not, more unlinked
 * launches than it keeps, no integer primary key on rocpd_string).
 * RPD_OK or an error. */
int rpd__health_launches_pass(rpd *r, const idset *linked_apis, int64_t *n, int *done);

#endif
