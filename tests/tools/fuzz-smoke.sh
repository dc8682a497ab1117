#!/bin/sh
# fuzz-smoke: a short bounded slice of `make fuzz` (docs/fuzzing.md): every
# libFuzzer target over the reproducers of fuzz/crashes/ (fixed findings stay
# fixed; those listed in fuzz/crashes/open.txt may still fail), its committed
# seeds (fuzz/corpus/NAME), then 3000 mutations with a fixed seed (at most
# 8 s each).  Needs the targets built by test-run (clang); skips without.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"
REPO=$(cd "$(dirname "$0")/../.." && pwd)
FB=${RPD_FUZZBIN:-}
OPEN="$REPO/fuzz/crashes/open.txt"

set -- "$FB"/fuzz_*
if [ -z "$FB" ] || [ ! -x "$1" ]; then
  skip "fuzz targets" "not built (needs clang: make deps; then make test-run builds them)"
  exit 0
fi

for bin in "$FB"/fuzz_*; do
  t=${bin##*/fuzz_}
  blocked=
  for c in "$REPO/fuzz/crashes/$t"-*; do
    [ -f "$c" ] || continue
    name=${c##*/}
    owner=$(awk -v n="$name" '$1 == n {print $2}' "$OPEN" 2>/dev/null)
    if "$bin" "$c" >"$TESTDIR/repro.log" 2>&1; then
      ok "$t: finding $name does not crash"
      [ -n "$owner" ] && echo "# $name passes now: delete its line from fuzz/crashes/open.txt"
    elif [ -n "$owner" ]; then
      skip "$t: finding $name" "still open (owner $owner, fuzz/crashes/open.txt)"
      blocked=1
    else
      notok "$t: fixed finding $name is back" "$(grep -m1 -E '^fuzz:|runtime error|ERROR' "$TESTDIR/repro.log")"
    fi
  done
  if [ -n "$blocked" ]; then
    skip "$t: seeds and 3000 mutations" "a known finding is open"
    continue
  fi
  corpus="$TESTDIR/corpus-$t"
  mkdir -p "$corpus"
  [ -d "$REPO/fuzz/corpus/$t" ] && cp "$REPO/fuzz/corpus/$t"/* "$corpus"/
  nseeds=$(ls "$corpus" | wc -l)
  "$bin" -runs=3000 -max_total_time=8 -seed=1 -timeout=20 -max_len=4096 \
    -artifact_prefix="$TESTDIR/crash-$t-" "$corpus" >"$TESTDIR/$t.log" 2>&1
  rc=$?
  runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$TESTDIR/$t.log" | tail -1)
  if [ "$rc" = 0 ] && [ -n "$runs" ] && [ "$runs" -gt 0 ]; then
    ok "$t: $nseeds seeds and $runs mutations without a finding"
  else
    notok "$t: seeds and mutations" "exit $rc: $(grep -m1 -E '^fuzz:|runtime error|ERROR' "$TESTDIR/$t.log"); input $(ls "$TESTDIR"/crash-"$t"-* 2>/dev/null | head -1)"
  fi
done
