# tests/lib.sh - helpers for tool test scripts (sourced; POSIX sh).
# Each check prints exactly one line: "ok - NAME", "not ok - NAME", or
# "skip - NAME"; tests/run.sh counts them.  Scripts run inside a fresh
# scratch directory ($TESTDIR) with $RPD_BIN, $RPD_LIB, $RPD_SHARED set.
#
#   ok NAME / notok NAME [WHY] / skip NAME [WHY]
#   check NAME CMD...               ok if CMD exits 0
#   check_eq NAME EXPECTED ACTUAL   ok if the strings are equal
#   check_rc NAME RC CMD...         ok if CMD exits with RC; its stderr is
#                                   kept in $TESTDIR/stderr
#   check_one_line NAME             stderr of the last check_rc is one line
#   q FILE SQL                      sqlite3 query, '|' separated, no header
#   same_file NAME A B              byte-identical files
#   csv_same NAME A.csv[.gz] B.csv[.gz]   same rows as a multiset (header
#                                   included), gz transparent
#   need_shared PATH                returns 1 (and prints a skip) if absent
#   tmpcopy SRC DST                 copy (decompressing .gz) and make writable
#   sha FILE / to_v3 IN OUT / kill_test NAME FILE CMD... / hold_lock FILE, release_lock  (see below)
#   steps_trace FILE                 the planted four-step trace (see below)
: "${RPD_BIN:?RPD_BIN not set}"
PATH="$RPD_BIN:$PATH"; export PATH
SHARED="${RPD_SHARED:-../shared}"
TRACES="$SHARED/traces"; GOLDEN="$SHARED/golden"

ok()    { echo "ok - $1"; }
notok() { echo "not ok - $1${2:+: $2}"; }
# same_dir NAME A B: ok when directories A and B hold the same file
# names, each byte-identical
same_dir() {
  _a=$(ls "$2" | tr '\n' ' '); _b=$(ls "$3" | tr '\n' ' ')
  if [ "$_a" != "$_b" ]; then notok "$1" "files [$_a] vs [$_b]"; return; fi
  if [ -z "$_a" ]; then notok "$1" "no files"; return; fi
  for _f in $_a; do
    cmp -s "$2/$_f" "$3/$_f" || { notok "$1" "$_f differs: $(diff "$2/$_f" "$3/$_f" | head -4 | tr '\n' ' ')"; return; }
  done
  ok "$1"
}
skip()  { echo "skip - $1${2:+: $2}"; }

check() {
  _n=$1; shift
  if "$@" >"$TESTDIR/check.out" 2>"$TESTDIR/check.err"; then ok "$_n"
  else notok "$_n" "exit $? from: $* :: $(head -c 400 "$TESTDIR/check.err")"; fi
}

check_eq() {
  if [ "$2" = "$3" ]; then ok "$1"; else notok "$1" "expected [$2] got [$3]"; fi
}

check_rc() {
  _n=$1; _want=$2; shift 2
  "$@" >"$TESTDIR/stdout" 2>"$TESTDIR/stderr"; _got=$?
  if [ "$_got" = "$_want" ]; then ok "$_n"
  else notok "$_n" "expected exit $_want, got $_got: $(head -c 300 "$TESTDIR/stderr")"; fi
}

check_one_line() {
  _l=$(wc -l <"$TESTDIR/stderr")
  if [ "$_l" -eq 1 ]; then ok "$1"; else notok "$1" "stderr has $_l lines: $(head -c 300 "$TESTDIR/stderr")"; fi
}

q() { sqlite3 -batch -noheader "$1" "$2"; }

same_file() {
  if cmp -s "$2" "$3"; then ok "$1"; else notok "$1" "$2 and $3 differ"; fi
}

# golden CSVs have CRLF line ends; compare without the CR
_cat_any() { case "$1" in *.gz) gzip -dc "$1" ;; *) cat "$1" ;; esac | tr -d '\r'; }

