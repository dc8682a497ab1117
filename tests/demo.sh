#!/bin/sh
# tests/demo.sh - `make demo`: generate a sample trace and run the suite on it.
# Each tool adds a piece tests/demo/NN-name.sh (run in order, sourced with
# $DEMO = the demo directory and $SAMPLE = the generated v3 sample trace).
set -e
here=$(cd "$(dirname "$0")" && pwd)
PATH="$RPD_BIN:$PATH"; export PATH
DEMO="$(cd "$here/.." && pwd)/demo"; export DEMO
SHARED="${RPD_SHARED:-$(cd "$here/../.." && pwd)/shared}"; export SHARED
rm -rf "$DEMO"; mkdir -p "$DEMO"
SAMPLE="$DEMO/sample.rpd"; export SAMPLE
echo "== rpd-synth: generating $SAMPLE"
rpd-synth --seed 1 --api 20000 --gpus 2 -o "$SAMPLE"
for p in "$here"/demo/*.sh; do
  [ -f "$p" ] || continue
  echo; echo "== $(basename "$p" .sh | sed 's/^[0-9]*-//')"
  . "$p"
done
echo; echo "demo: results are in $DEMO"
# what to look at next, with the program to open it
echo "open next:"
next_file() { [ -f "$DEMO/$1" ] && echo "  $2: $DEMO/$1"; return 0; }
next_file report.html "the report, one self-contained page (any web browser)"
next_file report.xlsx "the same report as a workbook (Excel, LibreOffice Calc)"
next_file trace.json.gz "the timeline (https://ui.perfetto.dev: Open trace file)"
next_file autograd.html "autograd operators (any web browser)"
next_file sample.rpd "the trace itself (raptor, rpd-analyze, sqlite3)"
echo "(the tools are in $RPD_BIN: put it on PATH, or 'make install PREFIX=~/.local')"
