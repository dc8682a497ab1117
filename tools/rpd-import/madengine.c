/* madengine.c - rpd-import --into TRACE: madengine's GPU monitor CSVs
 * (gpu_info_power_profiler_output.csv, gpu_info_vram_profiler_output.csv,
 * written by scripts/common/tools/gpu_info_profiler.py) added to an
 * existing trace as rocpd_monitor rows on the trace's clock.
 *
 * Format (Python csv.DictWriter): a header "time,Power(Watt) GPU0,..."
 * or "time,vram(%) GPU0,...", then one row per sample:
 * "2025-01-31 10:00:00.123456,250.0,..." (datetime.now(), local time). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rpd.h"
#include "import.h"
#include "check.h"

enum { MAXDEV = 256 };

typedef struct mcsv {
  const char *path;
  int kind;                 /* 0 power, 1 vram */
  int ndev, dev[MAXDEV];    /* column i + 1 -> GPU index */
} mcsv;

static const char *const mtype[] = { "madengine:power_W", "madengine:vram_pct" };

/* "YYYY-MM-DD HH:MM:SS[.ffffff]" -> ns since the epoch, read as UTC (only
 * differences matter unless --clock-offset is given); -1 = malformed. */
static int64_t parse_time(const char *s)
{
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  int us = 0, n = 0, nd = 0;
  if (sscanf(s, "%4d-%2d-%2d %2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
             &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6)
    return -1;
  const char *p = s + n;
  if (*p == '.')
    for (p++; isdigit((unsigned char)*p); p++, nd++)
      if (nd < 6)
        us = us * 10 + (*p - '0');
  for (; nd < 6; nd++)
    us *= 10;
  if (*p && *p != '\r')
    return -1;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  time_t t = timegm(&tm);
  if ((t == (time_t)-1 && tm.tm_year != 69) || t < 0 || t >= RPD_TIME_LIMIT / 1000000000)
    return -1;                     /* before 1970 or beyond the sane range (check.h) */
  return (int64_t)t * 1000000000 + (int64_t)us * 1000;
}

/* Split line (modified) at commas into f[], returns the count. */
static int split(char *line, char **f, int max)
{
  int n = 0;
  size_t l = strlen(line);
  while (l && (line[l - 1] == '\n' || line[l - 1] == '\r'))
    line[--l] = '\0';
  for (char *p = line; n < max;) {
    f[n++] = p;
    char *c = strchr(p, ',');
    if (!c)
      break;
    *c = '\0';
    p = c + 1;
  }
  return n;
}

/* Read the header of a madengine monitor CSV; RPD_EPARSE if it is not one. */
static int mcsv_header(FILE *f, mcsv *m)
{
  char *line = NULL, *fld[MAXDEV + 1];
  size_t cap = 0;
  int rc = RPD_OK;
  if (getline(&line, &cap, f) < 0) {
    free(line);
    return rpd_seterr(RPD_EPARSE, "%s: empty file (no header line)", m->path);
  }
  int n = split(line, fld, MAXDEV + 1);
  if (n < 2 || strcmp(fld[0], "time"))
    rc = rpd_seterr(RPD_EPARSE, "%s: not a madengine gpu_info CSV (header must be "
                    "'time,Power(Watt) GPU0,...' or 'time,vram(%%) GPU0,...')", m->path);
  for (int i = 1; i < n && !rc; i++) {
    const char *h = fld[i], *g;
    int kind = !strncmp(h, "Power(Watt) GPU", 15) ? 0 :
               !strncmp(h, "vram(%) GPU", 11) ? 1 : -1;
    g = kind == 0 ? h + 15 : h + 11;
    char *e;
    long d = kind < 0 ? -1 : strtol(g, &e, 10);
    if (kind < 0 || d < 0 || e == g || *e || (i > 1 && kind != m->kind))
      rc = rpd_seterr(RPD_EPARSE, "%s: column %d: '%.40s' is not 'Power(Watt) GPU<N>' "
                      "or 'vram(%%) GPU<N>'", m->path, i + 1, h);
    else {
      m->kind = kind;
      m->dev[m->ndev++] = (int)d;
    }
  }
  free(line);
  return rc;
}

/* Import one monitor CSV; *first receives its first sample's time. */
static int mcsv_import(rpd *r, const char *path, int64_t offset, int auto_align,
                       int64_t trace_start, int64_t *nrows, int64_t *nskip)
{
  mcsv m = {0};
  m.path = path;
  FILE *f = fopen(path, "r");
  if (!f)
    return rpd_seterr(RPD_EIO, "cannot read '%s': %s", path, strerror(errno));
  int rc = mcsv_header(f, &m);
  char *line = NULL, *fld[MAXDEV + 1], *prev = NULL;
  size_t cap = 0;
  int64_t lineno = 1, prev_line = 0, t_prev = -1, off = offset;
  sqlite3_stmt *ins = NULL;
  char *del = NULL;
  if (!rc) {
    del = sqlite3_mprintf("DELETE FROM rocpd_monitor WHERE monitorType = %Q", mtype[m.kind]);
    rc = rpd_exec(r, del);
  }
  if (!rc)
    rc = rpd_prepare(r, "INSERT INTO rocpd_monitor(deviceType, deviceId, monitorType,"
                     " start, end, value) VALUES ('gpu', ?, ?, ?, ?, ?)", &ins);
  /* each sample holds until the next one: rows are written one line late */
  while (!rc) {
    int got = getline(&line, &cap, f) >= 0;
    lineno++;
    int n = 0;
    int64_t t = -1;
    if (got) {
      if (line[0] == '\n' || line[0] == '\r') {
        (*nskip)++;
        continue;
      }
      n = split(line, fld, MAXDEV + 1);
      t = parse_time(fld[0]);
      if (t < 0) {
        rc = rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": bad time '%.40s' (want "
                        "YYYY-MM-DD HH:MM:SS.ffffff)", path, lineno, fld[0]);
        break;
      }
      if (n != m.ndev + 1) {
        rc = rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": %d fields, header has %d",
                        path, lineno, n, m.ndev + 1);
        break;
      }
      if (auto_align && t_prev < 0 && !prev)
        off = trace_start - 1000000000 - t;   /* sampling starts 1 s early */
      /* a sample before the previous one would make a row end before it
       * starts: the file is not one sampling run */
      if (prev && t < t_prev) {
        rc = rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": time '%.40s' is before the"
                        " previous sample's", path, lineno, fld[0]);
        break;
      }
    }
    if (prev) {
      char *pf[MAXDEV + 1];
      split(prev, pf, MAXDEV + 1);
      int64_t end = got ? t : t_prev, t0, t1;
      /* on the trace's clock the row must stay sane (check.h): an offset
       * that wraps past 2^63 or leaves 0 .. 2^62 is refused */
      if (!rpd_ns_add(t_prev, off, &t0) || !rpd_ns_add(end, off, &t1) ||
          !rpd_ns_sane(t0) || !rpd_ns_sane(t1)) {
        rc = rpd_seterr(RPD_ERANGE, "%s: line %" PRId64 ": the sample's time + clock"
                        " offset %" PRId64 " ns is outside 0 .. 2^62 ns", path,
                        prev_line, off);
        break;
      }
      for (int i = 0; i < m.ndev && !rc; i++) {
        char *e;
        const char *v = pf[i + 1];
        strtod(v, &e);
        if (!*v || e == v || *e) {      /* "N/A" or empty: no reading */
          (*nskip)++;
          continue;
        }
        sqlite3_bind_int(ins, 1, m.dev[i]);
        sqlite3_bind_text(ins, 2, mtype[m.kind], -1, SQLITE_STATIC);
        sqlite3_bind_int64(ins, 3, t0);
        sqlite3_bind_int64(ins, 4, t1);
        sqlite3_bind_text(ins, 5, v, -1, SQLITE_TRANSIENT);
        int s = rpd_step(r, ins);
        sqlite3_reset(ins);
        if (s < 0)
          rc = -s;
        else
          (*nrows)++;
      }
      free(prev);
      prev = NULL;
    }
    if (!got)
      break;
    /* keep this line's fields for the next round (split wrote NULs) */
    size_t len = 0;
    for (int i = 0; i < n; i++)
      len += strlen(fld[i]) + 1;
    prev = rpd_xmalloc(len + 1);
    prev[0] = '\0';
    for (int i = 0; i < n; i++) {
      strcat(prev, fld[i]);
      if (i + 1 < n)
        strcat(prev, ",");
    }
    t_prev = t;
    prev_line = lineno;
  }
  free(prev);
  free(line);
  sqlite3_finalize(ins);
  sqlite3_free(del);
  fclose(f);
  return rc;
}

