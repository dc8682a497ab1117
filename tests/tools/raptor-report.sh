#!/bin/sh
# tests/tools/raptor-report.sh - raptor --report on a hand-computed fixture
# (imported from a generated rocprofv3 JSON), on rpd-synth traces (checked
# against an independent SQL union), and on the 908 sample in ../shared.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

# GPU0: gemm 10-20us, gemm 15-30us, nccl 25-45us, elementwise 50-52us,
#       H2D copy 44-60us.  GPU1: elementwise 10-13us, layer_norm 70-90us.
# init..fini = 5..105us.
report_fixture
cp rep.rpd rep.orig

csvcol() { tr -d '\r' <"$1" | tail -n +2 | cut -d, -f"$2" | tr '\n' ' ' | sed 's/ $//'; }

check_rc "report runs (csv-dir)" 0 raptor rep.rpd --report -q --csv-dir out --histogram-bins 4 --topk 2
same_file "report leaves the trace byte-identical" rep.rpd rep.orig
check_eq "gpu_timeline header" "gpuId,type,time_ms,percent" "$(tr -d '\r' <out/gpu_timeline.csv | head -1)"
# the chart tables are written too; a utilization bin says where it ends,
# the last at the span's end (first op 10 us .. last op end 90 us)
check_eq "utilization.csv: header, 100 bins, the last ending at the span's end" \
  "time_ms,busy_percent,end_ms|100|0.079200,0.080000" \
  "$(tr -d '\r' <out/utilization.csv | head -1)|$(($(wc -l <out/utilization.csv) - 1))|$(tr -d '\r' <out/utilization.csv | tail -1 | cut -d, -f1,3)"
check_eq "idle_gaps.csv: GPU 1's 57 us gap (13 -> 70 us) in 10-100 us" "gap,count,total_ms|10-100 us,1,0.057000" \
  "$(tr -d '\r' <out/idle_gaps.csv | head -1)|$(tr -d '\r' <out/idle_gaps.csv | grep '^10-100 us')"
# idle by each definition (init..fini = 5..105 us): GPU 0 busy 10-60 us,
# GPU 1 busy 10-13 and 70-90 us
check_eq "idle_definitions: whole run vs the GPU's ops' span, side by side" \
"gpuId,run_ms,idle_run_ms,idle_run_pct,ops_span_ms,idle_ops_span_ms,idle_ops_span_pct,rpd_analyze_idle_ms
0,0.100000,0.050000,50.0000,0.050000,0.000000,0.0000,
1,0.100000,0.077000,77.0000,0.080000,0.057000,71.2500," "$(tr -d '\r' <out/idle_definitions.csv)"
cp rep.rpd repa.rpd
rpd-analyze repa.rpd >/dev/null 2>&1
check_eq "idle_definitions: rpd-analyze's stored idle = the ops' span idle" "0.000000=0.000000 0.057000=0.057000" \
  "$(raptor repa.rpd --report --table idle_definitions --format csv | tr -d '\r' | tail -n +2 | awk -F, '{ printf "%s%s=%s", (NR > 1 ? " " : ""), $6, $8 }')"
check_rc "--table utilization --format csv" 0 raptor rep.rpd --report --table utilization --format csv
check_eq "--table utilization: the same rows as the CSV file" "$(tr -d '\r' <out/utilization.csv)" "$(tr -d '\r' <stdout)"
check_eq "gpu_timeline all GPUs (ms): total kernel memory busy idle comp exp_comm exp_memcpy" \
  "0.100000 0.057000 0.016000 0.070000 0.030000 0.042000 0.015000 0.013000" \
  "$(tr -d '\r' <out/gpu_timeline.csv | grep '^,' | cut -d, -f3 | tr '\n' ' ' | sed 's/ $//')"
check_eq "gpu_timeline GPU 0" \
  "0.100000 0.037000 0.016000 0.050000 0.050000 0.022000 0.015000 0.013000" \
  "$(tr -d '\r' <out/gpu_timeline.csv | grep '^0,' | cut -d, -f3 | tr '\n' ' ' | sed 's/ $//')"
check_eq "gpu_timeline GPU 1" \
  "0.100000 0.023000 0.000000 0.023000 0.077000 0.023000 0.000000 0.000000" \
  "$(tr -d '\r' <out/gpu_timeline.csv | grep '^1,' | cut -d, -f3 | tr '\n' ' ' | sed 's/ $//')"
