#!/bin/sh
# rocprof-direct.sh - the read-only tools that read a rocprofv3 database as
# it is (rpd-import's reader into an in-memory trace, registered with
# rpd_set_import_reader): their output on X.db equals their output on
# `rpd-import X.db X.rpd` (raptor: every file of --csv-dir byte for byte, the
# stdout tables, the classic report, the kernel statistics, by-rank;
# rpd2tracing: the JSON and the protobuf; rpd-health; rpd2table; rpd-diff
# in both modes, the database against its import), the database
# is never modified, and a writer still refuses it with the rpd-import hint.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

mkdir -p "$TESTDIR/tmp"
TMPDIR="$TESTDIR/tmp"; export TMPDIR

# direct NAME DB: every read-only mode on DB against the same on its import
direct() { # (lib.sh's checks use _n, _want: d_ here)
  d_n=$1; d_db=$2; d_s=$(sha "$d_db")
  rm -rf "$d_n.rpd" "$d_n-a" "$d_n-b"
  check "$d_n: rpd-import" rpd-import -q "$d_db" "$d_n.rpd" || return
  check_rc "$d_n: raptor --report reads the database" 0 raptor "$d_db" --report -q --csv-dir "$d_n-b"
  raptor "$d_n.rpd" --report -q --csv-dir "$d_n-a" >/dev/null 2>&1
  same_dir "$d_n: --report --csv-dir: the same files" "$d_n-a" "$d_n-b"
  # stdout, and stderr but for the file's name (the health hint names it)
  raptor "$d_n.rpd" --report >"$d_n.a.txt" 2>"$d_n.a.err"
  raptor "$d_db" --report >"$d_n.b.txt" 2>"$d_n.b.err"
  same_file "$d_n: --report stdout" "$d_n.a.txt" "$d_n.b.txt"
  sed "s|$d_n.rpd|$d_db|g" "$d_n.a.err" >"$d_n.a.err2"
  same_file "$d_n: --report stderr (the path aside)" "$d_n.a.err2" "$d_n.b.err"
  raptor "$d_n.rpd" --report --format json >"$d_n.a.json" 2>/dev/null
  raptor "$d_db" --report --format json >"$d_n.b.json" 2>/dev/null
  same_file "$d_n: --report --format json" "$d_n.a.json" "$d_n.b.json"
  raptor "$d_n.rpd" >"$d_n.a.cl" 2>&1
  raptor "$d_db" >"$d_n.b.cl" 2>&1
  sed -i "s|$d_n.rpd|$d_db|g" "$d_n.a.cl"
  same_file "$d_n: classic raptor" "$d_n.a.cl" "$d_n.b.cl"
  for f in kernel-stats api-stats; do
    raptor "$d_n.rpd" --format "$f" >"$d_n.a.$f" 2>&1
    raptor "$d_db" --format "$f" >"$d_n.b.$f" 2>&1
    same_file "$d_n: --format $f" "$d_n.a.$f" "$d_n.b.$f"
  done
  raptor --by-rank "$d_n.rpd" >"$d_n.a.br" 2>&1
  raptor --by-rank "$d_db" >"$d_n.b.br" 2>&1
  sed -i "s|$d_n.rpd|$d_db|g" "$d_n.a.br"
  same_file "$d_n: --by-rank" "$d_n.a.br" "$d_n.b.br"
  # rpd-health (the report's banner names it for the details)
  rpd-health "$d_n.rpd" >"$d_n.a.h" 2>&1
  check_rc "$d_n: rpd-health reads the database" 0 rpd-health "$d_db"
  same_file "$d_n: rpd-health" "$d_n.a.h" "$TESTDIR/stdout"
  # rpd2tracing: not lean (the events carry the calls' arguments)
  rpd2tracing -q "$d_n.rpd" "$d_n.a.json" 2>/dev/null
  check_rc "$d_n: rpd2tracing reads the database" 0 rpd2tracing -q "$d_db" "$d_n.b.json"
  same_file "$d_n: rpd2tracing JSON" "$d_n.a.json" "$d_n.b.json"
  rpd2tracing -q --format proto "$d_n.rpd" "$d_n.a.pb" 2>/dev/null
  rpd2tracing -q --format proto "$d_db" "$d_n.b.pb" 2>/dev/null
  same_file "$d_n: rpd2tracing protobuf" "$d_n.a.pb" "$d_n.b.pb"
  # two workers want a second connection to a file: one worker reads it
  RPD2TRACING_THREADS=2 rpd2tracing -q "$d_db" "$d_n.c.json" 2>/dev/null
  same_file "$d_n: rpd2tracing, two workers asked" "$d_n.a.json" "$d_n.c.json"
  # rpd2table and rpd-diff (both modes): the database against its import
  rpd2table "$d_n.rpd" - >"$d_n.a.tab" 2>/dev/null
  check_rc "$d_n: rpd2table reads the database" 0 rpd2table "$d_db" -
  same_file "$d_n: rpd2table" "$d_n.a.tab" "$TESTDIR/stdout"
  check_rc "$d_n: rpd-diff DB IMPORT" 0 rpd-diff -f csv "$d_db" "$d_n.rpd"
  check_eq "$d_n: rpd-diff finds every row the same" "" \
    "$(tail -n +2 "$TESTDIR/stdout" | tr -d '\r' | awk -F, '$NF != "same"')"
  check "$d_n: rpd-diff compared rows" test "$(wc -l <"$TESTDIR/stdout")" -gt 2
  check_rc "$d_n: rpd-diff --waterfall DB IMPORT" 0 rpd-diff --waterfall "$d_db" "$d_n.rpd"
  check "$d_n: rpd-diff --waterfall: no change" grep -q "^sum of parts = span change: 0 ns" "$TESTDIR/stdout"
  check_eq "$d_n: the database is unchanged" "$d_s" "$(sha "$d_db")"
  check_eq "$d_n: nothing left in TMPDIR or beside it" "" "$(ls -A "$TMPDIR"; ls -A "$(dirname "$d_db")" | grep -e rpdtools- -e '-journal$')"
}

