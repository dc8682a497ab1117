#!/bin/sh
# augment-direct.sh - an augmenter given a rocprofv3 database or a PyTorch
# profiler (Kineto) trace with -o OUT writes OUT as rpd-import would write
# the trace, with its own result added (rpd_open: the import reader's trace
# in memory copied into OUT's work file; docs/common.md "Opening a trace"):
# the same rows, table for table, as `rpd-import IN T.rpd && TOOL T.rpd`;
# OUT.gz compressed; the input never modified; a re-run on OUT finds the
# result there; bad input is one line, exit 1 and no OUT; in place (no
# -o) it is refused with the hint to give -o.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

mkdir -p "$TESTDIR/tmp"
TMPDIR="$TESTDIR/tmp"; export TMPDIR

# rows NAME FILE: every table's rows of FILE, in a stable order, less the
# line naming the file the tool wrote into (rpd-import::source is the
# input's path in both)
rows() { sqlite3 "$2" .dump | grep -v "rpdtools-" >"$1"; }

# against NAME TOOL IN [ARGS]: TOOL IN -o NAME.o.rpd against the chain
# (the checks named by NAME and IN's last two path parts)
against() {
  a_n=$1; a_t=$2; a_in=$3; shift 3
  a_l="$a_t on $(basename "$(dirname "$a_in")")/$(basename "$a_in")"
  a_s=$(sha "$a_in")
  rm -f "$a_n.o.rpd" "$a_n.c.rpd"
  check_rc "$a_l: -o OUT" 0 "$a_t" -q "$a_in" -o "$a_n.o.rpd" "$@"
  rpd-import -q "$a_in" "$a_n.c.rpd" && "$a_t" -q "$a_n.c.rpd" "$@" >/dev/null 2>&1
  rows "$a_n.o.sql" "$a_n.o.rpd"
  rows "$a_n.c.sql" "$a_n.c.rpd"
  same_file "$a_l: OUT holds the chain's rows" "$a_n.o.sql" "$a_n.c.sql"
  check_eq "$a_l: the input is unchanged" "$a_s" "$(sha "$a_in")"
  check_eq "$a_l: nothing left in TMPDIR" "" "$(ls -A "$TMPDIR")"
}

