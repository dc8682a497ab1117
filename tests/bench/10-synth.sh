#!/bin/sh
# tests/bench/10-synth.sh - rpd-synth at $BENCH_ROWS api rows (v3 and v2),
# then rpd-schema --info and --upgrade on the result.  The floor is SQLite
# itself inserting $BENCH_ROWS bare 7-integer rows in one transaction
# (rpd-synth writes ~2.9 rows per api row across six tables, plus strings).
. "$(cd "$(dirname "$0")" && pwd)/../benchlib.sh"
out="$BENCHDIR/synth-bench"
rm -f "$out.v3.rpd" "$out.v2.rpd" "$out.up.rpd" "$out.floor.rpd"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "inf" }'; }

measure "sqlite-floor(insert)" "$BENCH_ROWS" sqlite3 "$out.floor.rpd" \
  "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; CREATE TABLE t(id INTEGER PRIMARY KEY, a, b, c, d, e, f);
   WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $BENCH_ROWS)
   INSERT INTO t SELECT i, i, i, i, i, i, i FROM n;" || exit 1
floor=$MEASURED_SECS
rm -f "$out.floor.rpd"
measure "rpd-synth(v3)" "$BENCH_ROWS" rpd-synth --seed 1 --api "$BENCH_ROWS" -o "$out.v3.rpd" &&
  echo "BENCH rpd-synth(v3) floor secs=$floor ratio=$(ratio "$MEASURED_SECS" "$floor")"
measure "rpd-synth(v2)" "$BENCH_ROWS" rpd-synth --seed 1 --api "$BENCH_ROWS" --schema 2 -o "$out.v2.rpd" &&
  echo "BENCH rpd-synth(v2) floor secs=$floor ratio=$(ratio "$MEASURED_SECS" "$floor")"
# --info: its floor is the two scans it needs
measure "sqlite-floor(info scans)" "$BENCH_ROWS" sqlite3 "$out.v3.rpd" \
  'SELECT gpuId, count(*), min(start), max("end") FROM rocpd_op GROUP BY gpuId;
   SELECT count(DISTINCT pid), count(DISTINCT tid), min(start), max("end") FROM rocpd_api;'
floor=$MEASURED_SECS
measure "rpd-schema --info" "$BENCH_ROWS" rpd-schema --info "$out.v3.rpd" &&
  echo "BENCH rpd-schema --info floor secs=$floor ratio=$(ratio "$MEASURED_SECS" "$floor")"
measure "rpd-schema --upgrade" "$BENCH_ROWS" rpd-schema --upgrade "$out.v2.rpd" -o "$out.up.rpd"
rm -f "$out.v3.rpd" "$out.v2.rpd" "$out.up.rpd"
