#!/bin/sh
# tests/tools/rpd-import-kinds.sh - issue 16: the record kinds beyond ops and
# api calls (counters, memory allocations, scratch memory, rocdecode and
# rocjpeg api calls) from rocprofv3 JSON and rocprofv3 databases land in the
# same tables as from the CSV set, and the same run gives the same rows in
# every format.  Fixtures are written here in each format's exact layout
# (rocprofiler-sdk's JSON serialization, its rocpd schema via
# rpd-synth-rocpd).
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

# ------------------------------------------------ one run as a CSV set
rocprofv3_kinds_csv set

# ------------------------------------------------ the same run as rocprofv3 JSON
# Layout of rocprofiler-sdk's generateJSON / serialization: strings.buffer_records
# indexed by the buffer tracing kind (11 KERNEL_DISPATCH, 12 SCRATCH_MEMORY,
# 16 MEMORY_ALLOCATION, 18 ROCDECODE_API, 19 ROCJPEG_API), counter records in
# callback_records.counter_collection with one value per counter instance
# (SQ_WAVES of dispatch 1 comes as 10 + 6: the CSV holds their sum).
python3 - <<'EOF' >run_results.json
import json
kinds = [{"kind": "K%d" % i, "operations": []} for i in range(20)]
kinds[11] = {"kind": "KERNEL_DISPATCH", "operations": ["KERNEL_DISPATCH_NONE", "KERNEL_DISPATCH_ENQUEUE", "KERNEL_DISPATCH_COMPLETE"]}
kinds[12] = {"kind": "SCRATCH_MEMORY", "operations": ["SCRATCH_MEMORY_NONE", "SCRATCH_MEMORY_ALLOC", "SCRATCH_MEMORY_FREE", "SCRATCH_MEMORY_ASYNC_RECLAIM"]}
kinds[16] = {"kind": "MEMORY_ALLOCATION", "operations": ["MEMORY_ALLOCATION_NONE", "MEMORY_ALLOCATION_ALLOCATE", "MEMORY_ALLOCATION_VMEM_ALLOCATE", "MEMORY_ALLOCATION_FREE", "MEMORY_ALLOCATION_VMEM_FREE"]}
kinds[18] = {"kind": "ROCDECODE_API", "operations": ["rocDecCreateVideoParser", "rocDecParseVideoData", "rocDecDestroyVideoParser", "rocDecCreateDecoder", "rocDecGetDecoderCaps"]}
kinds[19] = {"kind": "ROCJPEG_API", "operations": ["rocJpegStreamCreate", "rocJpegStreamParse", "rocJpegStreamDestroy", "rocJpegCreate"]}
A = 37946
def dinfo(d, kid, gx):
    return {"size": 72, "agent_id": {"handle": A}, "queue_id": {"handle": 1}, "kernel_id": kid,
            "dispatch_id": d, "private_segment_size": 0, "group_segment_size": 0,
            "workgroup_size": {"x": 64, "y": 1, "z": 1}, "grid_size": {"x": gx, "y": 1, "z": 1}}
def kd(d, kid, s, e):
    return {"size": 184, "kind": 11, "operation": 2, "thread_id": 77,
            "correlation_id": {"internal": d, "external": 0}, "start_timestamp": s,
            "end_timestamp": e, "dispatch_info": dinfo(d, kid, 1024), "stream_id": {"handle": 1}}
def cc(d, kid, s, e, recs):
    return {"thread_id": 77, "dispatch_data": {"size": 96, "correlation_id": {"internal": d, "external": 0},
            "start_timestamp": s, "end_timestamp": e, "dispatch_info": dinfo(d, kid, 1024)},
            "records": [{"counter_id": {"handle": c}, "value": v} for c, v in recs], "kernel_rename_val": 0}
def api(kind, op, corr, s, e):
    return {"size": 48, "kind": kind, "operation": op, "correlation_id": {"internal": corr, "external": 0},
            "start_timestamp": s, "end_timestamp": e, "thread_id": 77}
