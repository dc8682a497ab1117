#!/bin/sh
# rpd-autograd-summary: the HTML page from autogradKernel data (built by
# rpd-autograd on a hand-made trace with hostile names), checked as text and,
# when Debian's chromium is installed, loaded in headless Chromium (DOM after
# the page's script ran, filter/sort from the URL, a screenshot).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
ROOT=$(cd "$here/../.." && pwd)

# ---------------------------------------------------------------- fixture
# Two aten::mm markers launch kernels '<script>alert(1)</script>' (1000 and
# 2000 ns) and 'Cijk_gemm "x" & y' (3000 ns); one 'aten::<b>bold</b>' marker
# launches a kernel whose name carries an onerror payload (4000 ns).
sqlite3 ag.rpd <"$ROOT/views/schema.sql"
sqlite3 ag.rpd "
INSERT INTO rocpd_string(id, string) VALUES (1, 'hipLaunchKernel'), (2, 'UserMarker'),
  (3, 'KernelExecution'), (4, '<script>alert(1)</script>'), (5, ''), (6, 'Cijk_gemm \"x\" & y'),
  (7, 'kernel_é<img src=x onerror=document.body.setAttribute(''data-pwned'',1)>');
INSERT INTO rocpd_ustring(id, string) VALUES
  (1, 'aten::mm, seq = 1, op_id = 1, sizes = [[2, 3], [3, 4]], input_op_ids = []'),
  (2, 'aten::<b>bold</b>, op_id = 2, sizes = [[8]], input_op_ids = [1]'), (3, 'stream = 0x1');
INSERT INTO rocpd_api(id, pid, tid, start, end, apiName_id, category_id, domain_id, args_id) VALUES
  (1, 1, 1, 1000, 10000, 2, 5, 5, 1), (2, 1, 1, 2000, 3000, 1, 5, 5, 3),
  (3, 1, 1, 5000, 6000, 1, 5, 5, 3), (4, 1, 1, 20000, 30000, 2, 5, 5, 1),
  (5, 1, 1, 21000, 22000, 1, 5, 5, 3), (6, 1, 1, 40000, 50000, 2, 5, 5, 2),
  (7, 1, 1, 41000, 42000, 1, 5, 5, 3);
INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, end, description_id, opType_id) VALUES
  (1, 0, 0, 1, 4000, 5000, 4, 3), (2, 0, 0, 2, 6000, 9000, 6, 3),
  (3, 0, 0, 3, 23000, 25000, 4, 3), (4, 0, 0, 4, 43000, 47000, 7, 3);
INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (2, 1), (3, 2), (5, 3), (7, 4);
INSERT INTO rocpd_kernelapi(api_ptr_id, stream, gridX, gridY, gridZ, workgroupX, workgroupY,
  workgroupZ, groupSegmentSize, privateSegmentSize, kernelName_id) VALUES
  (2, '0x1', 1, 1, 1, 64, 1, 1, 0, 0, 4), (3, '0x1', 1, 1, 1, 64, 1, 1, 0, 0, 6),
  (5, '0x1', 1, 1, 1, 64, 1, 1, 0, 0, 4), (7, '0x1', 1, 1, 1, 64, 1, 1, 0, 0, 7);"

check_rc "no autograd data: exit 1" 1 rpd-autograd-summary ag.rpd none.html
check_one_line "no autograd data: one line"
check_eq "no autograd data: hint names rpd-autograd" 1 "$(grep -c "run 'rpd-autograd" "$TESTDIR/stderr")"
check_eq "no autograd data: no page" "no" "$([ -e none.html ] && echo yes || echo no)"
check_rc "missing OUT" 2 rpd-autograd-summary ag.rpd
check_rc "bad --top" 2 rpd-autograd-summary ag.rpd x.html --top 0
check_rc "unknown option" 2 rpd-autograd-summary ag.rpd x.html --bogus
check_rc "missing file" 1 rpd-autograd-summary nosuch.rpd x.html
check_one_line "missing file: one line"
printf 'not a database\n' >notdb.rpd
check_rc "not SQLite" 1 rpd-autograd-summary notdb.rpd x.html
check_one_line "not SQLite: one line"

