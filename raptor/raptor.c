/* raptor.c - kernel sequences, categories, gaps, variability, outliers,
 * op/instance traces and ROI over an RPD trace (the C raptor).
 *
 * Memory model: one compact record per op in the ROI (48 bytes), the
 * distinct kernel names, one tuple + statistics record per distinct kernel
 * sequence key.  Statistics are exact two-pass sums over the op array; the
 * op trace is written op by op from that array.  See docs/raptor.md.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#include "catfile.h"
#include "check.h"
#include "rpd.h"
#include "report.h"
#include "kstats.h"
#include "byrank.h"
#include "raptor.h"
#include "util/num.h"

static const char usage[] =
"usage: raptor FILE[.gz] [options]\n"
"Summarize the GPU ops of an RPD trace: kernel sequences, categories, idle\n"
"gaps, variability, outliers, op traces.  No table option = -k -c -v.\n"
"\n"
"Tables:\n"
"  -c, --categorize             category table\n"
"  -C, --category-json FILE     categories: {\"NAME\": [\"regex\", ...], ...}; the\n"
"                               LAST matching category wins (default: built in,\n"
"                               the same as raptor/categories.json)\n"
"  -l, --category-latency-ns N  move calls*N ns of every category to _Latency\n"
"  -v, --variability            variability by communication (_COMM or\n"
"                               _Collective) / other kernels\n"
"  -k, --kernelseq, --top       kernel sequences sorted by total duration\n"
"      --kernelseq-len N, --prekernel-seq N\n"
"                               preceding kernels in a sequence key (default 2;\n"
"                               0 = kernel name only)\n"
"      --gaps US...             idle-gap buckets in us (default 10 20 50 100\n"
"                               1000 10000 100000)\n"
"  -z, --zscore_threshold Z     ops with |zscore| >= Z are outliers, left out\n"
"                               of the statistics (default -1 = off)\n"
"      --gpu-summary            per-GPU busy, idle, leading/trailing idle\n"
"Traces:\n"
"  -o, --op-trace               one line per op\n"
"      --op-trace-file FILE     write the op/instance trace to FILE\n"
"  -W, --op-trace-cmd-width N   kernel name width in traces (0 = all)\n"
"  -i, --instance-trace N       every op of kernelseq row N (negative: from the\n"
"                               end), sorted by duration\n"
"Region of interest (time 0 = first api start):\n"
"  -s, --roi-start T            123.45 (ms), 123.45ms, 123450ns, .12345s,\n"
"  -e, --roi-end T              +10ms, -8ms (from the end), 50%, or a kernel\n"
"                               regex (its first op's start)\n"
"      --auto-roi, --auto-roi-top\n"
"                               ROI = first..last start of the hottest sequence\n"
"      --roi-trim               cut leading/trailing idle time (all GPUs busy)\n"
"      --gpu-id N               only this GPU (default -1 = all)\n"
"Ops: GPU work = kernels (KernelExecution, graph-replayed Task) and copies\n"
"(docs/schema.md \"Op classes\"); an op without a description is named by\n"
"its opType (CopyDeviceToDevice, ...).\n"
"      --reference-ops          the reference raptor's ops instead:\n"
"                               KernelExecution, Task, CopyDeviceToDevice,\n"
"                               named by description only, and its tables,\n"
"                               which leave out the first --kernelseq-len\n"
"                               ops (default: every op is counted)\n"
"Output:\n"
"      --format F               table (default), csv or json; csv is ONE\n"
"                               table per stream: select one table\n"
"      --csv-dir DIR            write DIR/<table>.csv, one file per selected\n"
"                               table (categories, variability, gpus,\n"
"                               kernelseq, op_trace, instances), no stdout\n"
"      --display-cols N         width of kernel names in tables (default 60)\n"
"      --display-rows N         rows shown per table (default 500)\n"
"      --float-digits N         digits after '.' in tables (default 1)\n"
"  -x, --write-xls              write FILE.xlsx: info (trace, ROI, options,\n"
"                               units), kernelseq, pretty kernelseq, category,\n"
"                               variability; formatted numbers, fitted widths,\n"
"                               frozen header, filter, charts\n"
"      --write-xls-op-trace     also the op trace (implies -x)\n"
"      --save                   store the results as ext_raptor_* tables in the\n"
"                               trace (replaced on each run)\n"
"      --report ...             the rocprofv3-style report: options below\n"
"      --by-rank ...            cross-rank analysis of a merged trace (raptor FILE\n"
"                               --by-rank --help)\n"
"  -q, --quiet                  no progress line, no Timestamps block\n"
"      --csv-raw                CSV cells as they are (default: a text that\n"
"                               starts with = + - @ TAB CR gets a leading ')\n"
"      --version                print the rpdtools version\n";

static const int default_gaps[] = {10, 20, 50, 100, 1000, 10000, 100000};


/* ------------------------------------------------------------ options */

