#!/bin/sh
# tests/bench/50-tracing.sh - rpd2tracing (plain and .json.gz) and
# rpd-autograd-summary on a generated trace with $BENCH_ROWS api rows,
# against the SQLite floor: the bare queries rpd2tracing needs (ops and api
# calls joined to their strings, the launch join sorted by time), with sums
# instead of JSON.  With RPD2TRACING_PY=/path/to/rpd2tracing.py (the public
# reference, extracted by hand; never part of this repo) it also times the
# reference with /usr/bin/python3 and prints the speed ratio.
. "$(cd "$(dirname "$0")" && pwd)/../benchlib.sh"
t=$(bench_trace "synth-$BENCH_ROWS" --seed 1 --api "$BENCH_ROWS" --gpus 2) ||
  { echo "BENCH tracing FAILED (rpd-synth)"; exit 1; }
out="$BENCHDIR/tracing-out"
measure "tracing-floor(sql)" "$BENCH_ROWS" sqlite3 "$t" \
  "SELECT total(length(T.string) + length(D.string) + O.start + O.\"end\" + O.gpuId + O.queueId)
     FROM rocpd_op O LEFT JOIN rocpd_string T ON T.id = O.opType_id
     LEFT JOIN rocpd_string D ON D.id = O.description_id;
   SELECT total(length(N.string) + length(S.string) + A.pid + A.tid + A.start + A.\"end\")
     FROM rocpd_api A LEFT JOIN rocpd_string N ON N.id = A.apiName_id
     LEFT JOIN rocpd_ustring S ON S.id = A.args_id;
   SELECT * FROM (SELECT 1 AS k, A.start AS ts, A.pid, A.tid, A.id, A.\"end\" AS e, A.args_id, 0, 0, 0, 0, 0
       FROM rocpd_api A WHERE A.apiName_id IN (SELECT id FROM rocpd_string WHERE string = 'UserMarker')
       AND A.start != A.\"end\"
     UNION ALL SELECT 2, A.start, A.pid, A.tid, A.id, 0, X.id, O.gpuId, O.queueId, O.start, O.\"end\", A.\"end\"
       FROM rocpd_api_ops X JOIN rocpd_api A ON A.id = X.api_id JOIN rocpd_op O ON O.id = X.op_id)
     ORDER BY ts, k, e DESC LIMIT 1 OFFSET 1000000000000;" && floor=$MEASURED_SECS || floor=0
measure "rpd2tracing" "$BENCH_ROWS" rpd2tracing "$t" "$out.json" -q
ours=$MEASURED_SECS
echo "BENCH rpd2tracing floor secs=$floor ratio=$(awk -v a="$ours" -v b="$floor" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "inf" }') output_bytes=$(wc -c <"$out.json")"
measure "rpd2tracing(.json.gz)" "$BENCH_ROWS" rpd2tracing "$t" "$out.json.gz" -q
if [ -n "$RPD2TRACING_PY" ] && [ -f "$RPD2TRACING_PY" ]; then
  if measure "rpd2tracing.py(reference)" "$BENCH_ROWS" /usr/bin/python3 "$RPD2TRACING_PY" "$t" "$out.ref.json"; then
    echo "BENCH rpd2tracing speedup vs reference: $(awk -v a="$MEASURED_SECS" -v b="$ours" 'BEGIN{ if (b > 0) printf "%.1fx", a/b; else print "inf" }')"
  fi
else
  echo "BENCH rpd2tracing.py(reference) skipped: set RPD2TRACING_PY to the reference tools/rpd2tracing.py"
fi
rm -f "$out.json" "$out.json.gz" "$out.ref.json"
if command -v rpd-autograd >/dev/null 2>&1; then
  w="$BENCHDIR/tracing-autograd.rpd"
  fresh "$t" "$w"
  if rpd-autograd "$w" >/dev/null 2>&1; then
    measure "rpd-autograd-summary" "$BENCH_ROWS" rpd-autograd-summary "$w" "$out.html"
  else echo "BENCH rpd-autograd-summary FAILED (rpd-autograd)"; fi
  rm -f "$w" "$out.html"
fi
