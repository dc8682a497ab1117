#!/bin/sh
# tests/tools/report-steps.sh - raptor --report's steps and steps_summary
# tables (common/analysis/steps.c): planted ProfilerStep#N markers (durations to the
# ns, busy/idle/kernels by hand), --step-marker, autograd-formatted marker
# text, the kernel-period fallback, warm-up, --steady-state, formats, errors.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

# Four steps on thread 1 (ProfilerStep#5..#8); step 5 is the long warm-up.
# Kernels (gpu 0): step 5: [1000,4000) and [3500,5000) overlap -> busy 4000;
# step 6 [11000,12000) (busy 1000, 1 kernel); step 7 two kernels of 500 and
# one starting at 16000 that runs into step 8 until 16500 (100 + 400).
steps_trace s.rpd   # tests/lib.sh
cp s.rpd s.orig

raptor s.rpd --report -q --csv-dir out >/dev/null 2>err.txt
check_eq "steps.csv: one row per marker, durations to the ns, busy/idle/kernels" \
"step,start_ms,dur_ms,gpu_busy_ms,idle_ms,kernels,steady
5,0.000000,0.009500,0.004000,0.005500,2,0
6,0.009500,0.003000,0.001000,0.002000,1,1
7,0.012500,0.003100,0.001100,0.002000,3,1
8,0.015600,0.002900,0.000400,0.002500,0,1" "$(tr -d '\r' <out/steps.csv)"
check_eq "steps_summary: markers, 1 warm-up left out, median/p10/p90 of the steady steps" \
"source,steps,warmup_steps,steady_steps,median_ms,p10_ms,p90_ms,spread_pct,kernels_per_step
markers,4,1,3,0.003000,0.002900,0.003100,6.667," "$(tr -d '\r' <out/steps_summary.csv)"
same_file "the trace is only read" s.orig s.rpd

# the markers in time order whatever their ids (the first and last swapped)
cp s.rpd o.rpd
sqlite3 o.rpd "UPDATE rocpd_api SET id = id + 100 WHERE id IN (1, 4); UPDATE rocpd_api SET id = 1 WHERE id = 104;
  UPDATE rocpd_api SET id = 4 WHERE id = 101"
raptor o.rpd --report -q --csv-dir oout >/dev/null 2>&1
check_eq "steps in time order whatever the marker ids" \
  "$(tr -d '\r' <out/steps.csv)" "$(tr -d '\r' <oout/steps.csv)"

# --steady-state: every table covers the ops starting in [10000, 19000)
raptor s.rpd --report -q --steady-state --csv-dir steady >/dev/null 2>&1
check_eq "--steady-state: kernel_summary counts the 4 kernels of steps 6-8" \
  "4" "$(tail -n +2 steady/kernel_summary.csv | awk -F, '{n += $2} END {print n}')"
check_eq "--steady-state: the steps table itself still lists every step" "4" \
  "$(tail -n +2 steady/steps.csv | wc -l)"
check_rc "--steady-state: exit 0" 0 raptor s.rpd --report --steady-state --table gpu_timeline

# --step-marker, and marker text in the autograd format
cp s.rpd m.rpd
sqlite3 m.rpd "UPDATE rocpd_ustring SET string = 'iteration ' || (id - 9100) || ', seq = 3, op_id = ' || id WHERE id BETWEEN 9101 AND 9104"
check_eq "default marker: none match, no period (fewer than 3 runs of a kernel) -> no steps table" \
  "" "$(raptor m.rpd --report --format json 2>/dev/null | grep -o '"steps"' | head -1)"
raptor m.rpd --report -q --step-marker '^iteration [0-9]+$' --csv-dir it >/dev/null 2>&1
check_eq "--step-marker on the name before ', ': numbered 1..4, same durations" \
  "1,0.009500 2,0.003000 3,0.003100 4,0.002900" \
  "$(tail -n +2 it/steps.csv | tr -d '\r' | cut -d, -f1,3 | tr '\n' ' ' | sed 's/ $//')"
check_rc "--table steps without steps: exit 1" 1 raptor m.rpd --report --table steps
check_one_line "--table steps without steps: one line"
check_rc "--steady-state without steps: exit 1" 1 raptor m.rpd --report --steady-state
check_one_line "--steady-state without steps: one line"
check_rc "--step-marker with a bad regex: exit 1" 1 raptor s.rpd --report --step-marker '(['
check_one_line "bad regex: one line"

# no markers at all: the period of the kernel sequence (GPU-only capture):
# a warm-up prefix x y, then 5 iterations of a b c b
rpd-synth --api 0 -o p.rpd >/dev/null
{
  echo "INSERT INTO rocpd_string(id, string) VALUES (9002, 'KernelExecution'), (9011, 'x'), (9012, 'y'), (9013, 'a'), (9014, 'b'), (9015, 'c');"
  t=1000; id=1
  for k in 9011 9012 $(for i in 1 2 3 4 5; do echo 9013 9014 9015 9014; done); do
    echo "INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, end, description_id, opType_id) VALUES ($id, 0, 0, 0, $t, $((t + 100)), $k, 9002);"
    t=$((t + 200)); id=$((id + 1))
  done
} | sqlite3 p.rpd
raptor p.rpd --report -q --csv-dir per >/dev/null 2>&1
check_eq "kernel period: 5 steps of 4 kernels from the first a; the last ends with its last kernel" \
  "0,0.000400,0.000800,0.000400,4 1,0.001200,0.000800,0.000400,4 2,0.002000,0.000800,0.000400,4 3,0.002800,0.000800,0.000400,4 4,0.003600,0.000700,0.000400,4" \
  "$(tail -n +2 per/steps.csv | tr -d '\r' | cut -d, -f1,2,3,4,6 | tr '\n' ' ' | sed 's/ $//')"
