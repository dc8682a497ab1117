#!/bin/sh
# rpd-import: (1) a generated rocprofv3 JSON with $BENCH_ROWS kernel
# dispatches (+ one hip_api call each), plain and gzip'd, against the floor
# of reading and gunzipping the same bytes; (2) generated rocprofv3
# databases (rpd-synth-rocpd) at 1x, 4x, 16x (~10M input rows): rows/s,
# peak RSS, the 4x/1x time ratio; import + raptor --report, and raptor
# --report on the database as it is, against AMD's `rocpd summary` run in
# the same minute; (3) a generated CSV set in MB/s; (4) raptor --report on
# a generated RPD trace against the SQLite floor.
# ROCPD_1X sets the 1x dispatch count (default 94000: ~630k input rows).
. "$(cd "$(dirname "$0")" && pwd)/../benchlib.sh"
# measure_cpu LABEL ROWS CMD...: like measure, and also the CPU seconds
# (user + sys): on a shared machine the wall time includes waiting for a
# core, the CPU time is what the import costs.  Sets MEASURED_SECS/_CPU.
measure_cpu() {
  _label=$1; _rows=$2; shift 2
  _t="$BENCHDIR/.timecpu.$$"
  /usr/bin/time -f "%e %M %U %S" -o "$_t" "$@" >/dev/null 2>"$BENCHDIR/.errcpu.$$" || {
    echo "BENCH $_label FAILED: $(head -c 300 "$BENCHDIR/.errcpu.$$")"; return 1; }
  read -r MEASURED_SECS _rss _u _s <"$_t"
  MEASURED_CPU=$(awk -v u="$_u" -v s="$_s" 'BEGIN{printf "%.2f", u + s}')
  echo "BENCH $_label rows=$_rows secs=$MEASURED_SECS cpu_secs=$MEASURED_CPU rows/s=$(awk -v r="$_rows" -v s="$MEASURED_SECS" 'BEGIN{ if (s > 0) printf "%.0f", r/s; else print "inf" }') rows/cpu_s=$(awk -v r="$_rows" -v s="$MEASURED_CPU" 'BEGIN{ if (s > 0) printf "%.0f", r/s; else print "inf" }') peak_rss_kb=$_rss"
  rm -f "$_t" "$BENCHDIR/.errcpu.$$"
}
# mb_rate LABEL MB: "LABEL MB=.. MB/s=.. MB/cpu_s=.." from the last measure_cpu
mb_rate() {
  echo "BENCH $1 MB=$2 MB/s=$(awk -v m="$2" -v s="$MEASURED_SECS" 'BEGIN{ if (s > 0) printf "%.1f", m/s; else print "inf" }') MB/cpu_s=$(awk -v m="$2" -v s="$MEASURED_CPU" 'BEGIN{ if (s > 0) printf "%.1f", m/s; else print "inf" }') $3"
}
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
jmb=$(wc -c <"$j" | awk '{printf "%.1f", $1 / 1e6}')
measure_cpu "rpd-import(json)" "$rows" rpd-import -q --force "$j" "$BENCHDIR/imported.rpd" &&
  mb_rate "rpd-import(json)" "$jmb" "(uncompressed JSON, parser + writer thread; target >= 150, Perfetto's JSON importer 177)"
# the same on one thread (RPDTOOLS_IMPORT_THREADS=1): what the writer
# thread buys in wall time, and what it costs in CPU
measure_cpu "rpd-import(json, 1 thread)" "$rows" env RPDTOOLS_IMPORT_THREADS=1 rpd-import -q --force "$j" "$BENCHDIR/imported.rpd" &&
  mb_rate "rpd-import(json, 1 thread)" "$jmb" "(RPDTOOLS_IMPORT_THREADS=1)"
measure "rpd-import-floor(gzip -dc)" "$rows" gzip -dc "$j.gz"
measure_cpu "rpd-import(json.gz)" "$rows" rpd-import -q --force "$j.gz" "$BENCHDIR/imported.rpd" &&
  mb_rate "rpd-import(json.gz)" "$jmb" "(MB of the JSON inside)"

