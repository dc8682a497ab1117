#!/bin/sh
# rpd-subclass: args -> columns on v2 and v3, op descriptions, types,
# idempotence, never touching the trace's own tables, bad input.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

sum() { cksum <"$1"; }
cols() { q "$1" "SELECT group_concat(name || ':' || type, ',') FROM pragma_table_info('$2')"; }

for schema in 2 3; do
  f="t$schema.rpd"
  rpd-synth --seed 9 --api 4000 --gpus 2 --threads 3 --graphs 3 --schema "$schema" -o "$f" >/dev/null
  nlaunch=$(q "$f" "SELECT count(*) FROM rocpd_api A JOIN rocpd_string S ON S.id = A.apiName_id WHERE S.string = 'hipGraphLaunch'")
  check_rc "v$schema: launches: exit 0" 0 rpd-subclass "$f" --name launch --events hipGraphLaunch
  check_eq "v$schema: summary line" "rpd-subclass: rocpd_launchapi: $nlaunch rows" "$(cat "$TESTDIR/stdout")"
  check_eq "v$schema: one row per launch" "$nlaunch" "$(q "$f" "SELECT count(*) FROM rocpd_launchapi")"
  check_eq "v$schema: columns are the args keys" "api_ptr_id:INTEGER,graphExec:varchar(255),stream:varchar(255)" \
    "$(cols "$f" rocpd_launchapi)"
  check_eq "v$schema: values are the args values" 0 \
    "$(q "$f" "SELECT count(*) FROM launchapi WHERE args != 'graphExec = ' || graphExec || ' | stream = ' || stream")"
  check_eq "v$schema: view joins every row" "$nlaunch" "$(q "$f" "SELECT count(*) FROM launchapi")"

  # several events, a typed column, '' where a call lacks a key
  check_rc "v$schema: captures with --type: exit 0" 0 rpd-subclass "$f" --name=cap \
    --events "hipStreamBeginCapture, hipStreamEndCapture" --type mode=integer --type "stream=varchar(18)"
  check_eq "v$schema: union of keys, typed" \
    "api_ptr_id:INTEGER,stream:varchar(18),mode:INTEGER,graph:varchar(255)" "$(cols "$f" rocpd_capapi)"
  check_eq "v$schema: begin rows lack graph, end rows lack mode" "3|3|3|3" \
    "$(q "$f" "SELECT sum(graph = ''), sum(mode = ''), sum(mode = 0 AND typeof(mode) = 'integer'), count(DISTINCT graph) - 1 FROM rocpd_capapi")"
  check_eq "v$schema: done tag" True "$(q "$f" "SELECT value FROM rocpd_metadata WHERE tag = 'Subclass::rocpd_capapi'")"

  # idempotence
  before=$(sum "$f")
  check_rc "v$schema: rerun: exit 0" 0 rpd-subclass "$f" --name cap --events hipStreamBeginCapture
  check "v$schema: rerun: says already" grep -q already "$TESTDIR/stderr"
  check_eq "v$schema: rerun: unchanged" "$before" "$(sum "$f")"
  q "$f" "SELECT * FROM rocpd_launchapi" >"$TESTDIR/a"
  check_rc "v$schema: --force: exit 0" 0 rpd-subclass "$f" --force --name launch --events hipGraphLaunch
  q "$f" "SELECT * FROM rocpd_launchapi" >"$TESTDIR/b"
  same_file "v$schema: --force: same rows" "$TESTDIR/a" "$TESTDIR/b"
done

# the trace's own tables are never replaced or dropped
before=$(sum t3.rpd); ncopy=$(q t3.rpd "SELECT count(*) FROM rocpd_copyapi")
check_rc "name clash with rocpd_copyapi: exit 1" 1 rpd-subclass t3.rpd --name copy --events hipMemcpyAsync
check_one_line "name clash: one line"
check_eq "name clash: unchanged" "$before" "$(sum t3.rpd)"
check_rc "name clash with --force: exit 1" 1 rpd-subclass t3.rpd --force --name copy --events hipMemcpyAsync
check_eq "name clash with --force: rocpd_copyapi intact" "$ncopy" "$(q t3.rpd "SELECT count(*) FROM rocpd_copyapi")"