check_eq "gpu_timeline percent of total" "57.0000" \
  "$(tr -d '\r' <out/gpu_timeline.csv | grep '^,kernel,' | cut -d, -f4)"
check_eq "kernel_summary header" \
  "name,count,total_us,mean_us,median_us,std_us,min_us,max_us,percent,cumulative_percent,category" \
  "$(tr -d '\r' <out/kernel_summary.csv | head -1)"
check_eq "kernel_summary rows (desc total, cumulative in that order)" \
"Cijk_gemm_a,2,25.000,12.500,12.500,3.536,10.000,15.000,35.7143,35.7143,GEMM
layer_norm_kernel,1,20.000,20.000,20.000,,20.000,20.000,28.5714,64.2857,Normalization
ncclDevKernel_Generic,1,20.000,20.000,20.000,,20.000,20.000,28.5714,92.8571,_COMM
elementwise_kernel,2,5.000,2.500,2.500,0.707,2.000,3.000,7.1429,100.0000,Elementwise" \
  "$(tr -d '\r' <out/kernel_summary.csv | tail -n +2)"
check_eq "category rows" \
"GEMM,1,2,0.025000,35.7143,35.7143
Normalization,1,1,0.020000,28.5714,64.2857
_COMM,1,1,0.020000,28.5714,92.8571
Elementwise,1,2,0.005000,7.1429,100.0000" \
  "$(tr -d '\r' <out/category.csv | tail -n +2)"
check_eq "kernel_details: top 2 by duration with grid/block" \
"ncclDevKernel_Generic,20.000,0,1,3,25000,0x0,300,1,1,64,1,1,0,0,_COMM
layer_norm_kernel,20.000,1,1,6,70000,0x0,600,1,1,64,1,1,0,0,Normalization" \
  "$(tr -d '\r' <out/kernel_details.csv | tail -n +2)"
check_eq "short_kernels (< 10us; 10us itself is not short)" \
  "elementwise_kernel,2,5.000,2.500,7.1429,Elementwise" \
  "$(tr -d '\r' <out/short_kernels.csv | tail -n +2)"
check_eq "short_histogram (numpy bins over min..max)" \
"2.000000,2.250000,1
2.250000,2.500000,0
2.500000,2.750000,0
2.750000,3.000000,1" \
  "$(tr -d '\r' <out/short_histogram.csv | tail -n +2)"

check_rc "--gpu-id 1" 0 raptor rep.rpd --report --gpu-id 1 --format csv --table gpu_timeline
check_eq "--gpu-id 1: timeline rows only for GPU 1" "8" \
  "$(tr -d '\r' <"$TESTDIR/stdout" | grep -c '^1,')"
check_eq "--table: csv is one table (header + 8 rows)" "gpuId,type,time_ms,percent 9" \
  "$(tr -d '\r' <"$TESTDIR/stdout" | head -1) $(grep -c '' "$TESTDIR/stdout")"
check_rc "--gpu-id 1 kernel_summary" 0 raptor rep.rpd --report --gpu-id 1 --format csv --table kernel_summary
check_eq "--gpu-id 1: kernels of GPU 1 only" "layer_norm_kernel elementwise_kernel" \
  "$(tr -d '\r' <"$TESTDIR/stdout" | sed -n '2,$p' | cut -d, -f1 | tr '\n' ' ' | sed 's/ *$//')"
check_rc "--short-kernel-threshold-us 12.5" 0 raptor rep.rpd --report --short-kernel-threshold-us 12.5 --format csv --table short_kernels
check_eq "threshold 12.5us takes the 10us gemm" "elementwise_kernel,2 Cijk_gemm_a,1" \
  "$(tr -d '\r' <"$TESTDIR/stdout" | sed -n '2,$p' | cut -d, -f1,2 | sort -r | tr '\n' ' ' | sed 's/ *$//')"
check_rc "--format csv without --table: usage error" 2 raptor rep.rpd --report --format csv
check "--format csv without --table: says why" grep -q "one table per stream" "$TESTDIR/stderr"
check_rc "--table bogus: usage error" 2 raptor rep.rpd --report --table bogus

check_rc "--format json" 0 raptor rep.rpd --report --format json
check "json output parses" python3 -c "import json,sys; d=json.load(open('$TESTDIR/stdout')); assert d['gpu_timeline'][1]['time_ms'] == 0.057 and d['kernel_summary'][1]['std_us'] is None"

