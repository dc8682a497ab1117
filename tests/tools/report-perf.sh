#!/bin/sh
# raptor --report's performance-model sheets (raptor/report/perf.c,
# perfchart.c): TraceLens's sheet and column names and rows on its public
# MI300 and H100 traces (perf_sheet_compare.py), perf_roofline ranked by
# lost time, perf_peaks, the roofline chart in the HTML page and the
# workbook, and no sheet without rpd-perfmodel.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../lib.sh"

command -v python3 >/dev/null 2>&1 || { skip "report-perf: needs python3"; exit 0; }
KT="$TRACES/kineto"
need_shared "$KT" || exit 0

# with_tracelens T DIR: before and after rpd-perfmodel, and each sheet
# against TraceLens's
with_tracelens() {
  t=$1 dir=$2
  # before rpd-perfmodel: no perf sheet, and asking for one says what to run
  check "report $t without the model" raptor $t.rpd --report -q --csv-dir plain$t
  check_eq "no perf sheet without ext_perf_op ($t)" "" "$(ls plain$t | grep -E '^(GEMM|perf_)')"
  check_rc "--table GEMM without the model exits 1" 1 raptor $t.rpd --report --table GEMM
  check_eq "--table GEMM without the model names rpd-perfmodel" 1 "$(grep -c 'rpd-perfmodel' "$TESTDIR/stderr")"
  rpd-perfmodel $t.rpd >/dev/null 2>&1
  check "report $t --csv-dir" raptor $t.rpd --report -q --csv-dir csv$t
  for c in $(tracelens_sheets "$dir" GEMM SDPA_fwd BinaryElementwise UnaryElementwise \
               Normalization Reduce_fwd); do
    # on purpose (docs/rpd-perfmodel.md "Against TraceLens"): aten::layer_norm
    # runs native_layer_norm and is counted once, as the inner op; a mean
    # over dim -1 has 16*559 outputs, not 1
    case $c in
      Normalization) set -- --skip-name aten::layer_norm;;
      Reduce_fwd) set -- --differ "param: num_output_elems" --differ "Data Moved (MB)_first" \
        --differ "FLOPS/Byte_first" --differ "TB/s_mean" --differ "TB/s_max";;
      *) set --;;
    esac
    if [ -f csv$t/$c.csv ]; then
      python3 "$HERE/perf_sheet_compare.py" csv$t/$c.csv "$dir/perf_report_csvs/$c.csv" $t "$@"
    else
      notok "report $t writes $c.csv"
    fi
  done
}
tracelens_each report-perf with_tracelens

if [ -f csvmi300/GEMM.csv ]; then
  # the comparison fails on a planted difference in a key column
  sed '2s/"(1024, 1)"/"(1024,1)"/' csvmi300/GEMM.csv >planted.csv
  d=$(ls -d "$KT"/tracelens_mi300_*/)
  out=$(python3 "$HERE/perf_sheet_compare.py" planted.csv "$d/perf_report_csvs/GEMM.csv" planted | tail -1)
  case "$out" in "not ok - "*"no row"*) ok "comparison catches a changed key text";;
    *) notok "comparison catches a changed key text" "$out";; esac

  # a sheet's sums are ext_perf_op's: the mm group of M=8944 N=2816 K=1024
  check_eq "GEMM row: kernel time sum and count from ext_perf_op" \
    "$(q mi300.rpd "SELECT printf('%.3f|%d', sum(kernel_ns) / 1e3, count(*)) FROM ext_perf_op
        WHERE name = 'aten::mm' AND outer = 0 AND kernels > 0 AND params LIKE '%\"M\":8944,\"N\":2816,\"K\":1024%'")" \
    "$(python3 -c "
import csv
for r in csv.DictReader(open('csvmi300/GEMM.csv', encoding='utf-8')):
    if (r['name'], r['param: M'], r['param: N'], r['param: K']) == ('aten::mm', '8944', '2816', '1024'):
        print('%.3f|%s' % (float(r['Kernel Time (µs)_sum']), r['name_count']))")"
  # the mean of [16, 559, 1024] over dim -1 (keepdim): 16*559 outputs
  check_eq "Reduce_fwd: mean over the last dim, outputs and MB" "8944 34.97161865234375" \
    "$(python3 -c "
