#!/bin/sh
# rpd-strings: every view returns the same content before and after
# --dedupe (with duplicates planted in every kind of referencing column,
# including the metadata-declared ext_autogradapi.autogradName_id); exact
# counts; kept ids stable; --clean-autograd; --vacuum; dry run; re-run;
# bad input; kill -9.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

# one line per view: name and a hash of its sorted content.  Views that
# show string ids (_*) are left out; autogradKernel groups by string id, so
# duplicates split its groups: it is compared as totals per name.
views() {
  for v in $(q "$1" "SELECT name FROM sqlite_master WHERE type = 'view' AND name NOT LIKE '\_%' ESCAPE '\\' ORDER BY name"); do
    sql="SELECT * FROM \"$v\""
    [ "$v" = autogradKernel ] && sql="SELECT autogradName, kernelName, sizes, sum(calls), sum(total_gpu) FROM autogradKernel GROUP BY 1, 2, 3"
    # opClass lists opType string ids: compared by (opType, class)
    [ "$v" = opClass ] && sql="SELECT DISTINCT opType, class FROM opClass"
    echo "$v $(q "$1" "$sql" | sort | sha256sum | cut -c1-16) $(q "$1" "$sql" | wc -l)"
  done
}
# references to missing strings over the usual columns
dangling() {
  q "$1" "SELECT (SELECT count(*) FROM rocpd_api WHERE apiName_id NOT IN (SELECT id FROM rocpd_string))
   + (SELECT count(*) FROM rocpd_api WHERE args_id NOT IN (SELECT id FROM $2))
   + (SELECT count(*) FROM rocpd_op WHERE description_id NOT IN (SELECT id FROM rocpd_string))
   + (SELECT count(*) FROM rocpd_op WHERE opType_id NOT IN (SELECT id FROM rocpd_string))
   + (SELECT count(*) FROM rocpd_kernelapi WHERE kernelName_id NOT IN (SELECT id FROM rocpd_string))
   + (SELECT count(*) FROM ext_autogradapi WHERE autogradName_id NOT IN (SELECT id FROM rocpd_string))"
}

