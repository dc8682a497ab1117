#!/bin/sh
# common-open.sh - the common open/close layer end to end, through real
# binaries: rpd-callstack (an augmenter on rpd_augment_main) and rpd2tracing
# (a reader).  Bad input gives one line, exit 1, the file byte-identical and
# no temp file; .gz read and write-back; -o chains; signals clean up.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

mkdir -p "$TESTDIR/tmp"
TMPDIR="$TESTDIR/tmp"; export TMPDIR
RPD_BUSY_TIMEOUT_MS=200; export RPD_BUSY_TIMEOUT_MS

rpd-synth --seed 3 --api 3000 -o t.rpd >/dev/null 2>&1 || { notok "rpd-synth"; exit 0; }
api=$(q t.rpd "select count(*) from rocpd_api")

# bad input: NAME FILE EXPECTED-MESSAGE
bad() {
  cp "$2" before.bin 2>/dev/null
  check_rc "$1: augmenter exits 1" 1 rpd-callstack "$2"
  check_eq "$1: augmenter message" "rpd-callstack: cannot open '$2': $3" "$(cat "$TESTDIR/stderr")"
  check_one_line "$1: one line"
  check_rc "$1: reader exits 1" 1 rpd2tracing "$2" out.json
  check_eq "$1: reader message" "rpd2tracing: cannot open '$2': $3" "$(cat "$TESTDIR/stderr")"
  [ -e "$2" ] && same_file "$1: input unchanged" before.bin "$2"
  check_eq "$1: no temp files" "" "$(ls "$TMPDIR"; ls | grep rpdtools-)"
  check_eq "$1: no output" "" "$(ls out.json 2>/dev/null)"
  rm -f before.bin
}

bad missing nope.rpd "no such file"
: >empty.rpd
bad empty empty.rpd "empty file, not an SQLite database"
echo "pid,tid" >text.rpd
bad text text.rpd "not an SQLite database"
gzip -c t.rpd | head -c 20000 >trunc.rpd.gz
bad truncated-gz trunc.rpd.gz "truncated or corrupt gzip data"
sqlite3 other.db "create table t(x); insert into t values (1);"
bad other-sqlite other.db "not an RPD trace: missing table rocpd_api"
cp t.rpd noop.rpd; sqlite3 noop.rpd "drop table rocpd_api_ops"
bad missing-table noop.rpd "not an RPD trace: missing table rocpd_api_ops"
sqlite3 v3prof.db "create table rocpd_info_node_0a1b(id); create table rocpd_kernel_dispatch_0a1b(id);"
cp v3prof.db v3prof.before
check_rc "rocprofv3: augmenter exits 1" 1 rpd-callstack v3prof.db
check_eq "rocprofv3: augmenter message" "rpd-callstack: cannot open 'v3prof.db': rocprofv3 database, not an RPD trace; convert it with: rpd-import v3prof.db v3prof.rpd, or write the result to a new trace with -o v3prof.rpd" "$(cat "$TESTDIR/stderr")"
# a reader that reads rocprofv3 databases directly (rpd-import's reader)
# names what this stand-in lacks, as rpd-import would
check_rc "rocprofv3 stand-in: reader exits 1" 1 rpd2tracing v3prof.db out.json
check_one_line "rocprofv3 stand-in: reader one line"
check_eq "rocprofv3 stand-in: reader message" "rpd2tracing: cannot open 'v3prof.db': incomplete rocprofv3 database: no table or view 'rocpd_kernel_dispatch'" "$(cat "$TESTDIR/stderr")"
same_file "rocprofv3 stand-in: unchanged" v3prof.before v3prof.db
check_eq "rocprofv3 stand-in: no output, no temp files" "" "$(ls out.json 2>/dev/null; ls -A "$TMPDIR"; ls | grep rpdtools-)"

