#!/bin/sh
# tests/bench/50-tracing.sh - rpd2tracing (plain, one or two workers, and
# .json.gz) and rpd-autograd-summary on a generated trace with $BENCH_ROWS api
# rows, against the SQLite floor: the bare queries rpd2tracing runs (the api
# scan with its args joined, the op scan, the rocpd_api_ops join), with sums
# instead of JSON.  Peak RSS is also taken on a trace a quarter the size: it
# must not grow with the trace.  JSON against Perfetto protobuf: size, wall
# and CPU time, MB/s of output per CPU second with one worker, at 1x (the
# quarter trace) and 4x (the full one), and the 4x/1x time ratio (linear:
# about 4); the same JSON/protobuf figures on the completion-order shape
# (benchlib.sh BENCH_SHAPES).  With RPD2TRACING_PY=/path/to/rpd2tracing.py
# (the public reference; else benchlib.sh bench_ref_python's copy from the
# rocmProfileData mirror; never part of this repo) it times
# the reference with /usr/bin/python3, back to back with rpd2tracing, and
# prints the speedup of the medians of RPD2TRACING_RUNS runs (default 3).
. "$(cd "$(dirname "$0")" && pwd)/../benchlib.sh"
t=$(bench_trace "synth-$BENCH_ROWS" --seed 1 --api "$BENCH_ROWS" --gpus 2) ||
  { echo "BENCH tracing FAILED (rpd-synth)"; exit 1; }
q_rows=$((BENCH_ROWS / 4))
tq=$(bench_trace "synth-$q_rows" --seed 1 --api "$q_rows" --gpus 2) ||
  { echo "BENCH tracing FAILED (rpd-synth)"; exit 1; }