csv_same() {
  _cat_any "$2" | sort >"$TESTDIR/csv_a"; _cat_any "$3" | sort >"$TESTDIR/csv_b"
  if cmp -s "$TESTDIR/csv_a" "$TESTDIR/csv_b"; then ok "$1"
  else notok "$1" "$(diff "$TESTDIR/csv_a" "$TESTDIR/csv_b" | head -6 | tr '\n' ' ')"; fi
}

need_shared() {
  if [ -e "$1" ]; then return 0; fi
  skip "needs $1"; return 1
}

tmpcopy() {
  case "$1" in *.gz) gzip -dc "$1" >"$2" ;; *) cat "$1" >"$2" ;; esac
  chmod u+w "$2"
}

# sha FILE: sha256 of a file
sha() { sha256sum "$1" | cut -d' ' -f1; }

# to_v3 IN OUT: a schema v3 copy of the v2 trace IN, made by rpd-schema --upgrade
to_v3() {
  tmpcopy "$1" "$2" && rpd-schema --upgrade "$2" >/dev/null
}

# kill_test NAME FILE CMD...: run CMD (which augments FILE in place) and
# kill -9 it as soon as FILE changes on disk (pages spilled or being
# committed); recovering by opening FILE, it must pass integrity_check and be
# byte-identical to before.  A kill that lands after the commit (no journal
# left) is retried, up to 4 times.
kill_test() {
  _n=$1; _f=$2; shift 2
  cp "$_f" "$TESTDIR/kill.orig"
  _landed=0; _try=0
  while [ $_landed = 0 ] && [ $_try -lt 4 ]; do
    _try=$((_try + 1)); _m0=$(stat -c '%s %y' "$_f")
    "$@" >/dev/null 2>&1 &
    _pid=$!
    while kill -0 $_pid 2>/dev/null; do
      if [ "$(stat -c '%s %y' "$_f")" != "$_m0" ]; then kill -9 $_pid 2>/dev/null; break; fi
      sleep 0.02
    done
    wait $_pid 2>/dev/null
    if [ -s "$_f-journal" ] && ! cmp -s "$_f" "$TESTDIR/kill.orig"; then _landed=1
    else rm -f "$_f-journal"; cp "$TESTDIR/kill.orig" "$_f"; fi
  done
  if [ $_landed = 0 ]; then notok "$_n: never killed inside the transaction"; return; fi
  ok "$_n: killed with the file modified and a hot journal"
  check_eq "$_n: integrity_check after recovery" ok "$(q "$_f" 'PRAGMA integrity_check')"
  same_file "$_n: byte-identical to the input" "$TESTDIR/kill.orig" "$_f"
}

# wait_bounded PID [SECS]: wait for the background job PID, at most SECS
# (default 60) seconds, then kill -9 it; returns its status as wait gives
# it.  A job a test has signalled may have inherited that signal ignored
# (a script started with SIGTERM ignored cannot un-ignore it), so a plain
# wait could hang.
wait_bounded() {
  _wi=0; _wl=$(( ${2:-60} * 20 ))
  while kill -0 "$1" 2>/dev/null && [ $_wi -lt $_wl ]; do sleep 0.05; _wi=$((_wi + 1)); done
  kill -9 "$1" 2>/dev/null
  wait "$1"
}

