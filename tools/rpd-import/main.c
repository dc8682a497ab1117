/* rpd-import - convert rocprofv3 output (JSON, CSV set, SQLite), rocprof v1
 * output and PyTorch profiler (Kineto) traces to an RPD trace.
 *
 * The output is a new schema-v3 RPD written into a temporary file next to
 * OUT and renamed into place only after everything was written and
 * committed, so a failed or killed import never leaves a half-written OUT.
 * JSON is streamed with yajl (gzread chunks for .json.gz): memory stays flat
 * in the number of records.  See docs/rpd-import.md for the field mapping.
 * One reader per format (json.c, csv.c, db.c) feeds writer.c.
 */
#include "opt.h"

static const rpd_help help = {
  .usage = "usage: rpd-import INPUT OUT.rpd [--force] [--truncated-names] [--prefix NAME]\n"
           "                  [--all-runs] [-q]\n"
           "       rpd-import --into TRACE.rpd CSV... [--clock-offset NS]",
  .about =
    "Write a new RPD trace (schema v3; an OUT ending in .gz is compressed) from\n"
    "rocprofv3, rocprof v1 or PyTorch profiler output.  INPUT is one of:\n"
    "  NAME_results.json[.gz]   rocprofiler-sdk-tool JSON (streamed, flat memory)\n"
    "  a CSV set                a directory, a file prefix (out/1234_) or one of\n"
    "                           its files (out/1234_kernel_trace.csv): kernel_trace,\n"
    "                           hip_api_trace, hsa_api_trace, marker_api_trace,\n"
    "                           rccl_api_trace, memory_copy_trace, agent_info,\n"
    "                           rocdecode_api_trace, rocjpeg_api_trace,\n"
    "                           counter_collection, memory_allocation_trace,\n"
    "                           scratch_memory_trace; a CSV with another name\n"
    "                           (hip_trace.csv, rocpd-to-csv output) by its\n"
    "                           header; a file of a directory not imported is\n"
    "                           named on stderr (also with -q)\n"
    "  NAME_results.db          rocprofv3 SQLite database (rocprofiler-sdk rocpd)\n"
    "  rocprof v1 output        a directory of rpl text traces (NNN_hip_api_trace.txt,\n"
    "                           NNN_hcc_ops_trace.txt, hsa_api, roctx) or one of\n"
    "                           them; results.db (tables HIP, HSA, OPS, COPY, or\n"
    "                           KERN alone);\n"
    "                           results.csv (per-dispatch counters); results.json\n"
    "                           (chrome trace, linked by its flow arrows)\n"
    "  NAME.pt.trace.json[.gz]  PyTorch profiler (Kineto) trace, as TraceLens and\n"
    "                           HTA read it (streamed): kernels, copies, runtime\n"
    "                           calls linked by correlation, cpu ops as autograd\n"
    "                           markers, devices and rank in rocpd_metadata",
  .quiet = "do not print the summary or the progress line (shown on a terminal: "
           "bytes read, or input rows of a database)",
  .notes =
    "Kernel dispatches become rocpd_op 'KernelExecution' rows, memory copies\n"
    "Copy* rows, API records rocpd_api rows linked through rocpd_api_ops by\n"
    "correlation id (rocpd_api.id = correlation id).  A summary of records\n"
    "read per kind and rows written per table goes to stderr.\n"
    "\n"
    "Environment: RPDTOOLS_IMPORT_THREADS=1 imports on one thread; by default,\n"
    "with more than one CPU, rocprofv3 JSON, database and CSV imports read on\n"
    "one thread and write on another (same rows and ids).\n",
};

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "rpd.h"
#include "import.h"
#include "kinds.h"
#include "check.h"
#include "strictint.h"
#include "pipe.h"    /* the JSON import's writer thread */

enum { IN_JSON, IN_CSV, IN_DB, IN_V1, IN_KINETO };

/* 1 if h (n bytes) starts like a Perfetto protobuf trace: a TracePacket
 * (field 1, length-delimited) whose length varint is followed by one of
 * its own fields. */
static int perfetto_head(const unsigned char *h, size_t n)
{
  size_t i = 1;
  if (n < 4 || h[0] != 0x0a)
    return 0;
  while (i < n && i < 6 && (h[i] & 0x80))
    i++;
  return i + 1 < n && h[i + 1] != 0 && (h[i + 1] & 7) <= 5;
}

