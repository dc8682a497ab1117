/* csv_kinds.c - rpd-import: the columns and rows of each kind of rocprofv3
 * CSV file, and the agent map (see csvread.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rpd.h"
#include "csvread.h"

int csv_agent_info(const char *path, FILE *f, agentmap *am)
{
  csv c;
  int rc = csv_open(&c, path, f), g;
  int col_node = -1, col_type = -1, col_tidx = -1;
  if (!rc) {
    col_node = csv_col(&c, "Logical_Node_Id|Node_Id");
    col_type = csv_col(&c, "Agent_Type|Type");
    col_tidx = csv_col(&c, "Logical_Node_Type_Id");
    if (col_node < 0 || col_type < 0)
      rc = rpd_seterr(RPD_EPARSE, "%s: missing Logical_Node_Id/Agent_Type", path);
  }
  while (!rc && (g = csv_next(&c)) > 0) {
    int64_t node, tidx = 0;
    rc = cint(&c, col_node, &node);
    if (!rc && col_tidx >= 0)
      rc = cint(&c, col_tidx, &tidx);
    if (!rc)
      imap_put(&am->gpu, node, strstr(cval(&c, col_type), "GPU") ? tidx : -1);
  }
  if (!rc && g < 0)
    rc = RPD_EPARSE;
  if (!rc)
    am->known = 1;
  csv_close(&c);
  return rc;
}

/* Without agent_info.csv: GPU agents are the agents that ran kernels (or
 * whose kernels had counters collected), numbered 0.. in ascending agent
 * order.  files: the n file lists to scan. */
int csv_agent_scan(char **const *files, const int *nfiles, int n, agentmap *am)
{
  int64_t ids[256];
  int nids = 0, rc = RPD_OK, g;
  for (int l = 0; l < n; l++)
    for (int i = 0; i < nfiles[l] && !rc; i++) {
      csv c;
      rc = csv_open(&c, files[l][i], NULL);
      int col = rc ? -1 : csv_col(&c, "Agent_Id");
      c.keep = col + 1;         /* only the fields up to Agent_Id */
      while (!rc && col >= 0 && (g = csv_next(&c)) > 0) {
        int64_t a;
        rc = cint(&c, col, &a);
        int seen = 0;
        for (int k = 0; k < nids; k++)
          seen |= ids[k] == a;
        if (!rc && !seen && nids < 256)
          ids[nids++] = a;
      }
      csv_close(&c);
    }
  for (int i = 0; i < nids; i++) {
    int rank = 0;
    for (int k = 0; k < nids; k++)
      rank += ids[k] < ids[i];
    imap_put(&am->gpu, ids[i], rank);
  }
  return rc;
}

static int64_t csv_gpu(const agentmap *am, int64_t agent)
{
  int64_t g;
  return imap_get(&am->gpu, agent, &g) ? g : -1;
}

static const char *const csv_kernel_cols[] = {
  "Agent_Id", "?Queue_Id", "?Stream_Id", "?Dispatch_Id", "Kernel_Name",
  "Correlation_Id", "Start_Timestamp", "End_Timestamp",
  "?LDS_Block_Size|Group_Segment_Size|LDS_Size", "?Scratch_Size|Private_Segment_Size",
  "?Workgroup_Size_X", "?Workgroup_Size_Y", "?Workgroup_Size_Z",
  "?Grid_Size_X", "?Grid_Size_Y", "?Grid_Size_Z"
};
enum { NKERNEL_COLS = sizeof csv_kernel_cols / sizeof csv_kernel_cols[0] };

static int csv_kernel_row(imp *m, const csv *c, const int *col, const void *arg)
{
  const agentmap *am = arg;
  kern k = {0};
  int64_t v[NKERNEL_COLS];
  int rc = RPD_OK;
  for (int i = 0; i < NKERNEL_COLS && !rc; i++)
    rc = i == 4 ? RPD_OK : cint(c, col[i], &v[i]);
  if (rc)
    return rc;
  k.gpu = csv_gpu(am, v[0]);
  k.queue = v[1];
  k.stream = v[2];
  k.seq = v[3];
  k.corr = v[5];
  k.start = v[6];
  k.end = v[7];
  k.lds = v[8];
  k.scratch = v[9];
  for (int i = 0; i < 3; i++) {
    k.wg[i] = v[10 + i];
    k.grid[i] = v[13 + i];
  }
  /* CSV has one name: the full one unless rocprofv3 ran with
   * --truncate-kernels (then main records that the names are short) */
  rc = w_kernel_name(m, cval(c, col[4]), NULL, &k.desc_id, &k.name_id);
  if (!rc)
    rc = w_kernel(m, &k);
  return rc;
}

