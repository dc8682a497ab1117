/* steps.h - the iterations of a training or serving loop: found from step
 * markers (PyTorch's ProfilerStep#N, or any marker text the user names),
 * or, in a capture without markers, from the period of the GPU's kernel
 * sequence.  Each step gets its GPU busy time, idle time and kernel count;
 * the leading warm-up steps are told apart from the steady ones.
 * See docs/steps.md. */
#ifndef RPD_STEPS_H
#define RPD_STEPS_H

#include <stddef.h>
#include <stdint.h>

#include "rpd.h"

/* The default step marker: PyTorch profiler's step ranges. */
#define RPD_STEP_MARKER_DEFAULT "^ProfilerStep#[0-9]+$"

enum { RPD_STEPS_NONE = 0, RPD_STEPS_MARKERS = 1, RPD_STEPS_PERIOD = 2 };

typedef struct rpd_step_row {
  int64_t step;       /* the marker's trailing number, else 0, 1, 2, ... */
  int64_t start, end; /* ns */
  int64_t busy;       /* ns of GPU work (kernels, copies) inside [start, end),
                         overlaps counted once */
  int64_t kernels;    /* kernels starting inside [start, end) */
  int warmup;         /* 1: a leading step left out of the steady state */
} rpd_step_row;

typedef struct rpd_steps {
  rpd_step_row *s;
  size_t n;
  int source;         /* RPD_STEPS_* */
  int64_t origin;     /* the trace start (first api call, else first op) */
  int64_t period;     /* RPD_STEPS_PERIOD: kernels per step */
  /* the steady state, as rpd_steps_steady last found it */
  size_t steady;
  int64_t median, p10, p90;
} rpd_steps;

/* Find the steps of r: the marker ranges (UserMarker calls) whose text
 * matches `marker` (a PCRE2 pattern; NULL = RPD_STEP_MARKER_DEFAULT); when
 * none match and marker is NULL, the period of the kernel sequence of GPU
 * `gpu` (-1: the GPU with the most kernels).  GPU work is counted on `gpu`
 * (-1: every GPU, their union).  *out is the caller's; free it with
 * rpd_steps_free.  No steps is not an error (out->n = 0).  RPD_OK,
 * RPD_EPARSE for a bad pattern, or an SQL error (message in rpd_errmsg()). */
int rpd_steps_find(rpd *r, const char *marker, int gpu, rpd_steps *out);

/* The kernel-name period of seq[0..n) (ids of kernel names in GPU start
 * order): the number of kernels per iteration and in *first the index of
 * the first kernel of the first whole iteration, or 0 when no period with
 * at least 3 iterations is found.  A name that runs exactly once per
 * iteration marks the iterations: among the names whose occurrences come
 * at a near-constant distance of at least 2 (every distance after the first within 10%
 * of each other, the first -- warm-up may lengthen it -- no shorter than
 * 90% of the shortest) and whose runs span at least half the sequence, the
 * one with the fewest occurrences (at least 3), then the earliest first
 * occurrence.  The period is the mean distance after the first.  Exposed
 * for tests. */
int64_t rpd_steps_period(const int64_t *seq, size_t n, size_t *first);

/* Mark warm-up steps (steps.h rule: the leading steps whose duration is
 * more than 25% away from the median of all steps) and fill the steady
 * state's median/p10/p90 duration (ns), also kept in st.  Returns the number
 * of steady steps. */
size_t rpd_steps_steady(rpd_steps *st, int64_t *median, int64_t *p10, int64_t *p90);

void rpd_steps_free(rpd_steps *st);

#endif