# read-only file for a writer; the reader is fine with it
cp t.rpd ro.rpd; chmod 444 ro.rpd; cp ro.rpd ro.before
check_rc "read-only: augmenter exits 1" 1 rpd-callstack ro.rpd
check_eq "read-only: message" "rpd-callstack: cannot open 'ro.rpd': read-only file" "$(cat "$TESTDIR/stderr")"
same_file "read-only: unchanged" ro.before ro.rpd
check_rc "read-only: -o works" 0 rpd-callstack ro.rpd -o ro.cs.rpd
same_file "read-only: input unchanged after -o" ro.before ro.rpd
check_eq "read-only: -o output has the table" 1 "$(q ro.cs.rpd "select count(*) > 0 from ext_callstack")"

# locked by another writer
cp t.rpd locked.rpd; cp t.rpd locked.before
check "locked: lock held by sqlite3" hold_lock locked.rpd EXCLUSIVE
check_rc "locked: augmenter exits 1" 1 rpd-callstack locked.rpd
check_eq "locked: message" "rpd-callstack: cannot open 'locked.rpd': database is locked" "$(cat "$TESTDIR/stderr")"
release_lock
same_file "locked: unchanged" locked.before locked.rpd

# .gz in place: rewritten atomically, mode kept, no temps; then idempotent
gzip -c t.rpd >w.rpd.gz; chmod 640 w.rpd.gz
check_rc "gz in place" 0 rpd-callstack w.rpd.gz
check_eq "gz in place: still gzip" "1f8b" "$(head -c 2 w.rpd.gz | od -An -tx1 | tr -d ' \n')"
check_eq "gz in place: mode kept" "640" "$(stat -c %a w.rpd.gz)"
check_eq "gz in place: rows kept" "$api" "$(gzip -dc w.rpd.gz >w.check.rpd && q w.check.rpd "select count(*) from rocpd_api")"
check_eq "gz in place: augmented" 1 "$(q w.check.rpd "select count(*) > 0 from ext_callstack")"
cp w.rpd.gz w.before
check_rc "gz again: nothing to do" 0 rpd-callstack w.rpd.gz
case "$(cat "$TESTDIR/stderr")" in
  "rpd-callstack: 'w.rpd.gz' already has "*"; nothing to do (use --force to rebuild)") ok "gz again: message" ;;
  *) notok "gz again: message" "$(cat "$TESTDIR/stderr")" ;;
esac
same_file "gz again: unchanged" w.before w.rpd.gz
check_eq "gz: no temp files" "" "$(ls "$TMPDIR"; ls | grep rpdtools-)"

# reading a .gz leaves nothing in TMPDIR
check_rc "gz read" 0 rpd2tracing w.rpd.gz w.json
check_eq "gz read: no temp files" "" "$(ls "$TMPDIR")"

# -o chain with real file targets: plain -> gz -> plain
check_rc "chain 1" 0 rpd-callstack t.rpd -o a.cs.rpd.gz
check_rc "chain 2 (already done, copy made)" 0 rpd-callstack a.cs.rpd.gz -o b.cs.rpd
check_eq "chain: copy is complete" "$api" "$(q b.cs.rpd "select count(*) from rocpd_api")"
check_eq "chain: input untouched" "" "$(q t.rpd "select name from sqlite_master where name = 'ext_callstack'")"

# killed while writing a .gz in place: the original survives, temps go
rpd-synth --seed 4 --api 200000 -o big.rpd >/dev/null 2>&1
gzip -1 -c big.rpd >big.rpd.gz; cp big.rpd.gz big.before
rpd-callstack big.rpd.gz >/dev/null 2>&1 &
pid=$!
sleep 0.3
kill -TERM $pid 2>/dev/null
wait_bounded $pid 2>/dev/null; rc=$?
if [ $rc -eq 0 ]; then skip "SIGTERM during write" "finished before the signal"
else check_eq "SIGTERM: exit by signal" 143 "$rc"; same_file "SIGTERM: original intact" big.before big.rpd.gz; fi
check_eq "SIGTERM: no temp files" "" "$(ls "$TMPDIR"; ls | grep rpdtools-)"

