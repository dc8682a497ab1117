"""RaptorParser against the CLI's --save tables and the reference's golden
dataframes, ROI recomputation, .gz, errors."""
import gzip
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import rpdtools
from conftest import CATS, GOLDEN, TRACES, shared, tool


def saved(path, *opts):
    """raptor --save with the Python defaults; the ext_raptor_* tables."""
    tool("raptor", path, "--save", "--reference-ops", "-C", CATS, *opts)
    con = sqlite3.connect(path)
    try:
        return {t: pd.read_sql_query("SELECT * FROM " + t, con) for t in
                ("ext_raptor_op", "ext_raptor_kernelseq", "ext_raptor_category",
                 "ext_raptor_variability", "ext_raptor_gpu")}
    finally:
        con.close()


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def check_against_save(rp, t):
    op = rp.get_op_df()
    x = t["ext_raptor_op"]
    assert len(op) == len(x) > 0
    assert (op["id"].values == x["op_id"].values).all()
    assert (op["Start_ns"].values == x["start_ns"].values).all()
    assert (op["Duration_ns"].values == x["duration_ns"].values).all()
    assert np.array_equal(op["PreGap_ns"].values, x["pregap_ns"].values.astype(float),
                          equal_nan=True)
    assert (op["Kernel"].values == x["kernel"].values).all()
    assert (op["Outlier"].values == x["outlier"].astype(bool).values).all()
    ks = rp.get_kernelseq_df()
    k = t["ext_raptor_kernelseq"]
    assert len(ks) == len(k)
    assert [i[0] for i in ks.index] == list(k["kernel"])
    assert (ks[("TotalCalls", "")].values == k["calls"].values).all()
    assert np.array_equal(ks[("Duration_ns", "sum")].values, k["dur_sum_ns"].values)
    assert np.array_equal(ks[("Duration_ns", "std")].values, k["dur_std_ns"].values.astype(float),
                          equal_nan=True)
    assert np.array_equal(ks[("VarSum_ns", "")].values, k["varsum_ns"].values.astype(float),
                          equal_nan=True)
    assert list(ks[("Category", "")]) == list(k["category"])
    cat = rp.get_category_df(duration_units="ns")
    c = t["ext_raptor_category"]
    assert list(cat.index) == list(c["category"])
    assert np.array_equal(cat["TotalDur_ns"].values, c["total_dur_ns"].values)
    assert (cat["TotalCalls"].values == c["total_calls"].values).all()
    g = rp.get_gpu_ts_df("ns")
    assert np.array_equal(g["PreGap_ns"].values, t["ext_raptor_gpu"]["pregap_ns"].values)
    v = rp.get_variability_df()
    assert np.allclose(v["Var_us"].values, t["ext_raptor_variability"]["var_us"].values)


def test_equals_cli_save(synth, synth_copy):
    rp = rpdtools.RaptorParser(synth)
    check_against_save(rp, saved(synth_copy))


def test_options_equal_cli_save(synth, synth_copy):
    rp = rpdtools.RaptorParser(synth, roi_start="20%", roi_end="70%", gpu_id=1,
                               prekernel_seq=1, zscore_threshold=2)
    check_against_save(rp, saved(synth_copy, "-s", "20%", "-e", "70%", "--gpu-id", "1",
                                 "--kernelseq-len", "1", "-z", "2"))
    assert rp.get_op_df()["Outlier"].sum() > 0
    assert set(rp.get_op_df()["gpuId"]) == {1}


def test_setters_recompute(synth, synth_copy):
    rp = rpdtools.RaptorParser(synth)
    n_all = len(rp.get_op_df())
    rp.set_roi_from_str("20%", "70%")
    n_roi = len(rp.get_op_df())
    assert 0 < n_roi < n_all
    rp.set_gpu_id(0)
    assert set(rp.get_op_df()["gpuId"]) == {0}
    rp.set_prekernel_seq(0)
    assert all(len(i) == 1 for i in rp.get_kernelseq_df().index)
    rp.set_zscore_threshold(3)
    rp.set_gpu_id(-1)
    rp.set_prekernel_seq(2)
    rp.set_zscore_threshold(-1)
    check_against_save(rp, saved(synth_copy, "-s", "20%", "-e", "70%"))
    rp.set_full_roi()
    assert len(rp.get_op_df()) == n_all
    rp.set_roi_from_rel_ns(1000000, 5000000)
    op = rp.get_op_df()
    assert op["Start_ns"].min() >= 1000000 and op["Start_ns"].max() <= 5000000
    assert (rp.roi_start_ns, rp.roi_end_ns) == (1000000, 5000000)


