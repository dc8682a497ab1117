#!/bin/sh
# rpd-perfmodel: the GEMM / BinaryElementwise / SDPA_fwd / UnaryElementwise
# rows of TraceLens's perf reports of its public MI300 and H100 traces, the
# roofline columns, the augmenter contract (idempotent, --force, -o, bad
# input one line and byte-identical), --arch / --arch-file.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../lib.sh"

# 5000 mm of distinct shapes: more than the model memo's slots, so the
# second pass finds models evicted and reads their args again; each row
# keeps its own op's shape and flops (2 * M * 4 * 8)
awk 'BEGIN { printf "{\"traceEvents\": [\n"
  for (i = 1; i <= 5000; i++)
    printf "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 5, \"args\": {\"External id\": %d, \"Input Dims\": [[%d, 8], [8, 4]], \"Input type\": [\"float\", \"float\"], \"Input Strides\": [[8, 1], [4, 1]]}}%s\n", 10 * i, i, i, i < 5000 ? "," : ""
  print "]}" }' >mm.json
rpd-import -q mm.json mm.rpd >/dev/null 2>&1
check "rpd-perfmodel: 5000 distinct ops" rpd-perfmodel -q mm.rpd
check_eq "each of 5000 distinct ops keeps its own model" "5000|5000|5000" \
  "$(q mm.rpd "SELECT count(*), sum(P.flops = 64 * json_extract(P.params, '\$.M')),
       sum(json_extract(P.params, '\$.M') = json_extract(E.args, '\$.\"External id\"'))
     FROM ext_perf_op P JOIN ext_kineto_event E ON E.api_id = P.api_id AND E.cat = 'cpu_op'")"

# every row and group of perf_op_summary, as one checksum
rows_sum() {
  q "$1" "SELECT * FROM ext_perf_op ORDER BY api_id; SELECT * FROM perf_op_summary
    ORDER BY name, category, params" | cksum
}

command -v python3 >/dev/null 2>&1 || { skip "rpd-perfmodel: needs python3"; exit 0; }
KT="$TRACES/kineto"
need_shared "$KT" || exit 0

# with_tracelens T DIR: the model, then each sheet's rows against TraceLens's
with_tracelens() {
  check "rpd-perfmodel $1 runs" rpd-perfmodel $1.rpd
  for c in $(tracelens_sheets "$2" GEMM BinaryElementwise SDPA_fwd UnaryElementwise); do
    python3 "$HERE/perfmodel_compare.py" $1.rpd "$2/perf_report_csvs/$c.csv" $c $1
  done
}
tracelens_each rpd-perfmodel with_tracelens

