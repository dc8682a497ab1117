#!/bin/sh
# rpd-merge + raptor --by-rank + raptor --report (its byrank_* tables) on
# 16 generated ranks (rpd-synth --ranks 16),
# with the scaling from 4 to 8 to 16 ranks (time and peak RSS should grow
# linearly and stay flat).  Default: 40,000 api rows per rank (about 1.6M
# rows in all tables together); BENCH_BIG=1: 450,000 per rank (7.2M api +
# 3.2M op rows, over 10M in api+op, about 18M rows in all tables).
. "$(cd "$(dirname "$0")" && pwd)/../benchlib.sh"
: "${BENCHDIR:=/tmp/rpdtools-bench}"
per=${BENCH_RANK_API:-40000}
[ "${BENCH_BIG:-0}" = 1 ] && per=450000
ranks=""
for r in $(seq 0 15); do
  f=$(bench_trace "rank-$per-$r" --ranks 16 --rank "$r" --api "$per") ||
    { echo "BENCH merge FAILED (rpd-synth rank $r)"; exit 1; }
  ranks="$ranks $f"
done
# rows: every row of the tables rpd-merge copies
rows_of() {
  n=0
  for f in "$@"; do
    n=$((n + $(sqlite3 "$f" "SELECT (SELECT count(*) FROM rocpd_api) + (SELECT count(*) FROM rocpd_op)
      + (SELECT count(*) FROM rocpd_api_ops) + (SELECT count(*) FROM rocpd_kernelapi)
      + (SELECT count(*) FROM rocpd_copyapi) + (SELECT count(*) FROM rocpd_monitor)
      + (SELECT count(*) FROM rocpd_string) + (SELECT count(*) FROM rocpd_ustring)")))
  done
  echo $n
}
out=$BENCHDIR/merged-$per.rpd
for n in 4 8 16; do
  set -- $ranks
  sel=""
  i=0
  for f in "$@"; do [ $i -lt $n ] && sel="$sel $f"; i=$((i + 1)); done
  rows=$(rows_of $sel)
  rm -f "$out"
  # shellcheck disable=SC2086
  measure "rpd-merge($n ranks x $per api)" "$rows" rpd-merge -q -o "$out" $sel || exit 1
  echo "BENCH merge scaling ranks=$n rows=$rows secs=$MEASURED_SECS us/row=$(awk -v s="$MEASURED_SECS" -v r="$rows" 'BEGIN{printf "%.3f", s*1e6/r}')"
done
ops=$(sqlite3 "$out" "SELECT count(*) FROM rocpd_op")
measure "raptor --by-rank(16 ranks)" "$ops" raptor "$out" --by-rank --top 0
measure "raptor --by-rank --save(16 ranks)" "$ops" raptor "$out" --by-rank --top 0 --save
rm -rf "$BENCHDIR/report-ranks"
measure "raptor --report with byrank_*(16 ranks)" "$ops" raptor "$out" --report -q \
  --csv-dir "$BENCHDIR/report-ranks"
rm -rf "$BENCHDIR/report-ranks"
measure "rpd-diff(rank 0 vs rank 8)" "$ops" rpd-diff --rank-a 0 --rank-b 8 "$out" "$out"
rm -f "$out"
