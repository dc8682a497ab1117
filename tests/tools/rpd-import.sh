#!/bin/sh
# tests/tools/rpd-import.sh - rpd-import on generated rocprofv3 JSON/CSV
# fixtures (always) and on the real samples in ../shared (when present).
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

# ---------------------------------------------------------------- fixtures
cat >fx_results.json <<'EOF'
{"rocprofiler-sdk-tool":[{"metadata":{"node":{"hostname":"fxhost"},"pid":4242,
 "init_time":1000,"fini_time":200000,"command":["python3","train.py","--x"]},
 "agents":[{"id":{"handle":11},"type":1,"logical_node_type_id":0,"name":"CPU"},
  {"id":{"handle":12},"type":2,"logical_node_type_id":0,"name":"gfx942"},
  {"id":{"handle":13},"type":2,"logical_node_type_id":1,"name":"gfx942"}],
 "strings":{"buffer_records":[{"kind":"NONE","operations":[]},
  {"kind":"HIP_RUNTIME_API_EXT","operations":["hipApiName","hipLaunchKernel","hipMemcpy"]},
  {"kind":"MEMORY_COPY","operations":["MEMORY_COPY_NONE","MEMORY_COPY_HOST_TO_HOST",
   "MEMORY_COPY_HOST_TO_DEVICE","MEMORY_COPY_DEVICE_TO_HOST","MEMORY_COPY_DEVICE_TO_DEVICE"]}]},
 "kernel_symbols":[{"kernel_id":1,"kernel_name":"_Z4gemmv.kd","formatted_kernel_name":"Cijk_gemm_full(int, float)",
   "truncated_kernel_name":"Cijk_gemm"},
  {"kernel_id":2,"kernel_name":"_Z3addv.kd","formatted_kernel_name":"void add<float>(float*)",
   "truncated_kernel_name":""}],
 "buffer_records":{
  "kernel_dispatch":[
   {"kind":11,"operation":2,"thread_id":7,"correlation_id":{"internal":5,"external":0},
    "start_timestamp":10000,"end_timestamp":12500,"stream_id":{"handle":3},
    "dispatch_info":{"agent_id":{"handle":12},"queue_id":{"handle":16},"kernel_id":1,"dispatch_id":1,
     "private_segment_size":8,"group_segment_size":64,"workgroup_size":{"x":256,"y":1,"z":1},
     "grid_size":{"x":1024,"y":2,"z":1}}},
   {"kind":11,"operation":2,"thread_id":7,"correlation_id":{"internal":6,"external":0},
    "start_timestamp":12000,"end_timestamp":13000,"stream_id":{"handle":3},
    "dispatch_info":{"agent_id":{"handle":12},"queue_id":{"handle":16},"kernel_id":2,"dispatch_id":2,
     "private_segment_size":0,"group_segment_size":0,"workgroup_size":{"x":64,"y":1,"z":1},
     "grid_size":{"x":64,"y":1,"z":1}}},
   {"kind":11,"operation":2,"thread_id":8,"correlation_id":{"internal":9,"external":0},
    "start_timestamp":20000,"end_timestamp":20007,"stream_id":{"handle":0},
    "dispatch_info":{"agent_id":{"handle":13},"queue_id":{"handle":17},"kernel_id":2,"dispatch_id":1,
     "private_segment_size":0,"group_segment_size":0,"workgroup_size":{"x":32,"y":2,"z":1},
     "grid_size":{"x":128,"y":4,"z":1}}}],
  "hip_api":[
   {"kind":1,"operation":1,"thread_id":7,"correlation_id":{"internal":5,"external":0},
    "start_timestamp":9000,"end_timestamp":9500},
   {"kind":1,"operation":1,"thread_id":7,"correlation_id":{"internal":6,"external":0},
    "start_timestamp":9600,"end_timestamp":9900},
   {"kind":1,"operation":2,"thread_id":7,"correlation_id":{"internal":7,"external":0},
    "start_timestamp":14000,"end_timestamp":19000}],
  "memory_copy":[
   {"kind":2,"operation":2,"thread_id":7,"correlation_id":{"internal":7,"external":0},
    "start_timestamp":15000,"end_timestamp":18000,"dst_agent_id":{"handle":12},
    "src_agent_id":{"handle":11},"bytes":4096}],
  "scratch_memory":[{"kind":12,"operation":1}]}}]}
EOF