printf '{"A": ["gemm"], "B": ["gemm_a"], "Norm": ["norm"]}\n' >cats.json
check_rc "--category-json" 0 raptor rep.rpd --report -q --category-json cats.json --csv-dir cj
check_eq "custom categories: last match wins, unmatched _Other" \
  "B,1,2 Norm,1,1 _Other,2,3" \
  "$(tr -d '\r' <cj/category.csv | tail -n +2 | cut -d, -f1-3 | sort | tr '\n' ' ' | sed 's/ $//')"

check_rc "--xlsx" 0 raptor rep.rpd --report -q --xlsx rep.xlsx
check_eq "xlsx is a zip workbook with ten sheets (info, six tables, utilization, idle_gaps, idle_definitions)" "PK 10" \
  "$(head -c 2 rep.xlsx) $(python3 -c "import zipfile; print(sum(1 for n in zipfile.ZipFile('rep.xlsx').namelist() if n.startswith('xl/worksheets/sheet')))")"

# named outputs: --xlsx F and --csv-dir D's files are never the trace, a
# device or a directory; written to a temp file and renamed (a hard link to
# the previous file keeps its content; no leftovers)
mkdir outs
cp rep.rpd outs/in.rpd
check_rc "--xlsx is the input: exit 1" 1 raptor outs/in.rpd --report -q --xlsx outs/in.rpd
check_one_line "--xlsx is the input: one line"
check "--xlsx is the input: says so" grep -q "cannot write 'outs/in.rpd': is the input file" "$TESTDIR/stderr"
same_file "--xlsx is the input: trace byte-identical" rep.rpd outs/in.rpd
mkdir outs/cd
ln outs/in.rpd outs/cd/category.csv
check_rc "--csv-dir file is the input: exit 1" 1 raptor outs/in.rpd --report -q --csv-dir outs/cd
check_one_line "--csv-dir file is the input: one line"
same_file "--csv-dir file is the input: trace byte-identical" rep.rpd outs/in.rpd
check_eq "--csv-dir file is the input: nothing written" category.csv "$(ls -A outs/cd)"
rm -rf outs/cd outs/in.rpd
if mknod outs/null c 1 3 2>/dev/null; then
  check_rc "--xlsx is a device: exit 1" 1 raptor rep.rpd --report -q --xlsx outs/null
  check_one_line "--xlsx is a device: one line"
  check_eq "--xlsx is a device: still a character device" yes "$([ -c outs/null ] && echo yes || echo no)"
  rm -f outs/null
  mkdir outs/cd; mknod outs/cd/category.csv c 1 3
  check_rc "--csv-dir file is a device: exit 1" 1 raptor rep.rpd --report -q --csv-dir outs/cd
  check_one_line "--csv-dir file is a device: one line"
  check_eq "--csv-dir file is a device: still a character device" yes "$([ -c outs/cd/category.csv ] && echo yes || echo no)"
  rm -rf outs/cd
else
  skip "--xlsx/--csv-dir onto a device" "mknod needs root"
fi
echo previous >outs/r.xlsx; ln outs/r.xlsx outs/r.old
check_rc "--xlsx over an existing file" 0 raptor rep.rpd --report -q --xlsx outs/r.xlsx
check_eq "--xlsx over an existing file: a workbook, replaced by rename" "PK previous" \
  "$(head -c 2 outs/r.xlsx) $(cat outs/r.old)"
mkdir outs/cd; echo previous >outs/cd/category.csv; ln outs/cd/category.csv outs/cat.old
check_rc "--csv-dir over existing files" 0 raptor rep.rpd --report -q --csv-dir outs/cd
same_file "--csv-dir over existing files: the same category.csv" out/category.csv outs/cd/category.csv
check_eq "--csv-dir over existing files: replaced by rename" previous "$(cat outs/cat.old)"
ln255=$(printf '%0251d' 0).out
check_rc "--xlsx with a 255-byte name" 0 raptor rep.rpd --report -q --xlsx "outs/$ln255"
check_eq "no temp file left" "$ln255 cat.old cd r.old r.xlsx | category.csv gpu_timeline.csv idle_definitions.csv idle_gaps.csv kernel_details.csv kernel_summary.csv short_histogram.csv short_kernels.csv utilization.csv" \
  "$(ls -A outs | LC_ALL=C sort | tr '\n' ' ')| $(ls -A outs/cd | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
