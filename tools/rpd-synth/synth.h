/* synth.h - what the files of rpd-synth share: the kernel catalog's types,
 * the random numbers, the state of a run (synth) and the functions one file
 * calls in another.  Files: main.c (options, main), build.c (the kernel
 * catalog and the workload of a step), strings.c (string ids),
 * write.c (rows into the trace, --order end, monitor samples, the run),
 * trace.c (creating, indexing and publishing the trace). */
#ifndef RPD_SYNTH_H
#define RPD_SYNTH_H

#include "rpd.h"

#include <stdint.h>

/* ------------------------------------------------------------ random */

typedef struct { uint64_t s; } rng;

static inline uint64_t rng_next(rng *r)   /* splitmix64 */
{
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Uniform integer in [lo, hi]. */
static inline int64_t rng_range(rng *r, int64_t lo, int64_t hi)
{
  return lo + (int64_t)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* 1 with probability pct/100. */
static inline int rng_pct(rng *r, int pct)
{
  return (int)(rng_next(r) % 100) < pct;
}

/* ------------------------------------------------------------ catalog */

enum kclass { K_GEMM, K_ELEM, K_SOFTMAX, K_NORM, K_ATTN, K_COMM, K_TOPK,
              K_MISC, K_HOSTILE, K_NCLASS };

typedef struct kdef {
  const char *name;
  int cls;
  int ext;              /* launched by hipExtModuleLaunchKernel */
  int dmin, dmax;       /* GPU duration, us */
  int grid, wg;
} kdef;

/* ------------------------------------------------------------ state */

#define MAXROWS 8192        /* api rows of one step (a --layers 128 pass) */
#define MAXOPS 8192         /* ops of one step */
#define MAXLAYERS 128
#define ARGSLEN 200
#define T0 INT64_C(1700000000000000)
#define PID 4242
#define SLOW_KERNEL "attn_fwd"      /* --ranks: slow on rank N/2 */
#define STRAGGLE_NS 200000          /* --ranks: last rank's lateness */

enum rowkind { R_PLAIN, R_KERNEL, R_COPY };

typedef struct op_row {
  int gpu, queue;
  int64_t start, end;
  const char *desc, *type;
} op_row;

typedef struct api_row {
  int64_t start, end;
  int tid;
  const char *name;
  const char *domain;
  char args[ARGSLEN];
  int kind;
  const kdef *k;              /* R_KERNEL */
  int64_t grid, wg;
  int64_t size;               /* R_COPY */
  int ckind;
  uint64_t dst, src;
  int pinned;
  char stream[24];
  int op_first, op_n;         /* ops in the step buffer */
} api_row;

typedef struct graph {
  uint64_t graph, exec;
  int nk;
  const kdef *k[16];
} graph;

typedef struct thr {
  int idx, tid, gpu, kq, cq;   /* kernel and copy queue ids */
  char kstream[24], cstream[24];
  int64_t now;
  int64_t kfree, cfree;        /* when each queue drains */
  int64_t seq, opid;           /* autograd counters */
  int layer;
  int hostile_done;
  int64_t straggle_ns;         /* --ranks: delay before each collective */
  int slow_attn;               /* --ranks: attn_fwd runs 3x longer */
  int ngraph, ngraph_want;
  graph graphs[8];
  rng r;
} thr;

typedef struct step {          /* rows of one step, in end order */
  api_row rows[MAXROWS];
  int nrows;
  op_row ops[MAXOPS];
  int nops;
  int overflow;
} step;

typedef struct strmap {        /* string -> id, open addressing */
  char **key;
  int64_t *id;
  size_t cap, n;
} strmap;

/* --order end: a built row waiting for its turn (rows go out by end time,
 * then by build order). */
typedef struct pending {
  api_row a;                   /* a.op_first = 0: ops are its own copy */
  op_row *ops;
  int gpu;
  int64_t seq;
} pending;

typedef struct synth {
  int schema, gpus, threads, graphs, autograd;
  int order_end;               /* --order end */
  int layers;                  /* --layers N, 0 = single layer steps */
  pending **pend;              /* --order end: min-heap by (end, seq) */
  size_t npend, cappend;
  int64_t pend_seq;
  int stackframes;             /* --stackframes: rocpd_stackframe rows */
  sqlite3_stmt *ins_frame;
  int64_t n_frame;
  int64_t api_want, seed;
  int64_t ranks, rank, clock_skew;   /* --ranks, --rank, --clock-skew */
  int64_t pid, t0;                   /* this rank's pid and clock origin */
  sqlite3 *db;
  sqlite3_stmt *ins_api, *ins_op, *ins_link, *ins_kernel, *ins_copy,
      *ins_str, *ins_ustr, *ins_mon;
  strmap strings;
  int64_t next_str, next_ustr;
  int64_t n_api, n_op, n_link, n_kernel, n_copy, n_mon;
  int64_t t_end;
  thr *thr;
  rpd_buf indexes;             /* CREATE INDEX text, run at the end */
  step st;
} synth;

/* ------------------------------------------------------------ functions */

/* strings.c */
/* FNV-1a of s (the string map; stack frames of an api call). */
uint64_t synth_hash_str(const char *s);
/* Step a write statement to completion and reset it; SQLite status. */
int synth_put(sqlite3_stmt *st);
/* Id of s in rocpd_string, inserting it when new. */
int synth_string_id(synth *s, const char *str, int64_t *id);
/* Id of an api args string: v2 interns it in rocpd_string; v3 appends a new
 * rocpd_ustring row per non-empty args, as the tracer does ("" is id 1). */
int synth_args_id(synth *s, const char *str, int64_t *id);
/* Free the map's keys and slots. */
void synth_strmap_free(strmap *m);

/* build.c */
/* A device address as the tracer prints one ("0x7f..."), into buf. */
void synth_gaddr(char *buf, uint64_t v);
/* Fill the step with the thread's next piece of work. */
void synth_build_step(synth *s, step *st, thr *t);
/* A one-row filler used when the next step does not fit the row budget. */
void synth_filler(step *st, thr *t);

/* write.c */
/* Prepare every insert statement of the run; SQLite status. */
int synth_prepare_all(synth *s);
/* Finalize the statements of synth_prepare_all. */
void synth_finalize_all(synth *s);
/* Generate everything inside the open transaction. */
int synth_generate(synth *s);

/* trace.c */
/* Fill the trace and publish it (out is the user's name for it); 0 or the
 * exit code. */
int synth_write_trace(synth *s, const char *out, int force);

#endif
