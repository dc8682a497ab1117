/* api.h - the raptor engine as a library (lib/librptor.so), for the Python
 * package rpdtools (python/rpdtools/_engine.py calls it through ctypes).
 *
 * rptr_open() runs the engine once over a trace with raptor's own command
 * line options (parse, categories, open, ROI, analysis) and keeps the
 * results in memory; the accessors copy them into caller-owned arrays, so
 * no pointer into the engine outlives rptr_close().  Nothing is printed
 * (the engine never prints; no progress line): a failure's one-line
 * message (the CLI's, "raptor: ...") is returned by rptr_errmsg().  Times
 * are ns, relative to the first API start (time 0).  Runs in different
 * threads go on in parallel; only opening and closing a trace take turns.
 */
#ifndef RAPTOR_API_H
#define RAPTOR_API_H

#include <stdint.h>

typedef struct rptr rptr;

/* rptr_info() slots */
enum {
  RPTR_FIRST_ABS, RPTR_LAST_ABS, RPTR_ROI_START, RPTR_ROI_END, RPTR_SEQLEN,
  RPTR_NOPS, RPTR_NKEYS, RPTR_NROWS, RPTR_NCATROWS, RPTR_NGPUROWS, RPTR_NNAMES,
  RPTR_NCATS, RPTR_NINFO
};

/* Run the engine: argv[0..argc) are raptor's arguments without the program
 * name (the trace path and options such as "--roi-start", "20%").  0 and
 * *out set (free it with rptr_close), or 1 (failure) / 2 (bad option) with
 * *out NULL and the message in rptr_errmsg(). */
int rptr_open(int argc, const char *const *argv, rptr **out);

/* The last failure's one-line message of this thread (static storage). */
const char *rptr_errmsg(void);

/* Free everything of h (NULL is fine). */
void rptr_close(rptr *h);

/* The sizes and timestamps: out[RPTR_NINFO]. */
void rptr_info(const rptr *h, int64_t *out);

/* Kernel name i (0 <= i < NNAMES), category name i (0 <= i < NCATS, then
 * _Other and _Latency), kernelseq row label i (a gap row's "GAP ..." or a
 * sequence's first kernel).  Owned by h; NULL when out of range. */
const char *rptr_name(const rptr *h, int64_t i);
const char *rptr_catname(const rptr *h, int64_t i);
const char *rptr_row_label(const rptr *h, int64_t i);

/* Every op in the ROI (NOPS each), sorted by GPU, start, id: i64 holds 5
 * per op (id, start, end, duration, pregap; pregap -1 = first op of its
 * GPU), i32 4 per op (gpu, name index, key (-1 = fewer predecessors than
 * the sequence length), sequenceId), zscore 1 (NAN = undefined) and
 * outlier 1 (0/1). */
void rptr_ops(const rptr *h, int64_t *i64, int32_t *i32, double *zscore, int8_t *outlier);

/* The name indexes of every key: NKEYS * (SEQLEN + 1), the op's own kernel
 * first, then its predecessors. */
void rptr_keys(const rptr *h, int32_t *names);

/* Kernelseq rows (NROWS, sorted by total duration): i32 2 per row (key or
 * -1 for a gap row, category index), i64 4 per row (calls, outliers or -1
 * for NULL, start min, start max), f64 12 per row (pregap sum, min, mean,
 * std, max, duration sum, min, mean, std, max, pct of total, varsum; NAN =
 * NULL). */
void rptr_kernelseq(const rptr *h, int32_t *i32, int64_t *i64, double *f64);

/* Category rows (NCATROWS, sorted by duration): i64 2 per row (unique
 * sequences, calls), f64 4 per row (duration ns, varsum ns, avg us, pct;
 * NAN = NULL); rptr_catrow_name() names row i (owned by h). */
void rptr_categories(const rptr *h, int64_t *i64, double *f64);
const char *rptr_catrow_name(const rptr *h, int64_t i);

/* GPU rows (NGPUROWS): gpu[n], f64 5 per row (pregap ns, duration ns, idle
 * pct, leading idle ns, trailing idle ns). */
void rptr_gpus(const rptr *h, int32_t *gpu, double *f64);

/* Variability: out[3] = communication varsum ns, other varsum ns, total
 * duration ns. */
void rptr_variability(const rptr *h, double *out);

/* The op columns the engine does not keep, read again from the trace for
 * the reference's op_df: for every op of rptr_ops (same order), index = its
 * 0-based position in the reference's op query (all op types of the op
 * view, start in the ROI, the --gpu-id GPU; ordered by start, then id),
 * queue = queueId, optype = an index for rptr_optype() (-1 / 0 / -1 for an
 * op missing from that query).  0, or 1 with the message in rptr_errmsg().
 * A .gz trace is decompressed again. */
int rptr_op_details(rptr *h, int64_t *index, int64_t *queue, int32_t *optype);

/* The opType names seen by rptr_op_details: count, and name i (owned by h;
 * NULL when out of range). */
int64_t rptr_noptypes(const rptr *h);
const char *rptr_optype(const rptr *h, int64_t i);

#endif
