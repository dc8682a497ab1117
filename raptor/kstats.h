/* kstats.h - raptor --format kernel-stats / copy-stats / api-stats /
 * domain-stats (kstats.c): rocprofv3's --stats CSV files. */
#ifndef RAPTOR_KSTATS_H
#define RAPTOR_KSTATS_H

/* 1 if name is one of the statistics formats kstats.c writes. */
int raptor_kstats_format(const char *name);
/* The whole run for those formats (raptor's argv); returns the exit code. */
int raptor_kstats_main(int argc, char **argv);

#endif
