#!/bin/sh
# rpd-autograd: exact rows for hand-made markers of the four forms (and
# non-matching ones); generated v2/v3 traces; call-stack reuse and
# --skip-callstacks; golden autograd/autogradKernel of synth-small (v2 and a
# v3 copy) and mytrace; re-run/--force; bad input; kill -9.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

# sha, kill_test and to_v3 (rpd-schema --upgrade) come from tests/lib.sh

# ---------------------------------------------------------------- hand-made
rpd-synth --seed 1 --api 50 --schema 3 -o hand.rpd >/dev/null
sqlite3 hand.rpd "BEGIN; DELETE FROM rocpd_api; DELETE FROM rocpd_api_ops;
  DELETE FROM rocpd_kernelapi; DELETE FROM rocpd_copyapi;
  INSERT INTO rocpd_string(id, string) VALUES (900, 'UserMarker'), (901, 'hipMalloc');
  INSERT INTO rocpd_ustring(id, string) VALUES
   (9001, 'aten::mm, seq = 12, op_id = 5, sizes = [[2, 3], [3, 4]], input_op_ids = [1, 2]'),
   (9002, 'aten::add, op_id = 6, sizes = [[2]], input_op_ids = [5]'),
   (9003, 'aten::relu, seq = 7, op_id = 8'),
   (9004, 'aten::view, op_id = 9'),
   (9005, 'a, b, op_id = 10'),
   (9006, 'aten::x, seq = 3'),
   (9007, 'aten::y, op_id = 1x'),
   (9008, 'plain marker'),
   (9009, 'aten::z, op_id = 11'),
   (9010, 'aten::w, op_id = 12' || char(10)),
   (9011, 'aten::q, seq = 1, op_id = 2, sizes = , input_op_ids = ');
  INSERT INTO rocpd_api(id, pid, tid, start, end, apiName_id, category_id, domain_id, args_id)
   VALUES (1,1,1,0,10,900,900,900,9001), (2,1,1,20,30,900,900,900,9002),
   (3,1,1,40,50,900,900,900,9003), (4,1,1,60,70,900,900,900,9004),
   (5,1,1,80,90,900,900,900,9005), (6,1,1,100,110,900,900,900,9006),
   (7,1,1,120,130,900,900,900,9007), (8,1,1,140,150,900,900,900,9008),
   (9,1,1,160,170,901,901,901,9009), (10,1,1,180,190,900,900,900,9010),
   (11,1,1,200,210,900,900,900,9011);
  COMMIT;"
check_rc "hand: exit 0" 0 rpd-autograd hand.rpd --skip-callstacks
check_eq "hand: summary (2 unmatched: 'seq' without op_id, bad op_id)" \
  "rpd-autograd: 9 autograd markers, 7 rows, 2 unmatched (first: api id 6); call stack skipped" \
  "$(cat "$TESTDIR/stdout")"
cat >expect.txt <<'EOF'
1|aten::mm|12|5|[[2, 3], [3, 4]]|[1, 2]|integer|integer
2|aten::add||6|[[2]]|[5]|text|integer
3|aten::relu|7|8|||integer|integer
4|aten::view||9|||text|integer
5|a, b||10|||text|integer
10|aten::w||12|||text|integer
11|aten::q|1|2|||integer|integer
EOF
q hand.rpd "SELECT A.api_ptr_id, S.string, A.seq, A.op_id, A.sizes, A.input_op_ids,
  typeof(A.seq), typeof(A.op_id) FROM ext_autogradapi A JOIN rocpd_string S
  ON S.id = A.autogradName_id ORDER BY 1" >got.txt
same_file "hand: rows of the four forms, '' for missing fields" expect.txt got.txt
check_eq "hand: view autograd" "1|1|1|0|10|aten::mm|12|5" \
  "$(q hand.rpd 'SELECT id, pid, tid, start, end, autogradName, seq, op_id FROM autograd WHERE id = 1')"
check_eq "hand: calls stay UserMarker, others untouched" "900 900 900 900 900 900 900 900 901 900 900" \
  "$(q hand.rpd 'SELECT apiName_id FROM rocpd_api ORDER BY id' | tr '\n' ' ' | sed 's/ $//')"
check_eq "hand: metadata" '("ext_autogradapi", "autogradName_id")|1 True True' \
  "$(q hand.rpd "SELECT (SELECT value FROM rocpd_metadata WHERE tag = 'references::rocpd_string.id'), (SELECT count(*) FROM rocpd_metadata WHERE tag = 'references::rocpd_string.id')" ) $(q hand.rpd "SELECT value FROM rocpd_metadata WHERE tag = 'Autograd::Table'") $(q hand.rpd "SELECT value FROM rocpd_metadata WHERE tag = 'Autograd::Generated'")"
