#!/bin/sh
# python: rpdtools.RaptorParser(t).get_kernelseq_df() (the C engine in
# process, lib/librptor.so) against the reference RaptorParser of
# ROCm/rocmProfileData (pandas + scipy) on the same trace, in the same run.
# Goal (issue 14): >= 10x faster at <= 1/5 of the peak memory.
#
# Two figures per side, each the MEDIAN of BENCH_PY_RUNS runs (default 5;
# ours and the reference alternate, so both see the same machine load):
#  (a) call:  RaptorParser(t) + get_kernelseq_df(), timed inside one
#             interpreter after the imports (pandas and the module imported
#             first, not timed): wall seconds and the process's CPU seconds
#             of the call;
#  (b) whole: the whole interpreter, `python3 -c "import M;
#             M.RaptorParser(t).get_kernelseq_df()"` as a user would run it
#             (start, imports, call, exit): wall and CPU (user+sys) seconds
#             from /usr/bin/time, and its peak RSS (the largest of the runs).
# BENCH_PY_ROWS api rows (default 1440000); RAPTOR_PARSER_PY=/path/to/
# raptor_parser.py selects the reference, else it is taken from the
# rocmProfileData mirror into $BENCHDIR (never part of this repo).
. "$(cd "$(dirname "$0")" && pwd)/../benchlib.sh"
: "${BENCHDIR:=/tmp/rpdtools-bench}"; mkdir -p "$BENCHDIR"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
rows=${BENCH_PY_ROWS:-1440000}
runs=${BENCH_PY_RUNS:-5}
PY=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c "import pandas" >/dev/null 2>&1; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "BENCH python skipped (needs python3 with pandas)"; exit 0; }
t=$(bench_trace "synth-$rows-g2" --seed 3 --api "$rows" --gpus 2) || { echo "BENCH python FAILED (rpd-synth)"; exit 1; }
ops=$(sqlite3 "$t" "SELECT count(*) FROM rocpd_op")
calls=$(sqlite3 "$t" "SELECT count(*) FROM rocpd_api")

# (a): $1 = module of RaptorParser, $2 = trace, $3 = result file
# ("WALL CPU ROWS" of the call)
CALL='import sys, time, importlib, pandas
RP = importlib.import_module(sys.argv[1]).RaptorParser
w, c = time.perf_counter(), time.process_time()
n = len(RP(sys.argv[2]).get_kernelseq_df())
open(sys.argv[3], "w").write("%.3f %.3f %d" % (time.perf_counter() - w, time.process_time() - c, n))'
# (b): $1 = module, $2 = trace
WHOLE='import sys, importlib
importlib.import_module(sys.argv[1]).RaptorParser(sys.argv[2]).get_kernelseq_df()'

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
  ref=""
fi
export RPDTOOLS_LIB="$RPD_LIB"
OURS_PATH="$ROOT/python"; REF_PATH=${ref:+$(dirname "$ref")}

# one SIDE (ours|ref) run: (a) then (b); appends "a_wall a_cpu b_wall b_cpu
# rss_kb rows" to $BENCHDIR/.py.SIDE
one() {
  if [ "$1" = ours ]; then _m=rpdtools; _pp=$OURS_PATH; _l="rpdtools"
  else _m=raptor_parser; _pp=$REF_PATH; _l="reference"; fi
  PYTHONPATH="$_pp" "$PY" -c "$CALL" "$_m" "$t" "$BENCHDIR/.call" >/dev/null 2>"$BENCHDIR/.err" ||
    { echo "BENCH python RaptorParser ($_l) FAILED: $(head -c 300 "$BENCHDIR/.err")"; return 1; }
  read -r _aw _ac _ks <"$BENCHDIR/.call"
  PYTHONPATH="$_pp" measure "python whole ($_l)" "$ops" "$PY" -c "$WHOLE" "$_m" "$t" \
    >"$BENCHDIR/.measure" || { cat "$BENCHDIR/.measure"; return 1; }
  echo "BENCH python run $((i + 1)) ($_l): (a) call secs=$_aw cpu_secs=$_ac; (b) whole secs=$MEASURED_SECS cpu_secs=$MEASURED_CPU peak_rss_kb=$_rss; kernelseq_rows=$_ks"
  echo "$_aw $_ac $MEASURED_SECS $MEASURED_CPU $_rss $_ks" >>"$BENCHDIR/.py.$1"
}

# col N FILE [max]: the median (or the max) of column N of FILE
col() {
  if [ "${3:-}" = max ]; then awk -v c="$1" 'NR == 1 || $c + 0 > m + 0 { m = $c } END { print m }' "$2"; return; fi
  awk -v c="$1" '{ print $c }' "$2" | sort -n | awk '{ v[NR] = $1 } END {
    if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.1f", a/b; else print "inf" }'; }

rm -f "$BENCHDIR/.py.ours" "$BENCHDIR/.py.ref"
i=0
while [ "$i" -lt "$runs" ]; do
  one ours || exit 1
  if [ -n "$ref" ]; then one ref || ref=""; fi
  i=$((i + 1))
done
# the medians, as table lines (tests/bench.sh): (a) and (b) of one side
summary() {
  f=$BENCHDIR/.py.$1
  echo "BENCH python (a) call, median of $runs ($2) rows=$ops secs=$(col 1 "$f") cpu_secs=$(col 2 "$f")"
  echo "BENCH python (b) whole, median of $runs ($2) rows=$ops secs=$(col 3 "$f") cpu_secs=$(col 4 "$f") peak_rss_kb=$(col 5 "$f" max)"
}
echo "BENCH python trace: $calls api calls, $ops ops, $(col 6 "$BENCHDIR/.py.ours") kernelseq rows"
summary ours "rpdtools"
[ -n "$ref" ] || exit 0
summary ref "reference"
o=$BENCHDIR/.py.ours; r=$BENCHDIR/.py.ref
echo "BENCH python speedup vs reference (medians, goal >= 10x): (a) call $(ratio "$(col 1 "$r")" "$(col 1 "$o")")x wall, $(ratio "$(col 2 "$r")" "$(col 2 "$o")")x cpu; (b) whole interpreter $(ratio "$(col 3 "$r")" "$(col 3 "$o")")x wall, $(ratio "$(col 4 "$r")" "$(col 4 "$o")")x cpu"
echo "BENCH python peak memory vs reference (whole interpreter, goal <= 1/5): 1/$(ratio "$(col 5 "$r" max)" "$(col 5 "$o" max)")"
[ "$(col 6 "$r")" = "$(col 6 "$o")" ] || echo "BENCH python kernelseq rows differ: ours $(col 6 "$o"), reference $(col 6 "$r")"
