/* rpd2tracing - convert an RPD trace to Chrome/Perfetto trace-event JSON.
 *
 * Every table is read once in rowid order (no SQL sort, no per-row string
 * join for the few distinct names: an id -> escaped-JSON cache); events are
 * formatted straight into a 1 MB buffer written with write(2) or zlib.  The
 * launch pass (marker stacks, marker frames, queue counters) needs time
 * order: its fixed-size rows go through an external merge sort with an 8 MB
 * chunk per sorter, so memory stays flat in trace size.  With a CPU to
 * spare the work is split over two threads (see "two workers").  The output
 * goes through rpd_outfile (a locked temp file next to OUT, renamed into
 * place on success) unless OUT is an existing special file.
 * Files: main.c options and output, workers.c the two workers, source.c
 * the sections (the event source), launch.c the launch pass, sort.c the
 * external sort, maps.c small maps and the name cache, json.c the JSON
 * writer.  See docs/rpd2tracing.md for the event layout and the differences from the
 * reference tools/rpd2tracing.py. */
#include "tracing.h"

static const char usage[] =
"usage: rpd2tracing FILE[.gz] [OUT.json | OUT.json.gz] [--start T] [--end T]\n"
"                   [--format object|array] [-q]\n"
"\n"
"Convert an RPD trace to trace-event JSON for ui.perfetto.dev or\n"
"chrome://tracing.  OUT defaults to FILE with its .rpd[.gz] suffix replaced\n"
"by .json; an OUT ending in .gz is written gzip-compressed.\n"
"\n"
"Events: GPU<n> process and 'Hip <tid>' thread names; every op (pid gpuId,\n"
"tid queueId); every api call on its pid/tid (zero-length UserMarker calls as\n"
"instant events); HSA api calls (rocpd_hsaApi); api->op flow arrows; one\n"
"frame per graph launch (rocpd_graphLaunchapi); QueueDepth and Idle counters\n"
"per GPU; every rocpd_monitor series; UserMarker ranges projected onto the\n"
"GPU queues they launched work on.\n"
"\n"
"  --start T, --end T   keep events starting in [start, end].  T is a bare\n"
"                       number of microseconds (an absolute timestamp, as the\n"
"                       reference), N% of the trace span, +T from the first\n"
"                       api call, -T back from the last, or a number with a\n"
"                       unit (ns, us, ms, s) counted from the first api call\n"
"  --format object      {\"traceEvents\": [...]} (default)\n"
"  --format array       a bare [...] array\n"
"  -q                   do not print the summary line\n"
"\n"
"Environment: RPD2TRACING_THREADS=1 or 2 (one worker or two; default two\n"
"when a CPU is idle and OUT is not .gz), RPD_GZIP_LEVEL (default 6).\n";

typedef struct opts {
  const char *in, *out, *start, *end;
  int array, quiet;
} opts;

static int parse_args(int argc, char **argv, opts *o) {
  int only_files = 0;   /* after "--" */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val = NULL;
    const char **dst = NULL;
    if (only_files) {
      /* a file name, even if it starts with a dash */
    }
    else if (!strcmp(a, "--")) { only_files = 1; continue; }
    else if (!strncmp(a, "--start", 7) && (a[7] == 0 || a[7] == '=')) dst = &o->start;
    else if (!strncmp(a, "--end", 5) && (a[5] == 0 || a[5] == '=')) dst = &o->end;
    else if (!strncmp(a, "--format", 8) && (a[8] == 0 || a[8] == '=')) dst = &val;
    else if (!strcmp(a, "-q")) { o->quiet = 1; continue; }
    else if (a[0] == '-' && a[1]) return rpd_usage_error("unknown option '%s'", a);
    if (dst) {
      const char *eq = strchr(a, '=');
      if (eq) *dst = eq + 1;
      else if (i + 1 < argc) *dst = argv[++i];
      else return rpd_usage_error("option '%s' needs a value", a);
      if (dst == &val) {
        if (!strcmp(val, "array")) o->array = 1;
        else if (!strcmp(val, "object")) o->array = 0;
        else return rpd_usage_error("--format must be 'object' or 'array', not '%s'", val);
      }
      continue;
    }
    if (!o->in) o->in = a;
    else if (!o->out) o->out = a;
    else return rpd_usage_error("unexpected argument '%s'", a);
  }
  if (!o->in) return rpd_usage_error("missing FILE");
  return 0;
}