check_rc "json fixture imports" 0 rpd-import fx_results.json fx.rpd
check_eq "json: ops" "4" "$(q fx.rpd 'SELECT count(*) FROM rocpd_op')"
check_eq "json: kernel ops and exact duration sum" "3|3507" \
  "$(q fx.rpd "SELECT count(*), sum(end-start) FROM op WHERE opType='KernelExecution'")"
check_eq "json: gpu from agent index, queue from handle, full name" \
  "0|16|1|Cijk_gemm_full(int, float) 0|16|2|void add<float>(float*) 1|17|1|void add<float>(float*)" \
  "$(q fx.rpd "SELECT gpuId||'|'||queueId||'|'||sequenceId||'|'||description FROM op WHERE opType='KernelExecution' ORDER BY gpuId, start" | tr '\n' ' ' | sed 's/ $//')"
check_eq "json: kernelapi grid/workgroup/lds/scratch and full name" \
  "0x3|1024|2|1|256|1|1|64|8|Cijk_gemm_full(int, float)" \
  "$(q fx.rpd "SELECT stream, gridX, gridY, gridZ, workgroupX, workgroupY, workgroupZ, groupSegmentSize, privateSegmentSize, kernelName FROM kernel WHERE duration = 2500")"
check_eq "json: api rows (domain, category, name, pid, tid)" \
  "5|HIP|HIP_RUNTIME_API_EXT|hipLaunchKernel|4242|7 6|HIP|HIP_RUNTIME_API_EXT|hipLaunchKernel|4242|7 7|HIP|HIP_RUNTIME_API_EXT|hipMemcpy|4242|7" \
  "$(q fx.rpd "SELECT id||'|'||domain||'|'||category||'|'||apiName||'|'||pid||'|'||tid FROM api ORDER BY id" | tr '\n' ' ' | sed 's/ $//')"
check_eq "json: api_ops link ops to their api calls" "hipLaunchKernel|2 hipMemcpy|1" \
  "$(q fx.rpd "SELECT B.apiName||'|'||count(*) FROM rocpd_api_ops A JOIN api B ON B.id = A.api_id GROUP BY B.apiName ORDER BY 1" | tr '\n' ' ' | sed 's/ $//')"
check_eq "json: copy op type, gpu, bytes" "CopyHostToDevice|0|3000|4096|1|0|-1" \
  "$(q fx.rpd "SELECT O.opType, C.gpuId, C.duration, C.size, C.kind, C.dstDevice, C.srcDevice FROM copyop C JOIN op O ON O.id = C.id")"
check_eq "json: metadata" "4242|fxhost|python3 train.py --x|1000|200000" \
  "$(q fx.rpd "SELECT group_concat(value, '|') FROM (SELECT value FROM rocpd_metadata WHERE tag IN ('rocprofv3::pid','rocprofv3::hostname','rocprofv3::command','rocprofv3::init_time','rocprofv3::fini_time') ORDER BY id)")"
check_eq "json: summary counts every record" \
  "kernel_dispatch 3|hip_api 3|memory_copy 1|scratch_memory 1" \
  "$(sed -n 's/^  read \([a-z_]*\) *\([0-9]*\).*/\1 \2/p' "$TESTDIR/stderr" | tr '\n' '|' | sed 's/|$//')"
check_eq "json: summary rows written" "4 3 4 3 1" \
  "$(sed -n 's/^  wrote rocpd_[a-z_]* *\([0-9]*\).*/\1/p' "$TESTDIR/stderr" | tr '\n' ' ' | sed 's/ $//')"
check_eq "json: schema v3 trace" "3" "$(q fx.rpd "SELECT value FROM rocpd_metadata WHERE tag='schema_version'")"

check_eq "json: ext_kernel_name keeps the truncated name of each full name" \
  "Cijk_gemm_full(int, float)|Cijk_gemm void add<float>(float*)|void add<float>(float*)" \
  "$(q fx.rpd "SELECT F.string||'|'||S.string FROM ext_kernel_name K JOIN rocpd_string F ON F.id = K.name_id JOIN rocpd_string S ON S.id = K.short_name_id ORDER BY 1" | tr '\n' ' ' | sed 's/ $//')"
check_eq "json: metadata says the names are full" "full" \
  "$(q fx.rpd "SELECT value FROM rocpd_metadata WHERE tag='rpd-import::kernel_names'")"
