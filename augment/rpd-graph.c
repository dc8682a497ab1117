/* links: rpd-import */
/* rpd-graph - HIP/CUDA graph captures, their kernels and their launches. */
#include "opt.h"

static const rpd_help help = {
  .usage = "usage: rpd-graph FILE [-o OUT] [--force]",
  .about =
    "Find the graphs captured in an RPD trace, the kernels of each graph and\n"
    "every graph launch:\n"
    "  rocpd_graphapi, rocpd_graphLaunchapi   args of the capture/instantiate\n"
    "                                         and launch calls as columns\n"
    "  ext_graph                              one row per captured graph\n"
    "  ext_graph_kernelapis                   its kernel launches, in order\n"
    "  view graphLaunch                       per launch: api, op and gpu time (us)\n"
    "  view graphKernel                       per graph: kernel names and dims",
  .notes = "Works on schema v2 and v3 traces; FILE may be .gz.  See docs/rpd-graph.md.\n",
};

#include <stdio.h>

#include "rpd.h"
#include "check.h"
#include "subclass.h"
#include "readdirect.h"  /* -o OUT from a rocprofv3 database or Kineto trace */

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *const capture_apis[] = {
  "hipStreamBeginCapture", "hipStreamEndCapture", "hipGraphInstantiate",
  "hipGraphInstantiateWithFlags", "cudaStreamBeginCapture_v10000",
  "cudaStreamBeginCapture_ptsz_v10000", "cudaStreamEndCapture_v10000",
  "cudaStreamEndCapture_ptsz_v10000", "cudaGraphInstantiate_v10000",
  "cudaGraphInstantiateWithFlags_v11040",
};
static const char *const launch_apis[] = {
  "hipGraphLaunch", "cudaGraphLaunch_v10000", "cudaGraphLaunch_ptsz_v10000",
};
static const char *const handle_types[] = {
  "stream", "varchar(18) NOT NULL", "graph", "varchar(18) NOT NULL",
  "graphExec", "varchar(18) NOT NULL", NULL,
};
static const char *const capture_required[] = {"stream", "graph", "graphExec", NULL};
static const char *const launch_required[] = {"graphExec", "stream", NULL};

static const rpd_subclass capture_sc = {
  "api", "graph", capture_apis, N(capture_apis), handle_types, capture_required,
};
static const rpd_subclass launch_sc = {
  "api", "graphLaunch", launch_apis, N(launch_apis), handle_types, launch_required,
};

/* One ext_graph row per end-capture call that has a graph and an
 * instantiation: start is the begin-capture call just before it on the
 * same stream (the end-capture's own start if there is none). */
static const char fill_graphs_sql[] =
  "WITH g AS (SELECT A.id, A.start, A.\"end\", G.stream, G.graph,"
  "   S.string LIKE '%BeginCapture%' AS is_begin,"
  "   S.string LIKE '%EndCapture%' AS is_end"
  "  FROM rocpd_graphapi G JOIN rocpd_api A ON A.id = G.api_ptr_id"
  "  JOIN rocpd_string S ON S.id = A.apiName_id WHERE G.stream != ''),"
  " w AS (SELECT *, lag(start) OVER win AS prev_start,"
  "   lag(is_begin) OVER win AS prev_is_begin FROM g WHERE is_begin OR is_end"
  "   WINDOW win AS (PARTITION BY stream ORDER BY start, id)),"
  " caps AS (SELECT id, graph, stream, \"end\","
  "   CASE WHEN prev_is_begin THEN prev_start ELSE start END AS start"
  "   FROM w WHERE is_end AND graph != ''),"
  " inst AS (SELECT DISTINCT graph, graphExec FROM rocpd_graphapi"
  "   WHERE graph != '' AND graphExec != '')"
  "INSERT INTO ext_graph(graph, graphExec, stream, start, \"end\")"
  " SELECT C.graph, I.graphExec, C.stream, C.start, C.\"end\""
  " FROM caps C JOIN inst I ON I.graph = C.graph"
  " ORDER BY C.start, C.id, I.graphExec";