enum {
  O_CAT = 1, O_CATJSON, O_LAT, O_VAR, O_KSEQ, O_KSEQLEN, O_GAPS, O_Z, O_OPTRACE,
  O_OPFILE, O_WIDTH, O_INST, O_RSTART, O_REND, O_AUTO, O_TRIM, O_GPU, O_DCOLS,
  O_DROWS, O_FDIG, O_XLS, O_XLSOP, O_FORMAT, O_SAVE, O_GPUSUM, O_REFOPS, O_CSVDIR,
};

static const struct opt {
  const char *name;
  char shrt;
  int arg;
  int id;
} opts[] = {
  {"categorize", 'c', 0, O_CAT}, {"category-json", 'C', 1, O_CATJSON},
  {"category-latency-ns", 'l', 1, O_LAT}, {"variability", 'v', 0, O_VAR},
  {"kernelseq", 'k', 0, O_KSEQ}, {"top", 0, 0, O_KSEQ}, {"kernelseq-len", 0, 1, O_KSEQLEN},
  {"prekernel-seq", 0, 1, O_KSEQLEN}, {"gaps", 0, 2, O_GAPS},
  {"zscore_threshold", 'z', 1, O_Z}, {"zscore-threshold", 0, 1, O_Z},
  {"op-trace", 'o', 0, O_OPTRACE}, {"op-trace-file", 0, 1, O_OPFILE},
  {"op-trace-cmd-width", 'W', 1, O_WIDTH}, {"instance-trace", 'i', 1, O_INST},
  {"roi-start", 's', 1, O_RSTART}, {"roi-end", 'e', 1, O_REND},
  {"auto-roi-top", 0, 0, O_AUTO}, {"auto-roi", 0, 0, O_AUTO}, {"roi-trim", 0, 0, O_TRIM},
  {"gpu-id", 0, 1, O_GPU}, {"display-cols", 0, 1, O_DCOLS},
  {"display-rows", 0, 1, O_DROWS}, {"float-digits", 0, 1, O_FDIG},
  {"write-xls", 'x', 0, O_XLS}, {"write-xls-op-trace", 0, 0, O_XLSOP},
  {"format", 0, 1, O_FORMAT}, {"save", 0, 0, O_SAVE},
  {"gpu-summary", 0, 0, O_GPUSUM}, {"reference-ops", 0, 0, O_REFOPS},
  {"csv-dir", 0, 1, O_CSVDIR},
};
#define NOPTS ((int)(sizeof opts / sizeof *opts))

static int parse_int(const char *s, int *v, int lo)
{
  int64_t x;
  if (rpd_parse_i64_range(s, lo, INT32_MAX, &x)) return -1;
  *v = (int)x;
  return 0;
}