sec = {
  "metadata": {"pid": 77, "init_time": 50, "fini_time": 5000, "command": ["./app"], "node": {"hostname": "h"}},
  "agents": [{"size": 312, "id": {"handle": 1}, "type": 1, "logical_node_id": 0, "logical_node_type_id": 0},
             {"size": 312, "id": {"handle": A}, "type": 2, "logical_node_id": 4, "logical_node_type_id": 0}],
  "counters": [{"agent_id": {"handle": A}, "id": {"handle": 900}, "is_constant": 0, "is_derived": 0,
                "name": "SQ_WAVES", "description": "waves", "block": "SQ", "expression": "", "dimension_ids": [1, 2]},
               {"agent_id": {"handle": A}, "id": {"handle": 901}, "is_constant": 0, "is_derived": 0,
                "name": "GRBM_COUNT", "description": "", "block": "GRBM", "expression": "", "dimension_ids": [1]}],
  "strings": {"callback_records": [], "buffer_records": kinds, "marker_api": []},
  "code_objects": [],
  "kernel_symbols": [{"kernel_id": 10, "kernel_name": "_Z3addIfEvPT_", "formatted_kernel_name": "void add<float>(float*)", "truncated_kernel_name": "add"},
                     {"kernel_id": 11, "kernel_name": "_Z4gemmi", "formatted_kernel_name": "gemm(int)", "truncated_kernel_name": "gemm"}],
  "summary": [],
  "callback_records": {"counter_collection": [
      cc(1, 10, 1000, 1500, [(900, 10.0), (900, 6.0), (901, 2500.0)]),
      cc(2, 11, 2000, 2700, [(900, 16.0)]),
      cc(3, 11, 3000, 3400, [(900, 32.0)])]},
  "buffer_records": {
      "kernel_dispatch": [kd(1, 10, 1000, 1500), kd(2, 11, 2000, 2700)],
      "hip_api": [], "memory_copy": [],
      "memory_allocation": [
          dict(api(16, 1, 5, 100, 200), agent_id={"handle": A}, address="0x00007ffb26354000", allocation_size=1024),
          dict(api(16, 3, 6, 300, 310), agent_id={"handle": A}, address="0x00007ffb26354000", allocation_size=0)],
      "scratch_memory": [dict(api(12, 1, 0, 1124, 1500), agent_id={"handle": A}, queue_id={"handle": 1}, thread_id=113, flags=0)],
      "pc_sample_host_trap": [],
      "rocdecode_api": [api(18, 0, 583, 615, 700), api(18, 4, 584, 710, 720)],
      "rocjpeg_api": [api(19, 3, 105, 1286, 1300)]}}
print(json.dumps({"rocprofiler-sdk-tool": [sec]}, indent=1))
EOF

check_rc "csv set: exit 0" 0 rpd-import set s.rpd
check_rc "json: exit 0" 0 rpd-import run_results.json j.rpd
check_eq "json summary: read and wrote lines for every kind" \
  "read counter_collection 3|read kernel_dispatch 2|read memory_allocation 2|read scratch_memory 1|read rocdecode_api 2|read rocjpeg_api 1|wrote rocpd_counter 4|wrote ext_memory_allocation 2|wrote ext_scratch_memory 1" \
  "$(grep -E 'read (counter|kernel|memory_alloc|scratch|rocdec|rocjp)|wrote (rocpd_counter|ext_)' "$TESTDIR/stderr" | awk '{print $1, $2, $3}' | paste -sd'|')"
check_eq "json: the dispatch not in the kernel trace made its op from the counter record" "1" \
  "$(grep -o 'rocpd_counter.*' "$TESTDIR/stderr" | grep -o '[0-9]* dispatches' | cut -d' ' -f1)"
# an independent reading of the input: python sums the JSON's counter records
check_eq "json counter sum = python's sum of the records" \
  "$(python3 -c "import json; d=json.load(open('run_results.json'))['rocprofiler-sdk-tool'][0]; print('%.1f' % sum(r['value'] for c in d['callback_records']['counter_collection'] for r in c['records']))")" \
  "$(q j.rpd "SELECT sum(value) FROM counter")"
