/* ranks.c - collective kernels and rank numbers of merged traces. */
#include "ranks.h"

#include <stdlib.h>

/* Lower-case substrings that mark a collective kernel. */
static const char *const collective_words[] = {
  "nccl", "rccl", "allreduce", "all_reduce", "allgather", "all_gather",
  "reducescatter", "reduce_scatter", "alltoall", "all_to_all",
  "broadcast", "cross_device_reduce",
};

char *rpd_collective_condition(const char *expr)
{
  rpd_buf b = {0};
  rpd_buf_puts(&b, "(");
  for (size_t i = 0; i < sizeof collective_words / sizeof *collective_words; i++)
    rpd_buf_printf(&b, "%sinstr(lower(%s), '%s') > 0", i ? " OR " : "", expr,
                   collective_words[i]);
  rpd_buf_puts(&b, ")");
  return b.s;
}

/* Positive integer value of a metadata tag, or def. */
static int64_t stride(rpd *r, const char *tag, int64_t def)
{
  char *v = NULL, *end = NULL;
  long long n = 0;
  if (rpd_table_exists(r, "rocpd_metadata") && rpd_meta_get(r, tag, &v) == RPD_OK)
    n = strtoll(v, &end, 10);
  rpd_clearerr();
  if (!v || end == v || *end || n <= 0)
    n = def;
  free(v);
  return n;
}

int64_t rpd_gpu_stride(rpd *r)
{
  return stride(r, "gpu_stride", 1000);
}

int64_t rpd_pid_stride(rpd *r)
{
  return stride(r, "pid_stride", 10000000);
}

char *rpd_rank_of_gpu(rpd *r, const char *expr)
{
  return rpd_xasprintf("((%s) / %lld)", expr, (long long)rpd_gpu_stride(r));
}