# ---------------------------------------------------------------- rocpd databases
# input rows = regions + args + dispatches + copies, counted in the file
rocpd_db() { # DISPATCHES -> path of the generated database (made once)
  _d="$BENCHDIR/rocpd-$1.db"
  [ -s "$_d" ] || rpd-synth-rocpd -q --seed 5 --dispatches "$1" -o "$_d" || return 1
  echo "$_d"
}
rocpd_rows() {
  sqlite3 "$1" "SELECT (SELECT count(*) FROM rocpd_region) + (SELECT count(*) FROM rocpd_arg)
    + (SELECT count(*) FROM rocpd_kernel_dispatch) + (SELECT count(*) FROM rocpd_memory_copy)"
}
x1=${ROCPD_1X:-94000}
maxrss=0
for mult in 1 4 16; do
  db=$(rocpd_db $((x1 * mult))) || { echo "BENCH rpd-import(rocpd) FAILED (rpd-synth-rocpd)"; break; }
  line=$(measure_cpu "rpd-import(rocpd ${mult}x)" "$(rocpd_rows "$db")" rpd-import -q --force "$db" "$BENCHDIR/rocpd.rpd")
  echo "$line (target >= 1M rows/s; issue 21)"
  eval "secs_$mult=$(echo "$line" | sed -n 's/.* secs=\([^ ]*\).*/\1/p')"
  eval "cpu_$mult=$(echo "$line" | sed -n 's/.* cpu_secs=\([^ ]*\).*/\1/p')"
  rss=$(echo "$line" | sed -n 's/.*peak_rss_kb=\([0-9]*\).*/\1/p')
  echo "BENCH rpd-import(rocpd ${mult}x) peak_MB=$(awk -v k="${rss:-0}" 'BEGIN{printf "%.1f", k / 1024}') (target <= 128)"
  [ "${rss:-0}" -gt "$maxrss" ] && maxrss=$rss
done
# the same 1x database on one thread (RPDTOOLS_IMPORT_THREADS=1): what the
# writer thread gains, and what a one-CPU machine gets
db=$(rocpd_db "$x1") &&
  measure_cpu "rpd-import(rocpd 1x, 1 thread)" "$(rocpd_rows "$db")" \
    env RPDTOOLS_IMPORT_THREADS=1 rpd-import -q --force "$db" "$BENCHDIR/rocpd.rpd"
echo "BENCH rpd-import(rocpd) max peak_rss_kb=$maxrss peak_MB=$(awk -v k="$maxrss" 'BEGIN{printf "%.1f", k / 1024}') (target <= 128 MB)"
ratio() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "?" }'; }
echo "BENCH rpd-import(rocpd) 4x/1x time ratio=$(ratio "$secs_4" "$secs_1") cpu ratio=$(ratio "$cpu_4" "$cpu_1") (target <= 4.4)"
echo "BENCH rpd-import(rocpd) 16x/4x time ratio=$(ratio "$secs_16" "$secs_4") cpu ratio=$(ratio "$cpu_16" "$cpu_4") (target <= 4.4)"