/* The kernel launches on each capture stream whose call ends inside the
 * capture, numbered by start time. */
static const char fill_kernels_sql[] =
  "INSERT INTO ext_graph_kernelapis(graph_id, api_id, sequence)"
  " SELECT G.id, A.id, row_number() OVER (PARTITION BY G.id ORDER BY A.start, A.id)"
  " FROM rocpd_kernelapi K JOIN ext_graph G ON G.stream = K.stream"
  " JOIN rocpd_api A ON A.id = K.api_ptr_id"
  " WHERE A.\"end\" >= G.start AND A.\"end\" <= G.\"end\""
  " ORDER BY G.id, A.start, A.id";

/* Remove everything rpd-graph creates (also leftovers of an interrupted
 * reference run, which never set the done tag). */
static const char *const graph_cols[] = {
  "id", "graph", "graphExec", "stream", "start", "end", NULL
};
static const char *const kernelapis_cols[] = {
  "id", "graph_id", "api_id", "sequence", NULL
};

static int drop_graph(rpd *r, void *ctx)
{
  int rc;
  (void)ctx;
  /* never a user's own table of that name */
  rc = rpd_check_owned(r, "ext_graph", graph_cols);
  if (!rc)
    rc = rpd_check_owned(r, "ext_graph_kernelapis", kernelapis_cols);
  if (!rc)
    rc = rpd_exec(r, "DROP VIEW IF EXISTS graphLaunch;"
                   "DROP VIEW IF EXISTS graphKernel;"
                   "DROP TABLE IF EXISTS ext_graph_kernelapis;"
                   "DROP TABLE IF EXISTS ext_graph;");
  if (!rc)
    rc = rpd_subclass_drop(r, &capture_sc);
  if (!rc)
    rc = rpd_subclass_drop(r, &launch_sc);
  return rc;
}

/* Counts of a build, printed by summary() after the commit. */
typedef struct graph_counts {
  int64_t ncalls, nlaunch, ngraphs, nkernels;
} graph_counts;

static int build_graph(rpd *r, void *ctx)
{
  graph_counts *c = ctx;
  int rc;

  if (!rpd_table_exists(r, "rocpd_kernelapi"))
    return rpd_seterr(RPD_ENOTRPD, "not an RPD trace: missing table rocpd_kernelapi");
  rc = drop_graph(r, ctx);
  if (!rc)
    rc = rpd_subclass_build(r, &capture_sc, &c->ncalls);
  if (!rc)
    rc = rpd_subclass_build(r, &launch_sc, &c->nlaunch);
  if (!rc)
    rc = rpd_view_install(r, "graph");
  if (!rc)
    rc = rpd_exec(r, fill_graphs_sql);
  rpd_progress_sql(r, "graph kernels", "rocpd_kernelapi");
  if (!rc)
    rc = rpd_exec(r, fill_kernels_sql);
  if (!rc)
    rc = rpd_query_int64(r, "SELECT count(*) FROM ext_graph", &c->ngraphs);
  if (!rc)
    rc = rpd_query_int64(r, "SELECT count(*) FROM ext_graph_kernelapis", &c->nkernels);
  return rc;
}

static void summary(void *ctx)
{
  const graph_counts *c = ctx;

  printf("%s: %lld capture/instantiate calls, %lld graphs, %lld graph kernels, "
         "%lld graph launches\n", rpd_progname, (long long)c->ncalls,
         (long long)c->ngraphs, (long long)c->nkernels, (long long)c->nlaunch);
}

int main(int argc, char **argv)
{
  rpd_set_import_reader(rpdi_direct_read, NULL);
  graph_counts counts = { 0 };
  rpd_augment a = {
    .help = &help,
    .what = "the graph tables",
    .done_tag = "Graph::Generated",
    .drop = drop_graph,
    .build = build_graph,
    .ctx = &counts,
    .summary = summary,
  };
  return rpd_augment_main(&a, argc, argv);
}
