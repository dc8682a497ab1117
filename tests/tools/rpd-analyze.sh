#!/bin/sh
# tests/tools/rpd-analyze.sh - rpd-analyze: every number against an
# independent SQL query, one trace that triggers and one that does not
# trigger each rule, v2/v3/imported traces, idempotence.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

# ---------------------------------------------------------------- fixtures
# mk FILE SQL: an empty v3 trace, the strings below, then SQL that fills
# temp table k (one row per op: its launching api call when api_s is not
# null); k becomes rocpd_api, rocpd_op and rocpd_api_ops rows.
mk() {
  rm -f "$1"
  rpd-schema --create "$1" >/dev/null || return 1
  sqlite3 -batch "$1" "
INSERT INTO rocpd_string (id, string) VALUES (100, 'KernelExecution'),
  (101, 'CopyHostToDevice'), (102, 'hipLaunchKernel'), (103, 'hipMemcpy'),
  (104, 'hipDeviceSynchronize'), (105, 'kA'), (106, 'ncclAllReduce_f32'),
  (107, ''), (108, 'hipMemcpyAsync'), (109, 'kB');
INSERT INTO rocpd_ustring (id, string) VALUES (1, '');
CREATE TEMP TABLE k (id INTEGER PRIMARY KEY, gpu, q, api_s, api_e, s, e,
  name_id DEFAULT 105, type_id DEFAULT 100, api_name DEFAULT 102, tid DEFAULT 1);
$2;
INSERT INTO rocpd_api (id, pid, tid, start, \"end\", apiName_id, category_id, domain_id, args_id)
  SELECT id, 1, tid, api_s, api_e, api_name, 107, 107, 1 FROM k WHERE api_s IS NOT NULL;
INSERT INTO rocpd_op (id, gpuId, queueId, sequenceId, start, \"end\", description_id, opType_id)
  SELECT id, gpu, q, id, s, e, name_id, type_id FROM k WHERE s IS NOT NULL;
INSERT INTO rocpd_api_ops (api_id, op_id) SELECT id, id FROM k
  WHERE api_s IS NOT NULL AND s IS NOT NULL;" || return 1
}
# run FILE ARGS...: rpd-analyze, its stdout kept in $TESTDIR/stdout
run() { check_rc "rpd-analyze $(basename "$1") $2 $3 $4 runs" 0 rpd-analyze "$@"; }
nf() { q "$1" "SELECT count(*) FROM ext_analysis_findings WHERE rule = '$2'"; }
# dump FILE: every ext_analysis_ table (but the rules)
dump() { for _t in idle launch queue_depth overlap memcpy findings; do
  q "$1" "SELECT * FROM ext_analysis_$_t"; done; }
f1() { q "$1" "SELECT start_ns, end_ns, count FROM ext_analysis_findings WHERE rule = '$2'"; }

# ---------------------------------------------------------------- idle breakdown
# gaps: 200-210 (launched at 50: kernel-wait 10), 300-500 (launched at 400,
# after the GPU went idle: host-wait 200), 600-700 (launched at 420, longer
# than 50 ns: other 100); busy 100 + 90 + 100 + 100
mk idle.rpd "INSERT INTO k (id, gpu, q, api_s, api_e, s, e) VALUES
  (1, 0, 0, 0, 10, 100, 200), (2, 0, 0, 50, 60, 210, 300),
  (3, 0, 0, 400, 410, 500, 600), (4, 0, 0, 420, 430, 700, 800)"
run idle.rpd --kernel-wait-us 0.05
check_eq "idle: span busy idle host kernel other gaps" "700|390|310|200|10|100|3" \
  "$(q idle.rpd 'SELECT span_ns, busy_ns, idle_ns, host_wait_ns, kernel_wait_ns, other_ns, gaps FROM ext_analysis_idle')"
check_eq "idle: no starvation at the default 1 ms" 0 "$(nf idle.rpd gpu_starvation)"
check_eq "idle: rules table holds the thresholds used" "gpu_starvation|1000.0|us" \
  "$(q idle.rpd "SELECT rule, threshold, unit FROM ext_analysis_rules WHERE rule = 'gpu_starvation'")"
check_rc "idle: second run says already done" 0 rpd-analyze idle.rpd
check_eq "idle: second run left one row per GPU" 1 "$(q idle.rpd 'SELECT count(*) FROM ext_analysis_idle')"
run idle.rpd --force --rule gpu_starvation=0.15
check_eq "starvation: one gap above 150 ns (300-500)" "300|500|1" "$(f1 idle.rpd gpu_starvation)"
check_eq "starvation: --force rebuilt, no duplicates (idle, findings, rules)" "1|1|6" \
  "$(q idle.rpd 'SELECT (SELECT count(*) FROM ext_analysis_idle), (SELECT count(*) FROM ext_analysis_findings), (SELECT count(*) FROM ext_analysis_rules)')"
check_eq "--force: one done tag with the kernel-wait threshold used" "kernel_wait_us=50" \
  "$(q idle.rpd "SELECT group_concat(value) FROM rocpd_metadata WHERE tag = 'ext_analysis::done'")"
# the summary: today's text by default, two tables in the common formats
cp idle.rpd fmt.rpd
run idle.rpd --force --kernel-wait-us 0.05 --rule gpu_starvation=0.15
check_eq "summary text: two lines and the rule that fired" \
"rpd-analyze: 1 GPUs: busy 0.000 ms, idle 0.000 ms = host-wait 0.000 ms (64.5%) + kernel-wait 0.000 ms (3.2%) + other 0.000 ms (32.3%)
rpd-analyze: 1 kernels (0 launch-bound), 8 queue-depth points, 0 memcpy buckets, 1 findings
  gpu_starvation     warning      1  the GPU waits for the host: overlap host work, prefetch, use graphs" \
  "$(cat "$TESTDIR/stdout")"
run fmt.rpd --force --kernel-wait-us 0.05 --rule gpu_starvation=0.15 -f csv
check_eq "summary --format csv: the summary and findings tables" \
"gpus,busy_ns,idle_ns,host_wait_ns,host_wait_pct,kernel_wait_ns,kernel_wait_pct,other_ns,other_pct,kernels,launch_bound,queue_depth_points,memcpy_buckets,findings
1,390,310,200,64.5,10,3.2,100,32.3,1,0,8,0,1
rule,severity,count,advice
gpu_starvation,warning,1,\"the GPU waits for the host: overlap host work, prefetch, use graphs\"" \
  "$(tr -d '\r' <"$TESTDIR/stdout")"
check_eq "summary --format csv: the same tables written" "$(dump idle.rpd | cksum)" "$(dump fmt.rpd | cksum)"
run fmt.rpd --force --kernel-wait-us 0.05 --rule gpu_starvation=0.15 -f json
check_eq "summary --format json: one object, the idle split and the rule" "310|200|10|100|gpu_starvation" \
  "$(python3 -c 'import json,sys; d=json.load(sys.stdin); s=d["summary"][0]; print("%d|%d|%d|%d|%s" % (s["idle_ns"], s["host_wait_ns"], s["kernel_wait_ns"], s["other_ns"], ",".join(f["rule"] for f in d["findings"])))' <"$TESTDIR/stdout")"
run fmt.rpd --force --format md
check_eq "summary --format md: two Markdown tables" "### summary|### findings" \
  "$(grep '^###' "$TESTDIR/stdout" | tr '\n' '|' | sed 's/|$//')"
run fmt.rpd --force -f table
check_eq "summary --format table: two text tables" "# summary|# findings" \
  "$(grep '^# ' "$TESTDIR/stdout" | tr '\n' '|' | sed 's/|$//')"
check_rc "bad --format is a usage error" 2 rpd-analyze fmt.rpd --force -f xml
check_eq "bad --format: names the problem" 1 \
  "$(grep -c "^rpd-analyze: bad --format 'xml': use text, table, csv, json or md" "$TESTDIR/stderr")"
mk nogpu.rpd "SELECT 1"
run nogpu.rpd -f csv
check_eq "summary --format csv without GPU work: idle columns empty" "0,,,,,,,,,0,0,0,0,0" \
  "$(sed -n 2p "$TESTDIR/stdout" | tr -d '\r')"

# ---------------------------------------------------------------- overlap
mk overlap.rpd "INSERT INTO k (id, gpu, q, api_s, api_e, s, e, name_id, type_id) VALUES
  (1, 0, 0, 0, 10, 1000, 2000, 106, 100), (2, 0, 1, 0, 10, 1500, 2500, 105, 100),
  (3, 0, 2, 0, 10, 2400, 3000, 107, 101)"
run overlap.rpd
check_eq "overlap: comm compute overlap exposed copy exposed_copy" "1000|1000|500|500|600|500" \
  "$(q overlap.rpd 'SELECT comm_ns, compute_ns, overlap_ns, exposed_comm_ns, copy_ns, exposed_copy_ns FROM ext_analysis_overlap')"

# ---------------------------------------------------------------- api rules
mk sync.rpd "INSERT INTO k (id, api_s, api_e, api_name, tid) VALUES
  (1, 10, 20, 103, 1), (2, 30, 45, 103, 1), (3, 50, 60, 108, 1);
  WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 9)
  INSERT INTO k (id, api_s, api_e, api_name, tid) SELECT 10 + i, 100 + 10 * i, 105 + 10 * i, 104, 7 FROM n"
run sync.rpd
check_eq "sync_memcpy: hipMemcpy x2 (not the Async one)" "10|45|2" "$(f1 sync.rpd sync_memcpy)"
check_eq "sync_memcpy: value is total call time, value_unit says so" "0.025|us total call time" \
  "$(q sync.rpd "SELECT value, value_unit FROM ext_analysis_findings WHERE rule = 'sync_memcpy'")"
check_eq "device_sync: 10 calls on thread 7" "7|10" \
  "$(q sync.rpd "SELECT tid, count FROM ext_analysis_findings WHERE rule = 'device_sync'")"
mk nosync.rpd "INSERT INTO k (id, api_s, api_e, api_name, tid) VALUES (1, 50, 60, 108, 1);
  WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 8)
  INSERT INTO k (id, api_s, api_e, api_name, tid) SELECT 10 + i, 100 + 10 * i, 105 + 10 * i, 104, 7 FROM n"
