#!/bin/sh
# tests/tools/rpd-metadata.sh - list/get/set/clear of rocpd_metadata, bad input.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
ROOT=$(cd "$here/../.." && pwd)
M=rpd-metadata
CR=$(printf '\r')

# fresh traces from the schema files (no ../shared needed)
sqlite3 t3.rpd <"$ROOT/views/schema.sql" || exit 1
sqlite3 t2.rpd <"$ROOT/views/schema.v2.sql" || exit 1
q t3.rpd "INSERT INTO rocpd_metadata(tag, value) VALUES ('note', 'two words')"

check_rc "--help exits 0" 0 $M --help
check "--help prints the usage" grep -q '^usage: rpd-metadata FILE' "$TESTDIR/stdout"

check_rc "list (default) exits 0" 0 $M t3.rpd
check_eq "list table" "tag             value
--------------  ---------
gpu_stride      1000
note            two words
pid_stride      10000000
schema_version  3" "$(cat "$TESTDIR/stdout")"

check_rc "list csv" 0 $M t3.rpd --list --format csv
check_eq "csv rows with CRLF" "tag,value$CR
gpu_stride,1000$CR
note,two words$CR
pid_stride,10000000$CR
schema_version,3$CR" "$(cat "$TESTDIR/stdout")"

check_rc "list json" 0 $M --format json t3.rpd
check_eq "json rows" '[
{"tag": "gpu_stride", "value": "1000"},
{"tag": "note", "value": "two words"},
{"tag": "pid_stride", "value": "10000000"},
{"tag": "schema_version", "value": "3"}
]' "$(cat "$TESTDIR/stdout")"

check_rc "list v2 trace" 0 $M t2.rpd --format csv
check_eq "v2 schema_version row" "schema_version,2$CR" "$(grep schema_version "$TESTDIR/stdout")"

check_eq "--get schema_version" "3" "$($M t3.rpd --get schema_version)"
check_eq "--get value with a space" "two words" "$($M t3.rpd --get note)"
cp t3.rpd before.rpd
check_rc "--get of a missing tag exits 1" 1 $M t3.rpd --get nosuchtag
check_one_line "missing tag: one line"
check "missing tag: names the tag" grep -q "no metadata tag 'nosuchtag'" "$TESTDIR/stderr"

# --set / --clear
check_rc "--set new tag" 0 $M t3.rpd --set Run::Model llama-70b
check_eq "set value readable" "llama-70b" "$($M t3.rpd --get Run::Model)"
check_rc "--set again replaces" 0 $M t3.rpd --set Run::Model llama-8b
check_eq "one row after two sets" "1|llama-8b" "$(q t3.rpd "SELECT count(*), max(value) FROM rocpd_metadata WHERE tag = 'Run::Model'")"
check_eq "other rows kept" "5" "$(q t3.rpd "SELECT count(*) FROM rocpd_metadata")"
q t3.rpd "INSERT INTO rocpd_metadata(tag, value) VALUES ('dup', 'a'), ('dup', 'b')"
check_rc "--set collapses duplicate rows" 0 $M t3.rpd --set dup c
check_eq "dup is one row" "1|c" "$(q t3.rpd "SELECT count(*), max(value) FROM rocpd_metadata WHERE tag = 'dup'")"
cp t3.rpd same.rpd
check_rc "--set to the same value" 0 $M t3.rpd --set dup c
same_file "same value leaves the file byte-identical" same.rpd t3.rpd
check_rc "--set empty value" 0 $M t3.rpd --set empty ''
check_eq "empty value stored" "1|" "$(q t3.rpd "SELECT count(*), max(value) FROM rocpd_metadata WHERE tag = 'empty'")"

HOSTILE="it's \"x\"; DROP TABLE rocpd_api;--"
check_rc "--set hostile tag" 0 $M t3.rpd --set "$HOSTILE" "v'a|l\"ue"
check_eq "hostile tag round trip" "v'a|l\"ue" "$($M t3.rpd --get "$HOSTILE")"
check_eq "rocpd_api still there" "1" "$(q t3.rpd "SELECT count(*) FROM sqlite_master WHERE name = 'rocpd_api'")"
check_rc "--clear hostile tag" 0 $M t3.rpd --clear "$HOSTILE"
check_eq "hostile tag gone" "0" "$(q t3.rpd "SELECT count(*) FROM rocpd_metadata WHERE tag LIKE 'it''s%'")"
check_rc "--clear dup" 0 $M t3.rpd --clear dup
check_eq "dup cleared" "0" "$(q t3.rpd "SELECT count(*) FROM rocpd_metadata WHERE tag = 'dup'")"
cp t3.rpd same.rpd
check_rc "--clear of an absent tag exits 0" 0 $M t3.rpd --clear dup
same_file "absent --clear leaves the file byte-identical" same.rpd t3.rpd
check_eq "integrity after changes" "ok" "$(q t3.rpd "PRAGMA integrity_check")"

