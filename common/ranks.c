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

char *rpd_rank_of_gpu(const char *expr)
{
  return rpd_xasprintf("((%s) / coalesce((SELECT CAST(value AS INTEGER) FROM "
                       "rocpd_metadata WHERE tag = 'gpu_stride'), 1000))", expr);
}
