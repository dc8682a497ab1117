#!/bin/sh
# rpd-callstack: exact rows on a hand-made trace with ties, zero-length and
# overlapping calls; invariants on generated v2/v3 traces (inclusive cpu =
# duration, parents = the containment rule); golden outputs of the reference
# (synth-small v2 + v3 copy, mytrace); re-run/--force/-o; bad input; kill -9.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

# sha, kill_test and to_v3 (rpd-schema --upgrade) come from tests/lib.sh

# ---------------------------------------------------------------- hand-made
# 1 A[0,100] holds 2 B[10,20], 3 C[20,30] (starts as B ends), 4 Z[30,30]
# (zero-length as C ends), 5 D[40,50] and 6 E[40,45] (same start), 7 F[50,50]
# (zero-length as D ends), 8 G[60,60]; 9 H[100,110] starts as A ends;
# 10 I[120,140] and 11 J[130,150] overlap without nesting, 12 K[135,138].
rpd-synth --seed 1 --api 50 --schema 2 -o hand.rpd >/dev/null
sqlite3 hand.rpd "BEGIN; DELETE FROM rocpd_api; DELETE FROM rocpd_api_ops;
  DELETE FROM rocpd_op; DELETE FROM rocpd_kernelapi; DELETE FROM rocpd_copyapi;
  INSERT INTO rocpd_api(id, pid, tid, start, end, apiName_id, args_id) VALUES
   (1,1,1,0,100,1,1),(2,1,1,10,20,1,1),(3,1,1,20,30,1,1),(4,1,1,30,30,1,1),
   (5,1,1,40,50,1,1),(6,1,1,40,45,1,1),(7,1,1,50,50,1,1),(8,1,1,60,60,1,1),
   (9,1,1,100,110,1,1),(10,1,1,120,140,1,1),(11,1,1,130,150,1,1),
   (12,1,1,135,138,1,1),(13,1,2,5,6,1,1);
  INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, completionSignal, start,
    end, description_id, opType_id) VALUES (1,0,0,0,'',1000,1007,1,1),
    (2,0,0,0,'',2000,2003,1,1),(3,0,0,0,'',3000,3002,1,1);
  INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (2,1),(6,2),(6,3);
  COMMIT;"
check_rc "hand: exit 0" 0 rpd-callstack hand.rpd
check_eq "hand: summary line" \
  "rpd-callstack: 13 calls, 23 rows, 2 threads, max depth 3, 1 overlapping calls (not nested)" \
  "$(cat "$TESTDIR/stdout")"
cat >expect.txt <<'EOF'
1|1|0|70|0
1|2|1|10|7
1|3|1|10|0
1|4|1|0|0
1|5|1|5|0
1|6|2|5|5
1|7|1|0|0
1|8|1|0|0
10|10|0|17|0
10|12|2|3|0
11|11|0|17|0
11|12|1|3|0
12|12|0|3|0
13|13|0|1|0
2|2|0|10|7
3|3|0|10|0
4|4|0|0|0
5|5|0|5|0
5|6|1|5|5
6|6|0|5|5
7|7|0|0|0
8|8|0|0|0
9|9|0|10|0
EOF
q hand.rpd "SELECT parent_id, child_id, depth, cpu_time, gpu_time FROM ext_callstack
" | sort >got.txt
sort -o expect.txt expect.txt
same_file "hand: rows (ties, zero-length, overlap)" expect.txt got.txt
check_eq "hand: row count" 23 "$(q hand.rpd 'SELECT count(*) FROM ext_callstack')"
check_eq "hand: callStack_inclusive of A = its duration" "100|12" \
  "$(q hand.rpd 'SELECT cpu_time, gpu_time FROM callStack_inclusive WHERE parent_id = 1')"