# hold_lock FILE [KIND]: a background sqlite3 holds a write lock on FILE
# (KIND: IMMEDIATE (default) or EXCLUSIVE) until release_lock; returns only
# once the lock is confirmed held (or 1 after 10 s).  Sets LOCKPID.
hold_lock() {
  _lf="$TESTDIR/.lock.$$"; rm -f "$_lf" "$_lf.out"; mkfifo "$_lf"
  timeout 60 sqlite3 -cmd ".timeout 10000" "$1" <"$_lf" >"$_lf.out" 2>&1 &
  LOCKPID=$!
  exec 8>"$_lf"
  echo "BEGIN ${2:-IMMEDIATE}; INSERT INTO rocpd_metadata(tag, value) VALUES ('lock', 'held'); SELECT 'locked';" >&8
  _i=0
  while [ $_i -lt 200 ] && ! grep -q locked "$_lf.out" 2>/dev/null; do sleep 0.05; _i=$((_i + 1)); done
  grep -q locked "$_lf.out" 2>/dev/null
}
# release_lock: roll the holder back and wait for it
release_lock() {
  echo "ROLLBACK;" >&8; exec 8>&-
  wait "$LOCKPID" 2>/dev/null
  rm -f "$TESTDIR/.lock.$$" "$TESTDIR/.lock.$$.out"
}

# report_fixture: rep_results.json (a hand-computed rocprofv3 JSON) imported
# as rep.rpd, the fixture of raptor-report.sh and reports.sh.  GPU0: gemm
# 10-20us, gemm 15-30us, nccl 25-45us, elementwise 50-52us, H2D copy
# 44-60us; GPU1: elementwise 10-13us, layer_norm 70-90us; init..fini 5..105us.
report_fixture() {
  kd() { # corr agent kernel_id start end
    printf '{"thread_id":1,"correlation_id":{"internal":%s},"start_timestamp":%s,"end_timestamp":%s,"stream_id":{"handle":0},"dispatch_info":{"agent_id":{"handle":%s},"queue_id":{"handle":1},"kernel_id":%s,"dispatch_id":%s,"private_segment_size":0,"group_segment_size":0,"workgroup_size":{"x":64,"y":1,"z":1},"grid_size":{"x":%s,"y":1,"z":1}}}' \
      "$1" "$4" "$5" "$2" "$3" "$1" "$(($1 * 100))"
  }
  {
    printf '{"rocprofiler-sdk-tool":[{"metadata":{"pid":1,"init_time":5000,"fini_time":105000},'
    printf '"agents":[{"id":{"handle":11},"type":1},{"id":{"handle":12},"type":2,"logical_node_type_id":0},'
    printf '{"id":{"handle":13},"type":2,"logical_node_type_id":1}],'
    printf '"strings":{"buffer_records":[{"kind":"NONE","operations":[]},{"kind":"MEMORY_COPY","operations":'
    printf '["MEMORY_COPY_NONE","MEMORY_COPY_HOST_TO_HOST","MEMORY_COPY_HOST_TO_DEVICE"]}]},'
    printf '"kernel_symbols":[{"kernel_id":1,"truncated_kernel_name":"Cijk_gemm_a"},'
    printf '{"kernel_id":2,"truncated_kernel_name":"ncclDevKernel_Generic"},'
    printf '{"kernel_id":3,"truncated_kernel_name":"elementwise_kernel"},'
    printf '{"kernel_id":4,"truncated_kernel_name":"layer_norm_kernel"}],'
    printf '"buffer_records":{"kernel_dispatch":['
    kd 1 12 1 10000 20000; printf ,; kd 2 12 1 15000 30000; printf ,
    kd 3 12 2 25000 45000; printf ,; kd 4 12 3 50000 52000; printf ,
    kd 5 13 3 10000 13000; printf ,; kd 6 13 4 70000 90000
    printf '],"memory_copy":[{"kind":1,"operation":2,"correlation_id":{"internal":7},'
    printf '"start_timestamp":44000,"end_timestamp":60000,"dst_agent_id":{"handle":12},'
    printf '"src_agent_id":{"handle":11},"bytes":64}]}}]}\n'
  } >rep_results.json
  rpd-import -q rep_results.json rep.rpd || notok "fixture import"
}

# find_chrome: CHROME = the headless Chromium to use (Debian's chromium,
# or chromium-browser / google-chrome), empty when none is installed.
find_chrome() {
  CHROME=
  for _c in chromium chromium-browser google-chrome; do
    command -v "$_c" >/dev/null 2>&1 && { CHROME=$_c; return 0; }
  done
  return 1
}

