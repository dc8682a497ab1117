#!/bin/sh
# Kineto traces against the Python tools their users run, on the same file
# in the same run: (1) TraceLens's trace loading (TreePerfAnalyzer.from_file:
# JSON load + call tree) and HTA's (TraceAnalysis: JSON load + DataFrames)
# against rpd-import; (2) TraceLens's perf report
# (generate_perf_report_pytorch.py --enable_kernel_summary
# --short_kernel_study) against rpd-import + rpd-perfmodel + raptor --report,
# and against the one command that does the three in memory (raptor
# TRACE.json.gz --report: no RPD file written).
# CPU seconds (user + sys) and peak RSS of the whole process, interpreter
# start included, since that is what a user pays.
#
# The file of (2): $KINETO_PEER_REPORT_TRACE, else TraceLens's MI300 Qwen
# trace (../shared) and the issue's MI300 owlv2-large one (61 MB of JSON,
# from the TraceLens mirror with git show).
# The file of (1): $KINETO_PEER_TRACE, else the largest shared Kineto trace
# (/work/shared/traces/kineto/hta_trace_diff_control_control.json.gz, 35 MB
# of JSON); skipped without one.
# The peers: $TRACELENS_SRC / $HTA_SRC (a checkout: the directory holding
# TraceLens/ or hta/), else extracted from the mirrors under /work/.mirror
# into $BENCHDIR; run with $PEER_PYTHON (default /usr/bin/python3, which
# needs pandas, tqdm, tabulate, openpyxl, matplotlib, networkx, plotly,
# psutil: all Debian packages).  A peer that cannot run is skipped with the
# reason printed.
. "$(cd "$(dirname "$0")" && pwd)/../benchlib.sh"
py=${PEER_PYTHON:-/usr/bin/python3}
f=${KINETO_PEER_TRACE:-/work/shared/traces/kineto/hta_trace_diff_control_control.json.gz}
[ -s "$f" ] || { echo "BENCH kineto peers skipped: no trace (set KINETO_PEER_TRACE)"; exit 0; }
case $f in *.gz) mb=$(gzip -dc "$f" | wc -c) ;; *) mb=$(wc -c <"$f") ;; esac
mb=$(awk -v b="$mb" 'BEGIN{printf "%.1f", b / 1e6}')
echo "BENCH kineto peers: $f ($mb MB of JSON)"

# peer_src NAME MIRROR DIR: print a directory holding DIR (from $NAME_SRC,
# else git archive of the mirror into $BENCHDIR/peer-NAME), or nothing
peer_src() {
  _d="$BENCHDIR/peer-$1"
  if [ ! -d "$_d/$3" ] && [ -d "$2" ]; then
    mkdir -p "$_d" && git -C "$2" archive HEAD "$3" 2>/dev/null | tar x -C "$_d" 2>/dev/null
  fi
  [ -d "$_d/$3" ] && echo "$_d"
}
tl=${TRACELENS_SRC:-$(peer_src tracelens /work/.mirror/AMD-AGI+TraceLens/repo TraceLens)}
hta=${HTA_SRC:-$(peer_src hta /work/.mirror/facebookresearch+HolisticTraceAnalysis/repo hta)}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.1f", a / b; else print "?" }'; }
rss_of() { echo "$1" | sed -n 's/.*peak_rss_kb=\([0-9]*\).*/\1/p'; }