# issue 11.10: rocprofv3 output given where a trace belongs, to readers and
# writers alike: one line saying what it is and the rpd-import command --
# but for a database given to a tool that reads one directly ($DIRECT:
# rpd-import's reader into memory, docs/rpd-import.md), which reads it and
# leaves it as it was (tests/tools/rocprof-direct.sh compares the outputs)
DIRECT="raptor rpd2tracing"
roc() { # NAME FILE KIND SUGGESTED-OUT
  for t in "rpd-callstack" "rpd-schema --info" "rpd-metadata --list" "raptor" "rpd2tracing"; do
    b=${t%% *}
    [ -x "$RPD_BIN/$b" ] || continue
    if [ "$3" = database ] && case " $DIRECT " in *" $b "*) true ;; *) false ;; esac; then
      _s=$(sha "$2")
      if [ "$b" = rpd2tracing ]; then check_rc "rocprofv3 $1: $b reads it" 0 $t "$2" roc.json
      else check_rc "rocprofv3 $1: $b reads it" 0 $t "$2"; fi
      check_eq "rocprofv3 $1: $b leaves it unchanged" "$_s" "$(sha "$2")"
      continue
    fi
    if [ "$b" = rpd2tracing ]; then check_rc "rocprofv3 $1: $b exits 1" 1 $t "$2" roc.json
    else check_rc "rocprofv3 $1: $b exits 1" 1 $t "$2"; fi
    check_one_line "rocprofv3 $1: $b one line"
    # an augmenter (rpd-callstack) writes a database's import with -o OUT
    _o=
    [ "$3" = database ] && [ "$b" = rpd-callstack ] && _o=", or write the result to a new trace with -o $4"
    check_eq "rocprofv3 $1: $b message" \
      "$b: cannot open '$2': rocprofv3 $3, not an RPD trace; convert it with: rpd-import $2 $4$_o" \
      "$(cat "$TESTDIR/stderr")"
  done
  check_eq "rocprofv3 $1: no temp files" "" "$(ls "$TMPDIR"; ls | grep rpdtools-)"
}
if need_shared "$TRACES/rocprofv3_908_results.json.gz"; then
  cp "$TRACES/rocprofv3_908_results.json.gz" r908_results.json.gz
  roc json.gz r908_results.json.gz JSON r908.rpd
  gzip -dc r908_results.json.gz >r908_results.json
  roc json r908_results.json JSON r908.rpd
fi
if need_shared "$TRACES/rocprofv3_28_results.db"; then
  cp "$TRACES/rocprofv3_28_results.db" r28_results.db
  roc db r28_results.db database r28.rpd
