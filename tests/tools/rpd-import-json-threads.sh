#!/bin/sh
# tests/tools/rpd-import-json-threads.sh - issue 19: rpd-import of a
# rocprofv3 JSON writes its rows on a second thread (pipe.c) and reads
# (inflates) ahead on a third (jsonfile.c).  The threaded
# import gives the same database, byte for byte in `sqlite3 .dump`, as the
# one-thread path (RPDTOOLS_IMPORT_THREADS=1) on a generated JSON that
# crosses every hand-over: two process sections, kernel names first seen
# mid-stream (new strings while the writer thread runs), api args (text
# cells), copies, markers, counters, allocations; .json and .json.gz.  A
# file (or .gz) cut in the middle, or a writer thread that fails (file size limit),
# gives one line, exit 1, and no output file (or the old one untouched).
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

N=40000   # dispatches (and hip_api calls) of process 1: ~40 hand-overs
python3 - "$N" >gen.json <<'EOF'
import json, sys
n = int(sys.argv[1])
out = sys.stdout
def w(s): out.write(s)
kinds = [{"kind": "NONE", "operations": []},
         {"kind": "HIP_RUNTIME_API_EXT", "operations": ["hipApiName", "hipLaunchKernel", "hipMemcpy"]},
         {"kind": "MEMORY_COPY", "operations": ["MEMORY_COPY_NONE", "MEMORY_COPY_HOST_TO_HOST",
          "MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY_DEVICE_TO_HOST", "MEMORY_COPY_DEVICE_TO_DEVICE"]},
         {"kind": "MARKER_CORE_API", "operations": ["roctxMarkA", "roctxRangePushA"]},
         {"kind": "MEMORY_ALLOCATION", "operations": ["MEMORY_ALLOCATION_NONE", "MEMORY_ALLOCATION_ALLOCATE"]}]
agents = [{"id": {"handle": 1}, "type": 1, "logical_node_type_id": 0},
          {"id": {"handle": 2}, "type": 2, "logical_node_type_id": 0},
          {"id": {"handle": 3}, "type": 2, "logical_node_type_id": 1}]
syms = [{"kernel_id": k, "truncated_kernel_name": "kern_%d" % k,
         "formatted_kernel_name": "void kern_%d<float>(float*, int)" % k} for k in range(40)]
def head(pid):
    w('"metadata":{"pid":%d,"init_time":5,"fini_time":%d,"command":["python3","x.py"]},' % (pid, 1000 * n))
    w('"agents":%s,"strings":{"buffer_records":%s,"marker_api":[{"key":"3","value":"step 3"}]},'
      % (json.dumps(agents), json.dumps(kinds)))
    w('"kernel_symbols":%s,' % json.dumps(syms))
def kernel(i, corr, kid, t):
    return ('{"size":184,"kind":11,"operation":2,"thread_id":7,"correlation_id":{"internal":%d,"external":0},'
            '"start_timestamp":%d,"end_timestamp":%d,"dispatch_info":{"size":72,"agent_id":{"handle":%d},'
            '"queue_id":{"handle":%d},"kernel_id":%d,"dispatch_id":%d,"private_segment_size":%d,'
            '"group_segment_size":%d,"workgroup_size":{"x":256,"y":1,"z":1},"grid_size":{"x":%d,"y":1,"z":1}},'
            '"stream_id":{"handle":%d}}' % (corr, t, t + 60 + i % 7, 2 + i % 2, 16 + i % 3, kid, i, i % 5,
                                              i % 11, 4096 + i, i % 4))