if ! command -v rpd-autograd >/dev/null 2>&1; then
  skip "autograd summary pages" "rpd-autograd is not built yet"
  exit 0
fi
check_rc "rpd-autograd builds autogradKernel" 0 rpd-autograd ag.rpd
check_eq "fixture autogradKernel rows" \
  "kernel_é<img src=x onerror=document.body.setAttribute('data-pwned',1)>|1|4000.0|4000 Cijk_gemm \"x\" & y|1|3000.0|3000 <script>alert(1)</script>|2|1500.0|3000 " \
  "$(q ag.rpd 'SELECT kernelName, calls, avg_gpu, total_gpu FROM autogradKernel ORDER BY kernelName DESC' | tr '\n' ' ')"
cp ag.rpd ag.orig
gzip -c ag.rpd >ag.rpd.gz

check_rc "writes the page" 0 rpd-autograd-summary ag.rpd page.html
check_eq "summary line" "page.html: 2 operators, 3 (operator, kernel, sizes) rows" "$(cat "$TESTDIR/stdout")"
same_file "input unchanged" ag.rpd ag.orig
check_eq "no raw <script> from the trace" 0 "$(grep -c '<script>alert' page.html)"
check_eq "kernel name escaped as text" 2 "$(grep -o '&lt;script&gt;alert(1)&lt;/script&gt;' page.html | wc -l | tr -d ' ')"
check_eq "no raw tags from operator names" 0 "$(grep -c '<b>bold\|<img' page.html)"
check_eq "quotes and ampersands escaped" 2 "$(grep -o 'Cijk_gemm &quot;x&quot; &amp; y' page.html | wc -l | tr -d ' ')"
check_eq "self-contained: no src/href attribute, url() or @import" 0 \
  "$(grep -ciE '<[a-z]+( [a-z-]+="[^"]*")* (src|href)=|url\(|@import' page.html)"
check_eq "exactly one script element" 1 "$(grep -o '<script' page.html | wc -l | tr -d ' ')"
check_eq "CSP forbids network and foreign scripts" 1 "$(grep -c "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-" page.html)"
# the one script allowed is the page's own, by its SHA-256 (a random nonce
# would make every run's page different)
check_eq "CSP hash is the SHA-256 of the page's script" \
  "$(sed -n "s/.*script-src '\(sha256-[^']*\)'.*/\1/p" page.html)" \
  "sha256-$(python3 -c 'import sys,re,hashlib,base64; t=open(sys.argv[1],encoding="utf-8").read(); s=re.search(r"<script>(.*?)</script>",t,re.S).group(1); print(base64.b64encode(hashlib.sha256(s.encode()).digest()).decode())' page.html)"
check_rc "a second run" 0 rpd-autograd-summary ag.rpd page2.html
same_file "same trace, same options: byte-identical page" page.html page2.html
check_eq "bar chart: one bar per operator" 2 "$(grep -o '<g class="bar">' page.html | wc -l | tr -d ' ')"
check_eq "totals: 2 operators, 3 rows, 10 us" 1 \
  "$(grep -c '<span id="nops">2</span> operators, <span id="nrows">3</span> (operator, kernel, sizes) rows, 4 kernel calls, total GPU time 10.000 us' page.html)"
check_eq "operator row aten::mm: 2 kernels, 3 calls, 6 us" 1 \
  "$(grep -c '<tr><td>aten::mm</td><td class="n" data-v="2">2</td><td class="n" data-v="3">3</td><td class="n" data-v="6000">6.000</td><td class="n" data-v="2000">2.000</td><td class="n" data-v="60">60.00</td></tr>' page.html)"