static int csv_kernels(imp *m, const char *path, FILE *f, const agentmap *am)
{
  return csv_each(m, path, f, "kernel_dispatch", csv_kernel_cols, NKERNEL_COLS,
                  csv_kernel_row, am);
}

static const char *const csv_api_cols[] = {
  "?Domain", "Function", "?Process_Id", "Thread_Id", "Correlation_Id",
  "Start_Timestamp", "End_Timestamp", "?Args|Arguments"
};

/* What the api rows of one CSV file are. */
typedef struct apisrc {
  const char *domain;  /* NULL: from each row's Domain column */
  int marker;          /* marker_api: the Function column is the message */
} apisrc;

/* The rpd domain of a rocprofv3 category (HIP_RUNTIME_API_EXT -> HIP);
 * *marker = 1 for the marker (roctx) categories. */
static const char *domain_of(const char *category, int *marker)
{
  static const char *const map[][2] = {
    {"HIP_", "HIP"}, {"HSA_", "HSA"}, {"MARKER_", "ROCTX"}, {"RCCL_", "RCCL"},
    {"ROCDECODE_", "ROCDECODE"}, {"ROCJPEG_", "ROCJPEG"}, {"KFD_", "KFD"},
    {"OMPT", "OMPT"}
  };
  *marker = !strncmp(category, "MARKER_", 7);
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strncmp(category, map[i][0], strlen(map[i][0])))
      return map[i][1];
  return category;
}

static int csv_api_row(imp *m, const csv *c, const int *col, const void *arg)
{
  const apisrc *src = arg;
  apirec a = {0};
  int rc = cint(c, col[2], &a.pid);
  if (!rc) rc = cint(c, col[3], &a.tid);
  if (!rc) rc = cint(c, col[4], &a.corr);
  if (!rc) rc = cint(c, col[5], &a.start);
  if (!rc) rc = cint(c, col[6], &a.end);
  if (rc)
    return rc;
  int marker = src->marker;
  a.category = cval(c, col[0]);
  a.domain = src->domain ? src->domain : domain_of(a.category, &marker);
  a.name = marker ? "UserMarker" : cval(c, col[1]);
  a.args = marker ? cval(c, col[1]) : cval(c, col[7]);
  return w_api(m, &a);
}

static int csv_apis(imp *m, const char *path, FILE *f, const char *kind,
                    const char *domain)
{
  apisrc src = {domain, !strcmp(kind, "marker_api")};
  if (!domain)
    src.marker = 0;
  return csv_each(m, path, f, kind, csv_api_cols,
                  sizeof csv_api_cols / sizeof csv_api_cols[0], csv_api_row, &src);
}

static const char *const csv_copy_cols[] = {
  "?Direction|Operation", "Source_Agent_Id|Src_Agent_Id",
  "Destination_Agent_Id|Dst_Agent_Id", "Correlation_Id", "Start_Timestamp",
  "End_Timestamp", "?Size|Bytes|Copy_Bytes", "?Stream_Id"
};

static int csv_copy_row(imp *m, const csv *c, const int *col, const void *arg)
{
  const agentmap *am = arg;
  copyrec cp = {0};
  int64_t src, dst;
  int rc = cint(c, col[1], &src);
  if (!rc) rc = cint(c, col[2], &dst);
  if (!rc) rc = cint(c, col[3], &cp.corr);
  if (!rc) rc = cint(c, col[4], &cp.start);
  if (!rc) rc = cint(c, col[5], &cp.end);
  if (!rc) rc = cint(c, col[6], &cp.bytes);
  if (!rc) rc = cint(c, col[7], &cp.stream);
  if (rc)
    return rc;
  cp.kind = copy_kind(cval(c, col[0]));
  cp.src_gpu = csv_gpu(am, src);
  cp.dst_gpu = csv_gpu(am, dst);
  return w_copy(m, &cp);
}

static int csv_copies(imp *m, const char *path, FILE *f, const agentmap *am)
{
  return csv_each(m, path, f, "memory_copy", csv_copy_cols,
                  sizeof csv_copy_cols / sizeof csv_copy_cols[0], csv_copy_row, am);
}

