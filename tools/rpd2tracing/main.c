/* links: rpd-import */
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
#include "check.h"
#include "util/num.h"
#include "opt.h"
#include "readdirect.h"   /* rpd-import's rocprofv3 reader */

static const rpd_help help = {
  .usage = "usage: rpd2tracing FILE[.gz] [OUT] [--start T] [--end T] [--format F]\n"
           "                   [--max-size SIZE | --split N] [--abs-us] [-q]",
  .about =
    "Convert an RPD trace for ui.perfetto.dev or chrome://tracing.  OUT ending\n"
    "in .json writes trace-event JSON, in .pftrace or .perfetto-trace Perfetto's\n"
    "native protobuf (2.5-4x smaller, faster to load); a further .gz\n"
    "compresses it (on every CPU).  OUT defaults to FILE with its .rpd[.gz]\n"
    "suffix replaced by .json (.pftrace with --format proto).\n"
    "\n"
    "Events: GPU<n> process and 'Hip <tid>' thread names; every op (pid gpuId,\n"
    "tid queueId; overlapping ops of a queue on extra 'Queue <q> (2)' lanes);\n"
    "every api call on its pid/tid (zero-length UserMarker calls as instant\n"
    "events); HSA api calls (rocpd_hsaApi); api->op flow arrows; one frame per\n"
    "graph launch (rocpd_graphLaunchapi) on 'Graphs <q>'; QueueDepth and Idle\n"
    "counters per GPU; every rocpd_monitor series; UserMarker ranges projected\n"
    "onto the GPU queues they launched work on ('Markers <q>').  Slices nest\n"
    "strictly on every track, as Perfetto requires.",
  .quiet = "do not print the summary line",
  .notes =
    "A file above 2 GB gets a warning: the Perfetto UI loads about 2 GB.\n"
    "\n"
    "Environment: RPD2TRACING_THREADS=2 (two workers; default one),\n"
    "RPD2TRACING_DIRECT=0 (OUT written through the page cache, not with\n"
    "O_DIRECT), RPD_GZIP_LEVEL (default 6).\n",
};

typedef struct opts {
  const char *in, *out, *start, *end;
  int array, quiet, proto, format_set, abs_us;
  int64_t split;            /* --split N, 0: not given */
  int64_t max_size;         /* --max-size, 0: not given */
} opts;

static int on_format(void *ctx, const char *name, const char *val, char *msg, size_t msgsz) {
  opts *o = ctx;
  (void)name;
  o->format_set = 1;
  o->array = !strcmp(val, "array");
  o->proto = !strcmp(val, "proto");
  if (o->array || o->proto || !strcmp(val, "object") || !strcmp(val, "json")) return 0;
  snprintf(msg, msgsz, "--format must be 'object', 'array', 'json' or 'proto', not '%s'", val);
  return 2;
}

static int parse_args(int argc, char **argv, opts *o) {
  const rpd_opt table[] = {
    RPD_OPT_STRING("--start", &o->start, .arg = "T",
                   .help = "keep events starting in [start, end].  T is a bare number of ms "
                           "from the first api call (as every tool: docs/time.md), a number "
                           "with a unit (ns, us, ms, s), +T from the first api call, -T back "
                           "from the last, or N% of the trace span"),
    RPD_OPT_STRING("--end", &o->end, .arg = "T", .help = "(see --start)"),
    RPD_OPT_FLAG("--abs-us", &o->abs_us,
                 .help = "a bare --start/--end number is an absolute timestamp in "
                         "microseconds, as the reference rpd2tracing.py"),
    RPD_OPT_CALL("--format", on_format, o, .arg = "F",
                 .help = "object: JSON {\"traceEvents\": [...]} (default; also 'json')\n"
                         "array: JSON, a bare [...] array\n"
                         "proto: Perfetto protobuf (the default for .pftrace OUT)"),
    RPD_OPT_I64("--split", &o->split, 1, 100000,
                "--split must be a number of files from 1 to 100000, not '%s'",
                .help = "write N files of consecutive equal time windows, OUT.0001.json, "
                        "OUT.0002.json, ..."),
    RPD_OPT_SIZE("--max-size", &o->max_size, "--max-size must be a size like 500M or 2G, not '%s'",
                 .help = "write consecutive time windows, each file at most SIZE bytes "
                         "(suffix K, M or G: powers of 1024), named as with --split; a "
                         "window that cannot shrink below SIZE (one instant of events) is "
                         "kept with a warning"),
    RPD_OPT_END(),
  };
  if (rpd_cli_init_opts(argc, argv, &help, table)) return -1;
  int rc = rpd_cli_options(table, 0, &argc, argv);
  if (rc) return rc;
  o->quiet = rpd_quiet;
  if (argc > 2) return rpd_usage_error("unexpected argument '%s'", argv[2]);
  o->in = argc > 0 ? argv[0] : NULL;
  o->out = argc > 1 ? argv[1] : NULL;
  if (!o->in) return rpd_usage_error("missing FILE");
  if (o->split && o->max_size) return rpd_usage_error("--split and --max-size exclude each other");
  return 0;
}

