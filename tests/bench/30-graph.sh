#!/bin/sh
# rpd-graph, rpd-subclass, rpd-trim on a generated trace with $BENCH_ROWS api
# rows (8 graphs), against the SQLite floor: the bare scans rpd-graph needs
# (api rows by name, kernel launches joined to their calls).
. "$(cd "$(dirname "$0")" && pwd)/../benchlib.sh"
t=$(bench_trace "synth-$BENCH_ROWS-graphs8" --seed 1 --api "$BENCH_ROWS" --gpus 2 --graphs 8) ||
  { echo "BENCH graph FAILED (rpd-synth)"; exit 1; }
w="$BENCHDIR/graph-work.rpd"
measure "graph-floor(sql)" "$BENCH_ROWS" sqlite3 "$t" \
  "SELECT count(*) FROM rocpd_api WHERE apiName_id IN (SELECT id FROM rocpd_string WHERE string LIKE 'hip%Graph%' OR string LIKE 'hip%Capture');
   SELECT count(*) FROM rocpd_api WHERE apiName_id IN (SELECT id FROM rocpd_string WHERE string = 'hipGraphLaunch');
   SELECT count(*), max(A.\"end\") FROM rocpd_kernelapi K JOIN rocpd_api A ON A.id = K.api_ptr_id"
floor=$MEASURED_SECS
fresh "$t" "$w"; measure "rpd-graph" "$BENCH_ROWS" rpd-graph "$w"
echo "BENCH rpd-graph floor secs=$floor ratio=$(awk -v a="$MEASURED_SECS" -v b="$floor" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "inf" }')"
fresh "$t" "$w"; measure "rpd-subclass(hipGraphLaunch)" "$BENCH_ROWS" rpd-subclass "$w" --name launch --events hipGraphLaunch
fresh "$t" "$w"; measure "rpd-trim(10%..90%)" "$BENCH_ROWS" rpd-trim "$w" --start 10% --end 90%
fresh "$t" "$w"; measure "trim-floor(sql deletes+vacuum)" "$BENCH_ROWS" sqlite3 "$w" \
  "BEGIN; DELETE FROM rocpd_api WHERE rowid % 5 = 0;
   DELETE FROM rocpd_api_ops WHERE api_id NOT IN (SELECT id FROM rocpd_api);
   DELETE FROM rocpd_op WHERE id NOT IN (SELECT op_id FROM rocpd_api_ops);
   DELETE FROM rocpd_kernelapi WHERE api_ptr_id NOT IN (SELECT id FROM rocpd_api);
   DELETE FROM rocpd_ustring WHERE id NOT IN (SELECT args_id FROM rocpd_api); COMMIT; VACUUM;"
rm -f "$w"
