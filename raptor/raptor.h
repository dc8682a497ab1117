/* raptor.h - the shared state of the raptor tool (the raptor folder): options,
 * the op array, kernel sequence keys and the result tables.
 *
 * The engine (options.c, names.c, load.c, analyze.c; lib/librptor.so with
 * api.c) never prints: a failing call returns its exit code with the
 * one-line message in R->err (raptor_fail), and progress goes through
 * R->progress, which only the command line (raptor.c) sets.  Inside the
 * engine the calls go down only: load.c -> analyze.c -> names.c. */
#ifndef RAPTOR_H
#define RAPTOR_H

#include <stdint.h>
#include <stdio.h>

#include "catfile.h"
#include "check.h"
#include "opt.h"
#include "rpd.h"

#define IDLE_CAT "_GPU_Idle"
#define OTHER_CAT "_Other"
#define LATENCY_CAT "_Latency"

/* ------------------------------------------------------------ types */

typedef struct op {
  int64_t id, start, end;  /* start/end relative to time zero */
  int64_t pregap;          /* -1: first op of its GPU (NULL) */
  int32_t gpu, kern, key;  /* key -1: fewer than N predecessors */
  int32_t seq;
} op;

typedef struct kstat {
  int64_t nall;            /* all ops of the key (zscore) */
  double mean_all, pstd;
  int64_t calls, smin, smax;
  int64_t pg_n;
  double pg_sum, pg_min, pg_max, pg_m2;
  double d_sum, d_min, d_max, d_m2;
} kstat;

typedef struct krow {
  int32_t key;             /* -1 for a gap row */
  const char *label;       /* gap label or first kernel name */
  int cat;                 /* index into the category names */
  int64_t calls, outliers; /* outliers < 0: NULL */
  int64_t smin, smax;
  double pg_sum, pg_min, pg_mean, pg_std, pg_max;
  double d_sum, d_min, d_mean, d_std, d_max;
  double pct, varsum;      /* NAN = NULL */
} krow;

typedef struct catrow {
  const char *name;
  int64_t uniq, calls;
  double dur, varsum;      /* ns */
  double avg_us, pct;
} catrow;

typedef struct gpurow {
  int32_t gpu;
  double pregap, dur, idle_pct, lead, trail;
} gpurow;

/* A small open-addressing hash of int32 slots (-1 = empty). */
typedef struct islots {
  int32_t *v;
  size_t cap;
} islots;

/* The trace check folded into the engine's own scans (library API,
 * raptor/api.c): rocpd_api's rows in setup_roi's time-zero scan, rocpd_op's
 * in the first op scan that reads the whole table.  *_done: every row of
 * that table went through rpd_check_values. */
typedef struct fold_check {
  rpd_check_rows api, op;
  int api_done, op_done;
} fold_check;

/* Progress of the engine's long loops: the command line points
 * R->progress at common/'s progress line (rpd_progress_rows, rpd_progress,
 * rpd_progress_end); NULL (the library API) shows nothing. */
typedef struct raptor_progress {
  /* a loop over the rows of table in id order; id = the current row's */
  void (*rows)(rpd *r, const char *what, const char *table, int64_t id);
  /* done of total (total < 0: unknown; done < 0 too: the line ends) */
  void (*count)(const char *what, int64_t done, int64_t total);
  /* the line at 100%, then a newline */
  void (*end)(void);
} raptor_progress;

/* A streamed run's state between ops (analyze.c stream_op). */
typedef struct stream_state {
  size_t i;                /* ops so far */
  int32_t gpu, seq;
  int64_t runmax;
  int32_t *ring;           /* the last seqlen+1 kernels, newest at i % w */
  int32_t *t;              /* the key being built */
  int32_t pad;             /* key_start_name: the missing earlier ops */
} stream_state;

/* A run of the engine is three parts: its options (raptor_opts: what the
 * caller asked, set by raptor_parse_args and never changed by the
 * engine), its results (raptor_res: what the outputs and the library API
 * read) and the run state (the rest of struct raptor: the trace, the
 * message, progress, caches, the streamed run's temp file).  The engine's
 * files and api.c name the parts (R->opt.seqlen, R->res.rows); the writers
 * (output.c, xlsx, the report) still read the fields by their own names
 * (R->seqlen), which the unions below keep valid until they move to the
 * one table path. */

