#!/bin/sh
# tests/tools/rpd-health.sh - rpd-health: one row per check, planted cases
# counted exactly, read-only, --strict, formats, bad input.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

# A clean hand-made trace: one thread, two kernels and a copy on gpu 0
# queue 0 in order, each linked to its launch.
rpd-synth --api 0 -o clean.rpd >/dev/null
sqlite3 clean.rpd <<'EOF'
INSERT INTO rocpd_string(id, string) VALUES (9001, 'hipLaunchKernel'), (9002, 'KernelExecution'),
 (9003, 'gemm'), (9004, 'CopyHostToDevice'), (9005, 'hipMemcpyAsync'), (9006, ''),
 (9007, 'hipStreamBeginCapture'), (9008, 'hipStreamEndCapture'), (9009, 'add');
INSERT INTO rocpd_api(id, pid, tid, start, end, apiName_id, args_id, domain_id, category_id) VALUES
 (1, 5, 1, 1000, 1100, 9001, 1, 1, 1), (2, 5, 1, 1200, 1300, 9001, 1, 1, 1),
 (3, 5, 1, 1400, 1500, 9005, 1, 1, 1);
INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, end, description_id, opType_id) VALUES
 (1, 0, 0, 0, 2000, 3000, 9003, 9002), (2, 0, 0, 0, 3000, 4000, 9003, 9002),
 (3, 0, 0, 0, 4100, 4200, 9006, 9004);
INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (1, 1), (2, 2), (3, 3);
EOF

counts() { rpd-health "$1" --format csv | tr -d '\r' | sed 1d | cut -d, -f1,2 | tr '\n' ' '; }
zero="bad_timestamp,0 queue_overlap,0 op_before_launch,0 dangling_link,0 outside_span,0 op_without_launch,0 launch_without_op,0 zero_length_kernel,0 unnamed_kernel,0 duplicate_op,0 rank_clock_skew,0 "

check_eq "clean trace: every check 0 (a copy with an empty name is not a kernel)" "$zero" "$(counts clean.rpd)"
check_rc "clean trace --strict: exit 0" 0 rpd-health --strict clean.rpd
check_eq "clean table says all passed" "all checks passed" "$(tail -1 "$TESTDIR/stdout")"

# plant one case per check, each in its own copy
plant() { # NAME SQL: copy clean.rpd to NAME.rpd and run SQL on it
  cp clean.rpd "$1.rpd"; sqlite3 "$1.rpd" "$2"
}
only() { # CHECK N: the zero line with CHECK at N
  echo "$zero" | sed "s/$1,0 /$1,$2 /"
}
plant overlap "INSERT INTO rocpd_op VALUES (4, 0, 0, 0, 2500, 2600, 9009, 9002),
  (5, 0, 0, 0, 3600, 3700, 9009, 9002), (6, 0, 1, 0, 2500, 2600, 9009, 9002), (7, 1, 0, 0, 2500, 2600, 9009, 9002);
  INSERT INTO rocpd_api VALUES (4, 5, 1, 1500, 1510, 9001, 1, 1, 1), (5, 5, 1, 1510, 1520, 9001, 1, 1, 1),
  (6, 5, 1, 1520, 1530, 9001, 1, 1, 1), (7, 5, 1, 1530, 1540, 9001, 1, 1, 1);
  INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (4, 4), (5, 5), (6, 6), (7, 7);"
check_eq "queue_overlap: 2 ops inside others on gpu 0 queue 0; other queue/gpu not counted" \
  "$(only queue_overlap 2)" "$(counts overlap.rpd)"
rpd-health overlap.rpd --format csv | tr -d '\r' >ov.csv
check_eq "queue_overlap example names the largest overlap (op 4: 500 ns; op 5: 400 ns)" \
  "queue_overlap,2,largest: op 4 (gpu 0 queue 0) starts 500 ns before an earlier op on its queue ends" \
  "$(grep '^queue_overlap' ov.csv)"