static int int_cmp(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static int apply_opt(raptor *R, const struct opt *o, const char *val)
{
  int64_t x;
  switch (o->id) {
  case O_CAT: R->categorize = 1; break;
  case O_CATJSON: R->cat_file = val; break;
  case O_LAT:
    /* ns per call: 0 .. 2^62 (a sane time; calls x N is bounded by the
     * categories' own durations after the analysis, latency_bound) */
    if (rpd_parse_i64(val, &R->latency_ns) || R->latency_ns < 0 ||
        R->latency_ns >= RPD_TIME_LIMIT)
      return rpd_usage_error("bad --category-latency-ns '%s' (ns per call, 0 .. 2^62)", val);
    break;
  case O_VAR: R->variability = 1; break;
  case O_KSEQ: R->kernelseq = 1; break;
  case O_KSEQLEN:
    if (parse_int(val, &R->seqlen, 0) || R->seqlen > 1000)
      return rpd_usage_error("bad --kernelseq-len '%s' (0..1000)", val);
    break;
  case O_Z: {
    char *end;
    R->zthr = strtod(val, &end);
    if (!*val || *end || isnan(R->zthr))
      return rpd_usage_error("bad --zscore_threshold '%s'", val);
    break;
  }
  case O_OPTRACE: R->op_trace = 1; break;
  case O_OPFILE: R->op_file = val; break;
  case O_WIDTH:
    if (parse_int(val, &R->op_width, 0))
      return rpd_usage_error("bad --op-trace-cmd-width '%s'", val);
    break;
  case O_INST:
    if (rpd_parse_i64(val, &R->instance))
      return rpd_usage_error("bad --instance-trace '%s'", val);
    R->have_instance = 1;
    break;
  case O_RSTART: R->roi_start_s = val; break;
  case O_REND: R->roi_end_s = val; break;
  case O_AUTO: R->auto_roi = 1; break;
  case O_TRIM: R->roi_trim = 1; break;
  case O_GPU:
    if (rpd_parse_i64(val, &x) || x < -1 || x > INT32_MAX)
      return rpd_usage_error("bad --gpu-id '%s'", val);
    R->gpu_id = x;
    break;
  case O_DCOLS:
    if (parse_int(val, &R->display_cols, 0))
      return rpd_usage_error("bad --display-cols '%s'", val);
    break;
  case O_DROWS:
    if (parse_int(val, &R->display_rows, 0))
      return rpd_usage_error("bad --display-rows '%s'", val);
    break;
  case O_FDIG:
    if (parse_int(val, &R->float_digits, 0) || R->float_digits > 17)
      return rpd_usage_error("bad --float-digits '%s' (0..17)", val);
    break;
  case O_XLS: R->write_xls = 1; break;
  case O_XLSOP: R->xls_op_trace = R->write_xls = 1; break;
  case O_FORMAT:
    if (rpd_fmt_parse(val, &R->fmt) != RPD_OK)
      return rpd_usage_error("bad --format '%s' (table, csv, json)", val);
    break;
  case O_SAVE: R->save = 1; break;
  case O_GPUSUM: R->gpu_summary = 1; break;
  case O_REFOPS: R->reference_ops = 1; break;
  case O_CSVDIR:
    if (!*val) return rpd_usage_error("empty --csv-dir");
    R->csv_dir = val;
    break;
  }
  return 0;
}

static const struct opt *find_long(const char *name, size_t len, int *ambiguous)
{
  const struct opt *hit = NULL;
  *ambiguous = 0;
  for (int i = 0; i < NOPTS; i++)
    if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0)
      return &opts[i];
  for (int i = 0; i < NOPTS; i++) {
    if (strncmp(opts[i].name, name, len) != 0) continue;
    if (hit && hit->id != opts[i].id) { *ambiguous = 1; return NULL; }
    hit = &opts[i];
  }
  return hit;
}

/* --gaps takes one or more integers */
static int take_gaps(raptor *R, int argc, char **argv, int *i, const char *first)
{
  free(R->gaps);
  R->gaps = NULL;
  R->ngaps = 0;
  int64_t x;
  const char *v = first;
  for (;;) {
    if (!v) {
      if (*i + 1 >= argc || rpd_parse_i64(argv[*i + 1], &x)) break;
      v = argv[++*i];
    }
    if (rpd_parse_i64(v, &x) || x <= 0 || x > INT32_MAX / 2)
      return rpd_usage_error("bad --gaps value '%s' (positive us)", v);
    R->gaps = rpd_xrealloc(R->gaps, (R->ngaps + 1) * sizeof *R->gaps);
    R->gaps[R->ngaps++] = (int)x;
    v = NULL;
  }
  if (!R->ngaps) return rpd_usage_error("--gaps needs at least one value");
  qsort(R->gaps, R->ngaps, sizeof *R->gaps, int_cmp);
  int k = 1;
  for (int j = 1; j < R->ngaps; j++)
    if (R->gaps[j] != R->gaps[k - 1]) R->gaps[k++] = R->gaps[j];
  R->ngaps = k;
  return 0;
}

