#!/bin/sh
# kineto-direct.sh - the read-only tools read a PyTorch profiler (Kineto)
# trace as it is (rpd-import's reader into an in-memory trace, registered
# with rpd_set_import_reader): `raptor T.json.gz --report --csv-dir D`
# writes what the three-step chain (rpd-import, rpd-perfmodel, raptor on
# the RPD file) writes, byte for byte, the per-category sheets included;
# rpd2table, rpd2tracing, rpd-health and classic raptor (its tables,
# domain/api statistics, by-rank) give on T what they give on its import; the trace is never modified; a bad or truncated JSON
# is one line and exit 1; writers still refuse it.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

mkdir -p "$TESTDIR/tmp"
TMPDIR="$TESTDIR/tmp"; export TMPDIR

# direct F TRACE: the one-command report against the chain's, and the
# other readers against the import (files F.*; checks named by TRACE's
# directory and name)
direct() {
  d_f=$1; d_t=$2; d_s=$(sha "$d_t")
  d_n="$(basename "$(dirname "$d_t")")/$(basename "$d_t")"
  rm -rf "$d_f.rpd" "$d_f.m.rpd" "$d_f-a" "$d_f-b"
  check "$d_n: rpd-import" rpd-import -q "$d_t" "$d_f.rpd" || return
  cp "$d_f.rpd" "$d_f.m.rpd"
  check "$d_n: rpd-perfmodel" rpd-perfmodel -q "$d_f.m.rpd"
  raptor "$d_f.m.rpd" --report -q --csv-dir "$d_f-a" >/dev/null 2>&1
  check_rc "$d_n: raptor --report reads the trace" 0 raptor "$d_t" --report -q --csv-dir "$d_f-b"
  same_dir "$d_n: --report --csv-dir: the chain's files" "$d_f-a" "$d_f-b"
  if [ "$(q "$d_f.m.rpd" "select count(*) from ext_perf_op where category != 'none'")" -gt 0 ]; then
    check "$d_n: the per-category sheets are there" test -s "$d_f-b/$(ls "$d_f-a" | grep -m1 -e GEMM -e Elementwise -e SDPA -e Normalization -e Reduce)"
  fi
  raptor "$d_f.rpd" >"$d_f.a.cl" 2>&1
  raptor "$d_t" >"$d_f.b.cl" 2>&1
  sed -i "s|$d_f.rpd|$d_t|g" "$d_f.a.cl"
  same_file "$d_n: classic raptor" "$d_f.a.cl" "$d_f.b.cl"
  # the other modes read more of the trace than the report (python calls)
  for mo in "--format domain-stats" "--format api-stats" "--by-rank"; do
    raptor "$d_f.rpd" $mo >"$d_f.a.mo" 2>&1
    raptor "$d_t" $mo >"$d_f.b.mo" 2>&1
    sed -i "s|$d_f.rpd|$d_t|g" "$d_f.a.mo"
    same_file "$d_n: raptor $mo" "$d_f.a.mo" "$d_f.b.mo"
  done
  rpd2table "$d_f.rpd" - >"$d_f.a.tab" 2>/dev/null
  check_rc "$d_n: rpd2table reads the trace" 0 rpd2table "$d_t" -
  same_file "$d_n: rpd2table" "$d_f.a.tab" "$TESTDIR/stdout"
  rpd2tracing -q "$d_f.rpd" "$d_f.a.json" 2>/dev/null
  check_rc "$d_n: rpd2tracing reads the trace" 0 rpd2tracing -q "$d_t" "$d_f.b.json"
  same_file "$d_n: rpd2tracing JSON" "$d_f.a.json" "$d_f.b.json"
  rpd-health "$d_f.rpd" >"$d_f.a.h" 2>&1
  rpd-health "$d_t" >"$d_f.b.h" 2>&1
  same_file "$d_n: rpd-health" "$d_f.a.h" "$d_f.b.h"
  check_eq "$d_n: the trace is unchanged" "$d_s" "$(sha "$d_t")"
  check_eq "$d_n: nothing left in TMPDIR" "" "$(ls -A "$TMPDIR")"
}

n=0
for t in $(find "$TRACES/kineto" -name '*.json.gz' -o -name '*.json' 2>/dev/null | sort); do
  n=$((n + 1))
  direct "k$n" "$t"
done
[ "$n" -gt 0 ] || skip "shared Kineto traces" "none under $TRACES/kineto"