run nosync.rpd
check_eq "sync_memcpy: Async only -> no finding" 0 "$(nf nosync.rpd sync_memcpy)"
check_eq "device_sync: 9 calls -> no finding" 0 "$(nf nosync.rpd device_sync)"

# ---------------------------------------------------------------- kernel runs
# storm N GPU_NS API_NS: N back-to-back kernels of GPU_NS each, launched by
# calls of API_NS each
storm() {
  echo "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $1 - 1)
  INSERT INTO k (id, gpu, q, api_s, api_e, s, e) SELECT 1 + i, 0, 0, 1000000 * i,
    1000000 * i + $3, 1000000 * i + 500000, 1000000 * i + 500000 + $2 FROM n"
}
mk storm.rpd "$(storm 100 1000 500)"
run storm.rpd
check_eq "tiny_kernel_storm: 100 kernels of 1 us" "500000|99501000|100" "$(f1 storm.rpd tiny_kernel_storm)"
check_eq "launch_bound: 1 us kernels launched in 0.5 us are not" 0 "$(nf storm.rpd launch_bound)"
mk nostorm.rpd "$(storm 99 1000 500)"
run nostorm.rpd
check_eq "tiny_kernel_storm: 99 kernels -> no finding" 0 "$(nf nostorm.rpd tiny_kernel_storm)"
mk lb.rpd "$(storm 50 20000 30000)"
run lb.rpd
check_eq "launch_bound: 50 kernels of 20 us launched in 30 us" "500000|49520000|50" "$(f1 lb.rpd launch_bound)"
check_eq "launch_bound: value is the mean kernel time in the unit value_unit says" \
  "20.0|us per kernel (mean)" \
  "$(q lb.rpd "SELECT value, value_unit FROM ext_analysis_findings WHERE rule = 'launch_bound'")"
check_eq "launch stats: kA launch_bound, 50 dispatches" "kA|50|1" \
  "$(q lb.rpd 'SELECT kernel, count, launch_bound FROM ext_analysis_launch')"
mk nolb.rpd "$(storm 50 40000 30000)"
run nolb.rpd
check_eq "launch_bound: kernels longer than their launch -> none" 0 "$(nf nolb.rpd launch_bound)"
check_eq "launch stats: not launch_bound" 0 "$(q nolb.rpd 'SELECT launch_bound FROM ext_analysis_launch')"
# busy GPU: 60 kernels of 20 us queued back to back (each launched by a
# 30 us call long before it runs): the GPU never waits for a launch
mk busy.rpd "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 59)
  INSERT INTO k (id, gpu, q, api_s, api_e, s, e) SELECT 1 + i, 0, 0, 40000 * i,
    40000 * i + 30000, 5000000 + 20000 * i, 5000000 + 20000 * (i + 1) FROM n"
run busy.rpd
check_eq "launch_bound: busy GPU (kernels queued back to back) -> none" 0 "$(nf busy.rpd launch_bound)"
# a HIP graph: one hipGraphLaunch call of 500 us replays 60 kernels of 20 us
# with gaps between them; none of them has a launch of its own
mk graph.rpd "INSERT INTO rocpd_string (id, string) VALUES (110, 'hipGraphLaunch');
  WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 59)
  INSERT INTO k (id, gpu, q, api_s, api_e, s, e, api_name) SELECT 1 + i, 0, 0,
    CASE WHEN i = 0 THEN 0 END, CASE WHEN i = 0 THEN 500000 END,
    600000 + 100000 * i, 620000 + 100000 * i, 110 FROM n;
  INSERT INTO rocpd_api_ops (api_id, op_id) SELECT 1, id FROM k WHERE id > 1"
run graph.rpd
check_eq "launch_bound: 60 kernels of one graph launch -> none" 0 "$(nf graph.rpd launch_bound)"
check_eq "launch stats: graph kernels have no api duration, not launch_bound" "60|0||0" \
  "$(q graph.rpd 'SELECT count, coalesce(api_mean_ns, 0), api_median_ns, launch_bound FROM ext_analysis_launch')"
check_eq "launch stats: graph kernels keep their launch delay (graph call -> start)" "60|600000|6500000" \
  "$(q graph.rpd 'SELECT count, min(delay_median_ns, 600000), delay_max_ns FROM ext_analysis_launch')"

# low utilization: 10 ms windows from the first op: busy 10, 1, 10 ms
mk low.rpd "INSERT INTO k (id, gpu, q, api_s, api_e, s, e) VALUES
  (1, 0, 0, 0, 10, 0, 10000000), (2, 0, 0, 0, 10, 10000000, 11000000),
  (3, 0, 0, 0, 10, 20000000, 30000000), (4, 0, 0, 0, 10, 30000000, 30000100)"
run low.rpd
check_eq "low_utilization: the window 10-20 ms at 10%" "10000000|20000000|1|10.0" \
  "$(q low.rpd "SELECT start_ns, end_ns, count, value FROM ext_analysis_findings WHERE rule = 'low_utilization'")"
run low.rpd --force --rule low_utilization=5
check_eq "low_utilization: threshold 5% -> no finding" 0 "$(nf low.rpd low_utilization)"

# ---------------------------------------------------------------- exact launch statistics and queue depth
# kA: 7 dispatches on queue 0 (api 5..11 ns, delay 100..390, GPU 10..1000):
# nearest-rank median = rank 4, p95 = rank 7; outliers = GPU > 3 x 40.
# kB: 3 dispatches on queue 1, one without an api call (no api or delay
# value); at 400 one op ends as another is launched (one row, depth kept).
mk stats.rpd "INSERT INTO k (id, gpu, q, api_s, api_e, s, e, name_id) VALUES
  (1, 0, 0, 0, 5, 100, 110, 105), (2, 0, 0, 10, 16, 110, 130, 105),
  (3, 0, 0, 20, 27, 130, 160, 105), (4, 0, 0, 30, 38, 160, 200, 105),
  (5, 0, 0, 40, 49, 200, 250, 105), (6, 0, 0, 50, 60, 250, 450, 105),
  (7, 0, 0, 60, 71, 450, 1450, 105), (8, 0, 1, NULL, NULL, 300, 400, 109),
  (9, 0, 1, 100, 150, 400, 420, 109), (10, 0, 1, 400, 410, 420, 430, 109)"
