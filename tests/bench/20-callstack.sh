#!/bin/sh
# rpd-callstack / rpd-autograd / rpd-strings on a generated trace of
# $BENCH_ROWS api rows (schema 3), against the SQLite floor of the call
# stack: the bare read query rpd-callstack streams (common/callstack.c
# read_sql, same cache size) plus inserting the same ext_callstack rows with
# one INSERT ... SELECT.  With RPD_REF_PYTHON=<dir holding the reference's
# rocpd package> the reference modules are timed on the same trace too
# (never part of the repository; see docs/rpd-callstack.md).
. "$(cd "$(dirname "$0")" && pwd)/../benchlib.sh"

t=$(bench_trace "cs-$BENCH_ROWS" --seed 1 --api "$BENCH_ROWS" --schema 3) || exit 1
w="$BENCHDIR/cs-work.rpd"

fresh "$t" "$w"
measure rpd-callstack "$BENCH_ROWS" rpd-callstack "$w" || exit 1
tool=$MEASURED_SECS
rows=$(sqlite3 "$w" "SELECT count(*) FROM ext_callstack")
echo "BENCH rpd-callstack ext_callstack rows=$rows"

cat >"$BENCHDIR/cs-read.sql" <<'EOF'
PRAGMA cache_size=-65536;
CREATE TEMP TABLE _rpd_gpu_time(api_id INTEGER PRIMARY KEY, gpu_time INTEGER NOT NULL);
INSERT INTO temp._rpd_gpu_time SELECT A.api_id, sum(B.end - B.start)
  FROM rocpd_api_ops A JOIN rocpd_op B ON B.id = A.op_id GROUP BY A.api_id ORDER BY A.api_id;
SELECT count(*), total(gpu_time) FROM (SELECT X.pid, X.tid, X.id, X.start, X.end, G.gpu_time
  FROM rocpd_api X LEFT JOIN temp._rpd_gpu_time G ON G.api_id = X.id
  ORDER BY X.start, X.end DESC, X.id LIMIT -1);
EOF
cat >"$BENCHDIR/cs-insert.sql" <<'EOF'
PRAGMA cache_size=-65536;
BEGIN;
CREATE TABLE floor_callstack ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "parent_id" integer NOT NULL REFERENCES "rocpd_api" ("id") DEFERRABLE INITIALLY DEFERRED, "child_id" integer NOT NULL REFERENCES "rocpd_api" ("id") DEFERRABLE INITIALLY DEFERRED, "depth" integer NOT NULL, "cpu_time" integer NOT NULL DEFAULT 0, "gpu_time" integer NOT NULL DEFAULT 0);
INSERT INTO floor_callstack SELECT * FROM ext_callstack;
COMMIT;
EOF
run_sql='sqlite3 "$1" <"$2"'
measure "floor-read" "$BENCH_ROWS" sh -c "$run_sql" sh "$t" "$BENCHDIR/cs-read.sql" || exit 1
fr=$MEASURED_SECS
measure "floor-insert" "$rows" sh -c "$run_sql" sh "$w" "$BENCHDIR/cs-insert.sql" || exit 1
fi=$MEASURED_SECS
awk -v t="$tool" -v a="$fr" -v b="$fi" 'BEGIN { printf "BENCH rpd-callstack floor secs=%.2f ratio=%.2f\n", a + b, t / (a + b) }'

fresh "$t" "$w"
measure rpd-autograd "$BENCH_ROWS" rpd-autograd "$w" || exit 1
ag=$MEASURED_SECS
measure "rpd-strings --dedupe" "$BENCH_ROWS" rpd-strings "$w" --dedupe || exit 1

if [ -n "$RPD_REF_PYTHON" ] && [ -d "$RPD_REF_PYTHON/rocpd" ]; then
  fresh "$t" "$w"
  measure "reference-call_stacks" "$BENCH_ROWS" \
    env PYTHONPATH="$RPD_REF_PYTHON" /usr/bin/python3 -m rocpd.call_stacks "$w" || exit 1
  awk -v t="$tool" -v r="$MEASURED_SECS" 'BEGIN { printf "BENCH rpd-callstack speedup vs reference=%.1fx\n", r / t }'
  fresh "$t" "$w"
  measure "reference-autograd" "$BENCH_ROWS" \
    env PYTHONPATH="$RPD_REF_PYTHON" /usr/bin/python3 -m rocpd.autograd "$w" || exit 1
  awk -v t="$ag" -v r="$MEASURED_SECS" 'BEGIN { printf "BENCH rpd-autograd speedup vs reference=%.1fx\n", r / t }'
fi
rm -f "$w"