out="$BENCHDIR/tracing-out"
args=rocpd_ustring
[ "$(sqlite3 "$t" "SELECT count(*) FROM sqlite_master WHERE name = 'rocpd_ustring'")" = 1 ] || args=rocpd_string
floor_sql="SELECT total(A.pid + A.tid + A.start + A.\"end\" + A.apiName_id + A.args_id + length(S.string))
     FROM rocpd_api A LEFT JOIN $args S ON S.id = A.args_id;
   SELECT total(gpuId + queueId + start + \"end\" + opType_id + description_id) FROM rocpd_op;
   SELECT total(X.id + A.pid + A.tid + A.start + A.\"end\" + O.gpuId + O.queueId + O.start + O.\"end\")
     FROM rocpd_api_ops X CROSS JOIN rocpd_api A ON A.id = X.api_id
     CROSS JOIN rocpd_op O ON O.id = X.op_id;"
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "inf" }'; }

# cpu_run LABEL OUT CMD...: BENCH_TRACING_RUNS runs (default 3; each after
# a `sync`, so no earlier run's dirty pages are written back on this one's
# time, and the first run warms the page cache for the trace); prints the
# median wall and CPU secs, output bytes and MB/s of output per wall and per
# CPU second; sets RUN_WALL, RUN_CPU, RUN_BYTES.
cpu_run() {
  _l=$1; _o=$2; shift 2
  _ws=; _cs=; _ms=
  for _i in $(seq "${BENCH_TRACING_RUNS:-3}"); do
    rm -f "$_o"
    sync
    /usr/bin/time -f "%e %U %S %M" -o "$BENCHDIR/.cpu.$$" "$@" >/dev/null 2>"$BENCHDIR/.err.$$" ||
      { echo "BENCH $_l FAILED: $(head -c 300 "$BENCHDIR/.err.$$")"; return 1; }
    read -r _w _u _s _m <"$BENCHDIR/.cpu.$$"
    _ws="$_ws $_w"; _cs="$_cs $(awk -v u="$_u" -v s="$_s" 'BEGIN{ printf "%.2f", u + s }')"; _ms="$_ms $_m"
    RUN_BYTES=$(wc -c <"$_o")
  done
  RUN_WALL=$(echo "$_ws" | median); RUN_CPU=$(echo "$_cs" | median); _m=$(echo "$_ms" | median)
  awk -v l="$_l" -v w="$RUN_WALL" -v c="$RUN_CPU" -v b="$RUN_BYTES" -v m="$_m" -v n="${BENCH_TRACING_RUNS:-3}" 'BEGIN{
    printf "BENCH %s secs=%s cpu_secs=%.2f bytes=%.0f MB/s=%.0f MB/s_per_cpu=%.0f peak_rss_kb=%s (median of %d)\n",
      l, w, c, b, (w > 0 ? b / w / 1e6 : 0), (c > 0 ? b / c / 1e6 : 0), m, n }'
  rm -f "$BENCHDIR/.cpu.$$" "$BENCHDIR/.err.$$" "$_o"
}
if [ -x /usr/bin/time ]; then
  for fmt in json pftrace; do
    RPD2TRACING_THREADS=1 cpu_run "rpd2tracing(.$fmt, 1 worker, 1x: $q_rows rows)" "$out.$fmt" \
      rpd2tracing "$tq" "$out.$fmt" -q || continue
    eval "w1_$fmt=\$RUN_WALL; c1_$fmt=\$RUN_CPU; b1_$fmt=\$RUN_BYTES"
    RPD2TRACING_THREADS=1 cpu_run "rpd2tracing(.$fmt, 1 worker, 4x: $BENCH_ROWS rows)" "$out.$fmt" \
      rpd2tracing "$t" "$out.$fmt" -q || continue
    eval "w4_$fmt=\$RUN_WALL; c4_$fmt=\$RUN_CPU; b4_$fmt=\$RUN_BYTES; w1=\$w1_$fmt; c1=\$c1_$fmt"
    echo "BENCH rpd2tracing .$fmt linearity: 4x the rows takes $(ratio "$RUN_WALL" "$w1")x the wall time, $(ratio "$RUN_CPU" "$c1")x the CPU time"
  done
  if [ -n "$b4_json" ] && [ -n "$b4_pftrace" ]; then
    # one table: JSON against protobuf at 1x and 4x (1 worker)
    echo "BENCH rpd2tracing json vs protobuf (1 worker):"
    printf 'BENCH   %-4s %-9s %12s %12s %7s %7s %7s %7s %8s %8s\n' size rows json_bytes proto_bytes smaller json_s proto_s faster json_cpu proto_cpu
    for k in 1 4; do
      eval "bj=\$b${k}_json bp=\$b${k}_pftrace wj=\$w${k}_json wp=\$w${k}_pftrace cj=\$c${k}_json cp=\$c${k}_pftrace"
      [ "$k" = 1 ] && r=$q_rows || r=$BENCH_ROWS
      printf 'BENCH   %-4s %-9s %12s %12s %6sx %7s %7s %6sx %8s %8s (cpu %sx faster)\n' "${k}x" "$r" "$bj" "$bp" \
        "$(ratio "$bj" "$bp")" "$wj" "$wp" "$(ratio "$wj" "$wp")" "$cj" "$cp" "$(ratio "$cj" "$cp")"
    done
  fi
fi

measure "tracing-floor(sql)" "$BENCH_ROWS" sqlite3 "$t" "$floor_sql" && floor=$MEASURED_SECS || floor=0
rm -f "$out.json"
measure "rpd2tracing" "$BENCH_ROWS" rpd2tracing "$t" "$out.json" -q || exit 1
ours=$MEASURED_SECS; rss_full=$_rss
echo "BENCH rpd2tracing floor secs=$floor ratio=$(ratio "$ours" "$floor") output_bytes=$(wc -c <"$out.json")"
rm -f "$out.json"
RPD2TRACING_THREADS=1 measure "rpd2tracing(1 worker)" "$BENCH_ROWS" rpd2tracing "$t" "$out.json" -q
rm -f "$out.json"
RPD2TRACING_THREADS=2 measure "rpd2tracing(2 workers)" "$BENCH_ROWS" rpd2tracing "$t" "$out.json" -q
rm -f "$out.json"
measure "rpd2tracing(quarter trace)" "$q_rows" rpd2tracing "$tq" "$out.json" -q && rss_q=$_rss || rss_q=?
echo "BENCH rpd2tracing peak_rss_kb quarter=$rss_q full=$rss_full growth=$(ratio "$rss_full" "$rss_q")x for 4x the rows"
rm -f "$out.json"
measure "rpd2tracing(.json.gz)" "$BENCH_ROWS" rpd2tracing "$t" "$out.json.gz" -q
rm -f "$out.json.gz"
# the reference: RPD2TRACING_PY, else the one bench_ref_python extracts
if [ -z "${RPD2TRACING_PY:-}" ]; then
  _ref=$(bench_ref_python)
  [ -n "$_ref" ] && [ -s "$_ref/rpd2tracing.py" ] && RPD2TRACING_PY=$_ref/rpd2tracing.py
