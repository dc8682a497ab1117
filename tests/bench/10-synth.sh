#!/bin/sh
# tests/bench/10-synth.sh - rpd-synth at $BENCH_ROWS api rows (v3 and v2),
# and rpd-schema --info / --upgrade on the result.
. "$(cd "$(dirname "$0")" && pwd)/../benchlib.sh"
out="$BENCHDIR/synth-bench"
rm -f "$out.v3.rpd" "$out.v2.rpd" "$out.up.rpd"
measure "rpd-synth(v3)" "$BENCH_ROWS" rpd-synth --seed 1 --api "$BENCH_ROWS" -o "$out.v3.rpd"
measure "rpd-synth(v2)" "$BENCH_ROWS" rpd-synth --seed 1 --api "$BENCH_ROWS" --schema 2 -o "$out.v2.rpd"
# the floor: SQLite inserting the same number of bare rows in one transaction
measure "sqlite-floor(insert)" "$BENCH_ROWS" sqlite3 "$out.floor.rpd" \
  "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; CREATE TABLE t(id INTEGER PRIMARY KEY, a, b, c, d, e, f);
   WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $BENCH_ROWS)
   INSERT INTO t SELECT i, i, i, i, i, i, i FROM n;"
rm -f "$out.floor.rpd"
measure "rpd-schema --info" "$BENCH_ROWS" rpd-schema --info "$out.v3.rpd"
measure "rpd-schema --upgrade" "$BENCH_ROWS" rpd-schema --upgrade "$out.v2.rpd" -o "$out.up.rpd"
rm -f "$out.v3.rpd" "$out.v2.rpd" "$out.up.rpd"