# a symbol with only a truncated name: that name is the description
sed 's/"formatted_kernel_name":"Cijk_gemm_full(int, float)",//; s/"kernel_name":"_Z4gemmv.kd",//' fx_results.json >onlyshort_results.json
check_rc "symbol with only a truncated name imports" 0 rpd-import -q onlyshort_results.json onlyshort.rpd
check_eq "only a truncated name: it is the description" "Cijk_gemm" \
  "$(q onlyshort.rpd "SELECT description FROM op WHERE end-start = 2500")"
check_rc "--full-names (the default) is accepted" 0 \
  rpd-import --full-names -q fx_results.json fxfull.rpd
check_eq "--full-names = default" "$(q fx.rpd 'SELECT * FROM op')" "$(q fxfull.rpd 'SELECT * FROM op')"
check_rc "--truncated-names imports" 0 rpd-import --truncated-names -q fx_results.json fxtr.rpd
check_eq "--truncated-names: description is the short name, kernelName the full one" \
  "Cijk_gemm|Cijk_gemm_full(int, float)|truncated" \
  "$(q fxtr.rpd "SELECT description, (SELECT kernelName FROM kernel WHERE duration = 2500), (SELECT value FROM rocpd_metadata WHERE tag='rpd-import::kernel_names') FROM op WHERE end-start = 2500")"

gzip -c fx_results.json >fx_results.json.gz
check_rc "json.gz imports" 0 rpd-import -q fx_results.json.gz fxgz.rpd
check_eq "json.gz gives the same ops" "$(q fx.rpd 'SELECT * FROM op ORDER BY id')" \
  "$(q fxgz.rpd 'SELECT * FROM op ORDER BY id')"
# OUT.gz: the trace written compressed (rpd_create), the same rows
check_rc "OUT.gz is written" 0 rpd-import -q fx_results.json fxout.rpd.gz
check "OUT.gz is gzip" gzip -t fxout.rpd.gz
gzip -dc fxout.rpd.gz >fxout.rpd
check_eq "OUT.gz: same ops as plain OUT" "$(q fx.rpd 'SELECT * FROM op ORDER BY id')" \
  "$(q fxout.rpd 'SELECT * FROM op ORDER BY id')"

# ---------------------------------------------------------------- bad input
nothing_left() { # NAME OUTFILE
  if [ ! -e "$2" ] && [ -z "$(ls | grep importing)" ]; then ok "$1"
  else notok "$1" "left: $(ls)"; fi
}
head -c 1500 fx_results.json >trunc.json
check_rc "truncated json fails" 1 rpd-import trunc.json t1.rpd
check_one_line "truncated json: one line"
check "truncated json: says where" grep -q 'byte 1500' "$TESTDIR/stderr"
nothing_left "truncated json: no output left" t1.rpd

head -c 700 fx_results.json.gz >trunc.json.gz
check_rc "truncated gzip fails" 1 rpd-import trunc.json.gz t2.rpd
check_one_line "truncated gzip: one line"
nothing_left "truncated gzip: no output left" t2.rpd

sed 's/"bytes":4096/"bytes":4096,,/' fx_results.json >bad.json
check_rc "malformed json fails" 1 rpd-import bad.json t3.rpd
check_one_line "malformed json: one line"
check "malformed json: byte and line" grep -q 'malformed JSON at byte [0-9]* (line 4[0-9])' "$TESTDIR/stderr"
nothing_left "malformed json: no output left" t3.rpd

# the writer checks every op/api row as it goes (the table scan of
# rpd_check_trace only runs to name a bad row): an op ending before it
# starts, an api call ending before it starts, are still refused
sed 's/"end_timestamp":12500/"end_timestamp":9999/' fx_results.json >badop.json
check_rc "op ending before its start fails" 1 rpd-import badop.json t3b.rpd
check_one_line "op ending before its start: one line"
check "names the bad op row" grep -q "rocpd_op.end: 1 row ends before it starts" "$TESTDIR/stderr"
nothing_left "bad op row: no output left" t3b.rpd
sed 's/"end_timestamp":9500/"end_timestamp":8999/' fx_results.json >badapi.json
check_rc "api call ending before its start fails" 1 rpd-import badapi.json t3c.rpd
check "names the bad api row" grep -q "rocpd_api.end: 1 row ends before it starts" "$TESTDIR/stderr"
nothing_left "bad api row: no output left" t3c.rpd

