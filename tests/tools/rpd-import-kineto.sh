#!/bin/sh
# tests/tools/rpd-import-kineto.sh - PyTorch profiler (Kineto) traces into
# RPD: counts and sums against the JSON itself (python3's json with exact
# decimals), raptor --report against TraceLens's own perf_report_csvs of the
# same traces, rpd-autograd / rpd-callstack on the markers, the collective
# args, metadata and ranks (rpd-merge of HTA's rank-0/1 pair), exact
# nanoseconds, and bad input.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

K="$TRACES/kineto"
H100="$K/tracelens_h100_gaunernst_bert-small-uncased__1016001"
MI300="$K/tracelens_mi300_Qwen_Qwen1.5-0.5B-Chat__1016005"

# facts TRACE: what the JSON holds, one "key value" per line (exact ns from
# the decimal text: Decimal, never a float)
facts() {
  python3 - "$1" <<'EOF'
import gzip, json, sys
from decimal import Decimal
from collections import defaultdict
d = json.load(gzip.open(sys.argv[1]), parse_float=Decimal)
ev = d["traceEvents"]
ns = lambda v: int((Decimal(v) * 1000).to_integral_value())
X = [e for e in ev if e.get("ph") == "X"]
cat = lambda c: [e for e in X if e.get("cat") == c]
gpu = cat("kernel") + cat("gpu_memcpy") + cat("gpu_memset")
rt = cat("cuda_runtime") + cat("cuda_driver")
rtc = {e["args"]["correlation"] for e in rt if "correlation" in e.get("args", {})}
print("kernels", len(cat("kernel")))
print("memcpy", len(cat("gpu_memcpy")))
print("memset", len(cat("gpu_memset")))
print("gpu", len(gpu))
print("runtime", len(rt))
print("markers", len(cat("cpu_op")) + len(cat("user_annotation")))
print("python", len(cat("python_function")))
print("linked", sum(1 for e in gpu if e.get("args", {}).get("correlation") in rtc))
print("bytes", sum(e["args"].get("bytes", 0) for e in cat("gpu_memcpy") + cat("gpu_memset")))
print("grid", sum(e["args"].get("grid", [0])[0] * e["args"].get("block", [0])[0] for e in cat("kernel")))
print("first_ns", min(ns(e["ts"]) for e in gpu))
print("last_ns", max(ns(e["ts"]) + ns(e["dur"]) for e in gpu))
print("gpu_annot", len(cat("gpu_user_annotation")))
print("comms", sum(1 for e in cat("cpu_op") if e["name"] == "record_param_comms"))
# busy time: the union of the GPU events' intervals
iv = sorted((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in gpu)
busy, cs, ce = 0, None, None
for s, t in iv:
    if ce is None or s > ce:
        if ce is not None:
            busy += ce - cs
        cs, ce = s, t
    else:
        ce = max(ce, t)
busy += ce - cs
print("busy_ns", busy)
k = defaultdict(lambda: [0, 0])
for e in cat("kernel"):
    k[e["name"]][0] += 1
    k[e["name"]][1] += ns(e["dur"])
with open("kernels.txt", "w") as f:
    for n in sorted(k):
        f.write("%s|%d|%d\n" % (n, k[n][0], k[n][1]))
EOF
}
fact() { sed -n "s/^$1 //p" facts.txt; }
# near NAME A B TOL: |A - B| <= TOL
near() {
  if awk -v a="$2" -v b="$3" -v t="$4" 'BEGIN{d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= t)}'
  then ok "$1"; else notok "$1" "[$2] and [$3] differ by more than $4"; fi
}
# busy_of RPD [linked]: the union of the GPU ops' intervals in ns (only the
# ops linked to a traced runtime call with "linked")
busy_of() {
  if [ "$2" = linked ]; then
    q "$1" "SELECT O.start, O.end FROM rocpd_op O JOIN rocpd_api_ops L ON L.op_id = O.id
            JOIN rocpd_api A ON A.id = L.api_id ORDER BY 1"
  else q "$1" "SELECT start, end FROM rocpd_op ORDER BY 1"; fi | python3 -c '
import sys
b, cs, ce = 0, None, None
for l in sys.stdin:
    s, t = map(int, l.split("|"))
    if ce is None or s > ce:
        if ce is not None:
            b += ce - cs
        cs, ce = s, t
    else:
        ce = max(ce, t)
print(b + (ce - cs if ce is not None else 0))'
}

if need_shared "$H100/trace.json.gz"; then
  check "import the H100 bert-small trace" rpd-import -q "$H100/trace.json.gz" h100.rpd
  facts "$H100/trace.json.gz" >facts.txt
  # --- 1. GPU work
  check_eq "kernel ops = the trace's kernel events" "$(fact kernels)" \
    "$(q h100.rpd "SELECT count(*) FROM rocpd_op O JOIN rocpd_string T ON T.id = O.opType_id WHERE T.string = 'KernelExecution'")"
  check_eq "every GPU event is an op" "$(fact gpu)" "$(q h100.rpd "SELECT count(*) FROM rocpd_op")"
  check_eq "memcpy events are CopyDeviceToHost ops" "$(fact memcpy)" \
    "$(q h100.rpd "SELECT count(*) FROM rocpd_op O JOIN rocpd_string T ON T.id = O.opType_id WHERE T.string = 'CopyDeviceToHost'")"
  check_eq "copy bytes = the trace's" "$(fact bytes)" "$(q h100.rpd "SELECT total(size) FROM rocpd_copyapi" | sed 's/\.0$//')"
  check_eq "grid x block per kernel = the trace's" "$(fact grid)" \
    "$(q h100.rpd "SELECT sum(gridX * workgroupX) FROM rocpd_kernelapi")"
  check_eq "gpuId = args.device, queueId = args.stream" "0|7" \
    "$(q h100.rpd "SELECT DISTINCT gpuId || '|' || queueId FROM rocpd_op")"
  q h100.rpd "SELECT D.string || '|' || count(*) || '|' || sum(O.end - O.start) FROM rocpd_op O
    JOIN rocpd_string D ON D.id = O.description_id JOIN rocpd_string T ON T.id = O.opType_id
    WHERE T.string = 'KernelExecution' GROUP BY D.string ORDER BY D.string" >rpd_kernels.txt
  LC_ALL=C sort kernels.txt >a.txt; LC_ALL=C sort rpd_kernels.txt >b.txt
  same_file "per-kernel count and total ns = sums over the JSON" a.txt b.txt
  check_eq "nanoseconds exact: first GPU start" "$(fact first_ns)" "$(q h100.rpd "SELECT min(start) FROM rocpd_op")"
  check_eq "nanoseconds exact: last GPU end" "$(fact last_ns)" "$(q h100.rpd "SELECT max(end) FROM rocpd_op")"
  # --- 2. host side
  check_eq "runtime/driver calls are api rows" "$(fact runtime)" \
    "$(q h100.rpd "SELECT count(*) FROM api WHERE domain IN ('CUDA', 'HIP')")"
  check_eq "cpu_op and user_annotation are UserMarker rows" "$(fact markers)" \
    "$(q h100.rpd "SELECT count(*) FROM rocpd_api A JOIN rocpd_string N ON N.id = A.apiName_id WHERE N.string = 'UserMarker'")"
  check_eq "every GPU event whose correlation matches a runtime call is linked" "$(fact linked)" \
    "$(q h100.rpd "SELECT count(*) FROM rocpd_api_ops L JOIN rocpd_api A ON A.id = L.api_id")"
  check_eq "python_function rows have their own domain, named by the function" "$(fact python)|threading.py(1032): _bootstrap" \
    "$(q h100.rpd "SELECT count(*) || '|' || (SELECT apiName FROM api WHERE domain = 'PYTHON' ORDER BY start LIMIT 1) FROM api WHERE domain = 'PYTHON'")"
  check_eq "gpu_user_annotation ranges kept" "$(fact gpu_annot)" \
    "$(q h100.rpd "SELECT count(*) FROM ext_kineto_event WHERE cat = 'gpu_user_annotation'")"
  check_eq "input types and strides of a cpu_op in kineto_op_args" \
    '["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar"]|[[1],[512,1],[1,512],[],[]]' \
    "$(q h100.rpd "SELECT input_types || '|' || input_strides FROM kineto_op_args WHERE name = 'aten::addmm' ORDER BY start LIMIT 1")"
  check "rpd-autograd" rpd-autograd h100.rpd
  check_eq "autogradKernel: aten::addmm with its input dims, kernel time by op" \
    "aten::addmm|[[512], [141, 512], [512, 512], [], []]|17|98718" \
    "$(q h100.rpd "SELECT autogradName || '|' || sizes || '|' || calls || '|' || total_gpu FROM autogradKernel
       WHERE autogradName = 'aten::addmm' AND sizes = '[[512], [141, 512], [512, 512], [], []]'")"
  check_eq "call stack: every kernel's time reaches ProfilerStep#6" \
    "$(q h100.rpd "SELECT sum(O.end - O.start) FROM rocpd_op O JOIN rocpd_api_ops L ON L.op_id = O.id JOIN rocpd_api A ON A.id = L.api_id")" \
    "$(q h100.rpd "SELECT gpu_time FROM callStack_inclusive_name WHERE args = 'ProfilerStep#6'")"
  check_eq "ext_kineto_event args are valid JSON" "$(q h100.rpd "SELECT count(*) FROM ext_kineto_event")" \
    "$(q h100.rpd "SELECT sum(json_valid(args)) FROM ext_kineto_event")"
  # every tool works on the imported trace unchanged
  cp h100.rpd tools.rpd
  check "rpd2tracing on the imported trace" rpd2tracing tools.rpd tools.json
  check "rpd-analyze on the imported trace" rpd-analyze tools.rpd
  check "raptor on the imported trace" raptor tools.rpd
  # --- 3. metadata
  check_eq "deviceProperties in rocpd_metadata" "NVIDIA H100 80GB HBM3|85018279936|132" \
    "$(q h100.rpd "SELECT group_concat(value, '|') FROM (SELECT value FROM rocpd_metadata WHERE tag IN
       ('kineto::gpu.0.name', 'kineto::gpu.0.cus', 'kineto::gpu.0.memory') ORDER BY tag DESC)")"
  check_eq "baseTimeNanoseconds -> clock_offset_ns (rpd-merge --align meta)" "1751410836000000000" \
    "$(q h100.rpd "SELECT value FROM rocpd_metadata WHERE tag = 'clock_offset_ns'")"
  check_eq "profiler settings kept" "1" "$(q h100.rpd "SELECT json_extract(value, '$.profiler.torch_profiler_kwargs.record_shapes') FROM rocpd_metadata WHERE tag = 'kineto::metadata'")"
  # --- right numbers: raptor --report against TraceLens's perf_report_csvs
  rm -rf rep && raptor h100.rpd --report --csv-dir rep -q
  tl_busy=$(sed -n 's/^busy_time,\([^,]*\),.*/\1/p' "$H100/perf_report_csvs/gpu_timeline.csv")
  rp_busy=$(sed -n 's/^,busy_time,\([^,]*\),.*/\1/p' rep/gpu_timeline.csv)
  # TraceLens adds float64 microseconds of ~1.4e12: its sums carry ~0.25 ns
  # per timestamp of noise (0.309437744 for an exact 309437 ns)
  near "GPU busy time = TraceLens gpu_timeline (to 1 ns)" "$tl_busy" "$rp_busy" 0.000001
  check_eq "GPU busy time = the union of the JSON's GPU intervals" \
    "$(awk -v b="$(fact busy_ns)" 'BEGIN{printf "%.6f", b / 1e6}')" "$rp_busy"
  check_eq "total time = TraceLens gpu_timeline" \
    "$(awk -v b="$(sed -n 's/^total_time,\([^,]*\),.*/\1/p' "$H100/perf_report_csvs/gpu_timeline.csv")" 'BEGIN{printf "%.6f", b}')" \
    "$(sed -n 's/^,total_time,\([^,]*\),.*/\1/p' rep/gpu_timeline.csv)"
fi

# The MI300 run of bert-small (not in /work/shared: in the TraceLens
# repository beside its perf_report_csvs): TraceLens's gpu_timeline says
# busy 0.39074853515625 ms, total 3.49597607421875 ms
TL_REPO=${TRACELENS_MIRROR:-/work/.mirror/AMD-AGI+TraceLens/repo}
tlb=tests/traces/mi300/gaunernst_bert-small-uncased__1016001
if git -C "$TL_REPO" show "HEAD:$tlb.json.gz" >mi300bert.json.gz 2>/dev/null &&
   git -C "$TL_REPO" show "HEAD:${tlb}_perf_report_csvs/gpu_timeline.csv" >mi300bert.csv 2>/dev/null; then
  rpd-import -q mi300bert.json.gz mi300bert.rpd
  rm -rf repb && raptor mi300bert.rpd --report --csv-dir repb -q
  near "MI300 bert-small: GPU busy time = TraceLens gpu_timeline (0.39075 ms)" \
    "$(sed -n 's/^busy_time,\([^,]*\),.*/\1/p' mi300bert.csv)" \
    "$(sed -n 's/^,busy_time,\([^,]*\),.*/\1/p' repb/gpu_timeline.csv)" 0.000001
  near "MI300 bert-small: total time = TraceLens gpu_timeline" \
    "$(sed -n 's/^total_time,\([^,]*\),.*/\1/p' mi300bert.csv)" \
    "$(sed -n 's/^,total_time,\([^,]*\),.*/\1/p' repb/gpu_timeline.csv)" 0.000001
else
  skip "MI300 bert-small against TraceLens: no TraceLens mirror at $TL_REPO (TRACELENS_MIRROR)"
fi

# kernel_summary of raptor and of TraceLens (its rows are per parent op and
# stream: summed by kernel name they must be raptor's rows)
ksum_cmp() { # NAME TRACE_DIR RPD
  python3 - "$2/perf_report_csvs/kernel_summary.csv" rep/kernel_summary.csv <<'EOF' >ks.out
import csv, sys
from collections import defaultdict
tl = defaultdict(lambda: [0, 0.0])
for r in csv.DictReader(open(sys.argv[1], encoding="utf-8")):
    t = tl[r["Kernel name"]]
    t[0] += int(r["Kernel duration (\u00b5s)_count"])
    t[1] += float(r["Kernel duration (\u00b5s)_sum"])
rp = {r["name"]: (int(r["count"]), float(r["total_us"])) for r in csv.DictReader(open(sys.argv[2]))}
bad = [n for n in set(tl) | set(rp) if n not in tl or n not in rp or tl[n][0] != rp[n][0] or abs(tl[n][1] - rp[n][1]) > 0.0015]
print("rows %d %d bad %d %s" % (len(tl), len(rp), len(bad), bad[:2]))
EOF
  _n=$(sed -n 's/^rows \([0-9]*\) \([0-9]*\) bad 0 .*/\1 \2/p' ks.out)
  if [ -n "$_n" ] && [ "${_n% *}" = "${_n#* }" ]; then ok "$1"; else notok "$1" "$(cat ks.out)"; fi
}
if need_shared "$H100/perf_report_csvs/kernel_summary.csv"; then
  ksum_cmp "H100: raptor kernel_summary = TraceLens kernel_summary.csv row for row" "$H100"
fi

if need_shared "$MI300/trace.json.gz"; then
  check "import the MI300 Qwen trace" rpd-import -q "$MI300/trace.json.gz" mi300.rpd
  facts "$MI300/trace.json.gz" >facts.txt
  check_eq "MI300: kernel ops = the trace's" "$(fact kernels)" \
    "$(q mi300.rpd "SELECT count(*) FROM rocpd_op O JOIN rocpd_string T ON T.id = O.opType_id WHERE T.string = 'KernelExecution'")"
  check_eq "MI300: hip runtime calls in the HIP domain" "$(fact runtime)" \
    "$(q mi300.rpd "SELECT count(*) FROM api WHERE domain = 'HIP'")"
  check_eq "MI300: linked GPU events" "$(fact linked)" \
    "$(q mi300.rpd "SELECT count(*) FROM rocpd_api_ops L JOIN rocpd_api A ON A.id = L.api_id")"
  q mi300.rpd "SELECT D.string || '|' || count(*) || '|' || sum(O.end - O.start) FROM rocpd_op O
    JOIN rocpd_string D ON D.id = O.description_id JOIN rocpd_string T ON T.id = O.opType_id
    WHERE T.string = 'KernelExecution' GROUP BY D.string" >rpd_kernels.txt
  LC_ALL=C sort kernels.txt >a.txt; LC_ALL=C sort rpd_kernels.txt >b.txt
  same_file "MI300: per-kernel count and total ns = sums over the JSON" a.txt b.txt
  rm -rf rep && raptor mi300.rpd --report --csv-dir rep -q
  check_eq "MI300: raptor busy time = the union of every GPU event (exact ns)" \
    "$(awk -v b="$(fact busy_ns)" 'BEGIN{printf "%.6f", b / 1e6}')" \
    "$(sed -n 's/^,busy_time,\([^,]*\),.*/\1/p' rep/gpu_timeline.csv)"
  # TraceLens's gpu_timeline keeps only the GPU events its call tree links
  # to a launch (include_unlinked_kernels=False): 463 kernels of this trace
  # were launched before the profiled step; the same selection here agrees
  near "MI300: busy time of the launch-linked GPU ops = TraceLens gpu_timeline (float noise < 20 ns)" \
    "$(sed -n 's/^busy_time,\([^,]*\),.*/\1/p' "$MI300/perf_report_csvs/gpu_timeline.csv")" \
    "$(awk -v b="$(busy_of mi300.rpd linked)" 'BEGIN{printf "%.9f", b / 1e6}')" 0.00002
  check_eq "MI300: device name" "AMD Instinct MI300X VF" \
    "$(q mi300.rpd "SELECT value FROM rocpd_metadata WHERE tag = 'kineto::gpu.0.name'")"
  ksum_cmp "MI300: raptor kernel_summary = TraceLens kernel_summary.csv row for row" "$MI300"
fi

# --- 4. collectives
NCCL="$K/hta_nccl_parser_config_nccl_data.json.gz"
if need_shared "$NCCL"; then
  check "import HTA's NCCL trace" rpd-import -q "$NCCL" nccl.rpd
  facts "$NCCL" >facts.txt
  check_eq "record_param_comms args in kineto_collective" "$(fact comms)" \
    "$(q nccl.rpd "SELECT count(*) FROM kineto_collective WHERE name = 'record_param_comms'")"
  want=$(python3 - "$NCCL" <<'EOF'
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
k = [e for e in ev if e.get("cat") == "kernel" and "Collective name" in e.get("args", {})]
print("%d|%d|%s" % (len(k), sum(e["args"]["In msg nelems"] for e in k),
                    ",".join(sorted({e["args"]["Collective name"] for e in k}))))
EOF
)
  check_eq "NCCL kernels: collective, nelems on the op" "$want" \
    "$(q nccl.rpd "SELECT count(*) || '|' || sum(in_nelems) || '|' || (SELECT group_concat(c) FROM
       (SELECT DISTINCT collective AS c FROM kineto_collective WHERE op_id IS NOT NULL ORDER BY c))
       FROM kineto_collective WHERE op_id IS NOT NULL")"
  check_eq "distributedInfo -> rank, world_size" "0|2" \
    "$(q nccl.rpd "SELECT (SELECT value FROM rocpd_metadata WHERE tag = 'rank') || '|' ||
       (SELECT value FROM rocpd_metadata WHERE tag = 'world_size')")"
fi

# --- 3. ranks: HTA's rank-0/1 pair merges like two RPD files
R0="$K/hta_trace_filter_sampled_rank-0.json.gz"
R1="$K/hta_trace_filter_sampled_rank-1.json.gz"
if need_shared "$R0" && need_shared "$R1"; then
  rpd-import -q "$R0" r0.rpd && rpd-import -q "$R1" r1.rpd
  check "rpd-merge of the two imported ranks (given in reverse order)" rpd-merge -q -o job.rpd r1.rpd r0.rpd
  check_eq "ranks from distributedInfo, rows per rank" \
    "0|$(q r0.rpd "SELECT count(*) FROM rocpd_op") 1|$(q r1.rpd "SELECT count(*) FROM rocpd_op")" \
    "$(q job.rpd "SELECT rank || '|' || op_rows FROM rpd_rank ORDER BY rank" | tr '\n' ' ' | sed 's/ $//')"
  raptor job.rpd --by-rank --table ranks --format csv >ranks.csv 2>ranks.err
  check_eq "raptor --by-rank sees both ranks" "2" "$(grep -c '^[01],' ranks.csv)"
fi

# --- exact nanoseconds, on a small trace written here
cat >tiny.json <<'EOF'
{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "GPU X", "numSms": 4, "totalGlobalMem": 1024}],
 "traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 5, "tid": 6, "ts": 1419247333430.849, "dur": 2.5, "args": {"correlation": 3}},
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 2, "ts": 1419247333440.001, "dur": 0.0015, "args": {"device": 1, "stream": 2, "correlation": 3, "grid": [4, 2, 1], "block": [64, 1, 1]}},
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 2, "ts": 5e-3, "dur": 1E1, "args": {"device": 1, "stream": 2}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 5, "tid": 6, "ts": 1419247333430, "dur": 10, "args": {"External id": 9, "Sequence number": 4, "Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"]}}
 ], "baseTimeNanoseconds": 7}