check_eq "counter view: json rows = csv rows (dimension instances summed)" \
  "$(q s.rpd "SELECT op_id, gpuId, queueId, dispatch, kernelName, counter, value, start, end FROM counter ORDER BY dispatch, counter")" \
  "$(q j.rpd "SELECT op_id, gpuId, queueId, dispatch, kernelName, counter, value, start, end FROM counter ORDER BY dispatch, counter")"
check_eq "counter rows, whole" \
  "1|void add<float>(float*)|GRBM_COUNT|2500.0;1|void add<float>(float*)|SQ_WAVES|16.0;2|gemm(int)|SQ_WAVES|16.0;3|gemm(int)|SQ_WAVES|32.0" \
  "$(q j.rpd "SELECT dispatch, kernelName, counter, value FROM counter ORDER BY dispatch, counter" | paste -sd';')"
check_eq "ops: json = csv (3 kernels, dispatch 3 made from its counter record)" \
  "$(q s.rpd "SELECT id, gpuId, queueId, sequenceId, start, end, description FROM op ORDER BY id")" \
  "$(q j.rpd "SELECT id, gpuId, queueId, sequenceId, start, end, description FROM op ORDER BY id")"
check_eq "memory allocations: json = csv (agent text 'Agent <logical_node_id>' too)" \
  "$(q s.rpd "SELECT operation, gpuId, agent, size, address, api_id, start, end FROM ext_memory_allocation ORDER BY id")" \
  "$(q j.rpd "SELECT operation, gpuId, agent, size, address, api_id, start, end FROM ext_memory_allocation ORDER BY id")"
check_eq "memory allocations: rows whole" \
  "MEMORY_ALLOCATION_ALLOCATE|0|1024|0x00007ffb26354000|5|100|200;MEMORY_ALLOCATION_FREE|0|0|0x00007ffb26354000|6|300|310" \
  "$(q j.rpd "SELECT operation, gpuId, size, address, api_id, start, end FROM ext_memory_allocation ORDER BY id" | paste -sd';')"
check_eq "scratch: json = csv" \
  "$(q s.rpd "SELECT operation, gpuId, agent, queueId, tid, flags, start, end FROM ext_scratch_memory")" \
  "$(q j.rpd "SELECT operation, gpuId, agent, queueId, tid, flags, start, end FROM ext_scratch_memory")"
check_eq "scratch row whole" "SCRATCH_MEMORY_ALLOC|0|Agent 4|1|113|0|1124|1500" \
  "$(q j.rpd "SELECT operation, gpuId, agent, queueId, tid, flags, start, end FROM ext_scratch_memory")"
check_eq "rocdecode/rocjpeg api rows: json = csv" \
  "$(q s.rpd "SELECT id, domain, apiName, start, end FROM api WHERE domain IN ('ROCDECODE','ROCJPEG') ORDER BY id")" \
  "$(q j.rpd "SELECT id, domain, apiName, start, end FROM api WHERE domain IN ('ROCDECODE','ROCJPEG') ORDER BY id")"
check_eq "rocdecode/rocjpeg by domain: count and duration sum" "ROCDECODE|2|95;ROCJPEG|1|14" \
  "$(q j.rpd "SELECT domain, count(*), sum(end-start) FROM api GROUP BY domain ORDER BY domain" | paste -sd';')"
check_eq "rocdecode operation names from strings.buffer_records[18]" "rocDecCreateVideoParser;rocDecGetDecoderCaps" \
  "$(q j.rpd "SELECT apiName FROM api WHERE domain='ROCDECODE' ORDER BY id" | paste -sd';')"
for f in kernel-stats api-stats; do
  raptor s.rpd --format $f -o s_$f.csv >/dev/null 2>&1
  raptor j.rpd --format $f -o j_$f.csv >/dev/null 2>&1
  check_eq "raptor --format $f: the same from the CSV and the JSON import" "$(cat s_$f.csv)" "$(cat j_$f.csv)"
