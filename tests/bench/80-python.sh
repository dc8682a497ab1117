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

# best LABEL CMD...: measure CMD $BENCH_PY_RUNS times; BEST_SECS = the
# fastest, BEST_KB = the largest peak RSS
best() {
  _l=$1; shift
  BEST_SECS=""; BEST_KB=0; _i=0
  while [ "$_i" -lt "${BENCH_PY_RUNS:-3}" ]; do
    measure "$_l" "$ops" "$@" || return 1
    BEST_SECS=$(awk -v a="$MEASURED_SECS" -v b="$BEST_SECS" 'BEGIN{ print (b == "" || a < b) ? a : b }')
    [ "$_rss" -gt "$BEST_KB" ] 2>/dev/null && BEST_KB=$_rss
    _i=$((_i + 1))
  done
  echo "BENCH $_l best secs=$BEST_SECS peak_rss_kb=$BEST_KB"
}

export RPDTOOLS_LIB="$RPD_LIB"
PYTHONPATH="$ROOT/python" best "python RaptorParser.get_kernelseq_df (rpdtools, $calls calls)" \
  "$PY" -c "import sys, rpdtools; print(len(rpdtools.RaptorParser(sys.argv[1]).get_kernelseq_df()))" "$t" || exit 1
ours_s=$BEST_SECS
ours_kb=$BEST_KB

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
PYTHONPATH="$(dirname "$ref")" best "python RaptorParser.get_kernelseq_df (reference)" \
  "$PY" -c "import sys; from raptor_parser import RaptorParser; print(len(RaptorParser(sys.argv[1]).get_kernelseq_df()))" "$t" || exit 0
echo "BENCH python speedup vs reference: $(awk -v a="$BEST_SECS" -v b="$ours_s" 'BEGIN{ if (b > 0) printf "%.1fx", a/b; else print "inf" }') (goal >= 10x)"
echo "BENCH python peak memory vs reference: 1/$(awk -v a="$BEST_KB" -v b="$ours_kb" 'BEGIN{ if (b > 0) printf "%.1f", a/b; else print "?" }') (goal <= 1/5)"
