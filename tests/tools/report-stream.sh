#!/bin/sh
# report-stream.sh - raptor --report keeps nothing per op (issue 19): the
# intervals come back in (gpu, start) and start order from raptor's run
# merger (SQLite sorts when the table has no order), the kernels from a
# bounded sort in C (mode "spill": its buffer shrunk to 4 KB, so it merges
# runs from its scratch file).  Every output (CSV, JSON, HTML with the
# utilization and idle-gap charts) must equal the old in-memory path's
# (RPDTOOLS_RAPTOR_REPORT=memory) and the SQL-sorted path's (=sql, the
# kernels from a query SQLite sorts by (description_id, duration)), on
# copies whose rocpd_op rows are stored in other orders;
# and the numbers must equal an independent computation in Python (counts,
# exact sums, medians, sample std, histogram, unions).  Generated traces only.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"
VIEWS="$(cd "$(dirname "$0")" && pwd)/../../views"
cd "$TESTDIR" || exit 1

rpd-synth --seed 7 --api 20000 --gpus 3 -o s.rpd >/dev/null 2>&1 || notok "fixture: rpd-synth"
# the awkward cases: ops of a GPU that start together (and end apart),
# zero-length kernels, and one kernel name under two description_ids (two
# rows in kernel_summary, as before)
top=$(q s.rpd "SELECT description_id FROM rocpd_op WHERE opType_id IN
               (SELECT id FROM rocpd_string WHERE string = 'KernelExecution')
               GROUP BY description_id ORDER BY count(*) DESC, description_id LIMIT 1")
q s.rpd "INSERT INTO rocpd_op (gpuId, queueId, sequenceId, start, \"end\", description_id, opType_id)
           SELECT gpuId, queueId, sequenceId, start, start + (\"end\" - start) / 3, description_id, opType_id
           FROM rocpd_op WHERE id % 53 = 0;
         UPDATE rocpd_op SET \"end\" = start WHERE id % 71 = 0;
         INSERT INTO rocpd_string (string) SELECT string FROM rocpd_string WHERE id = $top;
         UPDATE rocpd_op SET description_id = (SELECT max(id) FROM rocpd_string)
           WHERE id % 3 = 0 AND description_id = $top;"
check_eq "fixture: ops of one GPU that start together" 1 \
  "$(q s.rpd "SELECT count(*) > 100 FROM (SELECT 1 FROM rocpd_op GROUP BY gpuId, start HAVING count(*) > 1)")"
check_eq "fixture: one kernel name under two ids" 2 \
  "$(q s.rpd "SELECT count(DISTINCT description_id) FROM rocpd_op WHERE description_id IN
              (SELECT id FROM rocpd_string WHERE string = (SELECT string FROM rocpd_string WHERE id = $top))")"

# copies whose rocpd_op rows are stored in another order (a table without
# the integer primary key scans in insertion order), each as t.rpd in its
# own directory so that the info section (trace name) is the same
reorder() {  # NAME ORDER-BY
  mkdir -p "$1"
  reorder_ops s.rpd "$1/t.rpd" "$2"
}
mkdir -p base && cp s.rpd base/t.rpd
reorder runs4 "id % 4, id"                   # four sorted streams per GPU: merged
reorder reversed "start DESC"                # every op a run of its own: SQLite sorts
reorder shuffled "(id * 7919) % 10007, id"   # scattered: SQLite sorts

# run DIR MODE TAG OPTS...: the report of DIR/t.rpd in every format into DIR/TAG-MODE/
# (run from there: the command line on the HTML info is the same for all)
run() {
  _d=$1; _m=$2; _t=$3; shift 3
  mkdir -p "$_d/$_t-$_m"
  _e=""
  [ "$_m" = spill ] && _e="RPD_ANALYZE_SORT_BYTES=4096"
  (cd "$_d/$_t-$_m" && env RPDTOOLS_RAPTOR_REPORT="${_m%spill}${_e:+merge}" $_e raptor ../t.rpd --report "$@" --format json \
     --csv-dir csv --html r.html >r.json 2>err)
}
i=0
for opts in "" "--topk 0 --histogram-bins 7 --short-kernel-threshold-us 3 --util-bins 37" \
            "--gpu-id 1 --topk 5 --util-bins 1000"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  if run base memory o$i $opts; then ok "options [$opts]: in-memory path runs"
  else notok "options [$opts]: in-memory path runs" "$(cat base/o$i-memory/err)"; continue; fi
  for v in "base default" "base merge" "base sql" "runs4 merge" "reversed merge" "shuffled merge" "shuffled spill" "shuffled sql"; do
    set -- $v
    # shellcheck disable=SC2086
    run "$1" "$2" o$i $opts || { notok "[$opts] $1 ($2) runs" "$(cat "$1/o$i-$2/err")"; continue; }
    same_file "[$opts] $1 ($2): JSON as the in-memory path's" base/o$i-memory/r.json "$1/o$i-$2/r.json"
    same_file "[$opts] $1 ($2): HTML (utilization, idle gaps) as the in-memory path's" \
      base/o$i-memory/r.html "$1/o$i-$2/r.html"
    _diff=""
    for f in base/o$i-memory/csv/*.csv; do
      cmp -s "$f" "$1/o$i-$2/csv/$(basename "$f")" || _diff="$_diff $(basename "$f")"
    done
    check_eq "[$opts] $1 ($2): every CSV as the in-memory path's" "" "$_diff"
  done
done
check_eq "the CSV set: the six tables, the two chart tables, idle_definitions and api_stats" \
  "api_stats.csv category.csv gpu_timeline.csv idle_definitions.csv idle_gaps.csv kernel_details.csv kernel_summary.csv short_histogram.csv short_kernels.csv utilization.csv" \
  "$(ls base/o2-merge/csv | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
# the numbers, computed independently from the trace by Python
cp s.rpd chk.rpd
sqlite3 -batch chk.rpd <"$VIEWS/opClass.sql"
kernels="SELECT count(*) FROM rocpd_op WHERE opType_id IN (SELECT opType_id FROM opClass WHERE class = 'kernel')"
check_eq "fixture: Task ops are kernels too" 1 \
  "$(q chk.rpd "SELECT count(*) > 0 FROM rocpd_op JOIN opClass USING (opType_id) WHERE opType = 'Task'")"
check_eq "--topk 0: kernel_details has every kernel dispatch" "$(q chk.rpd "$kernels")" \
  "$(($(tr -d '\r' <base/o2-merge/csv/kernel_details.csv | wc -l) - 1))"
check_eq "--topk 5 --gpu-id 1: five dispatches of GPU 1, longest first" "5 1 ok" \
  "$(tr -d '\r' <base/o3-merge/csv/kernel_details.csv | tail -n +2 | awk -F, '{ n++; g[$3] = 1; if (n > 1 && $2 + 0 > p) bad = 1; p = $2 + 0 } END { print n, length(g), bad ? "unsorted" : "ok" }')"
cat >check.py <<'EOF'
import csv, json, math, sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1]); out = sys.argv[2]; thr = float(sys.argv[3]); bins = int(sys.argv[4])
cls = dict(db.execute("SELECT opType_id, class FROM opClass"))
names = dict(db.execute("SELECT id, string FROM rocpd_string"))
ks, ivs = {}, {}
for gpu, s, e, sid, ot in db.execute('SELECT gpuId, start, "end", description_id, opType_id FROM rocpd_op'):
    c = cls.get(ot)
    if c not in ("kernel", "copy") or e < s:
        continue
    ivs.setdefault(gpu, []).append((s, e, c))
    if c == "kernel":
        ks.setdefault(sid, []).append(e - s)
def rows(name):
    with open(out + "/" + name + ".csv", newline="") as f:
        return list(csv.DictReader(f))
bad = []
def near(a, b, what, tol=0.0006):
    if a is None or b is None:
        if a != b: bad.append("%s: %r != %r" % (what, a, b))
    elif abs(a - b) > tol:
        bad.append("%s: %r != %r" % (what, a, b))
want = {}
for sid, d in ks.items():
    d.sort()
    want.setdefault(names[sid], []).append(d)
got = {}
for r in rows("kernel_summary"):
    got.setdefault(r["name"], []).append(r)
if sorted((n, len(v)) for n, v in got.items()) != sorted((n, len(v)) for n, v in want.items()):
    bad.append("kernel_summary names/rows differ")
for n, lst in want.items():
    for d, r in zip(sorted(lst, key=sum, reverse=True), sorted(got.get(n, []), key=lambda r: -float(r["total_us"]))):
        w = n[:30]
        if int(r["count"]) != len(d): bad.append(w + " count")
        if r["total_us"] != "%d.%03d" % divmod(sum(d), 1000): bad.append(w + " total_us exact")
        near(float(r["median_us"]), statistics.median(d) / 1e3, w + " median")
        near(float(r["std_us"]) if r["std_us"] else None,
             statistics.stdev(d) / 1e3 if len(d) > 1 else None, w + " std")
        near(float(r["min_us"]), d[0] / 1e3, w + " min")
        near(float(r["max_us"]), d[-1] / 1e3, w + " max")
short = [x for d in ks.values() for x in d if x < thr * 1000]
h = rows("short_histogram")
if len(h) != bins or sum(int(r["count"]) for r in h) != len(short):
    bad.append("histogram: %d bins, %d counted, %d short" % (len(h), sum(int(r["count"]) for r in h), len(short)))
else:
    near(float(h[0]["bin_start_us"]), min(short) / 1e3, "histogram min")
    near(float(h[-1]["bin_end_us"]), max(short) / 1e3, "histogram max")
if sum(int(r["count"]) for r in rows("short_kernels")) != len(short):
    bad.append("short_kernels count")
def union(iv):
    tot, cs, ce = 0, None, None
    for s, e in sorted(iv):
        if cs is None: cs, ce = s, e
        elif s <= ce: ce = max(ce, e)
        else: tot += ce - cs; cs, ce = s, e
    return tot + (ce - cs if cs is not None else 0)
tl = {(r["gpuId"], r["type"]): r["time_ms"] for r in rows("gpu_timeline")}
for g in [None] + sorted(ivs):
    iv = [x for k, v in ivs.items() if g is None or k == g for x in v]
    key = "" if g is None else str(g)
    for typ, want_ns in (("kernel", union([(s, e) for s, e, c in iv if c == "kernel"])),
                         ("memory", union([(s, e) for s, e, c in iv if c == "copy"])),
                         ("busy_time", union([(s, e) for s, e, c in iv]))):
        if tl.get((key, typ)) != "%d.%06d" % divmod(want_ns, 1000000):
            bad.append("gpu_timeline %s %s: %s != %d ns" % (key or "all", typ, tl.get((key, typ)), want_ns))
print("; ".join(bad[:5]) if bad else "ok")
EOF
check_eq "default options: every number as Python computes it from the trace" ok \
  "$(python3 check.py chk.rpd base/o1-merge/csv 10 100 2>&1 | tail -1)"
check_eq "threshold 3 us, 7 bins: every number as Python computes it" ok \
  "$(python3 check.py chk.rpd base/o2-merge/csv 3 7 2>&1 | tail -1)"
check_eq "the all-GPU rows and one row per GPU" "4 32" \
  "$(tr -d '\r' <base/o1-merge/csv/gpu_timeline.csv | tail -n +2 | cut -d, -f1 | sort -u | wc -l | tr -d ' ') $(($(wc -l <base/o1-merge/csv/gpu_timeline.csv) - 1))"
check_eq "kernel_summary counts add up to the kernel dispatches" \
  "$(q chk.rpd "SELECT count(*), sum(\"end\" - start) FROM rocpd_op WHERE opType_id IN (SELECT opType_id FROM opClass WHERE class = 'kernel')")" \
  "$(tr -d '\r' <base/o1-merge/csv/kernel_summary.csv | tail -n +2 | python3 -c "import csv,sys; r=list(csv.reader(sys.stdin)); print('%d|%d' % (sum(int(x[1]) for x in r), round(sum(float(x[2]) for x in r) * 1000)))")"
check_eq "the fixture has short kernels in both runs" 1 \
  "$(awk -F, 'NR > 1 { n += $3 } END { print (n > 100) }' base/o2-merge/csv/short_histogram.csv)"