for schema in 2 3; do
  f=gen$schema.rpd
  [ $schema = 2 ] && args=rocpd_string || args=rocpd_ustring
  rpd-synth --seed 11 --api 3000 --schema $schema -o $f >/dev/null
  rpd-autograd $f >/dev/null
  # plant: a duplicate of every string (ids + 100000), used by every other
  # row of each referencing column, plus 5 unreferenced strings
  sqlite3 $f "BEGIN;
    INSERT INTO rocpd_string(id, string) SELECT id + 100000, string FROM rocpd_string WHERE id < 100000;
    INSERT INTO rocpd_string(id, string) VALUES (300001, 'junk1'), (300002, 'junk2'), (300003, 'junk3'), (300004, 'junk4'), (300005, 'junk5');
    UPDATE rocpd_api SET apiName_id = apiName_id + 100000 WHERE id % 2 = 0;
    UPDATE rocpd_op SET description_id = description_id + 100000, opType_id = opType_id + 100000 WHERE id % 2 = 1;
    UPDATE rocpd_kernelapi SET kernelName_id = kernelName_id + 100000 WHERE api_ptr_id % 3 = 0;
    UPDATE ext_autogradapi SET autogradName_id = autogradName_id + 100000 WHERE api_ptr_id % 2 = 1;
    COMMIT;"
  [ $schema = 3 ] && sqlite3 $f "INSERT INTO rocpd_ustring(string) SELECT string FROM rocpd_ustring; UPDATE rocpd_api SET args_id = (SELECT max(id) FROM rocpd_ustring u WHERE u.string = (SELECT string FROM rocpd_ustring WHERE id = args_id)) WHERE id % 2 = 0;"
  views $f >before$schema.txt
  n_s=$(q $f "SELECT count(*) FROM rocpd_string")
  keep_s=$(q $f "SELECT count(DISTINCT string) FROM rocpd_string WHERE id IN (SELECT apiName_id FROM rocpd_api UNION SELECT description_id FROM rocpd_op UNION SELECT opType_id FROM rocpd_op UNION SELECT kernelName_id FROM rocpd_kernelapi UNION SELECT autogradName_id FROM ext_autogradapi $( [ $schema = 2 ] && echo 'UNION SELECT args_id FROM rocpd_api' ) $( [ $schema = 3 ] && echo 'UNION SELECT domain_id FROM rocpd_api UNION SELECT category_id FROM rocpd_api' ))")
  n_u=$(q $f "SELECT count(*) FROM rocpd_ustring" 2>/dev/null || echo 0)
  keep_u=$(q $f "SELECT count(DISTINCT string) FROM rocpd_ustring WHERE id IN (SELECT args_id FROM rocpd_api)" 2>/dev/null || echo 0)
  check_eq "v$schema: planted duplicates are in use" 1 \
    "$(q $f 'SELECT count(*) > 100 FROM rocpd_api WHERE apiName_id > 100000')"
  fbefore=$(sha $f)
  check_rc "v$schema: dry run exit 0" 0 rpd-strings $f
  check_eq "v$schema: dry run leaves the file alone" "$fbefore" "$(sha $f)"
  check_eq "v$schema: dry run counts rocpd_string" 1 \
    "$(grep -c "rocpd_string: would remove $((n_s - keep_s)) rows" "$TESTDIR/stdout")"
  check_rc "v$schema: --dedupe exit 0" 0 rpd-strings $f --dedupe
  check_eq "v$schema: rocpd_string rows removed (reported)" 1 \
    "$(grep -c "rocpd_string: removed $((n_s - keep_s)) rows" "$TESTDIR/stdout")"
  check_eq "v$schema: rocpd_string rows left" "$keep_s" "$(q $f 'SELECT count(*) FROM rocpd_string')"
  if [ $schema = 3 ]; then
    check_eq "v3: rocpd_ustring rows removed (reported)" 1 \
      "$(grep -c "rocpd_ustring: removed $((n_u - keep_u)) rows" "$TESTDIR/stdout")"
    check_eq "v3: rocpd_ustring rows left" "$keep_u" "$(q $f 'SELECT count(*) FROM rocpd_ustring')"
  fi
  check_eq "v$schema: no duplicate strings left" 0 \
    "$(q $f "SELECT count(*) - count(DISTINCT string) FROM rocpd_string")"
  check_eq "v$schema: kept ids unchanged (all below the planted copies)" 0 \
    "$(q $f "SELECT count(*) FROM rocpd_string WHERE id > 100000")"
  check_eq "v$schema: no dangling references" 0 "$(dangling $f $args)"
  views $f >after$schema.txt
  check_eq "v$schema: the trace has views to compare" 1 "$(awk '$3 > 0' before$schema.txt | grep -c -E '^(api|autograd|autogradKernel|callStack_inclusive_name|kernel|op) ' | awk '{print ($1 >= 6)}')"
  same_file "v$schema: every view has the same content after --dedupe" before$schema.txt after$schema.txt
  check_rc "v$schema: re-run exit 0" 0 rpd-strings $f --dedupe
  check_eq "v$schema: re-run removes nothing" 1 "$(grep -c 'rocpd_string: removed 0 rows' "$TESTDIR/stdout")"
  size1=$(wc -c <$f)
  check_rc "v$schema: --clean-autograd --vacuum exit 0" 0 rpd-strings $f --clean-autograd --vacuum
  check_eq "v$schema: no autograd tails left in args" 0 \
    "$(q $f "SELECT count(*) FROM api WHERE args LIKE '%, op_id = %' OR args LIKE '%, seq = %'")"
  check_eq "v$schema: marker args are the operator names" 0 \
    "$(q $f "SELECT count(*) FROM autograd g JOIN api a ON a.id = g.id WHERE a.args <> g.autogradName")"
  sed -E '/^(n?api|autograd|autogradKernel|_|callStack_(inclusive|exclusive)_name)/d' before$schema.txt >b2.txt
  views $f | sed -E '/^(n?api|autograd|autogradKernel|_|callStack_(inclusive|exclusive)_name)/d' >a2.txt
  same_file "v$schema: views without args unchanged by --clean-autograd" b2.txt a2.txt
  check_eq "v$schema: autograd view unchanged by --clean-autograd" "$(grep '^autograd ' before$schema.txt)" "$(views $f | grep '^autograd ')"
  check_eq "v$schema: --vacuum reports the real file size" 1 \
    "$(grep -c -- "-> $(wc -c <$f) bytes" "$TESTDIR/stdout")"
  check_eq "v$schema: --vacuum shrank the file" 1 "$( [ "$(wc -c <$f)" -lt "$size1" ] && echo 1)"
