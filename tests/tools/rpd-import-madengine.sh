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