echo '{"traceEvents": []}' >other.json
check_rc "json without rocprofiler-sdk-tool fails" 1 rpd-import other.json t4.rpd
check "names the missing key" grep -q "rocprofiler-sdk-tool" "$TESTDIR/stderr"
nothing_left "foreign json: no output left" t4.rpd

: >empty.json
check_rc "empty file fails" 1 rpd-import empty.json t5.rpd
check_one_line "empty file: one line"
# a FIFO (or a device) is not an empty file: the input is read more than
# once, so it must be a regular file; nothing is created, the FIFO not opened
if mkfifo fifo.json 2>/dev/null; then
  check_rc "FIFO: exit 1" 1 rpd-import fifo.json fifo.rpd
  check_eq "FIFO: says it needs a regular file" \
    "rpd-import: cannot import 'fifo.json': not a regular file (a FIFO or pipe): rpd-import reads its input more than once; save it to a file first" \
    "$(cat "$TESTDIR/stderr")"
  check_eq "FIFO: no output" "" "$(ls fifo.rpd* .fifo.rpd* 2>/dev/null)"
fi

sqlite3 notrocprof.db "CREATE TABLE t(a); INSERT INTO t VALUES (1);"
cp notrocprof.db notrocprof.orig
check_rc "sqlite file that is not rocprofv3 fails" 1 rpd-import notrocprof.db t6.rpd
check "says it is not a rocprofv3 database" grep -q "not a rocprofv3 database" "$TESTDIR/stderr"
same_file "foreign db left byte-identical" notrocprof.db notrocprof.orig
nothing_left "foreign db: no output left" t6.rpd

check_rc "missing input fails" 1 rpd-import no-such-file.json t7.rpd
check_one_line "missing input: one line"
check_rc "existing output is refused" 1 rpd-import -q fx_results.json fx.rpd
check_rc "--force replaces it" 0 rpd-import -q --force fx_results.json fx.rpd
check_eq "--force result is complete" "4" "$(q fx.rpd 'SELECT count(*) FROM rocpd_op')"
# OUT is never the input, a device or a directory (--force or not); it is
# built next to OUT's target and renamed: a symlink keeps pointing at the
# new trace, a 255-byte name works (the temp name is not OUT+suffix)
cp fx_results.json fxin.json
check_rc "OUT is the input (--force): exit 1" 1 rpd-import -q fxin.json fxin.json --force
check_one_line "OUT is the input: one line"
check "OUT is the input: says so" grep -q "cannot write 'fxin.json': is the input file" "$TESTDIR/stderr"
same_file "OUT is the input: input byte-identical" fx_results.json fxin.json
ln -s fxin.json fxlink.json
check_rc "OUT is a symlink to the input (--force): exit 1" 1 rpd-import -q fxin.json fxlink.json --force
same_file "OUT is a symlink to the input: input byte-identical" fx_results.json fxin.json
mkdir outs
if mknod outs/null c 1 3 2>/dev/null; then
  check_rc "OUT is a device (--force): exit 1" 1 rpd-import -q fx_results.json outs/null --force
  check_one_line "OUT is a device: one line"
  check_eq "OUT is a device: still a character device" yes "$([ -c outs/null ] && echo yes || echo no)"
  rm -f outs/null
else
  skip "OUT is a device" "mknod needs root"
fi
echo old >outs/target; ln -s target outs/link
check_rc "OUT is a symlink (--force): exit 0" 0 rpd-import -q fx_results.json outs/link --force
check_eq "OUT is a symlink: the link is kept, its target is the trace" "yes 4" \
  "$([ -L outs/link ] && echo yes || echo no) $(q outs/target 'SELECT count(*) FROM rocpd_op')"
ln255=$(printf '%0251d' 0).out
check_rc "a 255-byte OUT name" 0 rpd-import -q fx_results.json "outs/$ln255"
check_eq "a 255-byte OUT name: the trace" 4 "$(q "outs/$ln255" 'SELECT count(*) FROM rocpd_op')"
check_eq "no temp file left next to OUT" "$ln255 link target" "$(ls -A outs | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
mkdir rodir; chmod a-w rodir
if [ -w rodir ]; then skip "unwritable directory (running as root)"
else
  check_rc "unwritable output directory fails" 1 rpd-import -q fx_results.json rodir/x.rpd
  check_one_line "unwritable output: one line"
fi
check_rc "no arguments is a usage error" 2 rpd-import
check_rc "unknown option is a usage error" 2 rpd-import --bogus a b
check_rc "--help" 0 rpd-import --help

