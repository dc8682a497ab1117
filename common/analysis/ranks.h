/* ranks.h - what the many-rank tools share (rpd-merge, rpd-diff, raptor
 * --by-rank): which kernels are collectives, and how a merged trace names
 * its ranks (table rpd_rank, written by rpd-merge; see docs/rpd-merge.md). */
#ifndef RPD_RANKS_H
#define RPD_RANKS_H

#include "rpd.h"

/* A new SQL condition that is true when the kernel name in `expr` (an SQL
 * expression written by the caller, never data) is a collective
 * (NCCL/RCCL kernels, all_reduce, all_gather, reduce_scatter, all_to_all,
 * broadcast, vLLM's cross_device_reduce).  Caller frees with free(). */
char *rpd_collective_condition(const char *expr);

/* The trace's strides: the integer metadata tags gpu_stride / pid_stride
 * when present and positive, else the RPD defaults 1000 / 10000000 (also
 * for a trace without rocpd_metadata). */
int64_t rpd_gpu_stride(rpd *r);
int64_t rpd_pid_stride(rpd *r);

/* An SQL expression giving the rank of a row of a merged trace r from its
 * GPU id, "((expr) / gpu_stride)" -- `expr` is the gpuId column expression
 * (code, not data).  Unmerged traces give 0.  Caller frees with free(). */
char *rpd_rank_of_gpu(rpd *r, const char *expr);

#endif
