/* kinds.h - rpd-import: the issue-16 record kinds of the rocprofv3 JSON and
 * database readers (json_kinds.c, db_kinds.c) and rocprof v1's chrome-trace
 * results.json (v1_json.c).  The readers call these through a few hook
 * lines; every row goes through the writer (writer.c, ext.c).  Internal. */
#ifndef RPD_IMPORT_KINDS_H
#define RPD_IMPORT_KINDS_H

#include "import.h"

/* How json_kinds.c sees the record json.c has just read: its flattened
 * fields in order (a key repeats for the elements of an array of maps)
 * and json.c's per-section lookups.  ctx is json.c's parser state. */
typedef struct jk_access {
  /* field i: 1 with key and val set, 0 past the last one */
  int (*field)(void *ctx, int i, const char **key, const char **val);
  int64_t (*gpu)(void *ctx, int64_t agent_handle);   /* -1 = not a GPU */
  const char *(*op_name)(void *ctx, int64_t kind, int64_t op);   /* or NULL */
  const char *(*kind_name)(void *ctx, int64_t kind);             /* or NULL */
  /* the string ids of kernel symbol kernel_id (an RPD_* status) */
  int (*sym)(void *ctx, int64_t kernel_id, int64_t *desc_id, int64_t *name_id);
  /* the integer field key read strictly (common/util/strictint.h): dflt when
   * absent (INT64_MIN: required); a bad value is remembered by json.c,
   * which refuses the record after the handler returns */
  int64_t (*integer)(void *ctx, const char *key, int64_t dflt);
} jk_access;

/* Handle a JSON record of array `section` (a buffer_records or
 * callback_records kind, or the section's "counters" list): returns 1 and
 * sets *rc when the kind is one of json_kinds.c's, 0 otherwise (json.c
 * then counts it as not imported). */
int jk_record(imp *m, const char *section, const jk_access *a, void *ctx, int *rc);
/* An agents[] record: remember its handle's "Agent <logical_node_id>",
 * the agent text the CSV writes (an RPD_* status). */
int jk_agent(imp *m, const jk_access *a, void *ctx);
/* Write the counter values held back until the section's kernel dispatches
 * were read (end of a process section and of the file). */
int jk_flush(imp *m);
/* Free json_kinds.c's state (safe to call twice). */
void jk_free(imp *m);

/* The issue-16 tables of one rocprofv3 database guid (pmc events,
 * allocations, scratch): db_kinds_begin before its kernel dispatches are
 * read (so counters can find their ops), db_kinds after.  in is the input. */
int db_kinds_begin(imp *m, rpd *in, const char *sfx);
int db_kinds(imp *m, rpd *in, const char *sfx);

/* Counter rows inserted COUNTER_BATCH at a time with one multi-row INSERT
 * (ext.c), for a reader that writes many in a row (db_kinds.c): the rows
 * and their ids are the ones w_counter would write, in the same order
 * (the name's string id is taken when the row is added).  A flushed batch
 * is inserted on the writer thread when one runs (pipe_call):
 * flush, then pause the pipe, before anything reads rocpd_counter; free
 * (finalize: it waits for the writer thread) when done. */
enum { COUNTER_BATCH = 64 };
typedef struct counter_batch {
  sqlite3_stmt *many;       /* the COUNTER_BATCH-row insert, made on first flush */
  int n;
  int64_t op[COUNTER_BATCH], name[COUNTER_BATCH];
  double value[COUNTER_BATCH];
} counter_batch;
int w_counter_add(imp *m, counter_batch *b, int64_t op_id, const char *name, double value);
int w_counter_flush(imp *m, counter_batch *b);
/* Drop the rows not flushed and finalize the statement (safe to call twice). */
void w_counter_batch_free(imp *m, counter_batch *b);

/* rocprof v1 results.json (a chrome trace): 1 if the first bytes of path
 * look like one ({"traceEvents" ...). */
int v1_json_is(const char *path);
/* Import it (api calls, kernel and copy ops, linked by correlation id). */
int import_v1_json(imp *m, const char *path);
/* The same from n bytes in memory (the fuzz entry). */
int import_v1_json_buf(imp *m, const void *data, size_t n);

/* The value of "sizeBytes=N" or "sizeBytes(N)" in a rocprof v1 call's
 * args, or -1 (v1.c). */
int64_t args_size(const char *args);

#endif