/* FILE with .gz dropped and its last suffix replaced by ext; caller frees. */
static char *default_out(const char *in, const char *ext) {
  size_t n = strlen(in);
  const char *base = strrchr(in, '/');
  base = base ? base + 1 : in;
  if (n > 3 && !strcmp(in + n - 3, ".gz") && in + n - 3 > base) n -= 3;
  for (size_t i = n; i > (size_t)(base - in) + 1; i--)
    if (in[i - 1] == '.') { n = i - 1; break; }
  return rpd_xasprintf("%.*s%s", (int)n, in, ext);
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && !strcmp(s + a - b, suffix);
}

/* Resolve --start/--end text to ns with the common resolver (docs/time.md:
 * a bare number is ms from the first api call; with --abs-us an absolute
 * timestamp in microseconds, as the reference). */
static int resolve_time(const char *opt, const char *text, int abs_us, int64_t first,
                        int64_t last, int64_t *ns) {
  int mode = abs_us ? RPD_TIMEOPT_ABS_US : RPD_TIMEOPT_DEFAULT;
  if (rpd_timeopt_resolve_mode(text, mode, first, last, ns) != RPD_OK)
    return rpd_usage_error("%s: %s", opt, rpd_errmsg());
  return 0;
}

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
    int level = 6;
    int gfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);   /* the pipe's own; fd stays the sink's */
    if (lv && lv[0] >= '0' && lv[0] <= '9' && !lv[1]) level = lv[0] - '0';
    s->gz = gfd >= 0 ? gzpipe_open(gfd, level) : NULL;
    if (!s->gz) {
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
  sink_try_direct(s);
  return 0;
}