# ops: the description is parsed; keys differing only in case share a column;
# s_api/s_op are not columns, nor is a segment without '=' (the reference
# makes an always-empty column named after the segment: docs)
sqlite3 t3.rpd "INSERT INTO rocpd_string(string) VALUES ('MyCopy'), ('bytes = 64 | dir = H2D | s_op = x | no key here'), ('Bytes = 128 | queue = 3');
  UPDATE rocpd_op SET opType_id = (SELECT id FROM rocpd_string WHERE string = 'MyCopy'),
    description_id = (SELECT id FROM rocpd_string WHERE string LIKE 'bytes = 64%') WHERE id = 1;
  UPDATE rocpd_op SET opType_id = (SELECT id FROM rocpd_string WHERE string = 'MyCopy'),
    description_id = (SELECT id FROM rocpd_string WHERE string LIKE 'Bytes = 128%') WHERE id = 2;"
check_rc "op base: exit 0" 0 rpd-subclass t3.rpd --base op --name my --events MyCopy --type bytes=integer
check_eq "op base: columns" "op_ptr_id:INTEGER,bytes:INTEGER,dir:varchar(255),queue:varchar(255)" "$(cols t3.rpd rocpd_myop)"
check_eq "op base: rows" "1|64|H2D|
2|128||3" "$(q t3.rpd "SELECT * FROM rocpd_myop ORDER BY 1")"
check_eq "op base: no column for the segment without '='" "0" \
  "$(q t3.rpd "SELECT count(*) FROM pragma_table_info('rocpd_myop') WHERE name LIKE '%key%'")"
check_eq "op base: view has opType" "MyCopy|2" "$(q t3.rpd "SELECT opType, count(*) FROM myop GROUP BY 1")"

# no matching call: an empty table with only the pointer column
check_rc "no match: exit 0" 0 rpd-subclass t3.rpd --name none --events NoSuchApi
check_eq "no match: empty table" "0|api_ptr_id:INTEGER" \
  "$(q t3.rpd "SELECT count(*) FROM rocpd_noneapi")|$(cols t3.rpd rocpd_noneapi)"

# hostile values
before=$(sum t2.rpd)
check_rc "hostile --name: exit 2" 2 rpd-subclass t2.rpd --name 'x"; DROP TABLE rocpd_api; --' --events a
check_rc "hostile --type: exit 2" 2 rpd-subclass t2.rpd --name h --events a --type 'a=int); DROP TABLE rocpd_api; --'
for t in 'a=INTEGER DEFAULT 5' 'a=INTEGER REFERENCES rocpd_api(id) ON DELETE CASCADE' \
         'a=int NOT NULL' 'a=int CHECK(a > 0)' 'a=text COLLATE nocase' 'a=int PRIMARY KEY' \
         'a=varchar(18) x' 'a=varchar(1,2,3)' 'a=(5)' 'a=' 'a=int,b int'; do
  check_rc "--type '$t': exit 2" 2 rpd-subclass t2.rpd --name h --events a --type "$t"
  check "--type '$t': says why" grep -q "bad --type" "$TESTDIR/stderr"
done
check_rc "--type plain names: 'double precision', 'decimal(10, 5)', 'varchar( 18 )'" 0 \
  rpd-subclass t3.rpd --base op --name tp --events MyCopy --type "bytes=double precision" \
  --type "x=decimal(10, 5)" --type "y=varchar( 18 )"
check_eq "--type plain names: no constraint in the DDL" "0" \
  "$(q t3.rpd "SELECT count(*) FROM sqlite_master WHERE name = 'rocpd_tpapi' AND (sql LIKE '%DEFAULT%' OR sql LIKE '%REFERENCES%')")"
check_rc "bad --base: exit 2" 2 rpd-subclass t2.rpd --name h --events a --base kernel
check_rc "missing --name: exit 2" 2 rpd-subclass t2.rpd --events a
check_rc "missing --events: exit 2" 2 rpd-subclass t2.rpd --name h
check_rc "--events without value: exit 2" 2 rpd-subclass t2.rpd --name h --events
check_eq "bad options: unchanged" "$before" "$(sum t2.rpd)"
check_rc "event names are data, not SQL" 0 rpd-subclass t2.rpd --name q --events "a'); DROP TABLE rocpd_api; --"
check_eq "event names are data: rocpd_api intact" 4000 "$(q t2.rpd "SELECT count(*) FROM rocpd_api")"
printf 'junk' >junk.rpd; before=$(sum junk.rpd)
check_rc "not SQLite: exit 1" 1 rpd-subclass junk.rpd --name h --events a
check_one_line "not SQLite: one line"
check_eq "not SQLite: unchanged" "$before" "$(sum junk.rpd)"
