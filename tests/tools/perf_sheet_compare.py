"""Compare a raptor --report perf sheet (--csv-dir) with TraceLens's CSV of it.

usage: perf_sheet_compare.py OURS.csv TRACELENS.csv LABEL [--skip-name NAME]... [--differ COL]...
--skip-name: TraceLens's rows of op NAME that we do not write on purpose;
--differ: a column (key or value) where we differ on purpose (not compared).
Rows are matched on name + every "param: X" column both have, compared as
the texts TraceLens writes (so the key formats must be equal).  Prints
tests/lib.sh-style "ok - " / "not ok - " lines: the column set (every
TraceLens column but the documented ones is ours too) and the rows (same
rows; GFLOPS, MB, counts and Input *_first texts equal; kernel time within
0.01 us; TFLOP/s and TB/s within 0.5%)."""
import csv, sys

ours_f, theirs_f, label = sys.argv[1:4]
skip_names, differ = set(), set()
rest = sys.argv[4:]
while rest:
    opt, val, rest = rest[0], rest[1], rest[2:]
    (skip_names if opt == "--skip-name" else differ).add(val)
# TraceLens columns we do not write, each on purpose (docs/report.md)
NOT_OURS = {"param: transpose", "process_name_first", "process_label_first",
            "thread_name_first", "kernel_details__summarize_kernel_stats",
            "trunc_kernel_details"}
ours = list(csv.DictReader(open(ours_f, encoding="utf-8")))
theirs = [r for r in csv.DictReader(open(theirs_f, encoding="utf-8"))
          if r["name"] not in skip_names]
ocols = set(csv.reader(open(ours_f, encoding="utf-8")).__next__())
tcols = csv.reader(open(theirs_f, encoding="utf-8")).__next__()
missing = [c for c in tcols if c not in ocols and c not in NOT_OURS]
name = "report %s: every TraceLens column of %s but the documented ones" % (label, theirs_f.split("/")[-1])
print(("ok - " + name) if not missing else "not ok - %s: missing %s" % (name, missing))

keys = ["name"] + [c for c in tcols if c.startswith("param: ") and c in ocols and c not in differ]


def key(r):
    return tuple(r[k] for k in keys)


mine = {key(r): r for r in ours}
bad = []
if len(ours) != len(theirs):
    bad.append("%d rows, TraceLens %d" % (len(ours), len(theirs)))


def rel(a, b):
    return abs(float(a) - float(b)) / max(abs(float(b)), 1e-300)


for t in theirs:
    r = mine.get(key(t))
    if r is None:
        bad.append("no row %s" % (key(t),))
        continue
    w = "%s" % (key(t),)
    for c in ("GFLOPS_first", "Data Moved (MB)_first", "FLOPS/Byte_first"):
        if c not in differ and rel(r[c], t[c]) > 1e-12:
            bad.append("%s %s vs %s for %s" % (c, r[c], t[c], w))
    for c in ("name_count", "Input Dims_first", "Input type_first", "Input Strides_first",
              "Concrete Inputs_first", "Compute Spec"):
        if r[c] != t[c]:
            bad.append("%s %r vs %r for %s" % (c, r[c], t[c], w))
    for c in ("Kernel Time (µs)_mean", "Kernel Time (µs)_median", "Kernel Time (µs)_min",
              "Kernel Time (µs)_max"):
        if abs(float(r[c]) - float(t[c])) > 0.01:
            bad.append("%s %s vs %s for %s" % (c, r[c], t[c], w))
    if abs(float(r["Kernel Time (µs)_sum"]) - float(t["Kernel Time (µs)_sum"])) > 0.01 * int(t["name_count"]):
        bad.append("kernel sum %s vs %s for %s" % (r["Kernel Time (µs)_sum"], t["Kernel Time (µs)_sum"], w))
    for c in ("TFLOPS/s_mean", "TB/s_mean", "TFLOPS/s_median", "TB/s_max"):
        if c not in differ and rel(r[c], t[c]) > 0.005:
            bad.append("%s %s vs %s for %s" % (c, r[c], t[c], w))
    if (r["Kernel Time (µs)_std"] == "") != (t["Kernel Time (µs)_std"] == ""):
        bad.append("std %r vs %r for %s" % (r["Kernel Time (µs)_std"], t["Kernel Time (µs)_std"], w))
order_ok = [key(r) for r in ours] == [key(t) for t in theirs]
name = "report %s: %s rows equal TraceLens's (%d rows%s%s)" % (
    label, theirs_f.split("/")[-1], len(theirs), ", same order" if order_ok else ", other order",
    "".join(", but %s" % x for x in sorted(skip_names | differ)))
print(("ok - " + name) if not bad else "not ok - %s: %s" % (name, "; ".join(bad[:4])))
