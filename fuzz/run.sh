#!/bin/sh
# fuzz/run.sh TARGET... - run each libFuzzer target for FUZZ_SECONDS on its
# working corpus $FUZZ_OUT/corpus/NAME, seeded from fuzz/corpus/NAME and from
# strings of ../shared/traces (extracted at run time, never committed).
# Crash inputs land in $FUZZ_OUT/crashes/NAME-*.  Prints one line per target
# (runs, corpus size, result) and exits 1 if any target failed.
# Env: FUZZ_BIN, FUZZ_OUT, FUZZ_SECONDS (60), RPD_SHARED (../shared),
# FUZZ_JOBS (1: targets one after another).
: "${FUZZ_BIN:?}" "${FUZZ_OUT:?}"
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
here=$(cd "$(dirname "$0")" && pwd)
SHARED=${RPD_SHARED:-$here/../../shared}
mkdir -p "$FUZZ_OUT/crashes" "$FUZZ_OUT/logs" "$FUZZ_OUT/shared"

# strings of the real traces into $1 (one file each), selected by SQL $2;
# $3 is a prefix written before each (the deser target's 16 time bytes)
shared_strings() {
  command -v sqlite3 >/dev/null || return 0
  for tr in "$SHARED"/traces/*.rpd "$SHARED"/traces/*.rpd.gz; do
    [ -f "$tr" ] || continue
    db=$tr
    case "$tr" in *.gz)
      db="$FUZZ_OUT/shared/$(basename "$tr" .gz)"
      [ -s "$db" ] || gzip -dc "$tr" >"$db" 2>/dev/null || { rm -f "$db"; continue; } ;;
    esac
    n=$(basename "$tr")
    sqlite3 "$db" "SELECT writefile('$1/$n-' || rowid, '$3' || string) FROM ($2)" \
      >/dev/null 2>&1 || true
  done
}

seed() {  # TARGET CORPUSDIR
  [ -d "$here/corpus/$1" ] && cp "$here/corpus/$1"/* "$2"/ 2>/dev/null
  case "$1" in
    args) shared_strings "$2" "SELECT rowid, string FROM rocpd_ustring WHERE string LIKE '%=%' LIMIT 300" ""
          shared_strings "$2" "SELECT rowid, string FROM rocpd_string WHERE string LIKE '%=%' LIMIT 300" "" ;;
    deser) shared_strings "$2" "SELECT rowid, string FROM rocpd_string WHERE string LIKE '%s\\_%' ESCAPE '\\' OR string LIKE '%|%' LIMIT 300" "0000000000000000" ;;
    autograd) shared_strings "$2" "SELECT rowid, string FROM rocpd_string WHERE string LIKE '%, seq = %' OR string LIKE '%, op_id = %' LIMIT 300" "" ;;
    catfile) cp "$here/../raptor/categories.json" "$2/categories.json" 2>/dev/null ;;
    textsafe) shared_strings "$2" "SELECT rowid, string FROM rocpd_string ORDER BY length(string) DESC LIMIT 100" "" ;;
  esac
  return 0
}

fail=0
printf '%-12s %10s %8s %s\n' target runs corpus result
for t in "$@"; do
  bin="$FUZZ_BIN/fuzz_$t"
  if [ ! -x "$bin" ]; then
    printf '%-12s %10s %8s %s\n' "$t" - - "not built"; fail=1; continue
  fi
  corpus="$FUZZ_OUT/corpus/$t"
  mkdir -p "$corpus"
  seed "$t" "$corpus"
  log="$FUZZ_OUT/logs/$t.log"
  "$bin" -max_total_time="$FUZZ_SECONDS" -timeout=20 -rss_limit_mb=2048 -max_len=4096 \
    -print_final_stats=1 -artifact_prefix="$FUZZ_OUT/crashes/$t-" "$corpus" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  [ -n "$runs" ] || runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -1)
  n=$(ls "$corpus" | wc -l)
  if [ "$rc" = 0 ]; then res=ok
  else
    res="FAILED (exit $rc): $(ls -t "$FUZZ_OUT/crashes/$t-"* 2>/dev/null | head -1); log $log"
    fail=1
  fi
  printf '%-12s %10s %8s %s\n' "$t" "${runs:-?}" "$n" "$res"
done
exit $fail