# import + raptor --report against AMD's `rocpd summary` (rocprofiler-sdk's
# Python package) on the same database in the same run.  The package:
# $ROCPD_PYTHON (a directory holding an installed rocpd), else extracted
# from a ROCm/rocm-systems mirror ($ROCPD_MIRROR) with
# tests/bench/rocpd-stub/libpyrocpd.py standing in for its compiled part
# (which needs a ROCm build); skipped, with the reason, when neither.
# Databases: the 32x-size one (16k dispatches) and one of the size of issue
# 33's (38k dispatches, ~48k regions, ~170k args).
rocpd_py() {
  if [ -n "${ROCPD_PYTHON:-}" ]; then
    [ -d "$ROCPD_PYTHON/rocpd" ] && echo "$ROCPD_PYTHON"
    return 0
  fi
  _m=${ROCPD_MIRROR:-/work/.mirror/ROCm+rocm-systems/repo}
  _d=$BENCHDIR/rocpd-py
  _src=projects/rocprofiler-sdk/source
  if [ ! -s "$_d/rocpd/summary.py" ] && [ -d "$_m" ]; then
    rm -rf "$_d" && mkdir -p "$_d/x" &&
      git -C "$_m" archive HEAD "$_src/lib/python/rocpd" "$_src/share/rocprofiler-sdk-rocpd" 2>/dev/null |
        tar x -C "$_d/x" 2>/dev/null &&
      mv "$_d/x/$_src/lib/python/rocpd" "$_d/rocpd" &&
      mv "$_d/x/$_src/share/rocprofiler-sdk-rocpd" "$_d/rocpd/sql" &&
      cp "$(dirname "$0")/rocpd-stub/libpyrocpd.py" "$_d/rocpd/" &&
      sed -i 's/int("@[A-Z_]*@")/0/' "$_d/rocpd/__init__.py"   # what its configure step fills in
    rm -rf "$_d/x"
  fi
  [ -s "$_d/rocpd/summary.py" ] && echo "$_d"
  return 0
}
rp=$(rocpd_py)
py=${PEER_PYTHON:-/usr/bin/python3}
for disp in 16000 38000; do
  db=$(rocpd_db "$disp") || continue
  r=$(rocpd_rows "$db")
  # a tenth of a second each: medians of 5, or one slow run decides the ratio
  measure_median 5 "rpd-import(rocpd $disp dispatches)" "$r" rpd-import -q --force "$db" "$BENCHDIR/rocpd32.rpd"
  t_imp=$MEASURED_SECS; c_imp=$MEASURED_CPU
  measure_median 5 "raptor --report(rocpd $disp dispatches)" "$r" raptor "$BENCHDIR/rocpd32.rpd" --report -q --csv-dir "$BENCHDIR/report32"
  tot=$(awk -v a="$t_imp" -v b="$MEASURED_SECS" 'BEGIN{printf "%.2f", a+b}')
  ctot=$(awk -v a="$c_imp" -v b="$MEASURED_CPU" 'BEGIN{printf "%.2f", a+b}')
  # the same report on the database as it is (raptor reads it through
  # rpd-import's reader into memory, no file: docs/rpd-import.md)
  measure_median 5 "raptor --report on the database(rocpd $disp dispatches)" "$r" raptor "$db" --report -q --csv-dir "$BENCHDIR/report32d"
  t_dir=$MEASURED_SECS; c_dir=$MEASURED_CPU
  if [ -z "$rp" ]; then
    echo "BENCH import+report (rocpd $disp dispatches) secs=$tot cpu_secs=$ctot, direct secs=$t_dir cpu_secs=$c_dir; rocpd summary skipped: no rocpd package (set ROCPD_PYTHON, or a ROCm/rocm-systems mirror)"
    continue
  fi
  # rocpd imports pandas only when it summarises, then prints "Error: No
  # module named 'pandas'" and exits 0: ask for both up front
  if ! _e=$(PYTHONPATH="$rp" "$py" -c "import pandas; from rocpd import summary" 2>&1); then
    echo "BENCH import+report (rocpd $disp dispatches) secs=$tot cpu_secs=$ctot, direct secs=$t_dir cpu_secs=$c_dir; rocpd summary skipped: $py cannot import it: $(echo "$_e" | tail -1)"
    continue
  fi
  rm -rf "$BENCHDIR/rocpd-summary"
  measure_median 3 "rocpd summary($disp dispatches)" "$r" env PYTHONPATH="$rp" "$py" -c \
    "import sys; from rocpd import summary; summary.main(sys.argv[1:])" -i "$db" -d "$BENCHDIR/rocpd-summary" || continue
  echo "BENCH import+report (rocpd $disp dispatches, medians) secs=$tot cpu_secs=$ctot vs rocpd summary secs=$MEASURED_SECS cpu_secs=$MEASURED_CPU: speedup=$(ratio "$MEASURED_SECS" "$tot")x wall, $(ratio "$MEASURED_CPU" "$ctot")x cpu"
  echo "BENCH raptor --report on the database (rocpd $disp dispatches, medians) secs=$t_dir cpu_secs=$c_dir vs rocpd summary secs=$MEASURED_SECS cpu_secs=$MEASURED_CPU: speedup=$(ratio "$MEASURED_SECS" "$t_dir")x wall, $(ratio "$MEASURED_CPU" "$c_dir")x cpu (target >= 5)"