def test_instance_df(synth):
    rp = rpdtools.RaptorParser(synth, zscore_threshold=2)
    ks = rp.get_kernelseq_df()
    row = ks[ks[("Category", "")] != "_GPU_Idle"].iloc[0]
    inst = rp.get_instance_df_from_kernel_df(row)
    assert len(inst) == row[("TotalCalls", "")] + row[("Outliers", "")]
    assert inst["Duration_ns"].is_monotonic_increasing
    assert inst.loc[~inst["Outlier"], "Duration_ns"].sum() == row[("Duration_ns", "sum")]
    assert (inst["Kernel"] == row.name[0]).all()


GOLDEN_CASES = {"default": {}, "z3": {"zscore_threshold": 3}, "seq0": {"prekernel_seq": 0},
                "gpu1": {"gpu_id": 1}, "roi_pct": {"roi_start": "20%", "roi_end": "60%"},
                "roi_minus": {"roi_start": "-300ms", "roi_end": "-100ms"}}


def golden_cases():
    out = []
    if os.path.isdir(GOLDEN):
        for trace in sorted(os.listdir(GOLDEN)):
            for case in GOLDEN_CASES:
                if os.path.isdir(os.path.join(GOLDEN, trace, "raptor_" + case)):
                    out.append((trace, case))
    return out or [("none", "none")]


def feq(a, b):
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    both_nan = np.isnan(a) & np.isnan(b)
    return bool(np.all(both_nan | (np.abs(a - b) <= 1e-6 * np.maximum(1.0, np.abs(b)))))


@pytest.mark.parametrize("trace,case", golden_cases())
def test_golden(trace, case):
    if trace == "none":
        pytest.skip("needs " + GOLDEN)
    src = None
    for ext in (".rpd", ".rpd.gz"):
        if os.path.exists(os.path.join(TRACES, trace + ext)):
            src = os.path.join(TRACES, trace + ext)
    if not src:
        pytest.skip("needs the trace of " + trace)
    g = os.path.join(GOLDEN, trace, "raptor_" + case)
    rp = rpdtools.RaptorParser(src, **GOLDEN_CASES[case])
    ts = pd.read_csv(os.path.join(g, "timestamps.csv")).iloc[0]
    assert (rp.first_abs_ns, rp.last_abs_ns, rp.roi_start_ns, rp.roi_end_ns) == \
        (ts["first_abs_ns"], ts["last_abs_ns"], ts["roi_start_ns"], ts["roi_end_ns"])
    gop = pd.read_csv(os.path.join(g, "op.csv.gz"))
    op = rp.get_op_df()
    assert len(op) == len(gop)
    for col in ("gpuId", "sequenceId", "Start_ns", "End_ns", "Duration_ns"):
        assert (op[col].values == gop[col].values).all(), col
    assert (op["Kernel"].values == gop["Kernel"].fillna("").values).all()
    assert feq(op["PreGap_ns"], gop["PreGap_ns"])
    assert feq(op["Duration_zscore"], gop["Duration_zscore"])
    assert (op["Outlier"].values == gop["Outlier"].values).all()
    gks = pd.read_csv(os.path.join(g, "kernelseq.csv.gz"), keep_default_na=False)
    nk = len([c for c in gks.columns if c.startswith("key")])
    ks = rp.get_kernelseq_df()
    assert len(ks) == len(gks)
    mine = {tuple(list(i) + [""] * (nk - len(i))): r for i, r in zip(ks.index, ks.itertuples(index=False))}
    for _, row in gks.iterrows():
        key = tuple(row["key%d" % i] for i in range(nk))
        r = mine[key]
        vals = dict(zip(ks.columns, r))
        assert vals[("TotalCalls", "")] == row["TotalCalls"]
        assert vals[("Category", "")] == row["Category"]
        assert vals[("Start_ns", "min")] == row["Start_ns_min"]
        assert vals[("Start_ns", "max")] == row["Start_ns_max"]
        pairs = [((g, st), "%s_%s" % (g, st)) for g in ("PreGap_ns", "Duration_ns")
                 for st in ("sum", "min", "mean", "std", "max")]
        pairs += [(("PctTotal", ""), "PctTotal"), (("VarSum_ns", ""), "VarSum_ns"),
                  (("Outliers", ""), "Outliers")]
        for a, b in pairs:
            want = np.nan if row[b] == "" else float(row[b])
            got = np.nan if pd.isna(vals[a]) else float(vals[a])
            assert feq([got], [want]), (key, a)
    gcat = pd.read_csv(os.path.join(g, "category.csv"), index_col=0)
    cat = rp.get_category_df()
    assert list(cat.index) == list(gcat.index)
    for col in gcat.columns:
        assert feq(cat[col], gcat[col]), col
    gvar = pd.read_csv(os.path.join(g, "variability.csv"), index_col=0)
    var = rp.get_variability_df()
    assert feq(var["Var_us"], gvar["Var_us"]) and list(var["VarPct"]) == list(gvar["VarPct"])
    ggpu = pd.read_csv(os.path.join(g, "gpu.csv"), index_col=0)
    gpu = rp.get_gpu_ts_df("ns")
    assert list(gpu.index) == list(ggpu.index)
    for col in ggpu.columns:
        assert feq(gpu[col], ggpu[col]), col