/* ------------------------------------------------- library_trace.csv */

/* get_library_trace.py's CSV: jobid,created_date,model,library,config,calls
 * (one row per distinct configuration, with its call count). */
typedef struct libctx {
  rpd *r;
  const char *path;
  sqlite3_stmt *ins;
  int64_t rows;
} libctx;

/* The function a configuration line calls (new text). */
static char *lib_function(const char *library, const char *config)
{
  const char *p = NULL;
  size_t n;
  if (!strcmp(library, "rocblas") || !strcmp(library, "hipblaslt")) {
    p = strstr(config, " -f ");
    if (!p)
      p = strstr(config, " --function ");
    if (p)
      p = strchr(p + 1, ' ') + 1;
  } else if (!strcmp(library, "rocblas_function")) {
    p = strstr(config, "rocblas_function: ");
    if (p)
      p += 18;
  } else if (!strcmp(library, "miopen")) {
    p = strstr(config, "MIOpenDriver ");
    if (p)
      p += 13;
  } else if (!strcmp(library, "tensile"))
    p = config;                 /* the kernel name itself */
  if (!p)
    p = config;
  while (*p == ' ')
    p++;
  n = strcspn(p, strcmp(library, "tensile") ? " ,\t" : "");
  char *f = rpd_xmalloc(n + 1);
  memcpy(f, p, n);
  f[n] = '\0';
  return f;
}