/* "decode_, prefill_" for messages (a static buffer). */
static const char *runs_list(const csvset *s)
{
  static char b[512];
  size_t n = 0;
  b[0] = '\0';
  for (int i = 0; i < s->npfx && n + 8 < sizeof b; i++)
    n += (size_t)snprintf(b + n, sizeof b - n, "%s%s*", i ? ", " : "",
                          s->pfx[i]);
  if (n >= sizeof b)
    memcpy(b + sizeof b - 4, "...", 4);
  return b;
}

/* A directory with the files of several runs is refused unless one was
 * named (--prefix) or all were asked for (--all-runs: want = NULL). */
static int csv_runs(csvset *s, int *kind)
{
  if (s->npfx > 1 && !s->want && !s->all_runs)
    return rpd_seterr(RPD_EPARSE, "%d runs in one directory: %s; import one with "
                      "--prefix NAME (or all with --all-runs)", s->npfx,
                      runs_list(s));
  *kind = IN_CSV;
  return RPD_OK;
}

/* A directory with nothing to import: name the rocprof v1 inputs it holds
 * (its results.db / results.json, or a subdirectory of rpl text traces),
 * since a user points at v1's output directory as a whole. */
static int dir_hint(const char *dir)
{
  static const char *const v1_files[] = { "results.db", "results.json" };
  rpd_buf found = { 0 };
  struct stat sb;
  int rc;

  for (size_t i = 0; i < sizeof v1_files / sizeof *v1_files; i++) {
    char *p = rpd_xasprintf("%s/%s", dir, v1_files[i]);
    if (!stat(p, &sb) && S_ISREG(sb.st_mode))
      rpd_buf_printf(&found, "%s'%s'", found.len ? " or " : "", p);
    free(p);
  }
  if (found.len)
    rc = rpd_seterr(RPD_EPARSE, "no rocprofv3 *_trace.csv files in directory; it holds rocprof "
                    "v1 output: import %s (or its directory of *_hip_api_trace.txt files)",
                    found.s);
  else
    rc = rpd_seterr(RPD_EPARSE, "no rocprofv3 *_trace.csv files in directory");
  rpd_buf_free(&found);
  return rc;
}

/* What INPUT is; fills s for CSV, v for rocprof v1 text. */
static int detect(const char *input, csvset *s, v1set *v, int *kind)
{
  struct stat sb;
  if (!stat(input, &sb) && S_ISREG(sb.st_mode)) {
    unsigned char h[16] = {0};
    FILE *f = fopen(input, "rb");
    if (!f)
      return rpd_seterr(RPD_EIO, "%s", strerror(errno));
    size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    if (n == 16 && !memcmp(h, "SQLite format 3", 16)) {
      *kind = IN_DB;
      return RPD_OK;
    }
    if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b) {
      /* a gzip'd database (rpd_open decompresses it) or gzip'd JSON */
      unsigned char z[16] = {0};
      gzFile gz = gzopen(input, "rb");
      int zn = gz ? gzread(gz, z, sizeof z) : -1;
      if (gz)
        gzclose(gz);
      *kind = zn == 16 && !memcmp(z, "SQLite format 3", 16) ? IN_DB : IN_JSON;
      if (*kind == IN_JSON && rpd_kineto_file(input))
        *kind = IN_KINETO;
      return RPD_OK;
    }
    size_t i = 0;
    if (n >= 3 && h[0] == 0xef && h[1] == 0xbb && h[2] == 0xbf)
      i = 3;
    while (i < n && isspace(h[i]))
      i++;
    if (i < n && (h[i] == '{' || h[i] == '[')) {
      *kind = rpd_kineto_file(input) ? IN_KINETO : IN_JSON;
      return RPD_OK;
    }
    if (endswith(input, ".pftrace") || endswith(input, ".otf2") || perfetto_head(h, n))
      return rpd_seterr(RPD_EPARSE, "a Perfetto/OTF2 trace (rocprofv3 --output-format"
                        " pftrace/otf2) is not read: run rocprofv3 with --output-format"
                        " rocpd (or json, csv) and import that");
    if (!n && (endswith(input, ".json") || endswith(input, ".json.gz")))
      return rpd_seterr(RPD_EPARSE, "empty file");
  }
  if (csv_collect(input, s) > 0)
    return csv_runs(s, kind);
  if (v1_collect(input, v) > 0) {
    *kind = IN_V1;
    return RPD_OK;
  }
  if (s->want && s->npfx)
    return rpd_seterr(RPD_EPARSE, "no run '%s' in directory (runs: %s)", s->want,
                      runs_list(s));
  if (stat(input, &sb))
    return rpd_seterr(RPD_ENOENT, "%s", strerror(errno));
  if (S_ISDIR(sb.st_mode))
    return dir_hint(input);
  /* the kind is found by reading the start, then the input is read again:
   * a pipe would lose what the probe read */
  if (!S_ISREG(sb.st_mode))
    return rpd_seterr(RPD_EPARSE, "not a regular file (%s): rpd-import reads its input "
                      "more than once; save it to a file first",
                      S_ISFIFO(sb.st_mode) ? "a FIFO or pipe" : S_ISCHR(sb.st_mode) ||
                      S_ISBLK(sb.st_mode) ? "a device" : "a socket or other special file");
  const char *why = csv_not_trace(input);
  if (why)
    return rpd_seterr(RPD_EPARSE, "%s", why);
  if (!sb.st_size)
    return rpd_seterr(RPD_EPARSE, "empty file");
  return rpd_seterr(RPD_EPARSE, "not a rocprofv3 JSON, CSV set or database");
}

