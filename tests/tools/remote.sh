#!/bin/sh
# tests/tools/remote.sh - librpd_remote.so + rpdRemote, and the control API
# (librpdctl.so), driven against the stand-in tracer tests/fake_tracer.c.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
ROOT=$(cd "$here/../.." && pwd)
: "${RPD_LIB:?}" "${RPD_TESTBIN:?}"
SHIM="$RPD_LIB/librpd_remote.so"
FAKE="$RPD_TESTBIN/libfake_tracer.so"
HOST="$RPD_TESTBIN/remote_host"
for f in "$SHIM" "$FAKE" "$HOST" "$RPD_BIN/rpdRemote"; do
  [ -e "$f" ] || { notok "built: $f"; exit 1; }
done

# An ASan-built shim must come after the ASan runtime in the preload list.
ASAN_RT=$(ldd "$SHIM" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*libasan[^ ]*\).*/\1/p' | head -1)
PRELOAD="${ASAN_RT:+$ASAN_RT }$SHIM"

# wait_grep FILE PATTERN [COUNT]: poll (<= 10 s) until FILE has COUNT
# (default 1) lines matching PATTERN; returns 1 on timeout.
wait_grep() {
  _n=0
  while _c=$(grep -c -- "$2" "$1" 2>/dev/null); [ "${_c:-0}" -lt "${3:-1}" ]; do
    _n=$((_n + 1)); [ $_n -gt 200 ] && return 1
    sleep 0.05
  done
  return 0
}

# reap PID [PID...]: wait (<= 10 s) for the first PID, a background job,
# to end; then kill -9 whatever of them is left, so a hung host never hangs
# the test run.
reap() {
  _r=0
  while kill -0 "$1" 2>/dev/null && [ $_r -lt 100 ]; do sleep 0.1; _r=$((_r + 1)); done
  kill -9 "$@" 2>/dev/null
  wait "$1" 2>/dev/null
}

# start_host DIR: run remote_host with the shim in DIR; sets HOSTPID
start_host() {
  (cd "$1" && exec env LD_PRELOAD="$PRELOAD" RPDT_AUTOSTART=1 "$HOST" wait 60 \
     >"$1/host.out" 2>"$1/host.err") &
  HOSTPID=$!
  wait_grep "$1/host.out" '^ready ' || { notok "host did not start: $(cat "$1/host.err")"; return 1; }
  return 0
}

stop_host() {
  kill "$HOSTPID" 2>/dev/null; reap "$HOSTPID"
}

export FAKE_TRACER_LOG RPDT_TRACER_LIB

# ------------------------------------------------------------ rpdRemote + shim
mkdir -p run1
sqlite3 run1/trace.rpd <"$ROOT/views/schema.sql"
FAKE_TRACER_LOG="$TESTDIR/run1/fake.log"; RPDT_TRACER_LIB="$FAKE"
if start_host "$TESTDIR/run1"; then
  check_eq "host prints its own pid" "ready $HOSTPID" "$(cat run1/host.out)"
  check_rc "status of a process with the shim: exit 0" 0 rpdRemote status "$HOSTPID"
  check "status says loaded and ready" grep -q "librpd_remote.so loaded, ready" "$TESTDIR/stdout"
  check_eq "tracer not loaded before the first start" "" "$(cat run1/fake.log 2>/dev/null)"

  check_rc "start: exit 0" 0 rpdRemote start "$HOSTPID"
  wait_grep run1/host.err "recording started" && ok "shim reports start" || notok "shim reports start"
  check_rc "second start: exit 0" 0 rpdRemote start "$HOSTPID"
  wait_grep run1/host.err "already recording" && ok "start while recording is a no-op" || notok "start while recording is a no-op"
  check_rc "stop: exit 0" 0 rpdRemote stop "$HOSTPID"
  wait_grep run1/fake.log "^flush" && ok "stop flushes" || notok "stop flushes"
  check_eq "rows inspectable after the first stop" "1" "$(q run1/trace.rpd "SELECT count(*) FROM rocpd_api")"
  check_rc "stop while stopped: exit 0" 0 rpdRemote stop "$HOSTPID"
  wait_grep run1/host.err "not recording" && ok "stop while stopped is a no-op" || notok "stop while stopped is a no-op"
  check_rc "start again" 0 rpdRemote start "$HOSTPID"
  wait_grep run1/fake.log "^start 1" 2 && ok "second window started" || notok "second window started"
  check_rc "stop again" 0 rpdRemote stop "$HOSTPID"
  wait_grep run1/fake.log "^flush" 2 && ok "second flush" || notok "second flush"
  check "host survived every signal" kill -0 "$HOSTPID"
  stop_host
  check_eq "tracer call sequence (autostart forced off, start/stop/flush)" "load file=./trace.rpd autostart=0
start 1
stop 0
flush rows=1
start 1
stop 0
flush rows=1" "$(cat run1/fake.log)"
  check_eq "rows written: two windows of the host pid" \
    "fake_tracer_window|window = 1|$HOSTPID|1