/* FILE with .gz dropped and its last suffix replaced by .json; caller frees. */
static char *default_out(const char *in) {
  size_t n = strlen(in);
  const char *base = strrchr(in, '/');
  base = base ? base + 1 : in;
  if (n > 3 && !strcmp(in + n - 3, ".gz") && in + n - 3 > base) n -= 3;
  for (size_t i = n; i > (size_t)(base - in) + 1; i--)
    if (in[i - 1] == '.') { n = i - 1; break; }
  return rpd_xasprintf("%.*s.json", (int)n, in);
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && !strcmp(s + a - b, suffix);
}

/* Resolve --start/--end text to ns (rpd_timeopt_resolve: bare numbers
 * without a unit are absolute microseconds, the reference; with a unit they
 * count from the first api call; +T, -T and N% as the common time forms). */
static int resolve_time(const char *opt, const char *text, int64_t first,
                        int64_t last, int64_t *ns) {
  if (rpd_timeopt_resolve(text, first, last, ns) != RPD_OK)
    return rpd_usage_error("%s: %s", opt, rpd_errmsg());
  return 0;
}

/* OUT as an atomic output (rpd_outfile: a locked temp file next to OUT's
 * target, renamed into place by close_sink and removed on failure, a fatal
 * signal or exit), or NULL when OUT is an existing special file. */
rpd_outfile *ofile;

/* Open OUT: a regular file (new, or replaced) goes through rpd_outfile; an
 * existing OUT that is not a regular file or a directory (/dev/null, a
 * FIFO, a terminal) is written directly, never replaced. */