/* A rocprofv3 JSON with the writer thread (pipe.c) running beside the
 * parser: the same rows, ids and order as on one thread. */
static int import_json_piped(imp *m, const char *in)
{
  int rc = pipe_begin(m);
  if (!rc)
    rc = import_json(m, in);
  return pipe_end(m, rc);
}

/* A PyTorch profiler trace the same way (kineto.c). */
static int import_kineto_piped(imp *m, const char *in)
{
  int rc = pipe_begin(m);
  if (!rc)
    rc = import_kineto(m, in);
  return pipe_end(m, rc);
}

/* A rocprofv3 (or v1) database the same way: the input is
 * read on its own connection while the writer thread inserts. */
static int import_db_piped(imp *m, const char *in)
{
  int rc = pipe_begin(m);
  if (!rc)
    rc = import_db(m, in);
  return pipe_end(m, rc);
}

/* A CSV set the same way. */
static int import_csv_piped(imp *m, csvset *set)
{
  int rc = pipe_begin(m);
  if (!rc)
    rc = import_csv(m, set);
  return pipe_end(m, rc);
}

static void summary(const imp *m, const char *out, int64_t linked)
{
  fprintf(stderr, "%s: %s -> %s\n", rpd_progname, m->input, out);
  for (int i = 0; i < m->nkinds; i++)
    fprintf(stderr, "  read %-18s %10" PRId64 "%s\n", m->kinds[i].name,
            m->kinds[i].n, m->kinds[i].handled ? "" : "  (not imported)");
  fprintf(stderr, "  wrote rocpd_op        %10" PRId64 "\n", m->n_op);
  fprintf(stderr, "  wrote rocpd_api       %10" PRId64 "\n", m->n_api);
  fprintf(stderr, "  wrote rocpd_api_ops   %10" PRId64 "  (%" PRId64
          " linked to a traced api call)\n", m->n_apiop, linked);
  fprintf(stderr, "  wrote rocpd_kernelapi %10" PRId64 "\n", m->n_kapi);
  fprintf(stderr, "  wrote rocpd_copyapi   %10" PRId64 "\n", m->n_capi);
  if (m->n_counter)
    fprintf(stderr, "  wrote rocpd_counter   %10" PRId64 "  (%" PRId64
            " dispatches not in a kernel trace made their op)\n", m->n_counter,
            m->n_counter_op);
  if (m->n_alloc)
    fprintf(stderr, "  wrote ext_memory_allocation %4" PRId64 "\n", m->n_alloc);
  if (m->n_scratch)
    fprintf(stderr, "  wrote ext_scratch_memory %7" PRId64 "\n", m->n_scratch);
  if (m->n_v1_unlinked_flow)
    fprintf(stderr, "  skipped %" PRId64 " flow arrows whose call or op was not found\n",
            m->n_v1_unlinked_flow);
  if (m->n_jk_orphan)
    fprintf(stderr, "  skipped %" PRId64 " pmc events of no kernel dispatch\n", m->n_jk_orphan);
  if (m->n_dup_api)
    fprintf(stderr, "  skipped %" PRId64 " api records with a duplicate correlation id\n",
            m->n_dup_api);
  if (m->n_sorted_guids)
    fprintf(stderr, "  regions or args of %" PRId64 " process(es) were not in event order:"
            " read again sorted\n", m->n_sorted_guids);
  if (m->n_blank)
    fprintf(stderr, "  skipped %" PRId64 " blank lines\n", m->n_blank);
  if (m->n_v1_untimed)
    fprintf(stderr, "  %" PRId64 " kernels have no timing (KERN without BeginNs/EndNs: rocprof "
            "ran without --timestamp on); their ops start and end at 0\n", m->n_v1_untimed);
  if (m->n_v1_unmatched)
    fprintf(stderr, "  skipped %" PRId64 " roctx push/pop records without a partner\n",
            m->n_v1_unmatched);
  if (m->n_nolink)
    fprintf(stderr, "  %" PRId64 " ops carry no correlation id (not linked)\n",
            m->n_nolink);
}