# (1) loading
# m LABEL CMD...: measure, its line in $line and on stdout (MEASURED_* kept:
# no subshell)
m() {
  measure "$@" >"$BENCHDIR/.peer.$$"; _rc=$?
  line=$(cat "$BENCHDIR/.peer.$$"); rm -f "$BENCHDIR/.peer.$$"
  return $_rc
}
m "kineto load: rpd-import" 0 rpd-import -q --force "$f" "$BENCHDIR/peer.rpd" || { echo "$line"; exit 0; }
echo "$line"
c_imp=$MEASURED_CPU; r_imp=$(rss_of "$line")
peer() { # LABEL SRC VAR IMPORT RUN: PEER_PYTHON running RUN with SRC on sys.path
  if [ -z "$2" ]; then echo "BENCH $1 skipped: source not found (set $3)"; return 1; fi
  if ! _e=$("$py" -c "import sys; sys.path.insert(0, sys.argv[1]); $4" "$2" 2>&1); then
    echo "BENCH $1 skipped: $py cannot import it: $(echo "$_e" | tail -1)"; return 1
  fi
  m "$1" 0 "$py" -c "import sys; sys.path.insert(0, sys.argv[1]); $5" "$2" "$f" ||
    { echo "BENCH $1 skipped: $(echo "$line" | tail -c 200)"; return 1; }
  echo "$line"
  echo "BENCH $1 vs rpd-import: $(ratio "$MEASURED_CPU" "$c_imp")x the CPU, $(ratio "$(rss_of "$line")" "$r_imp")x the peak RSS"
}
peer "kineto load: TraceLens TreePerfAnalyzer.from_file" "$tl" "TRACELENS_SRC" "from TraceLens import TreePerfAnalyzer" \
  "from TraceLens import TreePerfAnalyzer; TreePerfAnalyzer.from_file(sys.argv[2])"