done
check_eq "raptor kernel-stats of the JSON import: 3 kernels' time" "3|1600" \
  "$(python3 -c "import csv; r=list(csv.DictReader(open('j_kernel-stats.csv'))); print('%d|%d' % (sum(int(x['Calls']) for x in r), sum(int(x['TotalDurationNs']) for x in r)))")"
check_rc "json re-import with --force: exit 0" 0 rpd-import run_results.json j.rpd --force
check_eq "re-import: same counter count, no duplicates" "4" "$(q j.rpd "SELECT count(*) FROM rocpd_counter")"

# counters only (no kernel_dispatch records): every op made from its record
python3 -c "
import json; d=json.load(open('run_results.json')); d['rocprofiler-sdk-tool'][0]['buffer_records']['kernel_dispatch']=[]
print(json.dumps(d))" >cc_results.json
check_rc "json counters without a kernel trace: exit 0" 0 rpd-import -q cc_results.json c.rpd
check_eq "counters only: 3 ops from the records, same counter rows" \
  "3|$(q s.rpd "SELECT group_concat(dispatch || ':' || counter || '=' || value, ',') FROM (SELECT * FROM counter ORDER BY dispatch, counter)")" \
  "$(q c.rpd "SELECT (SELECT count(*) FROM rocpd_op), (SELECT group_concat(dispatch || ':' || counter || '=' || value, ',') FROM (SELECT * FROM counter ORDER BY dispatch, counter))")"

# two processes in one JSON (two sections, dispatch ids restart at 1): each
# section's counters land on that section's ops
python3 -c "
import json, copy; d=json.load(open('run_results.json')); a=d['rocprofiler-sdk-tool'][0]; b=copy.deepcopy(a)
b['metadata']['pid']=78
for r in b['callback_records']['counter_collection']:
    r['dispatch_data']['start_timestamp'] += 100000; r['dispatch_data']['end_timestamp'] += 100000
    for v in r['records']: v['value'] *= 10
for r in b['buffer_records']['kernel_dispatch']:
    r['start_timestamp'] += 100000; r['end_timestamp'] += 100000
d['rocprofiler-sdk-tool'].append(b); print(json.dumps(d))" >two_results.json
check_rc "json with two processes: exit 0" 0 rpd-import -q two_results.json two.rpd
check_eq "two processes: 6 ops, 8 counter rows, each on its own process's op (x10 in the second)" \
  "6|8|2564.0|25640.0" \
  "$(q two.rpd "SELECT (SELECT count(*) FROM rocpd_op), (SELECT count(*) FROM counter), (SELECT sum(value) FROM counter WHERE start < 100000), (SELECT sum(value) FROM counter WHERE start > 100000)")"

# a truncated counter record: one line, no OUT
head -c "$(grep -n '"records"' run_results.json | head -1 | cut -d: -f1 | xargs -I{} sh -c "head -n {} run_results.json | wc -c")" run_results.json >trunc_results.json
cp trunc_results.json trunc.orig
check_rc "truncated JSON inside a counter record: exit 1" 1 rpd-import trunc_results.json t.rpd
check_one_line "truncated JSON: one line"
same_file "truncated JSON: input byte-identical" trunc.orig trunc_results.json
check_eq "truncated JSON: no OUT" "no" "$(test -e t.rpd && echo yes || echo no)"

# ------------------------------------------------ rocprofv3 database
# rpd-synth-rocpd writes pmc events (2 counters on every 4th dispatch) and
# allocations; plain SQL adds what it lacks: a second instance of one counter
# value (summed), a pmc event on an event that is no dispatch (skipped and
# counted), scratch rows (level SCRATCH, flags in extdata) and a rocdecode
# region, in rocprofiler-sdk's rocpd schema.
rpd-synth-rocpd -q --dispatches 64 -o r.db
G=$(q r.db "SELECT substr(name, 14) FROM sqlite_master WHERE type='table' AND name LIKE 'rocpd_region_%'")
sqlite3 r.db "
INSERT INTO rocpd_pmc_event_$G(event_id, pmc_id, value) SELECT event_id, pmc_id, 0.5 FROM rocpd_pmc_event_$G ORDER BY id LIMIT 1;
INSERT INTO rocpd_event_$G(category_id, stack_id) VALUES (1, 0);
INSERT INTO rocpd_pmc_event_$G(event_id, pmc_id, value) VALUES ((SELECT max(id) FROM rocpd_event_$G), 1, 99);
INSERT INTO rocpd_memory_allocate_$G(nid, pid, tid, agent_id, type, level, start, end, address, size, queue_id, event_id, extdata)
  SELECT nid, pid, tid, 2, 'ALLOC', 'SCRATCH', 7000, 7100, 0, 4096, 1, event_id, '{\"flags\":2}' FROM rocpd_memory_allocate_$G LIMIT 1;
