/* byrank.h - raptor --by-rank: cross-rank tables of a merged trace
 * (raptor/byrank.c). */
#ifndef RAPTOR_BYRANK_H
#define RAPTOR_BYRANK_H

/* Entry point used by raptor's main() when "--by-rank" is among the
 * arguments: parses the whole command line itself and returns the process
 * exit code (0, 1, 2). */
int raptor_byrank_main(int argc, char **argv);

#endif