check_rc "--strict with a finding: exit 1" 1 rpd-health --strict overlap.rpd
check_rc "without --strict: exit 0" 0 rpd-health overlap.rpd
check_eq "table names what the check means" \
  "  queue_overlap: ops on one gpuId+queueId overlap: an in-order queue cannot run two at once" \
  "$(tail -1 "$TESTDIR/stdout")"

plant early "UPDATE rocpd_op SET start = 1150, end = 1190 WHERE id = 2"
check_eq "op_before_launch: op 2 starts before call 2" "$(only op_before_launch 1)" "$(counts early.rpd)"

plant dangling "INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (99, 1), (1, 98), (97, 96)"
check_eq "dangling_link: 3 rows (missing api, missing op, both)" "$(only dangling_link 3)" "$(counts dangling.rpd)"

plant span "INSERT INTO rocpd_op VALUES (4, 0, 1, 0, 5000000000, 5000000100, 9009, 9002),
  (5, 0, 2, 0, 900000000, 900000100, 9009, 9002);
  INSERT INTO rocpd_api VALUES (4, 5, 1, 1500, 1510, 9001, 1, 1, 1), (5, 5, 1, 1510, 1520, 9001, 1, 1, 1);
  INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (4, 4), (5, 5);"
check_eq "outside_span: the op 5 s late counts, the op 0.9 s late does not" \
  "$(only outside_span 1)" "$(counts span.rpd)"

plant orphan "DELETE FROM rocpd_api_ops WHERE op_id IN (2, 3)"
check_eq "op_without_launch 2 (a kernel and a copy) and launch_without_op 1 (call 2)" \
  "$(echo "$zero" | sed 's/op_without_launch,0 /op_without_launch,2 /; s/launch_without_op,0 /launch_without_op,1 /')" \
  "$(counts orphan.rpd)"

plant capture "INSERT INTO rocpd_api VALUES (10, 5, 1, 5000, 5010, 9007, 1, 1, 1), (11, 5, 1, 5100, 5110, 9001, 1, 1, 1),
  (12, 5, 1, 5200, 5210, 9008, 1, 1, 1), (13, 5, 2, 5100, 5110, 9001, 1, 1, 1), (14, 5, 1, 5300, 5310, 9001, 1, 1, 1);"
check_eq "launch_without_op: launches inside a stream capture are not counted (other thread and after: 2)" \
  "$(only launch_without_op 2)" "$(counts capture.rpd)"

plant zero "UPDATE rocpd_op SET end = start WHERE id IN (1, 3)"
check_eq "zero_length_kernel: the kernel counts, the zero-length copy does not" \
  "$(only zero_length_kernel 1)" "$(counts zero.rpd)"

plant unnamed "UPDATE rocpd_op SET description_id = 9006 WHERE id = 1; UPDATE rocpd_op SET description_id = 123456 WHERE id = 2"
check_eq "unnamed_kernel: empty name and a missing string" "$(only unnamed_kernel 2)" "$(counts unnamed.rpd)"

plant dup "INSERT INTO rocpd_op VALUES (4, 0, 0, 0, 2000, 3000, 9003, 9002), (5, 0, 0, 0, 2000, 3000, 9003, 9002);
  INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (1, 4), (1, 5);"
rpd-health dup.rpd --format csv | tr -d '\r' >dup.csv
check_eq "duplicate_op: two extra copies of op 1 (and they overlap on the queue)" \
  'duplicate_op,2,"3 copies of op 1 (gpu 0 queue 0, start 2000)"|queue_overlap,2' \
  "$(grep '^duplicate_op' dup.csv)|$(grep '^queue_overlap' dup.csv | cut -d, -f1,2)"

plant badtime "UPDATE rocpd_op SET start = 'x' WHERE id = 1; UPDATE rocpd_api SET end = 10 WHERE id = 2"
rpd-health badtime.rpd --format csv >bt.csv
check_eq "bad_timestamp: one bad row per table counted (not refused)" "bad_timestamp,2" \
  "$(grep '^bad_timestamp' bt.csv | cut -d, -f1,2)"