import csv
r = next(csv.DictReader(open('csvmi300/Reduce_fwd.csv', encoding='utf-8')))
print(r['param: num_output_elems'], r['Data Moved (MB)_first'])")"
  check_eq "perf_peaks: MI300X bf16 1307.4 TFLOP/s, 5.3 TB/s, ridge 246.679" \
    "MI300X,matrix_bf16,1307.4,5.3,246.679" "$(grep matrix_bf16 csvmi300/perf_peaks.csv | tr -d '\r')"
  check_eq "perf_roofline: every op group once" \
    "$(cat csvmi300/GEMM.csv csvmi300/SDPA_fwd.csv csvmi300/BinaryElementwise.csv csvmi300/UnaryElementwise.csv csvmi300/Reduce_fwd.csv | python3 -c "
import csv, sys; print(sum(1 for r in csv.reader(sys.stdin) if r[0] != 'name'))")" \
    "$(python3 -c "
import csv; print(len(list(csv.DictReader(open('csvmi300/perf_roofline.csv', encoding='utf-8')))))")"
  check_eq "perf_roofline: ranked by lost time, lost = kernel - roofline" "ok" \
    "$(python3 -c "
import csv
rows = list(csv.DictReader(open('csvmi300/perf_roofline.csv', encoding='utf-8')))
lost = [float(r['lost_us_sum']) for r in rows]
ok = lost == sorted(lost, reverse=True) and all(
    abs(float(r['Kernel Time (µs)_sum']) - float(r['roofline_us_sum']) - float(r['lost_us_sum'])) < 0.002 for r in rows)
print('ok' if ok and rows[0]['name'] == 'aten::_scaled_dot_product_flash_attention' else 'bad %s' % lost[:3])")"

  # the page: the roofline chart (one circle per op group with a point),
  # its roofs, the sheets as tables, no external script
  check "report --html" raptor mi300.rpd --report -q --html p.html
  n=$(python3 -c "
import csv
print(sum(1 for r in csv.DictReader(open('csvmi300/perf_roofline.csv', encoding='utf-8'))
          if r['FLOPS/Byte'] and r['TFLOPS/s'] and float(r['FLOPS/Byte']) > 0 and float(r['TFLOPS/s']) > 0))")
  sec=$(sed -n '/<h2 id="perf">/,/<\/svg>/p' p.html)
  check_eq "html: a circle per op group, 2 roofs (bf16; fp32 and vector shared)" "$n 2" \
    "$(printf '%s\n' "$sec" | grep -c '<circle cx=.*fill-opacity') $(printf '%s\n' "$sec" | grep -c 'stroke-dasharray')"
  check_eq "html: the sheets as tables" 7 \
    "$(grep -cE '<h2 id="(GEMM|SDPA_fwd|BinaryElementwise|UnaryElementwise|Reduce_fwd|perf_roofline|perf_peaks)">' p.html)"
  check_eq "html: no external script or link" 0 "$(grep -ciE '<script[^>]+src=|<link ' p.html)"
  # the workbook: a scatter chart with two log axes on perf_roofline
  check "report --xlsx" raptor mi300.rpd --report -q --xlsx p.xlsx
  check_eq "xlsx: one log-log scatter chart" 1 \
    "$(for c in $(unzip -Z1 p.xlsx | grep 'xl/charts/chart'); do unzip -p p.xlsx $c |
       python3 -c "
import sys; s = sys.stdin.read(); print(int('<c:scatterChart>' in s and s.count('<c:logBase val=\"10\"/>') == 2))"; done |
       awk '{ s += $1 } END { print s }')"
  check_eq "xlsx: the GEMM sheet" 1 "$(unzip -p p.xlsx xl/workbook.xml | grep -c 'name="GEMM"')"
fi

# coll_analysis: the collectives of a Kineto trace with their args
nccl="$KT/hta_nccl_parser_config_nccl_data.json.gz"
if [ -f "$nccl" ]; then
  rpd-import -q "$nccl" nccl.rpd >/dev/null 2>&1
  check "report of a trace with NCCL collectives" raptor nccl.rpd --report -q --csv-dir ncsv
  # TraceLens's per-rank coll_analysis columns (its tests/traces/.../coll_analysis.csv), then ours
  check_eq "coll_analysis: TraceLens's columns, then ours" \
    "rank,Process Group Name,Process Group Ranks,Collective name,Group size,dtype,In msg nelems,Out msg nelems,In split size,Out split size,stream,In msg size (MB)_first,Out msg size (MB)_first,dur_sum,dur_mean,dur_std,dur_min,dur_max,operation_count,Full msg size (MB),algo bw (GB/s)_mean,bus bw (GB/s)_mean,bus bw (% of link peak)_mean" \
    "$(head -1 ncsv/coll_analysis.csv | tr -d '\r')"
  # each group from the kernels' args: 2049000 floats = 7.816 MB, three
  # instances; algo bw = MB/1024 / s per instance, averaged; an allreduce
  # of 2 ranks moves 2*(2-1)/2 = 1 x that on the bus
  check_eq "coll_analysis: an allreduce group from its kernels" "ok" "$(python3 -c "