fi
# the other shapes (benchlib.sh BENCH_SHAPES: "end", rows in completion
# order; "wide" when asked for): JSON and protobuf, one worker, MB of output
# per CPU-second; the reference once, same run
if [ -x /usr/bin/time ]; then
  for shape in $BENCH_SHAPES; do
    [ "$shape" = synth ] && continue
    we_json=
    # shellcheck disable=SC2046
    te=$(bench_trace "cs-$shape-$BENCH_ROWS" --seed 1 --api "$BENCH_ROWS" --gpus 2 --schema 3 \
      $(bench_shape_args "$shape")) || { echo "BENCH tracing FAILED (rpd-synth $shape)"; exit 1; }
    for fmt in json pftrace; do
      RPD2TRACING_THREADS=1 cpu_run "rpd2tracing(.$fmt, 1 worker, [$shape]: $BENCH_ROWS rows)" "$out.$fmt" \
        rpd2tracing "$te" "$out.$fmt" -q || continue
      eval "we_$fmt=\$RUN_WALL; ce_$fmt=\$RUN_CPU"
    done
    if [ -n "$RPD2TRACING_PY" ] && [ -f "$RPD2TRACING_PY" ] && [ -n "$we_json" ]; then
      rm -f "$out.ref.json"
      measure "rpd2tracing.py(reference) [$shape]" "$BENCH_ROWS" /usr/bin/python3 "$RPD2TRACING_PY" "$te" "$out.ref.json" &&
        echo "BENCH rpd2tracing [$shape] speedup vs reference, this run: $(ratio "$MEASURED_SECS" "$we_json")x wall, $(ratio "$MEASURED_CPU" "$ce_json")x cpu"
      rm -f "$out.ref.json"
    fi
  done
fi
if [ -n "$RPD2TRACING_PY" ] && [ -f "$RPD2TRACING_PY" ]; then
  refs=; mine=; i=0
  while [ "$i" -lt "${RPD2TRACING_RUNS:-3}" ]; do
    rm -f "$out.ref.json"
    measure "rpd2tracing.py(reference)" "$BENCH_ROWS" /usr/bin/python3 "$RPD2TRACING_PY" "$t" "$out.ref.json" || break
    refs="$refs $MEASURED_SECS"
    rm -f "$out.json"
    measure "rpd2tracing" "$BENCH_ROWS" rpd2tracing "$t" "$out.json" -q || break
    mine="$mine $MEASURED_SECS"
    i=$((i + 1))
  done
  if [ -n "$mine" ]; then
    r=$(echo "$refs" | median); m=$(echo "$mine" | median)
    echo "BENCH rpd2tracing speedup vs reference, this run: $(ratio "$r" "$m")x (median secs: reference $r, rpd2tracing $m, runs $i)"
  fi
else
  echo "BENCH rpd2tracing.py(reference) skipped: set RPD2TRACING_PY (or RPD_REF_PYTHON, or provide the rocmProfileData mirror)"
fi
rm -f "$out.json" "$out.json.gz" "$out.ref.json"
if command -v rpd-autograd >/dev/null 2>&1; then
  w="$BENCHDIR/tracing-autograd.rpd"
  fresh "$t" "$w"
  if rpd-autograd "$w" >/dev/null 2>&1; then
    measure "rpd-autograd-summary" "$BENCH_ROWS" rpd-autograd-summary "$w" "$out.html"
  else echo "BENCH rpd-autograd-summary FAILED (rpd-autograd)"; fi
  rm -f "$w" "$out.html"
fi