case "$(grep '^bad_timestamp' bt.csv)" in
  *rocpd_api*) ok "bad_timestamp example is the check's message" ;;
  *) notok "bad_timestamp example is the check's message" "$(cat bt.csv)" ;;
esac

# merged trace: rank 1 shifted 3 s
rpd-synth --api 400 --gpus 1 --ranks 2 --rank 0 -o r0.rpd >/dev/null
rpd-synth --api 400 --gpus 1 --ranks 2 --rank 1 --clock-skew 3000000000 -o r1.rpd >/dev/null
rpd-merge --align none -o skewed.rpd r0.rpd r1.rpd >/dev/null 2>&1
rpd-merge --align collective -o aligned.rpd r0.rpd r1.rpd >/dev/null 2>&1
rpd-health skewed.rpd --format csv | tr -d '\r' >sk.csv
check_eq "rank_clock_skew: unaligned, rank 1 is 3 s late" \
  'rank_clock_skew,1,rank 1 starts 3.000 s after the first rank' "$(grep '^rank_clock_skew' sk.csv)"
check_eq "rank_clock_skew: aligned on the collectives, none" "rank_clock_skew,0" \
  "$(rpd-health aligned.rpd --format csv | tr -d '\r' | grep '^rank_clock_skew' | cut -d, -f1,2)"

# formats, read-only, the input untouched
sha_before=$(sha overlap.rpd)
rpd-health overlap.rpd --format json >h.json
check "json loads, 11 checks" python3 -c "import json,sys; d=json.load(open('h.json')); sys.exit(0 if len(d)==11 and d[1]['check']=='queue_overlap' and d[1]['count']==2 else 1)"
check_eq "input byte-identical after every run" "$sha_before" "$(sha overlap.rpd)"
chmod a-w overlap.rpd
check_rc "a read-only trace is fine" 0 rpd-health overlap.rpd
chmod u+w overlap.rpd
gzip -c overlap.rpd >overlap.rpd.gz
check_eq ".rpd.gz gives the same rows" "$(counts overlap.rpd)" "$(counts overlap.rpd.gz)"

# bad input
printf 'not sqlite at all, not at all\n' >junk.rpd
check_rc "not SQLite: exit 1" 1 rpd-health junk.rpd
check_one_line "not SQLite: one line"
check_rc "no TRACE: usage, exit 2" 2 rpd-health
check_rc "unknown option: exit 2" 2 rpd-health clean.rpd --frobnicate
check_rc "bad format: exit 2" 2 rpd-health clean.rpd --format xml
check_rc "--help: exit 0" 0 rpd-health --help

# the real traces: counts are what independent SQL finds
if need_shared "$TRACES/matmul_result.rpd"; then
  check_eq "matmul_result: healthy" "$zero" "$(counts "$TRACES/matmul_result.rpd")"
fi
if need_shared "$TRACES/mytrace.rpd.gz"; then
  gzip -dc "$TRACES/mytrace.rpd.gz" >my.rpd
  want=$(q my.rpd "SELECT count(*) FROM (SELECT start, max(end) OVER (PARTITION BY gpuId, queueId
    ORDER BY start, id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS pe FROM rocpd_op
    WHERE opType_id IN (SELECT id FROM rocpd_string WHERE string IN ('KernelExecution', 'Task')
    OR string GLOB 'Copy*')) WHERE start < pe")
  check_eq "mytrace: queue_overlap equals independent SQL ($want)" "queue_overlap,$want" \
    "$(rpd-health my.rpd --format csv | grep '^queue_overlap' | cut -d, -f1,2)"
  check_eq "mytrace: no link problems" "0,0,0,0" \
    "$(rpd-health my.rpd --format csv | grep -E '^(op_before_launch|dangling_link|op_without_launch|launch_without_op),' | cut -d, -f2 | paste -sd,)"
fi