if [ -f mi300.rpd ]; then
  d=$(ls -d "$KT"/tracelens_mi300_*/)
  # the comparison fails on a planted difference
  sed 's/^aten::mm,1,8944,2816,1024,False,"(1024, 1)","(1, 1024)","(.c10::BFloat16., .c10::BFloat16.)","(True, False)",51.581550592/&1/' \
    "$d/perf_report_csvs/GEMM.csv" >planted.csv
  out=$(python3 "$HERE/perfmodel_compare.py" mi300.rpd planted.csv GEMM planted)
  case "$out" in "not ok - "*GFLOPS*) ok "comparison catches a changed GFLOPS";;
    *) notok "comparison catches a changed GFLOPS" "$out";; esac

  check_eq "arch picked from the device name" "MI300X" \
    "$(q mi300.rpd "SELECT value FROM rocpd_metadata WHERE tag = 'PerfModel::arch'")"
  # one mm of M=8944 N=2816 K=1024 bf16 on MI300X: 51.581550592 GFLOP at
  # 1307.4 TFLOP/s = 39453.5 ns; 74457088 bytes at 5.3 TB/s = 14048.5 ns
  check_eq "roofline of a GEMM: compute bound, ns at the peak" "compute|39453.5|14048.5" \
    "$(q mi300.rpd "SELECT DISTINCT bound, round(roofline_ns, 1), round(bytes / 5.3 / 1e3, 1) FROM ext_perf_op
        WHERE name = 'aten::mm' AND params LIKE '%\"N\":2816,\"K\":1024%'")"
  check_eq "lost_ns = kernel_ns - roofline_ns" "0" \
    "$(q mi300.rpd "SELECT count(*) FROM ext_perf_op WHERE roofline_ns IS NOT NULL AND kernel_ns > 0
        AND abs(lost_ns - (kernel_ns - roofline_ns)) > 1e-6")"
  check_eq "pct of peak from TFLOP/s" "0" \
    "$(q mi300.rpd "SELECT count(*) FROM ext_perf_op WHERE spec = 'matrix_bf16' AND kernel_ns > 0
        AND abs(pct_peak_compute - 100 * tflops_s / 1307.4) > 1e-9")"
  check_eq "unmodelled ops are 'none' rows without figures" "0" \
    "$(q mi300.rpd "SELECT count(*) FROM ext_perf_op WHERE category = 'none' AND (flops IS NOT NULL OR params IS NOT NULL)")"
  check_eq "every cpu_op has a row" "$(q mi300.rpd "SELECT count(*) FROM ext_kineto_event WHERE cat = 'cpu_op' AND api_id IS NOT NULL")" \
    "$(q mi300.rpd "SELECT count(*) FROM ext_perf_op")"
  check_eq "linear around addmm is outer" "0" \
    "$(q mi300.rpd "SELECT count(*) FROM ext_perf_op WHERE name = 'aten::linear' AND outer = 0")"
  # the kernel times come from a walk of the call stack, not its closure
  # table: none is left in the trace, and the sums are those of
  # ext_callstack (built by rpd-callstack on a copy)
  check_eq "no ext_callstack written" "0" \
    "$(q mi300.rpd "SELECT count(*) FROM sqlite_master WHERE name = 'ext_callstack'")"
  # the ops read in an order other than ascending api id: the second pass
  # sorts them, and reads the args of every op again
  cp mi300.rpd rev.rpd && q rev.rpd "UPDATE ext_kineto_event SET id = -id"
  check "events in reverse api id order: rpd-perfmodel --force" rpd-perfmodel -q --force rev.rpd
  check_eq "... the same rows" "$(rows_sum mi300.rpd)" "$(rows_sum rev.rpd)"
  cp mi300.rpd cs.rpd && rpd-callstack cs.rpd >/dev/null 2>&1
  check_eq "kernel_ns, direct_kernel_ns, kernels, outer = sums over ext_callstack" "4619 0 1813" \
    "$(q cs.rpd "WITH K AS (SELECT parent_id AS id, sum(gpu_time) AS k,
        sum(CASE WHEN depth = 1 THEN gpu_time ELSE 0 END) AS d, sum(gpu_time > 0) AS n,
        max(C.child_id IN (SELECT api_id FROM ext_perf_op WHERE category != 'none')) AS i
        FROM ext_callstack C WHERE depth > 0 GROUP BY parent_id)
      SELECT count(*) || ' ' || sum(P.kernel_ns != coalesce(K.k, 0) OR P.direct_kernel_ns != coalesce(K.d, 0)
        OR P.kernels != coalesce(K.n, 0) OR P.outer != (P.category != 'none' AND coalesce(K.i, 0)))
        || ' ' || sum(P.kernel_ns > 0)
      FROM ext_perf_op P LEFT JOIN K ON K.id = P.api_id")"

  # idempotent re-run, --force, -o
  before=$(sha mi300.rpd)
  check_rc "re-run exits 0" 0 rpd-perfmodel mi300.rpd
  check_eq "re-run says nothing to do, file unchanged" "1 $before" \
    "$(grep -c 'nothing to do' "$TESTDIR/stdout" "$TESTDIR/stderr" | awk -F: '{s+=$2} END {print s}') $(sha mi300.rpd)"
  n=$(q mi300.rpd "SELECT count(*) FROM ext_perf_op")
  check "--force rebuilds" rpd-perfmodel --force --arch H100 mi300.rpd
  check_eq "--force: same rows, the arch given" "$n H100" \
    "$(q mi300.rpd "SELECT count(*) FROM ext_perf_op") $(q mi300.rpd "SELECT value FROM rocpd_metadata WHERE tag = 'PerfModel::arch'")"
  # .gz input, -o: the copy is modelled, the input untouched
  rpd-import "$d/trace.json.gz" plain.rpd >/dev/null 2>&1 && gzip -c plain.rpd >in.rpd.gz
  gzbefore=$(sha in.rpd.gz)
  check ".gz input with -o" rpd-perfmodel in.rpd.gz -o fromgz.rpd
  check_eq ".gz: same GEMM rows, input unchanged" \
    "$(q mi300.rpd "SELECT count(*), sum(flops) FROM ext_perf_op WHERE category = 'GEMM'") $gzbefore" \
    "$(q fromgz.rpd "SELECT count(*), sum(flops) FROM ext_perf_op WHERE category = 'GEMM'") $(sha in.rpd.gz)"
  cat >my.arch <<'A'
# a made-up GPU
name TOY
bf16 100
vec_fp32 10
hbm_tbs 1
A
  check "--arch-file" rpd-perfmodel --force --arch-file my.arch -o toy.rpd mi300.rpd
  check_eq "--arch-file peaks used" "TOY|1" \
    "$(q toy.rpd "SELECT (SELECT value FROM rocpd_metadata WHERE tag = 'PerfModel::arch'),
        count(*) = sum(abs(pct_peak_compute - tflops_s) < 1e-9) FROM ext_perf_op WHERE spec = 'matrix_bf16' AND kernel_ns > 0")"
  printf 'name X\nbf16 abc\nhbm_tbs 1\n' >bad.arch
  before=$(sha mi300.rpd)
  check_rc "bad arch file exits 1" 1 rpd-perfmodel --force --arch-file bad.arch mi300.rpd
  check_one_line "bad arch file: one line"
  check_rc "unknown --arch exits 1" 1 rpd-perfmodel --force --arch XYZ123 mi300.rpd
  check_one_line "unknown --arch: one line"
  check_eq "failed runs leave the input byte-identical" "$before" "$(sha mi300.rpd)"