run stats.rpd
check_eq "launch stats: every column of both kernels, by GPU time" \
"kA|7|8.0|8|11|11|170.0|130|390|390|192.857142857143|40|1000|1000|2|0
kB|3|30.0|10|50|50|160.0|20|300|300|43.3333333333333|20|100|100|1|0" \
  "$(q stats.rpd 'SELECT * FROM ext_analysis_launch')"
check_eq "queue depth: every row of both queues" \
"0|0|0|1 0|0|10|2 0|0|20|3 0|0|30|4 0|0|40|5 0|0|50|6 0|0|60|7 0|0|110|6 0|0|130|5 0|0|160|4 0|0|200|3 0|0|250|2 0|0|450|1 0|0|1450|0 0|1|100|1 0|1|300|2 0|1|400|2 0|1|420|1 0|1|430|0" \
  "$(q stats.rpd 'SELECT * FROM ext_analysis_queue_depth' | tr '\n' ' ' | sed 's/ $//')"

# queues the depth's records sort as unsigned words (the queue's sign
# flipped): negative, 0 and 2^40 queues on two GPUs (gpu 1 first in the
# ops), in (gpu, queue, time) order
mk queues.rpd "INSERT INTO k (id, gpu, q, api_s, api_e, s, e) VALUES
  (1, 1, 1099511627776, 5, 6, 10, 20), (2, 1, -3, 1, 2, 30, 40), (3, 0, 2, 7, 8, 9, 11),
  (4, 0, -9223372036854775807, 0, 1, 50, 60), (5, 0, 0, 3, 4, 12, 13), (6, 1, -4, 2, 3, 40, 41)"
run queues.rpd
check_eq "queue depth: negative and large queues in order" \
"0|-9223372036854775807|0|1 0|-9223372036854775807|60|0 0|0|3|1 0|0|13|0 0|2|7|1 0|2|11|0 1|-4|2|1 1|-4|41|0 1|-3|1|1 1|-3|40|0 1|1099511627776|5|1 1|1099511627776|20|0" \
  "$(q queues.rpd 'SELECT * FROM ext_analysis_queue_depth' | tr '\n' ' ' | sed 's/ $//')"

# every queue-depth row against a window query: a buffer's depth changes
# are split by queue and kind, each part sorted only when it is out of
# time order, each queue's two parts merged; more than 64 parts take the
# radix sort of the whole buffer: queues of ops from several queues (out
# of order), 40 queues (80 parts), and both with sorts spilled to runs
# of 2-1000 records
all_queue() {
  q "$1" "WITH l AS (SELECT X.op_id, min(A.start) AS l FROM rocpd_api_ops X
      JOIN rocpd_api A ON A.id = X.api_id GROUP BY X.op_id),
    ch AS (SELECT O.gpuId AS g, O.queueId AS qu, min(coalesce(l.l, O.start), O.start) AS t, 1 AS d
      FROM rocpd_op O LEFT JOIN l ON l.op_id = O.id
      UNION ALL SELECT gpuId, queueId, \"end\", -1 FROM rocpd_op),
    s AS (SELECT g, qu, t, sum(d) AS d FROM ch GROUP BY g, qu, t)
    SELECT g, qu, t, sum(d) OVER (PARTITION BY g, qu ORDER BY t) FROM s ORDER BY g, qu, t"
}
rpd-synth --seed 13 --api 20000 --gpus 2 -o qparts.rpd >/dev/null
# the queues as rpd-synth makes them: each queue's launches and ends in
# time order (kept as streams of times, chunks of one time at 48 bytes);
# 3 queues: some queue's ends out of order, and 40: more streams than
# kept (both: every change to the sort, the streams' so far read back)
for nq in synth 3 40; do
  cp qparts.rpd "q$nq.rpd"
  [ "$nq" = synth ] || q "q$nq.rpd" "UPDATE rocpd_op SET queueId = id % $nq"
  all_queue "q$nq.rpd" >"q$nq.want"
  for bytes in "" 48 24000; do
    cp "q$nq.rpd" qx.rpd
    check_rc "$nq queues${bytes:+, sort buffer $bytes bytes}: runs" 0 env ${bytes:+RPD_ANALYZE_SORT_BYTES=$bytes} rpd-analyze qx.rpd -q
    q qx.rpd "SELECT * FROM ext_analysis_queue_depth ORDER BY rowid" >qx.got
    same_file "$nq queues${bytes:+, sort buffer $bytes bytes}: every queue-depth row" "q$nq.want" qx.got
  done
done
check_eq "queue parts: every queue's launches and ends in time order (synth)" 0 \
  "$(q qsynth.rpd "SELECT count(*) FROM (SELECT \"end\" < lag(\"end\") OVER (PARTITION BY gpuId, queueId ORDER BY id) AS d FROM rocpd_op) WHERE d")"
check_eq "queue parts: some queue's ends out of time order (3 queues)" 1 \
  "$(q q3.rpd "SELECT count(*) > 0 FROM (SELECT \"end\" < lag(\"end\") OVER (PARTITION BY gpuId, queueId ORDER BY id) AS d FROM rocpd_op) WHERE d")"