# a generated database: the bench's size (38,000 dispatches, ~48k regions,
# ~170k args, pmc counters, copies), then a small one with markers
rpd-synth-rocpd -q --seed 5 --dispatches 38000 -o big.db || { notok "rpd-synth-rocpd"; exit 0; }
direct big big.db
rpd-synth-rocpd -q --seed 2 --dispatches 500 -o small.db || { notok "rpd-synth-rocpd small"; exit 0; }
direct small small.db
gzip -c small.db >smallgz.db.gz
check_rc "small .db.gz: raptor --report reads it" 0 raptor smallgz.db.gz --report -q --csv-dir gz-b
same_dir "small .db.gz: the same files" small-a gz-b

# every rocprofv3 database of the shared traces
n=0
for db in $(find "$TRACES" -name '*.db' 2>/dev/null | sort); do
  if rpd-import -q "$db" probe.rpd 2>/dev/null && [ "$(q probe.rpd "select count(*) from rocpd_op")" -gt 0 ] &&
     ! raptor "$db" --report -q --csv-dir probe 2>&1 | grep -q 'rocprof v1'; then
    n=$((n + 1))
    direct "shared$n" "$db"
  fi
  rm -rf probe.rpd probe
done
[ "$n" -gt 0 ] || skip "shared rocprofv3 databases" "none under $TRACES"

# writers (and raptor's --save, which writes) refuse it in place, unchanged (an augmenter says -o OUT would take it)
cp small.db w.db; s=$(sha w.db)
check_rc "writer: rpd-callstack exits 1" 1 rpd-callstack w.db
check_one_line "writer: one line"
check_eq "writer: the rpd-import hint" \
  "rpd-callstack: cannot open 'w.db': rocprofv3 database, not an RPD trace; convert it with: rpd-import w.db w.rpd, or write the result to a new trace with -o w.rpd" \
  "$(cat "$TESTDIR/stderr")"
check_rc "raptor --report --save exits 1" 1 raptor w.db --report --save
check_eq "raptor --report --save: the rpd-import hint" \
  "raptor: cannot open 'w.db': rocprofv3 database, not an RPD trace; convert it with: rpd-import w.db w.rpd" \
  "$(cat "$TESTDIR/stderr")"
check_eq "writer: the database is unchanged" "$s" "$(sha w.db)"

# a database rpd-import refuses: the same reason, one line
cp small.db bad.db
sqlite3 bad.db "UPDATE $(q bad.db "select name from sqlite_master where name like 'rocpd_kernel_dispatch_%' and type = 'table'") SET start = 'x' WHERE rowid = 3"
check_rc "bad row: raptor exits 1" 1 raptor bad.db --report -q
check_one_line "bad row: one line"
rpd-import -q bad.db bad.rpd 2>imp.err
check_eq "bad row: rpd-import's reason" \
  "$(sed 's/^rpd-import: cannot import/raptor: cannot open/' imp.err)" "$(cat "$TESTDIR/stderr")"
