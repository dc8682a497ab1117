#!/bin/sh
# tests/tools/report-ranks.sh - raptor --report on a merged multi-rank trace
# (issue 17 item 2): the byrank_* tables of raptor --by-rank appear in every
# report format (stdout table/CSV/JSON, --csv-dir, --xlsx, --html) with the
# same numbers as --by-rank, and name the planted straggler (rank 3 of 4:
# every collective starts late) and the planted slow kernel (attn_fwd on
# rank 2 = N/2); a single-rank trace has none of them.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

PY=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import openpyxl' 2>/dev/null; then PY=$p; break; fi
done

for r in 0 1 2 3; do
  rpd-synth --ranks 4 --rank $r --api 3000 -o r$r.rpd >/dev/null || notok "synth rank $r"
done
rpd-merge -q -o m.rpd r0.rpd r1.rpd r2.rpd r3.rpd || notok "merge"
cp m.rpd m.orig

# ---------------------------------------------------------------- every format
check_rc "report of the merged trace: csv, xlsx, html" 0 \
  raptor m.rpd --report -q --csv-dir rep --xlsx rep.xlsx --html rep.html
same_file "the trace is byte-identical" m.rpd m.orig
check_rc "by-rank of the same trace" 0 raptor m.rpd --by-rank --csv-dir br
for t in ranks categories kernels sequences collectives stragglers; do
  same_file "csv: byrank_$t.csv = --by-rank's $t.csv (byte for byte)" br/$t.csv rep/byrank_$t.csv
done

# the planted answers, read from the report's own files
check_eq "byrank_stragglers: rank 3 is last at every one of its collectives" "3 49 49" \
  "$(tr -d '\r' <rep/byrank_stragglers.csv | sed -n 2p | cut -d, -f1-3 | tr , ' ')"
check_eq "byrank_stragglers: no other rank is ever last" "0" \
  "$(tr -d '\r' <rep/byrank_stragglers.csv | tail -n +3 | cut -d, -f3 | sort -u)"
slowest=$(tr -d '\r' <rep/byrank_kernels.csv | sed -n 2p)
check_eq "byrank_kernels: the most imbalanced kernel is attn_fwd, slowest on rank 2" \
  "attn_fwd 2" "$(echo "$slowest" | awk -F, '{print $1, $(NF-1)}')"