# ---------------------------------------------------------------- CSV
mkdir csvset
printf '%s\r\n' \
 '"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"' \
 '"KERNEL_DISPATCH","Agent 2","1","1","77","1","5","void k<float, 2>(float*, int)","10","1000","1600","128","0","8","0","16","256","1","1","4096","1","1"' \
 '"KERNEL_DISPATCH","Agent 2","1","1","77","2","6","Cijk_gemm","11","1700","2000","0","0","8","0","16","64","1","1","64","1","1"' \
 '"KERNEL_DISPATCH","Agent 3","2","1","77","1","6","Cijk_gemm","11","1800","2100","0","0","8","0","16","64","1","1","64","1","1"' \
 >csvset/55_kernel_trace.csv
printf '%s\n' \
 '"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"' \
 '"HIP_RUNTIME_API_EXT","hipLaunchKernel","55","77","10","900","950"' \
 '"HIP_RUNTIME_API_EXT","hipGraphLaunch","55","77","11","960","990"' \
 '"HIP_RUNTIME_API_EXT","hipMemcpy","55","77","12","2200","2600"' \
 >csvset/55_hip_api_trace.csv
printf '%s\n' \
 '"Kind","Direction","Stream_Id","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp","End_Timestamp"' \
 '"MEMORY_COPY","MEMORY_COPY_DEVICE_TO_HOST","0","Agent 2","Agent 0","12","2300","2500"' \
 >csvset/55_memory_copy_trace.csv
printf '%s\n' \
 '"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"' \
 '"MARKER_CORE_API","step, 1","55","77","0","800","3000"' \
 >csvset/55_marker_api_trace.csv

check_rc "csv directory imports" 0 rpd-import csvset fxcsv.rpd
check_eq "csv: kernel ops, durations, gpus (agents ranked)" "3|1200|0,0,1" \
  "$(q fxcsv.rpd "SELECT count(*), sum(end-start), group_concat(gpuId) FROM (SELECT * FROM op WHERE opType='KernelExecution' ORDER BY start)")"
check_eq "csv: queue and dispatch ids" "1|1 1|2 2|1" \
  "$(q fxcsv.rpd "SELECT queueId||'|'||sequenceId FROM op WHERE opType='KernelExecution' ORDER BY start" | tr '\n' ' ' | sed 's/ $//')"
check_eq "csv: quoted kernel name with comma" "void k<float, 2>(float*, int)" \
  "$(q fxcsv.rpd "SELECT description FROM op WHERE start = 1000")"
check_eq "csv: graph launch links two kernels, one kernelapi row" "2|1" \
  "$(q fxcsv.rpd "SELECT count(*), (SELECT count(*) FROM rocpd_kernelapi WHERE api_ptr_id = 11) FROM rocpd_api_ops WHERE api_id = 11")"
check_eq "csv: copy op" "CopyDeviceToHost|0|200" \
  "$(q fxcsv.rpd "SELECT opType, gpuId, \"end\"-start FROM op WHERE opType LIKE 'Copy%'")"
check_eq "csv: marker becomes UserMarker with its text" "ROCTX|UserMarker|step, 1" \
  "$(q fxcsv.rpd "SELECT domain, apiName, args FROM api WHERE apiName='UserMarker'")"
check_eq "csv: summary" "kernel_dispatch 3|hip_api 3|marker_api 1|memory_copy 1" \
  "$(sed -n 's/^  read \([a-z_]*\) *\([0-9]*\).*/\1 \2/p' "$TESTDIR/stderr" | tr '\n' '|' | sed 's/|$//')"
check_eq "csv: names with signatures are full names" "full" \
  "$(q fxcsv.rpd "SELECT value FROM rocpd_metadata WHERE tag='rpd-import::kernel_names'")"
check_rc "csv prefix imports" 0 rpd-import -q csvset/55_ fxcsv2.rpd
check_eq "csv prefix = directory" "$(q fxcsv.rpd 'SELECT * FROM op')" "$(q fxcsv2.rpd 'SELECT * FROM op')"
check_rc "csv named by one of its files imports" 0 rpd-import -q csvset/55_kernel_trace.csv fxcsv3.rpd
check_eq "csv file name = directory" "$(q fxcsv.rpd 'SELECT count(*) FROM api')" "$(q fxcsv3.rpd 'SELECT count(*) FROM api')"