EOF
check "import a small Kineto trace" rpd-import -q tiny.json tiny.rpd
check_eq "ts/dur decimal text -> exact ns (rounded half up past the ns)" \
  "1419247333430849|1419247333433349 1419247333440001|1419247333440003 5|10005" \
  "$(q tiny.rpd "SELECT start || '|' || end FROM (SELECT start, end FROM rocpd_api WHERE id % 2 = 0
     UNION ALL SELECT start, end FROM rocpd_op) ORDER BY rowid" | tr '\n' ' ' | sed 's/ $//')"
check_eq "the kernel links to its launch (api id 2 x correlation)" "6|1|2|4|2|64" \
  "$(q tiny.rpd "SELECT L.api_id || '|' || O.gpuId || '|' || O.queueId || '|' || K.gridX || '|' || K.gridY || '|' || K.workgroupX
     FROM rocpd_api_ops L JOIN rocpd_op O ON O.id = L.op_id JOIN rocpd_kernelapi K ON K.api_ptr_id = L.api_id")"
check_eq "cpu_op args in the autograd form" "aten::mm, seq = 4, op_id = 9, sizes = [[2, 3], [3, 4]], input_op_ids = []" \
  "$(q tiny.rpd "SELECT args FROM api WHERE apiName = 'UserMarker'")"