/* The options' fields (struct raptor_opts). */
#define RAPTOR_OPTS_FIELDS                                                     \
  int categorize, variability, kernelseq, op_trace, gpu_summary, save;         \
  int write_xls, xls_op_trace, have_instance;                                  \
  int64_t instance;                                                            \
  int seqlen;                                                                  \
  double zthr;                                                                 \
  int64_t latency_ns;                                                          \
  int *gaps, ngaps;                                                            \
  char **gap_labels;       /* ngaps + 1, from gaps (make_gap_labels) */        \
  int op_width;                                                                \
  const char *op_file, *cat_file, *roi_start_s, *roi_end_s, *path;             \
  int auto_roi, roi_trim;                                                      \
  int reference_ops;       /* --reference-ops: the reference's op set */      \
  const char *csv_dir;     /* --csv-dir: one CSV file per table */            \
  int64_t gpu_id;                                                              \
  int display_cols, display_rows, float_digits;                                \
  int width;               /* --width: text tables' columns; 0 no limit, -1 \
                              the terminal's when stdout is one, else none */ \
  rpd_fmt fmt;                                                                 \
  rpd_buf optstr;          /* the options as given, for the outputs */

/* The results' fields (struct raptor_res).  Times are ns relative to
 * first_abs (time zero). */
#define RAPTOR_RES_FIELDS                                                      \
  int64_t first_abs, last_abs, roi_s, roi_e;                                   \
  category *cats;          /* [0] = _GPU_Idle, then the JSON file's */         \
  int ncats;                                                                   \
  const char **catname;    /* ncats + 2: ..., _Other, _Latency */              \
  int cat_other, cat_latency;                                                  \
  int cat_comm;            /* _COMM or _Collective: variability; -1 none */    \
  char **names;            /* kernel names */                                  \
  size_t nnames, capnames;                                                     \
  int *name_cat;                                                               \
  size_t nname_cat;        /* names[0 .. nname_cat) have their name_cat */     \
  op *ops;                 /* NULL in a streamed run (raptor.opfile) */        \
  size_t n, cap;                                                               \
  int32_t *keyk;           /* nkeys * (seqlen+1) */                            \
  kstat *ks;                                                                   \
  size_t nkeys, capkeys;                                                       \
  krow *rows;                                                                  \
  size_t nrows;                                                                \
  catrow *crows;                                                               \
  size_t ncrows;                                                               \
  gpurow *grows;                                                               \
  size_t ngrows;                                                               \
  double total_ns, var_comm, var_other;

typedef struct raptor_opts {
  RAPTOR_OPTS_FIELDS
} raptor_opts;

typedef struct raptor_res {
  RAPTOR_RES_FIELDS
} raptor_res;

typedef struct raptor {
  union {
    raptor_opts opt;
    struct { RAPTOR_OPTS_FIELDS };
  };
  union {
    raptor_res res;
    struct { RAPTOR_RES_FIELDS };
  };

  /* run state */
  char *err;               /* the failure's message, one line per failure
                            * (control characters escaped), owned; NULL none */
  int err_usage;           /* 1: a bad option (the CLI adds "Try ... --help") */
  const raptor_progress *progress;   /* NULL: no progress */
  rpd *r;
  fold_check *fold;        /* NULL: the caller checked the trace first (CLI) */
  islots name_slots;       /* kernel name -> index into res.names */
  islots key_slots;        /* key tuple -> index into res.keyk */
  /* streamed run (load.c can_stream): res.ops stays NULL, the res.n ops
   * are in opfile (a temp file read through opiter, closed by
   * raptor_free); keep_ops forbids it */
  int keep_ops, spill_failed;
  char *cat_error;         /* the first category match PCRE2 could not
                            * finish (category_of), owned; NULL none */
  FILE *opfile;
  stream_state stream;
} raptor;

/* options.c (the engine's entry: raptor.c's main and api.c) */
/* Zero R and set the option defaults. */
void raptor_init(raptor *R);
/* Parse raptor's command line into R (argv[0] is skipped).  0, or 2 with
 * the message in R->err and R->err_usage set. */
/* Classic raptor's option table (common/opt.h), storing into R and *gaps:
 * what raptor_parse_args parses and classic raptor's --help lists.  The
 * caller frees it with raptor_opt_table_free (R and gaps stay its own). */
