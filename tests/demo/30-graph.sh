# graph, subclass and trim on the sample trace: graphLaunch / graphKernel,
# a subclass table of the launches, a trimmed copy.  (sourced by tests/demo.sh)
cp "$SAMPLE" "$DEMO/graph.rpd"
rpd-graph "$DEMO/graph.rpd"
echo "-- graphLaunch (first 5 of $(sqlite3 "$DEMO/graph.rpd" "SELECT count(*) FROM graphLaunch") launches):"
sqlite3 -header -column "$DEMO/graph.rpd" "SELECT * FROM graphLaunch ORDER BY id LIMIT 5"
echo "-- graphKernel (the first graph):"
sqlite3 -header -column "$DEMO/graph.rpd" \
  "SELECT graphExec, sequence, substr(kernelName, 1, 50) AS kernelName, gridX, workgroupX
   FROM graphKernel WHERE graphExec = (SELECT graphExec FROM ext_graph ORDER BY id LIMIT 1)
   ORDER BY sequence"
echo "-- rpd-subclass: the args of the capture calls as columns"
rpd-subclass "$DEMO/graph.rpd" --name capture --events hipStreamBeginCapture,hipStreamEndCapture
sqlite3 -header -column "$DEMO/graph.rpd" "SELECT id, apiName, stream, mode, graph FROM captureapi ORDER BY id"
echo "-- rpd-trim: keep 20%..40% of the sample into $DEMO/trimmed.rpd"
rpd-trim "$SAMPLE" -o "$DEMO/trimmed.rpd" --start 20% --end 40%
