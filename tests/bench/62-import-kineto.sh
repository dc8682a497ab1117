#!/bin/sh
# rpd-import of a PyTorch profiler (Kineto) trace: a generated
# *.pt.trace.json of about $KINETO_MB MB (default 300) in Kineto's layout
# (per step: a python_function, a cpu_op with shapes/types/strides, its
# hipLaunchKernel, the ac2g flow pair, the kernel), plain and gzip'd, in MB
# of JSON per second and per CPU second, peak RSS at 1x and 1/3x (flat
# memory: the same peak once SQLite's 16 MiB page cache is full), against the floor of reading the bytes.
. "$(cd "$(dirname "$0")" && pwd)/../benchlib.sh"
mb=${KINETO_MB:-300}
j="$BENCHDIR/kineto-$mb.pt.trace.json"
gen() { # MB OUT
  awk -v n="$(( $1 * 1000000 / 1500 ))" 'BEGIN {
    printf "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"AMD Instinct MI300X\", \"totalGlobalMem\": 205571227648, \"numSms\": 304}],\n"
    printf "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 8},\n\"traceEvents\": [\n"
    t = 1419247332000000
    for (i = 1; i <= n; i++) {
      us = sprintf("%d.%03d", t / 1000, t % 1000)
      printf "  {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"model.py(%d): forward\", \"pid\": 19392, \"tid\": 19392, \"ts\": %s, \"dur\": 9.500, \"args\": {\"Python parent id\": %d, \"Python id\": %d, \"Ev Idx\": %d}},\n", i % 97, us, i, i + 1, 4 * i
      printf "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::addmm\", \"pid\": 19392, \"tid\": 19392, \"ts\": %s, \"dur\": 8.250, \"args\": {\"External id\": %d, \"Sequence number\": %d, \"Record function id\": 0, \"Concrete Inputs\": [\"\", \"\", \"\", \"1\", \"1\"], \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"], \"Input Strides\": [[1], [512, 1], [1, 512], [], []], \"Input Dims\": [[512], [141, 512], [512, 512], [], []], \"Ev Idx\": %d}},\n", us, i, i, 4 * i + 1
      printf "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"hipLaunchKernel\", \"pid\": 19392, \"tid\": 19392, \"ts\": %s, \"dur\": 4.125, \"args\": {\"External id\": %d, \"cbid\": 211, \"correlation\": %d}},\n", us, i, i
      printf "  {\"ph\": \"s\", \"id\": %d, \"pid\": 19392, \"tid\": 19392, \"ts\": %s, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n", i, us
      printf "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI32x32x8x1_SN_K%d\", \"pid\": 0, \"tid\": 0, \"ts\": %s, \"dur\": 5.807, \"args\": {\"External id\": %d, \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 0, \"correlation\": %d, \"registers per thread\": 128, \"shared memory\": 33792, \"grid\": [40, 2, 1], \"block\": [128, 1, 1]}},\n", i % 50, us, i, i
      printf "  {\"ph\": \"f\", \"id\": %d, \"pid\": 0, \"tid\": 0, \"ts\": %s, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}%s\n", i, us, i < n ? "," : ""
      t += 10000
    }
    printf "],\n\"traceName\": \"bench\", \"displayTimeUnit\": \"ms\", \"baseTimeNanoseconds\": 1751410836000000000}\n"
  }' >"$2"
}
[ -s "$j" ] || gen "$mb" "$j" || { echo "BENCH rpd-import(kineto) FAILED (generator)"; exit 0; }
[ -s "$j.gz" ] || gzip -1 -c "$j" >"$j.gz"
q3="$BENCHDIR/kineto-$((mb / 3)).pt.trace.json"
[ -s "$q3" ] || gen $((mb / 3)) "$q3"
ev=$(( mb * 1000000 / 1500 * 6 ))
jmb=$(wc -c <"$j" | awk '{printf "%.1f", $1 / 1e6}')
rate() { # LABEL MB
  echo "BENCH $1 MB=$2 MB/s=$(awk -v m="$2" -v s="$MEASURED_SECS" 'BEGIN{ if (s > 0) printf "%.1f", m/s; else print "inf" }') MB/cpu_s=$(awk -v m="$2" -v s="$MEASURED_CPU" 'BEGIN{ if (s > 0) printf "%.1f", m/s; else print "inf" }') $3"
}
measure "rpd-import-floor(cat kineto json)" "$ev" cat "$j"
measure "rpd-import(kineto)" "$ev" rpd-import -q --force "$j" "$BENCHDIR/kineto.rpd" &&
  rate "rpd-import(kineto)" "$jmb" "(target >= 150 MB/s of Kineto JSON on one core)"
measure "rpd-import(kineto, 1 thread)" "$ev" env RPDTOOLS_IMPORT_THREADS=1 rpd-import -q --force "$j" "$BENCHDIR/kineto.rpd" &&
  rate "rpd-import(kineto, 1 thread)" "$jmb" "(RPDTOOLS_IMPORT_THREADS=1)"
measure "rpd-import(kineto.gz)" "$ev" rpd-import -q --force "$j.gz" "$BENCHDIR/kineto.rpd" &&
  rate "rpd-import(kineto.gz)" "$jmb" "(MB of the JSON inside)"
q3mb=$(wc -c <"$q3" | awk '{printf "%.1f", $1 / 1e6}')
measure "rpd-import(kineto 1/3x)" "$((ev / 3))" rpd-import -q --force "$q3" "$BENCHDIR/kineto.rpd" &&
  rate "rpd-import(kineto 1/3x)" "$q3mb" "(peak RSS should equal the 1x run's)"
# TraceLens and HTA themselves run in 63-kineto-peers.sh; both start with
# json.load of the whole file, measured here as their floor on this file
if command -v python3 >/dev/null 2>&1; then
  measure "python json.load (TraceLens/HTA first step, 1/3x)" "$((ev / 3))" \
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$q3" &&
    rate "python json.load (TraceLens/HTA first step, 1/3x)" "$q3mb" "(the whole trace in memory)"
fi
rm -f "$BENCHDIR/kineto.rpd"
