/* import.h - rpd-import internals shared by its readers (json.c, csv.c,
 * db.c), the RPD writer (writer.c) and main.c.  Not a public API. */
#ifndef RPD_IMPORT_H
#define RPD_IMPORT_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#include "rpd.h"
#include "util/map.h"

/* Hash map int64 -> int64 (value): common/util's map under the readers'
 * short names. */
typedef rpd_i64map imap;

/* Rows of one table waiting for a multi-row INSERT (writer.c). */
typedef struct batch {
  sqlite3_stmt *one, *many;   /* one row / BATCH_ROWS rows */
  int ncols, n;               /* columns; rows collected */
  int64_t *iv;                /* integer cells */
  int *toff;                  /* -1 = integer cell, else offset in txt */
  rpd_buf txt;                /* text cells */
  int64_t *inserted, *ignored;  /* counters to add to (or NULL) */
} batch;

/* What was read, by record kind (for the summary). */
typedef struct kindcount {
  char name[48];
  int64_t n;
  int handled;
} kindcount;

typedef struct imp {
  rpd *r;
  const char *input;
  rpd_strtab *str;
  sqlite3_stmt *kname;
  batch b_op, b_api, b_apiop, b_kapi, b_capi, b_uarg;
  int64_t next_op, next_ustr;   /* ids assigned by the writer */
  int truncated_names;      /* --truncated-names: op description = short name */
  int lean;                 /* db: leave out region arguments (every api
                             * call but a marker gets empty args), pmc
                             * counters and memory allocations; Kineto:
                             * ext_kineto_event rows but the cpu_ops' and
                             * collective kernels' (readdirect.c, for
                             * readers that never show them) */
  int64_t empty_args;       /* rocpd_ustring id of '' */
  imap kname_seen;          /* full name id -> 1 once ext_kernel_name has it */
  int64_t n_kname;          /* distinct kernel names */
  int64_t n_kname_sig;      /* ... of which carry a signature '(...)' */
  int short_only;           /* the input has truncated kernel names only */
  int64_t n_sorted_guids;   /* db: guids whose regions had to be sorted */
  int64_t api_base;         /* added to correlation ids of this section */
  int64_t max_api;          /* largest api id written or referenced */
  int64_t pid;              /* process of the current section */
  kindcount kinds[32];
  int nkinds;
  int64_t n_op, n_api, n_apiop, n_kapi, n_capi, n_dup_api, n_nolink;
  int64_t init_time, fini_time;   /* min init / max fini over sections */
  int64_t last_op;          /* id of the op w_op wrote last */
  sqlite3_stmt *st_counter, *st_alloc, *st_scratch;  /* ext.c, made on first use */
  imap disp_op;             /* dispatch id -> op id (counters join to it) */
  int want_disp;            /* fill disp_op in w_kernel (counters will come) */
  int64_t n_counter, n_alloc, n_scratch, n_counter_op;
  int64_t n_v1_unmatched;
  int64_t n_v1_untimed;     /* v1 KERN rows without BeginNs/EndNs */
  int64_t n_blank;          /* blank CSV lines skipped */
  int64_t n_shaped;         /* Kineto cpu_ops with "Input Dims" (ops a
                             * performance model can read) */
  int64_t n_bad_rows;       /* op/api rows rpd_check_trace would refuse
                             * (every such row goes through w_op/w_api) */
  rpd_buf args;             /* scratch */
  struct jkstate *jk;       /* json_kinds.c's state (kinds.h) */
  struct wpipe *pipe;       /* the writer thread (pipe.c), or NULL */
  int64_t n_jk_orphan;      /* db pmc events on no dispatch (skipped) */
  int64_t jk_op_base;       /* first op id of the db guid being read */
  int64_t n_v1_unlinked_flow;  /* v1 results.json flows without both ends */
  /* the progress line (writer.c prog_*): what is counted, how far */
  const char *prog_what;
  int64_t prog_done, prog_total, prog_next, prog_step;
  int prog_rows;            /* the writer counts rows written (v1) */
} imp;

typedef struct kern {
  int64_t gpu, queue, seq, start, end, corr, stream;
  int64_t grid[3], wg[3], lds, scratch;
  int64_t desc_id, name_id;
} kern;

typedef struct copyrec {
  int kind;                 /* copy_kind() */
  int64_t src_gpu, dst_gpu; /* -1 = host / unknown */
  int64_t start, end, corr, bytes, stream;
  int64_t queue;            /* the op's queueId (0 = none) */
  const char *optype;       /* the op's type; NULL = from kind (Copy*) */
} copyrec;

typedef struct apirec {
  int64_t corr, pid, tid, start, end;
  const char *domain, *category, *name, *args;
} apirec;

/* The files of a CSV set by kind (csv.c's suffix order), and the distinct
 * run prefixes ("decode_", "1234_", "") a directory held. */
enum { CSV_KINDS = 16 };
typedef struct csvset {
  char **f[CSV_KINDS];
  int n[CSV_KINDS];
  const char *want;         /* directory: keep only this prefix (NULL = all) */
  int all_runs;             /* --all-runs: several prefixes are fine */
  char **pfx;
  int npfx;
  char **skip;              /* directory: CSV files not imported, each
                             * "'PATH': why" (the tool names them) */
  int nskip;
} csvset;