check_rc ".rpd.gz input" 0 rpd-autograd-summary ag.rpd.gz pagegz.html
check_eq ".rpd.gz input: same tables" "$(grep -c '<tr>' page.html)" "$(grep -c '<tr>' pagegz.html)"

# ---------------------------------------------------------------- named output
# OUT is never the input, a device or a directory; it is written to a temp
# file next to it and renamed (no leftovers; a symlink keeps pointing at
# the new page); a 255-byte name works (the temp name is not OUT+suffix).
mkdir outs
cp ag.rpd outs/in.rpd
check_rc "OUT is the input: exit 1" 1 rpd-autograd-summary outs/in.rpd outs/in.rpd
check_one_line "OUT is the input: one line"
check_eq "OUT is the input: says so" 1 "$(grep -c "cannot write 'outs/in.rpd': is the input file" "$TESTDIR/stderr")"
same_file "OUT is the input: trace byte-identical" ag.rpd outs/in.rpd
ln outs/in.rpd outs/hard.rpd
check_rc "OUT is a hard link to the input: exit 1" 1 rpd-autograd-summary outs/in.rpd outs/hard.rpd
same_file "OUT is a hard link to the input: trace byte-identical" ag.rpd outs/in.rpd
rm -f outs/hard.rpd
ln -s in.rpd outs/lnin
check_rc "OUT is a symlink to the input: exit 1" 1 rpd-autograd-summary outs/in.rpd outs/lnin
same_file "OUT is a symlink to the input: trace byte-identical" ag.rpd outs/in.rpd
rm -f outs/lnin
check_rc "OUT is a directory: exit 1" 1 rpd-autograd-summary ag.rpd outs
check_one_line "OUT is a directory: one line"
if mknod outs/null c 1 3 2>/dev/null; then
  check_rc "OUT is a device: exit 1" 1 rpd-autograd-summary ag.rpd outs/null
  check_one_line "OUT is a device: one line"
  check_eq "OUT is a device: still a character device" yes "$([ -c outs/null ] && echo yes || echo no)"
  rm -f outs/null
else
  skip "OUT is a device" "mknod needs root"
fi
echo old >outs/target; ln -s target outs/link
check_rc "OUT is a symlink: exit 0" 0 rpd-autograd-summary ag.rpd outs/link
check_eq "OUT is a symlink: the link is kept" yes "$([ -L outs/link ] && echo yes || echo no)"
same_file "OUT is a symlink: its target is the page" page.html outs/target
echo previous >outs/prev.html
check_rc "existing OUT replaced" 0 rpd-autograd-summary ag.rpd outs/prev.html
same_file "existing OUT replaced by the whole page" page.html outs/prev.html
ln255=$(printf '%0251d' 0).out
check_rc "a 255-byte OUT name" 0 rpd-autograd-summary ag.rpd "outs/$ln255"
same_file "a 255-byte OUT name: the page" page.html "outs/$ln255"
check_eq "no temp file left next to OUT" "$ln255 in.rpd link prev.html target" "$(ls -A outs | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
if [ -c /dev/full ]; then
  check_rc "stdout full: exit 1" 1 sh -c 'rpd-autograd-summary ag.rpd outs/full.html >/dev/full'
  check_one_line "stdout full: one line"
fi

# a trace whose rocpd_kernelapi is gone: one clear line, not an SQL error
cp ag.rpd nokapi.rpd
sqlite3 nokapi.rpd "DROP TABLE rocpd_kernelapi"
check_rc "no rocpd_kernelapi: exit 1" 1 rpd-autograd-summary nokapi.rpd nokapi.html
check_one_line "no rocpd_kernelapi: one line"
check_eq "no rocpd_kernelapi: names the table, no SQL" "1 0" \
  "$(grep -c 'has no rocpd_kernelapi table' "$TESTDIR/stderr") $(grep -ci 'sql' "$TESTDIR/stderr")"