INSERT INTO rocpd_memory_allocate_$G(nid, pid, tid, agent_id, type, level, start, end, address, size, queue_id, event_id, extdata)
  SELECT nid, pid, tid, 2, 'FREE', 'SCRATCH', 7200, 7300, 0, 0, 1, event_id, '{}' FROM rocpd_memory_allocate_$G LIMIT 1;
INSERT INTO rocpd_memory_allocate_$G(nid, pid, tid, agent_id, type, level, start, end, address, size, queue_id, event_id)
  SELECT nid, pid, tid, 1, 'FREE', 'REAL', 8000, 8010, 140737488355328, 0, 1, event_id FROM rocpd_memory_allocate_$G LIMIT 1;
INSERT INTO rocpd_string_$G(id, string) VALUES (1000, 'ROCDECODE_API'), (1001, 'rocDecCreateDecoder');
INSERT INTO rocpd_event_$G(category_id, stack_id) VALUES (1000, 9000);
INSERT INTO rocpd_region_$G(nid, pid, tid, start, end, name_id, event_id)
  SELECT nid, pid, tid, 9000, 9250, 1001, (SELECT max(id) FROM rocpd_event_$G) FROM rocpd_region_$G LIMIT 1;" || notok "db fixture" "sqlite3 failed"
cp r.db r.orig
check_rc "db: exit 0" 0 rpd-import r.db d.rpd
same_file "db: input byte-identical" r.orig r.db
check_eq "db summary: pmc events read, allocations and scratch read, one pmc event skipped" \
  "read pmc_event 34|read memory_allocation 2|read scratch_memory 2|wrote rocpd_counter 32|wrote ext_memory_allocation 2|wrote ext_scratch_memory 2|skipped 1 pmc" \
  "$(grep -E 'read (pmc|memory_alloc|scratch)|wrote (rocpd_counter|ext_)|skipped [0-9]+ pmc' "$TESTDIR/stderr" | awk '{print $1, $2, $3}' | paste -sd'|')"
# independent query of the input: the database's own counters_collection view
check_eq "db counters = the input's counters_collection view (dispatch, name, summed value)" \
  "$(q r.db "SELECT dispatch_id, counter_name, value FROM counters_collection ORDER BY dispatch_id, counter_name")" \
  "$(q d.rpd "SELECT dispatch, counter, value FROM counter ORDER BY dispatch, counter")"
check_eq "db counters: exact sum and count" \
  "$(q r.db "SELECT count(*), sum(value) FROM counters_collection")" \
  "$(q d.rpd "SELECT count(*), sum(value) FROM counter")"
check_eq "db counters hang on the op of their dispatch (kernel name, gpu, start)" \
  "$(q r.db "SELECT dispatch_id, kernel_name, agent_type_index, start FROM counters_collection ORDER BY dispatch_id, counter_name")" \
  "$(q d.rpd "SELECT dispatch, kernelName, gpuId, start FROM counter ORDER BY dispatch, counter")"
check_eq "db allocations = the input's memory_allocations view (REAL level)" \
  "$(q r.db "SELECT CASE type WHEN 'ALLOC' THEN 'MEMORY_ALLOCATION_ALLOCATE' ELSE 'MEMORY_ALLOCATION_FREE' END, agent_type_index, size, printf('0x%016x', address), start, end FROM memory_allocations WHERE level='REAL' ORDER BY id")" \
  "$(q d.rpd "SELECT operation, gpuId, size, address, start, end FROM ext_memory_allocation ORDER BY id")"
