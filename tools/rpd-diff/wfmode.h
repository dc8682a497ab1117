/* wfmode.h - rpd-diff's --waterfall mode (waterfall.c), called from
 * main.c's main() before its own options are read. */
#ifndef RPD_DIFF_WFMODE_H
#define RPD_DIFF_WFMODE_H

#include <stddef.h>

/* 1 when argv asks for the waterfall (--waterfall before any "--"). */
int diff_waterfall_wanted(int argc, char **argv);

/* The whole waterfall mode: options, both traces, output.  Returns the
 * exit code (0 ok, 1 failure, 2 usage). */
int diff_waterfall_main(int argc, char **argv);

/* The option callback of --xlsx FILE (an rpd_opt_fn of common/opt.h, both
 * modes): a name that is not empty into *(const char **)ctx, else the
 * message "--xlsx needs a file name". */
int diff_xlsx_opt(void *ctx, const char *name, const char *v, char *msg, size_t msgsz);

#endif