check_eq "no rocpd_kernelapi: no page" no "$([ -e nokapi.html ] && echo yes || echo no)"

# --start/--end: [0%, 30%] of the api span (1000..50000 ns) keeps the
# kernels launched at 2000 and 5000 ns only.
check_rc "window 0%..30%" 0 rpd-autograd-summary ag.rpd win.html --start 0% --end 30%
check_eq "window: 1 operator, 2 rows, 4 us" 1 \
  "$(grep -c '<span id="nops">1</span> operators, <span id="nrows">2</span> (operator, kernel, sizes) rows, 2 kernel calls, total GPU time 4.000 us' win.html)"
# a bare number is ms from the first api call (docs/time.md): 0 .. 0.0147 ms
# is the same window as 0%..30%
check_rc "window 0 .. 0.0147 (bare ms)" 0 rpd-autograd-summary ag.rpd winms.html --start 0 --end 0.0147
check_eq "bare ms window = 0%..30% window" "$(grep -o '<span id="nops">.*us\.' win.html)" \
  "$(grep -o '<span id="nops">.*us\.' winms.html)"
check_eq "window: kernel ops of the trace that start in it" 1 \
  "$(grep -c '<span id="tkernels">2</span>' winms.html)"
check_rc "window outside the trace (--start 100 = 100 ms)" 1 rpd-autograd-summary ag.rpd empty.html --start 100
check_one_line "window outside the trace: one line"
check "window outside the trace: says so" grep -q "is outside the trace (0 .. 0.049000 ms" "$TESTDIR/stderr"
check_rc "empty window" 1 rpd-autograd-summary ag.rpd empty.html --start 60000 --end 70000
check_one_line "empty window: one line"
for t in "--start=-1e999ms" "--end=+1e999ms" "--start=1e30" "--end=99999999999999999999" "--start=-9223372036854775808"; do
  check_rc "extreme time $t: exit 2" 2 rpd-autograd-summary ag.rpd x.html "$t"
  check "extreme time $t: says out of range" grep -q "out of range" "$TESTDIR/stderr"
done
check_eq "extreme times: no page" no "$([ -e x.html ] && echo yes || echo no)"
check_rc "bad --start" 2 rpd-autograd-summary ag.rpd x.html --start soon

# ---------------------------------------------------------------- Chromium
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
  skip "headless Chromium checks" "chromium not installed (apt-get install chromium)"
else
  chrome() { # OUTFLAG URL
    _u=$(mktemp -d "$TESTDIR/chrome.XXXXXX")
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync \
      --user-data-dir="$_u" --window-size=1280,900 "$@" 2>>"$TESTDIR/chrome.err"
    _rc=$?; rm -rf "$_u"; return $_rc
  }
  url="file://$TESTDIR/page.html"
  chrome --dump-dom "$url" >dom.html
  check_eq "DOM: script ran (operator table count)" 1 "$(grep -c 'id="ops-shown">Showing 2 of 2 rows<' dom.html)"
  check_eq "DOM: kernels table shows 3 of 3 rows" 1 "$(grep -c 'id="kernels-shown">Showing 3 of 3 rows<' dom.html)"
  check_eq "DOM: 5 visible data rows" 5 "$(grep -o '<tr><td>' dom.html | wc -l | tr -d ' ')"
  check_eq "DOM: <script> kernel is text" 2 "$(grep -o '&lt;script&gt;alert(1)&lt;/script&gt;' dom.html | wc -l | tr -d ' ')"
  check_eq "DOM: only the page's own script element" 1 "$(grep -o '<script' dom.html | wc -l | tr -d ' ')"
  check_eq "DOM: no injected element or handler ran" 0 "$(grep -c '<img\|<b>bold\|data-pwned="1"' dom.html)"
  chrome --dump-dom "$url#q=bold" >domq.html
  check_eq "DOM: filter from the URL" "1 1" \
    "$(grep -c 'id="kernels-shown">Showing 1 of 3 rows<' domq.html) $(grep -c 'id="ops-shown">Showing 1 of 2 rows<' domq.html)"
  check_eq "DOM: filtered rows are hidden" 3 "$(grep -o '<tr hidden="">' domq.html | wc -l | tr -d ' ')"
  chrome --dump-dom "$url#sort=kernels.5.asc" >doms.html
  first=$(tr -d '\n' <doms.html | sed 's/.*id="kernels"//' | grep -o '<td class="n" data-v="[0-9.e+]*">[0-9.]*</td></tr>' | head -1)
  check_eq "DOM: sort by total GPU ascending" '<td class="n" data-v="3000">3.000</td></tr>' "$first"
  check_eq "DOM: sorted column marked" 1 "$(grep -c 'class="n asc" aria-sort="ascending"' doms.html)"
  chrome --screenshot="$TESTDIR/autograd-summary.png" "$url" >/dev/null
  if [ "$(head -c 4 "$TESTDIR/autograd-summary.png" 2>/dev/null | tail -c 3)" = PNG ]; then
    ok "screenshot: $TESTDIR/autograd-summary.png"
  else notok "screenshot" "no PNG at $TESTDIR/autograd-summary.png: $(tail -c 300 "$TESTDIR/chrome.err")"; fi
