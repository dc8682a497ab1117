/* callstack.h - the call-stack builder shared by rpd-callstack and
 * rpd-autograd: fills ext_callstack and creates the callStack_* views.
 *
 * Semantics (docs/rpd-callstack.md): per (pid, tid) the api calls are walked
 * in time order as a stack.  At equal timestamps ends come before starts;
 * a zero-length call starts and ends in place; an end pops its own call.
 * When a call ends, one row is written for it (depth 0) and for every frame
 * below it on the stack (depth 1, 2, ...), each carrying the ending call's
 * exclusive cpu_time and its gpu_time (sum of its ops' end - start).
 */
#ifndef RPD_CALLSTACK_H
#define RPD_CALLSTACK_H

#include <stddef.h>
#include <stdint.h>

#include "rpd.h"

typedef struct rpd_callstack_stats {
  int64_t calls;     /* api calls walked */
  int64_t rows;      /* ext_callstack rows written */
  int64_t threads;   /* distinct (pid, tid) */
  int64_t overlaps;  /* calls that overlap an open call without nesting */
  int max_depth;     /* deepest stack seen (1 = no nesting) */
  int gpu_fallback;  /* gpu times came from a temp table, not the merge */
  int sql_sort;      /* calls sorted by SQLite, not in memory */
  int c_sort;        /* calls sorted in C (bounded memory): the reorder
                        buffer could not give walking order */
} rpd_callstack_stats;

/* Metadata tags the reference writes. */
#define RPD_CALLSTACK_TABLE_TAG "Callstack::Table"
#define RPD_CALLSTACK_DONE_TAG "Callstack::Generated"

/* Inside the caller's open transaction: (re)create ext_callstack (any old
 * table and views are dropped first -- after rpd_check_trace and
 * rpd_callstack_owned pass, else their error), fill it from rocpd_api / rocpd_api_ops
 * / rocpd_op, create the four callStack_* views and set Callstack::Table.
 * Callstack::Generated is left to the caller.  *st (may be NULL) receives
 * the counts.  The transaction must not have changed rocpd_api,
 * rocpd_api_ops or rocpd_op: their scans read the file's pages
 * (RPD_INTSCAN_UNCHANGED, intscan.h). */
int rpd_callstack_build(rpd *r, rpd_callstack_stats *st);
/* RPD_OK if ext_callstack is absent or has the suite's columns; else
 * RPD_EEXIST (a table the suite did not write: never dropped). */
int rpd_callstack_owned(rpd *r);

/* A walker of the call stack that writes nothing: the same walk as
 * rpd_callstack_build (same order, same closing rule, same gpu times), each
 * ending call handed to `close` instead of becoming rows. */
typedef struct rpd_callstack_visitor {
  /* The tag of api call `id`, asked once when it is pushed (-1 = none, or
   * any value the visitor likes, e.g. an index into its own results). */
  int64_t (*tag)(void *arg, int64_t id);
  /* A call ends: tags[depth] is its tag, tags[0 .. depth) those of the
   * frames below it, bottom first (its rows of depth depth - j in
   * ext_callstack); gpu its own gpu time (sum of its ops' end - start).
   * Returns RPD_OK or an error code, which stops the walk. */
  int (*close)(void *arg, const int64_t *tags, int depth, int64_t gpu);
  /* Forget everything seen: the walk starts over (it may, once, when
   * SQLite must sort the calls).  May be NULL if the visitor has no
   * state to forget. */
  void (*reset)(void *arg);
  void *arg;
} rpd_callstack_visitor;

/* Walk the call stack of the trace with visitor v, writing nothing
 * (inside the caller's transaction; a savepoint is used and released).
 * Memory: the open frames, as rpd_callstack_build.  *st (may be NULL)
 * receives the counts (rows = those ext_callstack would hold).  The
 * transaction must not have changed the tables it reads, as for
 * rpd_callstack_build. */
int rpd_callstack_visit(rpd *r, const rpd_callstack_visitor *v,
                        rpd_callstack_stats *st);

/* Tests: wait for at most `entries` gpu times in the merge before falling
 * back to the temp table (0 restores the default, 2^20). */
void rpd_callstack_set_merge_limit(size_t entries);

/* Tests: hold at most `calls` calls (32 bytes each) in the reorder buffer
 * that turns rowid order into walking order; further out of order, the
 * calls are sorted in C (bounded memory), or by SQLite when a start or end
 * is not an integer (0 restores the default: 2^15 per thread, from 2^18
 * to 2^19). */
void rpd_callstack_set_sort_limit(size_t calls);

/* Tests: 1 = when the reorder buffer cannot, SQLite sorts (no C sort);
 * 0 restores the default. */
void rpd_callstack_set_sql_sort(int on);

/* Drop ext_callstack, its views and both metadata tags (if present). */
int rpd_callstack_drop(rpd *r);

/* 1 if the trace already holds a complete call stack (Callstack::Generated
 * set and ext_callstack present), else 0. */
int rpd_callstack_present(rpd *r);

#endif