fake_tracer_window|window = 2|$HOSTPID|1" \
    "$(q run1/trace.rpd "SELECT n.string, g.string, a.pid, a.end > a.start FROM rocpd_api a
        JOIN rocpd_string n ON n.id = a.apiName_id JOIN rocpd_ustring g ON g.id = a.args_id ORDER BY a.id")"
  check_eq "trace integrity" "ok" "$(q run1/trace.rpd "PRAGMA integrity_check")"
  check_eq "every shim message is prefixed" "0" "$(grep -vc '^rpdRemote: ' run1/host.err)"
fi

# default tracer name found through the library path
mkdir -p run2/libs
ln -s "$FAKE" run2/libs/librpd_tracer.so
sqlite3 run2/trace.rpd <"$ROOT/views/schema.sql"
FAKE_TRACER_LOG="$TESTDIR/run2/fake.log"; RPDT_TRACER_LIB=
LD_LIBRARY_PATH="$TESTDIR/run2/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; export LD_LIBRARY_PATH
if start_host "$TESTDIR/run2"; then
  rpdRemote start "$HOSTPID" >/dev/null; rpdRemote stop "$HOSTPID" >/dev/null
  wait_grep run2/fake.log "^flush" && grep -q "^start 1" run2/fake.log && ok "librpd_tracer.so found on LD_LIBRARY_PATH" \
    || notok "librpd_tracer.so found on LD_LIBRARY_PATH" "$(cat run2/host.err)"
  stop_host
  check_eq "default tracer wrote one row" "1" "$(q run2/trace.rpd "SELECT count(*) FROM rocpd_api")"
fi

# a forked child has its own handler thread: it records, the parent does not.
# Not under ASan: its allocator lock can be inherited held by a child forked
# from a multi-threaded process, and the child then hangs in the runtime.
if [ -n "$ASAN_RT" ]; then
  skip "fork: child records (ASan runtime deadlocks in children of threaded processes)"
else
mkdir -p run4
sqlite3 run4/trace.rpd <"$ROOT/views/schema.sql"
FAKE_TRACER_LOG="$TESTDIR/run4/fake.log"; RPDT_TRACER_LIB="$FAKE"
(cd run4 && exec env LD_PRELOAD="$PRELOAD" "$HOST" fork 60 >host.out 2>host.err) &
forker=$!
if wait_grep run4/host.out '^child ready '; then
  child=$(sed -n 's/^child ready //p' run4/host.out)
  check_rc "fork: child is ready" 0 rpdRemote status "$child"
  rpdRemote start "$child" >/dev/null
  wait_grep run4/host.err "recording started (pid $child)" && ok "fork: child starts" || notok "fork: child starts" "$(cat run4/host.err)"
  rpdRemote stop "$child" >/dev/null
  wait_grep run4/fake.log "^flush" && ok "fork: child stops and flushes" || notok "fork: child stops and flushes"
  kill "$child"; reap "$forker" "$child"
  check_eq "fork: one window, written by the child" "$child" "$(q run4/trace.rpd "SELECT group_concat(pid) FROM rocpd_api")"
else
  notok "fork: child did not start" "$(cat run4/host.err)"; kill "$forker"; reap "$forker"
fi
fi

# tracer missing: a clear message, the process lives on
mkdir -p run3
FAKE_TRACER_LOG="$TESTDIR/run3/fake.log"; RPDT_TRACER_LIB="$TESTDIR/run3/nosuch_tracer.so"
if start_host "$TESTDIR/run3"; then
  rpdRemote start "$HOSTPID" >/dev/null
  wait_grep run3/host.err "cannot load the tracer library" && ok "missing tracer: clear message" \
    || notok "missing tracer: clear message" "$(cat run3/host.err)"
  rpdRemote stop "$HOSTPID" >/dev/null
  wait_grep run3/host.err "not recording" && ok "missing tracer: stop is a no-op" || notok "missing tracer: stop is a no-op"
  check "missing tracer: process still alive" kill -0 "$HOSTPID"
  stop_host
fi
RPDT_TRACER_LIB="$FAKE"

# refusals
sleep 30 & bystander=$!
check_rc "start on a PID without the shim: exit 1" 1 rpdRemote start "$bystander"
check_one_line "no shim: one line"
check "no shim: says so" grep -q "does not have librpd_remote.so loaded" "$TESTDIR/stderr"
check "no shim: the process was not signalled" kill -0 "$bystander"
check_rc "status of a PID without the shim: exit 1" 1 rpdRemote status "$bystander"
check "status says not loaded" grep -q "not loaded" "$TESTDIR/stdout"
kill "$bystander"; reap "$bystander"
true & gone=$!; wait "$gone"
check_rc "nonexistent PID: exit 1" 1 rpdRemote stop "$gone"
check_one_line "nonexistent PID: one line"
check "nonexistent PID: says so" grep -q "no process with PID $gone" "$TESTDIR/stderr"
check_rc "usage: no arguments" 2 rpdRemote
check_rc "usage: bad command" 2 rpdRemote restart 1
check_rc "usage: bad PID" 2 rpdRemote start 12x
check_rc "usage: PID 0" 2 rpdRemote start 0
check_rc "--help" 0 rpdRemote --help
check "--help shows usage" grep -q "^usage: rpdRemote start|stop|status PID" "$TESTDIR/stdout"

# ------------------------------------------------------------ control API
mkdir -p ctl && cd ctl || exit 1
FAKE_TRACER_LOG="$TESTDIR/ctl/fake.log"
check_rc "ctl: nested start/stop" 0 "$HOST" ctl file:new.rpd start start stop stop stop
check_eq "ctl: depths and the unmatched stop" "file:new.rpd rc=0 depth=0
start rc=0 depth=1
start rc=0 depth=2
stop rc=0 depth=1
stop rc=0 depth=0
stop rc=-1 depth=0 err=not recording: rpdctl_stop() without rpdctl_start()" "$(cat "$TESTDIR/stdout")"
check_eq "ctl: one tracer start/stop for the nested pair" "load file=new.rpd autostart=0
start 1
stop 0
flush rows=1" "$(cat fake.log)"
check_eq "ctl: created file is a v3 trace" "3" "$(q new.rpd "SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'")"
check_eq "ctl: v3 tables" "1" "$(q new.rpd "SELECT count(*) FROM sqlite_master WHERE name = 'rocpd_ustring'")"
check_eq "ctl: created file integrity" "ok" "$(q new.rpd "PRAGMA integrity_check")"
check_eq "ctl: one row recorded" "1" "$(q new.rpd "SELECT count(*) FROM rocpd_api")"
check_rc "rpd-metadata reads the created trace" 0 rpd-metadata new.rpd --get pid_stride

check_rc "ctl: append" 0 "$HOST" ctl append:new.rpd start stop
check_eq "ctl: append keeps earlier rows" "2" "$(q new.rpd "SELECT count(*) FROM rocpd_api")"
check_rc "ctl: no append replaces the trace" 0 "$HOST" ctl file:new.rpd start stop
check_eq "ctl: replaced trace has only the new row" "1" "$(q new.rpd "SELECT count(*) FROM rocpd_api")"
check_eq "ctl: no temp files left" "new.rpd" "$(ls | grep -v fake.log | tr '\n' ' ' | sed 's/ $//')"

: >empty.rpd
check_rc "ctl: empty file gets the schema" 0 "$HOST" ctl file:empty.rpd start stop
check_eq "ctl: empty file now a trace with one row" "3|1" \
  "$(q empty.rpd "SELECT (SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'), (SELECT count(*) FROM rocpd_api)")"

rm -f fake.log
printf 'precious notes\n' >notes.rpd; cp notes.rpd notes.orig
check_rc "ctl: non-RPD file" 0 "$HOST" ctl file:notes.rpd start
check "ctl: non-RPD file refused" grep -q "^start rc=-1 depth=0 err='notes.rpd' exists and is not an RPD trace" "$TESTDIR/stdout"
same_file "ctl: non-RPD file unchanged" notes.orig notes.rpd
sqlite3 other.db "CREATE TABLE x(a); INSERT INTO x VALUES (1)"; cp other.db other.orig
check_rc "ctl: foreign SQLite" 0 "$HOST" ctl append:other.db start
check "ctl: foreign SQLite refused" grep -q "^start rc=-1 .*not an RPD trace" "$TESTDIR/stdout"
same_file "ctl: foreign SQLite unchanged" other.orig other.db
check_eq "ctl: tracer never loaded for refused files" "" "$(cat fake.log 2>/dev/null)"

check_rc "ctl: .gz name" 0 "$HOST" ctl file:t.rpd.gz start
check "ctl: .gz refused with the reason" grep -q "^start rc=-1 depth=0 err=cannot use 't.rpd.gz': the tracer writes plain SQLite" "$TESTDIR/stdout"
check "ctl: .gz refused: no file" test ! -e t.rpd.gz
chmod 640 new.rpd
check_rc "ctl: replace a 0640 trace" 0 "$HOST" ctl file:new.rpd start stop
check_eq "ctl: the replaced trace keeps its mode" "640" "$(stat -c %a new.rpd)"
check_rc "ctl: flush before start" 0 "$HOST" ctl flush
check "ctl: flush before start fails" grep -q "^flush rc=-1 .*not loaded" "$TESTDIR/stdout"
RPDT_FILENAME=elsewhere.rpd check_rc "ctl: RPDT_FILENAME wins" 0 "$HOST" ctl file:mine.rpd start stop
check "ctl: set_filename refused under RPDT_FILENAME" grep -q "^file:mine.rpd rc=-1 .*RPDT_FILENAME is already set to 'elsewhere.rpd'" "$TESTDIR/stdout"
check_eq "ctl: recorded into RPDT_FILENAME" "1" "$(q elsewhere.rpd "SELECT count(*) FROM rocpd_api")"
RPDT_TRACER_LIB=/nonexistent/librpd_tracer.so check_rc "ctl: missing tracer" 0 "$HOST" ctl file:t2.rpd start
check "ctl: missing tracer message" grep -q "^start rc=-1 depth=0 err=cannot load the tracer library '/nonexistent/librpd_tracer.so'" "$TESTDIR/stdout"
cd "$TESTDIR" || exit 1