# chrome_run ARGS...: $CHROME headless (no sandbox: tests run as root in
# CI) with a profile in $TESTDIR, at most 60 s.
chrome_run() {
  timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu --user-data-dir="$TESTDIR/chr" "$@"
}

# reorder_ops SRC DEST ORDER-BY: DEST = a copy of SRC whose rocpd_op rows
# are stored in ORDER-BY order (a table without the integer primary key
# scans in insertion order): for the readers that merge sorted runs.
reorder_ops() {
  cp "$1" "$2"
  q "$2" "CREATE TABLE reorder_tmp AS SELECT * FROM rocpd_op ORDER BY $3; DROP TABLE rocpd_op;
          CREATE TABLE rocpd_op(id INTEGER NOT NULL, gpuId INTEGER NOT NULL,
            queueId INTEGER NOT NULL, sequenceId INTEGER NOT NULL, start INTEGER NOT NULL,
            \"end\" INTEGER NOT NULL, description_id INTEGER NOT NULL, opType_id INTEGER NOT NULL);
          INSERT INTO rocpd_op SELECT * FROM reorder_tmp; DROP TABLE reorder_tmp;"
}

# rocprofv3_json N: a rocprofv3 JSON on stdout with N kernel dispatches
# (one kernel, 100 ns apart) and N hipLaunchKernel calls, one record a line
# (the import tests and the progress test; tests/bench/60-import.sh writes
# its own, with 50 kernels).
rocprofv3_json() {
  awk -v n="$1" 'BEGIN {
    printf "{\"rocprofiler-sdk-tool\":[{\"metadata\":{\"pid\":1},\"agents\":[{\"id\":{\"handle\":1},\"type\":2,\"logical_node_type_id\":0}],"
    printf "\"strings\":{\"buffer_records\":[{\"kind\":\"NONE\",\"operations\":[]},{\"kind\":\"HIP_RUNTIME_API_EXT\",\"operations\":[\"hipApiName\",\"hipLaunchKernel\"]}]},"
    printf "\"kernel_symbols\":[{\"kernel_id\":1,\"truncated_kernel_name\":\"k\",\"formatted_kernel_name\":\"void k<float>(float*)\"}],"
    printf "\"buffer_records\":{\"kernel_dispatch\":[\n"
    for (i = 1; i <= n; i++)
      printf "%s{\"kind\":11,\"operation\":2,\"thread_id\":7,\"correlation_id\":{\"internal\":%d,\"external\":0},\"start_timestamp\":%d,\"end_timestamp\":%d,\"dispatch_info\":{\"agent_id\":{\"handle\":1},\"queue_id\":{\"handle\":16},\"kernel_id\":1,\"dispatch_id\":%d,\"workgroup_size\":{\"x\":256,\"y\":1,\"z\":1},\"grid_size\":{\"x\":4096,\"y\":1,\"z\":1}}}\n", (i > 1 ? "," : ""), i, 100 * i, 100 * i + 60, i
    printf "],\"hip_api\":[\n"
    for (i = 1; i <= n; i++)
      printf "%s{\"kind\":1,\"operation\":1,\"thread_id\":7,\"correlation_id\":{\"internal\":%d,\"external\":0},\"start_timestamp\":%d,\"end_timestamp\":%d}\n", (i > 1 ? "," : ""), i, 100 * i - 50, 100 * i - 10
    printf "]}}]}\n"
  }'
}

