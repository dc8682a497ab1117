#!/bin/sh
# tests/tools/report-analysis.sh - the rpd-analyze tables in raptor --report
# (issue 18 item 6): after rpd-analyze, every ext_analysis_* table is a
# report table analysis_* in stdout (table, CSV, JSON), --csv-dir, --xlsx
# and --html (tables and the idle breakdown chart), with exactly the values
# of the trace's tables (read here with Python's sqlite3); without
# rpd-analyze there are none.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

PY=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import openpyxl' 2>/dev/null; then PY=$p; break; fi
done

rpd-synth --api 4000 -o a.rpd >/dev/null || notok "synth"
cp a.rpd plain.rpd
rpd-analyze -q a.rpd >/dev/null 2>&1 || notok "rpd-analyze"
cp a.rpd a.orig

# name in the report, query of the trace (as the report reads it)
cat >tables.py <<'EOF'
TABLES = [
  ("analysis_idle", "SELECT * FROM ext_analysis_idle ORDER BY gpuId"),
  ("analysis_launch", "SELECT * FROM ext_analysis_launch"),
  ("analysis_queue", "SELECT * FROM ext_analysis_queue ORDER BY gpuId, queueId"),
  ("analysis_overlap", "SELECT * FROM ext_analysis_overlap ORDER BY gpuId"),
  ("analysis_memcpy", "SELECT * FROM ext_analysis_memcpy"),
  ("analysis_findings", "SELECT * FROM ext_analysis_findings ORDER BY id"),
  ("analysis_rules", "SELECT * FROM ext_analysis_rules"),
]
import sqlite3
def trace_rows(path, sql):
    db = sqlite3.connect(path)
    cur = db.execute(sql)
    cols = [d[0] for d in cur.description]
    return cols, [list(r) for r in cur]
EOF
check_eq "the fixture has idle rows, launch rows and findings" "yes" \
  "$(q a.rpd "SELECT CASE WHEN (SELECT count(*) FROM ext_analysis_idle) > 0 AND
     (SELECT count(*) FROM ext_analysis_launch) > 0 AND
     (SELECT count(*) FROM ext_analysis_findings) > 0 THEN 'yes' ELSE 'no' END")"

# ---------------------------------------------------------------- stdout
check_rc "json" 0 raptor a.rpd --report --format json
cp stdout rep.json
check "json: every analysis table, values equal to ext_analysis_*" python3 -c "
import json; exec(open('tables.py').read())
d = json.load(open('rep.json'))
assert [k for k in d if k.startswith('analysis_')] == [t for t, _ in TABLES], list(d)
for name, sql in TABLES:
    cols, rows = trace_rows('a.rpd', sql)
    got = d[name]
    assert len(got) == len(rows), (name, len(got), len(rows))
    for g, r in zip(got, rows):
        assert list(g) == cols, (name, list(g), cols)
        assert list(g.values()) == r, (name, g, r)"
check_rc "table format" 0 raptor a.rpd --report
check_eq "table: the seven analysis headings" 7 "$(grep -c '^# analysis_' stdout)"
check_eq "table: analysis_idle has one line per GPU" \
  "$(q a.rpd 'SELECT count(*) FROM ext_analysis_idle')" \
  "$(sed -n '/^# analysis_idle$/,/^$/p' stdout | tail -n +4 | grep -c .)"
raptor a.rpd --report --table analysis_idle --format csv | tr -d '\r' >idle.csv
sqlite3 -batch -header -csv a.rpd 'SELECT * FROM ext_analysis_idle ORDER BY gpuId' | tr -d '\r' >idle.want
same_file "--table analysis_idle --format csv = sqlite3's csv of ext_analysis_idle" idle.want idle.csv
raptor a.rpd --report --table analysis_findings --format csv | tr -d '\r' >find.csv
sqlite3 -batch -header -csv a.rpd 'SELECT * FROM ext_analysis_findings ORDER BY id' | tr -d '\r' >find.want
check "--table analysis_findings --format csv = sqlite3's csv, by content" python3 -c "
import csv
a = list(csv.reader(open('find.want'))); b = list(csv.reader(open('find.csv')))
assert len(a) > 1 and a == b, (len(a), len(b))"

# ---------------------------------------------------------------- html
check_rc "html" 0 raptor a.rpd --report -q --html rep.html --csv-dir rep
same_file "the trace is byte-identical" a.rpd a.orig
check "html: the analysis section" grep -q 'Why is the GPU idle? (rpd-analyze)</h2>' rep.html
check_eq "html: 6 core charts + the idle breakdown" 7 "$(grep -c '<svg' rep.html)"
check_eq "html: 8 core + idle_definitions + api_stats + 7 analysis tables" 17 "$(grep -c '<table class="data"' rep.html)"
check "html: analysis tables' cells carry the trace's values" python3 -c "
import html.parser; exec(open('tables.py').read())
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.t = {}; s.cur = None; s.row = None; s.td = None; s.svg = 0; s.bars = []
    def handle_starttag(s, tag, a):
        a = dict(a)
        if tag == 'table' and a.get('id', '').startswith('t-'): s.cur = a['id'][2:]; s.t[s.cur] = []
        elif tag == 'tr' and s.cur: s.row = []
        elif tag == 'td' and s.row is not None: s.td = a; s.text = ''
        elif tag == 'rect' and s.idle: s.bars.append(a)
        if tag == 'svg': s.idle = False
    idle = False
    def handle_data(s, d):
        if s.td is not None: s.text += d
        if 'Why is the GPU idle? (rpd-analyze: share' in d: s.idle = True
    def handle_endtag(s, tag):
        if tag == 'td' and s.td is not None:
            s.row.append(s.td.get('data-v', s.text)); s.td = None
        elif tag == 'tr' and s.row is not None:
            if s.row: s.t[s.cur].append(s.row)
            s.row = None
        elif tag == 'table': s.cur = None