check_eq "hand: --skip-callstacks makes no call stack" "0 0" \
  "$(q hand.rpd "SELECT count(*) FROM sqlite_master WHERE name IN ('ext_callstack', 'autogradKernel')") $(q hand.rpd "SELECT count(*) FROM rocpd_metadata WHERE tag LIKE 'Callstack::%'")"

# ---------------------------------------------------------------- generated
for schema in 2 3; do
  f=gen$schema.rpd
  rpd-synth --seed 5 --api 4000 --schema $schema -o $f >/dev/null
  um=$(q $f "SELECT count(*) FROM rocpd_api A JOIN rocpd_string S ON S.id = A.apiName_id WHERE S.string = 'UserMarker'")
  want=$(q $f "SELECT count(*) FROM api WHERE apiName = 'UserMarker' AND args LIKE '%, op_id = %'")
  check_rc "v$schema: exit 0" 0 rpd-autograd $f
  check_eq "v$schema: one row per autograd marker" "$want" "$(q $f 'SELECT count(*) FROM ext_autogradapi')"
  check_eq "v$schema: fields rebuild the marker text" "$want" \
    "$(q $f "SELECT count(*) FROM autograd g JOIN api a ON a.id = g.id WHERE a.args =
       g.autogradName || CASE WHEN g.seq <> '' THEN ', seq = ' || g.seq ELSE '' END
       || ', op_id = ' || g.op_id || CASE WHEN g.sizes <> '' OR g.input_op_ids <> ''
       THEN ', sizes = ' || g.sizes || ', input_op_ids = ' || g.input_op_ids ELSE '' END")"
  check_eq "v$schema: still $um UserMarker calls" "$um" \
    "$(q $f "SELECT count(*) FROM rocpd_api A JOIN rocpd_string S ON S.id = A.apiName_id WHERE S.string = 'UserMarker'")"
  check_eq "v$schema: call stack built" 1 "$(grep -c 'call stack built' "$TESTDIR/stdout")"
  check_eq "v$schema: autogradKernel = kernels directly under an operator" \
    "$(q $f "SELECT count(*), sum(gpu_time) FROM ext_callstack e JOIN ext_autogradapi g ON g.api_ptr_id = e.parent_id JOIN rocpd_kernelapi k ON k.api_ptr_id = e.child_id WHERE e.depth = 1")" \
    "$(q $f 'SELECT sum(calls), sum(total_gpu) FROM autogradKernel')"
  check_eq "v$schema: autogradKernel not empty" 1 "$(q $f 'SELECT count(*) > 3 FROM autogradKernel')"
done
check_eq "v2 and v3 give the same autogradKernel" "" \
  "$(q gen2.rpd "ATTACH 'gen3.rpd' AS b; SELECT * FROM autogradKernel EXCEPT SELECT * FROM b.autogradKernel")"

# ---------------------------------------------------------------- reuse, re-run, --force
rpd-synth --seed 5 --api 4000 --schema 3 -o reuse.rpd >/dev/null
rpd-callstack reuse.rpd >/dev/null
rows=$(q reuse.rpd "SELECT count(*) FROM ext_callstack")
check_rc "reuse: exit 0" 0 rpd-autograd reuse.rpd
check_eq "reuse: call stack reused, not duplicated" "1 $rows" \
  "$(grep -c 'call stack reused' "$TESTDIR/stdout") $(q reuse.rpd 'SELECT count(*) FROM ext_callstack')"
before=$(sha reuse.rpd); n=$(q reuse.rpd "SELECT count(*) FROM ext_autogradapi")
check_rc "re-run: exit 0" 0 rpd-autograd reuse.rpd
check_eq "re-run: says already done, file unchanged" "1 $before" \
  "$(grep -c 'already has autograd data' "$TESTDIR/stderr") $(sha reuse.rpd)"
check_rc "--force: exit 0" 0 rpd-autograd reuse.rpd --force
check_eq "--force: same rows, one metadata row each" "$n 1 1 1 $rows" \
  "$(q reuse.rpd "SELECT count(*) FROM ext_autogradapi") $(q reuse.rpd "SELECT count(*) FROM rocpd_metadata WHERE tag = 'references::rocpd_string.id'") $(q reuse.rpd "SELECT count(*) FROM rocpd_metadata WHERE tag = 'Autograd::Table'") $(q reuse.rpd "SELECT count(*) FROM rocpd_metadata WHERE tag = 'Autograd::Generated'") $(q reuse.rpd 'SELECT count(*) FROM ext_callstack')"

