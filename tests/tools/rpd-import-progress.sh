#!/bin/sh
# tests/tools/rpd-import-progress.sh - rpd-import's progress line (issue
# 15): on a terminal (run under script(1)) every input format shows the
# common line -- percent of bytes (JSON, CSV) or of input rows (rocprofv3
# database) with a rate -- ending at 100% on its own line; -q and a stderr
# that is not a terminal show none.  The inputs are large enough (about a
# second of work) for the line, which starts after 250 ms, to show.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

if ! command -v script >/dev/null 2>&1; then
  skip "rpd-import progress" "no script(1) to run under a terminal"
  exit 0
fi

# run_tty OUTFILE CMD...: CMD with stdout/stderr on a pseudo-terminal; the
# terminal's bytes, '\r' turned into newlines, in OUTFILE
run_tty() {
  _o=$1; shift
  script -qec "$*" /dev/null </dev/null | tr '\r' '\n' >"$_o"
}

# ---------------------------------------------------------------- database
N=150000
rpd-synth-rocpd -q --seed 2 --dispatches $N -o big.db
rows=$(q big.db "SELECT (SELECT count(*) FROM rocpd_region) + (SELECT count(*) FROM rocpd_arg)
  + (SELECT count(*) FROM rocpd_kernel_dispatch) + (SELECT count(*) FROM rocpd_memory_copy)")
run_tty db.tty rpd-import --force big.db big.rpd
check "db: progress lines in input rows with a rate" \
  grep -Eq "^rpd-import: reading database: [0-9]+/$rows rows \([0-9]+%\), [0-9.]+[kM]? rows/s" db.tty
check "db: the line ends at every input row, 100%" \
  grep -Eq "^rpd-import: reading database: $rows/$rows rows \(100%\)" db.tty
check "db: the summary follows on its own line" grep -q "^rpd-import: big.db -> big.rpd" db.tty
check_eq "db: the import is whole" "$N" "$(q big.rpd "SELECT count(*) FROM rocpd_op WHERE opType_id =
  (SELECT id FROM rocpd_string WHERE string = 'KernelExecution')")"
run_tty dbq.tty rpd-import -q --force big.db big.rpd
check_eq "db -q: nothing on the terminal" "" "$(tr -d '\n ' <dbq.tty)"
rpd-import --force big.db big.rpd 2>plain.err
check "db: no progress when stderr is a file" sh -c "! grep -q 'reading database' plain.err"
check "db: the summary still goes to the file" grep -q "wrote rocpd_op" plain.err
rm -f big.db big.rpd

# ---------------------------------------------------------------- JSON (.gz)
rocprofv3_json $N | gzip -1 >big.json.gz
gz=$(wc -c <big.json.gz | awk '{printf "%.1f", $1 / 1e6}')
run_tty json.tty rpd-import --force big.json.gz bigj.rpd
check "json.gz: progress in MB of the file read, with a rate" \
  grep -Eq "^rpd-import: reading JSON: [0-9.]+/$gz MB \([0-9]+%\), [0-9.]+[kM]? MB/s" json.tty
check "json.gz: the line ends at 100%" grep -Eq "^rpd-import: reading JSON: $gz/$gz MB \(100%\)" json.tty
check_eq "json.gz: the import is whole" "$N|$N" "$(q bigj.rpd "SELECT count(*), (SELECT count(*) FROM rocpd_api) FROM rocpd_op")"
rm -f big.json.gz bigj.rpd

# ---------------------------------------------------------------- CSV set
mkdir -p set
awk -v n=$((2 * N)) 'BEGIN {
  print "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Workgroup_Size_X\",\"Grid_Size_X\""
  for (i = 1; i <= n; i++)
    printf "\"KERNEL_DISPATCH\",\"Agent %d\",\"1\",\"77\",\"%d\",\"%d\",\"void kernel_%d<float, 64>(float*, float const*, int)\",\"%d\",\"%d\",\"%d\",\"256\",\"4096\"\n", 2 + i % 2, i, i % 50, i % 50, i, 1000000 + 100 * i, 1000060 + 100 * i
}' >set/1_kernel_trace.csv
# no agent_info.csv: the kernel file is read twice (agents, then rows),
# and the total says so
mb=$(wc -c <set/1_kernel_trace.csv | awk '{printf "%.1f", 2 * $1 / 1e6}')
run_tty csv.tty rpd-import --force set bigc.rpd
check "csv: progress in MB over both passes, with a rate" \
  grep -Eq "^rpd-import: reading CSV: [0-9.]+/$mb MB \([0-9]+%\), [0-9.]+[kM]? MB/s" csv.tty
check "csv: the line ends at 100%" grep -Eq "^rpd-import: reading CSV: $mb/$mb MB \(100%\)" csv.tty
check_eq "csv: the import is whole" "$((2 * N))" "$(q bigc.rpd "SELECT count(*) FROM rocpd_op")"
rm -rf set bigc.rpd
