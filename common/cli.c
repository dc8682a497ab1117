/* cli.c - program name, --help, one-line messages. */
#include "rpd.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *rpd_progname = "rpdtools";

int rpd_cli_init(int argc, char **argv, const char *usage)
{
  if (argc > 0 && argv[0] && *argv[0]) {
    const char *slash = strrchr(argv[0], '/');
    rpd_progname = slash && slash[1] ? slash + 1 : argv[0];
  }
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) break;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      if (usage) {
        fputs(usage, stdout);
        size_t n = strlen(usage);
        if (n && usage[n - 1] != '\n') putchar('\n');
      }
      fflush(stdout);
      return 1;
    }
  }
  return 0;
}

static void vmsg(const char *fmt, va_list ap)
{
  fflush(stdout);
  fprintf(stderr, "%s: ", rpd_progname);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
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
  int rc = rpd_open(out, path, out_path, flags);

  if (rc) rpd_fail("cannot open '%s': %s", path, rpd_errmsg());
  return rc;
}
