#!/bin/sh
# rpd-perfmodel on PyTorch autograd markers with sizes: rpd-synth's default
# shape (about 0.48 markers per api call) with rpd-autograd run once, sized
# so the model sees about $BENCH_ROWS ops (10^6 by default), and a trace of a
# quarter of that (peak RSS: SQLite's cache and the walk's bounded buffers, flat
# in the number of ops).  Each figure is the median of
# $BENCH_REPEAT runs on a fresh copy (wall and CPU; the largest RSS); the
# rows of the BENCH lines are ops, so rows/s is ops per second.  The floor:
# the scans the model cannot avoid (the markers with their names, the api
# calls, the op links joined to their ops) and inserting as many rows of
# ext_perf_op's shape with one INSERT ... SELECT.
. "$(cd "$(dirname "$0")" && pwd)/../benchlib.sh"

ops=${BENCH_ROWS:-1000000}
w="$BENCHDIR/pm-work.rpd"
REPEAT=${BENCH_REPEAT:-3}

# pm_trace OPS: print a trace with about OPS markers after rpd-autograd
# (made once per $BENCHDIR)
pm_trace() {
  _api=$(( $1 * 21 / 10 ))
  _f="$BENCHDIR/pm-$_api.rpd"
  if [ ! -s "$_f" ]; then
    _t=$(bench_trace "pm-synth-$_api" --seed 1 --api "$_api") || return 1
    cp "$_t" "$_f.tmp" && rpd-autograd -q "$_f.tmp" >/dev/null && mv "$_f.tmp" "$_f" || return 1
  fi
  echo "$_f"
}

cat >"$BENCHDIR/pm-floor.sql" <<'EOF2'
PRAGMA cache_size=-65536;
SELECT count(*), total(length(s)) FROM (SELECT A.api_ptr_id, S.string AS s, A.sizes
  FROM ext_autogradapi A JOIN rocpd_string S ON S.id = A.autogradName_id);
SELECT count(*), total(end) FROM (SELECT pid, tid, id, start, end FROM rocpd_api);
SELECT count(*), total(g) FROM (SELECT A.api_id, B.end - B.start AS g FROM rocpd_api_ops A
  CROSS JOIN rocpd_op B ON B.id = A.op_id);
BEGIN;
CREATE TABLE floor_perf_op (api_id INTEGER PRIMARY KEY, name TEXT NOT NULL,
  category TEXT NOT NULL, spec TEXT, params TEXT, flops REAL, bytes REAL,
  kernel_ns INTEGER NOT NULL, direct_kernel_ns INTEGER NOT NULL,
  kernels INTEGER NOT NULL, tflops_s REAL, tb_s REAL, flops_per_byte REAL,
  pct_peak_compute REAL, pct_peak_bw REAL, bound TEXT, roofline_ns REAL,
  lost_ns REAL, outer INTEGER NOT NULL DEFAULT 0);
INSERT INTO floor_perf_op SELECT A.api_ptr_id, 'aten::mm', 'GEMM', 'matrix_bf16',
  '{"M":512,"N":768,"K":768,"bias":false}', 1e9, 1e6, 1000, 1000, 1, 1.0, 1.0, 1.0,
  1.0, 1.0, 'memory', 1.0, 1.0, 0 FROM ext_autogradapi A;
COMMIT;
EOF2

for n in $((ops / 4)) "$ops"; do
  t=$(pm_trace "$n") || { echo "BENCH rpd-perfmodel FAILED: cannot make the trace"; exit 1; }
  m=$(sqlite3 "$t" "SELECT count(*) FROM ext_autogradapi")
  L="rpd-perfmodel [$n ops]"
  BENCH_PREP="cp '$t' '$w'" measure_median "$REPEAT" "$L" "$m" \
    rpd-perfmodel -q --arch MI300X --dtype bf16 "$w" || exit 1
  pm_cpu=$MEASURED_CPU
  echo "BENCH $L: $(sqlite3 "$w" "SELECT count(*) || ' rows, ' || sum(category != 'none') || ' modelled, ' || sum(kernel_ns > 0) || ' with kernels' FROM ext_perf_op")"
  BENCH_PREP="cp '$t' '$w'" measure_median "$REPEAT" "floor $L" "$m" \
    sh -c 'sqlite3 "$1" <"$0" >/dev/null' "$BENCHDIR/pm-floor.sql" "$w" || exit 1
  echo "BENCH $L floor secs=$MEASURED_SECS cpu_secs=$MEASURED_CPU"
  awk -v a="$pm_cpu" -v b="$MEASURED_CPU" 'BEGIN { if (b > 0) printf "BENCH rpd-perfmodel ratio to floor (cpu)=%.2f\n", a / b }'
done
rm -f "$w"
