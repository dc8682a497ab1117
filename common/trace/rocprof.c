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

/* shell_word of s, which it frees. */
static char *quoted(char *s)
{
  char *w = shell_word(s);
  free(s);
  return w;
}

/* 1 if the first n bytes of a JSON text h carry Kineto's marks (its
 * top-level keys or event categories) and not rocprofv3's. */
static int kineto_text(const char *h, size_t n)
{
  static const char *const marks[] = {
    "\"schemaVersion\"", "\"deviceProperties\"", "\"distributedInfo\"",
    "\"baseTimeNanoseconds\"", "\"cat\": \"cpu_op\"", "\"cat\":\"cpu_op\"",
    "\"cat\": \"kernel\"", "\"cat\":\"kernel\"", "\"cat\": \"cuda_runtime\"",
    "\"cat\":\"cuda_runtime\"", "\"cat\": \"python_function\"",
    "\"cat\":\"python_function\"", "\"cat\": \"user_annotation\"",
    "\"cat\":\"user_annotation\"",
  };
  if (memmem(h, n, "\"rocprofiler-sdk-tool\"", 22)) return 0;
  for (size_t i = 0; i < sizeof marks / sizeof *marks; i++)
    if (memmem(h, n, marks[i], strlen(marks[i]))) return 1;
  return 0;
}