# args with characters JSON must escape survive as valid JSON, exactly
cat >esc.json <<'EOF'
{"schemaVersion": 1, "traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"External id": 1, "s": "x\"y\\z\nw0123456789abcdef\u001f", "u": "h\u00e9llo w\u00f6rld 12345678"}}]}
EOF
check "import args that need escapes" rpd-import -q esc.json esc.rpd
check_eq "  kept exactly, as valid JSON" "1|1|1" \
  "$(q esc.rpd "SELECT json_valid(args) || '|' || (json_extract(args, '$.s') = 'x\"y\\z' || char(10) || 'w0123456789abcdef' || char(31))
     || '|' || (json_extract(args, '$.u') = 'h' || char(233) || 'llo w' || char(246) || 'rld 12345678') FROM ext_kineto_event")"

# --- 5. rocprofv3's Perfetto output: a one-line hint, not "not rocprofv3 output"
printf '\n\x05\x08\x01\x10\x02' >run.pftrace
check_rc "a .pftrace is refused" 1 rpd-import run.pftrace p.rpd
check_one_line "  in one line"
if grep -q "output-format rocpd" "$TESTDIR/stderr" && ! grep -q "not rocprofv3" "$TESTDIR/stderr"; then
  ok "  which says what to run instead"
else notok "  which says what to run instead" "$(cat "$TESTDIR/stderr")"; fi

