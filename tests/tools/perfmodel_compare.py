"""Compare rpd-perfmodel's perf_op_summary with a TraceLens perf report CSV.

usage: perfmodel_compare.py TRACE.rpd SHEET.csv CATEGORY LABEL
Prints TAP-like "ok - ..." / "not ok - ..." lines (tests/lib.sh style)."""
import csv, json, sqlite3, sys

db, sheet, cat, label = sys.argv[1:5]


def norm(v):
    if isinstance(v, bool) or v in ("True", "False"):
        return str(v) == "True"
    try:
        return float(v)
    except (TypeError, ValueError):
        return str(v)


rows = list(csv.DictReader(open(sheet, encoding="utf-8")))
con = sqlite3.connect(db)
con.row_factory = sqlite3.Row
ours = con.execute("SELECT * FROM perf_op_summary WHERE category = ?", (cat,)).fetchall()


def key_of(name, params, keys):
    return (name,) + tuple(norm(params.get(k)) for k in keys)


bad = []
if not rows:
    bad.append("no TraceLens rows")
keys = [k[len("param: "):] for k in rows[0] if k.startswith("param: ")] if rows else []
mine = {}
for r in ours:
    p = json.loads(r["params"])
    common = [k for k in keys if k in p]
    mine[key_of(r["name"], p, common)] = r
if len(ours) != len(rows):
    bad.append("%d rows, TraceLens %d" % (len(ours), len(rows)))
for t in rows:
    p = {k[len("param: "):]: v for k, v in t.items() if k.startswith("param: ")}
    p0 = json.loads(ours[0]["params"]) if ours else {}
    common = [k for k in keys if k in p0]
    r = mine.get(key_of(t["name"], p, common))
    if r is None:
        bad.append("no row for %s %s" % (t["name"], p))
        continue
    def rel(a, b):
        return abs(a - b) / max(abs(b), 1e-300)
    what = "%s %s" % (t["name"], [p[k] for k in common])
    if rel(r["GFLOPS_first"], float(t["GFLOPS_first"])) > 1e-12:
        bad.append("GFLOPS %r vs %s for %s" % (r["GFLOPS_first"], t["GFLOPS_first"], what))
    if rel(r["Data Moved (MB)_first"], float(t["Data Moved (MB)_first"])) > 1e-12:
        bad.append("MB %r vs %s for %s" % (r["Data Moved (MB)_first"], t["Data Moved (MB)_first"], what))
    if r["name_count"] != int(t["name_count"]):
        bad.append("count %d vs %s for %s" % (r["name_count"], t["name_count"], what))
    if abs(r["Kernel Time (µs)_mean"] - float(t["Kernel Time (µs)_mean"])) > 0.01:
        bad.append("kernel us %r vs %s for %s" % (r["Kernel Time (µs)_mean"], t["Kernel Time (µs)_mean"], what))
    if rel(r["TFLOPS/s_mean"], float(t["TFLOPS/s_mean"])) > 0.005:
        bad.append("TFLOPS/s %r vs %s for %s" % (r["TFLOPS/s_mean"], t["TFLOPS/s_mean"], what))
name = "rpd-perfmodel: %s %s equals TraceLens (%d rows)" % (label, cat, len(rows))
print(("ok - " + name) if not bad else ("not ok - %s: %s" % (name, "; ".join(bad[:4]))))
