/* kstats.h - raptor --format kernel-stats / copy-stats / api-stats /
 * domain-stats (kstats.c): rocprofv3's --stats CSV files. */
#ifndef RAPTOR_KSTATS_H
#define RAPTOR_KSTATS_H

/* 1 if name is one of the statistics formats kstats.c writes. */
int raptor_kstats_format(const char *name);
/* The whole run for those formats (raptor's argv); returns the exit code. */
int raptor_kstats_main(int argc, char **argv);

#include <stdint.h>

#include "rpd.h"

/* One row of the statistics: calls, total/min/max duration (ns), mean
 * (ns), percent of all the rows' total (0..100), sample std (ns; 0 for one
 * call).  name is valid during the callback only. */
typedef struct kstats_row {
  const char *name;
  int64_t calls, total, min, max;
  double mean, pct, std;
} kstats_row;

/* The rows of --format api-stats for the api domain (NULL: HIP) of r, in
 * its order (total descending, then name), each handed to fn (a non-zero
 * return stops with that code).  Returns RPD_OK or an error code. */
int raptor_api_stats(rpd *r, const char *domain,
                     int (*fn)(void *ctx, const kstats_row *row), void *ctx);

#endif