mkdir badcsv
sed 's/"1600"/"16x0"/' csvset/55_kernel_trace.csv >badcsv/9_kernel_trace.csv
check_rc "csv with a bad number fails" 1 rpd-import badcsv t8.rpd
check_one_line "bad csv: one line"
check "bad csv: names file line and column" grep -q "9_kernel_trace.csv: line 2: column 'End_Timestamp'" "$TESTDIR/stderr"
nothing_left "bad csv: no output left" t8.rpd
# a quoted field holding a newline and "" escapes; line numbers count it
mkdir nlcsv
{ head -1 csvset/55_kernel_trace.csv
  printf '%s\n' '"KERNEL_DISPATCH","Agent 2","1","1","77","1","5","two' 'line ""quoted"" name","10","1000","1600","128","0","8","0","16","256","1","1","4096","1","1"'
  printf '%s\n' '"KERNEL_DISPATCH","Agent 2","1","1","77","2","6","k","11","1700","2x00","0","0","8","0","16","64","1","1","64","1","1"'
} >nlcsv/3_kernel_trace.csv
check_rc "csv: newline inside quotes, then a bad number" 1 rpd-import nlcsv t16.rpd
check "csv: the bad number is reported on line 4" grep -q "3_kernel_trace.csv: line 4: column 'End_Timestamp'" "$TESTDIR/stderr"
# the agent scan (no agent_info.csv: GPU indexes are the agents' ranks)
# reads only the fields up to Agent_Id and skips the rest of each record,
# quotes and newlines included: its errors name the right line too
mkdir nlagent
{ head -3 nlcsv/3_kernel_trace.csv
  printf '%s\n' '"KERNEL_DISPATCH","Agent x","1","1","77","2","6","k","11","1700","2000","0","0","8","0","16","64","1","1","64","1","1"'
} >nlagent/3_kernel_trace.csv
check_rc "csv: newline inside quotes, then a bad agent" 1 rpd-import nlagent t16b.rpd
check "csv: the bad agent is reported on line 4" grep -q "3_kernel_trace.csv: line 4: column 'Agent_Id'" "$TESTDIR/stderr"
# records across the 256 KiB read blocks, every third name on two lines
# with "" escapes and commas: all kept, the agents ranked over the file
awk 'BEGIN { print "\"Kind\",\"Agent_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\""
  for (i = 1; i <= 12000; i++)
    printf "\"KERNEL_DISPATCH\",\"Agent %d\",\"%s\",\"%d\",\"%d\",\"%d\"\r\n", 4 + 3 * (i % 2),
      (i % 3 ? "void k<float, 2>(float*, int)" : "two\nline \"\"q\"\", name"), i, 10 * i, 10 * i + 3 }' >nlagent/3_kernel_trace.csv
check_rc "csv: 12000 records over several read blocks import" 0 rpd-import -q nlagent t16c.rpd
check_eq "csv: every record, names and agent ranks kept" "12000|36000|4000|6000" \
  "$(q t16c.rpd "SELECT count(*), sum(end-start), sum(description LIKE 'two
line \"q\", name'), sum(gpuId) FROM op")"
head -3 nlcsv/3_kernel_trace.csv >nlcsv/k && mv nlcsv/k nlcsv/3_kernel_trace.csv
check_rc "csv: newline inside quotes imports" 0 rpd-import -q nlcsv t17.rpd
check_eq "csv: the quoted name keeps its newline and quotes" 'two
line "quoted" name' "$(q t17.rpd "SELECT description FROM op")"
mkdir bigcsv
sed 's/"1600"/"99999999999999999999"/' csvset/55_kernel_trace.csv >bigcsv/9_kernel_trace.csv
check_rc "csv with a number beyond int64 fails" 1 rpd-import bigcsv t18.rpd
check "csv beyond int64: named as not a number" grep -q "column 'End_Timestamp': not a number: '99999999999999999999'" "$TESTDIR/stderr"
mkdir emptydir
check_rc "directory without csv files fails" 1 rpd-import emptydir t9.rpd