# a small Kineto trace of our own (no shared files needed): one cpu_op
# with shapes that launched one kernel
cat >own.json <<'EOF'
{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X"}],
 "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10.000, "dur": 20.000,
   "args": {"External id": 1, "Input Dims": [[64, 128], [128, 256]], "Input type": ["c10::BFloat16", "c10::BFloat16"],
            "Input Strides": [[128, 1], [256, 1]], "Concrete Inputs": ["", ""]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 1, "tid": 1, "ts": 12.000, "dur": 5.000,
   "args": {"correlation": 7, "External id": 1}},
  {"ph": "X", "cat": "kernel", "name": "Cijk_gemm", "pid": 0, "tid": 7, "ts": 40.000, "dur": 3.500,
   "args": {"device": 0, "stream": 7, "correlation": 7, "grid": [1, 1, 1], "block": [256, 1, 1]}}
 ]}
EOF
direct own own.json
check "own: its GEMM sheet" grep -q "aten::mm" own-b/GEMM.csv

# bad input: one line, exit 1, the file unchanged, nothing left behind
head -c 600 own.json >trunc.json
gzip -c own.json | head -c 300 >trunc.json.gz
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": ' >bad.json
for f in trunc.json trunc.json.gz bad.json; do
  s=$(sha "$f")
  check_rc "$f: raptor --report exits 1" 1 raptor "$f" --report -q --csv-dir "$f-out"
  check_one_line "$f: one line"
  check "$f: it names the file" grep -q "^raptor: cannot open '$f': " "$TESTDIR/stderr"
  check "$f: no report directory" test ! -e "$f-out"
  check_rc "$f: rpd2table exits 1" 1 rpd2table "$f" -
  check_one_line "$f: rpd2table: one line"
  check_eq "$f: unchanged" "$s" "$(sha "$f")"
done
check_eq "bad input: nothing left in TMPDIR" "" "$(ls -A "$TMPDIR")"

# not a trace at all: the open's own message, as before
printf 'hello\n' >plain.txt
check_rc "a text file: exit 1" 1 raptor plain.txt --report -q
check_eq "a text file: today's message" "raptor: cannot open 'plain.txt': not an SQLite database" \
  "$(cat "$TESTDIR/stderr")"
printf '{"a": 1}\n' >other.json
check_rc "other JSON: exit 1" 1 raptor other.json --report -q
check_eq "other JSON: today's message" "raptor: cannot open 'other.json': not an SQLite database" \
  "$(cat "$TESTDIR/stderr")"

# an RPD trace is still read as the RPD trace it is
check_rc "an RPD trace: raptor --report" 0 raptor own.rpd --report -q --csv-dir rpd-out
check_eq "an RPD trace: no model added" "" "$(ls rpd-out | grep GEMM)"

# writers refuse it in place, unchanged, and say -o OUT would take it
cp own.json w.json; s=$(sha w.json)
check_rc "writer: rpd-callstack exits 1" 1 rpd-callstack w.json
check_one_line "writer: one line"
check_eq "writer: the line says what it is and how to convert it" \
  "rpd-callstack: cannot open 'w.json': PyTorch profiler (Kineto) trace, not an RPD trace; convert it with: rpd-import w.json w.rpd, or write the result to a new trace with -o w.rpd" \
  "$(cat "$TESTDIR/stderr")"
check_eq "writer: unchanged" "$s" "$(sha w.json)"
gzip -c own.json >w2.json.gz
check_rc "writer on .json.gz: rpd-perfmodel exits 1" 1 rpd-perfmodel w2.json.gz
check_eq "writer on .json.gz: the same hint" \
  "rpd-perfmodel: cannot open 'w2.json.gz': PyTorch profiler (Kineto) trace, not an RPD trace; convert it with: rpd-import w2.json.gz w2.rpd, or write the result to a new trace with -o w2.rpd" \
  "$(cat "$TESTDIR/stderr")"
check_rc "other JSON, a writer: exit 1" 1 rpd-callstack other.json
check_eq "other JSON, a writer: today's message" "rpd-callstack: cannot open 'other.json': not an SQLite database" \
  "$(cat "$TESTDIR/stderr")"
check_rc "raptor --report --save exits 1" 1 raptor w.json --report --save
check_eq "raptor --save: unchanged" "$s" "$(sha w.json)"