# ---------------------------------------------------------------- independent SQL on real-shaped traces
# gaps between the union of GPU work (kernel + copy classes of opClass),
# classified by the earliest launch of the op that ends the gap
indep_idle() {
  q "$1" "WITH l AS (SELECT X.op_id, min(A.start) AS l FROM rocpd_api_ops X
      JOIN rocpd_api A ON A.id = X.api_id GROUP BY X.op_id),
    o AS (SELECT O.gpuId AS g, O.start AS s, O.\"end\" AS e, l.l FROM rocpd_op O
      JOIN rocpd_string T ON T.id = O.opType_id LEFT JOIN l ON l.op_id = O.id
      WHERE T.string IN ('KernelExecution', 'Task', 'NativeKernel', 'KERNEL_DISPATCH',
        'DispatchKernel', 'FillBuffer', 'FillImage') OR T.string GLOB 'Copy*'
        OR T.string GLOB 'Memcpy*' OR T.string GLOB 'Memset*' OR T.string GLOB 'MEMORY_COPY*'
        OR T.string GLOB 'MemoryCopy*' OR T.string GLOB 'MEMORY_SET*'),
    w AS (SELECT g, s, l, max(e) OVER (PARTITION BY g ORDER BY s, e
      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS pe FROM o),
    sp AS (SELECT g, max(e) - min(s) AS span FROM o GROUP BY g)
    SELECT sp.g, span, span - total(CASE WHEN s > pe THEN s - pe END),
      total(CASE WHEN s > pe THEN s - pe END),
      total(CASE WHEN s > pe AND l > pe THEN s - pe END),
      total(CASE WHEN s > pe AND l <= pe AND s - pe <= 50000 THEN s - pe END),
      count(CASE WHEN s > pe THEN 1 END)
    FROM sp JOIN w ON w.g = sp.g GROUP BY sp.g ORDER BY sp.g" | sed 's/\.0|/|/g; s/\.0$//'
}
ours_idle() {
  q "$1" "SELECT gpuId, span_ns, busy_ns, idle_ns, host_wait_ns, kernel_wait_ns, gaps
    FROM ext_analysis_idle ORDER BY gpuId"
}
# the dispatch at the nearest-rank median of the top kernel, by LIMIT/OFFSET
indep_launch() {
  q "$1" "WITH t AS (SELECT kernel FROM ext_analysis_launch LIMIT 1),
    d AS (SELECT O.\"end\" - O.start AS gpu FROM rocpd_op O JOIN rocpd_string S
      ON S.id = O.description_id JOIN rocpd_string T ON T.id = O.opType_id
      WHERE S.string = (SELECT kernel FROM t) AND T.string IN ('KernelExecution',
        'KERNEL_DISPATCH', 'Task', 'NativeKernel', 'DispatchKernel'))
    SELECT (SELECT count(*) FROM d), (SELECT max(gpu) FROM d),
      (SELECT gpu FROM d ORDER BY gpu LIMIT 1 OFFSET ((SELECT count(*) FROM d) + 1) / 2 - 1),
      (SELECT gpu FROM d ORDER BY gpu LIMIT 1 OFFSET (95 * (SELECT count(*) FROM d) + 99) / 100 - 1),
      (SELECT sum(gpu) FROM d)"
}
ours_launch() {
  q "$1" "SELECT count, gpu_max_ns, gpu_median_ns, gpu_p95_ns, CAST(round(gpu_mean_ns * count) AS INTEGER)
    FROM ext_analysis_launch LIMIT 1"
}
# queue depth at every 97th change point: ops launched (or started) at or
# before it and not finished
indep_queue() {
  q "$1" "WITH l AS (SELECT X.op_id, min(A.start) AS l FROM rocpd_api_ops X
      JOIN rocpd_api A ON A.id = X.api_id GROUP BY X.op_id),
    p AS (SELECT * FROM ext_analysis_queue_depth WHERE rowid % 97 = 1)
    SELECT p.gpuId, p.queueId, p.time_ns, (SELECT count(*) FROM rocpd_op O
      LEFT JOIN l ON l.op_id = O.id WHERE O.gpuId = p.gpuId AND O.queueId = p.queueId
      AND min(coalesce(l.l, O.start), O.start) <= p.time_ns AND O.\"end\" > p.time_ns)
    FROM p ORDER BY 1, 2, 3"
}
ours_queue() {
  q "$1" "SELECT gpuId, queueId, time_ns, depth FROM ext_analysis_queue_depth
    WHERE rowid % 97 = 1 ORDER BY 1, 2, 3"
}
indep_memcpy() {
  q "$1" "SELECT count(*), sum(C.size), sum(O.\"end\" - O.start) FROM rocpd_copyapi C
    JOIN rocpd_api_ops X ON X.api_id = C.api_ptr_id JOIN rocpd_op O ON O.id = X.op_id"
}
ours_memcpy() { q "$1" "SELECT coalesce(sum(count), 0), sum(bytes), sum(gpu_ns) FROM ext_analysis_memcpy"; }

# union length of a class of ops: each op adds what extends past the
# largest end before it (in start order)
union_sql() {   # CONDITION
  echo "SELECT O.gpuId AS g, O.start AS s, O.\"end\" AS e, max(O.\"end\") OVER (PARTITION BY O.gpuId
      ORDER BY O.start, O.\"end\" ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS pe
    FROM rocpd_op O JOIN rocpd_string T ON T.id = O.opType_id
    LEFT JOIN rocpd_string D ON D.id = O.description_id WHERE $1"
}
indep_overlap() {
  _k="T.string IN ('KernelExecution', 'Task', 'NativeKernel', 'KERNEL_DISPATCH', 'DispatchKernel')"
  _c="(lower(D.string) LIKE '%nccl%' OR lower(D.string) LIKE '%rccl%' OR lower(D.string) LIKE '%allreduce%'
    OR lower(D.string) LIKE '%all\_reduce%' ESCAPE '\\' OR lower(D.string) LIKE '%allgather%'
    OR lower(D.string) LIKE '%all\_gather%' ESCAPE '\\' OR lower(D.string) LIKE '%reducescatter%'
    OR lower(D.string) LIKE '%reduce\_scatter%' ESCAPE '\\' OR lower(D.string) LIKE '%alltoall%'
    OR D.string LIKE '%cross\_device\_reduce%' ESCAPE '\\')"
  q "$1" "WITH c AS ($(union_sql "$_k AND $_c")), p AS ($(union_sql "$_k AND NOT coalesce($_c, 0)")),
      k AS ($(union_sql "$_k")),
      u AS (SELECT 'c' AS w, g, total(max(0, e - max(s, coalesce(pe, s)))) AS n FROM c GROUP BY g
        UNION ALL SELECT 'p', g, total(max(0, e - max(s, coalesce(pe, s)))) FROM p GROUP BY g
        UNION ALL SELECT 'k', g, total(max(0, e - max(s, coalesce(pe, s)))) FROM k GROUP BY g)
    SELECT g, CAST(total(CASE w WHEN 'c' THEN n END) AS INTEGER),
      CAST(total(CASE w WHEN 'p' THEN n END) AS INTEGER),
      CAST(total(CASE w WHEN 'c' THEN n WHEN 'p' THEN n ELSE -n END) AS INTEGER)
    FROM u GROUP BY g ORDER BY g"
}
ours_overlap() {
  q "$1" "SELECT gpuId, comm_ns, compute_ns, overlap_ns FROM ext_analysis_overlap
    WHERE comm_ns + compute_ns > 0 ORDER BY gpuId"
}

check_all() {   # NAME FILE
  check_eq "$1: comm/compute/overlap per GPU = independent union query" \
    "$(indep_overlap "$2")" "$(ours_overlap "$2")"
  check_eq "$1: idle per GPU = independent gaps query" "$(indep_idle "$2")" "$(ours_idle "$2")"
  check_eq "$1: idle = host + kernel + other" 0 \
    "$(q "$2" 'SELECT count(*) FROM ext_analysis_idle WHERE idle_ns != host_wait_ns + kernel_wait_ns + other_ns OR busy_ns + idle_ns != span_ns')"
  check_eq "$1: top kernel count/max/median/p95/sum = independent query" \
    "$(indep_launch "$2")" "$(ours_launch "$2")"
  _qn=$(q "$2" 'SELECT count(*) FROM ext_analysis_queue_depth')
  if [ "$_qn" -gt 0 ]; then
    check_eq "$1: queue depth samples = independent count" "$(indep_queue "$2")" "$(ours_queue "$2")"
  fi
  check_eq "$1: every queue ends empty" 0 \
    "$(q "$2" 'SELECT count(*) FROM (SELECT gpuId, queueId, max(time_ns), depth FROM ext_analysis_queue_depth GROUP BY gpuId, queueId) WHERE depth != 0')"
  check_eq "$1: memcpy buckets sum to the copies" "$(indep_memcpy "$2")" "$(ours_memcpy "$2")"
}

rpd-synth --seed 3 --api 4000 --gpus 2 -o v3.rpd >/dev/null
run v3.rpd
check_all synth-v3 v3.rpd
rpd-synth --seed 3 --api 4000 --gpus 2 --schema 2 -o v2.rpd >/dev/null
run v2.rpd
check_all synth-v2 v2.rpd

# the memcpy buckets: summed in C from one read of the copies (no sort of
# them) while sizes and durations are integers, else by the SQL's GROUP BY;
# sizes at every bucket's edges, then a size stored as a real
indep_buckets() {
  q "$1" "SELECT CASE WHEN C.size < 4096 THEN '<4KB' WHEN C.size < 65536 THEN '4KB-64KB'
      WHEN C.size < 1048576 THEN '64KB-1MB' WHEN C.size < 16777216 THEN '1MB-16MB' ELSE '>=16MB' END AS b,
      count(*), sum(C.size) FROM rocpd_copyapi C JOIN rocpd_api_ops X ON X.api_id = C.api_ptr_id
      JOIN rocpd_op O ON O.id = X.op_id GROUP BY b ORDER BY b"
}
ours_buckets() { q "$1" "SELECT size_bucket, sum(count), sum(bytes) FROM ext_analysis_memcpy GROUP BY 1 ORDER BY 1"; }
cp v3.rpd mb.rpd
sqlite3 mb.rpd "UPDATE rocpd_copyapi SET size = CASE rowid % 10 WHEN 0 THEN 4095 WHEN 1 THEN 4096
  WHEN 2 THEN 65535 WHEN 3 THEN 65536 WHEN 4 THEN 1048575 WHEN 5 THEN 1048576 WHEN 6 THEN 16777215
  WHEN 7 THEN 16777216 WHEN 8 THEN 0 ELSE 9000000000 END"