fi
if need_shared "$TRACES/rocprofv3_csv/decode_kernel_trace.csv"; then
  mkdir -p csvdir; cp "$TRACES"/rocprofv3_csv/*.csv csvdir/
  roc csv csvdir/decode_kernel_trace.csv CSV decode.rpd
  roc csv-hip csvdir/decode_hip_api_trace.csv CSV decode.rpd
  roc dir csvdir "output directory" csvdir.rpd
  # a directory of 6 runs: rpd-import DIR alone refuses it, so the hint
  # names a run with --prefix, and --all-runs; both commands work
  mkdir -p runs6
  for r in decode prefill r3 r4 r5 r6; do cp csvdir/decode_kernel_trace.csv "runs6/${r}_kernel_trace.csv"; done
  check_rc "6 runs: raptor exits 1" 1 raptor runs6
  check_eq "6 runs: the hint names --prefix and --all-runs" \
    "raptor: cannot open 'runs6': rocprofv3 output directory of 6 runs (decode_*, prefill_*, ...), not an RPD trace; convert one with: rpd-import --prefix decode runs6 decode.rpd (or all into one trace: rpd-import --all-runs runs6 runs6.rpd)" \
    "$(cat "$TESTDIR/stderr")"
  check_rc "6 runs: the suggested --prefix command works" 0 rpd-import -q --prefix decode runs6 decode.rpd
  check_rc "6 runs: the suggested --all-runs command works" 0 rpd-import -q --all-runs runs6 runs6.rpd
  check_eq "6 runs: --all-runs has 6 times the kernels of one" \
    "$(($(q decode.rpd "SELECT count(*) FROM rocpd_op") * 6))" "$(q runs6.rpd "SELECT count(*) FROM rocpd_op")"
fi
if need_shared "$TRACES/rocprofv3_28_results.db"; then
  # a directory of results files only: the hint names the file
  mkdir -p resdir; cp "$TRACES/rocprofv3_28_results.db" resdir/r28_results.db
  check_rc "results-only directory: rpd-graph exits 1" 1 rpd-graph resdir
  check_eq "results-only directory: the hint names its results file" \
    "rpd-graph: cannot open 'resdir': rocprofv3 output directory, not an RPD trace; convert it with: rpd-import resdir/r28_results.db r28.rpd" \
    "$(cat "$TESTDIR/stderr")"
fi
# a name that needs quoting is shown quoted for the shell
sqlite3 "it's prof.db" "create table rocpd_info_node_0a1b(id); create table rocpd_kernel_dispatch_0a1b(id);"
check_rc "rocprofv3 quoted name: exit 1" 1 rpd-callstack "it's prof.db"
check_eq "rocprofv3 quoted name: message" \
  "rpd-callstack: cannot open 'it's prof.db': rocprofv3 database, not an RPD trace; convert it with: rpd-import 'it'\\''s prof.db' 'it'\\''s prof.rpd', or write the result to a new trace with -o 'it'\\''s prof.rpd'" \
  "$(cat "$TESTDIR/stderr")"
# the same in a directory's hint (a results file whose name needs quoting)
mkdir -p qdir; cp "it's prof.db" "qdir/it's_results.db"
check_rc "rocprofv3 quoted name in a directory: exit 1" 1 rpd-graph qdir
check_eq "rocprofv3 quoted name in a directory: the output quoted too" \
  "rpd-graph: cannot open 'qdir': rocprofv3 output directory, not an RPD trace; convert it with: rpd-import 'qdir/it'\\''s_results.db' 'it'\\''s.rpd'" \
  "$(cat "$TESTDIR/stderr")"
# plain text that is not rocprofv3 output stays "not an SQLite database"
printf '"Name","Value"\n"a",1\n' >plain.csv
bad plain-csv plain.csv "not an SQLite database"

# one line per error: newlines in a file name are escaped
nlname="new
line.rpd"
check_rc "newline in name: exit 1" 1 rpd-callstack "$nlname"
check_one_line "newline in name: one line"
check_eq "newline in name: escaped" "rpd-callstack: cannot open 'new\\nline.rpd': no such file" \
  "$(cat "$TESTDIR/stderr")"
# a corrupt view definition spanning lines: one line
cp t.rpd badview.rpd
sqlite3 badview.rpd "PRAGMA writable_schema=ON; UPDATE sqlite_master SET sql =
  'CREATE VIEW api AS SELECT
     x (((
   FROM nowhere' WHERE name = 'api'"
check_rc "corrupt view: augmenter exits 1" 1 rpd-callstack badview.rpd
check_one_line "corrupt view: one line"
check_rc "corrupt view: reader exits 1" 1 rpd2tracing badview.rpd bv.json
check_one_line "corrupt view: reader one line"

# writers of one .gz exclude each other: a writer holding it makes the next
# wait for the busy timeout and fail in one line, the .gz as it was
if command -v flock >/dev/null 2>&1; then
  gzip -c t.rpd >lk.rpd.gz; cp lk.rpd.gz lk.before
  flock -x lk.rpd.gz sleep 2 & fl=$!
  sleep 0.3
  check_rc "gz lock: second writer exits 1" 1 rpd-callstack lk.rpd.gz
  check_eq "gz lock: message" \
    "rpd-callstack: cannot open 'lk.rpd.gz': database is locked: another program is rewriting this .gz (waited 200 ms)" \
    "$(cat "$TESTDIR/stderr")"
  same_file "gz lock: unchanged" lk.before lk.rpd.gz
  check_rc "gz lock: a reader is not blocked" 0 rpd2tracing lk.rpd.gz lk.json
  wait $fl
  check_rc "gz lock: released, the writer works" 0 rpd-callstack lk.rpd.gz
  check_eq "gz lock: no temp files" "" "$(ls "$TMPDIR"; ls | grep rpdtools-)"
else
  skip "gz lock" "no flock(1)"
fi
