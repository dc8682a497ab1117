#!/bin/sh
# tests/tools/rpd-import-madengine.sh - rpd-import --into: madengine's
# gpu_info power / vram profiler CSVs (the exact format of
# scripts/common/tools/gpu_info_profiler.py: csv.DictWriter, CRLF, a
# "time" column of datetime.now() and one column per GPU) as rocpd_monitor.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

rpd-synth --seed 2 --api 500 -o t.rpd >/dev/null
T0=$(q t.rpd "SELECT min(s) FROM (SELECT min(start) s FROM rocpd_api UNION ALL SELECT min(start) FROM rocpd_op)")
printf 'time,Power(Watt) GPU0,Power(Watt) GPU1\r\n2025-01-31 10:00:00.000000,100.5,200\r\n2025-01-31 10:00:00.500000,110.0,N/A\r\n2025-01-31 10:00:01.250000,120,220\r\n' >gpu_info_power_profiler_output.csv
printf 'time,vram(%%) GPU0,vram(%%) GPU1\r\n2025-01-31 10:00:00.000000,12.5,3.0\r\n2025-01-31 10:00:02.000000,50.25,4.0\r\n' >gpu_info_vram_profiler_output.csv
cp t.rpd t.before
check_rc "--into: exit 0" 0 rpd-import --into t.rpd gpu_info_power_profiler_output.csv gpu_info_vram_profiler_output.csv
check_eq "summary: rows written, N/A skipped" "  wrote rocpd_monitor          9|  skipped 1 blank lines or N/A readings" \
  "$(tail -2 "$TESTDIR/stderr" | paste -sd'|')"
check_eq "power rows: first sample 1 s before the first event, each holds until the next" \
  "0|$((T0 - 1000000000))|$((T0 - 500000000))|100.5;1|$((T0 - 1000000000))|$((T0 - 500000000))|200;0|$((T0 - 500000000))|$((T0 + 250000000))|110.0;0|$((T0 + 250000000))|$((T0 + 250000000))|120;1|$((T0 + 250000000))|$((T0 + 250000000))|220" \
  "$(q t.rpd "SELECT deviceId, start, end, value FROM rocpd_monitor WHERE monitorType = 'madengine:power_W' ORDER BY start, deviceId" | paste -sd';')"
check_eq "vram rows" "0|12.5;1|3.0;0|50.25;1|4.0" \
  "$(q t.rpd "SELECT deviceId, value FROM rocpd_monitor WHERE monitorType = 'madengine:vram_pct' ORDER BY start, deviceId" | paste -sd';')"
check_eq "other monitor rows untouched" "$(q t.before "SELECT count(*) FROM rocpd_monitor")" \
  "$(q t.rpd "SELECT count(*) FROM rocpd_monitor WHERE monitorType NOT GLOB 'madengine:*'")"
check_rc "re-run: exit 0" 0 rpd-import -q --into t.rpd gpu_info_power_profiler_output.csv
check_eq "re-run: no duplicates" "5" "$(q t.rpd "SELECT count(*) FROM rocpd_monitor WHERE monitorType = 'madengine:power_W'")"
check_rc "--clock-offset" 0 rpd-import -q --into t.rpd gpu_info_power_profiler_output.csv --clock-offset -1738317600000000000
check_eq "--clock-offset: trace ns = UTC epoch ns + offset" "0|500000000" \
  "$(q t.rpd "SELECT min(start), min(end) FROM rocpd_monitor WHERE monitorType = 'madengine:power_W'")"
rpd2tracing t.rpd t.json >/dev/null 2>&1
check_eq "rpd2tracing shows the power samples per GPU (then its closing points)" "0:100.5 1:200 0:110 0:120 1:220" \
  "$(python3 -c 'import json; d = json.load(open("t.json")); e = d["traceEvents"] if isinstance(d, dict) else d; print(" ".join("%d:%s" % (x["pid"], x["args"]["madengine:power_W"]) for x in e if x.get("name") == "madengine:power_W" and x["ts"] <= 1250000))')"

printf 'time,Power(Watt) GPU0\r\n2025-01-31 10:00:00,100\r\nyesterday,5\r\n' >bad.csv
cp t.rpd t.keep
check_rc "bad time: exit 1" 1 rpd-import --into t.rpd bad.csv
check_one_line "bad time: one line"
check_eq "bad time: says where" "rpd-import: cannot import into 't.rpd': bad.csv: line 3: bad time 'yesterday' (want YYYY-MM-DD HH:MM:SS.ffffff)" \
  "$(cat "$TESTDIR/stderr")"
