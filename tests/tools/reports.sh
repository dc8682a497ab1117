#!/bin/sh
# tests/tools/reports.sh - the reports people look at (issue 15): raptor
# --report --xlsx and raptor -x workbooks read back with openpyxl (sheets,
# cell types, number formats, widths, frozen header, filter, charts, exact
# values of the utilization and idle_gaps sheets), rendered by LibreOffice
# headless to PDF/PNG, the --html page parsed and run in headless Chromium
# (sort and filter), TraceLens option and sheet names.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

# a python3 with openpyxl: the first python3 on PATH may be a private one
PY=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import openpyxl' 2>/dev/null; then PY=$p; break; fi
done

# The hand-computed fixture of raptor-report.sh: GPU0 busy 10..60 us (one
# run), GPU1 busy 10..13 and 70..90 us (one 57 us gap); ops span 10..90 us.
report_fixture
cp rep.rpd rep.orig

# ---------------------------------------------------------------- options
check_rc "--report --xlsx --html with --util-bins 8" 0 \
  raptor rep.rpd --report -q --xlsx rep.xlsx --html rep.html --util-bins 8
same_file "the trace is byte-identical" rep.rpd rep.orig
check_rc "TraceLens names: --output_xlsx_path --output_csvs_dir --topk_kernels --short_kernel_threshold_us" 0 \
  raptor rep.rpd --report -q --output_xlsx_path tl.xlsx --output_csvs_dir tl --topk_kernels 2 \
  --short_kernel_threshold_us 5
check_eq "--topk_kernels 2: two kernel_details rows" 3 "$(wc -l <tl/kernel_details.csv | tr -d ' ')"
check_eq "--short_kernel_threshold_us 5: short kernels are the 2 and 3 us ones" \
  "elementwise_kernel,2" "$(tr -d '\r' <tl/short_kernels.csv | tail -n +2 | cut -d, -f1,2)"
check "--output_xlsx_path wrote a workbook" test -s tl.xlsx
check_rc "--kernel_details: every dispatch" 0 raptor rep.rpd --report -q --kernel_details --csv-dir kd
check_eq "--kernel_details: 6 kernel_details rows" 7 "$(wc -l <kd/kernel_details.csv | tr -d ' ')"
raptor rep.rpd --report --table category --format csv >cat1.csv
raptor rep.rpd --report --table kernel_summary_by_category --format csv >cat2.csv
check_eq "--table kernel_summary_by_category = category" "$(cat cat1.csv)" "$(cat cat2.csv)"
raptor rep.rpd --report --table short_kernels_summary --format json >sk.json
check "--table short_kernels_summary prints short_kernels" grep -q '"short_kernels"' sk.json
check_rc "--table short_kernel_histogram" 0 raptor rep.rpd --report --table short_kernel_histogram
raptor report --help >help.txt
for o in --html --xlsx --short-kernel-threshold-us --output_xlsx_path --topk_kernels --kernel_details \
         kernel_summary_by_category --quiet --version; do
  check "raptor report --help lists $o" grep -q -- "$o" help.txt
done

# ---------------------------------------------------------------- xlsx
if [ -z "$PY" ]; then
  skip "workbooks read with openpyxl" "no python3 with openpyxl (apt-get install python3-openpyxl)"
else
  "$PY" - rep.xlsx >xlsx.txt 2>xlsx.err <<'PYEOF' || notok "openpyxl script" "$(cat xlsx.err)"
import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
print("sheets", " ".join(ws.title for ws in wb.worksheets))
info = wb["info"]
print("info", "|".join(str(info.cell(r, 1).value) + "=" + str(info.cell(r, 2).value)
                       for r in range(3, info.max_row + 1) if info.cell(r, 1).value in ("trace", "units")))
for ws in wb.worksheets[1:]:
    print("sheet", ws.title, ws.freeze_panes, ws.auto_filter.ref, len(ws._charts),
          all(c.font.b for c in ws[1] if c.value is not None))
ks = wb["kernel_summary"]
head = [c.value for c in ks[1]]
row = {h: c for h, c in zip(head, ks[2])}
kind = lambda v: "num" if isinstance(v, (int, float)) else type(v).__name__
print("types", kind(row["count"].value), kind(row["total_us"].value),
      kind(row["percent"].value), kind(row["name"].value))
