#!/bin/sh
# rpd-diff --waterfall: planted traces with every part known to the ns
# (B = A with the GEMM kernels 2 ms longer, a host-wait gap 0.5 ms longer, an
# added 0.1 ms copy, an added 40 us kernel-wait gap and a 10 us elementwise
# kernel), every format, the idle split equal to rpd-analyze's on planted
# and real traces, the check line on real traces, errors.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

# plant TRACE 'id|name|optype|start|end|launch|gpu' ...: ops (and their
# launching hipLaunchKernel calls when launch is not empty)
plant() {
  f=$1; shift
  rpd-synth --api 0 -o "$f" >/dev/null || notok "synth $f"
  python3 - "$f" "$@" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1]); c = db.cursor()
ids = {}
def sid(s):
    if s not in ids:
        ids[s] = 9000 + len(ids)
        c.execute("INSERT INTO rocpd_string(id, string) VALUES (?, ?)", (ids[s], s))
    return ids[s]
for row in sys.argv[2:]:
    i, name, optype, s, e, launch, gpu = row.split('|')
    c.execute("INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, end, description_id,"
              " opType_id) VALUES (?, ?, 0, 0, ?, ?, ?, ?)",
              (int(i), int(gpu), int(s), int(e), sid(name), sid(optype)))
    if launch:
        c.execute("INSERT INTO rocpd_api(id, pid, tid, start, end, apiName_id, args_id,"
                  " domain_id, category_id) VALUES (?, 5, 1, ?, ?, ?, ?, 1, 1)",
                  (int(i), int(launch), int(launch) + 50, sid('hipLaunchKernel'), sid('')))
        c.execute("INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (?, ?)", (int(i), int(i)))
db.commit()
PY
}
K=KernelExecution
plant a.rpd "1|gemm_kernel|$K|1000|4000|500|0" "2|elementwise_kernel|$K|3500|5000|600|0" \
  "3|gemm_kernel|$K|6000|8000|4600|0" "4|ncclDevKernel_Generic|$K|7000|12000|4700|0" \
  "5|CopyHostToDevice|CopyHostToDevice|20000|23000|15000|0" "6|unlinked_kernel|$K|24000|24500||0"
plant b.rpd "1|gemm_kernel|$K|1000|1004000|500|0" "2|elementwise_kernel|$K|1003500|1005000|600|0" \
  "3|gemm_kernel|$K|1006000|2008000|4600|0" "4|ncclDevKernel_Generic|$K|1007000|2012000|4700|0" \
  "5|CopyHostToDevice|CopyHostToDevice|2520000|2523000|2015000|0" \
  "6|unlinked_kernel|$K|2524000|2524500||0" \
  "7|CopyDeviceToHost|CopyDeviceToHost|2524500|2624500|2000000|0" \
  "8|elementwise_kernel|$K|2664500|2674500|2000000|0"
before=$(sha a.rpd)

