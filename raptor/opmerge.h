/* opmerge.h - raptor: ops into (gpu, start, id) order in linear time.
 *
 * The ops arrive in table order (rowid), which per GPU is nearly in time
 * order (each queue runs in order; a few late rows).  opmerge_add appends
 * each op to a sorted run of its GPU (the last one it fits, else the run
 * with the largest tail it fits, else a new run), the runs spill to a temp
 * file in blocks, and opmerge_next merges them back with a heap over the
 * runs: O(n log runs), memory a block per run, not per op.  More than
 * OPMERGE_MAX_RUNS runs (a trace in no order at all) makes opmerge_add
 * return RPD_ERANGE: the caller then sorts another way. */
#ifndef RAPTOR_OPMERGE_H
#define RAPTOR_OPMERGE_H

#include <stdint.h>

#define OPMERGE_MAX_RUNS 1024

/* One op as read from rocpd_op (times already relative). */
typedef struct oprec {
  int64_t id, start, end;
  int32_t kern, gpu;
} oprec;

typedef struct opmerge opmerge;

/* A new, empty merger; the caller frees it with opmerge_free. */
opmerge *opmerge_new(void);
/* Add one op.  RPD_OK; RPD_ERANGE when the ops need more than
 * OPMERGE_MAX_RUNS runs; RPD_EIO when the temp file cannot be written
 * (rpd_errmsg() says why).  After an error the merger is only freed. */
int opmerge_add(opmerge *m, const oprec *r);
/* After the last add: the next op in (gpu, start, id) order into *r.
 * 1 = an op, 0 = no more, or -RPD_EIO (rpd_errmsg()). */
int opmerge_next(opmerge *m, oprec *r);
/* Runs used so far. */
int opmerge_runs(const opmerge *m);
/* Ops added so far. */
int64_t opmerge_count(const opmerge *m);
/* Free the merger and close its temp file.  NULL is fine. */
void opmerge_free(opmerge *m);

#endif
