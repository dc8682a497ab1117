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

/* The options both modes take, as rows of their tables (common/cli/opt.h),
 * storing into o: a struct with s[2].rank, width and xlsx (the per-key
 * diff's and the waterfall's).  Two groups, so that each mode keeps its
 * own options in between. */
#define DIFF_OPTS_RANKS(o) \
  RPD_OPT_I64("--rank-a", &(o)->s[0].rank, 0, INT64_MAX, "--rank-a: '%s' is not a rank number", \
              .arg = "R", .help = "only rank R of A (a merged trace; see rpd-merge)"), \
  RPD_OPT_I64("--rank-b", &(o)->s[1].rank, 0, INT64_MAX, "--rank-b: '%s' is not a rank number", \
              .arg = "R", .help = "only rank R of B (A and B may be the same file)")
#define DIFF_OPTS_OUTPUT(o) \
  RPD_OPT_I64("--width", &(o)->width, 0, INT64_MAX, "--width: '%s' is not a number of columns", \
              .help = "the table at most N columns wide (default: the terminal's width; " \
                      "160 when stdout is not a terminal; 0 = no limit): long names are " \
                      "cut in the middle, CSV, JSON and xlsx keep them whole"), \
  RPD_OPT_CALL("--xlsx", diff_xlsx_opt, &(o)->xlsx, .arg = "FILE", \
               .help = "also write the rows to an xlsx workbook"), \
  RPD_OPT_CSV_RAW()

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