check_rc "waterfall as csv" 0 rpd-diff --waterfall -f csv a.rpd b.rpd
tr -d '\r' <stdout >w.csv
check_eq "header" "kind,part,kernel,a_ns,b_ns,delta_ns,pct_change" "$(head -1 w.csv)"
# A: GEMM 1000-4000 (the elementwise kernel under it loses 3500-4000) and
# 6000-8000; elementwise 4000-5000; kernel wait 5000-6000 (launched at
# 4600); communication exposed 8000-12000; host wait 12000-20000 (launched
# at 15000); copy; other idle 23000-24000 (no launch known); other kernels
check_eq "every part of A and B, largest change first, exact ns" \
"span|GPU span||23500|2673500|2650000
part|GEMM||5000|2005000|2000000
kernel|GEMM|gemm_kernel|5000|2005000|2000000
part|idle: host_wait||8000|508000|500000
part|copy||3000|103000|100000
part|idle: kernel_wait||1000|41000|40000
part|Elementwise||1000|11000|10000
kernel|Elementwise|elementwise_kernel|1000|11000|10000
part|communication||4000|4000|0
kernel|communication|ncclDevKernel_Generic|4000|4000|0
part|idle: other||1000|1000|0
part|other kernels||500|500|0
kernel|other kernels|unlinked_kernel|500|500|0
check|sum of parts||23500|2673500|2650000" \
  "$(python3 -c "
import csv
for r in csv.DictReader(open('w.csv')): print(r['kind'], r['part'], r['kernel'], r['a_ns'], r['b_ns'], r['delta_ns'], sep='|')")"

check_rc "waterfall as a table" 0 rpd-diff --waterfall a.rpd b.rpd
check_eq "the check line" "sum of parts = span change: +2,650,000 ns" "$(tail -1 stdout)"
check_eq "table: GEMM's row" "part GEMM 5000 2005000 2000000 40000.0" \
  "$(awk '$1 == "part" && $2 == "GEMM" {print $1, $2, $3, $4, $5, $6}' stdout)"

check_rc "B against A: every change turns sign" 0 rpd-diff --waterfall -f json b.rpd a.rpd
check "json: sum of parts = span change = -2650000, host wait -500000" python3 -c "
import json; d = json.load(open('stdout'))
assert d[0]['kind'] == 'span' and d[0]['delta_ns'] == -2650000, d[0]
assert sum(r['delta_ns'] for r in d if r['kind'] == 'part') == -2650000
assert d[-1] == {'kind': 'check', 'part': 'sum of parts', 'kernel': None, 'a_ns': 2673500,
                 'b_ns': 23500, 'delta_ns': -2650000, 'pct_change': -99.12}, d[-1]
h = [r for r in d if r['part'] == 'idle: host_wait'][0]
assert (h['a_ns'], h['b_ns'], h['delta_ns']) == (508000, 8000, -500000), h"

check_rc "markdown" 0 rpd-diff --waterfall -f md a.rpd b.rpd
check_eq "markdown: GEMM row, kernel row, check line" \
"| GEMM | 0.005 | 2.005 | +2.000 | +2,000,000 |
| &nbsp;&nbsp;↳ gemm\\_kernel | 0.005 | 2.005 | +2.000 | +2,000,000 |
sum of parts = span change: +2,650,000 ns" \
  "$(grep -e '^| GEMM' -e 'gemm' -e '^sum of parts' stdout)"
check_eq "markdown: common's Markdown writer (header, numbers right-aligned, span row)" \
"| part | A (ms) | B (ms) | change (ms) | change (ns) |
|---|---:|---:|---:|---:|
| GPU span | 0.024 | 2.674 | +2.650 | +2,650,000 |" "$(sed -n 5,7p stdout)"

check_rc "html" 0 rpd-diff --waterfall -f html a.rpd b.rpd
check "html: one page with an svg chart, a bar per part plus the two spans, the check" python3 -c "
import re, xml.etree.ElementTree as ET
h = open('stdout', encoding='utf-8').read()
svg = re.search(r'<svg.*?</svg>', h, re.S).group(0)
root = ET.fromstring(svg)
rects = [e for e in root.iter() if e.tag.endswith('rect')]
assert len(rects) == 10, len(rects)   # 2 spans + 8 parts
assert 'sum of parts = span change: +2,650,000 ns' in h
assert h.startswith('<!DOCTYPE html>') and h.rstrip().endswith('</html>')
assert 'http' not in h.replace('http://www.w3.org/2000/svg', '')   # self-contained
# the common page: A and B in its info table, the rows as the sortable table
assert '<tr><td>A</td><td>a.rpd</td></tr>' in h and '<tr><td>B</td><td>b.rpd</td></tr>' in h
t = re.search(r'<table class=\"data\" id=\"t-waterfall\">.*?</table>', h, re.S).group(0)
assert t.count('<tr>') == 15 and '<th>delta_ns</th>' in t, t   # header + 14 rows
assert 'data-v=\"2000000\"' in t"
cp stdout w.html
if find_chrome; then
  chrome_run --screenshot="$TESTDIR/w.png" --window-size=1000,800 "file://$TESTDIR/w.html" \
    >/dev/null 2>&1
  check "html renders in headless chromium (a PNG of the page)" test -s w.png
else
  skip "html renders in headless chromium" "no chromium"
fi

check_rc "--top 0: every kernel; -q" 0 rpd-diff --waterfall -q --top 0 -f csv a.rpd b.rpd
check_eq "no '(N more kernels)' row" 0 "$(grep -c 'more kernel' stdout)"

check_rc "--xlsx" 0 rpd-diff --waterfall -q --xlsx w.xlsx a.rpd b.rpd
check "xlsx: sheet waterfall has the rows, GEMM +2000000" python3 -c "
import zipfile, re
z = zipfile.ZipFile('w.xlsx'); names = z.namelist()
wb = z.read('xl/workbook.xml').decode()
assert 'name=\"waterfall\"' in wb and 'name=\"traces\"' in wb, wb
sheet = z.read('xl/worksheets/sheet1.xml').decode()
assert '<v>2000000</v>' in sheet and '<v>2650000</v>' in sheet"

# a category file of one's own: gemm_kernel becomes category "MM"
printf '{"MM": ["^gemm"], "_COMM": ["nccl"]}\n' >cats.json
check_rc "--category-json" 0 rpd-diff --waterfall --category-json cats.json -f csv a.rpd b.rpd
check_eq "MM part, elementwise now among other kernels" "part,MM,,5000,2005000,2000000|part,other kernels,,1500,11500,10000" \
  "$(tr -d '\r' <stdout | grep -e '^part,MM' -e '^part,other kernels' | cut -d, -f1-6 | paste -sd'|')"
check_rc "--top 1 with two kernels in a part" 0 \
  rpd-diff --waterfall --category-json cats.json --top 1 -f csv b.rpd b.rpd
check_eq "the rest in one row, so kernel rows add up to the part" \
  "kernel,other kernels,elementwise_kernel,11000,11000,0,0.0|kernel,other kernels,(1 more kernel),500,500,0,0.0" \
  "$(tr -d '\r' <stdout | grep '^kernel,other kernels' | paste -sd'|')"

# two GPUs: one span over both (a moment counts once), --gpu picks one
tmpcopy a.rpd a2.rpd
q a2.rpd "update rocpd_op set gpuId = 1 where id = 2"
check_rc "two GPUs as one span" 0 rpd-diff --waterfall -f csv a2.rpd a.rpd
check_eq "same parts as on one GPU" "0" \
  "$(tr -d '\r' <stdout | awk -F, '$1 == "part" && $6 != 0' | wc -l | tr -d ' ')"
check_rc "--gpu 1: only the elementwise kernel of a2, nothing of a" 0 \
  rpd-diff --waterfall --gpu 1 -f csv a2.rpd a.rpd
check_eq "--gpu 1 span" "span,GPU span,,1500,0,-1500,-100.0" "$(sed -n 2p stdout | tr -d '\r')"

# the idle split is rpd-analyze's: per GPU, the waterfall's idle parts of a
# trace equal ext_analysis_idle (host_wait, kernel_wait, other)
idle_vs_analyze() {   # NAME TRACE
  tmpcopy "$2" an.rpd
  rpd-analyze -q an.rpd >/dev/null 2>&1 || { notok "$1: rpd-analyze"; return; }
  bad=0; n=0
  for g in $(q an.rpd "select gpuId from ext_analysis_idle order by gpuId"); do
    want=$(q an.rpd "select host_wait_ns || ',' || kernel_wait_ns || ',' || other_ns || ',' || span_ns from ext_analysis_idle where gpuId = $g")
    got=$(rpd-diff --waterfall -q --gpu "$g" -f csv "$2" "$2" | python3 -c "
import csv, sys; d = {r['part']: r['a_ns'] for r in csv.DictReader(sys.stdin)}
print(d.get('idle: host_wait', 0), d.get('idle: kernel_wait', 0), d.get('idle: other', 0), d['GPU span'], sep=',')")
    n=$((n + 1))
    [ "$want" = "$got" ] || { bad=1; echo "# gpu $g: rpd-analyze $want, waterfall $got"; }
  done
  if [ $bad = 0 ] && [ $n -gt 0 ]; then ok "$1 ($n GPUs)"; else notok "$1"; fi
}
idle_vs_analyze "idle split = rpd-analyze's on the planted A" a.rpd
idle_vs_analyze "idle split = rpd-analyze's on the planted B" b.rpd
rpd-synth --api 3000 -o s.rpd >/dev/null
idle_vs_analyze "idle split = rpd-analyze's on an rpd-synth trace" s.rpd

check_eq "inputs untouched" "$before" "$(sha a.rpd)"

# errors: one line, exit 2 for usage, 1 for a bad trace
check_rc "unknown option in the waterfall mode" 2 rpd-diff --waterfall --by kernel a.rpd b.rpd
check_rc "bad format" 2 rpd-diff --waterfall -f xlsx a.rpd b.rpd
check_rc "one trace only" 2 rpd-diff --waterfall a.rpd
check_rc "missing trace" 1 rpd-diff --waterfall a.rpd nosuch.rpd
check_one_line "missing trace: one line"
printf '{"X": [' >bad.json
check_rc "bad category file" 1 rpd-diff --waterfall --category-json bad.json a.rpd b.rpd
check_one_line "bad category file: one line"

# real traces: the check line holds exactly
if need_shared "$TRACES/mytrace.rpd.gz"; then
  check_rc "real: mytrace vs matmul_result" 0 rpd-diff --waterfall -q "$TRACES/mytrace.rpd.gz" \
    "$TRACES/matmul_result.rpd"
  check_eq "real: the check line (span 452,967,953 -> 2,964,070,817 ns)" \
    "sum of parts = span change: +2,511,102,864 ns" "$(tail -1 stdout)"
  tmpcopy "$TRACES/mytrace.rpd.gz" my.rpd
  rpd-trim -q my.rpd --start 25% --end 75% -o trim.rpd >/dev/null 2>&1 || notok "rpd-trim"
  check_rc "real: mytrace vs a trimmed copy" 0 rpd-diff --waterfall -q -f json my.rpd trim.rpd
  check "real: trimmed, parts add up, span shrinks" python3 -c "
import json; d = json.load(open('stdout'))
span = d[0]; parts = [r for r in d if r['kind'] == 'part']
assert sum(r['a_ns'] for r in parts) == span['a_ns'] and sum(r['b_ns'] for r in parts) == span['b_ns']
assert span['delta_ns'] < 0 and d[-1]['delta_ns'] == span['delta_ns']"
  idle_vs_analyze "real: idle split = rpd-analyze's on mytrace" "$TRACES/mytrace.rpd.gz"
fi
if need_shared "$TRACES/synth-small.rpd"; then
  check_rc "real: two GPUs (synth-small) vs mytrace" 0 rpd-diff --waterfall -q -f md \
    "$TRACES/synth-small.rpd" "$TRACES/mytrace.rpd.gz"
  check_eq "real: two GPUs, the check line" "sum of parts = span change: +399,811,689 ns" \
    "$(tail -1 stdout)"
  idle_vs_analyze "real: idle split = rpd-analyze's per GPU of synth-small" "$TRACES/synth-small.rpd"
fi
# an option of the waterfall in the per-key diff: says which mode it needs
check_rc "--gpu without --waterfall: usage error" 2 rpd-diff --gpu 1 a.rpd b.rpd
check_eq "--gpu without --waterfall: says so" \
  "rpd-diff: option '--gpu' goes with --waterfall" "$(head -1 "$TESTDIR/stderr")"