int parse_args(raptor *R, int argc, char **argv)
{
  int nomore = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!nomore && strcmp(a, "--") == 0) { nomore = 1; continue; }
    if (!nomore && rpd_cli_quiet_opt(a)) continue;   /* rpd_cli_init set rpd_quiet */
    if (!nomore && rpd_cli_csv_raw_opt(a)) continue;
    if (nomore || a[0] != '-' || a[1] == 0) {
      if (R->path) return rpd_usage_error("unexpected argument '%s'", a);
      R->path = a;
      continue;
    }
    rpd_buf_printf(&R->optstr, "%s%s", R->optstr.len ? " " : "", a);
    if (a[1] == '-') {
      const char *eq = strchr(a + 2, '=');
      size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
      int amb;
      const struct opt *o = find_long(a + 2, len, &amb);
      if (amb) return rpd_usage_error("ambiguous option '%.*s'", (int)len + 2, a);
      if (!o) return rpd_usage_error("unknown option '%.*s'", (int)len + 2, a);
      if (o->arg == 0) {
        if (eq) return rpd_usage_error("option '--%s' takes no value", o->name);
        if (apply_opt(R, o, NULL)) return 2;
      } else if (o->arg == 2) {
        int rc = take_gaps(R, argc, argv, &i, eq ? eq + 1 : NULL);
        if (rc) return rc;
      } else {
        const char *v = eq ? eq + 1 : NULL;
        if (!v) {
          if (i + 1 >= argc) return rpd_usage_error("option '--%s' needs a value", o->name);
          v = argv[++i];
          rpd_buf_printf(&R->optstr, " %s", v);
        }
        if (apply_opt(R, o, v)) return 2;
      }
      continue;
    }
    for (const char *p = a + 1; *p; p++) {
      const struct opt *o = NULL;
      for (int j = 0; j < NOPTS; j++)
        if (opts[j].shrt == *p) o = &opts[j];
      if (!o) return rpd_usage_error("unknown option '-%c'", *p);
      if (!o->arg) {
        if (apply_opt(R, o, NULL)) return 2;
        continue;
      }
      const char *v = p[1] ? p + 1 : NULL;
      if (v && *v == '=') v++;
      if (!v) {
        if (i + 1 >= argc) return rpd_usage_error("option '-%c' needs a value", *p);
        v = argv[++i];
        rpd_buf_printf(&R->optstr, " %s", v);
      }
      if (apply_opt(R, o, v)) return 2;
      break;
    }
  }
  if (!R->path) return rpd_usage_error("missing FILE");
  return 0;
}

/* ------------------------------------------------------------ main */

/* The option defaults (no gaps yet: make_gap_labels sets them). */
void raptor_init(raptor *R)
{
  memset(R, 0, sizeof *R);
  R->seqlen = 2;
  R->zthr = -1;
  R->gpu_id = -1;
  R->display_cols = 60;
  R->display_rows = 500;
  R->float_digits = 1;
  R->fmt = RPD_FMT_TABLE;
}

void raptor_free(raptor *R)
{
  category_list_free(R->cats, R->ncats);
  free(R->catname);
  for (size_t i = 0; i < R->nnames; i++) free(R->names[i]);
  free(R->names);
  free(R->name_cat);
  free(R->cat_error);
  free(R->name_slots.v);
  free(R->ops);
  if (R->opfile) fclose(R->opfile);
  R->opfile = NULL;
  free(R->keyk);
  free(R->ks);
  free(R->key_slots.v);
  free(R->rows);
  if (R->gap_labels)
    for (int i = 0; i <= R->ngaps; i++) free(R->gap_labels[i]);
  free(R->gap_labels);
  free(R->crows);
  free(R->grows);
  free(R->gaps);
  rpd_buf_free(&R->optstr);
}

/* The default --gaps when none were given, then the gap row labels. */
void make_gap_labels(raptor *R)
{
  if (!R->gaps) {
    R->ngaps = (int)(sizeof default_gaps / sizeof *default_gaps);
    R->gaps = rpd_xmalloc(sizeof default_gaps);
    memcpy(R->gaps, default_gaps, sizeof default_gaps);
  }
  int n = R->ngaps;
  R->gap_labels = rpd_xcalloc(n + 1, sizeof *R->gap_labels);
  R->gap_labels[0] = rpd_xasprintf("GAP <=%dus", R->gaps[0]);
  for (int i = 1; i < n; i++)
    R->gap_labels[i] = rpd_xasprintf("GAP %dus-%dus", R->gaps[i - 1], R->gaps[i]);
  R->gap_labels[n] = rpd_xasprintf("GAP >%dus", R->gaps[n - 1]);
}

/* The trace check (rpd_check_trace's rule and messages), with rocpd_api's
 * half folded into the engine: rocpd_op is checked here by its own scan
 * (the engine can report an ROI problem before it reads the ops), rocpd_api
 * in setup_roi's time-zero scan (*fold), which comes before any message of
 * the engine's and stops it silently at a bad row; main then reports it.
 * When rocpd_op has bad rows, rocpd_api is checked at once, and its
 * message wins as in rpd_check_trace.  RPD_OK or the check's error (its
 * message in rpd_errmsg()). */