done

# ---------------------------------------------------------------- -o, bad input
rpd-synth --seed 2 --api 2000 --schema 3 -o in.rpd >/dev/null
before=$(sha in.rpd)
check_rc "-o OUT: exit 0" 0 rpd-strings in.rpd --dedupe -o out.rpd
check_eq "-o OUT: input unchanged, output deduped" "$before 0" \
  "$(sha in.rpd) $(q out.rpd 'SELECT count(*) - count(DISTINCT string) FROM rocpd_ustring')"
printf 'garbage\n' >notdb.rpd; before=$(sha notdb.rpd)
check_rc "bad: not sqlite exit 1" 1 rpd-strings notdb.rpd --dedupe
check_one_line "bad: not sqlite one line"
check_eq "bad: not sqlite unchanged" "$before" "$(sha notdb.rpd)"
check_rc "bad: unknown option exit 2" 2 rpd-strings in.rpd --dedup
check_rc "bad: two files exit 2" 2 rpd-strings in.rpd out.rpd
check_rc "bad: missing file exit 1" 1 rpd-strings nosuch.rpd --dedupe
check_one_line "bad: missing file one line"

# ---------------------------------------------------------------- kill -9
rpd-synth --seed 3 --api 300000 --schema 3 -o big.rpd >/dev/null
kill_test "kill -9" big.rpd rpd-strings big.rpd --dedupe

# ---------------------------------------------------------------- real traces
if need_shared "$TRACES/mytrace.rpd.gz"; then
  tmpcopy "$TRACES/mytrace.rpd.gz" my.rpd
  views my.rpd >before.txt
  check_rc "mytrace: --dedupe exit 0" 0 rpd-strings my.rpd --dedupe
  views my.rpd >after.txt
  same_file "mytrace: every view has the same content" before.txt after.txt
  check_eq "mytrace: no dangling references" 0 "$(dangling my.rpd rocpd_string)"
fi

# ---------------------------------------------------------------- contract
# older tracers wrote no rocpd_metadata: works all the same
rpd-synth --seed 8 --api 2000 --schema 2 -o nm.rpd >/dev/null
sqlite3 nm.rpd "DROP TABLE rocpd_metadata; INSERT INTO rocpd_string(string) VALUES ('orphan')"
check_rc "no rocpd_metadata: report exit 0" 0 rpd-strings nm.rpd
check "no rocpd_metadata: reports the orphan" grep -q "would remove 1 rows" "$TESTDIR/stdout"
check_rc "no rocpd_metadata: --dedupe exit 0" 0 rpd-strings nm.rpd --dedupe
check_eq "no rocpd_metadata: orphan removed" 0 "$(q nm.rpd "SELECT count(*) FROM rocpd_string WHERE string = 'orphan'")"
# -- ends the options
cp nm.rpd ./-nm.rpd
check_rc "-- then a name with a leading dash: exit 0" 0 rpd-strings --dedupe -- -nm.rpd
# results on a stdout that cannot be written: exit 1, one line
if [ -c /dev/full ]; then
  check_rc "stdout full: exit 1" 1 sh -c 'rpd-strings nm.rpd >/dev/full'
  check_one_line "stdout full: one line"
fi
# --vacuum on the user's file: VACUUM INTO + rename keeps the mode, leaves
# nothing behind, and the file is compacted
mkdir -p vac; rpd-synth --seed 8 --api 3000 --schema 3 -o vac/v.rpd >/dev/null
sqlite3 vac/v.rpd "CREATE TABLE junk(x); INSERT INTO junk SELECT randomblob(1000) FROM rocpd_api; DROP TABLE junk"
chmod 640 vac/v.rpd
check_rc "--vacuum: exit 0" 0 rpd-strings vac/v.rpd --vacuum
check_eq "--vacuum: no free pages" 0 "$(q vac/v.rpd 'PRAGMA freelist_count')"
check_eq "--vacuum: mode kept" 640 "$(stat -c %a vac/v.rpd)"
check_eq "--vacuum: nothing left next to the file" "v.rpd" "$(ls -A vac | tr '\n' ' ' | sed 's/ $//')"
