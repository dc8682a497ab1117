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

/* The options only the waterfall takes (--waterfall, --gpu, ...), with
 * their help: rpd-diff's --help lists them, its per-key mode refuses them. */
struct rpd_opt;
extern const struct rpd_opt *const diff_waterfall_opts;

/* inputs.c, for both modes. */

/* The option callback of --xlsx FILE (an rpd_opt_fn of common/cli/opt.h): a
 * name that is not empty into *(const char **)ctx, else the message
 * "--xlsx needs a file name". */
int diff_xlsx_opt(void *ctx, const char *name, const char *v, char *msg, size_t msgsz);

/* --xlsx FILE (NULL: none) must be writable and neither input a or b:
 * 0, or 1 after printing "cannot write 'FILE': REASON". */
int diff_check_xlsx(const char *xlsx, const char *a, const char *b);

/* Open one input for reading, check its values (a text or out-of-range
 * timestamp would be summed as a wrong number) and set the scan profile:
 * 0, or 1 after printing the one-line reason (*r may then be open; the
 * caller closes it). */
struct rpd;
int diff_open_trace(struct rpd **r, const char *path);

#endif
