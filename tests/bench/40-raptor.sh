#!/bin/sh
# raptor: default run (-k -c -v), op trace and --save on a generated trace
# with $BENCH_ROWS api rows, against the SQLite floor (the two scans raptor
# needs) and, when available, the Python reference raptor.py.
# RAPTOR_PY=/path/to/raptor.py selects the reference; otherwise it is taken
# from the rocmProfileData mirror if present (never part of this repo).
# Each figure is the median of $BENCH_RAPTOR_REPEAT runs (default 3 at 1x
# and 4x: the 4x/1x ratio of one run is noise on a shared machine; 1 at the
# big scale).  raptor.py is not run at the big scale (pandas would need
# several GB).
. "$(cd "$(dirname "$0")" && pwd)/../benchlib.sh"
: "${BENCHDIR:=/tmp/rpdtools-bench}" "${BENCH_ROWS:=1000000}"
t=$(bench_trace "synth-$BENCH_ROWS-g2" --seed 3 --api "$BENCH_ROWS" --gpus 2) || { echo "BENCH raptor FAILED (rpd-synth)"; exit 1; }
ops=$(sqlite3 "$t" "SELECT count(*) FROM rocpd_op")

if [ "${BENCH_SCALE:-1x}" = big ]; then n=${BENCH_RAPTOR_REPEAT:-1}; else n=${BENCH_RAPTOR_REPEAT:-3}; fi
measure_median "$n" "raptor-floor(sql)" "$ops" sqlite3 "$t" \
  "SELECT min(start), max(\"end\") FROM rocpd_api;
   SELECT count(*), max(o.start), max(o.\"end\"), max(o.gpuId), max(o.description_id) FROM rocpd_op o
   WHERE o.opType_id IN (SELECT id FROM rocpd_string WHERE string IN ('KernelExecution','Task') OR string GLOB 'Copy*')"
floor=$MEASURED_SECS floor_cpu=$MEASURED_CPU
measure_median "$n" "raptor(default)" "$ops" raptor "$t"
ours=$MEASURED_SECS
echo "BENCH raptor(default) floor secs=$floor${floor_cpu:+ cpu_secs=$floor_cpu} ratio=$(awk -v a="$ours" -v b="$floor" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "inf" }')"
measure_median "$n" "raptor(-o op trace)" "$ops" raptor "$t" -o
measure_median "$n" "raptor(-z 3 -k --format csv)" "$ops" raptor "$t" -z 3 -k --format csv
BENCH_PREP='fresh "$t" "$BENCHDIR/raptor-save.rpd"' \
  measure_median "$n" "raptor(--save)" "$ops" raptor "$BENCHDIR/raptor-save.rpd" --save
rm -f "$BENCHDIR/raptor-save.rpd"

ref=${RAPTOR_PY:-}
mirror=/work/.mirror/ROCm+rocmProfileData/repo
if [ -z "$ref" ] && [ -d "$mirror" ]; then
  mkdir -p "$BENCHDIR/raptor-ref"
  for f in raptor.py raptor_parser.py raptor_cat_vllm.json; do
    git -C "$mirror" show "HEAD:raptor/$f" >"$BENCHDIR/raptor-ref/$f" 2>/dev/null
  done
  ref=$BENCHDIR/raptor-ref/raptor.py
fi
if [ "${BENCH_SCALE:-1x}" = big ]; then
  echo "BENCH raptor.py reference skipped at the big scale"
elif [ -n "$ref" ] && [ -s "$ref" ] && /usr/bin/python3 -c 'import pandas, scipy' 2>/dev/null; then
  measure "raptor.py(default, reference)" "$ops" /usr/bin/python3 "$ref" "$t" &&
    echo "BENCH raptor speedup vs raptor.py: $(awk -v a="$MEASURED_SECS" -v b="$ours" 'BEGIN{ if (b > 0) printf "%.1fx", a/b; else print "inf" }')"
else
  echo "BENCH raptor.py reference skipped (needs /usr/bin/python3 with pandas+scipy and RAPTOR_PY or the mirror)"
fi