# a small Kineto trace: a module call holding a linear layer (shapes for
# the model), its launch, the kernel, a copy
cat >k.json <<'EOF'
{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X"}],
 "traceEvents": [
  {"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 5, "tid": 5, "ts": 100.000, "dur": 60.000},
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 5, "tid": 5, "ts": 101.000, "dur": 50.000,
   "args": {"External id": 3, "Sequence number": 11, "Fwd thread id": 0,
            "Input Dims": [[32, 64], [128, 64], [128]], "Input type": ["float", "float", "float"],
            "Input Strides": [[64, 1], [64, 1], [1]], "Concrete Inputs": ["", "", ""]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 5, "tid": 5, "ts": 105.000, "dur": 40.000,
   "args": {"External id": 4, "Sequence number": 12, "Fwd thread id": 0,
            "Input Dims": [[128], [32, 64], [64, 128], [], []], "Input type": ["float", "float", "float", "Scalar", "Scalar"],
            "Input Strides": [[1], [64, 1], [1, 64], [], []], "Concrete Inputs": ["", "", "", "1", "1"]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 5, "tid": 5, "ts": 110.000, "dur": 8.000,
   "args": {"correlation": 21, "External id": 4}},
  {"ph": "X", "cat": "kernel", "name": "Cijk_Alik_Bljk_SB", "pid": 0, "tid": 3, "ts": 130.000, "dur": 12.500,
   "args": {"device": 0, "stream": 3, "correlation": 21, "grid": [4, 1, 1], "block": [256, 1, 1]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyAsync", "pid": 5, "tid": 5, "ts": 170.000, "dur": 4.000,
   "args": {"correlation": 22}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Host)", "pid": 0, "tid": 3, "ts": 180.000, "dur": 3.000,
   "args": {"device": 0, "stream": 3, "correlation": 22, "bytes": 32768}}
 ]}
EOF
for t in rpd-callstack rpd-autograd rpd-perfmodel rpd-analyze rpd-graph; do
  against "k-$t" "$t" k.json
done
check_eq "k: the model's rows are in OUT (aten::linear, aten::addmm)" "2" \
  "$(q k-rpd-perfmodel.o.rpd "select count(*) from ext_perf_op where category = 'GEMM'")"
check_eq "k: the call stack is in OUT" "1" \
  "$(q k-rpd-callstack.o.rpd "select count(*) > 0 from ext_callstack")"

# OUT.gz: compressed, the same rows; a re-run on it finds the result there
gzip -c k.json >k.json.gz
rm -f k.rpd.gz
check_rc "k.json.gz -o OUT.gz" 0 rpd-callstack -q k.json.gz -o k.rpd.gz
check "OUT.gz is gzip" gzip -t k.rpd.gz
gzip -dc k.rpd.gz >k.unz.rpd
rows k.unz.sql k.unz.rpd
sed 's/k\.json\.gz/k.json/' k.unz.sql >k.unz2.sql   # rpd-import::source names the input
same_file "OUT.gz: the chain's rows" k.unz2.sql k-rpd-callstack.c.sql
n0=$(q k.unz.rpd "select count(*) from ext_callstack")
check_rc "a re-run on OUT: exit 0" 0 rpd-callstack k.unz.rpd
check "a re-run on OUT: nothing to do" grep -q "already has" "$TESTDIR/stderr"
check_eq "a re-run on OUT: no row added" "$n0" "$(q k.unz.rpd "select count(*) from ext_callstack")"

# a rocprofv3 database of our own
if rpd-synth-rocpd -q --seed 2 --dispatches 300 -o small.db; then
  for t in rpd-callstack rpd-analyze rpd-graph; do
    against "db-$t" "$t" small.db
  done
  check_eq "db: the analysis is in OUT" "1" \
    "$(q db-rpd-analyze.o.rpd "select count(*) > 0 from ext_analysis_launch")"
else
  notok "rpd-synth-rocpd"
fi

# bad input: one line, exit 1, no OUT, the input unchanged, nothing left
head -c 700 k.json >trunc.json
gzip -c k.json | head -c 200 >trunc.json.gz
for f in trunc.json trunc.json.gz; do
  s=$(sha "$f")
  check_rc "$f: -o OUT exits 1" 1 rpd-callstack -q "$f" -o "$f.rpd"
  check_one_line "$f: one line"
  check "$f: it names the file" grep -q "^rpd-callstack: '$f': \|^rpd-callstack: cannot open '$f': " "$TESTDIR/stderr"
  check "$f: no OUT" test ! -e "$f.rpd"
  check_eq "$f: unchanged" "$s" "$(sha "$f")"
done
check_eq "bad input: nothing left in TMPDIR" "" "$(ls -A "$TMPDIR"; ls | grep rpdtools-)"

# OUT is the input: refused, the input unchanged
s=$(sha k.json)
check_rc "-o the input: exit 1" 1 rpd-callstack -q k.json -o k.json
check_one_line "-o the input: one line"
check_eq "-o the input: unchanged" "$s" "$(sha k.json)"
# OUT exists already: replaced whole, as for any -o
echo junk >old.rpd
check_rc "-o over an old file: exit 0" 0 rpd-analyze -q k.json -o old.rpd
check_eq "-o over an old file: a trace now" "1" "$(q old.rpd "select count(*) from rocpd_op where id = 2")"

# in place: refused, with the hint
check_rc "in place: exit 1" 1 rpd-graph k.json
check_eq "in place: the hint" \
  "rpd-graph: cannot open 'k.json': PyTorch profiler (Kineto) trace, not an RPD trace; convert it with: rpd-import k.json k.rpd, or write the result to a new trace with -o k.rpd" \
  "$(cat "$TESTDIR/stderr")"

# the shared traces: every Kineto trace and the rocprofv3 database
n=0
for t in $(find "$TRACES/kineto" -name '*.json.gz' 2>/dev/null | sort) "$TRACES/rocprofv3_28_results.db"; do
  [ -f "$t" ] || continue
  n=$((n + 1))
  against "shared$n" rpd-analyze "$t"
done
[ "$n" -gt 0 ] || skip "shared traces" "none under $TRACES"