same_file "bad time: trace unchanged" t.keep t.rpd
printf 'a,b\n1,2\n' >other.csv
check_rc "not a gpu_info CSV: exit 1" 1 rpd-import --into t.rpd other.csv
check_one_line "not a gpu_info CSV: one line"
check_rc "--into without files: usage" 2 rpd-import --into t.rpd
check_rc "bad --clock-offset: usage" 2 rpd-import --into t.rpd bad.csv --clock-offset 1x
check_rc "--clock-offset beyond int64: usage" 2 rpd-import --into t.rpd bad.csv --clock-offset 9223372036854775808
check_rc "--clock-offset 1e9: usage" 2 rpd-import --into t.rpd bad.csv --clock-offset 1e9
# an offset that wraps past 2^63, or leaves 0 .. 2^62: refused, trace unchanged
cp t.rpd t.keep
for off in 9223372036854775807 4611686018427387904 -1738317601000000000; do
  check_rc "--clock-offset $off: exit 1" 1 rpd-import --into t.rpd gpu_info_power_profiler_output.csv --clock-offset $off
  check_one_line "--clock-offset $off: one line"
  check "--clock-offset $off: says why" grep -q "gpu_info_power_profiler_output.csv: line 2: the sample's time + clock offset $off ns is outside 0 .. 2^62 ns" "$TESTDIR/stderr"
  same_file "--clock-offset $off: trace unchanged" t.keep t.rpd
done
check_eq "no monitor row ends before it starts" "0" "$(q t.rpd "SELECT count(*) FROM rocpd_monitor WHERE end < start OR start < 0")"
# a sample that goes back in time would end before it starts
printf 'time,Power(Watt) GPU0\r\n2025-01-31 10:00:05.000000,100\r\n2025-01-31 10:00:01.000000,110\r\n2025-01-31 10:00:06.000000,120\r\n' >back.csv
check_rc "backwards sample: exit 1" 1 rpd-import --into t.rpd back.csv
check_one_line "backwards sample: one line"
check_eq "backwards sample: says where" "rpd-import: cannot import into 't.rpd': back.csv: line 3: time '2025-01-31 10:00:01.000000' is before the previous sample's" \
  "$(cat "$TESTDIR/stderr")"
same_file "backwards sample: trace unchanged" t.keep t.rpd

# library_trace.csv: get_library_trace.py's csv.writer output (CRLF, quoted
# configs holding commas), joined to the trace's kernels by name
rpd-synth --seed 2 --api 500 -o l.rpd >/dev/null
K=$(q l.rpd "SELECT description FROM op WHERE opType = 'KernelExecution' GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1")
python3 - "$K" <<'EOF'
import csv, sys
with open("library_trace.csv", "w") as f:
    w = csv.writer(f)
    w.writerow(["jobid", "created_date", "model", "library", "config", "calls"])
    d = "2025-01-31 10:00:00"
    w.writerow(["0", d, "pyt_llama", "rocblas", "./rocblas-bench -f gemm_ex --transposeA N --transposeB N -m 4096 -n 4096 -k 4096 --a_type f16_r", 12])
    w.writerow(["0", d, "pyt_llama", "rocblas", "./rocblas-bench -f gemm_ex --transposeA T --transposeB N -m 1024 -n 4096 -k 4096 --a_type f16_r", 3])
    w.writerow(["0", d, "pyt_llama", "rocblas_function", "rocblas_function: rocblas_gemm_ex, atomics_mode: 1", 15])
    w.writerow(["0", d, "pyt_llama", "miopen", "./bin/MIOpenDriver conv -n 1 -c 3 -H 224 -W 224 -k 64 -y 7 -x 7", 4])
    w.writerow(["0", d, "pyt_llama", "tensile", sys.argv[1], 7])
EOF
check_rc "library_trace.csv --into: exit 0" 0 rpd-import --into l.rpd library_trace.csv
check_eq "library_trace: summary by library and function" \
  "miopen|conv|1|4;rocblas|gemm_ex|2|15;rocblas_function|rocblas_gemm_ex|1|15;tensile|$K|1|7" \
  "$(q l.rpd "SELECT library, function, configs, calls FROM ext_library_summary ORDER BY library" | paste -sd';')"
check_eq "library_trace: the quoted config kept whole" "rocblas_function: rocblas_gemm_ex, atomics_mode: 1" \
  "$(q l.rpd "SELECT config FROM ext_library_call WHERE library = 'rocblas_function'")"
check_eq "library_trace: tensile kernel joined to the trace's kernels" \
  "$(q l.rpd "SELECT count(*) || '|' || sum(end - start) FROM op WHERE description = '$K'")" \
  "$(q l.rpd "SELECT trace_kernels || '|' || gpu_time FROM ext_library_kernel WHERE library = 'tensile'")"
check_rc "library_trace re-run" 0 rpd-import -q --into l.rpd library_trace.csv
check_eq "library_trace re-run: replaced, not duplicated" "5" "$(q l.rpd "SELECT count(*) FROM ext_library_call")"
printf 'jobid,created_date,model,library,config,calls\r\n0,d,m,rocblas,x,many\r\n' >bad_lib.csv
check_rc "library_trace bad count: exit 1" 1 rpd-import --into l.rpd bad_lib.csv
check_eq "library_trace bad count: one line, says where" \
  "rpd-import: cannot import into 'l.rpd': bad_lib.csv: line 2: calls: not a count: 'many'" "$(cat "$TESTDIR/stderr")"
check_rc "--clock-offset without --into: usage error" 2 rpd-import --clock-offset 5 a.json b.rpd
check_eq "--clock-offset without --into: says so" \
  "rpd-import: --clock-offset goes with --into" "$(head -1 "$TESTDIR/stderr")"