def test_gz_equals_plain(synth, tmp_path):
    gz = str(tmp_path / "s.rpd.gz")
    with open(synth, "rb") as f, gzip.open(gz, "wb") as g:
        shutil.copyfileobj(f, g)
    a = rpdtools.RaptorParser(synth).get_kernelseq_df()
    b = rpdtools.RaptorParser(gz).get_kernelseq_df()
    pd.testing.assert_frame_equal(a, b)
    assert rpdtools.RaptorParser(gz).tag == "s"


def cli_message(*args):
    p = tool("raptor", *args, check=False)
    assert p.returncode != 0
    return p.stderr.splitlines()[0]


@pytest.mark.parametrize("content", [b"", b"not a database at all" * 100, b"\x1f\x8b\x08garbage"])
def test_bad_input_raises_cli_message(tmp_path, content):
    bad = str(tmp_path / ("bad.rpd.gz" if content.startswith(b"\x1f\x8b") else "bad.rpd"))
    with open(bad, "wb") as f:
        f.write(content)
    before = sha(bad)
    with pytest.raises(rpdtools.Error) as e:
        rpdtools.RaptorParser(bad).get_kernelseq_df()
    assert str(e.value) == cli_message(bad, "--reference-ops", "-C", CATS)
    assert sha(bad) == before


def test_bad_options_raise(synth):
    with pytest.raises(rpdtools.Error) as e:
        rpdtools.RaptorParser(synth, gpu_id=7)
    assert str(e.value) == cli_message(synth, "--gpu-id", "7")
    with pytest.raises(rpdtools.Error) as e:
        rpdtools.RaptorParser(synth, roi_start="99%", roi_end="10%")
    assert str(e.value).startswith("raptor: ")
    with pytest.raises(rpdtools.Error) as e:
        rpdtools.RaptorParser(synth, roi_start="no_such_kernel_xyz")
    assert str(e.value) == cli_message(synth, "--reference-ops", "-C", CATS, "-s", "no_such_kernel_xyz")
    rp = rpdtools.RaptorParser(synth)
    with pytest.raises(rpdtools.Error):
        rp.set_roi_from_str("200%")
    assert len(rp.get_op_df()) > 0   # the previous ROI is kept
    with pytest.raises(rpdtools.Error):
        rpdtools.RaptorParser(synth, category_json="/nonexistent.json").get_kernelseq_df()
    for missing in ("/nonexistent.rpd", os.path.dirname(synth)):
        with pytest.raises(rpdtools.Error) as e:
            rpdtools.RaptorParser(missing)
        assert str(e.value) == cli_message(missing)


def test_category_dict_and_variability_method(synth):
    rp = rpdtools.RaptorParser(synth)
    calls = rp.get_kernelseq_df()[("TotalCalls", "")].sum()
    cat = rp.get_category_df(categories={"Everything": ["."]})
    # the last match wins, gap rows too; only empty names stay _Other
    assert cat.index[0] == "Everything" and cat["TotalCalls"].sum() == calls
    assert set(cat.index) <= {"Everything", "_Other"}
    total = rp.get_category_df()["TotalDur_ms"].sum()
    v = rp.get_category_df(variability_method="non_collective")
    assert "_Variability" in v.index
    assert v["TotalDur_ms"].sum() == pytest.approx(total)


