#!/bin/sh
# tests/run.sh - the one test runner behind `make test`.
# Runs every cmocka unit test program in $RPD_TESTBIN and every tool test
# script tests/tools/*.sh, and ends with "N passed, N failed, N skipped".
# A tool test script prints one line per check: "ok - ...", "not ok - ...",
# or "skip - ..." (see tests/lib.sh).  Set TESTS="name1 name2" to run a subset.
# Each tool script is announced ("RUN  name") when it starts, and while it
# runs a line every 30 s says how many checks it has done.
here=$(cd "$(dirname "$0")" && pwd)
: "${RPD_BIN:?}" "${RPD_TESTBIN:=}"
export RPD_BIN RPD_LIB RPD_TESTBIN
export RPD_SHARED="${RPD_SHARED:-$(cd "$here/../.." && pwd)/shared}"
out="${RPD_TESTOUT:-$here/out}"; rm -rf "$out"; mkdir -p "$out"
pass=0; fail=0; skip=0; failed=""

count() { # log name
  p=$(grep -c '^ok - ' "$1"); f=$(grep -c '^not ok - ' "$1"); s=$(grep -c '^skip - ' "$1")
  pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
  [ "$f" -gt 0 ] && failed="$failed $2"
}

selected() { [ -z "$TESTS" ] && return 0; for _s in $TESTS; do [ "$_s" = "$1" ] && return 0; done; return 1; }

for t in "$RPD_TESTBIN"/test_*; do
  [ -x "$t" ] || continue
  name=$(basename "$t"); selected "$name" || continue
  log="$out/$name.log"
  CMOCKA_MESSAGE_OUTPUT=stdout "$t" >"$log" 2>&1; rc=$?
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
  : "${p:=0}" "${f:=0}"
  if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  pass=$((pass + p)); fail=$((fail + f))
  if [ "$f" -gt 0 ]; then failed="$failed $name"; echo "FAIL $name (see $log)"; grep -E '^\[  (FAILED|ERROR) |Failure|ERROR' "$log" | head -20
  else echo "PASS $name ($p)"; fi
done

for s in "$here"/tools/*.sh; do
  [ -f "$s" ] || continue
  name=$(basename "$s" .sh); selected "$name" || continue
  log="$out/$name.log"
  work="$out/$name.d"; mkdir -p "$work"
  # say which script runs, and every 30 s how far it got: some scripts run
  # a thousand checks for minutes.  The reporter stops when this script is
  # killed too (as a background job it ignores ^C).
  echo "RUN  $name"
  (n=0; while sleep 10 >/dev/null 2>&1 && kill -0 $$ 2>/dev/null; do
     n=$((n + 1)); [ $((n % 3)) -eq 0 ] || continue
     echo "     $name: $(grep -c -e '^ok - ' -e '^not ok - ' -e '^skip - ' "$log" 2>/dev/null) checks so far ($((n * 10)) s)"
   done) &
  progress=$!
  (cd "$work" && TESTDIR="$work" sh "$s") >"$log" 2>&1; rc=$?
  kill -9 $progress 2>/dev/null; wait $progress 2>/dev/null
  if [ $rc -ne 0 ] && ! grep -q '^not ok - ' "$log"; then echo "not ok - $name: script exited $rc" >>"$log"; fi
  before=$fail; count "$log" "$name"
  if [ "$fail" -gt "$before" ]; then echo "FAIL $name:"; grep '^not ok - ' "$log" | head -20
  else echo "PASS $name ($(grep -c '^ok - ' "$log") checks, $(grep -c '^skip - ' "$log") skipped)"; fi
done

[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