check_eq "hand: metadata tags" "Callstack::Generated|True Callstack::Table|True" \
  "$(q hand.rpd "SELECT tag, value FROM rocpd_metadata WHERE tag LIKE 'Callstack::%' ORDER BY tag" | tr '\n' ' ' | sed 's/ $//')"

# ---------------------------------------------------------------- generated
# parents by the containment rule: P (not zero-length) sorts before C by
# (start, end DESC, id), C starts before P ends and ends no later.
CONTAIN="SELECT P.id AS p, C.id AS c FROM rocpd_api C JOIN rocpd_api P
  ON P.pid = C.pid AND P.tid = C.tid AND P.id <> C.id AND P.start < P.end
  AND (P.start < C.start OR (P.start = C.start AND (P.end > C.end OR (P.end = C.end AND P.id < C.id))))
  AND C.start < P.end AND C.end <= P.end"
# (e: rows stored in completion order as rpd_tracer stores them, 4 threads
# interleaved, 24-layer forward passes nesting 6 deep)
for schema in 2 3 e; do
  case $schema in
    e) rpd-synth --seed 5 --api 6000 --order end --threads 4 --layers 24 -o gen$schema.rpd >/dev/null ;;
    *) rpd-synth --seed 7 --api 4000 --schema $schema -o gen$schema.rpd >/dev/null ;;
  esac
  check_rc "v$schema: exit 0" 0 rpd-callstack gen$schema.rpd
  n=$(q gen$schema.rpd "SELECT count(*) FROM rocpd_api")
  check_eq "v$schema: one depth-0 row per call" "$n" \
    "$(q gen$schema.rpd 'SELECT count(*) FROM ext_callstack WHERE depth = 0 AND parent_id = child_id')"
  check_eq "v$schema: inclusive cpu = duration for every call" "$n" \
    "$(q gen$schema.rpd 'SELECT count(*) FROM callStack_inclusive i JOIN rocpd_api a ON a.id = i.parent_id WHERE i.cpu_time = a.end - a.start')"
  check_eq "v$schema: trace has ties (the test means something)" 1 \
    "$(q gen$schema.rpd 'SELECT count(*) > 10 FROM rocpd_api a JOIN rocpd_api b ON a.pid = b.pid AND a.tid = b.tid AND a.end = b.start')"
  check_eq "v$schema: parents = containment rule" "0 0" \
    "$(q gen$schema.rpd "SELECT (SELECT count(*) FROM ($CONTAIN EXCEPT SELECT parent_id, child_id FROM ext_callstack WHERE depth > 0)), (SELECT count(*) FROM (SELECT parent_id, child_id FROM ext_callstack WHERE depth > 0 EXCEPT $CONTAIN))" | tr '|' ' ')"
  check_eq "v$schema: gpu_time = sum of the call's ops" 0 \
    "$(q gen$schema.rpd 'SELECT count(*) FROM ext_callstack e WHERE e.depth = 0 AND e.gpu_time <> (SELECT ifnull(sum(o.end - o.start), 0) FROM rocpd_api_ops x JOIN rocpd_op o ON o.id = x.op_id WHERE x.api_id = e.child_id)')"
  check_eq "v$schema: depth = ancestor count difference" 0 \
    "$(q gen$schema.rpd "WITH a AS ($CONTAIN), n AS (SELECT c, count(*) k FROM a GROUP BY c)
       SELECT count(*) FROM ext_callstack e WHERE e.depth > 0 AND e.depth <>
         ifnull((SELECT k FROM n WHERE c = e.child_id), 0) - ifnull((SELECT k FROM n WHERE c = e.parent_id), 0)")"
done
check_eq "v2 and v3 give the same rows" 0 \
  "$(q gen2.rpd "ATTACH 'gen3.rpd' AS b; SELECT count(*) FROM (SELECT parent_id, child_id, depth, cpu_time, gpu_time FROM ext_callstack EXCEPT SELECT parent_id, child_id, depth, cpu_time, gpu_time FROM b.ext_callstack)")"