print("formats", row["count"].number_format, row["total_us"].number_format, row["percent"].number_format)
print("width name", ks.column_dimensions["A"].width >= len("ncclDevKernel_Generic"),
      ks.column_dimensions["A"].width <= 61)
texts = [c.value for r in ks.iter_rows(min_row=2) for c in r[1:10] if isinstance(c.value, str)]
print("numbers as text", len(texts))
u = wb["utilization"]
print("util", " ".join("%g" % round(r[1].value, 6) for r in u.iter_rows(min_row=2)))
g = wb["idle_gaps"]
print("gaps", " ".join("%s:%d:%g" % (r[0].value, r[1].value, r[2].value) for r in g.iter_rows(min_row=2) if r[1].value))
PYEOF
  check_eq "report sheets: info first, six tables, utilization, idle_gaps, idle_definitions" \
    "sheets info gpu_timeline kernel_summary category kernel_details short_kernels short_histogram utilization idle_gaps idle_definitions" \
    "$(grep '^sheets' xlsx.txt)"
  check_eq "info sheet: trace and units" \
    "info trace=rep.rpd|units=time_ms: milliseconds, *_us: microseconds (3 decimals), percent: 0..100, counts: integers" \
    "$(grep '^info' xlsx.txt)"
  check_eq "gpu_timeline: frozen header, filter over 16 rows, pie chart, bold header" \
    "sheet gpu_timeline A2 A1:D25 1 True" "$(grep '^sheet gpu_timeline' xlsx.txt)"
  check_eq "kernel_summary: frozen, filtered, a bar chart" "sheet kernel_summary A2 A1:K5 1 True" \
    "$(grep '^sheet kernel_summary' xlsx.txt)"
  check_eq "kernel_details: frozen, filtered, no chart" "sheet kernel_details A2 A1:P21 0 True" \
    "$(grep '^sheet kernel_details' xlsx.txt | sed 's/A1:P[0-9]*/A1:P21/')"
  check_eq "charts: category, short_histogram, utilization, idle_gaps have one each" "1 1 1 1" \
    "$(grep -E '^sheet (category|short_histogram|utilization|idle_gaps) ' xlsx.txt | awk '{print $5}' | tr '\n' ' ' | sed 's/ $//')"
  check_eq "kernel_summary cells: numbers are numbers, names text" "types num num num str" "$(grep '^types' xlsx.txt)"
  check_eq "number formats: count with separators, us with 3 decimals, percent" \
    'formats #,##0 #,##0.000 0.00"%"' "$(grep '^formats' xlsx.txt)"
  check_eq "kernel name column fitted (>= longest name) and capped (<= 61)" "width name True True" \
    "$(grep '^width' xlsx.txt)"
  check_eq "no numbers stored as text" "numbers as text 0" "$(grep '^numbers' xlsx.txt)"
  check_eq "utilization, 8 bins of 10 us: busy % of 2 GPUs" "util 65 50 50 50 50 0 50 50" \
    "$(grep '^util' xlsx.txt)"
  check_eq "idle_gaps: GPU1's one 57 us gap" "gaps 10-100 us:1:0.057" "$(grep '^gaps' xlsx.txt)"

  # raptor -x: the pretty kernelseq holds numbers, not '+10.497' / '17.6%' / 'nan'
  rpd-synth --api 3000 -o syn.rpd >/dev/null 2>&1 || notok "rpd-synth"
  check_rc "raptor -x" 0 raptor syn.rpd -x
  "$PY" - syn.xlsx >x.txt 2>x.err <<'PYEOF' || notok "openpyxl -x script" "$(cat x.err)"
import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
print("sheets", "|".join(ws.title for ws in wb.worksheets))
p = wb["pretty kernelseq"]
bad = [c.value for r in p.iter_rows(min_row=2) for c in r[1:12] if isinstance(c.value, str)]
print("pretty text cells", len(bad), p.max_row > 2)
head = [c.value for c in p[1]]
print("pretty formats", p.cell(2, head.index("First_ms") + 1).number_format,
      p.cell(2, head.index("PctTotal") + 1).number_format,
      p.cell(2, head.index("TotalCalls") + 1).number_format)