check_eq "db scratch rows whole (flags from extdata, agent 2 = gpu 1)" \
  "SCRATCH_MEMORY_ALLOC|1|Agent 2|1|2|7000|7100;SCRATCH_MEMORY_FREE|1|Agent 2|1|0|7200|7300" \
  "$(q d.rpd "SELECT operation, gpuId, agent, queueId, flags, start, end FROM ext_scratch_memory ORDER BY id" | paste -sd';')"
check_eq "db scratch tid = the thread's tid" \
  "$(q r.db "SELECT group_concat(tid, ';') FROM (SELECT tid FROM scratch_memory ORDER BY start)")" \
  "$(q d.rpd "SELECT group_concat(tid, ';') FROM (SELECT tid FROM ext_scratch_memory ORDER BY id)")"
check_eq "db rocdecode region: domain ROCDECODE" "9000|ROCDECODE|rocDecCreateDecoder|250" \
  "$(q d.rpd "SELECT id, domain, apiName, end - start FROM api WHERE domain = 'ROCDECODE'")"
check_eq "db summary counts the rocdecode region" "read rocdecode_api 1" \
  "$(grep -E 'read rocdecode_api' "$TESTDIR/stderr" | awk '{print $1, $2, $3}')"

# the same run as a CSV set exported from the database with plain SQL
# (rocprofv3's CSV columns): the CSV path gives the same counter rows
mkdir dbcsv
sqlite3 -header -csv r.db "SELECT 'KERNEL_DISPATCH' AS Kind, 'Agent ' || agent_log_index AS Agent_Id, queue_id AS Queue_Id, dispatch_id AS Dispatch_Id, name AS Kernel_Name, stack_id AS Correlation_Id, start AS Start_Timestamp, \"end\" AS End_Timestamp FROM kernels ORDER BY id" >dbcsv/5_kernel_trace.csv
sqlite3 -header -csv r.db "SELECT stack_id AS Correlation_Id, dispatch_id AS Dispatch_Id, 'Agent ' || agent_log_index AS Agent_Id, counter_name AS Counter_Name, value AS Counter_Value FROM counters_collection ORDER BY id" >dbcsv/5_counter_collection.csv
check_rc "db exported as CSV: exit 0" 0 rpd-import -q dbcsv x.rpd
check_eq "CSV of the same run = db: counter rows (dispatch, kernel, gpu, name, value, times)" \
  "$(q x.rpd "SELECT dispatch, kernelName, gpuId, counter, value, start, end FROM counter ORDER BY dispatch, counter")" \
  "$(q d.rpd "SELECT dispatch, kernelName, gpuId, counter, value, start, end FROM counter ORDER BY dispatch, counter")"

# a database without pmc or allocation tables (older rocprofv3) still imports
cp r.db old.db
sqlite3 old.db "DROP VIEW IF EXISTS counters_collection; DROP VIEW IF EXISTS pmc_events; DROP VIEW IF EXISTS rocpd_pmc_event; DROP TABLE rocpd_pmc_event_$G; DROP VIEW IF EXISTS scratch_memory; DROP VIEW IF EXISTS memory_allocations; DROP VIEW IF EXISTS rocpd_memory_allocate; DROP TABLE rocpd_memory_allocate_$G;" 2>/dev/null
check_rc "db without pmc/allocation tables: exit 0" 0 rpd-import -q old.db o.rpd
check_eq "db without them: same ops, no counters" "$(q d.rpd "SELECT count(*) FROM rocpd_op")|0" \
  "$(q o.rpd "SELECT (SELECT count(*) FROM rocpd_op), (SELECT count(*) FROM rocpd_counter)")"