w('{"rocprofiler-sdk-tool":[{')
head(101)
w('"buffer_records":{"kernel_dispatch":[\n')
# kernel ids 40..42 have no symbol: unknown_kernel_N, first seen mid-stream
w(",\n".join(kernel(i, i, (i % 43) if i > n // 2 else i % 40, 100 * i) for i in range(1, n + 1)))
w('],"memory_copy":[\n')
w(",\n".join('{"kind":2,"operation":%d,"thread_id":7,"correlation_id":{"internal":%d,"external":0},'
             '"start_timestamp":%d,"end_timestamp":%d,"dst_agent_id":{"handle":%d},"src_agent_id":{"handle":1},'
             '"bytes":%d,"stream_id":{"handle":1}}' % (1 + i % 4, n + i, 100 * i + 7, 100 * i + 40, 2 + i % 2, 64 * i)
             for i in range(1, 3001)))
w('],"hip_api":[\n')
w(",\n".join('{"size":48,"kind":1,"operation":%d,"thread_id":%d,"correlation_id":{"internal":%d,"external":0},'
             '"start_timestamp":%d,"end_timestamp":%d%s}'
             % (1 if i <= n else 2, 7 + i % 3, i, 100 * i - 50, 100 * i - 10,
                ',"args":{"stream":"0x%x","size":"%d"}' % (i % 4, i) if i % 3 == 0 else "")
             for i in range(1, n + 3001)))
w('],"marker_api":[\n')
w(",\n".join('{"kind":3,"operation":0,"thread_id":7,"correlation_id":{"internal":%d,"external":0},'
             '"start_timestamp":%d,"end_timestamp":%d}' % (n + 5000 + i, 10 * i, 10 * i) for i in range(1, 51)))
w(']}},{')
head(202)
w('"callback_records":{"counter_collection":[\n')
w(",\n".join('{"dispatch_data":{"correlation_id":{"internal":%d},"start_timestamp":%d,"end_timestamp":%d,'
             '"dispatch_info":{"agent_id":{"handle":2},"queue_id":{"handle":1},"kernel_id":%d,"dispatch_id":%d,'
             '"workgroup_size":{"x":64,"y":1,"z":1},"grid_size":{"x":128,"y":1,"z":1}}},'
             '"records":[{"counter_id":{"handle":1},"value":%d},{"counter_id":{"handle":1},"value":1}]}'
             % (i, 100 * i, 100 * i + 50, i % 40, i, i) for i in range(1, 201)))
w(']},"buffer_records":{"kernel_dispatch":[\n')
w(",\n".join(kernel(i, i, i % 40, 100 * i + 3) for i in range(1, 5001)))
w('],"memory_allocation":[\n')
w(",\n".join('{"kind":4,"operation":1,"thread_id":7,"correlation_id":{"internal":%d},"start_timestamp":%d,'
             '"end_timestamp":%d,"agent_id":{"handle":2},"address":"0x%x","allocation_size":%d}'
             % (i, 10 * i, 10 * i + 5, 4096 * i, 1024 * i) for i in range(1, 101)))
w('],"hip_api":[\n')
w(",\n".join('{"kind":1,"operation":1,"thread_id":9,"correlation_id":{"internal":%d,"external":0},'
             '"start_timestamp":%d,"end_timestamp":%d}' % (i, 100 * i - 50, 100 * i - 10) for i in range(1, 5001)))
w(']}}]}\n')
EOF
gzip -1 -c gen.json >gen.json.gz

RPDTOOLS_IMPORT_THREADS=1 rpd-import -q gen.json one.rpd
check_rc "threaded import of the generated JSON" 0 rpd-import -q gen.json two.rpd
sqlite3 one.rpd .dump >one.sql
sqlite3 two.rpd .dump >two.sql
same_file "threaded = one thread: every table, row and id (.dump)" one.sql two.sql
check_rc "threaded import of the .json.gz" 0 rpd-import -q gen.json.gz twogz.rpd
# (the input's name is in rocpd_metadata: gen.json.gz)
sqlite3 twogz.rpd .dump | sed 's/gen\.json\.gz/gen.json/' >twogz.sql
same_file "json.gz threaded = one thread (.dump)" one.sql twogz.sql
RPDTOOLS_IMPORT_THREADS=1 rpd-import -q gen.json.gz onegz.rpd
sqlite3 onegz.rpd .dump | sed 's/gen\.json\.gz/gen.json/' >onegz.sql
same_file "json.gz one thread = json one thread (.dump)" one.sql onegz.sql
# a thread forced on (RPDTOOLS_IMPORT_THREADS=2 even on one CPU): the same
RPDTOOLS_IMPORT_THREADS=2 rpd-import -q gen.json forced.rpd
sqlite3 forced.rpd .dump >forced.sql
same_file "RPDTOOLS_IMPORT_THREADS=2 = one thread (.dump)" one.sql forced.sql
if command -v strace >/dev/null 2>&1 && strace -f -qq -e trace=clone,clone3 -o st.log true 2>/dev/null; then
  RPDTOOLS_IMPORT_THREADS=2 strace -f -qq -e trace=clone,clone3 -o st.log rpd-import -q --force gen.json st.rpd
  RPDTOOLS_IMPORT_THREADS=1 strace -f -qq -e trace=clone,clone3 -o st1.log rpd-import -q --force gen.json st.rpd
  # (a sanitizer's leak check at exit may clone too: count the difference)
  check_eq "the threaded path starts two threads more: writer, reader (strace's clones)" \
    "$(($(grep -Ec 'clone3?\(' st1.log) + 2))" "$(grep -Ec 'clone3?\(' st.log)"
else
  skip "thread count" "no working strace"
fi

# the values (the same on both paths, so checked once)
P1=$((N + 3000)); P2=5000
check_eq "ops: dispatches + copies + process 2's dispatches" "$((N + 3000 + P2))" \
  "$(q two.rpd "SELECT count(*) FROM rocpd_op")"
check_eq "kernel ops and copy ops" "$((N + P2))|3000" \
  "$(q two.rpd "SELECT sum(s.string = 'KernelExecution'), sum(s.string LIKE 'Copy%') FROM rocpd_op o JOIN rocpd_string s ON s.id = o.opType_id")"
check_eq "api calls: hip (both processes) + markers" "$((P1 + P2 + 50))" "$(q two.rpd "SELECT count(*) FROM rocpd_api")"
check_eq "process 2's correlation ids are shifted past process 1's" "$P2|202" \
  "$(q two.rpd "SELECT count(*), min(pid) FROM rocpd_api WHERE id > $((N + 5050)) AND pid = 202")"
check_eq "op durations: exact sum" \
  "$(python3 -c "n=$N; print(sum(60 + i % 7 for i in range(1, n + 1)) + 3000 * 33 + sum(60 + i % 7 for i in range(1, 5001)))")" \
  "$(q two.rpd "SELECT sum(\"end\" - start) FROM rocpd_op")"
check_eq "api args: one ustring row per call with args" "$((P1 / 3))" \
  "$(q two.rpd "SELECT count(*) FROM rocpd_ustring WHERE string LIKE 'stream=%'")"
check_eq "kernels without a symbol (first seen mid-stream) are named" "3" \
  "$(q two.rpd "SELECT count(DISTINCT o.description_id) FROM rocpd_op o JOIN rocpd_string s ON s.id = o.description_id WHERE s.string LIKE 'unknown_kernel_%'")"
check_eq "kernelapi rows: every linked dispatch" "$((N + P2))" "$(q two.rpd "SELECT count(*) FROM rocpd_kernelapi")"
check_eq "counters: 200 dispatches' summed values" "200|$((200 * 201 / 2 + 200)).0" \
  "$(q two.rpd "SELECT count(*), sum(value) FROM rocpd_counter")"
check_eq "allocations" "100" "$(q two.rpd "SELECT count(*) FROM ext_memory_allocation")"

# ---------------------------------------------------------------- failures
# cut inside process 1's hip_api records: many batches were handed over
sz=$(wc -c <gen.json)
head -c $((sz * 2 / 3)) gen.json >cut.json
rm -f cut.rpd
check_rc "a file cut in the middle: exit 1" 1 rpd-import -q cut.json cut.rpd
check_one_line "a file cut in the middle: one line"
check "... it says where the input ends" grep -q "truncated JSON: input ends at byte $((sz * 2 / 3))" "$TESTDIR/stderr"
check "... and leaves no output file" test ! -e cut.rpd
cp one.rpd old.rpd
check_rc "a cut file over an existing output (--force): exit 1" 1 rpd-import -q --force cut.json old.rpd
check_one_line "... one line"
same_file "... the old output is untouched" one.rpd old.rpd
check "... and no temp file is left" sh -c "! ls -a | grep -q '^\.old\.rpd\|old\.rpd\..*tmp'"
# a .json.gz cut in the middle: the read-ahead thread's error, one line
gzsz=$(wc -c <gen.json.gz)
head -c $((gzsz / 2)) gen.json.gz >cut.json.gz
check_rc "a .json.gz cut in the middle: exit 1" 1 rpd-import -q cut.json.gz cutgz.rpd
check_one_line "... one line"
check "... naming the gzip stream" grep -q "cannot import 'cut.json.gz': corrupt or truncated gzip stream after [0-9]* bytes" "$TESTDIR/stderr"
check "... no output file" test ! -e cutgz.rpd
# malformed in the middle (a stray byte at a record's start), threaded
python3 -c "
import sys; d = open('gen.json', 'rb').read(); k = d.index(b'\\n', len(d) // 2) + 1
sys.stdout.buffer.write(d[:k] + b'#' + d[k:])" >bad.json
check_rc "malformed JSON in the middle: exit 1" 1 rpd-import -q bad.json bad.rpd
check_one_line "... one line"
check "... naming the byte" grep -q "malformed JSON at byte" "$TESTDIR/stderr"
check "... no output file" test ! -e bad.rpd
# the writer thread fails: a 200k-dispatch JSON overflows the 16 MiB page
# cache, so pages are written while the rows are (on the writer thread);
# the output may not grow past 2 MB (ulimit -f 4096 blocks), SIGXFSZ
# ignored so the write fails with EFBIG
rocprofv3_json 200000 >big.json
check_writer_thread_failure 4096 big.json
rm -f big.json