rpd_opt *raptor_opt_table(raptor *R, rpd_opt_ints *gaps);
void raptor_opt_table_free(rpd_opt *opts);
int raptor_parse_args(raptor *R, int argc, char **argv);
/* The default --gaps if none were given, then the gap row labels. */
void make_gap_labels(raptor *R);
/* Free everything R owns (not R; the trace is closed by the caller). */
void raptor_free(raptor *R);
/* Add one line "fmt, ..." to R->err (the engine's message; the caller
 * shows it) and return code. */
int raptor_fail(raptor *R, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same for a bad option: R->err_usage = 1; returns 2. */
int raptor_usage(raptor *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Forget R->err (a message that another one replaces). */
void raptor_clear_err(raptor *R);

/* names.c (the bottom of the engine) */
/* FNV-1a of n bytes at p, continuing from h. */
uint64_t hash_bytes(const void *p, size_t n, uint64_t h);
/* A new table of cap (a power of two) empty slots; the caller frees t->v. */
void islots_init(islots *t, size_t cap);
/* Load -C FILE or the built-in categories into R (cats, catname, the _Other,
 * _Latency and communication indexes).  0, or 1 with the message in R->err. */
int categories_load(raptor *R);
/* Category index of a kernel name or gap label (last match wins; _Other). */
int category_of(raptor *R, const char *name);
/* The index of kernel name s in R->names, added when new (a copy, owned
 * by R). */
int32_t name_intern(raptor *R, const char *s);
/* The name that stands for "no earlier op" in the kernel-sequence keys of
 * the first --kernelseq-len ops (interned into R->names), or -1 when they
 * get no key (--reference-ops, as the reference, or a key of one name). */
int32_t key_start_name(raptor *R);

/* load.c */
/* Time zero, ROI, the ops, --auto-roi, --roi-trim, then analyze().  0, or an
 * exit code (1, or 2 for a malformed ROI bound) with the message in R->err
 * (bad ROI, no ops in the ROI, no such GPU, a read error). */
int setup_roi(raptor *R);

/* analyze.c */
/* Duration of an op in ns (0 when end < start). */
int64_t op_dur(const op *o);
/* zscore of an op's duration within its key; NAN when undefined. */
double op_zscore(const raptor *R, const op *o);
/* 1 if the op is an outlier under -z. */
int op_outlier(const raptor *R, const op *o);
/* Keys, statistics, kernelseq rows, categories and GPU rows of R->ops (or,
 * in a streamed run, of R->opfile, which stays open for the outputs;
 * R->spill_failed = 1 if reading it failed). */
void analyze(raptor *R);
/* After analyze() with -l N: 0, or 1 with the message in R->err when some
 * category has fewer ns than its calls x N (its total would turn negative). */
int latency_bound(raptor *R);
/* Streamed run: start the per-op state (keys, GPU rows) before the ops. */
void stream_begin(raptor *R);
/* Streamed run: PreGap, sequenceId, key and GPU row of the next op in
 * (gpu, start, id) order, appended to R->opfile.  0, or -1 on a write error. */
int stream_op(raptor *R, op *o);

/* The ops in (gpu, start, id) order, from R->ops or (streamed run) the
 * temp file; one iterator at a time. */
typedef struct opiter opiter;
/* A new iterator at the first op; the caller frees it with opiter_free. */
opiter *opiter_new(raptor *R);
/* The next op (valid until the next call), NULL at the end; a read error
 * sets R->spill_failed. */
const op *opiter_next(opiter *it);
/* Free an iterator (NULL is fine). */
void opiter_free(opiter *it);

/* output.c */
/* --save: replace the ext_raptor_* tables and the raptor_* metadata of the
 * trace (one transaction).  RPD_OK or an error (rpd_errmsg()). */
int save_results(raptor *R);
/* -x: FILE.xlsx.  0 or an exit code (message printed). */
int write_xls(raptor *R);
/* Refuse named outputs that are the trace, special or read-only, before any
 * work.  0 or an exit code (message printed). */
int check_outputs(raptor *R);
/* The kernelseq row that -i names, or NULL (message printed). Owned by R. */
krow *instance_row(raptor *R);
/* Every selected table and trace on stdout in R->fmt.  0 or an exit code. */
int print_all(raptor *R);
/* The selected tables that would go to stdout: names[] (static strings,
 * room for 8) and *n; returns *n. */
int stdout_tables(const raptor *R, const char **names, int *n);
/* --csv-dir: one CSV file per selected table.  0 or an exit code. */
int write_csv_dir(raptor *R);

#endif
