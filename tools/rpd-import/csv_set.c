/* csv_set.c - rpd-import: the files of a rocprofv3 CSV set and their kinds
 * (see csvread.h). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "rpd.h"
#include "csvread.h"

static const char *const csv_suffix[CSV_KINDS] = {
  "kernel_trace.csv", "hip_api_trace.csv", "hsa_api_trace.csv",
  "marker_api_trace.csv", "rccl_api_trace.csv", "memory_copy_trace.csv",
  "agent_info.csv", "rocdecode_api_trace.csv", "rocjpeg_api_trace.csv",
  "counter_collection.csv", "memory_allocation_trace.csv",
  "scratch_memory_trace.csv", NULL
};

static void set_add(csvset *s, int k, const char *path)
{
  s->f[k] = rpd_xrealloc(s->f[k], (s->n[k] + 1) * sizeof *s->f[k]);
  s->f[k][s->n[k]++] = rpd_xstrdup(path);
}

int endswith(const char *s, const char *suf)
{
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

int is_file(const char *p)
{
  struct stat sb;
  return !stat(p, &sb) && S_ISREG(sb.st_mode);
}

static int strcmp_p(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Remember run prefix name[0..len) once. */
static void pfx_note(csvset *s, const char *name, size_t len)
{
  for (int i = 0; i < s->npfx; i++)
    if (strlen(s->pfx[i]) == len && !strncmp(s->pfx[i], name, len))
      return;
  s->pfx = rpd_xrealloc(s->pfx, (s->npfx + 1) * sizeof *s->pfx);
  s->pfx[s->npfx] = rpd_xmalloc(len + 1);
  memcpy(s->pfx[s->npfx], name, len);
  s->pfx[s->npfx++][len] = '\0';
}

/* Does the prefix name[0..len) match want (NULL = everything; "decode"
 * and "decode_" both match "decode_")? */
static int pfx_match(const char *want, const char *name, size_t len)
{
  if (!want)
    return 1;
  size_t w = strlen(want);
  if (w == len && !strncmp(want, name, len))
    return 1;
  return w + 1 == len && !strncmp(want, name, w) && name[w] == '_';
}

/* The kind of a lone CSV file whose name says nothing (hip_trace.csv,
 * rocpd-to-csv output, ...), from its header; -1 = none. */
static int csv_sniff(const char *path)
{
  static const struct { const char *cols; int kind; } rules[] = {
    {"KernelName", K_V1RESULTS},
    {"Counter_Name", K_COUNTER}, {"Kernel_Name", K_KERNEL},
    {"Source_Agent_Id", K_COPY}, {"Allocation_Size", K_ALLOC},
    {"Alloc_Flags", K_SCRATCH}, {"Function", K_API_ANY}
  };
  csv c;
  int kind = -1;
  if (!csv_open(&c, path, NULL))
    for (size_t i = 0; i < sizeof rules / sizeof rules[0] && kind < 0; i++)
      if (csv_col(&c, rules[i].cols) >= 0 && csv_col(&c, "Correlation_Id|Dispatch_Id|"
                                                     "Start_Timestamp|gpu-id") >= 0)
        kind = rules[i].kind;
  csv_close(&c);
  return kind;
}

const char *csv_not_trace(const char *path)
{
  csv c;
  const char *why = NULL;
  if (!endswith(path, ".csv") || csv_open(&c, path, NULL))
    return NULL;
  if (csv_col(&c, "TotalDurationNs") >= 0 && csv_col(&c, "Calls") >= 0)
    why = "a statistics file (rocprof --stats output), not a trace: import the"
          " trace files of the run";
  else if (csv_col(&c, "Sample_Timestamp") >= 0 && csv_col(&c, "Instruction") >= 0)
    why = "a PC sampling file: PC samples are not imported";
  csv_close(&c);
  return why;
}

/* A CSV file of a directory whose name is none of rocprofv3's kinds
 * (hip_trace.csv, hip_runtime_trace.csv, rccl_trace.csv, a renamed file):
 * its header says what it is; one that is not a trace is noted in s->skip
 * with the reason.  Returns 1 if it was added to the set. */
