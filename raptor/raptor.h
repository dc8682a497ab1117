/* raptor.h - the shared state of the raptor tool (the raptor folder): options,
 * the op array, kernel sequence keys and the result tables. */
#ifndef RAPTOR_H
#define RAPTOR_H

#include <stdint.h>
#include <stdio.h>
#include <xlsxwriter.h>

#include "catfile.h"
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

typedef struct raptor {
  /* options */
  int categorize, variability, kernelseq, op_trace, gpu_summary, save;
  int write_xls, xls_op_trace, have_instance;
  int64_t instance;
  int seqlen;
  double zthr;
  int64_t latency_ns;
  int *gaps, ngaps;
  int op_width;
  const char *op_file, *cat_file, *roi_start_s, *roi_end_s, *path;
  int auto_roi, roi_trim;
  int reference_ops;
  const char *csv_dir;     /* --csv-dir: one CSV file per table */       /* --reference-ops: the reference's op set */
  int64_t gpu_id;
  int display_cols, display_rows, float_digits;
  rpd_fmt fmt;
  rpd_buf optstr;

  rpd *r;
  int64_t first_abs, last_abs, roi_s, roi_e;

  category *cats;          /* [0] = _GPU_Idle, then the JSON file's */
  int ncats;
  const char **catname;    /* ncats + 2: ..., _Other, _Latency */
  int cat_other, cat_latency;
  int cat_comm;            /* _COMM or _Collective: variability by_comm; -1 none */

  /* kernel names */
  char **names;
  size_t nnames, capnames;
  int *name_cat;
  islots name_slots;

  op *ops;
  size_t n, cap;

  int32_t *keyk;           /* nkeys * (seqlen+1) */
  kstat *ks;
  size_t nkeys, capkeys;
  islots key_slots;

  krow *rows;
  size_t nrows;
  char **gap_labels;
  catrow *crows;
  size_t ncrows;
  gpurow *grows;
  size_t ngrows;
  double total_ns, var_comm, var_other;
} raptor;

uint64_t hash_bytes(const void *p, size_t n, uint64_t h);
void islots_init(islots *t, size_t cap);
int categories_load(raptor *R);
int category_of(raptor *R, const char *name);
int setup_roi(raptor *R);
int64_t op_dur(const op *o);
void compute_pregaps(raptor *R);
double op_zscore(const raptor *R, const op *o);
int op_outlier(const raptor *R, const op *o);
void analyze(raptor *R);
int save_results(raptor *R);
int write_xls(raptor *R);
int check_outputs(raptor *R);
krow *instance_row(raptor *R);
int print_all(raptor *R);
int stdout_tables(const raptor *R, const char **names, int *n);
int write_csv_dir(raptor *R);

#endif
