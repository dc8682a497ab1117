#!/bin/sh
# tests/bench.sh - `make bench`: runs every tests/bench/*.sh in order.
# Each piece sources tests/benchlib.sh and prints lines of the form
#   BENCH tool  rows=N  secs=S  rows/s=R  peak_rss_kb=K  (floor secs=F ratio=X)
# Traces are generated under $BENCHDIR (default /tmp/rpdtools-bench) and
# reused across runs; BENCH_ROWS sets the api row count (default 1000000).
here=$(cd "$(dirname "$0")" && pwd)
export RPD_BIN RPD_LIB
export BENCHDIR="${BENCHDIR:-/tmp/rpdtools-bench}"
export BENCH_ROWS="${BENCH_ROWS:-1000000}"
mkdir -p "$BENCHDIR"
for b in "$here"/bench/*.sh; do
  [ -f "$b" ] || continue
  echo "== $(basename "$b" .sh)"
  sh "$b" || echo "BENCH $(basename "$b" .sh) FAILED"
done