run mb.rpd --force
check_eq "memcpy buckets at every edge (summed in C) = independent query" \
  "$(indep_buckets mb.rpd)" "$(ours_buckets mb.rpd)"
check_eq "memcpy: the five size buckets all present" 5 "$(q mb.rpd 'SELECT count(DISTINCT size_bucket) FROM ext_analysis_memcpy')"
cp v3.rpd mr.rpd
sqlite3 mr.rpd "UPDATE rocpd_copyapi SET size = 5000.5 WHERE rowid = (SELECT max(rowid) FROM rocpd_copyapi)"
run mr.rpd --force
check_eq "memcpy with a real size (the SQL's GROUP BY) = independent query" \
  "$(indep_buckets mr.rpd)" "$(ours_buckets mr.rpd)"
check_eq "fixture: the real size is in the table" real \
  "$(q mr.rpd 'SELECT typeof(size) FROM rocpd_copyapi ORDER BY rowid DESC LIMIT 1')"
# an op linked to two calls (not one after the other in rocpd_api_ops):
# its launch is the call that started first, wherever its link is; op 2's
# later second call (start 90) does not move its launch (70)
mk links.rpd "INSERT INTO k (id, gpu, q, api_s, api_e, s, e) VALUES
  (1, 0, 0, 50, 60, 100, 200), (2, 0, 0, 70, 80, 200, 300)"
q links.rpd "INSERT INTO rocpd_api (id, pid, tid, start, \"end\", apiName_id, category_id,
  domain_id, args_id) VALUES (3, 1, 1, 20, 25, 102, 107, 107, 1), (4, 1, 1, 90, 99, 102, 107, 107, 1);
  INSERT INTO rocpd_api_ops (api_id, op_id) VALUES (3, 1), (4, 2)"
run links.rpd
check_eq "launch: the earliest linked call of each op (api 5 and 10 ns, delay 80 and 130)" \
  "kA|2|7.5|5|10|10|105.0|80|130|130|100.0|100|100|100|0|0" \
  "$(q links.rpd 'SELECT * FROM ext_analysis_launch')"
check_eq "launch: queue depth from the earliest calls" "0|0|20|1 0|0|70|2 0|0|200|1 0|0|300|0" \
  "$(q links.rpd 'SELECT * FROM ext_analysis_queue_depth' | tr '\n' ' ' | sed 's/ $//')"

# the same links in op order (as tracers write them: merged with the ops,
# no GROUP BY): the same launches
cp links.rpd links2.rpd
q links2.rpd "CREATE TEMP TABLE l AS SELECT api_id, op_id FROM rocpd_api_ops ORDER BY op_id, api_id DESC;
  DELETE FROM rocpd_api_ops; INSERT INTO rocpd_api_ops (api_id, op_id) SELECT api_id, op_id FROM l"
run links2.rpd --force
check_eq "launch, links in op order: the earliest linked call of each op" \
  "$(q links.rpd 'SELECT * FROM ext_analysis_launch')" "$(q links2.rpd 'SELECT * FROM ext_analysis_launch')"
check_eq "launch, links in op order: the same queue depth" \
  "$(q links.rpd 'SELECT * FROM ext_analysis_queue_depth')" "$(q links2.rpd 'SELECT * FROM ext_analysis_queue_depth')"

# links in op order for the first 4096 and out of it later (the merge is
# tried, finds the disorder and the scan is made again through the GROUP
# BY): in the middle, and the last two links (read after the last op):
# every table the same as with the links in op order
rpd-synth --seed 7 --api 30000 --gpus 2 -o lo.rpd >/dev/null
check_eq "late disorder: over 4096 links, in op order" "1|0" \
  "$(q lo.rpd "SELECT count(*) > 6002, (SELECT count(*) FROM (SELECT op_id < lag(op_id) OVER (ORDER BY rowid) AS d FROM rocpd_api_ops) WHERE d) FROM rocpd_api_ops")"
for at in "6000, 6001" "(SELECT max(rowid) - 1 FROM rocpd_api_ops), (SELECT max(rowid) FROM rocpd_api_ops)"; do
  cp lo.rpd lx.rpd
  sqlite3 lx.rpd "CREATE TEMP TABLE p AS SELECT rowid AS r, api_id, op_id FROM rocpd_api_ops
      WHERE rowid IN ($at) AND op_id IS NOT NULL;
    UPDATE rocpd_api_ops SET api_id = (SELECT api_id FROM p WHERE r <> rocpd_api_ops.rowid),
      op_id = (SELECT op_id FROM p WHERE r <> rocpd_api_ops.rowid) WHERE rowid IN (SELECT r FROM p)"
  check_eq "late disorder ($at): the op ids go down once" 1 \
    "$(q lx.rpd "SELECT count(*) FROM (SELECT op_id < lag(op_id) OVER (ORDER BY rowid) AS d FROM rocpd_api_ops) WHERE d")"
  run lx.rpd
  [ -s lo.dump ] || { run lo.rpd; dump lo.rpd >lo.dump; }
  check_eq "late disorder ($at): every table as with the links in order" "$(cksum <lo.dump)" "$(dump lx.rpd | cksum)"
done

# the links' calls come from the one scan of rocpd_api, the last 65536
# calls read kept for them: links whose calls are far behind the scan (a
# lookup by id), links to calls that are not there, links whose api_id is
# not an INTEGER (the join's rule) and a rocpd_api whose id is not the
# rowid (read in its index's order) give every table of the GROUP BY that
# links out of op order take
rpd-synth --seed 11 --api 150000 --gpus 2 -o far0.rpd >/dev/null
q far0.rpd "UPDATE rocpd_api_ops SET api_id = api_id - 70000 WHERE id % 500 = 7 AND api_id > 70000;
  DELETE FROM rocpd_api WHERE id IN (SELECT api_id + 1 FROM rocpd_api_ops WHERE id % 400 = 3);
  UPDATE rocpd_api_ops SET api_id = api_id + 1 WHERE id % 400 = 3"
check_eq "far calls: links in op order, some 65536+ calls behind the one before, some to no call" \
  "0|1|1" "$(q far0.rpd "SELECT (SELECT count(*) FROM (SELECT op_id < lag(op_id) OVER (ORDER BY rowid)
    AS d FROM rocpd_api_ops) WHERE d), (SELECT count(*) > 50 FROM (SELECT api_id < lag(api_id)
    OVER (ORDER BY rowid) - 65536 AS d FROM rocpd_api_ops) WHERE d), (SELECT count(*) > 100
    FROM rocpd_api_ops WHERE api_id NOT IN (SELECT id FROM rocpd_api))")"
cp far0.rpd farg.rpd
q farg.rpd "CREATE TEMP TABLE l AS SELECT api_id, op_id FROM rocpd_api_ops ORDER BY op_id DESC;
  DELETE FROM rocpd_api_ops; INSERT INTO rocpd_api_ops (api_id, op_id) SELECT api_id, op_id FROM l"
cp far0.rpd fart.rpd
q fart.rpd "PRAGMA legacy_alter_table = ON;
  CREATE TABLE l2 (id INTEGER PRIMARY KEY, api_id TEXT, op_id bigint);
  INSERT INTO l2 SELECT id, api_id, op_id FROM rocpd_api_ops; DROP TABLE rocpd_api_ops;
  ALTER TABLE l2 RENAME TO rocpd_api_ops"
cp far0.rpd fara.rpd
q fara.rpd "PRAGMA legacy_alter_table = ON; CREATE TABLE a2 (id bigint PRIMARY KEY, pid, tid, start,
  \"end\", apiName_id, category_id, domain_id, args_id);
  INSERT INTO a2 SELECT * FROM rocpd_api ORDER BY (id * 7919) % 1000; DROP TABLE rocpd_api;
  ALTER TABLE a2 RENAME TO rocpd_api"