check_eq "v3: callStack_exclusive_name has args from rocpd_ustring" 1 \
  "$(q gen3.rpd "SELECT count(*) > 0 FROM callStack_exclusive_name WHERE args LIKE '%op_id = %'")"

# ---------------------------------------------------------------- re-run, --force, -o
before=$(sha gen2.rpd); rows=$(q gen2.rpd "SELECT count(*) FROM ext_callstack")
check_rc "re-run: exit 0" 0 rpd-callstack gen2.rpd
check_eq "re-run: says already done" 1 "$(grep -c 'already has a call stack' "$TESTDIR/stderr")"
check_eq "re-run: file unchanged" "$before" "$(sha gen2.rpd)"
check_rc "--force: exit 0" 0 rpd-callstack gen2.rpd --force
check_eq "--force: same rows, none duplicated" "$rows 1 1" \
  "$(q gen2.rpd "SELECT count(*), (SELECT count(*) FROM rocpd_metadata WHERE tag = 'Callstack::Generated'), (SELECT count(*) FROM rocpd_metadata WHERE tag = 'Callstack::Table') FROM ext_callstack" | tr '|' ' ')"
rpd-synth --seed 7 --api 4000 --schema 2 -o in.rpd >/dev/null
before=$(sha in.rpd)
check_rc "-o OUT: exit 0" 0 rpd-callstack in.rpd -o out.rpd
check_eq "-o OUT: input unchanged" "$before" "$(sha in.rpd)"
check_eq "-o OUT: output has the rows" "$rows" "$(q out.rpd 'SELECT count(*) FROM ext_callstack')"

# ---------------------------------------------------------------- bad input
bad() { # NAME RC FILE ARGS...: exit RC, one line (usage: + a --help hint)
  _n=$1; _rc=$2; _f=$3; shift 3
  _b=$( [ -e "$_f" ] && sha "$_f")
  check_rc "bad: $_n exit $_rc" "$_rc" rpd-callstack "$@"
  if [ "$_rc" = 1 ]; then check_one_line "$_n: one line"
  else check_eq "$_n: message + hint" "1 1 2" \
    "$(grep -c '^rpd-callstack: ' "$TESTDIR/stderr") $(grep -c -- '--help' "$TESTDIR/stderr") $(wc -l <"$TESTDIR/stderr")"; fi
  [ -e "$_f" ] && check_eq "$_n: input unchanged" "$_b" "$(sha "$_f")"
}
printf 'hello, not a database\n' >notdb.rpd
: >empty.rpd
gzip -c in.rpd | head -c 5000 >trunc.rpd.gz
sqlite3 notrpd.rpd "CREATE TABLE x(a); INSERT INTO x VALUES (1);"
cp in.rpd ro.rpd; chmod a-w ro.rpd
bad "missing file" 1 nosuch.rpd nosuch.rpd
bad "not sqlite" 1 notdb.rpd notdb.rpd
bad "empty file" 1 empty.rpd empty.rpd
bad "truncated gz" 1 trunc.rpd.gz trunc.rpd.gz
bad "missing tables" 1 notrpd.rpd notrpd.rpd
if [ "$(id -u)" != 0 ]; then bad "read-only" 1 ro.rpd ro.rpd
else skip "bad: read-only (running as root)"; fi
bad "no FILE" 2 in.rpd
bad "unknown option" 2 in.rpd in.rpd --frobnicate
cp in.rpd lock.rpd; before=$(sha lock.rpd)
check "lock held by sqlite3" hold_lock lock.rpd
RPD_BUSY_TIMEOUT_MS=200; export RPD_BUSY_TIMEOUT_MS
check_rc "bad: locked exit 1" 1 rpd-callstack lock.rpd
unset RPD_BUSY_TIMEOUT_MS
check_one_line "locked: one line"
release_lock
check_eq "locked: input unchanged" "$before" "$(sha lock.rpd)"
check_eq "bad: hostile name quoted in message" 1 \
  "$(rpd-callstack "x'; DROP TABLE y;--.rpd" 2>&1 | grep -c "cannot open 'x'; DROP TABLE y;--.rpd'")"

