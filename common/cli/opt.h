/* opt.h - the one declarative option table of every tool (in the style of
 * git's parse-options).  A tool describes its options as an array of
 * rpd_opt ending with RPD_OPT_END(); rpd_opt_parse walks argv once, stores
 * each value where its entry points, and returns the positional arguments.
 * It never prints: on a bad command line it returns a negative code and
 * writes the one-line message (without the program name) into the
 * caller's buffer.  rpd_cli_options() (common/cli.c) is the CLI helper that
 * prints that message as today's usage error ("PROG: MESSAGE" and "Try
 * 'PROG --help'.", exit code 2).
 *
 * Spellings accepted for an entry whose names are "-o|--output":
 *   -o OUT   --output OUT   --output=OUT   -oOUT (one-letter names)
 * The separate value is always the next argument, even when it starts with
 * '-' (`--start -8ms`).  "--" ends the options: everything after it is
 * positional.  "-" alone and anything not starting with '-' is positional.
 * A table may also take abbreviated long names (RPD_OPT_ABBREV), clustered
 * one-letter flags (RPD_OPT_CLUSTER) and several values (RPD_OPTK_INTS),
 * the spellings of Python's argparse.
 * -q / --quiet (sets rpd_quiet) is accepted by every table; --help, -h and
 * --version are handled before parsing by rpd_cli_init and accepted here
 * (they never reach a tool that called rpd_cli_init).
 *
 * Each entry also carries its help line (.help, and .arg, the name of its
 * value: "-o, --output FILE"), so --help is generated from the table that
 * parses (rpd_opt_help): a tool keeps only its synopsis, one paragraph and
 * its notes as text (rpd_help), never the option list a second time.
 */
#ifndef RPD_OPT_H
#define RPD_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum {
  RPD_OPTK_END = 0,
  RPD_OPTK_FLAG,     /* no value: *(int *)value = ival */
  RPD_OPTK_INT,      /* *(int *)value, decimal in [lo, hi] (within int) */
  RPD_OPTK_I64,      /* *(int64_t *)value, decimal in [lo, hi] */
  RPD_OPTK_SIZE,     /* *(int64_t *)value, rpd_parse_size ("500M") */
  RPD_OPTK_DOUBLE,   /* *(double *)value, finite; in [lo, hi] when lo < hi */
  RPD_OPTK_STRING,   /* *(const char **)value = the text (points into argv) */
  RPD_OPTK_TIME,     /* *(const char **)value = the text, checked now as a
                      * time value of timeopt.h (ival = its convention,
                      * RPD_TIMEOPT_DEFAULT or RPD_TIMEOPT_ABS_US) */
  RPD_OPTK_LIST,     /* repeatable: the text appended to *(rpd_opt_list *) */
  RPD_OPTK_CALL,     /* fn(ctx, name, value, ...) with a value */
  RPD_OPTK_CALL0,    /* fn(ctx, name, NULL, ...): takes no value, except
                      * with ival = 1: then the next argument when it is not
                      * an option of the table (`--info FILE`, `--info
                      * -x.rpd`), or the text after '=' */
  RPD_OPTK_TABLE,    /* value = another table whose entries belong here */
  RPD_OPTK_PAIR,     /* two values (`--set TAG VALUE`): (const char **)value
                      * [0] and [1]; then fn(ctx, name, [0]) when fn is set */
  RPD_OPTK_INTS,     /* one or more integers (`--gaps 10 100 1000`, as
                      * argparse's nargs='+'), each in [lo, hi] (lo == hi:
                      * any): the text after '=' or the next argument, then
                      * every following argument that reads as an integer;
                      * into *(rpd_opt_ints *)value, which each use of the
                      * option replaces */
  RPD_OPTK_GROUP,    /* no option: .help is a heading in --help ("Output:") */
};

/* Errors of rpd_opt_parse (negative; the message says which). */
enum {
  RPD_OPT_EUNKNOWN = -1,  /* "unknown option '-x'" */
  RPD_OPT_ENEEDVAL = -2,  /* "option '-x' needs a value" */
  RPD_OPT_EBADVAL = -3,   /* a value out of range or malformed */
  RPD_OPT_ENOVAL = -4,    /* "option '--flag' takes no value" (--flag=x) */
  RPD_OPT_EAMBIG = -5,    /* "ambiguous option '--va'" (RPD_OPT_ABBREV) */
};