/* rpd-import --into TRACE CSV...: the madengine monitor CSVs (madengine.c);
 * opts, main's table of this command line, sets *into and *offset. */
static int into_main(int argc, char **argv, const rpd_opt *opts, const char **into,
                     const char **offset)
{
  const char *trace, *offtext;
  char **files;
  int n = 0, quiet = 0, has_off = 0, rc;
  int64_t off = 0;
  int npos = argc;
  if ((rc = rpd_cli_options(opts, RPD_OPT_KEEP_UNKNOWN, &npos, argv)))
    return rc;
  trace = *into;
  offtext = *offset;
  if (!trace || !*trace)
    return rpd_usage_error("--into needs a value");
  if (offtext && !*offtext)
    return rpd_usage_error("--clock-offset needs a value");
  if (offtext && rpd_int_text(offtext, strlen(offtext), &off))
    return rpd_usage_error("bad --clock-offset '%s' (integer ns)", offtext);
  has_off = offtext != NULL;
  quiet = rpd_quiet;
  files = argv;
  for (int i = 0; i < npos; i++)
    if (argv[i][0] == '-' && argv[i][1])
      return rpd_usage_error("unknown option '%s' with --into", argv[i]);
  n = npos;
  if (!n)
    return rpd_usage_error("--into needs the CSV files to add");
  return import_into_main(trace, files, n, has_off, off, quiet);
}