# ---------------------------------------------------------------- kill -9
rpd-synth --seed 3 --api 700000 --schema 3 -o big.rpd >/dev/null
kill_test "kill -9" big.rpd rpd-callstack big.rpd
check_rc "kill -9: re-run succeeds" 0 rpd-callstack big.rpd
check_eq "kill -9: re-run complete, no duplicates" "700000 1" \
  "$(q big.rpd 'SELECT count(*) FROM ext_callstack WHERE depth = 0') $(q big.rpd "SELECT count(*) FROM rocpd_metadata WHERE tag = 'Callstack::Generated'")"

# ---------------------------------------------------------------- golden
# The reference never adds a root call's children to its child time, so a
# root call with children gets cpu_time = its whole duration at depth 0.
# Every other row must equal the golden; those rows must equal the golden
# minus the cpu time of their descendants (docs/rpd-callstack.md).
golden_check() { # NAME TRACE GOLDENDIR NROOTS
  _n=$1; _t=$2; _g=$3
  rm -f cmp.db
  for f in callstack callStack_inclusive_name callStack_exclusive_name; do
    gzip -dc "$_g/$f.csv.gz" | tr -d '\r' >"$TESTDIR/$f.csv"
    printf '.mode csv\n.import %s g_%s\n' "$TESTDIR/$f.csv" "$f" | sqlite3 cmp.db
  done
  sqlite3 cmp.db "ATTACH '$_t' AS t;
    CREATE TABLE roots AS SELECT CAST(parent_id AS INT) AS id,
      sum(CAST(cpu_time AS INT)) AS desc_cpu FROM g_callstack WHERE depth + 0 > 0
      AND parent_id NOT IN (SELECT child_id FROM g_callstack WHERE depth + 0 > 0)
      GROUP BY parent_id;
    CREATE TABLE fixed AS SELECT g.parent_id + 0 AS p, g.child_id + 0 AS c,
      g.depth + 0 AS d, g.cpu_time - ifnull((SELECT desc_cpu FROM roots
      WHERE id = g.child_id + 0 AND g.depth + 0 = 0), 0) AS cpu,
      g.gpu_time + 0 AS gpu FROM g_callstack g;"
  check_eq "$_n: roots with children (rows that differ)" "$4" "$(q cmp.db 'SELECT count(*) FROM roots')"
  check_eq "$_n: golden cpu_time of those rows = whole duration" "$4" \
    "$(q cmp.db "ATTACH '$_t' AS t; SELECT count(*) FROM roots r JOIN g_callstack g ON g.child_id + 0 = r.id AND g.parent_id + 0 = r.id JOIN t.rocpd_api a ON a.id = r.id WHERE g.cpu_time + 0 = a.end - a.start")"
  check_eq "$_n: ext_callstack = golden with those rows corrected" "0 $(q cmp.db 'SELECT count(*) FROM g_callstack')" \
    "$(q cmp.db "ATTACH '$_t' AS t; SELECT (SELECT count(*) FROM (SELECT *, count(*) FROM fixed GROUP BY 1,2,3,4,5 EXCEPT SELECT parent_id, child_id, depth, cpu_time, gpu_time, count(*) FROM t.ext_callstack GROUP BY 1,2,3,4,5)) + (SELECT count(*) FROM (SELECT parent_id, child_id, depth, cpu_time, gpu_time, count(*) FROM t.ext_callstack GROUP BY 1,2,3,4,5 EXCEPT SELECT *, count(*) FROM fixed GROUP BY 1,2,3,4,5)), (SELECT count(*) FROM t.ext_callstack)" | tr '|' ' ')"
  for v in inclusive exclusive; do
    check_eq "$_n: callStack_${v}_name = golden (roots corrected)" 0 \
      "$(q cmp.db "ATTACH '$_t' AS t;
        SELECT (SELECT count(*) FROM (
         SELECT g.parent_id + 0, g.apiName, g.args, g.cpu_time - ifnull(r.desc_cpu, 0), g.gpu_time + 0
           FROM g_callStack_${v}_name g LEFT JOIN roots r ON r.id = g.parent_id + 0
         EXCEPT SELECT parent_id, apiName, args, cpu_time, gpu_time FROM t.callStack_${v}_name))
        + (SELECT count(*) FROM g_callStack_${v}_name) - (SELECT count(*) FROM t.callStack_${v}_name)")"
  done
}
if need_shared "$TRACES/synth-small.rpd"; then
  tmpcopy "$TRACES/synth-small.rpd" ss2.rpd
  check_rc "synth-small v2: exit 0" 0 rpd-callstack ss2.rpd
  golden_check "synth-small v2" ss2.rpd "$GOLDEN/synth-small" 120
  to_v3 "$TRACES/synth-small.rpd" ss3.rpd
  check_eq "synth-small v3 copy is schema 3" 1 "$(q ss3.rpd "SELECT count(*) FROM pragma_table_info('rocpd_api') WHERE name = 'domain_id'")"
  check_rc "synth-small v3 copy: exit 0" 0 rpd-callstack ss3.rpd
  golden_check "synth-small v3" ss3.rpd "$GOLDEN/synth-small" 120
