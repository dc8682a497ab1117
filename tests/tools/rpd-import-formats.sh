#!/bin/sh
# tests/tools/rpd-import-formats.sh - rpd-import's issue-16 formats:
# rocprofv3 counter_collection / memory_allocation / scratch_memory /
# rocdecode / rocjpeg CSVs and the column variants, lone CSVs recognised
# by header, rocprof v1 rpl text traces and results.db.  Format-exact
# fixtures always; the real samples of ../shared when present.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

# ------------------------------------------------ rocprofv3 CSV fixtures
rocprofv3_kinds_csv set
# unquoted numbers, no Stream_Id: another rocprofv3 version
cat >set/7_rocdecode_api_trace.csv <<'EOF'
Domain,Function,Process_Id,Thread_Id,Correlation_Id,Start_Timestamp,End_Timestamp
ROCDECODE_API,rocDecCreateVideoParser,77,77,583,615,700
ROCDECODE_API,rocDecGetDecoderCaps,77,77,584,710,720
EOF

check_rc "csv set with counters, allocations, scratch, rocdecode, rocjpeg: exit 0" 0 \
  rpd-import set s.rpd
check_eq "summary: read/wrote lines for every kind" \
  "read counter_collection 4|read rocdecode_api 2|read rocjpeg_api 1|read memory_allocation 2|read scratch_memory 1|wrote rocpd_counter 4|wrote ext_memory_allocation 2|wrote ext_scratch_memory 1" \
  "$(grep -E 'read (counter|memory_alloc|scratch|rocdec|rocjp)|wrote (rocpd_counter|ext_)' "$TESTDIR/stderr" | awk '{print $1, $2, $3}' | paste -sd'|')"
check_eq "counter view: 4 values on 3 dispatches, exact sum 2564" "4|3|2564.0" \
  "$(q s.rpd "SELECT count(*), count(DISTINCT op_id), sum(value) FROM counter")"
check_eq "counters join the kernel_trace ops (dispatch 3 is not there: its op made from the row)" \
  "3|1" "$(q s.rpd "SELECT count(*), sum(sequenceId = 3) FROM rocpd_op WHERE opType_id IN (SELECT id FROM rocpd_string WHERE string='KernelExecution')")"
check_eq "counter rows, whole" \
  "1|void add<float>(float*)|GRBM_COUNT|2500.0;1|void add<float>(float*)|SQ_WAVES|16.0;2|gemm(int)|SQ_WAVES|16.0;3|gemm(int)|SQ_WAVES|32.0" \
  "$(q s.rpd "SELECT dispatch, kernelName, counter, value FROM counter ORDER BY dispatch, counter" | paste -sd';')"
check_eq "memory allocations: rows whole (gpu index of Agent 4 = 0)" \
  "MEMORY_ALLOCATION_ALLOCATE|0|Agent 4|1024|0x00007ffb26354000|5|100|200;MEMORY_ALLOCATION_FREE|0|Agent 4|0|0x00007ffb26354000|6|300|310" \
  "$(q s.rpd "SELECT operation, gpuId, agent, size, address, api_id, start, end FROM ext_memory_allocation ORDER BY id" | paste -sd';')"
check_eq "scratch memory row" "SCRATCH_MEMORY_ALLOC|0|1|113|0|1124|1500" \
  "$(q s.rpd "SELECT operation, gpuId, queueId, tid, flags, start, end FROM ext_scratch_memory")"
check_eq "rocdecode/rocjpeg api rows by domain" "ROCDECODE|2|95;ROCJPEG|1|14" \
  "$(q s.rpd "SELECT domain, count(*), sum(end-start) FROM api GROUP BY domain ORDER BY domain" | paste -sd';')"