import csv, json, sqlite3
rows = list(csv.DictReader(open('ncsv/coll_analysis.csv', encoding='utf-8')))
r = [x for x in rows if x['In msg nelems'] == '2049000'][0]
con = sqlite3.connect('nccl.rpd')
durs = [(e - s) / 1e3 for s, e, a in con.execute(
    \"SELECT start, end, args FROM ext_kineto_event WHERE cat = 'kernel'\")
    if json.loads(a).get('In msg nelems') == 2049000]
mb = 2049000 * 4 / 1048576
alg = sum(mb / 1024 / (d / 1e6) for d in durs) / len(durs)
ok = (len(durs) == int(r['operation_count']) == 3 and float(r['In msg size (MB)_first']) == mb
      and abs(float(r['dur_sum']) - sum(durs)) < 1e-6
      and abs(float(r['algo bw (GB/s)_mean']) - alg) < 1e-9 * alg
      and r['algo bw (GB/s)_mean'] == r['bus bw (GB/s)_mean'])
print('ok' if ok else 'bad %s %s' % (r, durs))")"
  # % of link peak: the trace's device (NVIDIA A100-PG509-200) is an A100,
  # whose NVLink 3 is 600 GB/s both ways = 300 GB/s (10^9) one way; bus bw
  # is in GB of 2^30, so 100 * bus * 2^30 / 300e9.  With rpd-perfmodel's
  # arch: an arch file's link_gbs (100 here); an arch without one (MI250X):
  # empty.
  linkpct() {  # $1: csv dir, $2: link GB/s or '' -> ok when every row matches
    python3 -c "
import csv, sys
peak = float('$2') if '$2' else None
bad = [r for r in csv.DictReader(open('$1/coll_analysis.csv', encoding='utf-8'))
       if not ((peak is None and r['bus bw (% of link peak)_mean'] == '') or
               (peak is not None and abs(float(r['bus bw (% of link peak)_mean'])
                - 100 * float(r['bus bw (GB/s)_mean']) * 2**30 / (peak * 1e9)) < 1e-9))]
print('ok' if not bad else bad[0])"
  }
  check_eq "coll_analysis: % of the A100's link peak (300 GB/s one way)" ok "$(linkpct ncsv 300)"
  check_eq "coll_analysis: 2.2033573 GB/s on the bus = 0.7886123% of 300 GB/s" "0.7886123" \
    "$(python3 -c "
import csv
r = [x for x in csv.DictReader(open('ncsv/coll_analysis.csv', encoding='utf-8'))
     if x['In msg nelems'] == '2049000'][0]
print('%.7f %.7f' % (float(r['bus bw (GB/s)_mean']), float(r['bus bw (% of link peak)_mean'])))" |
      awk '$1 == "2.2033573" { print $2 }')"
  printf 'name LINK1\nhbm_tbs 1\nlink_gbs 100\n' > link1.arch
  check "rpd-perfmodel --arch-file with link_gbs" rpd-perfmodel -q --arch-file link1.arch -o nl.rpd nccl.rpd
  check "report after it" raptor nl.rpd --report -q --csv-dir nlcsv
  check_eq "coll_analysis: the arch file's link peak" ok "$(linkpct nlcsv 100)"
  check "rpd-perfmodel --arch MI250X (no link peak)" rpd-perfmodel -q --arch MI250X -o n250.rpd nccl.rpd
  check "report after it" raptor n250.rpd --report -q --csv-dir n250csv
  check_eq "coll_analysis: no link peak, empty %" ok "$(linkpct n250csv '')"
  check "report --html of the collectives" raptor nccl.rpd --report -q --html n.html
  check_eq "html: the % of link peak column" 1 "$(grep -c 'bus bw (% of link peak)_mean' n.html)"
  check_eq "html: the Collectives section and its table" "1 1" \
    "$(grep -c '<h2 id="perf">Collectives</h2>' n.html) $(grep -c '<h2 id="coll_analysis">' n.html)"
  check_eq "coll_analysis: sorted by dur_sum descending" "ok" "$(python3 -c "
import csv
d = [float(x['dur_sum']) for x in csv.DictReader(open('ncsv/coll_analysis.csv', encoding='utf-8'))]
print('ok' if d == sorted(d, reverse=True) and len(d) == 7 else d)")"
fi
check_rc "--table coll_analysis without collectives exits 1" 1 raptor h100.rpd --report --table coll_analysis