# the op and queue checks are counted in C from one read of the ops
# (health_ops.c), launch_without_op from one read of the calls, where the
# values are integers: the same counts as the SQL
# alone (RPD_HEALTH_SQL=1) on a trace with every case planted many times,
# with its queues in order and out of order (the walk falls back to the
# sorted read), and with a text value (the whole C pass falls back)
rpd-synth --seed 5 --api 3000 --gpus 2 -o many.rpd >/dev/null
sqlite3 many.rpd "INSERT INTO rocpd_string(string) VALUES ('');
  UPDATE rocpd_op SET end = start WHERE id % 37 = 0;
  UPDATE rocpd_op SET description_id = (SELECT max(id) FROM rocpd_string) WHERE id % 41 = 0;
  UPDATE rocpd_op SET description_id = 987654 WHERE id % 43 = 0;
  DELETE FROM rocpd_api_ops WHERE op_id % 47 = 0;
  UPDATE rocpd_op SET start = start + 3000000000, end = end + 3000000000 WHERE id % 53 = 0;
  UPDATE rocpd_op SET start = start - 1000, end = end - 900 WHERE id % 59 = 0;
  INSERT INTO rocpd_op (gpuId, queueId, sequenceId, start, end, description_id, opType_id)
    SELECT gpuId, queueId, sequenceId, start, end, description_id, opType_id FROM rocpd_op WHERE id % 61 = 0;"
# launch_without_op (counted in C from one read of the calls): unlinked
# launches at a capture's two ends (held), one past its end and on another
# thread (not held), two captures that begin together, one never ended
sqlite3 many.rpd "CREATE TEMP TABLE caps AS SELECT A.* FROM rocpd_api A JOIN rocpd_string S
    ON S.id = A.apiName_id WHERE S.string GLOB '*Capture*';
  INSERT INTO rocpd_api (pid, tid, start, end, apiName_id, args_id, domain_id, category_id)
    SELECT pid, tid + d, start + e, start + e + 5,
      (SELECT id FROM rocpd_string WHERE string = 'hipLaunchKernel'), args_id, domain_id, category_id
    FROM caps, (SELECT 0 AS d, 0 AS e UNION ALL SELECT 0, 1 UNION ALL SELECT 1, 0);
  INSERT INTO rocpd_api (pid, tid, start, end, apiName_id, args_id, domain_id, category_id)
    SELECT pid, 777, start, start + 5, apiName_id, args_id, domain_id, category_id FROM caps
    WHERE apiName_id IN (SELECT id FROM rocpd_string WHERE string GLOB '*BeginCapture*');
  INSERT INTO rocpd_api (pid, tid, start, end, apiName_id, args_id, domain_id, category_id)
    SELECT pid, 777, start + 10 * k, start + 10 * k + 5,
      (SELECT id FROM rocpd_string WHERE string = 'hipLaunchKernel'), args_id, domain_id, category_id
    FROM caps, (SELECT 0 AS k UNION ALL SELECT 1 UNION ALL SELECT 2)
    WHERE apiName_id IN (SELECT id FROM rocpd_string WHERE string GLOB '*BeginCapture*');"
want="outside_span op_without_launch zero_length_kernel unnamed_kernel queue_overlap duplicate_op launch_without_op"
nonzero() { rpd-health "$1" --format csv | tr -d '\r' | awk -F, -v w=" $want " 'index(w, " " $1 " ") && $2 > 0 {n++} END {print n + 0}'; }
check_eq "planted: the seven checks counted in C all find rows" 7 "$(nonzero many.rpd)"
check_eq "planted: C pass and SQL agree" "$(RPD_HEALTH_SQL=1 counts many.rpd)" "$(counts many.rpd)"
sqlite3 many.rpd "UPDATE rocpd_op SET start = start + 100000 WHERE id = 7"
check_eq "a queue out of order: C pass and SQL agree" "$(RPD_HEALTH_SQL=1 counts many.rpd)" "$(counts many.rpd)"
sqlite3 many.rpd "UPDATE rocpd_op SET gpuId = 'zero' WHERE id = 9"
check_eq "a text gpuId: C pass and SQL agree" "$(RPD_HEALTH_SQL=1 counts many.rpd)" "$(counts many.rpd)"