# a lone CSV whose name says nothing, with rocpd-to-csv's leading Guid
cat >rocpd-out.csv <<'EOF'
"Guid","Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"
"0000ddb5-8903","HIP_COMPILER_API_EXT","__hipRegisterFatBinary",137,137,1,10,30
"0000ddb5-8903","HIP_RUNTIME_API_EXT","hipMalloc",137,137,2,40,45
"0000ddb5-8903","MARKER_CORE_API","step 1",137,137,3,50,50
"0000ddb5-8903","RCCL_API","ncclAllReduce",137,137,4,60,90
EOF
check_rc "lone rocpd-to-csv file (Guid column): exit 0" 0 rpd-import rocpd-out.csv g.rpd
check_eq "domain from each row's category; markers are UserMarker with the message" \
  "1|HIP|__hipRegisterFatBinary|;2|HIP|hipMalloc|;3|ROCTX|UserMarker|step 1;4|RCCL|ncclAllReduce|" \
  "$(q g.rpd "SELECT id, domain, apiName, args FROM api ORDER BY id" | paste -sd';')"
printf '"Correlation_Id","Dispatch_Id","Agent_Id","Counter_Name","Counter_Value"\n1,1,1,"SQ_WAVES",12x\n' >bad_counter_collection.csv
cp bad_counter_collection.csv bad.orig
check_rc "bad counter value: exit 1" 1 rpd-import bad_counter_collection.csv bad.rpd
check_one_line "bad counter value: one line"
check_eq "bad counter value: says where" \
  "rpd-import: cannot import 'bad_counter_collection.csv': bad_counter_collection.csv: line 2: column 'Counter_Value': not a number: '12x'" \
  "$(cat "$TESTDIR/stderr")"
same_file "bad counter value: input byte-identical" bad.orig bad_counter_collection.csv
check_eq "bad counter value: no OUT left" "no" "$(test -e bad.rpd && echo yes || echo no)"

# ------------------------------------------------ rocprof v1 fixtures
mkdir v1
printf '%s\n' \
 '100:200 9:9 hipMalloc(ptr=0x7f28b1200000, size=8388608) :1' \
 '300:400 9:9 hipMemcpy(dst=0x7f28b1200000, src=0x7f6a9acb7010, sizeBytes=8388608, kind=1) :2' \
 '500:600 9:9 hipLaunchKernel(function_address=0x201030, numBlocks={z=1, y=1, x=16}, stream=0) kernel=gemm(unsigned int, float const*) :3' \
 '700:800 9:10 hipFree(ptr=0x7f28b1200000) :4' >v1/9_hip_api_trace.txt
printf '%s\n' '310:390 1:0 CopyHostToDevice:2:9' '610:2610 1:0 gemm:3:9' >v1/9_hcc_ops_trace.txt
printf '%s\n' '150 9:9 1:0:"epoch 1"' '160 9:9 0:0:"mark"' '900 9:9 2:0:""' '950 9:9 2:0:""' >v1/9_roctx_trace.txt
check_rc "v1 rpl directory: exit 0" 0 rpd-import v1 v1.rpd
check_eq "v1: ops whole (kernel named by the launch's kernel=, copy H2D on gpu 1)" \
  "1|0|310|390||CopyHostToDevice;1|0|610|2610|gemm(unsigned int, float const*)|KernelExecution" \
  "$(q v1.rpd "SELECT gpuId, queueId, start, end, description, opType FROM op ORDER BY start" | paste -sd';')"
check_eq "v1: api rows with args, linked by correlation id" \
  "1|hipMalloc|ptr=0x7f28b1200000, size=8388608;2|hipMemcpy|dst=0x7f28b1200000, src=0x7f6a9acb7010, sizeBytes=8388608, kind=1;3|hipLaunchKernel|function_address=0x201030, numBlocks={z=1, y=1, x=16}, stream=0;4|hipFree|ptr=0x7f28b1200000" \
  "$(q v1.rpd "SELECT id, apiName, args FROM api WHERE domain='HIP' ORDER BY id" | paste -sd';')"
check_eq "v1: the copy's size from its call's sizeBytes" "2|8388608|1" "$(q v1.rpd "SELECT api_ptr_id, size, kind FROM rocpd_copyapi")"
check_eq "v1: both ops linked" "2;3" "$(q v1.rpd "SELECT api_id FROM rocpd_api_ops ORDER BY api_id" | paste -sd';')"
check_eq "v1 roctx: a range 150..900 and a mark; the extra pop counted" "150|900|epoch 1;160|160|mark" \
  "$(q v1.rpd "SELECT start, end, args FROM api WHERE domain='ROCTX' ORDER BY start" | paste -sd';')"