static int check_ops_first(raptor *R, fold_check *fold)
{
  memset(fold, 0, sizeof *fold);
  fold->op_done = 1;   /* checked here: the engine's op scans need not */
  if (rpd_check_table(R->r, "rocpd_op", 1, NULL) == RPD_OK) return RPD_OK;
  char *op_msg = rpd_xstrdup(rpd_errmsg());
  int rc = rpd_check_table(R->r, "rocpd_api", 0, NULL);
  if (rc == RPD_OK) rc = rpd_seterr(RPD_ERANGE, "%s", op_msg);
  free(op_msg);
  return rc;
}

int main(int argc, char **argv)
{
  /* one binary, two names (as toybox): bin/rpd-budget is a link to raptor */
  const char *base = strrchr(argv[0], '/');
  if (!strcmp(base ? base + 1 : argv[0], "rpd-budget")) return raptor_budget_main(argc, argv);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) break;
    if (strcmp(argv[i], "--report") == 0) return raptor_report_main(argc, argv);
    if (strcmp(argv[i], "--format") == 0 && i + 1 < argc && raptor_kstats_format(argv[i + 1])) return raptor_kstats_main(argc, argv);
    if (strcmp(argv[i], "--by-rank") == 0) return raptor_byrank_main(argc, argv);
  }
  /* --help lists the report's options too (one text, in report.c) */
  char *help = rpd_xasprintf("%s\n%s", usage, raptor_report_usage);
  int done = rpd_cli_init(argc, argv, help);
  free(help);
  if (done) return rpd_cli_status();
  raptor R;
  raptor_init(&R);
  fold_check fold;
  int saved = 0;
  int ret = parse_args(&R, argc, argv);
  if (ret) goto done;
  make_gap_labels(&R);
  if (!R.op_trace && !R.kernelseq && !R.categorize && !R.have_instance &&
      !R.write_xls && !R.variability && !R.gpu_summary) {
    if (R.fmt == RPD_FMT_TABLE)
      printf("info: setting --kernelseq --categorize --variability\n");
    R.kernelseq = R.categorize = R.variability = 1;
  }
  {
    const char *names[8];
    int nt;
    if (R.fmt == RPD_FMT_CSV && !R.csv_dir && stdout_tables(&R, names, &nt) > 1) {
      ret = rpd_usage_error("--format csv writes one table per stream and %d are selected"
                            " (%s, %s%s): select one, or write one file per table with"
                            " --csv-dir DIR", nt, names[0], names[1], nt > 2 ? ", ..." : "");
      goto done;
    }
  }
  if ((ret = categories_load(&R))) goto done;
  if (rpd_open_or_report(&R.r, R.path, NULL, R.save ? RPD_WRITE : RPD_READ) != RPD_OK) {
    ret = 1;
    goto done;
  }
  /* the work is sequential scans: a small page cache keeps the RSS down,
   * set before the trace check fills it; --save keeps the library's 64 MB
   * for its inserts */
  if (rpd_exec(R.r, "PRAGMA cache_size=-4096") != RPD_OK || check_ops_first(&R, &fold) != RPD_OK ||
      (R.save && rpd_exec(R.r, "PRAGMA cache_size=-65536") != RPD_OK)) {
    ret = rpd_fail("cannot read '%s': %s", R.path, rpd_errmsg());
    goto done;
  }
  if ((ret = check_outputs(&R))) goto done;
  R.fold = &fold;
  ret = setup_roi(&R);
  R.fold = NULL;
  if (fold.api_done && rpd_check_rows_result(&fold.api, "rocpd_api") != RPD_OK) {
    ret = rpd_fail("cannot read '%s': %s", R.path, rpd_errmsg());   /* the engine stopped silently */
    goto done;
  }
  if (ret) goto done;
  if (R.have_instance && !instance_row(&R)) {  /* refuse before saving */
    ret = 1;
    goto done;
  }
  if (R.save) {
    if (save_results(&R) == RPD_OK) {
      saved = 1;
    } else {
      ret = rpd_fail("cannot save results into '%s': %s", R.path, rpd_errmsg());
      goto done;
    }
  }
  ret = R.csv_dir ? write_csv_dir(&R) : print_all(&R);
  if (!ret && R.write_xls) ret = write_xls(&R);
  if (!ret && saved) ret = rpd_fail_committed(R.path);   /* stdout rule */
done:
  if (R.r) {
    if (rpd_close(R.r, saved) != RPD_OK && saved && !ret)
      ret = rpd_fail("cannot write '%s': %s", R.path, rpd_errmsg());
  }
  raptor_free(&R);
  return ret;
}