for f in far0 farg fart fara; do run $f.rpd; done
dump farg.rpd >farg.dump
check_eq "far calls: the queue depth has rows" 1 "$(q farg.rpd 'SELECT count(*) > 50000 FROM ext_analysis_queue_depth')"
check_eq "far calls (links in op order): every table as the GROUP BY's" "$(cksum <farg.dump)" "$(dump far0.rpd | cksum)"
check_eq "far calls, api_id stored as text: the same" "$(cksum <farg.dump)" "$(dump fart.rpd | cksum)"
check_eq "far calls, rocpd_api's rows out of id order: the same" "$(cksum <farg.dump)" "$(dump fara.rpd | cksum)"

# links in op order and in call order for the first 4096, then one link
# to a kernel launch thousands of links back: that call is shared (linked to two ops), which
# the neighbouring links cannot show: the merge finds the call ids going
# down and starts again through the GROUP BY; the same tables as with the
# links out of op order (the GROUP BY from the start)
cp lo.rpd la.rpd
q la.rpd "UPDATE rocpd_api_ops SET api_id = (SELECT X.api_id FROM rocpd_api_ops X
  JOIN rocpd_api A ON A.id = X.api_id JOIN rocpd_string N ON N.id = A.apiName_id
  JOIN rocpd_op O ON O.id = X.op_id JOIN rocpd_string T ON T.id = O.opType_id
  WHERE X.rowid BETWEEN 10 AND 500 AND N.string NOT GLOB '*Graph*'
  AND T.string = 'KernelExecution' ORDER BY X.rowid LIMIT 1) WHERE rowid = 6001"
check_eq "late call disorder: call ids go down once, a kernel's launch now shared" "1|1" \
  "$(q la.rpd "SELECT (SELECT count(*) FROM (SELECT api_id < lag(api_id) OVER (ORDER BY rowid) AS d
    FROM rocpd_api_ops) WHERE d), (SELECT count(*) FROM (SELECT api_id FROM rocpd_api_ops
    GROUP BY api_id HAVING count(*) > 1 AND api_id = (SELECT api_id FROM rocpd_api_ops WHERE rowid = 6001)))")"
cp la.rpd lg.rpd
q lg.rpd "CREATE TEMP TABLE l AS SELECT api_id, op_id FROM rocpd_api_ops ORDER BY op_id DESC;
  DELETE FROM rocpd_api_ops; INSERT INTO rocpd_api_ops (api_id, op_id) SELECT api_id, op_id FROM l"
run la.rpd --force
run lg.rpd --force
check_eq "late call disorder: every table as the GROUP BY's" "$(dump lg.rpd | cksum)" "$(dump la.rpd | cksum)"
check "late call disorder: the tables changed" test "$(dump la.rpd | cksum)" != "$(cksum <lo.dump)"

# the ops are read as integers (rpd_intscan) when the links are read along;
# an op with a value that is not an INTEGER is read again by its rowid, as
# the columns give it: in a rocpd_op without types or NOT NULL, NULL queues
# and kernel names, text queues, real op types of copies (no class; an
# integral one would be a copy's): every table as the GROUP BY's, whose
# scan reads the columns
cp v3.rpd ox.rpd
q ox.rpd "DROP TABLE ext_analysis_idle; DELETE FROM rocpd_metadata WHERE tag LIKE 'ext_analysis%';
  PRAGMA legacy_alter_table = ON;
  CREATE TABLE o2 (id INTEGER PRIMARY KEY, gpuId, queueId, sequenceId, start, \"end\",
    description_id, opType_id);
  INSERT INTO o2 SELECT id, gpuId, queueId, sequenceId, start, \"end\", description_id, opType_id
    FROM rocpd_op;
  DROP TABLE rocpd_op; ALTER TABLE o2 RENAME TO rocpd_op;
  UPDATE rocpd_op SET queueId = NULL WHERE id % 7 = 0;
  UPDATE rocpd_op SET queueId = 'q' || queueId WHERE id % 7 = 1;
  UPDATE rocpd_op SET description_id = NULL WHERE id % 11 = 0;
  UPDATE rocpd_op SET opType_id = opType_id + 0.5 WHERE id IN (SELECT O.id FROM rocpd_op O
    JOIN rocpd_string S ON S.id = O.opType_id WHERE S.string GLOB 'Copy*' LIMIT 20)"
check_eq "ops not all INTEGERs: NULL and text queues, NULL names, real copy types" "3|2|1|20" \
  "$(q ox.rpd "SELECT count(DISTINCT typeof(queueId)), count(DISTINCT typeof(description_id)),
    count(DISTINCT typeof(gpuId)), (SELECT count(*) FROM rocpd_op WHERE typeof(opType_id) = 'real')
    FROM rocpd_op")"
cp ox.rpd oy.rpd
q oy.rpd "CREATE TEMP TABLE l AS SELECT api_id, op_id FROM rocpd_api_ops ORDER BY op_id DESC;
  DELETE FROM rocpd_api_ops; INSERT INTO rocpd_api_ops (api_id, op_id) SELECT api_id, op_id FROM l"
run ox.rpd --force
run oy.rpd --force
check_eq "ops not all INTEGERs: every table as the GROUP BY's" "$(dump oy.rpd | cksum)" "$(dump ox.rpd | cksum)"
check "ops not all INTEGERs: the tables changed" test "$(dump ox.rpd | cksum)" != "$(dump v3.rpd | cksum)"

# launch delays of both signs and of 1 to 5 bytes (the kernels' values
# are radix-sorted on their bytes, the sign bit flipped): -50 -5 3 10 1e12
mk delays.rpd "INSERT INTO k (id, gpu, q, api_s, api_e, s, e) VALUES
  (1, 0, 0, 1050, 1060, 1000, 1100), (2, 0, 0, 1990, 1995, 2000, 2100),
  (3, 0, 0, 3005, 3010, 3000, 3100), (4, 0, 0, 4000, 4010, 1000000004000, 1000000004100),
  (5, 0, 0, 4997, 4999, 5000, 5100)"
run delays.rpd
check_eq "launch delays of both signs: median 3, p95 and max 1e12, mean" \
  "5|3|1000000000000|1000000000000|199999999991.6" \
  "$(q delays.rpd 'SELECT count, delay_median_ns, delay_p95_ns, delay_max_ns, delay_mean_ns FROM ext_analysis_launch')"

# values of 2^43 ns or more either way do not fit the one-word records
# the kernels' values are sorted as: they go to a sort of wider records,
# merged back in order -- a GPU time of 2^44 + 5 and a delay of -2^44
# among small ones: GPU 10 30 40 2^44+5 (median 30, p95 and max 2^44+5,
# one outlier), delays -2^44 5 7 9 (median 5, p95 and max 9)
mk wide.rpd "INSERT INTO k (id, gpu, q, api_s, api_e, s, e) VALUES
  (1, 0, 0, 95, 96, 100, 110), (2, 0, 0, 193, 195, 200, 17592186044621),
  (3, 0, 0, 17592186044716, 17592186044719, 300, 330), (4, 0, 0, 391, 395, 400, 440)"
run wide.rpd
check_eq "values past one word: GPU and delay ranks, means and outliers exact" \
  "4|2.5|2|4|4|-4398046511098.75|5|9|9|4398046511125.25|30|17592186044421|17592186044421|1" \
  "$(q wide.rpd 'SELECT count, api_mean_ns, api_median_ns, api_p95_ns, api_max_ns,
    delay_mean_ns, delay_median_ns, delay_p95_ns, delay_max_ns,
    gpu_mean_ns, gpu_median_ns, gpu_p95_ns, gpu_max_ns, outliers FROM ext_analysis_launch')"
cp wide.rpd widespill.rpd
check_rc "values past one word, sorts spilled: runs" 0 env RPD_ANALYZE_SORT_BYTES=16 \
  rpd-analyze widespill.rpd --force
check_eq "values past one word, sorts spilled: the same tables" "$(dump wide.rpd | cksum)" \
  "$(dump widespill.rpd | cksum)"