# -o OUT
cp t3.rpd in.rpd; cp t3.rpd in.orig
check_rc "--set -o OUT" 0 $M in.rpd --set Out::Tag yes -o out.rpd
same_file "-o leaves the input byte-identical" in.orig in.rpd
check_eq "-o output has the tag" "yes" "$($M out.rpd --get Out::Tag)"
check_rc "--clear -o OUT.gz" 0 $M out.rpd --clear Out::Tag -o out2.rpd.gz
check "-o OUT.gz is gzip" gzip -t out2.rpd.gz
check_rc "OUT.gz: tag cleared" 1 $M out2.rpd.gz --get Out::Tag
check_eq "OUT.gz keeps other rows" "3" "$($M out2.rpd.gz --get schema_version)"

# .gz input
gzip -c t3.rpd >z.rpd.gz; cp z.rpd.gz z.orig.gz
check_eq "--get on .gz" "two words" "$($M z.rpd.gz --get note)"
check_rc "--list on .gz" 0 $M z.rpd.gz --format csv
check_eq "list .gz rows (header + 6)" "7" "$(grep -c . "$TESTDIR/stdout")"
same_file "read-only ops leave .gz byte-identical" z.orig.gz z.rpd.gz
check_rc "--set on .gz in place" 0 $M z.rpd.gz --set Gz::Tag 1
check "rewritten .gz is gzip" gzip -t z.rpd.gz
check_eq "rewritten .gz has the tag" "1" "$($M z.rpd.gz --get Gz::Tag)"

if need_shared "$TRACES/mytrace.rpd.gz"; then
  check_eq "mytrace: Callstack::Table" "True" "$($M "$TRACES/mytrace.rpd.gz" --get Callstack::Table)"
  check_eq "mytrace: references row" '("ext_autogradapi", "autogradName_id")' \
    "$($M "$TRACES/mytrace.rpd.gz" --get references::rocpd_string.id)"
fi

# bad input: one line on stderr, non-zero exit, input byte-identical
printf 'this is not a database\n' >junk.rpd; cp junk.rpd junk.orig
check_rc "not SQLite: exit 1" 1 $M junk.rpd --list
check_one_line "not SQLite: one line"
check "not SQLite: says so" grep -q "cannot open 'junk.rpd': not an SQLite database" "$TESTDIR/stderr"
check_rc "not SQLite --set: exit 1" 1 $M junk.rpd --set a b
same_file "not SQLite: file unchanged" junk.orig junk.rpd
sqlite3 other.db "CREATE TABLE x(a)"; cp other.db other.orig
check_rc "SQLite but not RPD --set: exit 1" 1 $M other.db --set a b
check_one_line "not RPD: one line"
same_file "not RPD: file unchanged" other.orig other.db
: >empty.rpd
check_rc "empty file: exit 1" 1 $M empty.rpd
check_one_line "empty file: one line"
check_rc "missing file: exit 1" 1 $M nosuch.rpd --get a
check_one_line "missing file: one line"
head -c $(( $(wc -c <z.rpd.gz) / 2 )) z.rpd.gz >trunc.rpd.gz
check_rc "truncated .gz: exit 1" 1 $M trunc.rpd.gz --list
check_one_line "truncated .gz: one line"

cp t3.rpd ro.rpd; chmod 444 ro.rpd; cp ro.rpd ro.orig
check_rc "read-only file --set: exit 1" 1 $M ro.rpd --set a b
check_one_line "read-only: one line"
check "read-only: says read-only" grep -q "read-only" "$TESTDIR/stderr"
same_file "read-only: file unchanged" ro.orig ro.rpd
check_eq "read-only file still readable" "3" "$($M ro.rpd --get schema_version)"

# locked by another writer
cp t3.rpd lk.rpd; cp lk.rpd lk.orig
check "lock held by sqlite3" hold_lock lk.rpd
RPD_BUSY_TIMEOUT_MS=100 check_rc "locked file --set: exit 1" 1 $M lk.rpd --set a b
check_one_line "locked: one line"
check "locked: says locked" grep -q "locked" "$TESTDIR/stderr"
release_lock
check_eq "locked: the tag was not written" "0" "$(q lk.rpd "SELECT count(*) FROM rocpd_metadata WHERE tag = 'a'")"

# usage errors exit 2
check_rc "no arguments: exit 2" 2 $M
check_rc "--get without TAG: exit 2" 2 $M t3.rpd --get
check_rc "--set without VALUE: exit 2" 2 $M t3.rpd --set a
check_rc "two operations: exit 2" 2 $M t3.rpd --get a --clear b
check_rc "unknown option: exit 2" 2 $M t3.rpd --frobnicate
check_rc "bad --format: exit 2" 2 $M t3.rpd --format xml
check_rc "-o with --get: exit 2" 2 $M t3.rpd --get a -o x.rpd
check_rc "two files: exit 2" 2 $M t3.rpd t2.rpd
check_rc "empty TAG: exit 2" 2 $M t3.rpd --set '' v
before=$(cksum <t3.rpd)
check_rc "--set -o '': exit 2" 2 $M t3.rpd --set a b -o ''
check_eq "--set -o '': the trace is unchanged" "$before" "$(cksum <t3.rpd)"
# results that cannot be written are a failure
if [ -c /dev/full ]; then
  check_rc "--list into a full stdout: exit 1" 1 sh -c "$M t3.rpd --list >/dev/full"
  check_one_line "--list into a full stdout: one line"
  check_rc "--get into a full stdout: exit 1" 1 sh -c "$M t3.rpd --get schema_version >/dev/full"
fi