def test_pretty_and_op_trace(synth, tmp_path, capsys):
    rp = rpdtools.RaptorParser(synth)
    p = rp.get_pretty_kernelseq_df()
    ks = rp.get_kernelseq_df()
    assert list(p.columns) == ["First_ms", "Last_ms", "PreGap_mean_us", "Dur_min_us", "Dur_mean_us",
                               "Dur_max_us", "Var_us", "VarTotal_pct", "Outliers", "TotalCalls",
                               "PctTotal", "Category"]
    assert p["TotalCalls"].iloc[0] == "%d" % ks[("TotalCalls", "")].iloc[0]
    out = str(tmp_path / "trace.txt")
    rp.print_op_trace(outfile=out, max_ops=10)
    lines = open(out).read().splitlines()
    assert len(lines) == 11 and lines[0].split()[0] == "GPU.Seq_Id"
    assert lines[1].startswith("0.00000001 ")


def test_to_xls(synth, tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    rp = rpdtools.RaptorParser(synth)
    x = rp.to_xls(str(tmp_path / "s.xlsx"))
    wb = openpyxl.load_workbook(x, read_only=True)
    assert wb.sheetnames == ["kernelseq_df", "pretty_kernelseq_df", "category_df", "variability_df"]
    assert wb["category_df"].max_row == len(rp.get_category_df()) + 1


def test_trim_to_roi(synth, tmp_path):
    rp = rpdtools.RaptorParser(synth, roi_start="25%", roi_end="50%")
    out = rp.trim_to_roi(str(tmp_path / "t.rpd"))
    t = rpdtools.RaptorParser(out)
    assert 0 < len(t.get_op_df()) <= len(rpdtools.RaptorParser(synth).get_op_df())
    con = sqlite3.connect(out)
    n_api = con.execute("SELECT count(*) FROM rocpd_api").fetchone()[0]
    con.close()
    con = sqlite3.connect(synth)
    first = con.execute("SELECT min(start) FROM rocpd_api").fetchone()[0]
    want = con.execute("SELECT count(*) FROM rocpd_api WHERE start BETWEEN ? AND ?",
                       (first + rp.roi_start_ns, first + rp.roi_end_ns)).fetchone()[0]
    con.close()
    assert n_api == want


def test_monitor_df(synth):
    rp = rpdtools.RaptorParser(synth, roi_start="10%", roi_end="90%")
    m = rp.get_monitor_df()
    con = sqlite3.connect(synth)
    first = con.execute("SELECT min(start) FROM rocpd_api").fetchone()[0]
    want = con.execute("SELECT count(*) FROM rocpd_monitor WHERE deviceType='gpu' AND "
                       "monitorType='sclk' AND start BETWEEN ? AND ?",
                       (first + rp.roi_start_ns, first + rp.roi_end_ns)).fetchone()[0]
    con.close()
    assert len(m) == want > 0
    assert list(m.columns) == ["deviceId", "start", "end", "value"]


@pytest.mark.parametrize("sql", [
    "",                                                    # an empty SQLite database
    "CREATE TABLE rocpd_api(id INTEGER)",                  # not an RPD trace
    "CREATE TABLE rocpd_op(x); CREATE TABLE rocpd_api(y); CREATE TABLE rocpd_string(z)",
])
def test_odd_databases_raise_cli_message(tmp_path, sql):
    p = str(tmp_path / "odd 'name; %s.rpd")
    con = sqlite3.connect(p)
    con.executescript(sql + ";" if sql else "")
    con.execute("PRAGMA user_version = 1")
    con.commit()
    con.close()
    before = sha(p)
    with pytest.raises(rpdtools.Error) as e:
        rpdtools.RaptorParser(p).get_kernelseq_df()
    assert str(e.value) == cli_message(p, "--reference-ops", "-C", CATS)
    assert sha(p) == before


def test_synth_schema_v2_and_empty_roi(synth, tmp_path):
    v2 = str(tmp_path / "v2.rpd")
    tool("rpd-synth", "--api", 3000, "--schema", "2", "-o", v2)
    rp = rpdtools.RaptorParser(v2)
    assert rp.get_kernelseq_df()[("TotalCalls", "")].sum() > 0
    with pytest.raises(rpdtools.Error) as e:
        rpdtools.RaptorParser(synth, roi_start="0ns", roi_end="1ns")
    assert str(e.value) == cli_message(synth, "--reference-ops", "-C", CATS, "-s", "0ns", "-e", "1ns")


def test_library_prints_nothing(synth, tmp_path):
    """The library writes nothing on stderr: no progress line (not even the
    one of a .gz trace's decompression, which RPD_PROGRESS=1 would force),
    and a failure's message only in the exception."""
    gz = str(tmp_path / "s.rpd.gz")
    with open(synth, "rb") as f, gzip.open(gz, "wb") as g:
        shutil.copyfileobj(f, g)
    bad = str(tmp_path / "bad.rpd")
    open(bad, "wb").write(b"x" * 4096)
    script = ("import sys, rpdtools\n"
              "rpdtools.RaptorParser(sys.argv[1]).get_kernelseq_df()\n"
              "try:\n    rpdtools.RaptorParser(sys.argv[2])\n"
              "except rpdtools.Error as e:\n    print(e)\n")
    env = dict(os.environ, RPD_PROGRESS="1", RPD_PROGRESS_MS="0", PYTHONFAULTHANDLER="1")
    p = subprocess.run([sys.executable, "-c", script, gz, bad], env=env,
                       capture_output=True, text=True)
    assert (p.returncode, p.stderr) == (0, "")
    assert p.stdout.strip() == cli_message(bad)


def test_threads(synth, tmp_path):
    import threading
    want = rpdtools.RaptorParser(synth).get_kernelseq_df()
    bad = str(tmp_path / "bad.rpd")
    open(bad, "wb").write(b"x" * 4096)
    out = {}

    def work(i):
        try:
            out[i] = rpdtools.RaptorParser(bad if i % 2 else synth).get_kernelseq_df()
        except rpdtools.Error as e:
            out[i] = str(e)
    ts = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for i in range(6):
        if i % 2:
            assert out[i] == cli_message(bad)
        else:
            pd.testing.assert_frame_equal(out[i], want)


def _shown(text):
    """A pretty cell ('+0.735', '5.2%', '36', 43.03) as (number, half a unit
    of its last shown digit)."""
    if not isinstance(text, str):
        return text, 1e-9 * max(1.0, abs(text))
    t = text.rstrip("%")
    dec = len(t.split(".")[1]) if "." in t else 0
    return float(t), 0.5 * 10.0 ** -dec


def test_pretty_equals_cli_xlsx_sheet(synth, synth_copy):
    # the workbook holds numbers with number formats (issue 15); the pretty
    # DataFrame holds the reference's strings: the same values as shown
    openpyxl = pytest.importorskip("openpyxl")
    tool("raptor", synth_copy, "-x", "--reference-ops", "-C", CATS)
    wb = openpyxl.load_workbook(synth_copy[:-4] + ".xlsx", read_only=True)
    rows = list(wb["pretty kernelseq"].iter_rows(values_only=True))
    p = rpdtools.RaptorParser(synth).get_pretty_kernelseq_df()
    ncol = len(p.columns)
    assert list(rows[0][1:1 + ncol]) == list(p.columns)
    assert len(rows) - 1 == len(p)
    for got, want in zip(rows[1:], p.itertuples(index=False)):
        for g, w, name in zip(got[1:1 + ncol], want, p.columns):
            if name == "Category":
                assert g == w
                continue
            value, tol = _shown(w)
            if np.isnan(value):
                assert g is None, name        # NaN is an empty cell
            else:
                assert g == pytest.approx(value, abs=tol * 1.0000001), name


OP_COLUMNS = ["index", "id", "gpuId", "queueId", "sequenceId", "Start_ns", "End_ns", "Kernel",
              "opType", "Duration_ns", "PreGap_ns", "Kernel+1", "Kernel+2",
              "Duration_zscore", "Outlier"]
OP_DTYPES = ["int64"] * 7 + ["object", "object", "int64", "float64", "object", "object",
                             "float64", "bool"]


def op_view_rows(path, lo, hi, gpu):
    """The reference's op query of the trace: {op id: (row number from 0,
    queueId, opType)} of every op of the op view with start in [lo, hi]."""
    con = sqlite3.connect(path)
    try:
        q = ("SELECT o.id, o.queueId, B.string FROM rocpd_op o "
             "JOIN rocpd_string A ON A.id = o.description_id "
             "JOIN rocpd_string B ON B.id = o.opType_id "
             "WHERE o.start >= ? AND o.start <= ?%s ORDER BY o.start, o.id"
             % ("" if gpu == -1 else " AND o.gpuId = %d" % gpu))
        return {i: (k, qid, t) for k, (i, qid, t) in enumerate(con.execute(q, (lo, hi)))}
    finally:
        con.close()


@pytest.mark.parametrize("opts,cli", [({}, []),
                                      ({"roi_start": "30%", "gpu_id": 1},
                                       ["-s", "30%", "--gpu-id", "1"])])
def test_op_df_reference_columns(synth, synth_copy, opts, cli):
    rp = rpdtools.RaptorParser(synth, **opts)
    op = rp.get_op_df()
    assert list(op.columns) == OP_COLUMNS
    assert [str(t) for t in op.dtypes] == OP_DTYPES
    assert list(op.index[:2]) == [1, 2] and op.index[-1] == len(op)
    # every op of the CLI's --save table, with the trace's queueId / opType and
    # its row in the reference's query (which also holds the copies)
    x = saved(synth_copy, *cli)["ext_raptor_op"]
    assert list(op["id"]) == list(x["op_id"])
    view = op_view_rows(synth, rp.first_abs_ns + rp.roi_start_ns,
                        rp.first_abs_ns + rp.roi_end_ns, opts.get("gpu_id", -1))
    want = [view[i] for i in x["op_id"]]
    assert list(zip(op["index"], op["queueId"], op["opType"])) == want
    assert set(op["opType"]) <= {"KernelExecution", "CopyDeviceToDevice", "Task"}
    assert len(view) > len(op)            # copies are rows of the query, not of op_df
    assert op["index"].is_unique and (op["index"] >= 0).all()
    assert (op["Kernel+1"].iloc[1:].values == op["Kernel"].iloc[:-1].values).all()


def reference_parser_module(tmp_path):
    """The reference raptor_parser.py ($RAPTOR_PARSER_PY or the
    rocmProfileData mirror), imported; skip when absent."""
    import importlib.util
    import subprocess
    src = os.environ.get("RAPTOR_PARSER_PY")
    if not src:
        mirror = "/work/.mirror/ROCm+rocmProfileData/repo"
        if not os.path.isdir(mirror):
            pytest.skip("needs the reference raptor_parser.py (RAPTOR_PARSER_PY)")
        src = str(tmp_path / "raptor_parser.py")
        for f in ("raptor_parser.py", "raptor_cat_vllm.json"):
            p = subprocess.run(["git", "-C", mirror, "show", "HEAD:raptor/" + f],
                               capture_output=True)
            if p.returncode != 0:
                pytest.skip("needs the reference raptor_parser.py")
            (tmp_path / f).write_bytes(p.stdout)
    try:
        import scipy  # noqa: F401  (the reference needs it)
    except ImportError:
        pytest.skip("the reference needs scipy")
    spec = importlib.util.spec_from_file_location("raptor_parser_ref", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("opts", [{}, {"roi_start": "20%", "roi_end": "70%", "gpu_id": 0},
                                  {"prekernel_seq": 0, "zscore_threshold": 1}])
def test_op_df_equals_reference_class(synth, tmp_path, opts):
    ref = reference_parser_module(tmp_path)
    mine = rpdtools.RaptorParser(synth, **opts)
    theirs = ref.RaptorParser(synth, **opts)
    theirs.get_kernelseq_df()
    a, b = mine.get_op_df(), theirs.get_op_df()
    assert list(a.columns) == list(b.columns)
    assert list(a.dtypes) == list(b.dtypes)
    assert list(a.index) == list(b.index)
    for c in b.columns:
        if c == "Duration_zscore":
            assert feq(a[c], b[c]), c
        else:
            assert a[c].fillna("NA").equals(b[c].fillna("NA")), c


@pytest.mark.parametrize("sql", [
    'UPDATE rocpd_api SET "end" = start - 5 WHERE id IN (3, 9)',     # api rows end first
    "UPDATE rocpd_op SET gpuId = 'x' WHERE id = (SELECT max(id) FROM rocpd_op)",
    "UPDATE rocpd_api SET start = -1 WHERE id = 1; UPDATE rocpd_op SET start = 'a'",
    "UPDATE rocpd_op SET start = 4611686018427387904 WHERE id = 7",  # 2^62: beyond any ROI
])
def test_bad_values_raise_the_check_message(synth_copy, tmp_path, sql):
    # the check runs beside the engine (raptor/api.c); its line must win as in
    # the CLI, whatever the engine made of the same rows meanwhile
    con = sqlite3.connect(synth_copy)
    con.executescript(sql)
    con.commit()
    con.close()
    want = cli_message(synth_copy, "--reference-ops", "-C", CATS)
    assert want.startswith("raptor: cannot read '%s': rocpd_" % synth_copy)
    before = sha(synth_copy)
    for path in (synth_copy, gz_copy(synth_copy, tmp_path)):
        with pytest.raises(rpdtools.Error) as e:
            rpdtools.RaptorParser(path).get_kernelseq_df()
        assert str(e.value) == want.replace(synth_copy, path)
    assert sha(synth_copy) == before


def shuffle_op_ids(path):
    """Give rocpd_op new ids in random order: the table order (rowid) is no
    longer time order, so the engine's merge gives up (raptor/opmerge.h)."""
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TEMP TABLE m AS SELECT id AS old, row_number() OVER (ORDER BY random()) AS new"
        " FROM rocpd_op; UPDATE rocpd_op SET id = -id;"
        " UPDATE rocpd_op SET id = (SELECT new FROM m WHERE old = -rocpd_op.id);"
        " UPDATE rocpd_api_ops SET op_id = (SELECT new FROM m WHERE old = op_id);")
    con.commit()
    con.close()


@pytest.mark.parametrize("kw, cli", [
    ({"roi_start": "10%", "roi_end": "80%"}, ["--roi-start=10%", "--roi-end=80%"]),
    ({"roi_start": "99999999ms"}, ["--roi-start=99999999ms"]),     # outside the trace
    ({"roi_start": "no_such_kernel_x"}, ["--roi-start=no_such_kernel_x"]),   # kernel regex
    ({"gpu_id": 7}, ["--gpu-id", "7"]),                              # no such GPU
    ({"shuffled": True}, []),                                        # ops out of order
    ({"load": "sql"}, []),         # ops sorted by SQLite: no folded op check
])
@pytest.mark.parametrize("sql", [
    'UPDATE rocpd_api SET "end" = start - 5 WHERE id IN (3, 9)',
    "UPDATE rocpd_op SET gpuId = 'x' WHERE id = (SELECT max(id) FROM rocpd_op)",
])
def test_check_message_wins_on_every_path(synth_copy, monkeypatch, sql, kw, cli):
    # the check is folded into the engine's scans (raptor/api.c, load.c):
    # with a ROI (no helper thread), an engine error before the op scan, a
    # kernel-regex probe scan, or ops the merge cannot order, the check's
    # line must still be the CLI's (which checks first)
    kw = dict(kw)
    if kw.pop("shuffled", False):
        shuffle_op_ids(synth_copy)
    if "load" in kw:   # raptor's test switch (docs/raptor.md, Performance)
        monkeypatch.setenv("RPDTOOLS_RAPTOR_LOAD", kw.pop("load"))
    con = sqlite3.connect(synth_copy)
    con.executescript(sql)
    con.commit()
    con.close()
    want = cli_message(synth_copy, "--reference-ops", "-C", CATS, *cli)
    assert want.startswith("raptor: cannot read '%s': rocpd_" % synth_copy)
    before = sha(synth_copy)
    with pytest.raises(rpdtools.Error) as e:
        rpdtools.RaptorParser(synth_copy, **kw).get_kernelseq_df()
    assert str(e.value) == want
    assert sha(synth_copy) == before


def test_ops_outside_the_api_span_equal_cli_save(synth_copy):
    # with the default ROI the engine reads every op while rocpd_api is
    # scanned (time zero) and keeps the ROI's afterwards: ops that start
    # before the first API call or after the last one's end stay out, as
    # in the CLI's query
    con = sqlite3.connect(synth_copy)
    con.executescript(
        'UPDATE rocpd_op SET start = start - 1000000000000, "end" = "end" - 1000000000000'
        " WHERE id % 97 = 0;"
        ' UPDATE rocpd_op SET start = start + 1000000000000, "end" = "end" + 1000000000000'
        " WHERE id % 89 = 0;")
    con.commit()
    n_out = con.execute("SELECT count(*) FROM rocpd_op WHERE id % 97 = 0 OR id % 89 = 0"
                        ).fetchone()[0]
    n_all = con.execute("SELECT count(*) FROM rocpd_op o JOIN rocpd_string s ON"
                        " s.id = o.opType_id WHERE s.string IN"
                        " ('KernelExecution', 'Task', 'CopyDeviceToDevice')").fetchone()[0]
    con.close()
    rp = rpdtools.RaptorParser(synth_copy)
    t = saved(synth_copy)
    check_against_save(rp, t)
    assert n_out > 0 and len(rp.get_op_df()) < n_all


@pytest.mark.parametrize("load", ["", "sql"])
def test_ops_in_no_order_equal_cli_save(synth_copy, monkeypatch, load):
    shuffle_op_ids(synth_copy)
    monkeypatch.setenv("RPDTOOLS_RAPTOR_LOAD", load)
    rp = rpdtools.RaptorParser(synth_copy)
    check_against_save(rp, saved(synth_copy))


def gz_copy(path, tmp_path):
    gz = str(tmp_path / "copy.rpd.gz")
    with open(path, "rb") as src, gzip.open(gz, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return gz


@pytest.mark.parametrize("sql,error", [
    # an FTS5 and an R-tree table keep statements of their own on the
    # connection: closing it freed them twice (SIGBUS/abort of the interpreter)
    ("CREATE VIRTUAL TABLE qa_notes USING fts5(body);"
     "INSERT INTO qa_notes VALUES ('hello kernel');"
     "CREATE VIRTUAL TABLE qa_boxes USING rtree(id, x0, x1);"
     "INSERT INTO qa_boxes VALUES (1, 0, 10)", None),
    # a rocpd_ table as a view over one: refused in the CLI's line
    ("CREATE VIRTUAL TABLE qa_ops USING fts5(x);"
     "ALTER TABLE rocpd_op RENAME TO qa_op; CREATE VIEW rocpd_op AS SELECT * FROM qa_op",
     "rocpd_op is a view"),
    # planner statistics that claim one row per table: refused
    ("ANALYZE; UPDATE sqlite_stat1 SET stat = '1 1'", "sqlite_stat1 says"),
])
def test_hostile_sqlite_content(synth, synth_copy, sql, error):
    con = sqlite3.connect(synth_copy)
    con.executescript(sql)
    con.commit()
    con.close()
    before = sha(synth_copy)
    if error is None:
        got = rpdtools.RaptorParser(synth_copy).get_kernelseq_df()
        want = rpdtools.RaptorParser(synth).get_kernelseq_df()
        assert got.equals(want)
    else:
        with pytest.raises(rpdtools.Error) as e:
            rpdtools.RaptorParser(synth_copy).get_kernelseq_df()
        assert error in str(e.value)
        assert str(e.value) == cli_message(synth_copy, "--reference-ops", "-C", CATS)
    assert sha(synth_copy) == before


def test_rocprofv3_database_as_cli(tmp_path):
    """A rocprofv3 database reads as bin/raptor reads it: the tables of its
    rpd-import output, the file unchanged."""
    db = str(tmp_path / "r_results.db")
    rpd = str(tmp_path / "r.rpd")
    tool("rpd-synth-rocpd", "-q", "--seed", 2, "--dispatches", 800, "-o", db)
    tool("rpd-import", "-q", db, rpd)
    before = sha(db)
    a, b = rpdtools.RaptorParser(db), rpdtools.RaptorParser(rpd)
    ka = a.get_kernelseq_df()
    assert len(ka) > 0
    pd.testing.assert_frame_equal(ka, b.get_kernelseq_df())
    pd.testing.assert_frame_equal(a.get_category_df(), b.get_category_df())
    pd.testing.assert_frame_equal(a.get_op_df(), b.get_op_df())
    assert sha(db) == before
