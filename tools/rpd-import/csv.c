/* csv.c - rpd-import: a rocprofv3 CSV set (kernel_trace, *_api_trace,
 * memory_copy_trace, agent_info), one record at a time. */
#include <string.h>
#include <sys/stat.h>

#include "rpd.h"
#include "csvread.h"
#include "pipe.h"    /* the writer thread */

/* Order of reading: kernels before counters (which join to their ops),
 * api files before copies and the rest. */
static const int read_order[] = {
  K_KERNEL, K_COUNTER, K_HIP, K_HSA, K_MARKER, K_RCCL, K_ROCDECODE, K_ROCJPEG,
  K_API_ANY, K_COPY, K_ALLOC, K_SCRATCH, K_V1RESULTS
};

/* Bytes in the files f[0..n). */
static int64_t csv_list_bytes(char **f, int n)
{
  int64_t t = 0;
  struct stat sb;
  for (int i = 0; i < n; i++)
    if (!stat(f[i], &sb))
      t += (int64_t)sb.st_size;
  return t;
}

/* Bytes in every file of the set (the progress total). */
static int64_t csv_set_bytes(const csvset *s)
{
  int64_t t = 0;
  for (int k = 0; k < CSV_KINDS; k++)
    t += csv_list_bytes(s->f[k], s->n[k]);
  return t;
}

/* The same; a file whose rows are mostly inserted here (ext.c: counters,
 * allocations, scratch, v1 results.csv) is read with the writer thread
 * (pipe.c) paused: a pause per row would cost more than it saves. */
static int csv_read_kind(imp *m, const char *path, FILE *f, int which, agentmap *am)
{
  if (which != K_COUNTER && which != K_ALLOC && which != K_SCRATCH && which != K_V1RESULTS)
    return csv_read_one(m, path, f, which, am);
  int rc = pipe_pause(m);
  if (!rc)
    rc = csv_read_one(m, path, f, which, am);
  else if (f)
    fclose(f);
  pipe_resume(m);
  return rc;
}

int import_csv(imp *m, csvset *s)
{
  agentmap am;
  int rc = RPD_OK, any = 0;
  memset(&am, 0, sizeof am);
  for (int k = 0; k < K_NKINDS; k++)
    any |= k != K_AGENT && s->n[k] > 0;
  if (!any)
    return rpd_seterr(RPD_EPARSE, "no rocprofv3 *_trace.csv files found");
  prog_begin(m, "reading CSV", 1, csv_set_bytes(s));
  csv_prog = m;
  for (int i = 0; i < s->n[K_AGENT] && !rc; i++)
    rc = csv_agent_info(s->f[K_AGENT][i], NULL, &am);
  if (!rc && !am.known) {
    /* the kernel files are read twice: the progress total grows */
    m->prog_total += csv_list_bytes(s->f[K_KERNEL], s->n[K_KERNEL]) +
                     csv_list_bytes(s->f[K_COUNTER], s->n[K_COUNTER]);
    char **const lists[2] = { s->f[K_KERNEL], s->f[K_COUNTER] };
    const int nl[2] = { s->n[K_KERNEL], s->n[K_COUNTER] };
    rc = csv_agent_scan(lists, nl, 2, &am);
  }
  m->want_disp = s->n[K_COUNTER] > 0;
  for (size_t o = 0; o < sizeof read_order / sizeof read_order[0]; o++) {
    int k = read_order[o];
    for (int i = 0; i < s->n[k] && !rc; i++)
      rc = csv_read_kind(m, s->f[k][i], NULL, k, &am);
  }
  csv_prog = NULL;
  prog_end(m);
  imap_free(&am.gpu);
  return rc;
}

int import_csv_stream(imp *m, FILE *f, const char *name, int which)
{
  agentmap am;
  memset(&am, 0, sizeof am);
  m->want_disp = 1;
  int rc = csv_read_kind(m, name, f, which, &am);
  imap_free(&am.gpu);
  return rc;
}
