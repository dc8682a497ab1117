/* rocprof.c - recognise rocprofv3 output (database, JSON, CSV, output
 * directory) given where an RPD trace belongs, and say how to convert it.
 * Used by rpd_open on failure only (internal to common/). */
#define _GNU_SOURCE
#include "rpd.h"
#include "internal.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

static int ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);

  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The name a converted trace could get: the basename without .gz, the
 * extension, "_results" and a CSV kind ("decode_kernel_trace.csv" ->
 * "decode.rpd"); caller frees. */
static char *suggested_output(const char *path)
{
  static const char *const cuts[] = { "_results", "_kernel_", "_hip_", "_hsa_",
                                      "_marker_", "_rccl_", "_memory_", "_agent_",
                                      "_counter_", "_scratch_", "_domain_", NULL };
  const char *slash = strrchr(path, '/');
  char *name = rpd_xstrdup(slash && slash[1] ? slash + 1 : path), *dot, *out;

  if (ends_with(name, ".gz")) name[strlen(name) - 3] = 0;
  if ((dot = strrchr(name, '.')) && dot != name) *dot = 0;
  for (int i = 0; cuts[i]; i++) {
    char *c = strstr(name, cuts[i]);
    if (c && c != name) *c = 0;
  }
  if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
    free(name);
    name = rpd_xstrdup("trace");
  }
  out = rpd_xasprintf("%s.rpd", name);
  free(name);
  return out;
}

/* path as one shell word: as is when it has only safe characters, else in
 * single quotes; caller frees. */
static char *shell_word(const char *path)
{
  static const char safe_chars[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+,:=@%";
  rpd_buf b = { 0 };

  if (*path && strspn(path, safe_chars) == strlen(path)) return rpd_xstrdup(path);
  rpd_buf_puts(&b, "'");
  for (const char *p = path; *p; p++) {
    if (*p == '\'') rpd_buf_puts(&b, "'\\''");
    else rpd_buf_add(&b, p, 1);
  }
  rpd_buf_puts(&b, "'");
  return b.s;
}

/* What kind of rocprofv3 text output the first bytes are: "JSON", "CSV" or
 * NULL. */
static const char *text_kind(const char *head, size_t n)
{
  static const char *const csv_cols[] = { "\"Correlation_Id\"", "\"Start_Timestamp\"",
                                          "\"Kernel_Name\"", "\"Dispatch_Id\"",
                                          "\"TotalDurationNs\"", "\"Agent_Id\"", NULL };
  const char *eol = memchr(head, '\n', n);
  size_t i = 0;

  while (i < n && strchr(" \t\r\n", head[i])) i++;
  if (i < n && head[i] == '{' && memmem(head, n, "\"rocprofiler-sdk-tool\"", 22))
    return "JSON";
  if (n && head[0] == '"') {
    size_t line = eol ? (size_t)(eol - head) : n;
    for (int k = 0; csv_cols[k]; k++)
      if (memmem(head, line, csv_cols[k], strlen(csv_cols[k]))) return "CSV";
  }
  return NULL;
}

/* A directory with rocprofv3 output files in it? */
static int output_dir(const char *path)
{
  static const char *const tails[] = { "_kernel_trace.csv", "_hip_api_trace.csv",
                                       "_results.json", "_results.json.gz",
                                       "_results.db", "_agent_info.csv", NULL };
  DIR *d = opendir(path);
  struct dirent *e;
  int found = 0;

  if (!d) return 0;
  while (!found && (e = readdir(d)))
    for (int k = 0; tails[k] && !found; k++) found = ends_with(e->d_name, tails[k]);
  closedir(d);
  return found;
}

/* 1 if the plain SQLite file at path is a rocprofv3 database. */
static int rocprof_db(const char *path)
{
  sqlite3 *db = NULL;
  int why = RPD_OK;

  if (rpd_sqlite_open(path, &db, SQLITE_OPEN_READONLY) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 200);
    rpd_detect_schema(db, &why);
  }
  sqlite3_close(db);
  return why == RPD_EROCPROF;
}

/* Kind of rocprofv3 output at path ("JSON", "CSV", "database", "output
 * directory") or NULL: the first 4 KiB (zlib reads plain files as they are
 * and decompresses gzip), or the tables of an SQLite file. */
static const char *rocprof_kind(const char *path)
{
  char head[4096];
  struct stat st;
  gzFile g;
  int n, direct;

  if (stat(path, &st) != 0) return NULL;
  if (S_ISDIR(st.st_mode)) return output_dir(path) ? "output directory" : NULL;
  if (!S_ISREG(st.st_mode) || !(g = gzopen(path, "rb"))) return NULL;
  n = gzread(g, head, sizeof head);
  direct = gzdirect(g);
  gzclose_r(g);
  if (n <= 0) return NULL;
  if ((size_t)n >= 16 && memcmp(head, "SQLite format 3", 16) == 0)
    return direct && rocprof_db(path) ? "database" : NULL;
  return text_kind(head, (size_t)n);
}

int rpd__explain_rocprof(const char *path, int rc)
{
  char *saved = rpd_xstrdup(rpd_errmsg());
  const char *kind = rocprof_kind(path);   /* may set the message */
  char *word, *out;

  rpd_seterr(rc, "%s", saved);
  free(saved);
  if (!kind) return rc;
  word = shell_word(path);
  out = suggested_output(path);
  rc = rpd_seterr(RPD_EROCPROF, "rocprofv3 %s, not an RPD trace; convert it with: "
                  "rpd-import %s %s", kind, word, out);
  free(word);
  free(out);
  return rc;
}