fi
if need_shared "$TRACES/mytrace.rpd.gz"; then
  tmpcopy "$TRACES/mytrace.rpd.gz" my.rpd
  before=$(sha my.rpd)
  check_rc "mytrace: has the reference's call stack, exit 0" 0 rpd-callstack my.rpd
  check_eq "mytrace: unchanged without --force" "$before" "$(sha my.rpd)"
  check_rc "mytrace: --force exit 0" 0 rpd-callstack my.rpd --force
  golden_check "mytrace" my.rpd "$GOLDEN/mytrace" 2
fi

# ---------------------------------------------------------------- issue 12
# a user's own ext_callstack (other columns) is never dropped, not even
# with --force; garbage timestamps are refused; both in one line
cp in.rpd own.rpd
sqlite3 own.rpd "CREATE TABLE ext_callstack(note TEXT, value REAL); INSERT INTO ext_callstack VALUES ('mine', 1.5)"
before=$(sha own.rpd)
for force in "" --force; do
  check_rc "own table $force: exit 1" 1 rpd-callstack own.rpd $force
  check_eq "own table $force: message" \
    "rpd-callstack: 'own.rpd': table ext_callstack exists with other columns (note, value); it was not written by rpdtools: rename or drop it yourself" \
    "$(cat "$TESTDIR/stderr")"
  check_eq "own table $force: unchanged" "$before" "$(sha own.rpd)"