# check_writer_thread_failure BLOCKS INPUT: rpd-import of INPUT (forced
# onto the writer thread) whose output may not grow past BLOCKS 512-byte
# blocks (ulimit -f; SIGXFSZ ignored, so the write fails with EFBIG) fails
# with exit 1, one line naming an I/O error, and no output file; with a
# working strace, the failing write is checked to be the writer thread's.
check_writer_thread_failure() {
  printf 'trap "" XFSZ\nulimit -f %s\nexec "$@"\n' "$1" >fsz.sh
  check_rc "a write failure on the writer thread: exit 1" 1 env RPDTOOLS_IMPORT_THREADS=2 sh fsz.sh rpd-import -q "$2" fsz.rpd
  check_one_line "... one line"
  check "... an I/O error" grep -q "cannot import '$2': .*I/O error" "$TESTDIR/stderr"
  check "... no output file" test ! -e fsz.rpd
  if command -v strace >/dev/null 2>&1 && strace -f -qq -e trace=pwrite64 -o wr.log true 2>/dev/null; then
    RPDTOOLS_IMPORT_THREADS=2 sh fsz.sh strace -f -qq -e trace=pwrite64 -o wr.log rpd-import -q "$2" fsz.rpd 2>/dev/null
    _main=$(head -1 wr.log | cut -d' ' -f1)
    check "... the failing write was the writer thread's" sh -c "grep EFBIG wr.log | grep -vq '^$_main '"
  else
    skip "the failing thread" "no working strace"
  fi
  rm -f fsz.sh wr.log fsz.rpd
}

# rocprofv3_kinds_csv DIR: a rocprofv3 CSV set in DIR (created) of one run
# (pid 7) with every record kind beyond ops and api calls: two kernel
# dispatches, four counter values on three dispatches (counter_collection:
# Agent as "Agent N", values in %f and scientific), a memory allocation and
# its free, a scratch allocation, two rocdecode and one rocjpeg call.  The
# import tests of those kinds (rpd-import-kinds, rpd-import-formats) start
# from it.
rocprofv3_kinds_csv() {
  mkdir -p "$1"
  (cd "$1" || exit 1
cat >7_kernel_trace.csv <<'EOF'
"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"
"KERNEL_DISPATCH","Agent 4",1,1,77,1,10,"void add<float>(float*)",1,1000,1500,0,0,8,0,16,64,1,1,1024,1,1
"KERNEL_DISPATCH","Agent 4",1,1,77,2,11,"gemm(int)",2,2000,2700,0,0,8,0,16,64,1,1,1024,1,1
EOF
cat >7_counter_collection.csv <<'EOF'
"Correlation_Id","Dispatch_Id","Agent_Id","Queue_Id","Process_Id","Thread_Id","Grid_Size","Kernel_Id","Kernel_Name","Workgroup_Size","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Counter_Name","Counter_Value","Start_Timestamp","End_Timestamp"
1,1,"Agent 4",1,77,77,1024,10,"void add<float>(float*)",64,0,0,8,0,16,"SQ_WAVES",16.000000,1000,1500
1,1,"Agent 4",1,77,77,1024,10,"void add<float>(float*)",64,0,0,8,0,16,"GRBM_COUNT",2.5e+03,1000,1500
2,2,"Agent 4",1,77,77,1024,11,"gemm(int)",64,0,0,8,0,16,"SQ_WAVES",16.000000,2000,2700
3,3,"Agent 4",1,77,77,1024,11,"gemm(int)",64,0,0,8,0,16,"SQ_WAVES",32.000000,3000,3400
EOF
cat >7_memory_allocation_trace.csv <<'EOF'
"Kind","Operation","Agent_Id","Allocation_Size","Address","Correlation_Id","Start_Timestamp","End_Timestamp"
"MEMORY_ALLOCATION","MEMORY_ALLOCATION_ALLOCATE","Agent 4",1024,"0x00007ffb26354000",5,100,200
"MEMORY_ALLOCATION","MEMORY_ALLOCATION_FREE","Agent 4",0,"0x00007ffb26354000",6,300,310
EOF
cat >7_scratch_memory_trace.csv <<'EOF'
"Kind","Operation","Agent_Id","Queue_Id","Thread_Id","Alloc_Flags","Start_Timestamp","End_Timestamp"
"SCRATCH_MEMORY","SCRATCH_MEMORY_ALLOC","Agent 4",1,113,0,1124,1500
EOF
cat >7_rocdecode_api_trace.csv <<'EOF'
"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"
"ROCDECODE_API","rocDecCreateVideoParser",77,77,583,615,700
"ROCDECODE_API","rocDecGetDecoderCaps",77,77,584,710,720
EOF
cat >7_rocjpeg_api_trace.csv <<'EOF'
"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"
"ROCJPEG_API","rocJpegCreate",77,77,105,1286,1300
EOF
  )
}

