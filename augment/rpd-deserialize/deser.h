/* deser.h - the serialized-marker parser of rpd-deserialize: a roctx
 * message "s_api = NAME | ..." or "s_op = NAME | gpuId = 1 | queueId = 0 |
 * sequenceId = 5 | start = 123 | end = 456 | completionSignal = ..." read
 * into checked fields (docs/rpd-deserialize.md).
 *
 * Every field is validated the way an importer validates a record: names
 * must not be empty; gpuId and queueId are decimal integers in
 * 0..2147483647, sequenceId in 0..2^63-1; start and end are decimal integer
 * nanoseconds in 0..RPD_DESER_TIME_MAX (below 2^62) with end >= start (the marker's own
 * start/end stand in for missing ones and are checked the same way).  No
 * hex, exponents, fractions, signs, Inf or NaN: a field the tracer did not
 * write as a plain integer is refused, never stored as text or wrapped. */
#ifndef RPD_DESER_H
#define RPD_DESER_H

#include <stdint.h>

#include "rpd.h"

/* Largest accepted timestamp: 2^62 - 1 ns (146 years), so that differences
 * and sums of a few never overflow (the sane range of every trace value). */
#define RPD_DESER_TIME_MAX (((int64_t)1 << 62) - 1)

typedef struct rpd_deser {
  const char *api;        /* s_api NAME, or NULL */
  const char *op;         /* s_op NAME, or NULL */
  int64_t gpu_id, queue_id, sequence_id;   /* 0 when absent */
  int64_t start, end;     /* the op's times (args, else the marker's) */
  const char *signal;     /* completionSignal, or NULL */
  rpd_args args;          /* storage the pointers above point into */
} rpd_deser;

/* Parse the args text of a marker call whose own times are marker_start /
 * marker_end.  Returns RPD_OK with *d filled (d->api and d->op both NULL:
 * not a serialized marker; nothing to promote), or RPD_EPARSE when the
 * text names s_api/s_op but a field is bad: rpd_errmsg() says which
 * ("gpuId '1e20' is not an integer in 0..2147483647").  Either way the
 * caller releases *d with rpd_deser_free(); text may be NULL. */
int rpd_deser_parse(const char *text, int64_t marker_start, int64_t marker_end,
                    rpd_deser *d);

/* Release the storage of d (safe on a zeroed or freed d). */
void rpd_deser_free(rpd_deser *d);

#endif
