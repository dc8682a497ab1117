#!/bin/sh
# rpd-deserialize: s_api / s_op markers become api / op rows (v2 and v3),
# marker rows removed, other markers kept, idempotence, bad input.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

sum() { cksum <"$1"; }

# add_marker FILE APINAME ARGS START_OFFSET END_OFFSET: a marker call of
# pid 77 / tid 78, times relative to the first api call
add_marker() {
  if [ "$(q "$1" "SELECT count(*) FROM pragma_table_info('rocpd_api') WHERE name = 'domain_id'")" = 1 ]; then
    sqlite3 "$1" "INSERT INTO rocpd_ustring(string) VALUES ('$3');
      INSERT OR IGNORE INTO rocpd_string(string) SELECT '$2' WHERE NOT EXISTS (SELECT 1 FROM rocpd_string WHERE string = '$2');
      INSERT INTO rocpd_api(pid, tid, start, \"end\", apiName_id, args_id, category_id, domain_id)
        SELECT 77, 78, (SELECT min(start) FROM rocpd_api) + $4, (SELECT min(start) FROM rocpd_api) + $5,
          (SELECT id FROM rocpd_string WHERE string = '$2'), (SELECT max(id) FROM rocpd_ustring), category_id, domain_id
        FROM rocpd_api LIMIT 1;"
  else
    sqlite3 "$1" "INSERT INTO rocpd_string(string) VALUES ('$3');
      INSERT INTO rocpd_string(string) SELECT '$2' WHERE NOT EXISTS (SELECT 1 FROM rocpd_string WHERE string = '$2');
      INSERT INTO rocpd_api(pid, tid, start, \"end\", apiName_id, args_id)
        SELECT 77, 78, (SELECT min(start) FROM rocpd_api) + $4, (SELECT min(start) FROM rocpd_api) + $5,
          (SELECT id FROM rocpd_string WHERE string = '$2'),
          (SELECT max(id) FROM rocpd_string WHERE string = '$3');"
  fi
}

for schema in 2 3; do
  f="d$schema.rpd"
  rpd-synth --seed 4 --api 3000 --gpus 2 --schema "$schema" -o "$f" >/dev/null
  add_marker "$f" UserMarker 's_api = BlockAlloc | size = 1024 | block = 0x1' 1000 2000
  add_marker "$f" UserMarker 's_op = MyOp | gpuId = 1 | queueId = 2 | sequenceId = 7 | start = 5000 | end = 6000' 3000 4000
  add_marker "$f" UserMarker 's_op = MyOp2' 7000 9000
  add_marker "$f" UserMarker 's_api = Both | s_op = BothOp | gpuId = 3' 10000 11000
  add_marker "$f" UserMarker 'plain = 1' 12000 13000
  add_marker "$f" MyMarker 's_api = Other' 14000 15000
  napi=$(q "$f" "SELECT count(*) FROM rocpd_api"); nop=$(q "$f" "SELECT count(*) FROM rocpd_op")
  maxapi=$(q "$f" "SELECT max(id) FROM rocpd_api"); maxop=$(q "$f" "SELECT max(id) FROM rocpd_op")
  t0=$(q "$f" "SELECT min(start) FROM rocpd_api")
  nmarkers=$(q "$f" "SELECT count(*) FROM rocpd_api A JOIN rocpd_string S ON S.id = A.apiName_id WHERE S.string = 'UserMarker'")

  check_rc "v$schema: exit 0" 0 rpd-deserialize "$f"
  check_eq "v$schema: summary" "rpd-deserialize: $nmarkers markers read: 2 api calls and 3 ops promoted" "$(cat "$TESTDIR/stdout")"
  check_eq "v$schema: api rows: -4 markers +2 calls" "$((napi - 2))" "$(q "$f" "SELECT count(*) FROM rocpd_api")"
  check_eq "v$schema: op rows: +3" "$((nop + 3))" "$(q "$f" "SELECT count(*) FROM rocpd_op")"
  check_eq "v$schema: promoted api row" "$((maxapi + 1))|77|78|$((t0 + 1000))|$((t0 + 2000))|s_api = BlockAlloc | size = 1024 | block = 0x1" \
    "$(q "$f" "SELECT A.id, pid, tid, start, \"end\", args FROM api A WHERE apiName = 'BlockAlloc'")"
  check_eq "v$schema: api+op marker" "$((maxapi + 2))|$((t0 + 10000))" \
    "$(q "$f" "SELECT id, start FROM api WHERE apiName = 'Both'")"
  check_eq "v$schema: promoted ops" "$((maxop + 1))|1|2|7|5000|6000|MyOp|s_op = MyOp | gpuId = 1 | queueId = 2 | sequenceId = 7 | start = 5000 | end = 6000
$((maxop + 2))|0|0|0|$((t0 + 7000))|$((t0 + 9000))|MyOp2|s_op = MyOp2
$((maxop + 3))|3|0|0|$((t0 + 10000))|$((t0 + 11000))|BothOp|s_api = Both | s_op = BothOp | gpuId = 3" \
    "$(q "$f" "SELECT id, gpuId, queueId, sequenceId, start, \"end\", opType, description FROM op WHERE id > $maxop ORDER BY id")"
  check_eq "v$schema: numbers stored as integers" "integer|integer" \
    "$(q "$f" "SELECT DISTINCT typeof(gpuId), typeof(start) FROM rocpd_op WHERE id > $maxop")"
  check_eq "v$schema: marker rows removed" 0 \
    "$(q "$f" "SELECT count(*) FROM api WHERE apiName = 'UserMarker' AND (args LIKE 's\_api =%' ESCAPE '\\' OR args LIKE 's\_op =%' ESCAPE '\\')")"
  check_eq "v$schema: other markers kept" "$((nmarkers - 4))|1" \
    "$(q "$f" "SELECT count(*), sum(args = 'plain = 1') FROM api WHERE apiName = 'UserMarker'")"
  check_eq "v$schema: other apiNames untouched" "1" "$(q "$f" "SELECT count(*) FROM api WHERE apiName = 'MyMarker'")"

  # idempotence
  before=$(sum "$f")
  check_rc "v$schema: rerun: exit 0" 0 rpd-deserialize "$f"
  check "v$schema: rerun: says already" grep -q already "$TESTDIR/stderr"
  check_eq "v$schema: rerun: unchanged" "$before" "$(sum "$f")"
  check_rc "v$schema: --force rerun: exit 0" 0 rpd-deserialize --force "$f"
  check_eq "v$schema: --force rerun: nothing new" "$((napi - 2))|$((nop + 3))" \
    "$(q "$f" "SELECT (SELECT count(*) FROM rocpd_api), (SELECT count(*) FROM rocpd_op)")"

  # another marker api
  check_rc "v$schema: --api MyMarker: exit 0" 0 rpd-deserialize "$f" --api MyMarker
  check_eq "v$schema: --api MyMarker promoted" "0|1" \
    "$(q "$f" "SELECT (SELECT count(*) FROM api WHERE apiName = 'MyMarker'), (SELECT count(*) FROM api WHERE apiName = 'Other')")"

  # the promoted calls feed rpd-subclass as in the reference's example
  check_rc "v$schema: subclass of promoted calls" 0 rpd-subclass "$f" --name block --events BlockAlloc --type size=integer
  check_eq "v$schema: subclass row" "1024|0x1" "$(q "$f" "SELECT size, block FROM rocpd_blockapi")"
done

# -o leaves the input alone
rpd-synth --seed 4 --api 1000 -o in.rpd >/dev/null
add_marker in.rpd UserMarker 's_api = X' 10 20
before=$(sum in.rpd)
check_rc "-o OUT: exit 0" 0 rpd-deserialize in.rpd -o out.rpd
check_eq "-o OUT: input unchanged" "$before" "$(sum in.rpd)"
check_eq "-o OUT: output promoted" 1 "$(q out.rpd "SELECT count(*) FROM api WHERE apiName = 'X'")"

# bad input
inbefore=$(sum in.rpd)
printf 'junk' >junk.rpd; before=$(sum junk.rpd)
check_rc "not SQLite: exit 1" 1 rpd-deserialize junk.rpd
check_one_line "not SQLite: one line"
check_eq "not SQLite: unchanged" "$before" "$(sum junk.rpd)"
check_rc "--api without value: exit 2" 2 rpd-deserialize in.rpd --api
check_rc "unknown option: exit 2" 2 rpd-deserialize in.rpd --bogus
check_eq "usage errors: unchanged" "$inbefore" "$(sum in.rpd)"

# hostile s_op / s_api fields: validated, the marker skipped with a count
# and kept as it is; one summary line; good markers still promoted
for schema in 2 3; do
  f="h$schema.rpd"
  rpd-synth --seed 5 --api 1000 --schema "$schema" -o "$f" >/dev/null
  add_marker "$f" UserMarker 's_op = Bad1 | gpuId = 1e20' 10 20
  add_marker "$f" UserMarker 's_op = Bad2 | start = Inf' 10 20
  add_marker "$f" UserMarker 's_op = Bad3 | end = "nan"' 10 20
  add_marker "$f" UserMarker 's_op = Bad4 | queueId = 0x10' 10 20
  add_marker "$f" UserMarker 's_op = Bad5 | start = 6000 | end = 5000' 10 20
  add_marker "$f" UserMarker 's_op = ' 10 20
  add_marker "$f" UserMarker 's_api = "" | size = 1' 10 20
  add_marker "$f" UserMarker 's_api = Bad8 | s_op = X8 | sequenceId = -1' 10 20
  add_marker "$f" UserMarker 's_op = Bad9 | start = 99999999999999999999' 10 20
  add_marker "$f" UserMarker 's_op = Bad10 | gpuId = 2147483648' 10 20
  add_marker "$f" UserMarker 's_op = Bad11 | end = 4611686018427387904' 10 20
  add_marker "$f" UserMarker 's_op = Good | gpuId = 2147483647 | queueId = 0 | sequenceId = 9223372036854775807 | start = 5 | end = 5' 10 20
  add_marker "$f" UserMarker 's_api = GoodApi' 30 40
  nop=$(q "$f" "SELECT count(*) FROM rocpd_op")
  first=$(q "$f" "SELECT min(A.id) FROM rocpd_api A JOIN rocpd_string S ON S.id = A.apiName_id WHERE S.string = 'UserMarker' AND A.pid = 77")
  nmarkers=$(q "$f" "SELECT count(*) FROM rocpd_api A JOIN rocpd_string S ON S.id = A.apiName_id WHERE S.string = 'UserMarker'")
  check_rc "v$schema hostile fields: exit 0" 0 rpd-deserialize "$f"
  check_eq "v$schema hostile fields: one summary line with the count and the first reason" \
    "rpd-deserialize: $nmarkers markers read: 1 api calls and 1 ops promoted; 11 skipped (bad fields, kept as markers; first: marker $first: gpuId '1e20' is not an integer in 0..2147483647)" \
    "$(cat "$TESTDIR/stdout")"
  check_eq "v$schema hostile fields: nothing on stderr" "" "$(cat "$TESTDIR/stderr")"
  check_eq "v$schema hostile fields: only the good op added, exact values" \
    "$((nop + 1))|2147483647|0|9223372036854775807|5|5|integer" \
    "$(q "$f" "SELECT (SELECT count(*) FROM rocpd_op), gpuId, queueId, sequenceId, start, \"end\", typeof(start) FROM op WHERE opType = 'Good'")"
  check_eq "v$schema hostile fields: no bad op stored" 0 \
    "$(q "$f" "SELECT count(*) FROM op WHERE opType LIKE 'Bad%' OR opType IN ('X8', '') OR typeof(gpuId) <> 'integer' OR typeof(start) <> 'integer' OR \"end\" < start")"
  check_eq "v$schema hostile fields: skipped markers kept" 11 \
    "$(q "$f" "SELECT count(*) FROM api WHERE apiName = 'UserMarker' AND pid = 77")"
  check_eq "v$schema hostile fields: good api promoted" 1 "$(q "$f" "SELECT count(*) FROM api WHERE apiName = 'GoodApi'")"
done