int main(int argc, char **argv)
{
  const char *in = NULL, *out = NULL;
  const char *prefix = NULL;
  int force = 0, quiet = 0, trunc = 0, all_runs = 0, kind = 0, rc;
  csvset set;
  v1set v1 = {0};
  imp m;

  /* --into TRACE CSV...: another command line (into_main) */
  const char *into = NULL, *offtext = NULL;
  const rpd_opt into_opts[] = {
    RPD_OPT_STRING("--into", &into, .arg = "TRACE.rpd",
                   .help = "add madengine's gpu_info_power_profiler_output.csv / "
                           "gpu_info_vram_profiler_output.csv samples (the CSV... "
                           "arguments) to TRACE.rpd as rocpd_monitor rows (madengine:power_W, "
                           "madengine:vram_pct), in one transaction, replacing earlier ones; "
                           "the first sample is put 1 s before the trace's first event "
                           "(madengine samples from 1 s before the workload) unless "
                           "--clock-offset"),
    RPD_OPT_STRING("--clock-offset", &offtext, .arg = "NS",
                   .help = "with --into: trace_ns = sample time (UTC epoch ns) + NS"),
    RPD_OPT_END(),
  };
  const rpd_opt opts[] = {
    RPD_OPT_FLAG("--force", &force, .help = "replace OUT.rpd if it exists (default: refuse)"),
    RPD_OPT_SET("--truncated-names", &trunc, 1,
                .help = "op description = rocprofv3's truncated kernel name (the grouping "
                        "TraceLens uses); default: the full demangled name, the kernel's "
                        "identity.  Both are kept in ext_kernel_name; --full-names (the "
                        "default) is still accepted"),
    RPD_OPT_SET("--full-names", &trunc, 0, .hidden = 1),
    RPD_OPT_STRING("--prefix", &prefix, .need = "a run name", .arg = "NAME",
                   .help = "a directory holding several runs (decode_*, prefill_*): import "
                           "the files of run NAME (default: refuse, listing them)"),
    RPD_OPT_FLAG("--all-runs", &all_runs,
                 .help = "import every run of the directory into one trace"),
    RPD_OPT_GROUP("Adding madengine samples to a trace:"),
    RPD_OPT_TABLE(into_opts),
    RPD_OPT_END(),
  };
  if (rpd_cli_init_opts(argc, argv, &help, opts))
    return rpd_cli_status();
  if (rpd_opt_peek(into_opts, argc, argv, (char[8]){ 0 }, 8) || into)
    return into_main(argc, argv, into_opts, &into, &offtext);
  /* one thread on each connection: skip SQLite's mutexes */
  sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
  if ((rc = rpd_cli_options(opts, 0, &argc, argv)))
    return rc;
  if (offtext)
    return rpd_usage_error("--clock-offset goes with --into");
  quiet = rpd_quiet;
  if (prefix && !*prefix)
    return rpd_usage_error("--prefix needs a run name");
  if (argc > 2)
    return rpd_usage_error("too many arguments");
  in = argc > 0 ? argv[0] : NULL;
  out = argc > 1 ? argv[1] : NULL;
  if (!in || !out)
    return rpd_usage_error("need INPUT and OUT.rpd");
  if (prefix && all_runs)
    return rpd_usage_error("--prefix and --all-runs exclude each other");
  /* never the input itself, a device, a fifo or a directory */
  if (rpd_output_check(out, in, NULL))
    return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
  if (!force && !access(out, F_OK))
    return rpd_fail("'%s' exists; use --force to replace it", out);

  memset(&set, 0, sizeof set);
  memset(&m, 0, sizeof m);
  m.input = in;
  m.truncated_names = trunc;
  set.want = prefix;
  set.all_runs = all_runs;
  if ((rc = detect(in, &set, &v1, &kind))) {
    v1_free(&v1);
    set_free(&set);
  v1_free(&v1);
    return rpd_fail("cannot import '%s': %s", in, rpd_errmsg());
  }
  /* a file of the directory not imported is named, -q or not: the user
   * would otherwise not know it was left out */
  for (int i = 0; i < set.nskip; i++)
    fprintf(stderr, "%s: skipped %s\n", rpd_progname, set.skip[i]);

  /* rpd_create: a temp file next to OUT's target (symlinks followed),
   * removed on failure, exit or a fatal signal, renamed into place (gzip'd
   * for OUT.gz) by rpd_close; 16 KiB pages (set before the first table):
   * fewer, fuller B-tree pages for the appends below, ~7% less CPU than
   * 4 KiB (docs).  Bulk-load settings: no syncs, the journal in memory
   * (the db reader rolls back to a savepoint when it must re-read regions
   * sorted) */
  rpd_create_opts co = { .schema = 3, .input = in, .force = force, .page_size = 16384 };
  rc = rpd_create(&m.r, out, &co);
  if (rc) {
    rpd_fail("cannot create '%s': %s", out, rpd_errmsg());
    goto fail_noclose;
  }
  if (!rc)
    rc = rpd_begin(m.r);
  if (!rc)
    rc = w_prepare(&m);
  if (!rc) {
    if (kind == IN_JSON)   /* rocprof v1 results.json (v1_json.c) */
      rc = v1_json_is(in) ? import_v1_json(&m, in) : import_json_piped(&m, in);
    else if (kind == IN_KINETO)
      rc = import_kineto_piped(&m, in);
    else if (kind == IN_CSV)
      rc = import_csv_piped(&m, &set);
    else if (kind == IN_V1) {
      /* rocprof v1 text: the progress line counts rows written */
      prog_begin(&m, "importing", 0, -1);
      m.prog_rows = 1;
      rc = import_v1_text(&m, &v1);
      prog_end(&m);
    }
    else
      rc = import_db_piped(&m, in);
  }
  if (!rc)
    rc = w_flush(&m);
  /* a CSV whose kernel names carry no signature came from rocprofv3
   * --truncate-kernels: the full names are not in the input */
  if (!rc && kind == IN_CSV && m.n_kname && !m.n_kname_sig)
    m.short_only = 1;
  if (!rc)
    rc = w_finish(&m);
  w_finalize(&m);
  if (rc) {
    rpd_fail("cannot import '%s': %s", in, rpd_errmsg());
    goto fail;
  }
  int64_t linked = 0;
  /* what was written is sane: the writer checked every op and api row
   * as it went (w_op, w_api); the table scan only runs to name the bad
   * rows when it saw one */
  if (m.n_bad_rows && (rc = rpd_check_trace(m.r))) {
    rpd_fail("cannot import '%s': %s", in, rpd_errmsg());
    goto fail;
  }
  rc = rpd_commit(m.r);
  if (!rc && !quiet)
    rc = rpd_query_int64(m.r, "SELECT count(*) FROM rocpd_api_ops A"
                         " JOIN rocpd_api B ON B.id = A.api_id", &linked);
  if (rc) {
    rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
    goto fail;
  }
  rc = rpd_close(m.r, 1);
  m.r = NULL;
  if (rc) {
    rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
    goto fail_noclose;
  }
  if (!quiet)
    summary(&m, out, linked);
  set_free(&set);
  v1_free(&v1);
  return rpd_fail_committed(out);   /* stdout rule (docs/common.md) */

fail:
  if (m.r) {
    rpd_rollback(m.r);
    rpd_close(m.r, 0);
  }
fail_noclose:
  w_finalize(&m);
  set_free(&set);
  v1_free(&v1);
  return 1;
}