p = P(); p.feed(open('rep.html').read())
for name, sql in TABLES:
    cols, rows = trace_rows('a.rpd', sql)
    got = p.t[name]
    assert len(got) == len(rows), (name, len(got), len(rows))
    for g, r in zip(got, rows):
        for x, y in zip(g, r):
            if y is None: assert x == '', (name, x)
            elif isinstance(y, (int, float)): assert float(x) == y, (name, x, y)
            else: assert x == y, (name, x, y)
"
check "html: idle chart has a bar per GPU and part, widths in span proportion" python3 -c "
import re; exec(open('tables.py').read())
page = open('rep.html').read()
svg = page[page.index('rpd-analyze: share of each GPU'):]
svg = svg[:svg.index('</svg>')]
bars = re.findall(r'<title>(\w+): ([0-9.]+) ms \(([0-9.]+)%\)</title><rect x=\"[0-9.]+\" y=\"[0-9]+\" width=\"([0-9.]+)\"', svg)
cols, rows = trace_rows('a.rpd', 'SELECT span_ns, busy_ns, host_wait_ns, kernel_wait_ns, other_ns FROM ext_analysis_idle ORDER BY gpuId')
assert len(bars) == 4 * len(rows), (len(bars), len(rows))
for i, r in enumerate(rows):
    for k, part in enumerate(['busy_ns', 'host_wait_ns', 'kernel_wait_ns', 'other_ns']):
        name, ms, pct, w = bars[4 * i + k]
        assert name == part and abs(float(ms) - r[k + 1] / 1e6) < 5e-4, (name, ms, r)
        assert abs(float(pct) - 100.0 * r[k + 1] / r[0]) < 0.05, (pct, r)
"
check_eq "csv-dir: seven analysis files" 7 "$(ls rep | grep -c '^analysis_.*\.csv$')"

if ! find_chrome; then
  skip "html in headless Chromium" "no chromium (apt-get install chromium)"
else
  # the page's script sorts the analysis_idle table by idle_ns (descending)
  sed 's#</body>#<script>var t=document.getElementById("t-analysis_idle");var h=t.tHead.rows[0].cells[3];h.click();h.click();document.body.setAttribute("data-result",t.tBodies[0].rows[0].cells[3].getAttribute("data-v"));</script></body>#' \
    rep.html >probe.html
  chrome_run --dump-dom "file://$TESTDIR/probe.html" >dom.html 2>chr.err
  check_eq "chromium: analysis_idle sorted by idle_ns desc" \
    "data-result=\"$(q a.rpd 'SELECT max(idle_ns) FROM ext_analysis_idle')\"" \
    "$(grep -o 'data-result="[^"]*"' dom.html)"
  chrome_run --window-size=1400,1800 --screenshot="$TESTDIR/analysis.png" "file://$TESTDIR/rep.html" >/dev/null 2>&1
  check "chromium: screenshot of the page" test -s analysis.png
fi

if [ -n "$PY" ]; then
  raptor a.rpd --report -q --xlsx rep.xlsx 2>/dev/null
  check "xlsx: analysis sheets = ext_analysis_* (reals to Excel's precision), idle chart" "$PY" -c "
import openpyxl; exec(open('tables.py').read())
wb = openpyxl.load_workbook('rep.xlsx')
for name, sql in TABLES:
    cols, rows = trace_rows('a.rpd', sql)
    ws = wb[name]
    assert [c.value for c in ws[1]][:len(cols)] == cols, name
    for i, r in enumerate(rows, 2):
        for k, y in enumerate(r, 1):
            x = ws.cell(i, k).value
            if isinstance(y, int) and abs(y) > 2**53: x = int(x)
            if isinstance(y, float): assert abs(x - y) <= 1e-12 * abs(y), (name, i, k, x, y)
            else: assert x == y, (name, i, k, x, y)
assert len(wb['analysis_idle']._charts) == 1"
  if command -v soffice >/dev/null 2>&1 && command -v pdftotext >/dev/null 2>&1; then
    mkdir -p lo pdf
    if HOME="$TESTDIR/lo" timeout 180 soffice --headless --norestore --convert-to pdf \
         --outdir pdf rep.xlsx >lo.log 2>&1 && [ -s pdf/rep.pdf ]; then
      pdftotext -layout pdf/rep.pdf rep.txt
      check "LibreOffice PDF: the idle breakdown chart" grep -q "GPU idle time breakdown" rep.txt
      check "LibreOffice PDF: the findings sheet" grep -q "gpu_starvation" rep.txt
    else
      notok "LibreOffice renders the analysis workbook to PDF" "$(tail -3 lo.log)"
    fi
  else
    skip "LibreOffice rendering" "no soffice or pdftotext"
  fi
else
  skip "xlsx: analysis sheets" "no python3 with openpyxl (apt-get install python3-openpyxl)"
fi

# ---------------------------------------------------------------- without
check_rc "no analysis: json" 0 raptor plain.rpd --report --format json
check "no analysis: no analysis tables" python3 -c "
import json; assert not [k for k in json.load(open('stdout')) if k.startswith('analysis_')]"
check_rc "no analysis: --table analysis_idle is an error" 1 raptor plain.rpd --report --table analysis_idle
check_one_line "no analysis: one line"
