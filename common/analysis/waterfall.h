/* waterfall.h - the exclusive split of a GPU span that rpd-diff --waterfall
 * compares between two traces, and the idle-gap rule it shares with
 * rpd-analyze.
 *
 * The span (first op start to last op end) is cut into EXCLUSIVE parts, so
 * that the parts add up to the span to the ns:
 *
 *   - a kernel category (raptor's categories, catfile.h): time where a
 *     kernel of that category runs and no kernel of a higher-priority
 *     category does;
 *   - "other kernels": kernels of no category;
 *   - "communication": time where only communication kernels (the
 *     category of category_comm_index) run, no other kernel: the
 *     communication not hidden behind compute;
 *   - "copy": time where only copies run (no kernel);
 *   - idle, in three causes (rpd_idle_classify, as rpd-analyze splits it):
 *     host_wait, kernel_wait, idle_other.
 *
 * Priority when several run at once, highest first: the categories in
 * reverse file order (the LAST category of the file wins, as it does when
 * a name matches several), then kernels of no category, then
 * communication, then copies.  Among ops of the same priority the one that
 * started first (then the one fed first) gets the time; that op's key gets
 * it in the per-kernel totals.
 *
 * Ops are fed in start order (rpd_wf_op); memory is the ops running at
 * one moment plus one total per distinct key. */
#ifndef RPD_WATERFALL_H
#define RPD_WATERFALL_H

#include <stdint.h>

#include "util/map.h"

/* The cause of an idle gap. */
typedef enum {
  RPD_IDLE_HOST_WAIT,     /* the op that ends the gap was launched after the gap began */
  RPD_IDLE_KERNEL_WAIT,   /* already launched, and the gap is short */
  RPD_IDLE_OTHER          /* already launched and a long gap, or launch unknown */
} rpd_idle_cause;

/* The cause of an idle gap [gap_start, gap_end) of a GPU, from `launch`:
 * the start of the api call that launched the op ending the gap (-1:
 * unknown, no linked call).  host wait when launch > gap_start; kernel
 * wait when known and gap_end - gap_start <= kernel_wait_us * 1000; else
 * other.  The rule of rpd-analyze's ext_analysis_idle (docs/rpd-analyze.md
 * "Idle-time breakdown"). */
rpd_idle_cause rpd_idle_classify(int64_t gap_start, int64_t gap_end, int64_t launch,
                                 double kernel_wait_us);

/* The fixed parts; kernel category c is part RPD_WF_CAT0 + c, kernels of
 * no category part RPD_WF_CAT0 + ncat. */
enum {
  RPD_WF_COPY, RPD_WF_COMM, RPD_WF_HOST_WAIT, RPD_WF_KERNEL_WAIT, RPD_WF_IDLE_OTHER,
  RPD_WF_CAT0
};

/* What an op is, for rpd_wf_op. */
enum { RPD_WF_OP_COPY, RPD_WF_OP_KERNEL };

typedef struct rpd_wf_active {
  int64_t start, end, key;
  uint64_t seq;
  int part, prio;
} rpd_wf_active;

typedef struct rpd_wf {
  int ncat, comm;            /* categories; index of the comm one or -1 */
  double kernel_wait_us;
  int64_t *part_ns;          /* rpd_wf_nparts() entries */
  int64_t first, last;       /* span; valid when ops > 0 */
  int64_t cur;               /* time accounted up to */
  int64_t prev;              /* start of the last op fed */
  int64_t ops, gaps;
  uint64_t seq;
  rpd_wf_active *act;        /* ops running at cur */
  int nact, cap;
  rpd_i64map keys;           /* key -> index into key_ns */
  int64_t *key_ns;
  int64_t *key_id;           /* index -> key */
  size_t nkeys, keycap;
} rpd_wf;

/* Start a sweep over ncat categories (comm: the communication category's
 * index or -1), gaps classified with kernel_wait_us.  Free with
 * rpd_wf_free. */
void rpd_wf_init(rpd_wf *w, int ncat, int comm, double kernel_wait_us);

/* Number of parts: RPD_WF_CAT0 + ncat + 1. */
int rpd_wf_nparts(const rpd_wf *w);

/* The part's name: "copy", "communication", "idle: host_wait",
 * "idle: kernel_wait", "idle: other", the category's name (cat_names[c]),
 * "other kernels".  Static or cat_names' string. */
const char *rpd_wf_part_name(const rpd_wf *w, int part, const char *const *cat_names);

/* Feed one op [start, end) (end < start counts as end = start).  kind:
 * RPD_WF_OP_KERNEL or RPD_WF_OP_COPY; cat: the kernel's category (-1:
 * none; ignored for a copy); key: the kernel's name id for the per-kernel
 * totals (ignored for a copy); launch: start of its launching api call, -1
 * unknown.  Ops must come in start order: RPD_ERANGE (message set) when
 * start is before the previous op's. */
int rpd_wf_op(rpd_wf *w, int64_t start, int64_t end, int kind, int cat, int64_t key,
              int64_t launch);

/* Account the ops still running: after it, part_ns sums to
 * last - first. */
void rpd_wf_finish(rpd_wf *w);

/* last - first, 0 with no ops. */
int64_t rpd_wf_span(const rpd_wf *w);

/* The exclusive ns the key got (0 if none). */
int64_t rpd_wf_key_ns(const rpd_wf *w, int64_t key);

/* Free what rpd_wf_init and the sweep allocated. */
void rpd_wf_free(rpd_wf *w);

#endif