# ------------------------------------------------ rocprof v1 results.json
# A fixture in rocprof v1's exact layout (process_name lanes, X slices with
# string numbers, DataFlow s/t flow pairs), then the real sample.
cat >v1_results.json <<'EOF'
{ "traceEvents":[{}
,{"args":{"name":"CPU HIP API"},"ph":"M","pid":2,"name":"process_name","sort_index":0}
,{"args":{"name":"COPY"},"ph":"M","pid":1,"name":"process_name","sort_index":1}
,{"args":{"name":"GPU0"},"ph":"M","pid":6,"name":"process_name","sort_index":2}
,{"ph":"X","name":"CopyHostToDevice","pid":1,"tid":0,"ts":"5","dur":"2",
  "args":{"BeginNs":"5100","EndNs":"7100","dev-id":"1","queue-id":"0","Name":"CopyHostToDevice","pid":"9","tid":"9","stream-id":"0","Data":"","DurationNs":"2000"}}
,{"ph":"X","name":"hipMemcpy","pid":2,"tid":9,"ts":"1","dur":"8","args":{"BeginNs":"1000","EndNs":"9000","pid":"9","tid":"9","Name":"hipMemcpy","args":"( dst(0x1) src(0x2) sizeBytes(4096) kind(1))","Data":"","DurationNs":"8000"}}
,{"ph":"X","name":"hipLaunchKernel","pid":2,"tid":9,"ts":"10","dur":"2","args":{"BeginNs":"10000","EndNs":"12000","pid":"9","tid":"9","Name":"hipLaunchKernel","args":"( kernel(gemm(int)) stream(0))","Data":"","DurationNs":"2000"}}
,{"ph":"X","name":"hipFree","pid":2,"tid":9,"ts":"30","dur":"1","args":{"BeginNs":"30000","EndNs":"31000","pid":"9","tid":"9","Name":"hipFree","args":"( ptr(0x1))","Data":"","DurationNs":"1000"}}
,{"ph":"X","name":"gemm(int)","pid":6,"tid":1,"ts":"13","dur":"7","args":{"BeginNs":"13500","EndNs":"20500","dev-id":"0","queue-id":"3","Name":"gemm(int)","pid":"9","tid":"9","stream-id":"0","Data":"","DurationNs":"7000"}}
,{"ts":2,"ph":"s","cat":"DataFlow","id":0,"pid":2,"tid":9,"name":"dep"}
,{"ts":5,"ph":"t","cat":"DataFlow","id":0,"pid":1,"tid":0,"name":"dep"}
,{"ts":11,"ph":"s","cat":"DataFlow","id":1,"pid":2,"tid":9,"name":"dep"}
,{"ts":13,"ph":"t","cat":"DataFlow","id":1,"pid":6,"tid":1,"name":"dep"}
,{"ts":31,"ph":"s","cat":"DataFlow","id":2,"pid":2,"tid":9,"name":"dep"}
,{"ts":99,"ph":"t","cat":"DataFlow","id":2,"pid":6,"tid":1,"name":"dep"}
],
"otherData": {"CMD": "rocminfo"}
}
EOF
cp v1_results.json v1.orig
check_rc "v1 results.json: exit 0" 0 rpd-import v1_results.json v1j.rpd
same_file "v1 results.json: input byte-identical" v1.orig v1_results.json
check_eq "v1 results.json summary: every slice read, the dangling flow counted" \
  "read v1 json HIP 3|read v1 json OPS 1|read v1 json COPY 1|skipped 1 flow arrows whose" \
  "$(grep -E 'read v1|skipped [0-9]+ flow' "$TESTDIR/stderr" | awk '{print $1, $2, $3, $4, $5}' | sed 's/ *$//' | paste -sd'|')"
check_eq "v1 results.json: calls numbered in file order, args as written" \
  "1|HIP|hipMemcpy|1000|9000|9|9;2|HIP|hipLaunchKernel|10000|12000|9|9;3|HIP|hipFree|30000|31000|9|9" \
  "$(q v1j.rpd "SELECT id, domain, apiName, start, end, pid, tid FROM api ORDER BY id" | paste -sd';')"
check_eq "v1 results.json: ops whole (kernel on dev-id 0 queue 3, copy H2D on gpu 1)" \
  "0|3|13500|20500|gemm(int)|KernelExecution;1|0|5100|7100||CopyHostToDevice" \
  "$(q v1j.rpd "SELECT gpuId, queueId, start, end, description, opType FROM op ORDER BY id" | paste -sd';')"
