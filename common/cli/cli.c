/* cli.c - program name, --help, one-line messages. */
#include "rpd.h"
#include "check.h"
#include "opt.h"
#include "version.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* rpd_progname and rpd_quiet live in util/error.c and rpd_csv_raw in
 * out/out.c, the layers that read them; the CLI only sets them. */
static int cli_status;   /* exit code after --help / --version */

int rpd_cli_status(void)
{
  return cli_status;
}

/* The help or version text is out: flush stdout and check it reached it
 * (`--help >/dev/full` fails in one line, exit 1).  Returns 1 (done). */
static int cli_printed(void)
{
  if (fflush(stdout) != 0 || ferror(stdout))
    cli_status = rpd_fail("cannot write to stdout: %s",
                          errno ? strerror(errno) : "write error");
  return 1;
}

/* The version string every tool prints (common/cli/version.h); static. */
const char *rpd_version(void)
{
  return RPDTOOLS_VERSION;
}

/* Record "rpdtools_version::PROG" = the version in rocpd_metadata (inside
 * the caller's transaction).  Returns RPD_OK or the error of the write. */
int rpd_record_version(rpd *r)
{
  char *key = rpd_xasprintf("rpdtools_version::%s", rpd_progname), *have = NULL;
  int rc = rpd_meta_get(r, key, &have);
  /* already recorded: write nothing, so a re-run leaves the file
   * byte-identical */
  if (rc == RPD_OK && strcmp(have, RPDTOOLS_VERSION) == 0)
    rc = RPD_OK;
  else if (rc == RPD_OK || rc == RPD_ENOTFOUND) {
    rpd_clearerr();
    rc = rpd_meta_set(r, key, RPDTOOLS_VERSION);
  }
  free(have);
  free(key);
  return rc;
}

/* 1 (and rpd_csv_raw set) when s is --csv-raw, the option of every tool
 * that writes CSV. */
int rpd_cli_csv_raw_opt(const char *s)
{
  if (!s || strcmp(s, "--csv-raw") != 0) return 0;
  rpd_csv_raw = 1;
  return 1;
}

/* 1 when s is one of the options every tool takes: -q / --quiet. */
int rpd_cli_quiet_opt(const char *s)
{
  return s && (strcmp(s, "-q") == 0 || strcmp(s, "--quiet") == 0);
}

/* rpd_cli_init and rpd_cli_init_opts: the help is the text usage, or the
 * one generated from h and opts. */
static int cli_start(int argc, char **argv, const char *usage, const rpd_help *h,
                     const rpd_opt *opts)
{
  if (argc > 0 && argv[0] && *argv[0]) {
    const char *slash = strrchr(argv[0], '/');
    rpd_progname = slash && slash[1] ? slash + 1 : argv[0];
  }
  if (opts && argc > 1 && strcmp(argv[1], "--list-options") == 0) {
    rpd_opt_list_names(stdout, opts);
    return cli_printed();
  }
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) break;
    if (rpd_cli_quiet_opt(argv[i])) rpd_quiet = 1;
    if (strcmp(argv[i], "--version") == 0) {
      printf("%s (rpdtools) %s\n", rpd_progname, RPDTOOLS_VERSION);
      return cli_printed();
    }
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      if (opts) {
        /* rendered whole first: an incomplete table (a bug) prints one
         * line saying so, not half a help */
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        int rc = mem ? rpd_opt_help(mem, h, opts) : RPD_EIO;
        if (mem && fclose(mem) != 0 && rc == RPD_OK) rc = RPD_EIO;
        if (rc == RPD_OK) fwrite(text, 1, len, stdout);
        else cli_status = rpd_fail("%s", rc == RPD_ERR ? rpd_errmsg() : "cannot render --help");
        free(text);
        if (rc != RPD_OK) return 1;
      } else if (usage) {
        fputs(usage, stdout);
        size_t n = strlen(usage);
        if (n && usage[n - 1] != '\n') putchar('\n');
      }
      return cli_printed();
    }
  }
  return 0;
}

int rpd_cli_init(int argc, char **argv, const char *usage)
{
  return cli_start(argc, argv, usage, NULL, NULL);
}

int rpd_cli_init_opts(int argc, char **argv, const rpd_help *h, const rpd_opt *opts)
{
  return cli_start(argc, argv, NULL, h, opts);
}

/* Write s to f with every control character escaped (\n, \r, \t, \xNN), so
 * that a message stays one line whatever a file name or an SQLite message
 * carries. */
static void put_escaped(FILE *f, const char *s)
{
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '\n') fputs("\\n", f);
    else if (c == '\r') fputs("\\r", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c < 0x20 || c == 0x7f) fprintf(f, "\\x%02x", c);
    else fputc(c, f);
  }
}

static void vmsg(const char *fmt, va_list ap)
{
  char *text = NULL;
  va_list ap2;
  int n;

  fflush(stdout);
  va_copy(ap2, ap);
  n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n >= 0) {
    text = rpd_xmalloc((size_t)n + 1);
    vsnprintf(text, (size_t)n + 1, fmt, ap);
  }
  fprintf(stderr, "%s: ", rpd_progname);
  put_escaped(stderr, text ? text : fmt);
  fputc('\n', stderr);
  fflush(stderr);
  free(text);
}

void rpd_note(const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vmsg(fmt, ap);
  va_end(ap);
}

int rpd_fail_committed(const char *path)
{
  if (rpd_finish_stdout() == RPD_OK) return 0;
  return rpd_fail("'%s': results committed, but the summary could not be written (%s)",
                  path, rpd_errmsg());
}

int rpd_fail(const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vmsg(fmt, ap);
  va_end(ap);
  return 1;
}

int rpd_usage_error(const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vmsg(fmt, ap);
  va_end(ap);
  fprintf(stderr, "Try '%s --help'.\n", rpd_progname);
  return 2;
}

int rpd_open_or_report(rpd **out, const char *path, const char *out_path, int flags)
{
  int rc = rpd_open(out, path, out_path, flags & ~RPD_CHECKED);

  if (rc) {
    rpd_fail("cannot open '%s': %s", path, rpd_errmsg());
    return rc;
  }
  if ((flags & RPD_CHECKED) && (rc = rpd_check_trace(*out))) {
    rpd_fail("cannot read '%s': %s", path, rpd_errmsg());
    rpd_close(*out, 0);
    *out = NULL;
  }
  return rc;
}

int rpd_cli_options(const rpd_opt *opts, int flags, int *argc, char **argv)
{
  char msg[1024];
  int n = rpd_opt_parse(opts, flags, *argc, argv, msg, sizeof msg);

  if (n < 0) return rpd_usage_error("%s", msg);
  *argc = n;
  return 0;
}

int rpd_cli_one_file(int npos, char **pos, const char **file, const char *out)
{
  if (npos < 1) return rpd_usage_error("missing FILE");
  if (npos > 1) return rpd_usage_error("unexpected argument '%s'", pos[1]);
  if (out && !*out) return rpd_usage_error("empty output file name");
  *file = pos[0];
  return 0;
}

int rpd_cli_is_stdout(const char *name)
{
  return name && name[0] == '-' && name[1] == 0;
}