if [ -c /dev/full ]; then
  check_rc "stdout full: exit 1" 1 sh -c 'raptor rep.rpd --report >/dev/full'
  check_one_line "stdout full: one line"
fi

check_rc "--save" 0 raptor rep.rpd --report -q --save
check_eq "ext_report_gpu_timeline: 3 x 8 rows, all-GPU kernel busy" "24|0.057" \
  "$(q rep.rpd "SELECT count(*), (SELECT time_ms FROM ext_report_gpu_timeline WHERE gpuId IS NULL AND type='kernel') FROM ext_report_gpu_timeline")"
check_eq "ext_report tables" "ext_report_category ext_report_gpu_timeline ext_report_kernel_summary ext_report_short_histogram ext_report_short_kernels" \
  "$(q rep.rpd "SELECT name FROM sqlite_master WHERE name LIKE 'ext_report%' ORDER BY 1" | tr '\n' ' ' | sed 's/ $//')"
check_eq "ext_report_kernel_summary" "4|70.0" \
  "$(q rep.rpd "SELECT count(*), round(sum(total_us), 3) FROM ext_report_kernel_summary")"
check_rc "--save again" 0 raptor rep.rpd --report -q --save
check_eq "re-running --save does not duplicate rows" "24|4|2|100" \
  "$(q rep.rpd "SELECT (SELECT count(*) FROM ext_report_gpu_timeline), (SELECT count(*) FROM ext_report_kernel_summary), (SELECT count(*) FROM ext_report_short_histogram WHERE count > 0), (SELECT count(*) FROM ext_report_short_histogram)")"

# ---------------------------------------------------------------- errors
cp rep.orig ro.rpd; chmod a-w ro.rpd
check_rc "--save on a read-only trace fails" 1 raptor ro.rpd --report -q --save
check_one_line "read-only: one line"
same_file "read-only trace untouched" ro.rpd rep.orig
check_rc "missing trace" 1 raptor nosuch.rpd --report
check_one_line "missing trace: one line"
echo "not a database" >junk.rpd
check_rc "not sqlite" 1 raptor junk.rpd --report
check_one_line "not sqlite: one line"
check_rc "bad option" 2 raptor rep.rpd --report --bogus
check_rc "bad number" 2 raptor rep.rpd --report --histogram-bins x
check_rc "zero bins" 2 raptor rep.rpd --report --histogram-bins 0
check_rc "bad format" 2 raptor rep.rpd --report --format xml
echo '{"A": [' >badcat.json
check_rc "bad category json" 1 raptor rep.rpd --report --category-json badcat.json
check_one_line "bad category json: one line"
printf '{"A": ["("]}' >badre.json
check_rc "bad category regex" 1 raptor rep.rpd --report --category-json badre.json
check_rc "gpu without ops" 1 raptor rep.rpd --report --gpu-id 7