check_eq "v1 results.json: flows link each op to the call around the arrow's tail" "1|2;2|1" \
  "$(q v1j.rpd "SELECT op_id, api_id FROM rocpd_api_ops ORDER BY op_id" | paste -sd';')"
check_eq "v1 results.json: copy size from its call's sizeBytes(N)" "1|4096|1" \
  "$(q v1j.rpd "SELECT api_ptr_id, size, kind FROM rocpd_copyapi")"
printf '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1}]}\n' >chrome.json
cp chrome.json chrome.orig
check_rc "a chrome trace that is not rocprof v1's: exit 1" 1 rpd-import chrome.json c2.rpd
check_one_line "not rocprof v1's: one line"
check_eq "not rocprof v1's: says what was looked for" \
  "rpd-import: cannot import 'chrome.json': not rocprofv3 output (no 'rocprofiler-sdk-tool' key) and not a rocprof v1 results.json (a chrome trace with no 'CPU HIP API', 'COPY' or 'GPU<N>' slices)" \
  "$(cat "$TESTDIR/stderr")"
same_file "not rocprof v1's: input byte-identical" chrome.orig chrome.json
check_eq "not rocprof v1's: no OUT" "no" "$(test -e c2.rpd && echo yes || echo no)"
head -c 700 v1_results.json >v1_trunc.json
check_rc "truncated v1 results.json: exit 1" 1 rpd-import v1_trunc.json t2.rpd
check_one_line "truncated v1 results.json: one line"
check "truncated v1 results.json: says malformed" grep -q "malformed JSON" "$TESTDIR/stderr"

V="$TRACES/rocprofv1_batched_gemm"
if need_shared "$V/results.json"; then
  check_rc "batched_gemm results.json: exit 0" 0 rpd-import "$V/results.json" bj.rpd
  check_rc "batched_gemm results.db: exit 0" 0 rpd-import -q "$V/results.db" bd.rpd
  for t in "SELECT id, gpuId, queueId, start, end, description, opType FROM op ORDER BY id" \
           "SELECT id, domain, category, apiName, args, start, end, pid, tid FROM api ORDER BY id" \
           "SELECT op_id, api_id FROM rocpd_api_ops ORDER BY op_id" \
           "SELECT * FROM rocpd_copyapi ORDER BY api_ptr_id" \
           "SELECT * FROM rocpd_kernelapi ORDER BY api_ptr_id"; do
    check_eq "batched_gemm results.json = results.db: ${t#SELECT }" "$(q bd.rpd "$t")" "$(q bj.rpd "$t")"
  done
  # v1's own stats files, read by python: name, calls, total ns
  stats() { python3 -c "
import csv, sys
for r in sorted(csv.DictReader(open(sys.argv[1])), key=lambda r: r['Name']): print('%s|%s|%s' % (r['Name'], r['Calls'], r['TotalDurationNs']))" "$1"; }
  check_eq "batched_gemm results.json: kernels = results.stats.csv" "$(stats "$V/results.stats.csv")" \
    "$(q bj.rpd "SELECT description, count(*), sum(end-start) FROM op WHERE opType='KernelExecution' GROUP BY 1 ORDER BY 1")"
  check_eq "batched_gemm results.json: copies = results.copy_stats.csv" "$(stats "$V/results.copy_stats.csv")" \
    "$(q bj.rpd "SELECT opType, count(*), sum(end-start) FROM op WHERE opType LIKE 'Copy%' GROUP BY 1 ORDER BY 1")"
  check_eq "batched_gemm results.json: hip calls = results.hip_stats.csv" "$(stats "$V/results.hip_stats.csv")" \
    "$(q bj.rpd "SELECT apiName, count(*), sum(end-start) FROM api GROUP BY 1 ORDER BY 1")"
  check_eq "batched_gemm results.json: every op linked" "4" "$(q bj.rpd "SELECT count(*) FROM rocpd_api_ops")"
fi