check_eq "v1 summary: the unmatched pop" "  skipped 1 roctx push/pop records without a partner" \
  "$(grep 'without a partner' "$TESTDIR/stderr")"
check_rc "v1: one file names its directory" 0 rpd-import -q v1/9_hcc_ops_trace.txt v1b.rpd
check_eq "v1 via one file: same rows" "2|6" "$(q v1b.rpd "SELECT (SELECT count(*) FROM op), (SELECT count(*) FROM api)")"
mkdir v1bad
printf '100:200 9:9 hipMalloc(ptr=1) :1\n100:x 9:9 hipFree(ptr=1) :2\n' >v1bad/1_hip_api_trace.txt
check_rc "v1 malformed line: exit 1" 1 rpd-import v1bad v1bad.rpd
check_one_line "v1 malformed line: one line"
check_eq "v1 malformed line: names file and line" \
  "rpd-import: cannot import 'v1bad': v1bad/1_hip_api_trace.txt: line 2: not a rocprof hip_api line: '100:x 9:9 hipFree(ptr=1) :2'" \
  "$(cat "$TESTDIR/stderr")"

# a results.db in exactly rocprof v1's layout
sqlite3 v1res.db <<'EOF'
CREATE TABLE HIP ("BeginNs" INTEGER,"EndNs" INTEGER,"pid" INTEGER,"tid" INTEGER,"Name" TEXT,"args" TEXT,"Index" INTEGER,"Data" TEXT,"__section" INTEGER,"__lane" INTEGER,"DurationNs" INTEGER);
CREATE TABLE OPS ("BeginNs" INTEGER,"EndNs" INTEGER,"dev-id" INTEGER,"queue-id" INTEGER,"Name" TEXT,"pid" INTEGER,"tid" INTEGER,"roctx-range" TEXT,"stream-id" INTEGER,"Index" INTEGER,"Data" TEXT,"__section" INTEGER,"__lane" INTEGER,"DurationNs" INTEGER);
CREATE TABLE COPY ("BeginNs" INTEGER,"EndNs" INTEGER,"dev-id" INTEGER,"queue-id" INTEGER,"Name" TEXT,"pid" INTEGER,"tid" INTEGER,"roctx-range" TEXT,"stream-id" INTEGER,"Index" INTEGER,"Data" TEXT,"__section" INTEGER,"__lane" INTEGER,"DurationNs" INTEGER);
INSERT INTO HIP VALUES (100,200,9,9,'hipMemcpy','( dst(0x1) sizeBytes(8))',1,'',2,9,100),(300,400,9,9,'hipLaunchKernel','( kernel(k(int)))',2,'',2,9,100);
INSERT INTO COPY VALUES (120,180,3,0,'CopyHostToDevice',9,9,'',0,1,'',1,0,60);
INSERT INTO OPS VALUES (310,1310,3,0,'k(int)',9,9,'',0,2,'',8,1,1000);
EOF
cp v1res.db v1res.orig
check_rc "v1 results.db: exit 0" 0 rpd-import v1res.db v1res.rpd
check_eq "v1 results.db: ops whole" "3|120|180||CopyHostToDevice|1;3|310|1310|k(int)|KernelExecution|2" \
  "$(q v1res.rpd "SELECT O.gpuId, O.start, O.end, O.description, O.opType, A.api_id FROM op O JOIN rocpd_api_ops A ON A.op_id = O.id ORDER BY O.start" | paste -sd';')"
check_eq "v1 results.db: copy size from the HIP args sizeBytes(8)" "1|8" "$(q v1res.rpd "SELECT api_ptr_id, size FROM rocpd_copyapi")"
same_file "v1 results.db: input byte-identical" v1res.orig v1res.db