/* Flags of rpd_opt_parse. */
enum {
  /* stop at the first positional: it and all after it are positionals
   * (a command word: `rpdctl PID start --x` leaves "--x" to the command) */
  RPD_OPT_STOP_AT_ARG = 1,
  /* an unknown option is kept as a positional instead of an error (the
   * caller has a second table or its own words, e.g. "-inf") */
  RPD_OPT_KEEP_UNKNOWN = 2,
  /* one-letter flags of opts may be clustered, as getopt and argparse
   * take them: `-cv` = `-c -v`; a letter that takes a value ends the
   * cluster and the rest is its value (`-cvz3`, `-cvz=3`), else the next
   * argument.  An unknown letter is "unknown option '-x'".  The built-in
   * -q / -h are not clustered. */
  RPD_OPT_CLUSTER = 4,
};

/* The values of a repeatable option, in command-line order; the strings
 * point into argv, the array is owned by the list (rpd_opt_list_free). */
typedef struct rpd_opt_list {
  const char **v;
  int n, cap;
} rpd_opt_list;

/* The values of an RPD_OPTK_INTS option, in command-line order; the array
 * is owned by the struct (rpd_opt_ints_free). */
typedef struct rpd_opt_ints {
  int64_t *v;
  int n, cap;
} rpd_opt_ints;

/* A callback option: return 0, or non-zero with a one-line message written
 * into msg (at most msgsz bytes; left empty, the message is "bad value
 * 'VALUE' for option 'NAME'").  name is the spelling the user wrote (valid
 * during the call only); value points into argv. */
typedef int (*rpd_opt_fn)(void *ctx, const char *name, const char *value, char *msg,
                          size_t msgsz);

typedef struct rpd_opt {
  int kind;            /* RPD_OPTK_* */
  const char *names;   /* every spelling, '|' between: "-o|--output" */
  void *value;         /* where the value goes (see the kinds) */
  int64_t lo, hi;      /* the range of INT / I64 / DOUBLE (lo == hi: any) */
  int ival;            /* FLAG: the value stored; TIME: the convention */
  rpd_opt_fn fn;       /* CALL / CALL0 */
  void *ctx;           /* CALL / CALL0: passed to fn */
  /* a bad value's message instead of the default: printf format with one
   * %s, the value text ("--top must be a number from 1 to 1000, not '%s'") */
  const char *bad;
  /* what a missing value is called: "option '-o' needs NEED" (default
   * "a value") */
  const char *need;
  /* --help: what the option does (wrapped to the terminal's 80 columns; a
   * '\n' starts a new line), and the name of its value ("FILE"; default
   * by kind: N, SIZE, X, TEXT (FILE for RPD_OPT_FILE), T, VALUE).  Every entry that is not hidden
   * must have help: rpd_opt_help refuses a table without it. */
  const char *help;
  const char *arg;
  /* 1: accepted but not listed by --help (an old spelling kept working) */
  int hidden;
} rpd_opt;

/* The table entries (designated initializers, so fields can be added).
 * Each takes, after its own arguments, more fields as designated
 * initializers, the help above all:
 *   RPD_OPT_FILE("-o|--output", &out, .arg = "OUT", .help = "write to OUT"),
 * --help lists the first one-letter and the first long spelling of names;
 * further spellings are hidden aliases. */
#define RPD_OPT_END() { .kind = RPD_OPTK_END }
#define RPD_OPT_FLAG(n, p, ...) \
  { .kind = RPD_OPTK_FLAG, .names = (n), .value = (p), .ival = 1, __VA_ARGS__ }
#define RPD_OPT_SET(n, p, v, ...) \
  { .kind = RPD_OPTK_FLAG, .names = (n), .value = (p), .ival = (v), __VA_ARGS__ }
#define RPD_OPT_INT(n, p, l, h, msg, ...) \
  { .kind = RPD_OPTK_INT, .names = (n), .value = (p), .lo = (l), .hi = (h), .bad = (msg), \
    __VA_ARGS__ }