/* --- small maps */
/* Set k -> v (replaces an existing value); grows as needed. */
static inline void imap_put(imap *m, int64_t k, int64_t v) { rpd_i64map_put(m, k, v); }
/* 1 and *v if k is present, else 0. */
static inline int imap_get(const imap *m, int64_t k, int64_t *v) { return rpd_i64map_get(m, k, v); }
/* Free the map's memory; the map is empty afterwards. */
static inline void imap_free(imap *m) { rpd_i64map_free(m); }

/* --- the writer (writer.c); every function returns an RPD_* status */
/* Count one record of kind `kind` read (handled = imported) for the summary. */
void count_read(imp *m, const char *kind, int handled);
/* Prepare the insert statements and string tables on m->r. */
int w_prepare(imp *m);
/* Insert every row still waiting in a batch (before the commit). */
int w_flush(imp *m);
/* Drop the rows waiting in the batches (before a ROLLBACK TO). */
void w_discard(imp *m);
/* Forget the string cache and read rocpd_string again (after a ROLLBACK
 * TO undid strings it had interned). */
int w_strings_reload(imp *m);
/* The closing metadata (init/fini times, source, how kernels are named)
 * and the index on rocpd_ustring(string), once every row is written. */
int w_finish(imp *m);
/* Finalize what w_prepare made (safe to call twice). */
void w_finalize(imp *m);
/* *id = the rocpd_string id of s (NULL = ""), interned on first use. */
int w_string_id(imp *m, const char *s, int64_t *id);
/* A rocpd_op row; *op_id receives its id. */
int w_op(imp *m, int64_t gpu, int64_t queue, int64_t seq, int64_t start,
         int64_t end, int64_t desc_id, const char *optype, int64_t *op_id);
/* Link op_id to the api call of correlation id corr (<= 0: none; *api_id = 0). */
int w_link(imp *m, int64_t corr, int64_t op_id, int64_t *api_id);
/* The string ids of a kernel: *name_id = its full (demangled) name, the
 * kernel's identity; *desc_id = the op description (the full name, or the
 * short one under --truncated-names).  short_name is rocprofv3's truncated
 * name ("" or NULL = unknown: the full name); an empty full name falls back
 * to the short one.  The pair is recorded once in ext_kernel_name. */
int w_kernel_name(imp *m, const char *full, const char *short_name,
                  int64_t *desc_id, int64_t *name_id);
/* A kernel dispatch: op + link + rocpd_kernelapi. */
int w_kernel(imp *m, const kern *k);
/* Copy direction of a rocprofiler name: 0 H2H, 1 H2D, 2 D2H, 3 D2D, -1 unknown. */
int copy_kind(const char *s);
/* A memory copy: op + link + rocpd_copyapi. */
int w_copy(imp *m, const copyrec *c);
/* An api call (rocpd_api id = correlation id + the section's base). */
int w_api(imp *m, const apirec *a);
/* Start a new process section: later correlation ids are shifted past
 * every id used so far. */
void new_section(imp *m);
/* Widen the trace's init/fini times to include init..fini (0 = unknown). */
int w_meta_time(imp *m, int64_t init, int64_t fini);
/* rocpd_metadata rows (w_meta_add skips NULL/empty values). */
int w_meta_add(imp *m, const char *tag, const char *value);
int w_meta_int(imp *m, const char *tag, int64_t v);

/* --- the progress line (common rpd_progress: on stderr only
 * when it is a terminal, silenced by -q) */
/* Start a line counting `what`: bytes (unit "bytes", shown as MB) or
 * rows; total < 0 = unknown (count and rate only). */
void prog_begin(imp *m, const char *what, int bytes, int64_t total);
/* done units so far (shown at most 4 times a second). */
void prog_at(imp *m, int64_t done);
/* n more units. */
static inline void prog_add(imp *m, int64_t n)
{
  if ((m->prog_done += n) >= m->prog_next && m->prog_what)
    prog_at(m, m->prog_done);
}
/* End the line (a newline if one was shown). */
void prog_end(imp *m);
/* 1 if a progress line can show (stderr is a terminal, no -q): readers
 * only then pay for a total that costs a query. */
int prog_live(void);

/* --- readers: each writes everything it reads through the writer */
/* rocprofv3 JSON (plain or gzip) at path. */
int import_json(imp *m, const char *path);
/* The same from n bytes of uncompressed JSON in memory (fuzz entry). */
int import_json_buf(imp *m, const void *data, size_t n);
/* A PyTorch profiler (Kineto) trace, plain or gzip (kineto.c). */
int import_kineto(imp *m, const char *path);
/* The same from n bytes of uncompressed JSON in memory (fuzz entry). */
int import_kineto_buf(imp *m, const void *data, size_t n);
/* Collect the CSV files of a directory, a prefix or one member into s;
 * returns how many were found (0 = not a CSV set).  In a directory only
 * the files of prefix s->want are kept when it is set ("decode" matches
 * "decode_"); every prefix seen is listed in s->pfx.  set_free releases s. */