/* Flush and close the sink; rename into place when ok.  Returns exit code. */
int close_sink(sink *s, const char *out, int ok) {
  int failed = !ok, err = 0;
  if (ok) sink_flush(s);
  else sink_stop(s);
  failed |= s->failed;
  if (s->failed) err = s->err;
  if (s->prealloc == 1) {   /* drop what was allocated ahead */
    off_t end = lseek(s->fd, 0, SEEK_CUR);
    if (end < 0 || ftruncate(s->fd, end) != 0) { failed = 1; if (!err) err = errno; }
  }
  if (s->gz && gzpipe_close(s->gz, &err) != 0) failed = 1;
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

/* The writer OUT asks for: --format, else its suffix. */
static const writer *writer_for(const opts *o, const char *out) {
  if (o->format_set) return o->proto ? &proto_writer : &json_writer;
  return ends_with(out, ".pftrace") || ends_with(out, ".pftrace.gz") ||
                 ends_with(out, ".perfetto-trace") || ends_with(out, ".perfetto-trace.gz")
             ? &proto_writer
             : &json_writer;
}

/* Where the part number goes in OUT: before its known suffix (.json,
 * .pftrace, ... and a further .gz), else at the end. */
static size_t stem_len(const char *out) {
  static const char *const exts[] = {".json", ".pftrace", ".perfetto-trace"};
  size_t n = strlen(out);
  if (n > 3 && !strcmp(out + n - 3, ".gz")) n -= 3;
  for (size_t i = 0; i < sizeof exts / sizeof *exts; i++) {
    size_t e = strlen(exts[i]);
    if (n > e && !strncmp(out + n - e, exts[i], e)) return n - e;
  }
  return strlen(out);
}

/* OUT with part number k: trace.json -> trace.0003.json; caller frees. */
static char *part_name(const char *out, int64_t k) {
  size_t n = stem_len(out);
  return rpd_xasprintf("%.*s.%04lld%s", (int)n, out, (long long)k, out + n);
}

#define WARN_BYTES ((int64_t)2 << 30)

/* The size above which a file gets the warning: 2 GiB, or
 * RPD2TRACING_WARN_BYTES (for the tests). */
static int64_t warn_bytes(void) {
  const char *e = getenv("RPD2TRACING_WARN_BYTES");
  return e && *e ? strtoll(e, NULL, 10) : WARN_BYTES;
}

/* 1 when the rows' times are checked by the scans (row_times) rather than
 * by rpd_check_trace's scan at open: a whole-file conversion, whose scans
 * read every row of rocpd_api and rocpd_op before their times are used.
 * With --start/--end/--split/--max-size the span and windows are computed
 * from the times first: those open checked. */
static int checks_on_the_way(const opts *o) {
  return !o->start && !o->end && !o->split && !o->max_size;
}

/* Convert the events starting in [lo, hi] into out (t_end: where the
 * counters end; from_scans: the scans find it); *bytes is its size before
 * compression.  Returns the exit code. */
static int write_one(conv *c, conv *cb, const opts *o, const char *out, int64_t lo, int64_t hi,
                     int64_t t_end, int from_scans, int64_t *bytes) {
  rpd *r = c->r;
  int rc, ret;
  memset(c, 0, sizeof *c);
  memset(cb, 0, sizeof *cb);
  c->r = r;
  c->db = rpd_db(r);
  c->args_table = rpd_args_table(r);
  c->lo = lo;
  c->hi = hi;
  c->t_end = t_end;
  c->t_from_scans = from_scans;
  c->w = writer_for(o, out);
  c->check_rows = cb->check_rows = checks_on_the_way(o);
  if ((ret = open_sink(&c->out, out, o->in))) return ret;
  c->w->begin(&c->out, o->array);
  rc = convert_sections(c, cb);
  c->w->finish(&c->out, o->array);
  free(c->gpus);
  c->gpus = NULL;
  if (rc != RPD_OK && (c->bad_row || cb->bad_row) && rpd_check_trace(r) != RPD_OK) {
    rpd_fail("cannot read '%s': %s", o->in, rpd_errmsg());   /* as rpd_open_or_report */
    close_sink(&c->out, out, 0);
    return 1;
  }
  if (rc != RPD_OK) {
    rpd_fail("cannot read '%s': %s", o->in, c->err);
    close_sink(&c->out, out, 0);
    return 1;
  }
  if ((ret = close_sink(&c->out, out, 1))) return ret;
  *bytes = c->out.total + cb->out.total;
  if (!o->quiet)
    printf("%s: %lld events: %lld ops, %lld api calls, %lld marks, %lld flows,"
           " %lld hsa, %lld graph launches, %lld marker frames, %lld counter points\n",
           out, (long long)(c->out.nevents + cb->out.nevents - 1), (long long)c->n_op,
           (long long)c->n_api, (long long)c->n_instant, (long long)(c->n_flow + cb->n_flow),
           (long long)c->n_hsa, (long long)c->n_graph, (long long)cb->n_frame,
           (long long)(c->n_counter + cb->n_counter));
  if (*bytes > warn_bytes() && !o->max_size)
    fprintf(stderr, "rpd2tracing: warning: '%s' is %.1f GB, more than the Perfetto UI loads"
            " (about 2 GB): use --max-size 2G, --split N or a .pftrace OUT\n",
            out, (double)*bytes / (1 << 30));
  return 0;
}

/* The first and last start of any api call, op or monitor sample. */
static int start_range(rpd *r, int64_t *lo, int64_t *hi, int64_t *rows) {
  sqlite3_stmt *st = NULL;
  int mon = rpd_table_exists(r, "rocpd_monitor"), s;
  int rc = rpd_prepare(r, mon
      ? "SELECT min(a), max(b), sum(n) FROM (SELECT min(start) a, max(start) b, count(*) n FROM rocpd_api"
        " UNION ALL SELECT min(start), max(start), 3 * count(*) FROM rocpd_op"
        " UNION ALL SELECT min(start), max(start), count(*) FROM rocpd_monitor)"
      : "SELECT min(a), max(b), sum(n) FROM (SELECT min(start) a, max(start) b, count(*) n FROM rocpd_api"
        " UNION ALL SELECT min(start), max(start), 3 * count(*) FROM rocpd_op)", &st);
  if (rc == RPD_OK && (s = rpd_step(r, st)) != SQLITE_ROW) rc = s < 0 ? -s : RPD_ERR;
  if (rc == RPD_OK) {
    *lo = sqlite3_column_int64(st, 0);
    *hi = sqlite3_column_int64(st, 1);
    *rows = sqlite3_column_int64(st, 2);
  }
  sqlite3_finalize(st);
  return rc;
}

/* A time window [lo, hi] still to write. */
typedef struct window { int64_t lo, hi; } window;

/* --split / --max-size: consecutive windows of [lo, hi], one file each,
 * numbered in time order.  With --max-size, a window whose file is too
 * big is removed and written again as two halves. */
static int write_windows(conv *c, conv *cb, const opts *o, const char *out, int64_t lo,
                         int64_t hi, int64_t rows) {
  window *stack;
  size_t n = 0, cap;
  int64_t parts = o->split, k = 0, bytes = 0;
  int ret = 0;
  if (!parts) {   /* a first guess: ~150 bytes of JSON per row, ~25 of protobuf */
    double per = writer_for(o, out) == &proto_writer ? 25 : 150;
    parts = (int64_t)((double)rows * per / (double)o->max_size) + 1;
  }
  if (parts > hi - lo + 1) parts = hi - lo + 1;
  if (parts < 1) parts = 1;
  cap = (size_t)parts + 64;
  stack = rpd_xmalloc(cap * sizeof *stack);
  /* pushed last window first: the top is the earliest */
  for (int64_t i = parts; i-- > 0;) {
    int64_t a = lo + (int64_t)((double)(hi - lo + 1) * (double)i / (double)parts);
    int64_t b = lo + (int64_t)((double)(hi - lo + 1) * (double)(i + 1) / (double)parts) - 1;
    if (i == parts - 1) b = hi;
    stack[n++] = (window){a, b};
  }
  while (n && !ret) {
    window w = stack[--n];
    char *name = part_name(out, k + 1);
    ret = write_one(c, cb, o, name, w.lo, w.hi, w.hi, 0, &bytes);
    if (!ret && o->max_size && bytes > o->max_size && w.hi > w.lo) {
      unlink(name);
      if (n + 2 > cap) stack = rpd_xrealloc(stack, (cap *= 2) * sizeof *stack);
      int64_t mid = w.lo + (w.hi - w.lo) / 2;
      stack[n++] = (window){mid + 1, w.hi};
      stack[n++] = (window){w.lo, mid};
    } else if (!ret) {
      if (o->max_size && bytes > o->max_size)
        fprintf(stderr, "rpd2tracing: warning: '%s' is over --max-size: its events all start"
                " at one instant\n", name);
      k++;
    }
    free(name);
  }
  free(stack);
  if (!ret && !o->quiet) printf("%s: %lld files\n", out, (long long)k);
  return ret;
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
  /* a rocprofv3 database or Kineto trace is read as it is, through
   * rpd-import's reader into memory, with every row rpd-import writes (the
   * events carry the calls' arguments) */
  static const rpdi_direct direct = { .lean = 0 };
  rpd_set_import_reader(rpdi_direct_read, (void *)&direct);
  if ((ret = parse_args(argc, argv, &o))) return ret < 0 ? rpd_cli_status() : ret;
  out = o.out ? rpd_xstrdup(o.out) : default_out(o.in, o.proto ? ".pftrace" : ".json");
  if (same_file(o.in, out)) {
    ret = rpd_usage_error("output '%s' is the input file", out);
    goto done;
  }
  if (rpd_open_or_report(&c.r, o.in, NULL, RPD_READ | (checks_on_the_way(&o) ? 0 : RPD_CHECKED)) !=
      RPD_OK) {
    ret = 1;
    goto done;
  }
  c.args_table = rpd_args_table(c.r);
  c.db = rpd_db(c.r);
  /* every scan is sequential: a small page cache keeps memory flat */
  rpd_profile(c.r, RPD_OPEN_SCAN);
  c.t_from_scans = !o.start && !o.end;
  if ((rc = trace_span(c.r, !c.t_from_scans, &first, &last, &c.t_end)) != RPD_OK) {
    ret = rpd_fail("cannot read '%s': %s", o.in, rpd_errmsg());
    goto done;
  }
  c.lo = INT64_MIN;
  c.hi = INT64_MAX;
  if (o.start && (ret = resolve_time("--start", o.start, o.abs_us, first, last, &c.lo))) goto done;
  if (o.end && (ret = resolve_time("--end", o.end, o.abs_us, first, last, &c.hi))) goto done;
  if (c.lo > c.hi) {
    ret = rpd_usage_error("--start is after --end");
    goto done;
  }
  if (o.end) c.t_end = c.hi;
  if (o.split || o.max_size) {
    int64_t lo, hi, rows;
    if (start_range(c.r, &lo, &hi, &rows) != RPD_OK) {
      ret = rpd_fail("cannot read '%s': %s", o.in, rpd_errmsg());
      goto done;
    }
    if (c.lo > lo) lo = c.lo;
    if (c.hi < hi) hi = c.hi;
    if (hi < lo) hi = lo;
    ret = write_windows(&c, &cb, &o, out, lo, hi, rows);
  } else {
    int64_t bytes;
    ret = write_one(&c, &cb, &o, out, c.lo, c.hi, c.t_end, c.t_from_scans, &bytes);
  }
done:
  if (c.r) rpd_close(c.r, 0);
  free(out);
  return ret;
}