# ---------------------------------------------------------------- bad input
printf 'not a database at all\n' >notdb.rpd
before=$(sha notdb.rpd)
check_rc "bad: not sqlite exit 1" 1 rpd-autograd notdb.rpd
check_one_line "bad: not sqlite one line"
check_eq "bad: not sqlite unchanged" "$before" "$(sha notdb.rpd)"
check_rc "bad: unknown option exit 2" 2 rpd-autograd gen2.rpd --skip
check_rc "bad: missing file exit 1" 1 rpd-autograd nosuch.rpd
check_one_line "bad: missing file one line"

# ---------------------------------------------------------------- kill -9
rpd-synth --seed 3 --api 700000 --schema 2 -o big.rpd >/dev/null
kill_test "kill -9" big.rpd rpd-autograd big.rpd

# ---------------------------------------------------------------- golden
# autograd: (api_ptr_id, autogradName, seq, op_id, sizes, input_op_ids) as
# text; autogradKernel: avg_gpu compared to 1e-9 relative.
golden_check() { # NAME TRACE GOLDENDIR
  rm -f cmp.db
  for f in autograd autogradKernel; do
    gzip -dc "$3/$f.csv.gz" | tr -d '\r' >"$TESTDIR/$f.csv"
    printf '.mode csv\n.import %s g_%s\n' "$TESTDIR/$f.csv" "$f" | sqlite3 cmp.db
  done
  check_eq "$1: autograd = golden" "0 $(q cmp.db 'SELECT count(*) FROM g_autograd')" \
    "$(q cmp.db "ATTACH '$2' AS t; SELECT (SELECT count(*) FROM (
       SELECT api_ptr_id + 0, autogradName, seq, op_id, sizes, input_op_ids FROM g_autograd
       EXCEPT SELECT id, autogradName, CAST(seq AS TEXT), CAST(op_id AS TEXT), sizes, input_op_ids FROM t.autograd))
       + (SELECT count(*) FROM (SELECT id, autogradName, CAST(seq AS TEXT), CAST(op_id AS TEXT), sizes, input_op_ids FROM t.autograd
       EXCEPT SELECT api_ptr_id + 0, autogradName, seq, op_id, sizes, input_op_ids FROM g_autograd)),
       (SELECT count(*) FROM t.autograd)" | tr '|' ' ')"
  check_eq "$1: autogradKernel = golden" "0 $(q cmp.db 'SELECT count(*) FROM g_autogradKernel')" \
    "$(q cmp.db "ATTACH '$2' AS t; SELECT (SELECT count(*) FROM g_autogradKernel g WHERE NOT EXISTS (
       SELECT 1 FROM t.autogradKernel x WHERE x.autogradName = g.autogradName AND x.kernelName = g.kernelName
       AND x.sizes = g.sizes AND x.calls = g.calls + 0 AND x.total_gpu = g.total_gpu + 0
       AND abs(x.avg_gpu - g.avg_gpu) <= 1e-9 * abs(g.avg_gpu))),
       (SELECT count(*) FROM t.autogradKernel)" | tr '|' ' ')"
}
if need_shared "$TRACES/synth-small.rpd"; then
  tmpcopy "$TRACES/synth-small.rpd" ss2.rpd
  check_rc "synth-small v2: exit 0" 0 rpd-autograd ss2.rpd
  golden_check "synth-small v2" ss2.rpd "$GOLDEN/synth-small"
  to_v3 "$TRACES/synth-small.rpd" ss3.rpd
  check_eq "synth-small v3 copy is schema 3" 1 "$(q ss3.rpd "SELECT count(*) FROM pragma_table_info('rocpd_api') WHERE name = 'domain_id'")"
  check_rc "synth-small v3: exit 0" 0 rpd-autograd ss3.rpd
  golden_check "synth-small v3" ss3.rpd "$GOLDEN/synth-small"