# a call linked to two ops is no op's own launch (no api duration): found
# from runs of the links when their call ids never go down, else by a
# GROUP BY -- here call 3 launches ops 1 and 3 around call 2's op 2 (ids
# 3, 2, 3: the links in op order, not in call order)
mk shared.rpd "INSERT INTO k (id, gpu, q, api_s, api_e, s, e) VALUES
  (1, 0, 0, 0, 10, 100, 200), (2, 0, 0, 20, 25, 300, 400), (3, 0, 0, 30, 60, 500, 600)"
q shared.rpd "DELETE FROM rocpd_api_ops; INSERT INTO rocpd_api_ops (api_id, op_id) VALUES (3, 1), (2, 2), (3, 3)"
run shared.rpd
check_eq "shared call out of call order: only op 2 has an api duration (5 ns)" "3|5.0|5|5" \
  "$(q shared.rpd 'SELECT count, api_mean_ns, api_median_ns, api_max_ns FROM ext_analysis_launch')"
q shared.rpd "DELETE FROM rocpd_api_ops; INSERT INTO rocpd_api_ops (api_id, op_id) VALUES (2, 2), (3, 1), (3, 3)"
run shared.rpd --force
check_eq "shared call in call order (one run of two links): the same" "3|5.0|5|5" \
  "$(q shared.rpd 'SELECT count, api_mean_ns, api_median_ns, api_max_ns FROM ext_analysis_launch')"

# two ops with the same start and end end the gap 200-500: the one with
# the lower id decides its cause (launched at 100, before the gap:
# kernel-wait; at 450, after it began: host-wait), both id orders
mk tie.rpd "INSERT INTO k (id, gpu, q, api_s, api_e, s, e) VALUES (1, 0, 0, 0, 10, 100, 200),
  (2, 0, 0, 100, 110, 500, 600), (3, 0, 0, 450, 460, 500, 600)"
run tie.rpd
check_eq "tie of start and end: the lower id (launched before the gap) -> kernel-wait" "300|0" \
  "$(q tie.rpd 'SELECT kernel_wait_ns, host_wait_ns FROM ext_analysis_idle')"
mk tie.rpd "INSERT INTO k (id, gpu, q, api_s, api_e, s, e) VALUES (1, 0, 0, 0, 10, 100, 200),
  (2, 0, 0, 450, 460, 500, 600), (3, 0, 0, 100, 110, 500, 600)"
run tie.rpd
check_eq "tie of start and end: the lower id (launched after the gap began) -> host-wait" "0|300" \
  "$(q tie.rpd 'SELECT kernel_wait_ns, host_wait_ns FROM ext_analysis_idle')"

# the bounded sorts of the sweep, the launch statistics and the queue depth
# spill sorted runs to a scratch file past their buffer: a 64-byte buffer
# (thousands of runs) gives the same tables
cp v3.rpd spill.rpd
check_rc "runs with sorts spilled to runs of 2 records" 0 env RPD_ANALYZE_SORT_BYTES=64 \
  rpd-analyze spill.rpd --force
check_eq "spilled sorts: every table the same as in memory" "$(dump v3.rpd | cksum)" \
  "$(dump spill.rpd | cksum)"
check_eq "spilled sorts: the trace has launch and queue rows to sort" 1 \
  "$(q spill.rpd 'SELECT (SELECT count(*) FROM ext_analysis_launch) > 5 AND (SELECT count(*) FROM ext_analysis_queue_depth) > 1000')"
# the GPU work kept per GPU, written out in sorted runs while each GPU's
# ops come nearly in start order: at 500,000 bytes runs of both GPUs
# follow each other; at 100,000 the last records break the order (every
# record to the sort at the end); at 3,000 early (to the sort during the
# scan, the runs so far read back); completion order by 4 threads too
rpd-synth --seed 2 --api 40000 -o wk.rpd >/dev/null
rpd-synth --seed 2 --api 40000 --order end --threads 4 --layers 24 -o wkend.rpd >/dev/null
for t in wk wkend; do
  cp "$t.rpd" wkx.rpd
  rpd-analyze wkx.rpd -q
  want=$(dump wkx.rpd | cksum)
  for bytes in 500000 300000 100000 3000; do
    cp "$t.rpd" wkx.rpd
    check_rc "$t, sort buffers of $bytes bytes: runs" 0 env RPD_ANALYZE_SORT_BYTES=$bytes rpd-analyze wkx.rpd -q
    check_eq "$t, sort buffers of $bytes bytes: every table as in memory" "$want" "$(dump wkx.rpd | cksum)"
  done
done
# more GPUs than the work keeps parts for (64): every record to the sort
cp wk.rpd wk70.rpd
q wk70.rpd "UPDATE rocpd_op SET gpuId = id % 70"
for bytes in "" 3000; do
  cp wk70.rpd wkx.rpd
  check_rc "70 GPUs${bytes:+, sort buffers of $bytes bytes}: runs" 0 env ${bytes:+RPD_ANALYZE_SORT_BYTES=$bytes} rpd-analyze wkx.rpd -q
  check_eq "70 GPUs${bytes:+, sort buffers of $bytes bytes}: idle per GPU = independent gaps query" \
    "$(indep_idle wkx.rpd)" "$(ours_idle wkx.rpd)"
done
check_eq "70 GPUs: 70 idle rows" 70 "$(q wkx.rpd 'SELECT count(*) FROM ext_analysis_idle')"
check_eq "GPU work: some GPU's ops out of start order (both shapes)" "1 1" \
  "$(for t in wk wkend; do q "$t.rpd" "SELECT count(*) > 0 FROM (SELECT start < lag(start)
    OVER (PARTITION BY gpuId ORDER BY id) AS d FROM rocpd_op) WHERE d"; done | tr '\n' ' ' | sed 's/ $//')"
check_eq "v2 and v3 of the same seed give the same idle table" \
  "$(ours_idle v3.rpd)" "$(ours_idle v2.rpd)"

if need_shared "$TRACES/mytrace.rpd.gz"; then
  tmpcopy "$TRACES/mytrace.rpd.gz" my.rpd
  run my.rpd
  check_all mytrace my.rpd
  check_eq "mytrace: one hipMemcpy-class sync finding" 1 "$(nf my.rpd sync_memcpy)"
  check_eq "mytrace: kernels replayed by hipGraphLaunch are not launch-bound" 0 "$(nf my.rpd launch_bound)"
fi
if need_shared "$TRACES/rocprofv3_908_results.json.gz"; then
  rpd-import "$TRACES/rocprofv3_908_results.json.gz" r908.rpd >/dev/null 2>&1
  run r908.rpd
  check_all import-908 r908.rpd
  check_eq "import-908: no api calls, so every gap is other" \
    "$(q r908.rpd 'SELECT idle_ns FROM ext_analysis_idle')" \
    "$(q r908.rpd 'SELECT other_ns FROM ext_analysis_idle')"
fi

# ---------------------------------------------------------------- errors
check_rc "bad --rule is a usage error" 2 rpd-analyze v3.rpd --rule nosuch=1
check_eq "bad --rule: names the problem" 1 "$(grep -c "^rpd-analyze: bad --rule 'nosuch=1': unknown rule" stderr)"
check_rc "bad --kernel-wait-us is a usage error" 2 rpd-analyze v3.rpd --kernel-wait-us x
printf 'not a database' >bad.rpd
cp bad.rpd bad.orig
check_rc "not a database fails" 1 rpd-analyze bad.rpd
check_one_line "not a database: one line"
same_file "not a database: input unchanged" bad.rpd bad.orig