# ------------------------------------------------ the real samples
D="$TRACES/rocprofv3_doc_samples"
if need_shared "$D/counter_collection.csv"; then
  check_rc "doc counter_collection.csv: exit 0" 0 rpd-import "$D/counter_collection.csv" dc.rpd
  check_eq "doc counter_collection.csv: 4 SQ_WAVES values, sum 65536" "4|65536.0" \
    "$(q dc.rpd "SELECT count(*), sum(value) FROM counter WHERE counter='SQ_WAVES'")"
  check_rc "doc kernel_names.csv (no timestamps): exit 0" 0 rpd-import "$D/kernel_names.csv" dk.rpd
  check_eq "doc kernel_names.csv: 4 divide_kernel ops made from the counter rows" "4|4" \
    "$(q dk.rpd "SELECT count(*), sum(description LIKE 'divide_kernel%') FROM op")"
  for f in hip_trace rccl_trace rocpd-to-csv python_bindings hip_runtime_trace hip_compile_trace hsa_core_api_trace; do
    want=$(($(grep -c . "$D/$f.csv") - 1))
    rpd-import -q "$D/$f.csv" "d_$f.rpd" 2>"$TESTDIR/stderr"
    check_eq "doc $f.csv: every row an api call ($want)" "$want" "$(q "d_$f.rpd" "SELECT count(*) FROM rocpd_api" 2>&1)"
  done
  check_rc "doc samples directory: exit 0" 0 rpd-import "$D" dall.rpd
  # every CSV kind is read, also those named by the docs only
  # (kernel_trace_truncated.csv: 4 more kernels; kernel_names.csv: 4 more
  # counters on 2 ops of their own); the others are named, one line each
  check_eq "doc directory: 15 kernels, 4 copies, 4 allocations, 2 scratch, 8 counters" "15|4|4|2|8" \
    "$(q dall.rpd "SELECT (SELECT count(*) FROM op WHERE opType='KernelExecution'), (SELECT count(*) FROM op WHERE opType LIKE 'Copy%'), (SELECT count(*) FROM ext_memory_allocation), (SELECT count(*) FROM ext_scratch_memory), (SELECT count(*) FROM rocpd_counter)")"
  check_eq "doc directory: the files not imported, one line each with the reason" \
"rpd-import: skipped '$D/hip_api_stats.csv': a statistics file (--stats), not a trace
rpd-import: skipped '$D/hip_domain_stats.csv': a statistics file (--stats), not a trace
rpd-import: skipped '$D/pc_sampling_host_trap.csv': PC samples are not imported
rpd-import: skipped '$D/pc_sampling_host_trap_debug.csv': PC samples are not imported
rpd-import: skipped '$D/pc_sampling_stochastic_debug.csv': PC samples are not imported" \
    "$(grep skipped\ "'" "$TESTDIR/stderr")"
  # the case seen: a run's kernel_trace.csv beside the API files named as
  # the docs name them, a stats file, a PC sampling file and a note
  mkdir -p docrun
  cp "$D/kernel_trace.csv" "$D/hip_runtime_trace.csv" "$D/rccl_trace.csv" "$D/hip_api_stats.csv" \
     "$D/pc_sampling_host_trap.csv" docrun/
  printf 'what,when\nrun 1,today\n' >docrun/notes.csv
  check_rc "kernel_trace.csv + hip_runtime_trace.csv + rccl_trace.csv: exit 0" 0 rpd-import -q docrun docrun.rpd
  check_eq "... every api file imported: 8 HIP runtime + 21 RCCL calls, 9 kernels" "HIP|8;RCCL|21;kernels|9" \
    "$(q docrun.rpd "SELECT domain, count(*) FROM api GROUP BY 1 UNION ALL SELECT 'kernels', count(*) FROM op ORDER BY 1" | paste -sd';')"
  check_eq "... -q still names the 3 files skipped" \
