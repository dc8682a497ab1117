# rpd2tracing and rpd-autograd-summary on the sample: a Perfetto/Chrome trace
# JSON, the same as Perfetto protobuf, and the autograd HTML page.  (sourced
# by tests/demo.sh)
src="$SAMPLE"
[ -f "$DEMO/graph.rpd" ] && src="$DEMO/graph.rpd"   # has graph launch frames
rpd2tracing "$src" "$DEMO/trace.json.gz"
echo "-- open $DEMO/trace.json.gz in https://ui.perfetto.dev (Open trace file) or chrome://tracing"
echo "-- the first events:"
gzip -dc "$DEMO/trace.json.gz" |
  awk '/"cat":"kernel"/&&!o++||/"cat":"api"/&&!a++||/thread_name/&&!t++' | cut -c1-160
rpd2tracing "$src" "$DEMO/trace.pftrace"
echo "-- the same as Perfetto protobuf: $DEMO/trace.pftrace ($(wc -c <"$DEMO/trace.pftrace") bytes;" \
  "JSON $(gzip -dc "$DEMO/trace.json.gz" | wc -c) bytes)"
if command -v rpd-autograd >/dev/null 2>&1; then
  cp "$SAMPLE" "$DEMO/autograd-summary.rpd"
  # the sample may already carry autograd data from the callstack step
  rpd-autograd "$DEMO/autograd-summary.rpd" >/dev/null 2>&1
  rpd-autograd-summary "$DEMO/autograd-summary.rpd" "$DEMO/autograd.html"
  echo "-- open $DEMO/autograd.html in a browser (self-contained; click headers to sort, type to filter)"
else
  echo "-- rpd-autograd is not built: no autograd summary"
fi