# --- the JSON reader (kjson.c): escapes decoded as yajl 2.1 decodes them
# (pairs joined, a lone high surrogate '?'), strings and numbers cut by the
# 256 KiB chunks of the file reader, long tokens
python3 - <<'EOF' >kjson.json
long = ("x" * 999 + "\\n") * 700            # 700 KB with escapes, over chunk ends
num = "1" * 300000                          # one number over a chunk end
print('{"schemaVersion": 1, "traceEvents": [')
print('{"ph": "X", "cat": "kernel", "name": "k\\u00e9\\ud83d\\ude00\\/z", "pid": 0, "tid": 1, "ts": 1, "dur": 1, "args": {"device": 0, "stream": 1}},')
print('{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 1, "ts": 2, "dur": 1, "args": {"device": 0, "stream": 1}},' % long)
print('{"ph": "X", "cat": "user_annotation", "name": "u", "pid": 1, "tid": 1, "ts": 3, "dur": 1, "args": {"lone": "\\ud800xyz", "nul": "a\\u0000b", "n": %s, "t": true}}' % num)
print(']}')
EOF
check_rc "escapes and long tokens: imported" 0 rpd-import -q kjson.json kjson.rpd
check_eq "a surrogate pair, \\u00e9 and \\/ decoded" "ké😀/z" \
  "$(q kjson.rpd "SELECT string FROM rocpd_string WHERE string LIKE 'k%z'")"