"rpd-import: skipped 'docrun/hip_api_stats.csv': a statistics file (--stats), not a trace
rpd-import: skipped 'docrun/notes.csv': not a rocprofv3 trace (unknown columns)
rpd-import: skipped 'docrun/pc_sampling_host_trap.csv': PC samples are not imported" "$(cat "$TESTDIR/stderr")"
  # with --prefix, a file whose name is not of the run is named too
  cp "$D/kernel_trace.csv" docrun/x_kernel_trace.csv
  check_rc "--prefix x: exit 0" 0 rpd-import -q --prefix x docrun docrunx.rpd
  check_eq "--prefix x: the run's kernels only" "9|0" "$(q docrunx.rpd "SELECT (SELECT count(*) FROM op), (SELECT count(*) FROM api)")"
  check "--prefix x: hip_runtime_trace.csv named as not of the run" \
    grep -qx "rpd-import: skipped 'docrun/hip_runtime_trace.csv': not of the run asked for with --prefix" "$TESTDIR/stderr"
fi
V="$TRACES/rocprofv1_batched_gemm"
if need_shared "$V/results.db"; then
  check_rc "batched_gemm rpl text: exit 0" 0 rpd-import "$V/runtime_rpl_input" vt.rpd
  check_rc "batched_gemm results.db: exit 0" 0 rpd-import "$V/results.db" vd.rpd
  # results.stats.csv: 1 call, 331634184678 ns; copy_stats: D2H 25180001, H2D 948544
  for f in vt vd; do
    check_eq "batched_gemm $f: kernel time = results.stats.csv (331634184678)" "1|331634184678" \
      "$(q $f.rpd "SELECT count(*), sum(end-start) FROM op WHERE opType='KernelExecution'")"
    check_eq "batched_gemm $f: copy times = results.copy_stats.csv" "CopyDeviceToHost|1|25180001;CopyHostToDevice|2|948544" \
      "$(q $f.rpd "SELECT opType, count(*), sum(end-start) FROM op WHERE opType LIKE 'Copy%' GROUP BY 1 ORDER BY 1" | paste -sd';')"
    check_eq "batched_gemm $f: copy bytes from the hipMemcpy calls" "75497472" "$(q $f.rpd "SELECT sum(size) FROM rocpd_copyapi")"
    check_eq "batched_gemm $f: hip api = results.hip_stats.csv (12 calls, hipMemcpy 331854458600)" "12|331854458600" \
      "$(q $f.rpd "SELECT count(*), sum(CASE WHEN apiName='hipMemcpy' THEN end-start END) FROM api")"
  done
fi

