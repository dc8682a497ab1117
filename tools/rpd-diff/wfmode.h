/* wfmode.h - rpd-diff's --waterfall mode (waterfall.c), called from
 * main.c's main() before its own options are read. */
#ifndef RPD_DIFF_WFMODE_H
#define RPD_DIFF_WFMODE_H

/* 1 when argv asks for the waterfall (--waterfall before any "--"). */
int diff_waterfall_wanted(int argc, char **argv);

/* The whole waterfall mode: options, both traces, output.  Returns the
 * exit code (0 ok, 1 failure, 2 usage). */
int diff_waterfall_main(int argc, char **argv);

#endif