int rpd_kineto_file(const char *path)
{
  enum { PEEK = 1 << 20 };
  char *h = rpd_xmalloc(PEEK);
  gzFile gz = gzopen(path, "rb");
  int n = gz ? gzread(gz, h, PEEK) : -1, is;

  if (gz) gzclose(gz);
  is = n > 0 && kineto_text(h, (size_t)n);
  free(h);
  return is;
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

/* What a directory of rocprofv3 output holds: its runs (the distinct
 * prefixes of its CSV trace files: "decode" of decode_kernel_trace.csv),
 * the first two by name, and its first results file (JSON or database). */
typedef struct outdir {
  int found;                /* any rocprofv3 output file */
  int nruns;
  char *run[2];             /* the first runs by name */
  char *results;            /* first *_results.{json,json.gz,db} by name */
} outdir;

static void outdir_free(outdir *o)
{
  free(o->run[0]);
  free(o->run[1]);
  free(o->results);
}

static int strcmp_p(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Fill o for the directory at path (outdir_free releases it); 0 when it
 * holds no rocprofv3 output. */
static int output_dir(const char *path, outdir *o)
{
  static const char *const csv_tails[] = { "_kernel_trace.csv", "_hip_api_trace.csv",
                                           "_hsa_api_trace.csv", "_marker_api_trace.csv",
                                           "_rccl_api_trace.csv", "_memory_copy_trace.csv",
                                           "_agent_info.csv", NULL };
  static const char *const res_tails[] = { "_results.json", "_results.json.gz",
                                           "_results.db", NULL };
  DIR *d = opendir(path);
  struct dirent *e;
  char **seen = NULL;
  int nseen = 0;

  memset(o, 0, sizeof *o);
  if (!d) return 0;
  while ((e = readdir(d))) {
    for (int k = 0; csv_tails[k]; k++)
      if (ends_with(e->d_name, csv_tails[k])) {
        size_t len = strlen(e->d_name) - strlen(csv_tails[k]);
        int dup = 0;
        for (int i = 0; i < nseen && !dup; i++)
          dup = strlen(seen[i]) == len && strncmp(seen[i], e->d_name, len) == 0;
        if (!dup) {
          seen = rpd_xrealloc(seen, (size_t)(nseen + 1) * sizeof *seen);
          seen[nseen] = rpd_xstrdup(e->d_name);
          seen[nseen++][len] = 0;
        }
        o->found = 1;
        break;
      }
    for (int k = 0; res_tails[k]; k++)
      if (ends_with(e->d_name, res_tails[k])) {
        if (!o->results || strcmp(e->d_name, o->results) < 0) {
          free(o->results);
          o->results = rpd_xstrdup(e->d_name);
        }
        o->found = 1;
        break;
      }
  }
  closedir(d);
  if (nseen > 1) qsort(seen, (size_t)nseen, sizeof *seen, strcmp_p);
  o->nruns = nseen;
  for (int i = 0; i < nseen; i++) {
    if (i < 2) o->run[i] = seen[i];
    else free(seen[i]);
  }
  free(seen);
  return o->found;
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

/* 1 if the plain SQLite file at path is a rocprof v1 results.db: tables
 * HIP and OPS, or a kernel-only run's KERN table. */
static int rocprof_v1_db(const char *path)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int v1 = 0;

  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_busy_timeout(db, 200) == SQLITE_OK &&
      sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                             "AND name IN ('HIP', 'OPS')) = 2 OR EXISTS (SELECT 1 FROM "
                             "sqlite_master WHERE type = 'table' AND name = 'KERN')",
                         -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    v1 = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v1;
}

/* Kind of rocprof output at path ("rocprofv3 JSON", "rocprofv3 CSV",
 * "rocprofv3 database", "rocprofv3 output directory", "rocprof v1
 * results.db") or NULL: the first 4 KiB (zlib reads plain files as they
 * are and decompresses gzip), or the tables of an SQLite file. */
static const char *rocprof_kind(const char *path)
{
  char head[4096];
  struct stat st;
  gzFile g;
  int n, direct;
  const char *kind;

  if (stat(path, &st) != 0) return NULL;
  if (S_ISDIR(st.st_mode)) {
    outdir o;
    int found = output_dir(path, &o);
    outdir_free(&o);
    return found ? "rocprofv3 output directory" : NULL;
  }
  if (!S_ISREG(st.st_mode) || !(g = gzopen(path, "rb"))) return NULL;
  n = gzread(g, head, sizeof head);
  direct = gzdirect(g);
  gzclose_r(g);
  if (n <= 0) return NULL;
  if ((size_t)n >= 16 && memcmp(head, "SQLite format 3", 16) == 0) {
    if (!direct) return NULL;
    if (rocprof_db(path)) return "rocprofv3 database";
    return rocprof_v1_db(path) ? "rocprof v1 results.db" : NULL;
  }
  kind = text_kind(head, (size_t)n);
  if (!kind) return rpd_kineto_file(path) ? "PyTorch profiler (Kineto) trace" : NULL;
  return strcmp(kind, "JSON") == 0 ? "rocprofv3 JSON" : "rocprofv3 CSV";
}

/* The rpd-import command for a directory of rocprofv3 output: the
 * directory itself for one run of CSV files; with several runs, one run
 * by --prefix (rpd-import refuses the directory without it) or all with
 * --all-runs; without CSV files, its first results file. */
static int explain_dir(const char *path, int rc)
{
  outdir o;
  char *word = shell_word(path), *out, *arg = NULL, *all = NULL;

  output_dir(path, &o);
  if (o.nruns > 1) {
    arg = shell_word(o.run[0]);
    out = quoted(rpd_xasprintf("%s.rpd", *o.run[0] ? o.run[0] : "run"));
    all = quoted(suggested_output(path));
    rc = rpd_seterr(RPD_EROCPROF, "rocprofv3 output directory of %d runs (%s_*, %s_*%s), "
                    "not an RPD trace; convert one with: rpd-import --prefix %s %s %s (or all "
                    "into one trace: rpd-import --all-runs %s %s)", o.nruns, o.run[0],
                    o.run[1], o.nruns > 2 ? ", ..." : "", arg, word, out, word, all);
  } else if (!o.nruns && o.results) {
    char *file = rpd_xasprintf("%s/%s", path, o.results);
    arg = shell_word(file);
    out = quoted(suggested_output(file));
    free(file);
    rc = rpd_seterr(RPD_EROCPROF, "rocprofv3 output directory, not an RPD trace; convert "
                    "it with: rpd-import %s %s", arg, out);
  } else {
    out = quoted(suggested_output(path));
    rc = rpd_seterr(RPD_EROCPROF, "rocprofv3 output directory, not an RPD trace; convert "
                    "it with: rpd-import %s %s", word, out);
  }
  outdir_free(&o);
  free(word);
  free(arg);
  free(out);
  free(all);
  return rc;
}

int rpd__explain_rocprof(const char *path, int rc, int can_o)
{
  char *saved = rpd_xstrdup(rpd_errmsg());
  const char *kind = rocprof_kind(path);   /* may set the message */
  char *word, *out;

  rpd_seterr(rc, "%s", saved);
  free(saved);
  if (!kind) return rc;
  if (strcmp(kind, "rocprofv3 output directory") == 0) return explain_dir(path, rc);
  word = shell_word(path);
  out = quoted(suggested_output(path));
  /* what rpd_open's -o reads through the import reader (open.c) */
  can_o = can_o && (!strcmp(kind, "rocprofv3 database") || !strncmp(kind, "PyTorch", 7));
  rc = rpd_seterr(RPD_EROCPROF, "%s, not an RPD trace; convert it with: "
                  "rpd-import %s %s%s%s", kind, word, out,
                  can_o ? ", or write the result to a new trace with -o " : "",
                  can_o ? out : "");
  free(word);
  free(out);
  return rc;
}