#define RPD_OPT_I64(n, p, l, h, msg, ...) \
  { .kind = RPD_OPTK_I64, .names = (n), .value = (p), .lo = (l), .hi = (h), .bad = (msg), \
    __VA_ARGS__ }
#define RPD_OPT_SIZE(n, p, msg, ...) \
  { .kind = RPD_OPTK_SIZE, .names = (n), .value = (p), .bad = (msg), __VA_ARGS__ }
#define RPD_OPT_DOUBLE(n, p, l, h, msg, ...) \
  { .kind = RPD_OPTK_DOUBLE, .names = (n), .value = (p), .lo = (l), .hi = (h), .bad = (msg), \
    __VA_ARGS__ }
#define RPD_OPT_STRING(n, p, ...) \
  { .kind = RPD_OPTK_STRING, .names = (n), .value = (p), __VA_ARGS__ }
/* a file name: a STRING whose missing value "needs a file name" */
#define RPD_OPT_FILE(n, p, ...) \
  { .kind = RPD_OPTK_STRING, .names = (n), .value = (p), .need = "a file name", \
    __VA_ARGS__ }
#define RPD_OPT_TIME(n, p, mode, ...) \
  { .kind = RPD_OPTK_TIME, .names = (n), .value = (p), .ival = (mode), __VA_ARGS__ }
#define RPD_OPT_LIST(n, p, ...) { .kind = RPD_OPTK_LIST, .names = (n), .value = (p), __VA_ARGS__ }
#define RPD_OPT_CALL(n, f, c, ...) \
  { .kind = RPD_OPTK_CALL, .names = (n), .fn = (f), .ctx = (c), __VA_ARGS__ }
#define RPD_OPT_CALL0(n, f, c, ...) \
  { .kind = RPD_OPTK_CALL0, .names = (n), .fn = (f), .ctx = (c), __VA_ARGS__ }
#define RPD_OPT_PAIR(n, p, f, c, nd, ...) \
  { .kind = RPD_OPTK_PAIR, .names = (n), .value = (p), .fn = (f), .ctx = (c), .need = (nd), \
    __VA_ARGS__ }
#define RPD_OPT_CALL_OPTVAL(n, f, c, ...) \
  { .kind = RPD_OPTK_CALL0, .names = (n), .fn = (f), .ctx = (c), .ival = 1, __VA_ARGS__ }
#define RPD_OPT_TABLE(t) { .kind = RPD_OPTK_TABLE, .value = (void *)(t) }
/* --csv-raw, the switch of every CSV writer (rpd_csv_raw, common/out/out.c),
 * with its usual help */
#define RPD_OPT_CSV_RAW()                                                                  \
  RPD_OPT_FLAG("--csv-raw", &rpd_csv_raw,                                                  \
               .help = "CSV cells as they are (default: a text that starts with = + - @ " \
                       "TAB CR gets a leading ')")
/* another table whose long names may also be abbreviated to a unique
 * prefix, as argparse's allow_abbrev: `--variab` = `--variability`; an
 * exact name always wins, a prefix of two entries' names is "ambiguous
 * option '--va'", and messages name the option in full.  Names outside
 * such a table (the built-in --quiet, --help) must be written whole. */
#define RPD_OPT_ABBREV(t) { .kind = RPD_OPTK_TABLE, .value = (void *)(t), .ival = 1 }
#define RPD_OPT_INTS(n, p, l, h, msg, ...) \
  { .kind = RPD_OPTK_INTS, .names = (n), .value = (p), .lo = (l), .hi = (h), .bad = (msg), \
    __VA_ARGS__ }
/* the entries of t are listed by --help but refused here with "option
 * '--gpu' WHY" (why: "goes with --waterfall"): the options of another
 * mode of the tool, whose own table parses them */
#define RPD_OPT_ONLY_WITH(t, why) { .kind = RPD_OPTK_TABLE, .value = (void *)(t), .need = (why) }
/* a heading in --help before the entries that follow ("Output:") */
#define RPD_OPT_GROUP(title) { .kind = RPD_OPTK_GROUP, .help = (title) }