done
rm -rf "$BENCHDIR/report32d"
rm -rf "$BENCHDIR/rocpd-summary"

# ---------------------------------------------------------------- CSV set
cdir="$BENCHDIR/rocprofv3-csv-$n"
if [ ! -s "$cdir/1_hip_api_trace.csv" ]; then
  mkdir -p "$cdir"
  awk -v n="$n" 'BEGIN {
    print "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\""
    for (i = 1; i <= n; i++)
      printf "\"KERNEL_DISPATCH\",\"Agent %d\",\"1\",\"1\",\"77\",\"%d\",\"%d\",\"void kernel_%d<float, 64>(float*, float const*, int)\",\"%d\",\"%d\",\"%d\",\"0\",\"0\",\"8\",\"0\",\"16\",\"256\",\"1\",\"1\",\"4096\",\"1\",\"1\"\n", 2 + i % 2, i, i % 50, i % 50, i, 1000000 + 100 * i, 1000060 + 100 * i
  }' >"$cdir/1_kernel_trace.csv"
  awk -v n="$n" 'BEGIN {
    print "\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\""
    for (i = 1; i <= n; i++)
      printf "\"HIP_RUNTIME_API_EXT\",\"hipLaunchKernel\",\"1\",\"77\",\"%d\",\"%d\",\"%d\"\n", i, 999950 + 100 * i, 999990 + 100 * i
  }' >"$cdir/1_hip_api_trace.csv"
fi
mb=$(cat "$cdir"/*.csv | wc -c | awk '{printf "%.1f", $1 / 1e6}')
measure_cpu "rpd-import(csv)" "$((2 * n))" rpd-import -q --force "$cdir" "$BENCHDIR/csv.rpd" &&
  echo "BENCH rpd-import(csv) MB=$mb MB/s=$(awk -v m="$mb" -v s="$MEASURED_SECS" 'BEGIN{ if (s > 0) printf "%.1f", m/s; else print "inf" }') MB/cpu_s=$(awk -v m="$mb" -v s="$MEASURED_CPU" 'BEGIN{ if (s > 0) printf "%.1f", m/s; else print "inf" }') (target >= 100)"
measure_cpu "rpd-import(csv, 1 thread)" "$((2 * n))" env RPDTOOLS_IMPORT_THREADS=1 rpd-import -q --force "$cdir" "$BENCHDIR/csv.rpd" &&
  mb_rate "rpd-import(csv, 1 thread)" "$mb"

t=$(bench_trace "synth-$BENCH_ROWS-g2" --seed 3 --api "$BENCH_ROWS" --gpus 2) || { echo "BENCH report FAILED (rpd-synth)"; exit 1; }
ops=$(sqlite3 "$t" "SELECT count(*) FROM rocpd_op")
measure "report-floor(sql)" "$ops" sqlite3 "$t" \
  "SELECT count(*), total(gpuId), total(start), total(\"end\"), total(description_id), total(opType_id) FROM rocpd_op"
floor=$MEASURED_SECS
measure "raptor --report" "$ops" raptor "$t" --report -q --csv-dir "$BENCHDIR/report"
echo "BENCH raptor --report floor secs=$floor ratio=$(awk -v a="$MEASURED_SECS" -v b="$floor" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "inf" }')"
measure "raptor --report (imported)" "$n" raptor "$BENCHDIR/imported.rpd" --report -q --csv-dir "$BENCHDIR/report2"