# ---------------------------------------------------------------- garbage timestamps
# the trace check's rule is applied in the tool's own scans of rocpd_api
# and rocpd_op (the driver runs no check scans for it): a bad row anywhere
# -- an unlinked call no rule reads, the last call, an op of any class --
# is refused with the one-line message naming the table, the column and
# the number of bad rows, nothing written; rocpd_api's message first
rpd-synth --seed 5 --api 3000 --gpus 2 -o g0.rpd >/dev/null
garbage() { # NAME SQL MESSAGE: the trace g0.rpd after SQL is refused with MESSAGE
  cp g0.rpd g.rpd; sqlite3 g.rpd "$2"; _before=$(sha g.rpd)
  check_rc "garbage $1: exit 1" 1 rpd-analyze g.rpd
  check_eq "garbage $1: message" "rpd-analyze: 'g.rpd': $3" "$(cat "$TESTDIR/stderr")"
  check_eq "garbage $1: unchanged" "$_before" "$(sha g.rpd)"
  check_eq "garbage $1: nothing on stdout" "" "$(cat "$TESTDIR/stdout")"
}
n=$(q g0.rpd "SELECT count(*) FROM rocpd_api WHERE id % 97 = 3 AND id NOT IN (SELECT api_id FROM rocpd_api_ops)")
garbage "unlinked calls (start text)" "UPDATE rocpd_api SET start = 'later' WHERE id % 97 = 3
  AND id NOT IN (SELECT api_id FROM rocpd_api_ops)" \
  "rocpd_api.start: $n rows are not integers (text, real, blob or null); fix or delete those rows"
garbage "the last call (end before start)" \
  "UPDATE rocpd_api SET \"end\" = start - 1 WHERE id = (SELECT max(id) FROM rocpd_api)" \
  "rocpd_api.end: 1 row ends before it starts; fix or delete it"
n=$(q g0.rpd "SELECT count(*) FROM rocpd_op WHERE id % 50 = 7")
garbage "ops (gpuId -1)" "UPDATE rocpd_op SET gpuId = -1 WHERE id % 50 = 7" \
  "rocpd_op.gpuId: $n rows are not integers in 0 .. 2^31-1; fix or delete those rows"
garbage "ops, links out of op order (start outside)" "UPDATE rocpd_op SET start = -5 WHERE id % 50 = 7;
  CREATE TEMP TABLE l AS SELECT api_id, op_id FROM rocpd_api_ops ORDER BY op_id DESC;
  DELETE FROM rocpd_api_ops; INSERT INTO rocpd_api_ops (api_id, op_id) SELECT api_id, op_id FROM l" \
  "rocpd_op.start: $n rows outside 0 .. 2^62 ns; fix or delete those rows"
garbage "both tables: rocpd_api's message" "UPDATE rocpd_op SET gpuId = -1 WHERE id % 50 = 7;
  UPDATE rocpd_api SET start = -1 WHERE id = 2" \
  "rocpd_api.start: 1 row outside 0 .. 2^62 ns; fix or delete it"
cp g0.rpd g.rpd; sqlite3 g.rpd "UPDATE rocpd_op SET \"end\" = start - 1 WHERE id = 9"
check_rc "garbage with -o: exit 1" 1 rpd-analyze g.rpd -o gout.rpd
check "garbage with -o: no output file" test ! -e gout.rpd

# ---------------------------------------------------------------- rpd2tracing counter
check_rc "rpd2tracing with the analysis" 0 rpd2tracing v3.rpd v3.json -q
if command -v python3 >/dev/null; then
  check_eq "rpd2tracing: one AnalysisQueueDepth point per ext_analysis_queue_depth row" \
    "$(q v3.rpd 'SELECT count(*), max(depth) FROM ext_analysis_queue_depth')" \
    "$(python3 -c 'import json, sys
e = json.load(open("v3.json"))
e = e["traceEvents"] if isinstance(e, dict) else e
c = [x["args"]["depth"] for x in e if x.get("cat") == "analysis" and x["name"].startswith("AnalysisQueueDepth q")]
print("%d|%d" % (len(c), max(c)))')"
fi
mk plain.rpd "INSERT INTO k (id, gpu, q, api_s, api_e, s, e) VALUES (1, 0, 0, 0, 10, 100, 200)"
check_rc "rpd2tracing without the analysis" 0 rpd2tracing plain.rpd plain.json -q
check_eq "rpd2tracing: no analysis counter without the table" 0 "$(grep -c AnalysisQueueDepth plain.json)"

# ---------------------------------------------------------------- report sheets
check_rc "raptor --report with the analysis" 0 raptor v3.rpd --report -q --csv-dir rep --xlsx rep.xlsx
check_eq "report: analysis_findings.csv has every finding" \
  "$(q v3.rpd 'SELECT count(*) FROM ext_analysis_findings')" "$(($(wc -l <rep/analysis_findings.csv) - 1))"
q v3.rpd "SELECT gpuId || ',' || span_ns || ',' || busy_ns || ',' || idle_ns || ',' || host_wait_ns || ',' || kernel_wait_ns || ',' || other_ns || ',' || gaps FROM ext_analysis_idle ORDER BY gpuId" >idle.want
tail -n +2 rep/analysis_idle.csv | tr -d '\r' >idle.got
same_file "report: analysis_idle.csv = ext_analysis_idle" idle.want idle.got
if /usr/bin/python3 -c 'import openpyxl' 2>/dev/null; then
  check_eq "report: xlsx has the analysis sheets with the idle rows" \
    "analysis_idle analysis_launch analysis_queue analysis_overlap analysis_memcpy analysis_findings analysis_rules|$(q v3.rpd 'SELECT sum(busy_ns) FROM ext_analysis_idle')" \
    "$(/usr/bin/python3 -c 'import openpyxl
wb = openpyxl.load_workbook("rep.xlsx")
s = [n for n in wb.sheetnames if n.startswith("analysis_")]
ws = wb["analysis_idle"]
print(" ".join(s) + "|%d" % sum(r[2] for r in ws.iter_rows(min_row=2, values_only=True)))')"
else
  skip "report xlsx check" "needs python3-openpyxl"
fi
check_rc "raptor --report without the analysis" 0 raptor plain.rpd --report -q --csv-dir rep2
check_eq "report: no analysis files without the analysis" 0 "$(ls rep2 | grep -c analysis_)"

# ---------------------------------------------------------------- a user's own table is never dropped
mk own.rpd "INSERT INTO k (id, gpu, q, api_s, api_e, s, e) VALUES (1, 0, 0, 0, 10, 100, 200)"
sqlite3 own.rpd "CREATE TABLE ext_analysis_idle (mine TEXT); INSERT INTO ext_analysis_idle VALUES ('keep')"
cp own.rpd own.orig
check_rc "a user's ext_analysis_idle: refused" 1 rpd-analyze own.rpd --force
check_one_line "a user's table: one line"
same_file "a user's table: file unchanged" own.rpd own.orig

# ---------------------------------------------------------------- the findings table of an older version
mk old.rpd "INSERT INTO k (id, gpu, q, api_s, api_e, s, e) VALUES (1, 0, 0, 0, 10, 100, 200)"
run old.rpd
sqlite3 old.rpd "DROP TABLE ext_analysis_findings; CREATE TABLE ext_analysis_findings (id INTEGER PRIMARY KEY,
  rule TEXT, severity TEXT, gpuId INTEGER, tid INTEGER, start_ns INTEGER, end_ns INTEGER, count INTEGER,
  value REAL, detail TEXT, advice TEXT)"
check_rc "an older version's findings table (no value_unit): --force rebuilds it" 0 rpd-analyze old.rpd --force
check_eq "older findings table: now has value_unit" 1 \
  "$(q old.rpd "SELECT count(*) FROM pragma_table_info('ext_analysis_findings') WHERE name = 'value_unit'")"

# ---------------------------------------------------------------- a span of 146 years is one step
mk far.rpd "INSERT INTO k (id, gpu, q, api_s, api_e, s, e) VALUES
  (1, 0, 0, 0, 10, 0, 20000000), (2, 0, 0, 0, 10, 4000000000000000000, 4000000000020000000)"
check_rc "ops 4e18 ns apart: finishes" 0 timeout 60 rpd-analyze far.rpd
check_eq "ops 4e18 ns apart: one low-utilization run of the empty windows" \
  "1|20000000|4000000000000000000|399999999998" \
  "$(q far.rpd "SELECT count(*), start_ns, end_ns, count FROM ext_analysis_findings WHERE rule = 'low_utilization'")"