# a kernel-only rocprof v1 run (no --hip-trace: finite-difference,
# seismic-stencils) leaves a results.db with only its KERN table: one row
# per dispatch, results.csv's columns
if need_shared "$V/results.db"; then
  cp "$V/results.db" kern.db; chmod u+w kern.db
  sqlite3 kern.db "DROP TABLE HIP; DROP TABLE OPS; DROP TABLE COPY"
  check_rc "kernel-only results.db (batched_gemm's, KERN empty): exit 0" 0 rpd-import kern.db kern0.rpd
  check_eq "kernel-only results.db, empty KERN: no ops" "0" "$(q kern0.rpd "SELECT count(*) FROM rocpd_op")"
  sqlite3 kern.db 'INSERT INTO KERN VALUES (0, "gemm(int)"), (1, "add(float*)")'
  cp kern.db kern.orig
  check_rc "kernel-only results.db, KERN without timestamps: exit 0" 0 rpd-import kern.db kern1.rpd
  check_eq "KERN without timestamps: one op per row, at 0" "0|0|0|0|gemm(int);0|1|0|0|add(float*)" \
    "$(q kern1.rpd "SELECT gpuId, sequenceId, start, end, description FROM op ORDER BY id" | paste -sd';')"
  check "KERN without timestamps: the summary says the ops have no timing" grep -q "2 kernels have no timing" "$TESTDIR/stderr"
  same_file "kernel-only results.db: input byte-identical" kern.orig kern.db
  sqlite3 kern.db 'DROP TABLE KERN; CREATE TABLE KERN ("Index" INTEGER, "KernelName" TEXT, "gpu-id" INTEGER, "queue-id" INTEGER, "queue-index" INTEGER, "pid" INTEGER, "tid" INTEGER, "grd" INTEGER, "wgr" INTEGER, "lds" INTEGER, "scr" INTEGER, "sig" TEXT, "obj" TEXT, "DispatchNs" INTEGER, "BeginNs" INTEGER, "EndNs" INTEGER, "CompleteNs" INTEGER, "DurationNs" INTEGER, "SQ_WAVES" INTEGER, "GRBM_COUNT" REAL);
    INSERT INTO KERN VALUES (0, "gemm(int)", 2, 1, 0, 9, 9, 4096, 256, 0, 0, "0x0", "0x7f", 100, 200, 1200, 1300, 1000, 64, 12.5),
                            (1, "add(float*)", 2, 1, 1, 9, 9, 1024, 64, 0, 0, "0x0", "0x7f", 1300, 1400, 1450, 1500, 50, 16, NULL)'
  check_rc "kernel-only results.db with timestamps and counters: exit 0" 0 rpd-import kern.db kern2.rpd
  check_eq "KERN: ops whole" "2|1|0|200|1200|gemm(int);2|1|1|1400|1450|add(float*)" \
    "$(q kern2.rpd "SELECT gpuId, queueId, sequenceId, start, end, description FROM op ORDER BY id" | paste -sd';')"
  check_eq "KERN: counters per dispatch (DurationNs is timing, NULL is no value)" "0|GRBM_COUNT|12.5;0|SQ_WAVES|64.0;1|SQ_WAVES|16.0" \
    "$(q kern2.rpd "SELECT dispatch, counter, value FROM counter ORDER BY dispatch, counter" | paste -sd';')"
  mkdir -p kcsv && sqlite3 -csv -header kern.db "SELECT * FROM KERN" >kcsv/results.csv
  rpd-import -q kcsv/results.csv kcsv.rpd
  check_eq "KERN: the ops and counters its results.csv gives" \
    "$(q kcsv.rpd "SELECT gpuId, queueId, start, end, description FROM op ORDER BY id; SELECT counter, value FROM counter ORDER BY 1, 2" | md5sum)" \
    "$(q kern2.rpd "SELECT gpuId, queueId, start, end, description FROM op ORDER BY id; SELECT counter, value FROM counter ORDER BY 1, 2" | md5sum)"
  # given where a trace belongs: the rpd-import command, as for rocprofv3 output
  for t in raptor rpd2tracing rpd-callstack; do
    check_rc "kernel-only results.db given to $t: exit 1" 1 $t kern.db
    check_eq "kernel-only results.db given to $t: the rpd-import hint" \
      "$t: cannot open 'kern.db': rocprof v1 results.db, not an RPD trace; convert it with: rpd-import kern.db kern.rpd" \
      "$(cat "$TESTDIR/stderr")"
  done
  check_rc "full v1 results.db given to raptor: exit 1" 1 raptor "$V/results.db"
  check_eq "full v1 results.db given to raptor: the rpd-import hint" \
    "raptor: cannot open '$V/results.db': rocprof v1 results.db, not an RPD trace; convert it with: rpd-import $V/results.db results.rpd" \
    "$(cat "$TESTDIR/stderr")"
fi

# files that are not traces say what they are
printf '"Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev"\n"hipMalloc",1,5,5.000000,100.00,5,5,0.00000000e+00\n' >x_stats.csv
check_rc "a stats file: exit 1" 1 rpd-import x_stats.csv xs.rpd
check_eq "a stats file: says so" "rpd-import: cannot import 'x_stats.csv': a statistics file (rocprof --stats output), not a trace: import the trace files of the run" "$(cat "$TESTDIR/stderr")"
printf '"Sample_Timestamp","Exec_Mask","Dispatch_Id","Instruction","Instruction_Comment","Correlation_Id"\n1,65535,1,"s_endpgm","",1\n' >pcs.csv
check_rc "PC samples: exit 1, one line" 1 rpd-import pcs.csv pcs.rpd
check_one_line "PC samples: one line"
printf '{ "traceEvents":[{}\n,{"args":{"name":"GPU0"},"ph":"M","pid":6,"name":"process_name"}\n]}\n' >results.json
check_rc "rocprof v1 results.json: exit 1" 1 rpd-import results.json rj.rpd
check_eq "rocprof v1 results.json without slices: says what was looked for" "rpd-import: cannot import 'results.json': not rocprofv3 output (no 'rocprofiler-sdk-tool' key) and not a rocprof v1 results.json (a chrome trace with no 'CPU HIP API', 'COPY' or 'GPU<N>' slices)" "$(cat "$TESTDIR/stderr")"

