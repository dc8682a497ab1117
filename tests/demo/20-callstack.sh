# demo piece (sourced by tests/demo.sh): call stacks and autograd on $SAMPLE
rpd-callstack "$SAMPLE"
rpd-autograd "$SAMPLE"
echo "-- top 8 calls by inclusive cpu time (callStack_inclusive_name)"
sqlite3 -header -column "$SAMPLE" "SELECT apiName, substr(args, 1, 40) AS args,
  count(*) AS calls, sum(cpu_time) AS cpu_ns, sum(gpu_time) AS gpu_ns
  FROM callStack_inclusive_name GROUP BY apiName, args
  ORDER BY cpu_ns DESC LIMIT 8"
echo "-- top 8 (operator, kernel, sizes) by gpu time (autogradKernel)"
sqlite3 -header -column "$SAMPLE" "SELECT autogradName, substr(kernelName, 1, 40) AS kernel,
  sizes, calls, round(avg_gpu, 1) AS avg_gpu, total_gpu
  FROM autogradKernel ORDER BY total_gpu DESC LIMIT 8"