int csv_collect(const char *input, csvset *s);
void set_free(csvset *s);
/* Why the lone CSV file path is not an importable trace (a stats file,
 * PC samples, ...), or NULL: a static message for the error line. */
const char *csv_not_trace(const char *path);
/* The CSV set s. */
int import_csv(imp *m, csvset *s);
/* One CSV file read from f (taken over and closed), named name in
 * messages; which: 0 kernel_trace, 1 hip_api, 2 hsa_api, 3 marker_api,
 * 4 rccl_api, 5 memory_copy, 6 agent_info (the fuzz entry). */
int import_csv_stream(imp *m, FILE *f, const char *name, int which);
/* A rocprofv3 SQLite database at path (read only). */
int import_db(imp *m, const char *path);
/* The same on an open database (the fuzz target's entry). */
int import_db_handle(imp *m, rpd *in);
/* Timestamp column i of a row of `table` (named in the message): RPD_OK
 * and *out when it is an INTEGER value, else RPD_EPARSE (text, real, blob
 * and null are refused, never read as 0: common/util/strictint.h).  (writer.c: db.c and
 * v1.c use it) */
int db_time(sqlite3_stmt *st, int i, const char *table, int64_t *out);

/* --- extra record kinds (ext.c); made on first use, freed by w_finalize */
/* A rocpd_counter row: counter `name` = value for op op_id. */
int w_counter(imp *m, int64_t op_id, const char *name, double value);
/* The op of dispatch `dispatch` of the current section: found in
 * m->disp_op, else a KernelExecution op made from k (counter collection
 * without a kernel trace); *op_id receives it. */
int w_counter_op(imp *m, int64_t dispatch, const kern *k, int64_t *op_id);
/* An ext_memory_allocation row (rocprofv3 memory_allocation record). */
typedef struct allocrec {
  const char *operation, *agent, *address;
  int64_t gpu, size, corr, start, end;
} allocrec;
int w_alloc(imp *m, const allocrec *a);
/* An ext_scratch_memory row (rocprofv3 scratch_memory record). */
typedef struct scratchrec {
  const char *operation, *agent;
  int64_t gpu, queue, tid, flags, start, end;
} scratchrec;
int w_scratch(imp *m, const scratchrec *s);
/* Finalize ext.c's statements. */
void w_ext_finalize(imp *m);

/* --- rocprof v1 (v1.c) */
/* The rpl text files of a run directory (or of the directory of one such
 * file): NNN_hip_api_trace.txt, hcc_ops, hsa_api, roctx. */
typedef struct v1set {
  char **f;
  int n;
} v1set;
/* Collect the v1 text files for input into s; returns how many (0 = not a
 * rocprof v1 directory).  v1_free releases s. */
int v1_collect(const char *input, v1set *s);
void v1_free(v1set *s);
/* Import the files of s (one process section per run prefix). */
int import_v1_text(imp *m, v1set *s);
/* One text file read from f (taken over and closed); which: 0 hip_api,
 * 1 hcc_ops, 2 hsa_api, 3 roctx (the fuzz entry). */
int import_v1_stream(imp *m, FILE *f, const char *name, int which);
/* 1 if the open database is a rocprof v1 results.db: tables HIP and OPS,
 * or a kernel-only run's KERN table alone. */
int v1_is_db(rpd *in);
/* Import a rocprof v1 results.db (HIP, HSA, OPS, COPY tables; or KERN,
 * one row per dispatch as in results.csv, when it is all there is). */
int import_v1_db(imp *m, rpd *in);
/* 1 if h is one of rocprof v1's per-dispatch fields (results.csv, KERN):
 * every other column is a counter.  (csv.c) */
int v1_is_fixed(const char *h);

/* Every record of the CSV file path (RFC 4180) to fn: first the header
 * (line 1), then each record with its line number; blank lines skipped.
 * fn returns an RPD_* status (non-zero stops).  (csv.c) */
typedef int (*csv_rows_fn)(void *arg, int64_t line, int n, const char *const *f);
int csv_rows(const char *path, csv_rows_fn fn, void *arg);

/* --- madengine monitor CSVs (madengine.c) */
/* rpd-import --into: add the gpu_info power/vram CSVs files[0..n) to the
 * existing trace as rocpd_monitor rows in one transaction (earlier rows of
 * the same kind replaced); has_offset: trace ns = sample epoch ns +
 * offset, else the first sample goes 1 s before the first event.  Prints
 * its own messages; returns the exit code. */
int import_into_main(const char *trace, char **files, int n, int has_offset,
                     int64_t offset, int quiet);
/* One madengine CSV (monitor or library_trace, by its header) into the
 * open trace r, in the caller's transaction; *rows counts rows written
 * (the fuzz entry). */
int import_madengine_csv(rpd *r, const char *path, int64_t offset, int64_t *rows);

/* --- small helpers */
int endswith(const char *s, const char *suf);
int is_file(const char *p);

#endif