fi

# not a Kineto import: one line, exit 1, input unchanged
rpd-synth -o synth.rpd >/dev/null 2>&1 || rpd-synth synth.rpd >/dev/null 2>&1
if [ -f synth.rpd ]; then
  before=$(sha synth.rpd)
  check_rc "no ext_kineto_event exits 1" 1 rpd-perfmodel synth.rpd
  check_one_line "no ext_kineto_event: one line"
  check_eq "input byte-identical" "$before" "$(sha synth.rpd)"
fi
# an RPD trace with PyTorch autograd markers (rpd-synth): after rpd-autograd
# the markers' sizes are modelled, dtypes from --dtype
if [ -f synth.rpd ]; then
  check_eq "no ext_autogradapi: the message names rpd-autograd" 1 "$(grep -c 'rpd-autograd' "$TESTDIR/stderr")"
  cp synth.rpd ag.rpd && rpd-autograd ag.rpd >/dev/null 2>&1
  check "autograd markers: rpd-perfmodel --dtype bf16" rpd-perfmodel ag.rpd --arch MI300X --dtype bf16 -o agbf.rpd
  check "autograd markers: rpd-perfmodel without --dtype" rpd-perfmodel ag.rpd --arch MI300X -o agnone.rpd
  # aten::linear of sizes [[512, 768], [768, 768]]: M=512 N=768 K=768,
  # 2*512*768*768 FLOPs; bf16: 2 * (512*768 + 768*768 + 512*768) bytes
  check_eq "autograd: linear FLOPs and bytes, bf16" "603979776|2752512|matrix_bf16" \
    "$(q agbf.rpd "SELECT DISTINCT CAST(flops AS INT), CAST(bytes AS INT), spec FROM ext_perf_op
        WHERE name = 'aten::linear' AND params LIKE '%\"M\":512,\"N\":768,\"K\":768%'")"
  check_eq "autograd: without --dtype the FLOPs, no bytes, no % of peak" "603979776||" \
    "$(q agnone.rpd "SELECT DISTINCT CAST(flops AS INT), bytes, pct_peak_compute FROM ext_perf_op
        WHERE name = 'aten::linear' AND params LIKE '%\"M\":512,\"N\":768,\"K\":768%'")"
  check_eq "autograd: the markers' kernels are timed" 1 \
    "$(q agbf.rpd "SELECT count(*) > 0 FROM ext_perf_op WHERE category = 'GEMM' AND kernel_ns > 0")"
  check "autograd: raptor --report" raptor agbf.rpd --report -q --csv-dir agcsv
  check_eq "autograd: GEMM.csv with the sizes as Input Dims_first" 1 \
    "$(grep -c '^aten::linear,1,512,768,768,False,.*"\[\[512, 768\], \[768, 768\]\]"' agcsv/GEMM.csv)"
  # the sums of the ops, sorted by api id in runs of 2 ops merged back
  # (the sort's buffer is 4 MiB: 128k ops), give the same rows
  RPD_ANALYZE_SORT_BYTES=64 rpd-perfmodel -q ag.rpd --arch MI300X --dtype bf16 -o agspill.rpd
  check_eq "autograd: sums spilled to sorted runs of 2 ops, the same rows" \
    "$(rows_sum agbf.rpd) 1" "$(rows_sum agspill.rpd) $(q agspill.rpd "SELECT count(*) > 4000 FROM ext_perf_op WHERE kernel_ns > 0")"
  check_rc "--dtype of an unknown type is a usage error" 2 rpd-perfmodel ag.rpd --dtype fp7
  # markers without sizes (as mytrace's): nothing modelled, and a note why
  q ag.rpd "UPDATE ext_autogradapi SET sizes = ''" && rpd-perfmodel ag.rpd -o nosizes.rpd >out.txt 2>err.txt
  check_eq "markers without sizes: 0 modelled, a note on record_shapes" "1 1" \
    "$(grep -c ', 0 modelled;' out.txt) $(grep -c 'record_shapes=True' err.txt)"
  check_rc "--table GEMM of it: exit 1" 1 raptor nosizes.rpd --report --table GEMM
  check_eq "--table GEMM of it: says nothing was modelled" 1 "$(grep -c 'modelled no op' "$TESTDIR/stderr")"
fi

printf 'not a database' >junk.rpd
check_rc "junk exits 1" 1 rpd-perfmodel junk.rpd
check_one_line "junk: one line"
check_eq "junk byte-identical" "not a database" "$(cat junk.rpd)"
check_rc "bad option exits 2" 2 rpd-perfmodel --arch
check_rc "--arch and --arch-file together: exit 2" 2 rpd-perfmodel junk.rpd --arch MI300X --arch-file x.arch
check_eq "... says to give one" 1 "$(grep -c "give one --arch or --arch-file" "$TESTDIR/stderr")"
check_rc "--dtype of an unknown type: exit 2" 2 rpd-perfmodel junk.rpd --dtype fp7
check_eq "... names the types" 1 "$(grep -c "bad --dtype 'fp7': use bf16, fp16, fp32, fp64 or fp8" "$TESTDIR/stderr")"
