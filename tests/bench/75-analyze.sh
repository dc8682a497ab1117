#!/bin/sh
# tests/bench/75-analyze.sh - rpd-analyze at 1x ($BENCH_ROWS/4 api rows) and
# 4x ($BENCH_ROWS) on generated traces: secs, rows/s, peak RSS, the 4x/1x
# time ratio (linear: about 4) and RSS growth (flat: about 1), against the
# SQLite floor: the op/api join and the sorted scan of the GPU work; then
# raptor --report of the analysed 4x trace (its analysis_* tables).
. "$(cd "$(dirname "$0")" && pwd)/../benchlib.sh"
q_rows=$((BENCH_ROWS / 4))
t1=$(bench_trace "synth-$q_rows" --seed 1 --api "$q_rows" --gpus 2) ||
  { echo "BENCH analyze FAILED (rpd-synth)"; exit 1; }
t4=$(bench_trace "synth-$BENCH_ROWS" --seed 1 --api "$BENCH_ROWS" --gpus 2) ||
  { echo "BENCH analyze FAILED (rpd-synth)"; exit 1; }
w="$BENCHDIR/analyze-work.rpd"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "inf" }'; }

measure "analyze-floor(sql, 4x)" "$BENCH_ROWS" sqlite3 "$t4" \
  "SELECT count(*), total(A.start) FROM rocpd_api_ops X JOIN rocpd_api A ON A.id = X.api_id;
   SELECT total(s) FROM (SELECT gpuId, start AS s, \"end\" FROM rocpd_op ORDER BY gpuId, start, \"end\");"
floor=$MEASURED_SECS
fresh "$t1" "$w"
measure "rpd-analyze(1x)" "$q_rows" rpd-analyze "$w" || exit 1
s1=$MEASURED_SECS; r1=$_rss
fresh "$t4" "$w"
measure "rpd-analyze(4x)" "$BENCH_ROWS" rpd-analyze "$w" || exit 1
s4=$MEASURED_SECS; r4=$_rss
rm -rf "$BENCHDIR/report-analysis"
measure "raptor --report with analysis_*(4x)" "$BENCH_ROWS" raptor "$w" --report -q \
  --csv-dir "$BENCHDIR/report-analysis" --html "$BENCHDIR/report-analysis.html" || exit 1
rm -rf "$BENCHDIR/report-analysis" "$BENCHDIR/report-analysis.html"
echo "BENCH rpd-analyze linearity: 4x the rows takes $(ratio "$s4" "$s1")x the time; peak_rss_kb 1x=$r1 4x=$r4 growth=$(ratio "$r4" "$r1")x"
echo "BENCH rpd-analyze floor secs=$floor ratio=$(ratio "$s4" "$floor")"
rm -f "$w"
