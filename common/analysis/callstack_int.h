/* callstack_int.h - what the files of the call-stack builder share (behind
 * callstack.h; included by them only):
 *   callstack.c          the walk over each thread's stack; the public calls
 *   callstack_reorder.c  the reorder buffer: rowid order into walking order
 *   callstack_gpu.c      the gpu time of each call, merged from the op links
 *   callstack_rows.c     ext_callstack's rows, written in batches through a
 *                        virtual table
 * Functions shared between them carry the cs_ prefix. */
#ifndef RPD_CALLSTACK_INT_H
#define RPD_CALLSTACK_INT_H

#include <stdint.h>

#include "callstack.h"
#include "internal.h"
#include "intscan.h"

/* Rows go in BATCH at a time through one INSERT ... SELECT from the
 * pending rows, which the walk's own virtual table (rows_module) shows to
 * SQLite: a statement per row would pay the statement overhead (and
 * AUTOINCREMENT's sqlite_sequence update) per row, and bound parameters
 * cost more than the insert itself.  SQLite numbers the rows: an explicit
 * id costs a uniqueness seek each. */
#define BATCH 2048
#define NCOLS 5

/* A thread's calls may come as a few runs each in time order (a Kineto
 * import stores a thread's ops, then its runtime calls): the reorder buffer
 * keeps up to RUNS queues per thread, and a call that would go more than
 * RUN_SHIFT calls back into every one of them starts another. */
#define RUNS 4
#define RUN_SHIFT 64

typedef struct frame {
  int64_t id, start, end, child_cpu;
} frame;

typedef struct thread {
  int64_t pid, tid;
  int64_t qi[RUNS];       /* walk_reorder: 1 + index of each of its queues, 0 = none */
  int used, depth, cap;
  int nested;             /* 1: the open frames' ends never rise from the
                             bottom up, so the top one ends first */
  frame *stack;
  int64_t *tags;          /* the visitor's tag of each open frame */
} thread;

typedef struct gpu_entry {
  int64_t id, gpu;
  int taken;
} gpu_entry;

typedef struct gpu_src {
  sqlite3_stmt *stream, *lookup;  /* the join (not merging); the fallback */
  int64_t next_id, next_gpu;  /* the stream's row read ahead */
  int more;                   /* next_* is valid */
  int merge;                  /* links merged with a scan of rocpd_op: */
  rpd_intscan links, ops;     /* their scans */
  int64_t op_id, op_gpu;      /* ops' current row */
  int ops_more;               /* op_* is valid */
  int check;                  /* apply the trace check's rule to each op */
  int ops_bad;                /* an op failed it */
  int ops_clean;              /* every op was read, checked and passed */
  int assumed;                /* merging without gpu_in_order's scan: */
  int64_t last_api, last_op;  /* the last link, to check the order */
  int redo;                   /* a link out of order: walk again */
  gpu_entry *e;               /* read-ahead entries, ascending id */
  size_t head, n, cap;        /* live range e[head..n) */
} gpu_src;

typedef struct walker {
  rpd *r;
  gpu_src gpu;
  sqlite3_stmt *ins;
  int64_t pend[BATCH * NCOLS];
  int npend;
  thread *threads;        /* open-addressing table, cap a power of two */
  size_t nthreads, cap;
  rpd_callstack_stats st;
  int64_t progress_total; /* api rows, for the progress line (-1 unknown) */
  int check;              /* apply rpd_check_trace's rule to the calls read */
  int ops_clean;          /* the walk's merge checked every op of rocpd_op */
  int gpu_checked;        /* check the op links' order before merging */
  const rpd_callstack_visitor *vis;  /* NULL: write ext_callstack */
} walker;

/* callstack_gpu.c: the gpu stream, opened before the walk (check: apply
 * the trace check's rule to each op; checked: the links' order is checked
 * first), read ahead once, asked for each call as it ends, finished (the
 * rest of rocpd_op checked) and closed after it. */
int cs_gpu_open(rpd *r, gpu_src *g, int check, int checked);
int cs_gpu_next(rpd *r, gpu_src *g);
int cs_gpu_get(rpd *r, gpu_src *g, int64_t id, int64_t *gpu);
int cs_gpu_finish(rpd *r, gpu_src *g);
void cs_gpu_close(gpu_src *g);

/* callstack_rows.c: the batched insert into ext_callstack (open before the
 * walk, flush and close after it); cs_emit queues one row. */
int cs_insert_open(walker *w);
void cs_insert_close(walker *w);
int cs_flush(walker *w);
int cs_emit(walker *w, int64_t parent, int64_t child, int64_t depth,
            int64_t cpu, int64_t gpu);

/* callstack_reorder.c: the walk through the reorder buffer (see there);
 * the walk of the calls sorted in C when the buffer cannot (*fallback = 1:
 * SQLite must sort; the walk is partial). */
int cs_walk_reorder(walker *w, int *fallback);
int cs_walk_sorted(walker *w, int *fallback);
/* 1 when tests asked SQLite to sort instead (rpd_callstack_set_sql_sort). */
int cs_sql_sort_only(void);

/* callstack.c: the thread (pid, tid), created on first sight; one call in
 * walking order. */
thread *cs_thread_get(walker *w, int64_t pid, int64_t tid);
int cs_step_call(walker *w, int64_t pid, int64_t tid, const frame *f);

#endif