fi
if need_shared "$TRACES/mytrace.rpd.gz"; then
  tmpcopy "$TRACES/mytrace.rpd.gz" my.rpd
  # issue 11.8: its markers were cleaned (rpd-strings --clean-autograd), so
  # --force cannot rebuild its 11,816 rows: it refuses and keeps them
  before=$(sha my.rpd)
  check_rc "mytrace: --force on cleaned markers exit 1" 1 rpd-autograd my.rpd --force
  check_one_line "mytrace: --force on cleaned markers one line"
  check_eq "mytrace: --force says why" \
    "rpd-autograd: 'my.rpd': the markers yield 0 autograd rows but ext_autogradapi has 11816 (markers cleaned with rpd-strings --clean-autograd?); the existing rows are kept" \
    "$(cat "$TESTDIR/stderr")"
  check_eq "mytrace: --force keeps the file byte-identical" "$before" "$(sha my.rpd)"
  check_eq "mytrace: rows kept" 11816 "$(q my.rpd 'SELECT count(*) FROM ext_autogradapi')"
  # the reference rebuilds to 0 rows (the golden); so do we once the user
  # dropped the table on purpose
  sqlite3 my.rpd "DROP VIEW IF EXISTS autograd; DROP TABLE ext_autogradapi;
    DELETE FROM rocpd_metadata WHERE tag IN ('Autograd::Table', 'Autograd::Generated')"
  check_rc "mytrace: after a deliberate drop exit 0" 0 rpd-autograd my.rpd
  check_eq "mytrace: cleaned markers: no autograd rows, call stack reused" \
    "rpd-autograd: 0 autograd markers, 0 rows, 0 unmatched; call stack reused" "$(cat "$TESTDIR/stdout")"
  golden_check "mytrace" my.rpd "$GOLDEN/mytrace"
fi

# issue 12: a user's own ext_autogradapi (other columns) is never dropped,
# not even with --force: one line, the file as it was
rpd-synth --seed 2 --api 3000 -o owna.rpd >/dev/null 2>&1
sqlite3 owna.rpd "CREATE TABLE ext_autogradapi(id INTEGER, what TEXT); INSERT INTO ext_autogradapi VALUES (1, 'mine')"
before=$(sha owna.rpd)
for force in "" --force; do
  check_rc "own ext_autogradapi $force: exit 1" 1 rpd-autograd owna.rpd $force
  check_eq "own ext_autogradapi $force: message" \
    "rpd-autograd: 'owna.rpd': table ext_autogradapi exists with other columns (id, what); it was not written by rpdtools: rename or drop it yourself" \
    "$(cat "$TESTDIR/stderr")"
  check_eq "own ext_autogradapi $force: unchanged" "$before" "$(sha owna.rpd)"
done
# the reference's interrupted run (table, no done tag) is ours: rebuilt
cp owna.rpd ref.rpd; sqlite3 ref.rpd "DROP TABLE ext_autogradapi"
rpd-autograd ref.rpd --skip-callstacks >/dev/null 2>&1
sqlite3 ref.rpd "DELETE FROM rocpd_metadata WHERE tag = 'Autograd::Generated'"
n=$(q ref.rpd 'SELECT count(*) FROM ext_autogradapi')
check_rc "interrupted run: rebuilt, exit 0" 0 rpd-autograd ref.rpd --skip-callstacks
check_eq "interrupted run: same rows" "$n" "$(q ref.rpd 'SELECT count(*) FROM ext_autogradapi')"

# ---------------------------------------------------------------- garbage values
# the trace check runs in the call stack's scans (or its own with
# --skip-callstacks): the same one line, the input unchanged
rpd-synth --seed 3 --api 3000 -o gv.rpd >/dev/null
sqlite3 gv.rpd "UPDATE rocpd_api SET start = 'soon' WHERE id % 97 = 5"
n=$(q gv.rpd "SELECT count(*) FROM rocpd_api WHERE id % 97 = 5")
for opt in "" --skip-callstacks; do
  before=$(sha gv.rpd)
  check_rc "garbage rocpd_api.start ${opt:-(call stack built)}: exit 1" 1 rpd-autograd gv.rpd $opt
  check_eq "garbage rocpd_api.start ${opt:-(call stack built)}: message" \
    "rpd-autograd: 'gv.rpd': rocpd_api.start: $n rows are not integers (text, real, blob or null); fix or delete those rows" \
    "$(cat "$TESTDIR/stderr")"
  check_eq "garbage rocpd_api.start ${opt:-(call stack built)}: unchanged" "$before" "$(sha gv.rpd)"
done
rpd-synth --seed 3 --api 3000 -o gv.rpd --force >/dev/null
sqlite3 gv.rpd "UPDATE rocpd_op SET end = start - 1 WHERE id = 4"
check_rc "garbage rocpd_op.end: exit 1" 1 rpd-autograd gv.rpd
check_eq "garbage rocpd_op.end: message" \
  "rpd-autograd: 'gv.rpd': rocpd_op.end: 1 row ends before it starts; fix or delete it" "$(cat "$TESTDIR/stderr")"