# rocprof v1 results.csv (rocprof -i counters.txt --timestamp on): one row
# per dispatch, counters in the columns after the fixed ones
printf '"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds","scr","arch_vgpr","accum_vgpr","sgpr","wave_size","sig","obj","DispatchNs","BeginNs","EndNs","CompleteNs","GRBM_COUNT","SQ_WAVES"\n0,"gemm(int, float)",2,0,0,894,894,1048576,512,0,0,16,0,24,64,"0x0","0x7f",100,200,1200,1300,12345,2048\n1,"add(float*)",2,0,1,894,894,1024,64,0,0,8,0,16,64,"0x0","0x7f",1400,1500,1600,1700,99,16\n' >results.csv
check_rc "rocprof v1 results.csv: exit 0" 0 rpd-import results.csv v1csv.rpd
check_eq "v1 results.csv: ops whole" "2|0|0|200|1200|gemm(int, float);2|0|1|1500|1600|add(float*)" \
  "$(q v1csv.rpd "SELECT gpuId, queueId, sequenceId, start, end, description FROM op ORDER BY start" | paste -sd';')"
check_eq "v1 results.csv: counters per dispatch" "0|GRBM_COUNT|12345.0;0|SQ_WAVES|2048.0;1|GRBM_COUNT|99.0;1|SQ_WAVES|16.0" \
  "$(q v1csv.rpd "SELECT dispatch, counter, value FROM counter ORDER BY dispatch, counter" | paste -sd';')"

# --timestamp on adds DurationNs (EndNs - BeginNs): rocprof's own timing,
# already the op's end - start, not a counter
mkdir -p dur
printf '"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds","scr","arch_vgpr","accum_vgpr","sgpr","wave_size","sig","obj","DispatchNs","BeginNs","EndNs","CompleteNs","DurationNs","SQ_WAVES"\n0,"gemm(int, float)",2,0,0,894,894,1048576,512,0,0,16,0,24,64,"0x0","0x7f",100,200,1200,1300,1000,2048\n' >dur/results.csv
check_rc "v1 results.csv with DurationNs: exit 0" 0 rpd-import dur/results.csv v1dur.rpd
check_eq "v1 results.csv: DurationNs is not a counter, SQ_WAVES is" "0|SQ_WAVES|2048.0" \
  "$(q v1dur.rpd "SELECT dispatch, counter, value FROM counter ORDER BY counter" | paste -sd';')"
check_eq "v1 results.csv: the op lasts DurationNs" "1000" "$(q v1dur.rpd "SELECT end - start FROM op")"

# a rocprof v1 output directory as a whole: the error names the v1 files to import
mkdir -p v1dir/rpl emptydir && : >v1dir/results.db && : >v1dir/results.json
check_rc "rocprof v1 output directory: exit 1" 1 rpd-import v1dir v1dir.rpd
check_eq "rocprof v1 output directory: names results.db and results.json" "rpd-import: cannot import 'v1dir': no rocprofv3 *_trace.csv files in directory; it holds rocprof v1 output: import 'v1dir/results.db' or 'v1dir/results.json' (or its directory of *_hip_api_trace.txt files)" "$(cat "$TESTDIR/stderr")"
check_rc "empty directory: exit 1" 1 rpd-import emptydir e.rpd
check_eq "empty directory: the plain message" "rpd-import: cannot import 'emptydir': no rocprofv3 *_trace.csv files in directory" "$(cat "$TESTDIR/stderr")"
