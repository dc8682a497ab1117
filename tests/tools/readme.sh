#!/bin/sh
# The README's tour, SQL examples and Makefile chain run as written (on a
# smaller generated trace; the rocprofv3 lines use ../shared when present).
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"
readme="$(cd "$(dirname "$0")/../.." && pwd)/README.md"

# block HEADING LANG: the first ```LANG block after the line HEADING
block() {
  awk -v h="$1" -v l="$2" '$0 == h { f = 1; next }
    f == 1 && $0 == "```" l { f = 2; next }
    f == 2 && $0 == "```" { exit } f == 2 { print }' "$readme"
}

block "## A tour" sh >tour.sh
check "README has a tour" test -s tour.sh
n=0
while IFS= read -r line; do
  cmd=${line%%#*}                       # drop the comment
  case $cmd in *[!\ ]*) ;; *) continue ;; esac
  cmd=$(echo "$cmd" | sed 's/--api 200000/--api 20000/')
  case $cmd in
    *run_results.json.gz*)
      need_shared "$TRACES/rocprofv3_908_results.json.gz" || continue
      cmd=$(echo "$cmd" | sed "s|run_results.json.gz|$TRACES/rocprofv3_908_results.json.gz|") ;;
    *step.pt.trace.json.gz*)
      _k="$TRACES/kineto/tracelens_h100_gaunernst_bert-small-uncased__1016001/trace.json.gz"
      need_shared "$_k" || continue
      cmd=$(echo "$cmd" | sed "s|step.pt.trace.json.gz|$_k|") ;;
    *step.rpd*) [ -f step.rpd ] || { skip "tour: $cmd (no step.rpd)"; continue; } ;;
    *run.rpd*) [ -f run.rpd ] || { skip "tour: $cmd (no run.rpd)"; continue; } ;;
  esac
  n=$((n + 1))
  check "tour: $cmd" sh -c "$cmd"
done <tour.sh
check "tour ran its commands" test "$n" -ge 12

# the SQL examples: every sqlite3 command in the "Then plain SQL" block
block "### Then plain SQL" sh >sql.sh
check_eq "SQL examples run" 0 "$(sh sql.sh >sql.out 2>sql.err; echo $?)"
check "SQL examples print rows" test "$(wc -l <sql.out)" -ge 6
check_eq "SQL examples print no errors" "" "$(cat sql.err)"

# the Makefile chain builds, then has nothing to do
mkdir mk && block "### In a Makefile" make >mk/Makefile
rpd-synth --seed 5 --api 3000 -o mk/a.rpd >/dev/null
# the user's make, not a sub-make of ours: no jobserver flags from `make -jN test`
unset MAKEFLAGS MFLAGS MAKELEVEL
check "Makefile chain builds" make -s -C mk a.json.gz a.top.csv
check "Makefile chain: trace JSON written" test -s mk/a.json.gz
check "Makefile chain: kernel sequences written" test -s mk/a.top.csv
check_eq "Makefile chain: second make has nothing to do" "" \
  "$(make -s -C mk a.json.gz a.top.csv 2>&1 | grep -v 'up to date')"

# a newcomer's path: the README says how to reach bin/ (PATH or make
# install), and those lines work as written from the top of the tree
top=$(dirname "$readme")
awk '/^The tools are built into `bin\/`/ { f = 1 } f && /^```sh$/ { g = 1; next } g && /^```$/ { exit } g { print }' "$readme" >path.sh
check "README: says to put bin/ on PATH" grep -q '^export PATH="$PWD/bin:$PATH"' path.sh
check "README: says make install PREFIX" grep -q '^make install PREFIX=' path.sh
# (a SANITIZE=1 build lives in build/san/bin, not in the bin/ the README names)
if [ "$RPD_BIN" = "$top/bin" ]; then
  check_eq "README: its PATH line finds the tools" "$top/bin/raptor" \
    "$(cd "$top" && PATH=/usr/bin:/bin; eval "$(grep '^export PATH' "$TESTDIR/path.sh")"; command -v raptor)"
else
  skip "README: its PATH line finds the tools (the tools under test are in $RPD_BIN, not bin/)"
fi
# make demo writes the report as HTML and xlsx and names what to open
check "demo: the report piece writes --html and --xlsx" \
  grep -q -- '--html "$DEMO/report.html" --xlsx "$DEMO/report.xlsx"' "$top/tests/demo/60-import.sh"
check "demo: ends naming report.html, report.xlsx and the Perfetto trace" \
  sh -c "grep -q 'next_file report.html' '$top/tests/demo.sh' && grep -q 'next_file report.xlsx' '$top/tests/demo.sh' && grep -q 'next_file trace.json.gz' '$top/tests/demo.sh'"