fi

# ---------------------------------------------------------------- real traces vs golden
golden_totals() { # GOLDEN.csv.gz -> "rows operators calls gpu_us"
  gzip -dc "$1" >golden.csv
  sqlite3 :memory: ".import --csv golden.csv g" \
    "SELECT count(*) || ' ' || count(DISTINCT autogradName) || ' ' || sum(calls) || ' ' || printf('%.3f', sum(total_gpu) / 1000.0) FROM g"
}
page_totals() { # PAGE.html -> "rows operators calls gpu_us"
  sed -n 's/.*<span id="nops">\([0-9]*\)<\/span> operators, <span id="nrows">\([0-9]*\)<\/span> (operator, kernel, sizes) rows, \([0-9]*\) kernel calls, total GPU time \([0-9.]*\) us.*/\2 \1 \3 \4/p' "$1"
}
# mytrace.rpd.gz already carries autogradKernel views from an earlier run
# (its golden autogradKernel, recomputed on a cleaned copy, is empty): the
# page must show the trace's own view.
if need_shared "$TRACES/mytrace.rpd.gz"; then
  check_rc "mytrace.rpd.gz page" 0 rpd-autograd-summary "$TRACES/mytrace.rpd.gz" my.html
  tmpcopy "$TRACES/mytrace.rpd.gz" my.rpd
  check_eq "mytrace: rows, operators, calls, GPU time = its autogradKernel view" \
    "$(q my.rpd "SELECT count(*) || ' ' || count(DISTINCT autogradName) || ' ' || sum(calls) || ' ' || printf('%.3f', sum(total_gpu) / 1000.0) FROM autogradKernel")" \
    "$(page_totals my.html)"
fi
if need_shared "$TRACES/synth-small.rpd" && need_shared "$GOLDEN/synth-small/autogradKernel.csv.gz"; then
  tmpcopy "$TRACES/synth-small.rpd" ss.rpd
  if rpd-autograd ss.rpd >/dev/null 2>ss.err; then
    check_rc "synth-small page" 0 rpd-autograd-summary ss.rpd ss.html
    check_eq "synth-small: rows, operators, calls, GPU time = golden" \
      "$(golden_totals "$GOLDEN/synth-small/autogradKernel.csv.gz")" "$(page_totals ss.html)"
    check_eq "synth-small: one table row per golden row" "$(($(wc -l <golden.csv) - 1))" \
      "$(tr -d '\n' <ss.html | sed 's/.*id="kernels"//' | grep -o '<tr><td>' | wc -l | tr -d ' ')"
  else notok "rpd-autograd on synth-small" "$(head -c 300 ss.err)"; fi
fi