check_eq "700 KB name with an escape every 1000 bytes, over chunk ends" "700000|700" \
  "$(q kjson.rpd "SELECT length(string), length(string) - length(replace(string, char(10), '')) FROM rocpd_string WHERE string LIKE 'xxx%'")"
check_eq "a lone high surrogate is '?', \\u0000 kept, a 300000-digit number whole" \
  '?xyz|a\u0000b|1' \
  "$(q kjson.rpd "SELECT json_extract(args, '\$.lone'), substr(args, instr(args, '\"nul\": \"') + 8, 8), instr(args, '\"n\": ' || printf('%.300000c', '1') || ', ') > 0 FROM ext_kineto_event WHERE name = 'u'")"

# --- 6. bad input: one line, exit 1, nothing left behind
bad() { # NAME FILE WORDS
  rm -rf out && mkdir out
  check_rc "$1: exit 1" 1 rpd-import "$2" out/x.rpd
  check_one_line "$1: one line"
  if grep -q "$3" "$TESTDIR/stderr"; then ok "$1: says '$3'"; else notok "$1: says '$3'" "$(cat "$TESTDIR/stderr")"; fi
  check_eq "$1: nothing left behind" "" "$(ls -A out)"
}
if [ -f "$H100/trace.json.gz" ]; then
  head -c 40000 "$H100/trace.json.gz" >trunc.json.gz
  bad "truncated .gz" trunc.json.gz "truncated"
fi
echo '{"schemaVersion": 1, "deviceProperties": []}' >notrace.json
bad "a Kineto-like JSON with no events" notrace.json "no 'traceEvents'"
sed 's/"ts": 5e-3, //' tiny.json >nots.json
bad "an event with no ts" nots.json "no 'ts'"
sed 's/"ts": 5e-3/"ts": "5"/' tiny.json >strts.json
bad "a ts written as a string" strts.json "'ts' is not a number"
sed 's/"dur": 1E1/"dur": -1/' tiny.json >negdur.json
bad "a negative dur" negdur.json "negative 'dur'"
sed 's/"dur": 1E1/"dur": 1e400/' tiny.json >hugedur.json
bad "a dur out of range" hugedur.json "'dur' is not a number"
sed 's/"dur": 1E1, //' tiny.json >nodur.json
bad "an X event with no dur" nodur.json "no 'dur'"
