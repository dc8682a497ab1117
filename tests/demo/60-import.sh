# rpd-import + raptor --report: the rocprofv3 sample from ../shared when
# present (its kernel busy time is 4233.112334 ms), else the generated sample.
if [ -f "$SHARED/traces/rocprofv3_908_results.json.gz" ]; then
  rpd-import --force "$SHARED/traces/rocprofv3_908_results.json.gz" "$DEMO/rocprofv3_908.rpd"
  echo "-- raptor $DEMO/rocprofv3_908.rpd --report --topk 5 --csv-dir $DEMO/report_908"
  raptor "$DEMO/rocprofv3_908.rpd" --report --topk 5 --csv-dir "$DEMO/report_908" | cut -c1-160
  if [ -f "$SHARED/traces/rocprofv3_28_results.db" ]; then
    rpd-import --force "$SHARED/traces/rocprofv3_28_results.db" "$DEMO/rocprofv3_28.rpd"
  fi
  if [ -d "$SHARED/traces/rocprofv3_csv" ]; then
    rpd-import --force "$SHARED/traces/rocprofv3_csv" "$DEMO/rocprofv3_csv.rpd"
  fi
else
  echo "(../shared not present: report on the generated sample)"
  raptor "$SAMPLE" --report --topk 5 | cut -c1-160
fi