static int lib_row(void *arg, int64_t line, int n, const char *const *f)
{
  libctx *c = arg;
  static const char *const cols[] = { "jobid", "created_date", "model", "library",
                                      "config", "calls" };
  if (line == 1) {
    for (int i = 0; i < 6; i++)
      if (n != 6 || strcmp(f[i], cols[i]))
        return rpd_seterr(RPD_EPARSE, "%s: not a madengine library_trace.csv (header"
                          " must be jobid,created_date,model,library,config,calls)",
                          c->path);
    return RPD_OK;
  }
  if (n != 6)
    return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": %d fields, header has 6",
                      c->path, line, n);
  char *e;
  long long calls = strtoll(f[5], &e, 10);
  if (e == f[5] || *e || calls < 0)
    return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": calls: not a count: '%.40s'",
                      c->path, line, f[5]);
  char *fn = lib_function(f[3], f[4]);
  for (int i = 0; i < 5; i++)
    sqlite3_bind_text(c->ins, i + 1, f[i], -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(c->ins, 6, fn, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(c->ins, 7, calls);
  free(fn);
  int s = rpd_step(c->r, c->ins);
  sqlite3_reset(c->ins);
  if (s < 0)
    return -s;
  c->rows++;
  return RPD_OK;
}

static const char lib_ddl[] =
  "DROP VIEW IF EXISTS ext_library_summary; DROP VIEW IF EXISTS ext_library_kernel;"
  " DROP TABLE IF EXISTS ext_library_call;"
  " CREATE TABLE ext_library_call (id INTEGER PRIMARY KEY, jobid TEXT NOT NULL,"
  " created_date TEXT NOT NULL, model TEXT NOT NULL, library TEXT NOT NULL,"
  " config TEXT NOT NULL, function TEXT NOT NULL, calls INTEGER NOT NULL);"
  " CREATE VIEW ext_library_summary AS SELECT library, function,"
  " count(*) AS configs, sum(calls) AS calls FROM ext_library_call"
  " GROUP BY library, function;"
  " CREATE VIEW ext_library_kernel AS SELECT L.library, L.function, L.config,"
  " L.calls, count(O.id) AS trace_kernels, coalesce(sum(O.end - O.start), 0) AS gpu_time"
  " FROM ext_library_call L LEFT JOIN rocpd_string S ON S.string = L.config"
  " LEFT JOIN rocpd_op O ON O.description_id = S.id GROUP BY L.id;";

static int lib_import(rpd *r, const char *path, int *made, int64_t *rows)
{
  libctx c = {r, path, NULL, 0};
  int rc = *made ? RPD_OK : rpd_exec(r, lib_ddl);
  *made = 1;
  if (!rc)
    rc = rpd_prepare(r, "INSERT INTO ext_library_call(jobid, created_date, model, library,"
                     " config, function, calls) VALUES (?,?,?,?,?,?,?)", &c.ins);
  if (!rc)
    rc = csv_rows(path, lib_row, &c);
  sqlite3_finalize(c.ins);
  *rows += c.rows;
  return rc;
}

/* 1 if the file's first line is library_trace.csv's header. */
static int is_library_trace(const char *path)
{
  char b[16] = {0};
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  size_t n = fread(b, 1, sizeof b - 1, f);
  fclose(f);
  return n >= 6 && !strncmp(b, "jobid,", 6);
}

int import_madengine_csv(rpd *r, const char *path, int64_t offset, int64_t *rows)
{
  int made = 0;
  int64_t skipped = 0;
  return is_library_trace(path) ? lib_import(r, path, &made, rows) :
         mcsv_import(r, path, offset, 0, 0, rows, &skipped);
}

int import_into_main(const char *trace, char **files, int nfiles, int has_offset,
                     int64_t offset, int quiet)
{
  rpd *r = NULL;
  int64_t start = 0, rows = 0, skipped = 0, librows = 0;
  int made = 0, nmon = 0;
  if (rpd_open_or_report(&r, trace, NULL, RPD_WRITE) != RPD_OK)
    return 1;
  int rc = rpd_begin(r);
  for (int i = 0; i < nfiles; i++)
    nmon += !is_library_trace(files[i]);
  if (!rc && !has_offset && nmon) {
    rc = rpd_query_int64(r, "SELECT min(s) FROM (SELECT min(start) AS s FROM rocpd_api"
                         " UNION ALL SELECT min(start) FROM rocpd_op)", &start);
    if (rc == RPD_ENOTFOUND)
      rc = rpd_seterr(RPD_EPARSE, "the trace has no api calls or ops to align the "
                      "samples to; give --clock-offset NS");
  }
  for (int i = 0; i < nfiles && !rc; i++)
    rc = is_library_trace(files[i]) ? lib_import(r, files[i], &made, &librows) :
         mcsv_import(r, files[i], offset, !has_offset, start, &rows, &skipped);
  if (!rc && nmon)
    rc = rpd_meta_set(r, "rpd-import::madengine_clock",
                      has_offset ? "explicit offset" : "first sample = first trace event - 1 s");
  if (!rc)
    rc = rpd_commit(r);
  if (rc) {
    rpd_rollback(r);
    rpd_close(r, 0);
    return rpd_fail("cannot import into '%s': %s", trace, rpd_errmsg());
  }
  rc = rpd_close(r, 1);
  if (rc)
    return rpd_fail("cannot write '%s': %s", trace, rpd_errmsg());
  if (!quiet) {
    fprintf(stderr, "%s: %d file(s) -> %s\n", rpd_progname, nfiles, trace);
    if (nmon)
      fprintf(stderr, "  wrote rocpd_monitor %10" PRId64 "\n", rows);
    if (made)
      fprintf(stderr, "  wrote ext_library_call %7" PRId64 "\n", librows);
    fprintf(stderr, "  skipped %" PRId64 " blank lines or N/A readings\n", skipped);
  }
  return 0;
}