static int csv_collect_other(csvset *s, const char *path, const char *name)
{
  const char *why = NULL;
  int k = -1;
  if (s->want && strncmp(name, s->want, strlen(s->want)))
    why = "not of the run asked for with --prefix";
  else if (!is_file(path))
    why = "not a regular file";
  else if ((k = csv_sniff(path)) == K_V1RESULTS) {
    k = -1;                     /* not part of a rocprofv3 set */
    why = "a rocprof v1 results.csv: import it on its own";
  } else if (k < 0) {
    why = csv_not_trace(path);
    why = !why ? "not a rocprofv3 trace (unknown columns)" :
          !strncmp(why, "a statistics", 12) ? "a statistics file (--stats), not a trace" :
          !strncmp(why, "a PC sampling", 13) ? "PC samples are not imported" : why;
  }
  if (k >= 0) {
    set_add(s, k, path);
    return 1;
  }
  s->skip = rpd_xrealloc(s->skip, (s->nskip + 1) * sizeof *s->skip);
  s->skip[s->nskip++] = rpd_xasprintf("'%s': %s", path, why);
  return 0;
}

/* Collect the CSV files of a directory or of a prefix; 0 files = not CSV. */
int csv_collect(const char *input, csvset *s)
{
  struct stat sb;
  int total = 0;
  if (!stat(input, &sb) && S_ISDIR(sb.st_mode)) {
    DIR *d = opendir(input);
    struct dirent *e;
    char **other = NULL;
    int nother = 0;
    if (!d)
      return 0;
    while ((e = readdir(d))) {
      int k;
      for (k = 0; csv_suffix[k]; k++)
        if (endswith(e->d_name, csv_suffix[k])) {
          size_t plen = strlen(e->d_name) - strlen(csv_suffix[k]);
          pfx_note(s, e->d_name, plen);
          if (pfx_match(s->want, e->d_name, plen)) {
            char *p = rpd_xasprintf("%s/%s", input, e->d_name);
            set_add(s, k, p);
            free(p);
            total++;
          }
          break;
        }
      if (!csv_suffix[k] && endswith(e->d_name, ".csv")) {
        other = rpd_xrealloc(other, (nother + 1) * sizeof *other);
        other[nother++] = rpd_xstrdup(e->d_name);
      }
    }
    closedir(d);
    /* the others by their header, in name order (a directory of stats
     * files alone has no file to import: no CSV set) */
    if (nother > 1)
      qsort(other, nother, sizeof *other, strcmp_p);
    for (int i = 0; i < nother; i++) {
      char *p = rpd_xasprintf("%s/%s", input, other[i]);
      total += csv_collect_other(s, p, other[i]);
      free(p);
      free(other[i]);
    }
    free(other);
    if (s->npfx > 1)
      qsort(s->pfx, s->npfx, sizeof *s->pfx, strcmp_p);
  } else {
    char *prefix = rpd_xstrdup(input);
    for (int k = 0; csv_suffix[k]; k++)
      if (endswith(prefix, csv_suffix[k])) {
        prefix[strlen(prefix) - strlen(csv_suffix[k])] = '\0';
        break;
      }
    for (int k = 0; csv_suffix[k]; k++) {
      char *p = rpd_xasprintf("%s%s", prefix, csv_suffix[k]);
      char *q = rpd_xasprintf("%s_%s", prefix, csv_suffix[k]);
      if (is_file(p)) {
        set_add(s, k, p);
        total++;
      } else if (is_file(q)) {
        set_add(s, k, q);
        total++;
      }
      free(p);
      free(q);
    }
    free(prefix);
    int k;
    if (!total && endswith(input, ".csv") && is_file(input) &&
        (k = csv_sniff(input)) >= 0) {
      set_add(s, k, input);
      total++;
    }
  }
  for (int k = 0; csv_suffix[k]; k++)
    if (s->n[k] > 1)
      qsort(s->f[k], s->n[k], sizeof *s->f[k], strcmp_p);
  return total;
}

void set_free(csvset *s)
{
  for (int i = 0; i < s->nskip; i++)
    free(s->skip[i]);
  free(s->skip);
  for (int i = 0; i < s->npfx; i++)
    free(s->pfx[i]);
  free(s->pfx);
  for (int k = 0; k < CSV_KINDS; k++) {
    for (int i = 0; i < s->n[k]; i++)
      free(s->f[k][i]);
    free(s->f[k]);
  }
}