hdir="$BENCHDIR/peer-hta-trace"
rm -rf "$hdir" && mkdir -p "$hdir" && ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$hdir/rank0.json${f##*.json}"
peer "kineto load: HTA TraceAnalysis" "$hta" "HTA_SRC" "from hta.trace_analysis import TraceAnalysis" \
  "from hta.trace_analysis import TraceAnalysis; TraceAnalysis(trace_dir='$hdir')"

# (2) TraceLens's perf report against import + perfmodel + report, on
# $KINETO_PEER_REPORT_TRACE, else TraceLens's own MI300 Qwen trace (its
# report stops on the HTA traces: "No GPU events found", their kernels not
# linked to a launch by ac2g flows; with --include_unlinked_kernels a
# KeyError in get_df_kernel_launchers_summary) and the issue's 61 MB MI300
# owlv2-large trace, taken from the TraceLens mirror into $BENCHDIR.
# report_vs_tracelens FILE TAG: TAG names the trace in the labels
report_vs_tracelens() {
  f=$1 k="kineto report ($2)"
  if [ ! -s "$f" ]; then
    echo "BENCH kineto report vs TraceLens skipped: no trace $f (set KINETO_PEER_REPORT_TRACE)"
    return 0
  fi
  if [ -z "$tl" ] || [ ! -s "$tl/TraceLens/Reporting/generate_perf_report_pytorch.py" ]; then
    echo "BENCH kineto report vs TraceLens skipped: TraceLens source not found (set TRACELENS_SRC)"
    return 0
  fi
  echo "BENCH $k vs TraceLens: $f"
  rm -f "$BENCHDIR/peer-r.rpd"
  m "$k: rpd-import" 0 rpd-import -q "$f" "$BENCHDIR/peer-r.rpd" &&
    c1=$MEASURED_CPU && l1=$line &&
    m "$k: rpd-perfmodel" 0 rpd-perfmodel "$BENCHDIR/peer-r.rpd" &&
    c2=$MEASURED_CPU && l2=$line &&
    m "$k: raptor --report" 0 raptor "$BENCHDIR/peer-r.rpd" --report -q --csv-dir "$BENCHDIR/peer-rcsv" &&
    c3=$MEASURED_CPU && l3=$line || { echo "$line"; return 0; }
  printf '%s\n%s\n%s\n' "$l1" "$l2" "$l3"
  sum=$(awk -v a="$c1" -v b="$c2" -v c="$c3" 'BEGIN{printf "%.2f", a + b + c}')
  rss=$(printf '%s\n%s\n%s\n' "$(rss_of "$l1")" "$(rss_of "$l2")" "$(rss_of "$l3")" | sort -n | tail -1)
  # the three again under one shell, timed once: each tool's figure is
  # rounded to 10 ms, which is 10% of ours on the Qwen trace
  rm -f "$BENCHDIR/peer-r2.rpd"
  ours=$sum
  if m "$k: ours, the three in one shell" 0 sh -c \
      'rpd-import -q "$1" "$2" && rpd-perfmodel -q "$2" && raptor "$2" --report -q --csv-dir "$3"' \
      sh "$f" "$BENCHDIR/peer-r2.rpd" "$BENCHDIR/peer-rcsv2"; then
    echo "$line"
    ours=$MEASURED_CPU
  fi
  echo "BENCH $k: ours (import + perfmodel + report) cpu_secs=$ours (sum of the three: $sum) peak_rss_kb=$rss"
  # the one command: the trace read into memory (rpd-import's reader, the
  # model run there); its CSVs are the chain's
  one=
  if m "$k: ours, one command (raptor TRACE --report)" 0 raptor "$f" --report -q \
      --csv-dir "$BENCHDIR/peer-rcsv3"; then
    echo "$line"
    one=$MEASURED_CPU one_wall=$MEASURED_SECS one_rss=$(rss_of "$line")
    if diff -r "$BENCHDIR/peer-rcsv" "$BENCHDIR/peer-rcsv3" >/dev/null 2>&1; then
      echo "BENCH $k: one command: the same CSV files as the chain"
    else
      echo "BENCH $k: one command: CSV files DIFFER from the chain's"
    fi
  fi
  rm -rf "$BENCHDIR/peer-tlcsv"
  if m "$k: TraceLens generate_perf_report_pytorch" 0 env PYTHONPATH="$tl" "$py" \
      "$tl/TraceLens/Reporting/generate_perf_report_pytorch.py" --profile_json_path "$f" \
      --output_csvs_dir "$BENCHDIR/peer-tlcsv" --enable_kernel_summary --short_kernel_study; then
    echo "$line"
    echo "BENCH $k vs TraceLens: $(ratio "$MEASURED_CPU" "$ours")x faster in CPU, $(ratio "$(rss_of "$line")" "$rss")x less peak RSS (target >= 20x, >= 5x)"
    # TraceLens runs on one thread: its wall is about its CPU; the one
    # command may use a second core (the import's writer thread, inflate),
    # so its wall and CPU ratios are both shown
    [ -z "$one" ] || echo "BENCH $k one command vs TraceLens: $(ratio "$MEASURED_CPU" "$one")x faster in CPU, $(ratio "$MEASURED_SECS" "$one_wall")x in wall (TraceLens wall $MEASURED_SECS s, ours $one_wall s), $(ratio "$(rss_of "$line")" "$one_rss")x less peak RSS"
  else
    echo "BENCH $k: TraceLens skipped: $(echo "$line" | tail -c 200)"
  fi
  rm -rf "$BENCHDIR/peer-r.rpd" "$BENCHDIR/peer-rcsv" "$BENCHDIR/peer-tlcsv" "$BENCHDIR/peer-r2.rpd" \
    "$BENCHDIR/peer-rcsv2" "$BENCHDIR/peer-rcsv3"
}
if [ -n "${KINETO_PEER_REPORT_TRACE:-}" ]; then
  report_vs_tracelens "$KINETO_PEER_REPORT_TRACE" "$(basename "$KINETO_PEER_REPORT_TRACE")"
else
  report_vs_tracelens /work/shared/traces/kineto/tracelens_mi300_Qwen_Qwen1.5-0.5B-Chat__1016005/trace.json.gz qwen
  owl="$BENCHDIR/peer-owlv2.json.gz"
  owl_path=tests/traces/mi300/google_owlv2-large-patch14-ensemble__1016001.json.gz
  [ -s "$owl" ] || git --git-dir=/work/.mirror/AMD-AGI+TraceLens/repo show "HEAD:$owl_path" \
    >"$owl" 2>/dev/null || rm -f "$owl"
  report_vs_tracelens "$owl" owlv2
fi
rm -rf "$BENCHDIR/peer.rpd" "$hdir"