# ---------------------------------------------------------------- native traces
# Union of kernel intervals computed by SQL (window running max), per GPU.
# Kernels = KernelExecution and graph-replayed Task ops (docs/schema.md).
sql_union() { # FILE GPU-FILTER
  q "$1" "SELECT sum(CASE WHEN pm IS NULL OR start >= pm THEN e - start
                          WHEN e > pm THEN e - pm ELSE 0 END)
          FROM (SELECT start, \"end\" AS e, max(\"end\") OVER (ORDER BY start, \"end\"
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS pm
                FROM op WHERE opType IN ('KernelExecution', 'Task') $2)"
}
if command -v rpd-synth >/dev/null 2>&1; then
  for schema in 3 2; do
    rpd-synth --seed 7 --api 3000 --gpus 2 --schema $schema -o syn$schema.rpd >/dev/null
    check_rc "synth v$schema: report" 0 raptor syn$schema.rpd --report -q --csv-dir syn$schema
    for g in 0 1; do
      want=$(sql_union syn$schema.rpd "AND gpuId = $g")
      got=$(tr -d '\r' <syn$schema/gpu_timeline.csv | grep "^$g,kernel," | cut -d, -f3 | tr -d . | sed 's/^0*//')
      check_eq "synth v$schema gpu $g: kernel busy = SQL union (ns)" "$want" "${got:-0}"
    done
    check_eq "synth v$schema: summary counts every kernel" \
      "$(q syn$schema.rpd "SELECT count(*) FROM op WHERE opType IN ('KernelExecution', 'Task')")" \
      "$(tr -d '\r' <syn$schema/kernel_summary.csv | tail -n +2 | awk -F, '{ n += $(NF-9) } END { print n }')"
  done
  # the text tables fit the width: 160 columns when stdout is not a
  # terminal, --width N, or no limit with --width 0; long names are cut in
  # the middle, CSV keeps them whole
  long=$(tr -d '\r' <syn3/kernel_summary.csv | tail -n +2 | cut -d, -f1 | awk '{ if (length($0) > length(m)) m = $0 } END { print m }')
  check_rc "report text table, stdout a file" 0 raptor syn3.rpd --report --table kernel_summary
  check_eq "text fits 160 columns when stdout is not a terminal; a long name cut" "160 1" \
    "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' stdout) $(grep -c '\.\.\.' stdout | sed 's/^[1-9][0-9]*$/1/')"
  check_rc "report --width 130" 0 raptor syn3.rpd --report --table kernel_summary --width 130
  check "--width 130: no line wider" awk 'length($0) > 130 { exit 1 }' stdout
  check_rc "report --width 0" 0 raptor syn3.rpd --report --table kernel_summary --width 0
  check "--width 0: the longest name whole (${#long} characters)" grep -qF "$long" stdout
  check_eq "csv keeps the longest name whole" 1 "$(grep -cF "$long" syn3/kernel_summary.csv)"
  check_rc "bad --width" 2 raptor syn3.rpd --report --width x
  check_rc "by-rank --width 90" 0 raptor syn3.rpd --by-rank --width 90
  check "by-rank --width 90: no line wider" awk 'length($0) > 90 { exit 1 }' stdout
else
  skip "rpd-synth not built"
fi

# ---------------------------------------------------------------- mytrace
# Busy time = the union of every op interval (mytrace has only kernels,
# graph-replayed Task kernels and copies), by an SQL of its own.
if need_shared "$TRACES/mytrace.rpd.gz"; then
  gzip -dc "$TRACES/mytrace.rpd.gz" >my.rpd
  check_rc "mytrace: report" 0 raptor my.rpd --report -q --csv-dir my
  all_union=$(q my.rpd "SELECT sum(CASE WHEN pm IS NULL OR start >= pm THEN e - start
                          WHEN e > pm THEN e - pm ELSE 0 END)
          FROM (SELECT start, \"end\" AS e, max(\"end\") OVER (ORDER BY start, \"end\"
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS pm FROM rocpd_op)")
  check_eq "mytrace: union of all op intervals = 416623418 ns" 416623418 "$all_union"
  check_eq "mytrace: busy_time = SQL union of all ops" "$all_union" \
    "$(tr -d '\r' <my/gpu_timeline.csv | grep '^,busy_time,' | cut -d, -f3 | tr -d . | sed 's/^0*//')"
  check_eq "mytrace: kernel time = KernelExecution + Task union (ms)" ",kernel,407.137122" \
    "$(tr -d '\r' <my/gpu_timeline.csv | grep '^,kernel,' | cut -d, -f1-3)"
  check_eq "mytrace: summary counts 1228 KernelExecution + 7720 Task ops" 8948 \
    "$(tr -d '\r' <my/kernel_summary.csv | tail -n +2 | awk -F, '{ n += $(NF-9) } END { print n }')"
  check_rc "mytrace: rpd-schema --views --force installs opClass and busy" 0 \
    rpd-schema --views my.rpd --force
  check_eq "mytrace: busy view BusyTime = the same union" "$all_union" \
    "$(q my.rpd "SELECT BusyTime FROM busy")"
  check_eq "mytrace: opClass classes" "CopyDeviceToDevice copy CopyDeviceToHost copy CopyHostToDevice copy KernelExecution kernel Task kernel" \
    "$(q my.rpd "SELECT opType, class FROM opClass ORDER BY opType" | tr '|\n' '  ' | sed 's/ $//')"
fi