print("frozen", " ".join(str(ws.freeze_panes) for ws in wb.worksheets[1:]))
print("charts", len(p._charts), len(wb["category"]._charts))
v = wb["variability"]
print("variability", "num" if isinstance(v.cell(2, 3).value, (int, float)) else "text")
PYEOF
  check_eq "raptor -x sheets: info first" "sheets info|kernelseq|pretty kernelseq|category|variability" \
    "$(grep '^sheets' x.txt)"
  check_eq "pretty kernelseq: no text in the numeric columns" "pretty text cells 0 True" \
    "$(grep '^pretty text' x.txt)"
  check_eq "pretty kernelseq formats: ms, percent, integer" 'pretty formats #,##0.000 0.00"%" #,##0' \
    "$(grep '^pretty formats' x.txt)"
  check_eq "raptor -x: every table sheet has a frozen header" "frozen A2 A2 A2 A2" "$(grep '^frozen' x.txt)"
  check_eq "raptor -x charts: pretty kernelseq bar, category pie" "charts 1 1" "$(grep '^charts' x.txt)"
  check_eq "variability VarPct is a number" "variability num" "$(grep '^variability' x.txt)"
fi

# ---------------------------------------------------------------- LibreOffice
if command -v soffice >/dev/null 2>&1; then
  mkdir -p lo pdf
  if HOME="$TESTDIR/lo" timeout 180 soffice --headless --norestore --convert-to pdf \
       --outdir pdf rep.xlsx >lo.log 2>&1 && [ -s pdf/rep.pdf ]; then
    ok "LibreOffice renders the report workbook to PDF"
    if command -v pdftotext >/dev/null 2>&1; then
      pdftotext -layout pdf/rep.pdf rep.txt
      check "the PDF shows the info sheet" grep -q "short-kernel threshold" rep.txt
      check "the PDF shows chart titles" grep -q "Top kernels by total time" rep.txt
      check "the PDF shows µs with 3 decimals (10.000)" grep -q "10\.000" rep.txt
    else
      skip "PDF text" "no pdftotext (apt-get install poppler-utils)"
    fi
    if command -v pdftoppm >/dev/null 2>&1; then
      pdftoppm -r 60 -png pdf/rep.pdf page
      check "the PDF renders to PNG pages" test -s page-01.png
    else
      skip "PDF to PNG" "no pdftoppm (apt-get install poppler-utils)"
    fi
  else
    notok "LibreOffice renders the report workbook to PDF" "$(tail -3 lo.log)"
  fi
else
  skip "LibreOffice rendering" "no soffice (apt-get install libreoffice-calc-nogui)"
fi

# ---------------------------------------------------------------- HTML
check_eq "html: one page, no network (no src=/href=http, no <link>)" 0 \
  "$(grep -c -E 'src=|href=\"?http|<link' rep.html)"
check_eq "html: six inline SVG charts" 6 "$(grep -c '<svg' rep.html)"
check_eq "html: eight tables and idle_definitions with filter boxes" "9 9" \
  "$(grep -c '<table class="data"' rep.html) $(grep -c 'class="filter"' rep.html)"
check "html: a kernel's full name in the table" grep -q '>ncclDevKernel_Generic</td>' rep.html
check_rc "--html is the input: exit 1" 1 raptor rep.rpd --report -q --html rep.rpd
check_one_line "--html is the input: one line"
same_file "--html is the input: trace byte-identical" rep.rpd rep.orig

if ! find_chrome; then
  skip "html in headless Chromium" "no chromium (apt-get install chromium)"
else
  # click kernel_summary's count header twice (descending), filter category
  # by "GEMM": the page's own script must do both
  sed 's#</body>#<script>var t=document.getElementById("t-kernel_summary");var h=t.tHead.rows[0].cells[1];h.click();h.click();var f=document.getElementById("f-t-category");f.value="GEMM";f.dispatchEvent(new Event("input"));var vis=Array.prototype.filter.call(document.getElementById("t-category").tBodies[0].rows,function(r){return r.style.display!="none"}).length;document.body.setAttribute("data-result",t.tBodies[0].rows[0].cells[0].textContent+"/"+t.tBodies[0].rows[0].cells[1].textContent+"/"+vis);</script></body>#' \
    rep.html >probe.html
  chrome_run --dump-dom "file://$TESTDIR/probe.html" >dom.html 2>chr.err
  check_eq "chromium: sort by count (desc) and filter category" 'data-result="Cijk_gemm_a/2/1"' \
    "$(grep -o 'data-result="[^"]*"' dom.html)"
  chrome_run --window-size=1400,1800 --screenshot="$TESTDIR/report.png" "file://$TESTDIR/rep.html" >/dev/null 2>&1
  check "chromium: screenshot of the page" test -s report.png
fi
