#!/bin/sh
# python: rpdtools.RaptorParser(t).get_kernelseq_df() (the C engine in
# process, lib/librptor.so) against the reference RaptorParser of
# ROCm/rocmProfileData (pandas + scipy) on the same trace in the same run:
# elapsed seconds and peak RSS of each whole interpreter (imports included).
# Goal (issue 14): >= 10x faster at <= 1/5 of the peak memory.  Each side
# runs BENCH_PY_RUNS times (default 3); the fastest run and the largest peak
# RSS count (the machine is shared: the fastest run is the least disturbed).
# BENCH_PY_ROWS api rows (default 1440000); RAPTOR_PARSER_PY=/path/to/
# raptor_parser.py selects the reference, else it is taken from the
# rocmProfileData mirror into $BENCHDIR (never part of this repo).
# Two times per side: the whole interpreter (python start, pandas import,
# the call) and the call itself, RaptorParser(t).get_kernelseq_df() timed
# inside the process after the imports (call_secs).
. "$(cd "$(dirname "$0")" && pwd)/../benchlib.sh"
: "${BENCHDIR:=/tmp/rpdtools-bench}"; mkdir -p "$BENCHDIR"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
rows=${BENCH_PY_ROWS:-1440000}
PY=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c "import pandas" >/dev/null 2>&1; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "BENCH python skipped (needs python3 with pandas)"; exit 0; }
t=$(bench_trace "synth-$rows-g2" --seed 3 --api "$rows" --gpus 2) || { echo "BENCH python FAILED (rpd-synth)"; exit 1; }
ops=$(sqlite3 "$t" "SELECT count(*) FROM rocpd_op")
calls=$(sqlite3 "$t" "SELECT count(*) FROM rocpd_api")

# the timed program: $1 = module of RaptorParser, $2 = trace, $3 = file for
# the call's seconds
CALL='import sys, time, importlib, pandas
RP = importlib.import_module(sys.argv[1]).RaptorParser
t0 = time.perf_counter()
n = len(RP(sys.argv[2]).get_kernelseq_df())
open(sys.argv[3], "w").write("%.3f %d" % (time.perf_counter() - t0, n))'
min2() { awk -v a="$1" -v b="$2" 'BEGIN{ print (b == "" || a + 0 < b + 0) ? a : b }'; }

# best LABEL MODULE: run CALL $BENCH_PY_RUNS times; BEST_SECS, BEST_CALL =
# the fastest whole run and call, BEST_KB = the largest peak RSS
best() {
  _l=$1
  BEST_SECS=""; BEST_CALL=""; BEST_KB=0; _i=0
  while [ "$_i" -lt "${BENCH_PY_RUNS:-3}" ]; do
    measure "$_l" "$ops" "$PY" -c "$CALL" "$2" "$t" "$BENCHDIR/.call" || return 1
    read -r _c _rows <"$BENCHDIR/.call"
    BEST_SECS=$(min2 "$MEASURED_SECS" "$BEST_SECS"); BEST_CALL=$(min2 "$_c" "$BEST_CALL")
    [ "$_rss" -gt "$BEST_KB" ] 2>/dev/null && BEST_KB=$_rss
    _i=$((_i + 1))
  done
  echo "BENCH $_l best secs=$BEST_SECS call_secs=$BEST_CALL peak_rss_kb=$BEST_KB kernelseq_rows=$_rows"
}

export RPDTOOLS_LIB="$RPD_LIB"
PYTHONPATH="$ROOT/python" best "python RaptorParser.get_kernelseq_df (rpdtools, $calls calls)" rpdtools || exit 1
ours_s=$BEST_SECS; ours_c=$BEST_CALL; ours_kb=$BEST_KB

ref=${RAPTOR_PARSER_PY:-}
mirror=/work/.mirror/ROCm+rocmProfileData/repo
if [ -z "$ref" ] && [ -d "$mirror" ]; then
  mkdir -p "$BENCHDIR/raptor-ref"
  for f in raptor_parser.py raptor_cat_vllm.json; do
    git -C "$mirror" show "HEAD:raptor/$f" >"$BENCHDIR/raptor-ref/$f" 2>/dev/null
  done
  ref=$BENCHDIR/raptor-ref/raptor_parser.py
fi
if [ -z "$ref" ] || [ ! -s "$ref" ] || ! "$PY" -c 'import pandas, scipy' 2>/dev/null; then
  echo "BENCH python reference skipped (needs pandas+scipy and RAPTOR_PARSER_PY or the mirror)"
  exit 0
fi
PYTHONPATH="$(dirname "$ref")" best "python RaptorParser.get_kernelseq_df (reference)" raptor_parser || exit 0
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.1f", a/b; else print "inf" }'; }
echo "BENCH python speedup vs reference: call $(ratio "$BEST_CALL" "$ours_c")x (goal >= 10x), whole interpreter $(ratio "$BEST_SECS" "$ours_s")x"
echo "BENCH python peak memory vs reference: 1/$(awk -v a="$BEST_KB" -v b="$ours_kb" 'BEGIN{ if (b > 0) printf "%.1f", a/b; else print "?" }') (goal <= 1/5)"