done
# the suite's own shape (also the reference's) is rebuilt with --force
cp in.rpd ours.rpd; rpd-callstack ours.rpd >/dev/null 2>&1
check_rc "our table: --force exit 0" 0 rpd-callstack ours.rpd --force
for g in "start = -9223372036854775808:rocpd_api.start:rows outside 0 .. 2^62 ns" \
         "start = 'later':rocpd_api.start:rows are not integers (text, real, blob or null)" \
         "end = start - 5:rocpd_api.end:rows end before they start"; do
  set_=${g%%:*}; rest=${g#*:}; col=${rest%%:*}; what=${rest#*:}
  cp in.rpd g.rpd; sqlite3 g.rpd "UPDATE rocpd_api SET $set_ WHERE id % 97 = 3"
  n=$(q g.rpd "SELECT count(*) FROM rocpd_api WHERE id % 97 = 3"); before=$(sha g.rpd)
  check_rc "garbage $col ($set_): exit 1" 1 rpd-callstack g.rpd
  check_eq "garbage $col ($set_): message" "rpd-callstack: 'g.rpd': $col: $n $what; fix or delete those rows" \
    "$(cat "$TESTDIR/stderr")"
  check_eq "garbage $col ($set_): unchanged" "$before" "$(sha g.rpd)"
done
# the check is folded into the walk's scan (and rocpd_op's follows it):
# a bad last row is still found, rocpd_op is still checked, and when both
# tables are bad rocpd_api's message wins, as in every other tool
cp in.rpd g.rpd; sqlite3 g.rpd "UPDATE rocpd_api SET end = start - 1 WHERE id = (SELECT max(id) FROM rocpd_api)"
before=$(sha g.rpd)
check_rc "garbage in the last api row: exit 1" 1 rpd-callstack g.rpd
check_eq "garbage in the last api row: message" "rpd-callstack: 'g.rpd': rocpd_api.end: 1 row ends before it starts; fix or delete it" \
  "$(cat "$TESTDIR/stderr")"
check_eq "garbage in the last api row: unchanged" "$before" "$(sha g.rpd)"
cp in.rpd g.rpd; sqlite3 g.rpd "UPDATE rocpd_op SET gpuId = -1 WHERE id % 50 = 7"
n=$(q g.rpd "SELECT count(*) FROM rocpd_op WHERE id % 50 = 7"); before=$(sha g.rpd)
check_rc "garbage rocpd_op.gpuId: exit 1" 1 rpd-callstack g.rpd
check_eq "garbage rocpd_op.gpuId: message" "rpd-callstack: 'g.rpd': rocpd_op.gpuId: $n rows are not integers in 0 .. 2^31-1; fix or delete those rows" \
  "$(cat "$TESTDIR/stderr")"
check_eq "garbage rocpd_op.gpuId: unchanged" "$before" "$(sha g.rpd)"
sqlite3 g.rpd "UPDATE rocpd_api SET start = -1 WHERE id = 2"
check_rc "garbage in both tables: exit 1" 1 rpd-callstack g.rpd
check_eq "garbage in both tables: rocpd_api's message" "rpd-callstack: 'g.rpd': rocpd_api.start: 1 row outside 0 .. 2^62 ns; fix or delete it" \
  "$(cat "$TESTDIR/stderr")"
# the gpu time comes from merging the op links with a scan of rocpd_op
# when the links' op ids rise (that scan checks every op), else from a
# join: both give the same rows, a link to a missing op counts nothing,
# links out of order found late (past the first 4096, which are looked at
# first: the walk assumes the order and is run again) give every call its
# ops' time, and a bad op no call links is
# still found, in the middle or a few ops after the last link
cp in.rpd m.rpd; sqlite3 m.rpd "DELETE FROM rocpd_op WHERE id IN
  (SELECT op_id FROM rocpd_api_ops WHERE rowid % 13 = 5)"
cp m.rpd j.rpd; sqlite3 j.rpd "BEGIN; CREATE TEMP TABLE l AS SELECT * FROM rocpd_api_ops;
  DELETE FROM rocpd_api_ops; INSERT INTO rocpd_api_ops(api_id, op_id) SELECT api_id, op_id FROM l ORDER BY op_id DESC;
  COMMIT"
check_eq "merge path taken (op ids rise in m.rpd, not in j.rpd)" "0 1" \
  "$(q m.rpd "SELECT count(*) FROM (SELECT op_id <= lag(op_id) OVER (ORDER BY rowid) AS d FROM rocpd_api_ops) WHERE d") $(q j.rpd "SELECT count(*) > 0 FROM (SELECT op_id <= lag(op_id) OVER (ORDER BY rowid) AS d FROM rocpd_api_ops) WHERE d")"
rpd-synth --seed 7 --api 12000 --schema 2 -o late.rpd >/dev/null
check_eq "late.rpd: over 4096 links (past the first look at their order)" 1 \
  "$(q late.rpd "SELECT count(*) > 4096 FROM rocpd_api_ops")"
sqlite3 late.rpd "CREATE TEMP TABLE l AS SELECT rowid AS r, op_id FROM rocpd_api_ops ORDER BY rowid DESC LIMIT 2;
  UPDATE rocpd_api_ops SET op_id = (SELECT op_id FROM l WHERE r <> rocpd_api_ops.rowid)
  WHERE rowid IN (SELECT r FROM l)"
rpd-callstack m.rpd >/dev/null 2>&1; rpd-callstack j.rpd >/dev/null 2>&1
check_rc "links out of order at the end: exit 0" 0 rpd-callstack late.rpd
for f in m j late; do
  check_eq "$f.rpd: every call's gpu_time is its ops' time" "0 $(q $f.rpd "SELECT count(*) FROM rocpd_api")" \
    "$(q $f.rpd "SELECT count(*) FROM ext_callstack C LEFT JOIN (SELECT A.api_id, sum(B.end - B.start) AS g
      FROM rocpd_api_ops A JOIN rocpd_op B ON B.id = A.op_id GROUP BY A.api_id) G ON G.api_id = C.child_id
      WHERE C.depth = 0 AND C.gpu_time <> coalesce(G.g, 0)") $(q $f.rpd "SELECT count(*) FROM ext_callstack WHERE depth = 0")"
done
check_eq "merge and join: same rows" \
  "$(q j.rpd "SELECT count(*), sum(gpu_time), sum(id * (parent_id + 3 * child_id + 5 * depth + 7 * cpu_time + 11 * gpu_time)) FROM ext_callstack")" \
  "$(q m.rpd "SELECT count(*), sum(gpu_time), sum(id * (parent_id + 3 * child_id + 5 * depth + 7 * cpu_time + 11 * gpu_time)) FROM ext_callstack")"
check_eq "merge: a link to a missing op counts nothing" \
  "$(q m.rpd "SELECT sum(B.end - B.start) FROM rocpd_api_ops A JOIN rocpd_op B ON B.id = A.op_id")" \
  "$(q m.rpd "SELECT sum(gpu_time) FROM ext_callstack WHERE depth = 0")"
for c in "after the last link:id = (SELECT max(id) FROM rocpd_op):op_id >= (SELECT max(id) - 2 FROM rocpd_op)" \
         "in the middle:id = (SELECT min(op_id) FROM rocpd_api_ops WHERE api_id > 100):op_id IN (SELECT id FROM rocpd_op WHERE start > end)"; do
  what=${c%%:*}; rest=${c#*:}; where=${rest%%:*}; unlink=${rest#*:}
  cp in.rpd g.rpd; sqlite3 g.rpd "UPDATE rocpd_op SET start = end + 1 WHERE $where;
    DELETE FROM rocpd_api_ops WHERE $unlink"
  before=$(sha g.rpd)
  check_rc "an unlinked bad op $what: exit 1" 1 rpd-callstack g.rpd
  check_eq "an unlinked bad op $what: message" "rpd-callstack: 'g.rpd': rocpd_op.end: 1 row ends before it starts; fix or delete it" \
    "$(cat "$TESTDIR/stderr")"
  check_eq "an unlinked bad op $what: unchanged" "$before" "$(sha g.rpd)"
done
# stdout full after the commit: exit 1, one line, the call stack committed
if [ -c /dev/full ]; then
  cp in.rpd full.rpd
  check_rc "stdout full: exit 1" 1 sh -c 'rpd-callstack full.rpd >/dev/full'
  check_eq "stdout full: message" \
    "rpd-callstack: 'full.rpd': results committed, but the summary could not be written (cannot write standard output: no space left on device)" \
    "$(cat "$TESTDIR/stderr")"
  check_eq "stdout full: committed" 1 "$(q full.rpd "SELECT count(*) > 0 FROM ext_callstack")"
fi