# CSV from rocprofv3 --truncate-kernels: short names only, said in metadata
mkdir shortcsv
sed 's/"void k<float, 2>(float\*, int)"/"k"/' csvset/55_kernel_trace.csv >shortcsv/7_kernel_trace.csv
check_rc "csv with truncated names imports" 0 rpd-import -q shortcsv tshort.rpd
check_eq "csv truncated names: metadata truncated-only, names kept" "truncated-only|Cijk_gemm,k" \
  "$(q tshort.rpd "SELECT (SELECT value FROM rocpd_metadata WHERE tag='rpd-import::kernel_names'), (SELECT group_concat(description) FROM (SELECT DISTINCT description FROM op ORDER BY 1))")"

# issue 11.9: two runs in one directory (decode_*, prefill_*)
mkdir tworuns
cp csvset/55_kernel_trace.csv tworuns/decode_kernel_trace.csv
cp csvset/55_hip_api_trace.csv tworuns/decode_hip_api_trace.csv
head -2 csvset/55_kernel_trace.csv >tworuns/prefill_kernel_trace.csv
check_rc "two runs in one directory: refused" 1 rpd-import tworuns t10.rpd
check_one_line "two runs: one line"
check "two runs: names both prefixes and --prefix" \
  grep -q "2 runs in one directory: decode_\*, prefill_\*; import one with --prefix NAME" "$TESTDIR/stderr"
nothing_left "two runs: no output" t10.rpd
check_rc "--prefix prefill imports that run" 0 rpd-import -q --prefix prefill tworuns t11.rpd
check_eq "--prefix prefill: its 1 kernel, no api" "1|0" \
  "$(q t11.rpd "SELECT count(*), (SELECT count(*) FROM rocpd_api) FROM rocpd_op")"
check_rc "--prefix decode_ imports that run" 0 rpd-import -q --prefix decode_ tworuns t12.rpd
check_eq "--prefix decode_: 3 kernels, 3 api rows" "3|3" \
  "$(q t12.rpd "SELECT count(*), (SELECT count(*) FROM rocpd_api) FROM rocpd_op")"
check_rc "--prefix of an absent run fails" 1 rpd-import -q --prefix warmup tworuns t13.rpd
check "--prefix absent: lists the runs" grep -q "no run 'warmup' in directory (runs: decode_\*, prefill_\*)" "$TESTDIR/stderr"
check_rc "--all-runs merges both" 0 rpd-import -q --all-runs tworuns t14.rpd
check_eq "--all-runs: 4 kernels" "4" "$(q t14.rpd "SELECT count(*) FROM rocpd_op")"
check_rc "--prefix with --all-runs is a usage error" 2 rpd-import --prefix a --all-runs tworuns t15.rpd

# ---------------------------------------------------------------- real samples
run_suite() { # NAME TRACE: the suite's other tools work on an imported trace
  for t in raptor rpd-callstack rpd2tracing; do
    if ! command -v "$t" >/dev/null 2>&1; then skip "$1: $t (not built)"; continue; fi
    cp "$2" "$2.$t"
    case $t in
      raptor) check "$1: raptor runs" raptor "$2.$t" ;;
      rpd-callstack) check "$1: rpd-callstack runs" rpd-callstack "$2.$t" ;;
      rpd2tracing) check "$1: rpd2tracing runs" rpd2tracing "$2.$t" "$2.json" ;;
    esac
  done
}

if need_shared "$TRACES/rocprofv3_908_results.json.gz"; then
  check_rc "908 json.gz imports" 0 rpd-import "$TRACES/rocprofv3_908_results.json.gz" r908.rpd
  check_eq "908: 43,915 KernelExecution ops, durations sum 4,441,741,378 ns" "43915|4441741378" \
    "$(q r908.rpd "SELECT count(*), sum(end-start) FROM op WHERE opType='KernelExecution'")"
  check_eq "908: every dispatch has launch geometry" "43915" "$(q r908.rpd 'SELECT count(*) FROM kernel')"
  check_eq "908: summary" "kernel_dispatch 43915" \
    "$(sed -n 's/^  read \([a-z_]*\) *\([0-9]*\).*/\1 \2/p' "$TESTDIR/stderr")"
  check_eq "908: init/fini" "63855948165371|63875155697841" \
    "$(q r908.rpd "SELECT (SELECT value FROM rocpd_metadata WHERE tag='rocprofv3::init_time'), (SELECT value FROM rocpd_metadata WHERE tag='rocprofv3::fini_time')")"
  run_suite 908 r908.rpd
  # killed at any moment: either no OUT at all or a complete one, no temp left
  for delay in 0.05 0.3; do
    rm -f killed.rpd
    rpd-import -q "$TRACES/rocprofv3_908_results.json.gz" killed.rpd & pid=$!
    sleep $delay; kill -TERM $pid 2>/dev/null; wait_bounded $pid
    if [ -e killed.rpd ]; then
      check_eq "908: SIGTERM after ${delay}s: OUT complete" "43915" "$(q killed.rpd 'SELECT count(*) FROM rocpd_op')"
    else
      ok "908: SIGTERM after ${delay}s: no OUT"
    fi
    nothing_left "908: SIGTERM after ${delay}s: no temp file" killed.rpd.x
  done
