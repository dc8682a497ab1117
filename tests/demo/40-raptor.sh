# raptor: categories, top kernel sequences, variability on the sample trace,
# the results saved into the trace for SQL.  (sourced by tests/demo.sh)
raptor "$SAMPLE" -c -v --gpu-summary
raptor "$SAMPLE" -k --display-rows 8 --display-cols 50 | sed -n '/^Top Kernels:/,$p'
cp "$SAMPLE" "$DEMO/raptor.rpd"
raptor "$DEMO/raptor.rpd" --save -z 3 --format csv -c >"$DEMO/raptor-categories.csv"
echo "-- the top 5 kernel sequences, from SQL (ext_raptor_kernelseq):"
sqlite3 -header -column "$DEMO/raptor.rpd" \
  "SELECT rank, substr(kernel, 1, 40) AS kernel, category, calls, outliers,
          round(dur_sum_ns / 1e6, 3) AS dur_ms, round(pct_total, 1) AS pct
   FROM ext_raptor_kernelseq ORDER BY rank LIMIT 5"