# ---------------------------------------------------------------- 908 sample
if need_shared "$TRACES/rocprofv3_908_results.json.gz"; then
  rpd-import -q "$TRACES/rocprofv3_908_results.json.gz" r908.rpd
  check_rc "908: report" 0 raptor r908.rpd --report -q --csv-dir r908 --save
  check_eq "908: kernel busy = 4233.112334 ms, total (init..fini) 19207.532470 ms" \
    ",kernel,4233.112334 ,total_time,19207.532470" \
    "$(tr -d '\r' <r908/gpu_timeline.csv | grep -E '^,(kernel|total_time),' | cut -d, -f1-3 | sort | tr '\n' ' ' | sed 's/ $//')"
  check_eq "908: kernel busy = SQL union" "4233112334" "$(sql_union r908.rpd '')"
  check_eq "908: summary covers 43,915 dispatches, 4441741.378 us" "43915 4441741.378" \
    "$(q r908.rpd "SELECT sum(count), round(sum(total_us), 3) FROM ext_report_kernel_summary" | tr '|' ' ')"
  check_eq "908: top kernel" "ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>),1310,4158756.678,3174.623,1217.193,31156.657" \
    "$(tr -d '\r' <r908/kernel_summary.csv | sed -n 2p | cut -d, -f1-6)"
  # kernel names: full by default (no note); truncated ones are said
  check_rc "908: report with full names" 0 raptor r908.rpd --report --table kernel_summary
  check_eq "908: full names: no note on stderr" 0 "$(grep -c 'note: kernel names' "$TESTDIR/stderr")"
  rpd-import -q --truncated-names "$TRACES/rocprofv3_908_results.json.gz" r908t.rpd
  check_rc "908 --truncated-names: report" 0 raptor r908t.rpd --report --table kernel_summary --format csv
  check_eq "908 --truncated-names: the report says the names are truncated" 1 \
    "$(grep -c "note: kernel names are rocprofv3's truncated names" "$TESTDIR/stderr")"
  check_eq "908 --truncated-names: top kernel groups every nccl variant" "ncclDevKernel_Generic_1" \
    "$(tr -d '\r' <"$TESTDIR/stdout" | sed -n 2p | cut -d, -f1)"
  check_eq "908: short kernels (< 10us) and histogram agree" \
    "$(tr -d '\r' <r908/short_kernels.csv | tail -n +2 | awk -F, '{ n += $(NF-4) } END { print n }')" \
    "$(tr -d '\r' <r908/short_histogram.csv | tail -n +2 | awk -F, '{ n += $3 } END { print n }')"
  check_eq "908: 35,968 short dispatches" "35968" \
    "$(tr -d '\r' <r908/short_histogram.csv | tail -n +2 | awk -F, '{ n += $3 } END { print n }')"
fi

# ---------------------------------------------------------------- one category engine
# raptor's tables and --report give every kernel the same category (one
# rule set, one matcher): on the real kernel names of mytrace and the 908
# import.  Checked as a join of ext_raptor_op and ext_report_kernel_summary.
same_categories() { # NAME FILE
  cp "$2" "$2.k"
  raptor "$2.k" --save -k >/dev/null 2>&1
  raptor "$2.k" --report --save -q >/dev/null 2>&1
  check_eq "$1: kernels with a category in both" 1 \
    "$(q "$2.k" "SELECT count(*) > 10 FROM ext_report_kernel_summary")"
  check_eq "$1: -k and --report agree on every kernel's category" 0 \
    "$(q "$2.k" "SELECT count(*) FROM ext_report_kernel_summary r JOIN (SELECT DISTINCT kernel, category FROM ext_raptor_kernelseq) k ON k.kernel = r.name WHERE k.category <> r.category")"
  check_eq "$1: no kernel name is missing from -k" 0 \
    "$(q "$2.k" "SELECT count(*) FROM ext_report_kernel_summary r WHERE r.name NOT IN (SELECT kernel FROM ext_raptor_op)")"
}
if need_shared "$TRACES/mytrace.rpd.gz"; then
  same_categories mytrace my.rpd
  check_eq "mytrace: ck_tile FmhaFwdKernel is Attention in both" "Attention Attention" \
    "$(q my.rpd.k "SELECT (SELECT DISTINCT category FROM ext_raptor_kernelseq WHERE kernel LIKE '%FmhaFwdKernel%') || ' ' || (SELECT category FROM ext_report_kernel_summary WHERE name LIKE '%FmhaFwdKernel%')")"
  check_eq "mytrace: typeConvert rms_norm is not Convolution" "vllm vllm" \
    "$(q my.rpd.k "SELECT (SELECT group_concat(DISTINCT category) FROM ext_raptor_kernelseq WHERE kernel LIKE '%typeConvert%rms_norm%') || ' ' || (SELECT group_concat(DISTINCT category) FROM ext_report_kernel_summary WHERE name LIKE '%typeConvert%rms_norm%')")"
