#!/bin/sh
# rpd-import: a generated rocprofv3 JSON with $BENCH_ROWS kernel dispatches
# (+ one hip_api call each), plain and gzip'd, against the floor of reading
# and gunzipping the same bytes; raptor --report on a generated RPD trace
# against the SQLite floor (the one scan of rocpd_op the report needs).
. "$(cd "$(dirname "$0")" && pwd)/../benchlib.sh"
n=$BENCH_ROWS
j="$BENCHDIR/rocprofv3-$n.json"
if [ ! -s "$j.gz" ]; then
  awk -v n="$n" 'BEGIN {
    printf "{\"rocprofiler-sdk-tool\":[{\"metadata\":{\"pid\":1,\"init_time\":1,\"fini_time\":%d},", 100 * n + 1000
    printf "\"agents\":[{\"id\":{\"handle\":1},\"type\":2,\"logical_node_type_id\":0}],"
    printf "\"strings\":{\"buffer_records\":[{\"kind\":\"NONE\",\"operations\":[]},"
    printf "{\"kind\":\"HIP_RUNTIME_API_EXT\",\"operations\":[\"hipApiName\",\"hipLaunchKernel\"]}]},"
    printf "\"kernel_symbols\":["
    for (k = 0; k < 50; k++) printf "%s{\"kernel_id\":%d,\"truncated_kernel_name\":\"kernel_%d\",\"formatted_kernel_name\":\"void kernel_%d<float>(float*)\"}", k ? "," : "", k, k, k
    printf "],\"buffer_records\":{\"kernel_dispatch\":[\n"
    for (i = 1; i <= n; i++)
      printf "%s{\"size\":184,\"kind\":11,\"operation\":2,\"thread_id\":7,\"correlation_id\":{\"internal\":%d,\"external\":0},\"start_timestamp\":%d,\"end_timestamp\":%d,\"dispatch_info\":{\"size\":72,\"agent_id\":{\"handle\":1},\"queue_id\":{\"handle\":16},\"kernel_id\":%d,\"dispatch_id\":%d,\"private_segment_size\":0,\"group_segment_size\":0,\"workgroup_size\":{\"x\":256,\"y\":1,\"z\":1},\"grid_size\":{\"x\":4096,\"y\":1,\"z\":1}},\"stream_id\":{\"handle\":0}}\n", (i > 1 ? "," : ""), i, 100 * i, 100 * i + 60, i % 50, i
    printf "],\"hip_api\":[\n"
    for (i = 1; i <= n; i++)
      printf "%s{\"size\":48,\"kind\":1,\"operation\":1,\"thread_id\":7,\"correlation_id\":{\"internal\":%d,\"external\":0},\"start_timestamp\":%d,\"end_timestamp\":%d}\n", (i > 1 ? "," : ""), i, 100 * i - 50, 100 * i - 10
    printf "]}}]}\n"
  }' >"$j" && gzip -c "$j" >"$j.gz"
fi
rows=$((2 * n))
measure "rpd-import-floor(cat json)" "$rows" cat "$j"
measure "rpd-import(json)" "$rows" rpd-import -q --force "$j" "$BENCHDIR/imported.rpd"
measure "rpd-import-floor(gzip -dc)" "$rows" gzip -dc "$j.gz"
measure "rpd-import(json.gz)" "$rows" rpd-import -q --force "$j.gz" "$BENCHDIR/imported.rpd"

t=$(bench_trace "synth-$BENCH_ROWS-g2" --seed 3 --api "$BENCH_ROWS" --gpus 2) || { echo "BENCH report FAILED (rpd-synth)"; exit 1; }
ops=$(sqlite3 "$t" "SELECT count(*) FROM rocpd_op")
measure "report-floor(sql)" "$ops" sqlite3 "$t" \
  "SELECT count(*), total(gpuId), total(start), total(\"end\"), total(description_id), total(opType_id) FROM rocpd_op"
floor=$MEASURED_SECS
measure "raptor --report" "$ops" raptor "$t" --report -q --csv-dir "$BENCHDIR/report"
echo "BENCH raptor --report floor secs=$floor ratio=$(awk -v a="$MEASURED_SECS" -v b="$floor" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "inf" }')"
measure "raptor --report (imported)" "$n" raptor "$BENCHDIR/imported.rpd" --report -q --csv-dir "$BENCHDIR/report2"