/* The text of a tool's --help around its generated option list. */
typedef struct rpd_help {
  /* the synopsis, one or more lines: "usage: rpd-trim FILE [-o OUT]\n" */
  const char *usage;
  /* one paragraph: what the tool does (printed as written) */
  const char *about;
  /* after the options, as written: notes, examples, exit codes (or NULL) */
  const char *notes;
  /* the line of -q, --quiet (every tool takes it); NULL: "no progress line" */
  const char *quiet;
} rpd_help;

/* Write the --help text of a tool to f: h->usage, a blank line, h->about,
 * a blank line, the options of opts (its included tables too, then -q,
 * --quiet, -h, --help and --version) one per line in the style of git,
 *     -o, --output FILE     write to FILE
 *         --start T         ...
 * (help from column 27, wrapped at 80; a name too long for the column puts
 * its help on the next line), then h->notes after a blank line.  Never
 * prints anywhere else.  Returns RPD_OK, RPD_ERR (rpd_errmsg says which
 * entry) when an entry that is not hidden has no help: the table is
 * incomplete, a bug the tests catch; or RPD_EIO when f failed. */
int rpd_opt_help(FILE *f, const rpd_help *h, const rpd_opt *opts);

/* Every spelling opts accepts (its included tables, -q, -h, --help and
 * --version too),
 * one a line: first the ones --help lists, then "hidden:" and the hidden
 * aliases.  For the drift test and shell completion (`TOOL --list-options`).
 * Returns RPD_OK or RPD_EIO. */
int rpd_opt_list_names(FILE *f, const rpd_opt *opts);

/* Parse argv[1 .. argc) against opts (flags: RPD_OPT_*).  On success the
 * positional arguments are moved, in order, to argv[0 .. n) (argv[n] =
 * NULL; argv[0], the program name, is overwritten, so call rpd_cli_init
 * first) and n >= 0 is returned.  On a bad command line returns an
 * RPD_OPT_E* code with one line in msg (no program name, no newline);
 * values stored before the bad argument stay stored. */
int rpd_opt_parse(const rpd_opt *opts, int flags, int argc, char **argv, char *msg,
                  size_t msgsz);

/* Parse only the options of opts out of argv, leaving argv as it is and
 * every other argument alone (RPD_OPT_KEEP_UNKNOWN on a copy): for an
 * augmenter whose done tag depends on its options, read before the driver
 * parses the whole command line.  Returns 0 or an RPD_OPT_E* code. */
int rpd_opt_peek(const rpd_opt *opts, int argc, char **argv, char *msg, size_t msgsz);

/* The CLI helper (common/cli.c): rpd_opt_parse, and on a bad command line
 * print its message as a usage error ("PROG: MESSAGE", "Try 'PROG
 * --help'.") and return 2; else 0 with *argc = the number of positionals,
 * now argv[0 .. *argc). */
int rpd_cli_options(const rpd_opt *opts, int flags, int *argc, char **argv);

/* rpd_cli_init for a tool whose --help is generated: set rpd_progname and
 * rpd_quiet as rpd_cli_init does; on --help / -h print rpd_opt_help(h,
 * opts) to stdout (rendered whole first: a table without help prints only
 * that one line, exit 1), on --version the version, on --list-options (the first
 * argument) rpd_opt_list_names; then return 1 and the tool returns
 * rpd_cli_status() (0, or 1 after "cannot write to stdout" or a table
 * without help).  Else 0. */
int rpd_cli_init_opts(int argc, char **argv, const rpd_help *h, const rpd_opt *opts);

/* The positionals of a `FILE [-o OUT]` tool: exactly one (else "missing
 * FILE" / "unexpected argument 'X'") into *file, and out (when not NULL)
 * not empty ("empty output file name").  Returns 0, or 2 after printing
 * the usage error. */
int rpd_cli_one_file(int npos, char **pos, const char **file, const char *out);

/* 1 when a file name given on the command line is "-": stdout (or stdin). */
int rpd_cli_is_stdout(const char *name);

/* Free the array of a list (not the strings, which are argv's). */
void rpd_opt_list_free(rpd_opt_list *l);

/* Free the array of an RPD_OPTK_INTS option's values. */
void rpd_opt_ints_free(rpd_opt_ints *l);

#endif