static int open_sink(sink *s, const char *out, const char *in) {
  static rpd_outfile of;
  struct stat st;
  int fd;
  if (stat(out, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    fd = open(out, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return rpd_fail("cannot write '%s': %s", out, strerror(errno));
  } else {
    if (rpd_outfile_begin(&of, out, in) != RPD_OK)
      return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
    ofile = &of;
    fd = fileno(of.fp);   /* written with write(2): the FILE buffer stays empty */
  }
  if (ends_with(out, ".gz")) {
    /* level 6 (gzip's default), or RPD_GZIP_LEVEL as everywhere in rpdtools */
    const char *lv = getenv("RPD_GZIP_LEVEL");
    char mode[4] = "wb6";
    int gfd = ofile ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : fd;   /* of.fp keeps fd */
    if (lv && lv[0] >= '0' && lv[0] <= '9' && !lv[1]) mode[2] = lv[0];
    s->gz = gfd >= 0 ? gzdopen(gfd, mode) : NULL;
    if (s->gz) {
      gzbuffer(s->gz, 256 * 1024);
    } else {
      if (gfd >= 0) close(gfd);
      if (ofile) rpd_outfile_abort(ofile);
      else close(fd);
      ofile = NULL;
      return rpd_fail("cannot write '%s': out of memory", out);
    }
  }
  s->fd = fd;
  s->cap = SINK_CHUNK;
  s->buf = rpd_xmalloc(s->cap);
  s->prealloc = ofile && !s->gz ? 0 : -1;   /* a new regular file only */
  s->wb = s->prealloc;
  return 0;
}

/* Flush and close the sink; rename into place when ok.  Returns exit code. */
int close_sink(sink *s, const char *out, int ok) {
  int failed = !ok, err = 0;
  if (ok) sink_flush(s);
  failed |= s->failed;
  if (s->failed) err = s->err;
  if (s->prealloc == 1) {   /* drop what was allocated ahead */
    off_t end = lseek(s->fd, 0, SEEK_CUR);
    if (end < 0 || ftruncate(s->fd, end) != 0) { failed = 1; if (!err) err = errno; }
  }
  if (s->gz && gzclose(s->gz) != Z_OK) { failed = 1; if (!err) err = errno; }
  if (!ofile && close(s->fd) != 0) { failed = 1; if (!err) err = errno; }
  free(s->buf);
  rpd_buf_free(&s->scratch);
  if (ofile) {
    if (failed) {
      rpd_outfile_abort(ofile);
    } else if (rpd_outfile_commit(ofile) != RPD_OK) {
      ofile = NULL;
      return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
    }
    ofile = NULL;
  }
  if (failed && ok) return rpd_fail("cannot write '%s': %s", out, strerror(err ? err : EIO));
  return failed;
}

static int same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

/* The GPUs the op scan saw, ascending. */
void collect_gpus(conv *c) {
  c->ngpus = c->gpuset.n;
  c->gpus = rpd_xmalloc((c->ngpus ? c->ngpus : 1) * sizeof *c->gpus);
  if (c->ngpus) memcpy(c->gpus, c->gpuset.a, c->ngpus * sizeof *c->gpus);
  qsort(c->gpus, c->ngpus, sizeof *c->gpus, i64_qcmp);
}

int trace_span(rpd *r, int span, int64_t *first, int64_t *last, int64_t *t_end) {
  sqlite3_stmt *st = NULL;
  /* the span takes a scan of both tables: only for --start/--end; else
   * the scans find the end on the way */
  int s, rc = rpd_prepare(r, span
      ? "SELECT (SELECT min(start) FROM rocpd_api), (SELECT max(end) FROM rocpd_api),"
        " (SELECT min(start) FROM rocpd_op), (SELECT max(end) FROM rocpd_op)"
      : "SELECT (SELECT 1 FROM rocpd_api LIMIT 1), 0, (SELECT 1 FROM rocpd_op LIMIT 1), 0", &st);
  if (rc == RPD_OK && (s = rpd_step(r, st)) != SQLITE_ROW) rc = s < 0 ? -s : RPD_ERR;
  if (rc == RPD_OK) {
    int api = sqlite3_column_type(st, 0) != SQLITE_NULL;
    int op = sqlite3_column_type(st, 2) != SQLITE_NULL;
    if (!api && !op) {
      rc = rpd_seterr(RPD_ENOTRPD, "empty trace: no api calls or ops");
    } else {
      *first = sqlite3_column_int64(st, api ? 0 : 2);
      *last = sqlite3_column_int64(st, api ? 1 : 3);
      *t_end = *last;
      if (op && sqlite3_column_int64(st, 3) > *t_end) *t_end = sqlite3_column_int64(st, 3);
    }
  }
  sqlite3_finalize(st);
  return rc;
}

int main(int argc, char **argv) {
  opts o = {0};
  static conv c, cb;   /* A and B (big: keep them off the stack) */
  char *out = NULL;
  int64_t first = 0, last = 0;
  int ret = 1, rc;

  /* each connection is used by one thread only: no SQLite mutexes (must
   * precede any other SQLite call; harmless if the library refuses) */
  sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);   /* no allocation statistics */
  if (rpd_cli_init(argc, argv, usage)) return 0;
  if ((ret = parse_args(argc, argv, &o))) return ret;
  out = o.out ? rpd_xstrdup(o.out) : default_out(o.in);
  if (same_file(o.in, out)) {
    ret = rpd_usage_error("output '%s' is the input file", out);
    goto done;
  }
  if (rpd_open_or_report(&c.r, o.in, NULL, RPD_READ) != RPD_OK) { ret = 1; goto done; }
  c.args_table = rpd_args_table(c.r);
  c.db = c.r->db;
  /* every scan is sequential: a small page cache keeps memory flat */
  rpd_exec(c.r, "PRAGMA cache_size=-4096");
  c.t_from_scans = !o.start && !o.end;
  if ((rc = trace_span(c.r, !c.t_from_scans, &first, &last, &c.t_end)) != RPD_OK) {
    ret = rpd_fail("cannot read '%s': %s", o.in, rpd_errmsg());
    goto done;
  }
  c.lo = INT64_MIN;
  c.hi = INT64_MAX;
  if (o.start && (ret = resolve_time("--start", o.start, first, last, &c.lo))) goto done;
  if (o.end && (ret = resolve_time("--end", o.end, first, last, &c.hi))) goto done;
  if (c.lo > c.hi) {
    ret = rpd_usage_error("--start is after --end");
    goto done;
  }
  if (o.end) c.t_end = c.hi;
  if ((ret = open_sink(&c.out, out, o.in))) goto done;
  c.w = &json_writer;
  c.w->begin(&c.out, o.array);
  rc = convert(&c, &cb);
  c.w->finish(&c.out, o.array);
  if (rc != RPD_OK) {
    rpd_fail("cannot read '%s': %s", o.in, c.err);
    close_sink(&c.out, out, 0);
    ret = 1;
    goto done;
  }
  if ((ret = close_sink(&c.out, out, 1))) goto done;
  if (!o.quiet)
    printf("%s: %lld events: %lld ops, %lld api calls, %lld marks, %lld flows,"
           " %lld hsa, %lld graph launches, %lld marker frames, %lld counter points\n",
           out, (long long)(c.out.nevents + cb.out.nevents - 1), (long long)c.n_op,
           (long long)c.n_api, (long long)c.n_instant, (long long)cb.n_flow, (long long)c.n_hsa,
           (long long)c.n_graph, (long long)cb.n_frame, (long long)(c.n_counter + cb.n_counter));
done:
  if (c.r) rpd_close(c.r, 0);
  free(c.gpus);
  free(out);
  return ret;
}