static const char *const csv_counter_cols[] = {
  "?Correlation_Id", "Dispatch_Id", "Agent_Id", "?Queue_Id", "?Kernel_Name",
  "Counter_Name", "Counter_Value", "?Start_Timestamp", "?End_Timestamp",
  "?Grid_Size", "?Workgroup_Size", "?LDS_Block_Size", "?Scratch_Size"
};

/* counter_collection.csv: one row per (dispatch, counter); the value goes
 * to rocpd_counter on the dispatch's op (from kernel_trace.csv, else made
 * here from the row). */
static int csv_counter_row(imp *m, const csv *c, const int *col, const void *arg)
{
  const agentmap *am = arg;
  kern k = {0};
  int64_t agent, op_id;
  double v;
  int rc = cint(c, col[0], &k.corr);
  if (!rc) rc = cint(c, col[1], &k.seq);
  if (!rc) rc = cint(c, col[2], &agent);
  if (!rc) rc = cint(c, col[3], &k.queue);
  if (!rc) rc = cint(c, col[7], &k.start);
  if (!rc) rc = cint(c, col[8], &k.end);
  if (!rc) rc = cint(c, col[9], &k.grid[0]);
  if (!rc) rc = cint(c, col[10], &k.wg[0]);
  if (!rc) rc = cint(c, col[11], &k.lds);
  if (!rc) rc = cint(c, col[12], &k.scratch);
  if (!rc) rc = cdbl(c, col[6], &v);
  if (rc)
    return rc;
  if (!*cval(c, col[5]))
    return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": empty Counter_Name",
                      c->path, c->line);
  k.gpu = csv_gpu(am, agent);
  if (!imap_get(&m->disp_op, k.seq, &op_id)) {
    rc = w_kernel_name(m, cval(c, col[4]), NULL, &k.desc_id, &k.name_id);
    if (rc)
      return rc;
  }
  rc = w_counter_op(m, k.seq, &k, &op_id);
  if (!rc)
    rc = w_counter(m, op_id, cval(c, col[5]), v);
  return rc;
}

static int csv_counters(imp *m, const char *path, FILE *f, const agentmap *am)
{
  return csv_each(m, path, f, "counter_collection", csv_counter_cols,
                  sizeof csv_counter_cols / sizeof csv_counter_cols[0],
                  csv_counter_row, am);
}

static const char *const csv_alloc_cols[] = {
  "Operation", "?Agent_Id", "?Allocation_Size|Size", "?Address", "?Correlation_Id",
  "Start_Timestamp", "End_Timestamp"
};

static int csv_alloc_row(imp *m, const csv *c, const int *col, const void *arg)
{
  const agentmap *am = arg;
  allocrec a = {0};
  int64_t agent;
  int rc = cint(c, col[1], &agent);
  if (!rc) rc = cint(c, col[2], &a.size);
  if (!rc) rc = cint(c, col[4], &a.corr);
  if (!rc) rc = cint(c, col[5], &a.start);
  if (!rc) rc = cint(c, col[6], &a.end);
  if (rc)
    return rc;
  a.operation = cval(c, col[0]);
  a.agent = cval(c, col[1]);
  a.address = cval(c, col[3]);
  a.gpu = col[1] >= 0 && *a.agent ? csv_gpu(am, agent) : -1;
  return w_alloc(m, &a);
}

static const char *const csv_scratch_cols[] = {
  "Operation", "?Agent_Id", "?Queue_Id", "?Thread_Id", "?Alloc_Flags|Flags",
  "Start_Timestamp", "End_Timestamp"
};

static int csv_scratch_row(imp *m, const csv *c, const int *col, const void *arg)
{
  const agentmap *am = arg;
  scratchrec r = {0};
  int64_t agent;
  int rc = cint(c, col[1], &agent);
  if (!rc) rc = cint(c, col[2], &r.queue);
  if (!rc) rc = cint(c, col[3], &r.tid);
  if (!rc) rc = cint(c, col[4], &r.flags);
  if (!rc) rc = cint(c, col[5], &r.start);
  if (!rc) rc = cint(c, col[6], &r.end);
  if (rc)
    return rc;
  r.operation = cval(c, col[0]);
  r.agent = cval(c, col[1]);
  r.gpu = col[1] >= 0 && *r.agent ? csv_gpu(am, agent) : -1;
  return w_scratch(m, &r);
}

/* rocprof v1 results.csv: one row per dispatch, its counters in the
 * columns after the fixed ones (every column not in v1_fixed). */