fi

if need_shared "$TRACES/rocprofv3_28_results.db"; then
  cp "$TRACES/rocprofv3_28_results.db" self28.db
  check_rc "28 db: OUT is the input (--force): exit 1" 1 rpd-import -q self28.db self28.db --force
  same_file "28 db: OUT is the input: database byte-identical" "$TRACES/rocprofv3_28_results.db" self28.db
  cp "$TRACES/rocprofv3_28_results.db" in28.db
  check_rc "28 db imports" 0 rpd-import in28.db r28.rpd
  same_file "28 db input untouched" in28.db "$TRACES/rocprofv3_28_results.db"
  check_eq "28: ops = kernels view rows, same duration sum" \
    "$(sqlite3 -batch -noheader in28.db 'SELECT count(*), sum(duration) FROM kernels')" \
    "$(q r28.rpd "SELECT count(*), sum(end-start) FROM op WHERE opType='KernelExecution'")"
  check_eq "28: api rows = regions view rows" \
    "$(sqlite3 -batch -noheader in28.db 'SELECT count(*) FROM regions')" \
    "$(q r28.rpd 'SELECT count(*) FROM rocpd_api')"
  check_eq "28: summary read/wrote" "kernel_dispatch 151|hip_api 629|151 629 151 151 0" \
    "$(sed -n 's/^  read \([a-z_]*\) *\([0-9]*\).*/\1 \2/p' "$TESTDIR/stderr" | tr '\n' '|')$(sed -n 's/^  wrote rocpd_[a-z_]* *\([0-9]*\).*/\1/p' "$TESTDIR/stderr" | tr '\n' ' ' | sed 's/ $//')"
  check_eq "28: every kernel linked to its launch call" "hipLaunchKernel|150 hipMemset|1" \
    "$(q r28.rpd "SELECT B.apiName||'|'||count(*) FROM rocpd_api_ops A JOIN api B ON B.id = A.api_id GROUP BY B.apiName ORDER BY 1" | tr '\n' ' ' | sed 's/ $//')"
  check_eq "28: kernel names as in the kernels view" \
    "$(sqlite3 -batch -noheader in28.db 'SELECT name, count(*) FROM kernels GROUP BY 1 ORDER BY 1' | md5sum)" \
    "$(q r28.rpd "SELECT kernelName, count(*) FROM kernel GROUP BY 1 ORDER BY 1" | md5sum)"
  gzip -c in28.db >in28.db.gz
  check_rc "28 db.gz imports" 0 rpd-import -q in28.db.gz r28gz.rpd
  check_eq "28 db.gz = db" "$(q r28.rpd 'SELECT * FROM op')" "$(q r28gz.rpd 'SELECT * FROM op')"
  run_suite 28 r28.rpd
fi

if need_shared "$TRACES/rocprofv3_csv/decode_kernel_trace.csv"; then
  check_rc "csv sample imports" 0 rpd-import "$TRACES/rocprofv3_csv" rcsv.rpd
  check_eq "csv sample: 144 kernels (sum 1857381 ns), 920 api rows" "144|1857381|920" \
    "$(q rcsv.rpd "SELECT count(*), sum(end-start), (SELECT count(*) FROM rocpd_api) FROM rocpd_op")"
  check_eq "csv sample: summary read/wrote" "kernel_dispatch 144|hip_api 920|144 920 144 52 0" \
    "$(sed -n 's/^  read \([a-z_]*\) *\([0-9]*\).*/\1 \2/p' "$TESTDIR/stderr" | tr '\n' '|')$(sed -n 's/^  wrote rocpd_[a-z_]* *\([0-9]*\).*/\1/p' "$TESTDIR/stderr" | tr '\n' ' ' | sed 's/ $//')"
  check "csv sample: 27 kernels linked to a traced call" grep -q '(27 linked' "$TESTDIR/stderr"
  run_suite csv rcsv.rpd
fi