# steps_trace FILE: the planted trace of report-steps.sh and rpd-budget.sh.
# Four steps on thread 1 (UserMarker ProfilerStep#5..#8: 500..10000 (the
# warm-up), ..13000, ..16100, ..19000) and a 'forward' marker (600..900) that
# is no step.  Kernels on gpu 0: gemm_kernel [1000,4000) [11000,12000)
# [16000,16500); add_kernel [3500,5000) (queue 1) [13500,14000) [14500,15000).
steps_trace() {
  rpd-synth --api 0 -o "$1" >/dev/null
  sqlite3 "$1" <<'SQL'
INSERT INTO rocpd_string(id, string) VALUES (9001, 'UserMarker'), (9002, 'KernelExecution'),
 (9003, 'gemm_kernel'), (9004, 'add_kernel');
INSERT INTO rocpd_ustring(id, string) VALUES (9101, 'ProfilerStep#5'), (9102, 'ProfilerStep#6'),
 (9103, 'ProfilerStep#7'), (9104, 'ProfilerStep#8'), (9105, 'forward');
INSERT INTO rocpd_api(id, pid, tid, start, end, apiName_id, args_id, domain_id, category_id) VALUES
 (1, 5, 1, 500, 10000, 9001, 9101, 1, 1), (2, 5, 1, 10000, 13000, 9001, 9102, 1, 1),
 (3, 5, 1, 13000, 16100, 9001, 9103, 1, 1), (4, 5, 1, 16100, 19000, 9001, 9104, 1, 1),
 (5, 5, 1, 600, 900, 9001, 9105, 1, 1);
INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, end, description_id, opType_id) VALUES
 (1, 0, 0, 0, 1000, 4000, 9003, 9002), (2, 0, 1, 0, 3500, 5000, 9004, 9002),
 (3, 0, 0, 0, 11000, 12000, 9003, 9002), (4, 0, 0, 0, 13500, 14000, 9004, 9002),
 (5, 0, 0, 0, 14500, 15000, 9004, 9002), (6, 0, 0, 0, 16000, 16500, 9003, 9002);
SQL
}

# tracelens_each NAME FN: for each of TraceLens's public traces among the
# shared Kineto traces (tracelens_mi300_*, tracelens_h100_*), import it into
# T.rpd (T = mi300, h100) and run FN T DIR, DIR holding its trace.json.gz
# and TraceLens's perf_report_csvs/; a missing one is a skip named NAME.
tracelens_each() {
  for _tl_t in mi300 h100; do
    _tl_d=$(ls -d "$TRACES/kineto"/tracelens_${_tl_t}_*/ 2>/dev/null | head -1)
    [ -n "$_tl_d" ] || { skip "$1: no tracelens_$_tl_t trace"; continue; }
    rpd-import -q "$_tl_d/trace.json.gz" $_tl_t.rpd >/dev/null 2>&1
    "$2" $_tl_t "$_tl_d"
  done
}

# tracelens_sheets DIR SHEET...: the SHEETs TraceLens's report in DIR has
# (DIR/perf_report_csvs/SHEET.csv), one a line.
tracelens_sheets() {
  _tl_d=$1; shift
  for _tl_c in "$@"; do
    [ -f "$_tl_d/perf_report_csvs/$_tl_c.csv" ] && echo "$_tl_c"
  done
  return 0
}