# rank 2's attn_fwd total against an independent query of rocpd_op
want=$(q m.rpd "SELECT printf('%.3f', sum(O.end - O.start) / 1000.0) FROM rocpd_op O
  JOIN rocpd_string S ON S.id = O.description_id WHERE S.string = 'attn_fwd'
  AND O.gpuId / 1000 = 2")
check_eq "byrank_kernels: rank2_us of attn_fwd = sum over rocpd_op" "$want" \
  "$(echo "$slowest" | awk -F, '{printf "%.3f", $6}')"
check_eq "byrank_ranks: four ranks" 4 "$(tr -d '\r' <rep/byrank_ranks.csv | tail -n +2 | wc -l | tr -d ' ')"

# stdout: JSON keys, table headings, one table as CSV
raptor m.rpd --report --format json >rep.json 2>rep.err
check "json: parses, has the six byrank tables after the core ones, then api_stats" python3 -c "
import json; d = json.load(open('rep.json')); k = list(d)
assert k[6:] == ['byrank_ranks', 'byrank_categories', 'byrank_kernels', 'byrank_sequences',
                 'byrank_collectives', 'byrank_stragglers', 'idle_definitions', 'api_stats'], k
assert d['byrank_stragglers'][0]['rank'] == 3 and d['byrank_stragglers'][0]['times_last'] == 49
assert d['byrank_kernels'][0]['kernel'] == 'attn_fwd' and d['byrank_kernels'][0]['slowest_rank'] == 2"
raptor m.rpd --by-rank --format json >br.json
check "json: byrank_* = --by-rank's json, table by table" python3 -c "
import json; a = json.load(open('rep.json')); b = json.load(open('br.json'))
for t in b: assert a['byrank_' + t] == b[t], t"
check_eq "table: the byrank headings" 6 "$(raptor m.rpd --report | grep -c '^# byrank_')"
raptor m.rpd --report --format csv --table byrank_collectives >coll.csv
same_file "--table byrank_collectives --format csv = --by-rank's (byte for byte)" br/collectives.csv coll.csv
check_rc "--rank-top 1" 0 raptor m.rpd --report --table byrank_kernels --format csv --rank-top 1
check_eq "--rank-top 1: one kernel row" 2 "$(tr -d '\r' <stdout | wc -l | tr -d ' ')"
check_rc "--rank-top x: usage" 2 raptor m.rpd --report --rank-top x

# html: the section, its charts and tables
check "html: the cross-rank section" grep -q 'Across ranks (raptor --by-rank)' rep.html
check_eq "html: 6 core + 3 cross-rank charts" 9 "$(grep -c '<svg' rep.html)"
check_eq "html: 8 core + idle_definitions + api_stats + 6 cross-rank tables" 16 "$(grep -c '<table class="data"' rep.html)"
check "html: rank 3 arrives last 49 times (chart)" grep -q '<title>rank 3: 49.00 times</title>' rep.html
check "html: info says 4 ranks" grep -q '<td>4 (cross-rank tables byrank_\*)</td>' rep.html

if [ -n "$PY" ]; then
  check "xlsx: byrank sheets with the same rows as the CSV, charts" "$PY" -c "
import csv, openpyxl
wb = openpyxl.load_workbook('rep.xlsx')
for t in ['ranks', 'categories', 'kernels', 'sequences', 'collectives', 'stragglers']:
    ws = wb['byrank_' + t]
    rows = list(csv.reader(open('br/' + t + '.csv')))
    assert ws.max_row == len(rows), (t, ws.max_row, len(rows))
    for r, row in enumerate(rows, 1):
        for c, v in enumerate(row, 1):
            x = ws.cell(r, c).value
            if v == '': assert x is None, (t, r, c, x)
            else:
                try: assert abs(float(v) - float(x)) < 1e-9, (t, r, c, v, x)
                except ValueError: assert str(x) == v, (t, r, c, v, x)
assert len(wb['byrank_kernels']._charts) == 1 and len(wb['byrank_ranks']._charts) == 1
info = {r[0].value: r[1].value for r in wb['info'].iter_rows() if r[0].value}
assert info['ranks'].startswith('4 '), info"
else
  skip "xlsx: byrank sheets" "no python3 with openpyxl (apt-get install python3-openpyxl)"
fi

# LibreOffice renders the workbook with the cross-rank sheets and charts
if command -v soffice >/dev/null 2>&1 && command -v pdftotext >/dev/null 2>&1; then
  mkdir -p lo pdf
  if HOME="$TESTDIR/lo" timeout 180 soffice --headless --norestore --convert-to pdf \
       --outdir pdf rep.xlsx >lo.log 2>&1 && [ -s pdf/rep.pdf ]; then
    pdftotext -layout pdf/rep.pdf rep.txt
    check "LibreOffice PDF: the imbalance chart" grep -q "Kernel imbalance across ranks" rep.txt
    check "LibreOffice PDF: the stragglers sheet" grep -q "times_last" rep.txt
    if command -v pdftoppm >/dev/null 2>&1; then
      pdftoppm -r 40 -png pdf/rep.pdf page
      check "LibreOffice PDF renders to PNG pages" test -s page-01.png
    fi
  else
    notok "LibreOffice renders the cross-rank workbook to PDF" "$(tail -3 lo.log)"
  fi
else
  skip "LibreOffice rendering" "no soffice or pdftotext"
fi

# ---------------------------------------------------------------- one rank
check_rc "report of one rank" 0 raptor r0.rpd --report -q --csv-dir one --html one.html
check_eq "one rank: no byrank CSV files" 0 "$(ls one | grep -c byrank_)"
check "one rank: the info says so" grep -q '<td>one rank (no cross-rank tables)</td>' one.html
check_eq "one rank: no cross-rank section" 0 "$(grep -c 'Across ranks' one.html)"
check_rc "one rank: --table byrank_kernels is an error" 1 raptor r0.rpd --report --table byrank_kernels
check_one_line "one rank: --table byrank_kernels: one line"
check_rc "merged, --gpu-id 2000: one GPU is one rank" 0 raptor m.rpd --report --gpu-id 2000 --format json
check "merged, --gpu-id: no byrank tables" python3 -c "
import json; assert not [k for k in json.load(open('stdout')) if k.startswith('byrank_')]"
