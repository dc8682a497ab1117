/* links: rpd-import */
/* rpd-callstack - add the call stack table ext_callstack and its views. */
#include "opt.h"

static const rpd_help help = {
  .usage = "usage: rpd-callstack FILE [-o OUT] [--force]",
  .about =
    "Add the caller/callee table ext_callstack(id, parent_id, child_id, depth,\n"
    "cpu_time, gpu_time) and the views callStack_inclusive, callStack_exclusive,\n"
    "callStack_inclusive_name, callStack_exclusive_name to an RPD trace, in one\n"
    "transaction.  Per (pid, tid) the api calls are walked as a stack; each\n"
    "call's exclusive cpu time and its ops' gpu time are written once for the\n"
    "call itself (depth 0) and once for every caller above it, so inclusive\n"
    "time is SUM(...) GROUP BY parent_id.",
  .notes =
    "Prints one summary line: calls, rows, threads, max depth, and the number\n"
    "of calls that overlap another call on their thread without nesting.\n"
    "Example: rpd-callstack trace.rpd && sqlite3 trace.rpd \\\n"
    "  'select apiName, args, cpu_time, gpu_time from callStack_inclusive_name\n"
    "   order by cpu_time desc limit 10'\n",
};

#include <inttypes.h>

#include "callstack.h"
#include "rpd.h"
#include "readdirect.h"  /* -o OUT from a rocprofv3 database or Kineto trace */

typedef struct ctx {
  int built;
  rpd_callstack_stats st;
} ctx;

static int drop(rpd *r, void *c) {
  (void)c;
  return rpd_callstack_drop(r);
}

static int build(rpd *r, void *vc) {
  ctx *c = vc;
  int rc = rpd_callstack_build(r, &c->st);
  c->built = rc == RPD_OK;
  return rc;
}

static void summary(void *vc) {
  const ctx *c = vc;
  if (c->built)
    printf("%s: %" PRId64 " calls, %" PRId64 " rows, %" PRId64
           " threads, max depth %d, %" PRId64
           " overlapping calls (not nested)\n",
           rpd_progname, c->st.calls, c->st.rows, c->st.threads,
           c->st.max_depth, c->st.overlaps);
}

int main(int argc, char **argv) {
  rpd_set_import_reader(rpdi_direct_read, NULL);
  ctx c = {0};
  const rpd_augment a = {
      .help = &help,
      .what = "a call stack",
      .done_tag = RPD_CALLSTACK_DONE_TAG,
      .drop = drop,
      .build = build,
      .ctx = &c,
      .summary = summary,
      .checks_itself = 1,
  };
  return rpd_augment_main(&a, argc, argv);
}