static const char *const csv_v1res_cols[] = {
  "Index", "KernelName", "gpu-id", "?queue-id", "?BeginNs", "?EndNs", "?grd",
  "?wgr", "?lds", "?scr"
};

static const char *const v1_fixed[] = {
  "Index", "KernelName", "gpu-id", "queue-id", "queue-index", "pid", "tid", "grd",
  "wgr", "lds", "scr", "arch_vgpr", "accum_vgpr", "vgpr", "sgpr", "wave_size",
  "fbar", "sig", "obj", "DispatchNs", "BeginNs", "EndNs", "CompleteNs",
  "DurationNs", NULL          /* EndNs - BeginNs: rocprof's timing, not a counter */
};

int v1_is_fixed(const char *h)
{
  for (int i = 0; v1_fixed[i]; i++)
    if (!strcmp(h, v1_fixed[i]))
      return 1;
  return 0;
}

static int csv_v1res_row(imp *m, const csv *c, const int *col, const void *arg)
{
  (void)arg;
  kern k = {0};
  int64_t op_id;
  int rc = cint(c, col[0], &k.seq);
  if (!rc) rc = cint(c, col[2], &k.gpu);
  if (!rc) rc = cint(c, col[3], &k.queue);
  if (!rc) rc = cint(c, col[4], &k.start);
  if (!rc) rc = cint(c, col[5], &k.end);
  if (!rc) rc = cint(c, col[6], &k.grid[0]);
  if (!rc) rc = cint(c, col[7], &k.wg[0]);
  if (!rc) rc = cint(c, col[8], &k.lds);
  if (!rc) rc = cint(c, col[9], &k.scratch);
  if (!rc)
    rc = w_kernel_name(m, cval(c, col[1]), NULL, &k.desc_id, &k.name_id);
  if (!rc)
    rc = w_kernel(m, &k);
  op_id = m->last_op;
  for (int i = 0; i < c->nhdr && !rc; i++) {
    double v;
    if (v1_is_fixed(c->hdr[i]) || !*cval(c, i))
      continue;
    rc = cdbl(c, i, &v);
    if (!rc)
      rc = w_counter(m, op_id, c->hdr[i], v);
  }
  return rc;
}

/* api files: record kind and rpd domain by slot (NULL domain: per row) */
static const char *const api_kind[K_NKINDS] = {
  [K_HIP] = "hip_api", [K_HSA] = "hsa_api", [K_MARKER] = "marker_api",
  [K_RCCL] = "rccl_api", [K_ROCDECODE] = "rocdecode_api",
  [K_ROCJPEG] = "rocjpeg_api", [K_API_ANY] = "api"
};
static const char *const api_domain[K_NKINDS] = {
  [K_HIP] = "HIP", [K_HSA] = "HSA", [K_MARKER] = "ROCTX", [K_RCCL] = "RCCL",
  [K_ROCDECODE] = "ROCDECODE", [K_ROCJPEG] = "ROCJPEG"
};

/* Read one file of kind `which` (see the enum). */
int csv_read_one(imp *m, const char *path, FILE *f, int which, agentmap *am)
{
  if (which == K_KERNEL)
    return csv_kernels(m, path, f, am);
  if (which == K_COPY)
    return csv_copies(m, path, f, am);
  if (which == K_AGENT)
    return csv_agent_info(path, f, am);
  if (which == K_COUNTER)
    return csv_counters(m, path, f, am);
  if (which == K_ALLOC)
    return csv_each(m, path, f, "memory_allocation", csv_alloc_cols,
                    sizeof csv_alloc_cols / sizeof csv_alloc_cols[0], csv_alloc_row, am);
  if (which == K_SCRATCH)
    return csv_each(m, path, f, "scratch_memory", csv_scratch_cols,
                    sizeof csv_scratch_cols / sizeof csv_scratch_cols[0],
                    csv_scratch_row, am);
  if (which == K_V1RESULTS)
    return csv_each(m, path, f, "v1 results.csv", csv_v1res_cols,
                    sizeof csv_v1res_cols / sizeof csv_v1res_cols[0], csv_v1res_row, am);
  if (which > 0 && which < K_NKINDS && api_kind[which])
    return csv_apis(m, path, f, api_kind[which], api_domain[which]);
  if (f)
    fclose(f);
  return rpd_seterr(RPD_ERR, "%s: unknown CSV kind %d", path, which);
}