fi
if [ -f r908.rpd ]; then
  same_categories 908 r908.rpd
  check_eq "908: nccl kernels are _COMM (communication) in both" "_COMM _COMM" \
    "$(q r908.rpd.k "SELECT (SELECT group_concat(DISTINCT category) FROM ext_raptor_kernelseq WHERE kernel LIKE 'ncclDevKernel%') || ' ' || (SELECT group_concat(DISTINCT category) FROM ext_report_kernel_summary WHERE name LIKE 'ncclDevKernel%')")"
fi

# ---------------------------------------------------------------- no kernel ops
# copies only: empty kernel tables, no qsort(NULL, 0) (run under SANITIZE=1)
if command -v rpd-synth >/dev/null 2>&1; then
  rpd-synth --seed 3 --api 500 --gpus 1 -o nok.rpd >/dev/null
  q nok.rpd "DELETE FROM rocpd_op WHERE opType_id IN (SELECT id FROM rocpd_string WHERE string IN ('KernelExecution', 'Task'))"
  check_rc "copies only: report exit 0" 0 raptor nok.rpd --report -q --csv-dir nok
  check_eq "copies only: kernel 0 ms, memory = SQL union of the copies" \
    ",kernel,0.000000 $(q nok.rpd "SELECT printf(',memory,%.6f', sum(CASE WHEN pm IS NULL OR start >= pm THEN e - start WHEN e > pm THEN e - pm ELSE 0 END) / 1e6) FROM (SELECT start, \"end\" AS e, max(\"end\") OVER (ORDER BY start, \"end\" ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS pm FROM rocpd_op)")" \
    "$(tr -d '\r' <nok/gpu_timeline.csv | grep -E '^,(kernel|memory),' | cut -d, -f1-3 | tr '\n' ' ' | sed 's/ $//')"
  check_eq "copies only: empty kernel tables" "1 1 1 1 1" \
    "$(for f in kernel_summary category kernel_details short_kernels short_histogram; do grep -c '' nok/$f.csv; done | tr '\n' ' ' | sed 's/ $//')"
fi

# ---------------------------------------------------------------- HIP API summary
# api_stats = the rows of raptor --format api-stats, in us
rpd-synth --seed 2 --api 3000 --gpus 1 -o api.rpd >/dev/null
check_rc "api_stats: --table api_stats --format csv" 0 raptor api.rpd --report --table api_stats --format csv
tr -d '\r' <stdout | tail -n +2 | awk -F, '{ printf "%s,%s,%.0f\n", $1, $2, $3 * 1000 }' >api.got
raptor api.rpd --format api-stats | tail -n +2 | tr -d '"' | cut -d, -f1-3 >api.want
check "api_stats: some HIP calls" test -s api.want
same_file "api_stats: name, calls, total = raptor --format api-stats" api.want api.got
check_rc "api_stats in --csv-dir" 0 raptor api.rpd --report -q --csv-dir apid
check_eq "api_stats.csv: header" "name,calls,total_us,mean_us,percent,min_us,max_us,std_us" \
  "$(tr -d '\r' <apid/api_stats.csv | head -1)"
check_rc "api_stats: --html" 0 raptor api.rpd --report -q --html api.html
check_eq "--html: idle_definitions and api_stats tables" 2 \
  "$(grep -c -E '<h2 id="(idle_definitions|api_stats)">' api.html)"
# the xlsx utilization chart: x = time_ms, its axis up to the last bin's end
check_rc "utilization chart: --xlsx" 0 raptor rep.rpd --report -q --xlsx util.xlsx
check_eq "utilization chart: a scatter whose x axis ends at the span's end (0.08 ms)" "scatter 0.08" \
  "$(python3 -c 'import re, zipfile
z = zipfile.ZipFile("util.xlsx")
for n in z.namelist():
    x = z.read(n).decode("utf-8", "replace")
    if n.startswith("xl/charts/") and "GPU utilization over time" in x:
        print("scatter" if "scatterChart" in x else "other", re.findall(r"<c:max val=\"([^\"]*)\"", x)[0])')"