check_eq "kernel period summary" "kernel period,5,0,5" \
  "$(tail -n +2 per/steps_summary.csv | tr -d '\r' | cut -d, -f1-4)"
# the same kernels stored in reverse time order (ids falling as they
# start): both reads of the period come sorted, the same steps
rpd-synth --api 0 -o pr.rpd >/dev/null
{
  echo "INSERT INTO rocpd_string(id, string) VALUES (9002, 'KernelExecution'), (9011, 'x'), (9012, 'y'), (9013, 'a'), (9014, 'b'), (9015, 'c');"
  t=1000; id=100
  for k in 9011 9012 $(for i in 1 2 3 4 5; do echo 9013 9014 9015 9014; done); do
    echo "INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, end, description_id, opType_id) VALUES ($id, 0, 0, 0, $t, $((t + 100)), $k, 9002);"
    t=$((t + 200)); id=$((id - 1))
  done
} | sqlite3 pr.rpd
raptor pr.rpd --report -q --csv-dir perr >/dev/null 2>&1
check_eq "kernel period, kernels stored in reverse: the same steps" \
  "$(tail -n +2 per/steps.csv | tr -d '\r')" "$(tail -n +2 perr/steps.csv 2>/dev/null | tr -d '\r')"
# the rowid order is read in C while the opTypes and the kernels' gpuIds
# are integers; a text opType on another op (a copy) sends both reads and
# the GPU's pick to the queries: the same steps
cp p.rpd pt.rpd
sqlite3 pt.rpd "INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, end, description_id, opType_id)
  VALUES (99, 0, 1, 0, 1500, 1600, 9011, 'CopyDeviceToHost')"
raptor pt.rpd --report -q --csv-dir pert >/dev/null 2>&1
check_eq "kernel period, a text opType elsewhere (the queries): the same steps" \
  "$(tail -n +2 per/steps.csv | tr -d '\r')" "$(tail -n +2 pert/steps.csv 2>/dev/null | tr -d '\r')"

# every format
raptor s.rpd --report --table steps --format json >steps.json 2>/dev/null
check "JSON: the steps table loads" python3 -c "import json; d=json.load(open('steps.json')); t=d['steps'] if isinstance(d, dict) else d; assert len(t) == 4, t"
PY=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import openpyxl' 2>/dev/null; then PY=$p; break; fi
done
if [ -n "$PY" ]; then
  raptor s.rpd --report -q --xlsx s.xlsx --html s.html >/dev/null 2>&1
  check "xlsx: sheets steps and steps_summary" "$PY" -c "import openpyxl; wb=openpyxl.load_workbook('s.xlsx'); assert 'steps' in wb.sheetnames and 'steps_summary' in wb.sheetnames, wb.sheetnames; assert wb['steps'].max_row == 5"
  check "HTML names the steps table" grep -q 'steps_summary' s.html
else
  skip "xlsx: sheets steps and steps_summary" "python3-openpyxl not installed"
fi
same_file "the trace is still only read" s.orig s.rpd

# a real Kineto trace: its ProfilerStep#N host ranges (user_annotation; the
# gpu_user_annotation copy on the GPU timeline is not a marker) are the steps
K=$(ls "$TRACES"/kineto/tracelens_h100_*/trace.json.gz 2>/dev/null | head -1)
if [ -n "$K" ] && need_shared "$K"; then
  rpd-import "$K" k.rpd >/dev/null 2>&1
  want=$(gzip -dc "$K" | python3 -c "
import json, sys
from decimal import Decimal
d = json.load(sys.stdin, parse_float=Decimal)
print(' '.join('%s,%d' % (e['name'].split('#')[1], int(Decimal(e['dur']) * 1000))
      for e in sorted(d['traceEvents'], key=lambda e: Decimal(e.get('ts', 0)))
      if e.get('ph') == 'X' and e.get('cat', '').lower() == 'user_annotation'
      and str(e.get('name', '')).startswith('ProfilerStep#')))")
  raptor k.rpd --report -q --csv-dir kin >/dev/null 2>&1
  got=$(tail -n +2 kin/steps.csv | tr -d '\r' | python3 -c "
import sys
from decimal import Decimal
print(' '.join('%s,%d' % (r.split(',')[0], int(Decimal(r.split(',')[2]) * 1000000)) for r in sys.stdin.read().split()))")
  check_eq "Kineto bert-small: one row per ProfilerStep#N, durations to the ns ($want)" "$want" "$got"
fi
