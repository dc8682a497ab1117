"""The cookbook/ examples run as a user would, their numbers checked against
the raptor CLI's --save tables of the same trace."""
import csv
import gzip
import io
import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from conftest import CATS, ROOT, tool

BOOK = os.path.join(ROOT, "cookbook")


def cook(name, *args):
    p = subprocess.run([sys.executable, os.path.join(BOOK, name)] + [str(a) for a in args],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def save(path, *opts):
    tool("raptor", path, "--save", "--reference-ops", "-C", CATS, *opts)
    return sqlite3.connect(path)


def test_top5_kernels_of_many_files(synth, synth_copy, tmp_path):
    gz = str(tmp_path / "second.rpd.gz")
    other = str(tmp_path / "other.rpd")
    tool("rpd-synth", "--api", 3000, "--seed", 3, "-o", other)
    with open(other, "rb") as f, gzip.open(gz, "wb") as g:
        shutil.copyfileobj(f, g)
    rows = list(csv.DictReader(io.StringIO(cook("top5_kernels.py", synth, gz))))
    assert [r["file"] for r in rows] == ["synth.rpd"] * 5 + ["second.rpd.gz"] * 5
    for path, mine in ((synth_copy, rows[:5]), (other, rows[5:])):
        con = save(path, "--kernelseq-len", "0")
        want = con.execute("SELECT kernel, calls, dur_sum_ns FROM ext_raptor_kernelseq "
                           "WHERE category != '_GPU_Idle' ORDER BY rank LIMIT 5").fetchall()
        con.close()
        assert [(r["kernel"], int(r["calls"]), r["total_ms"]) for r in mine] == \
            [(k, c, "%.6f" % (d / 1e6)) for k, c, d in want]


def test_instance_trace(synth, synth_copy):
    out = cook("instance_trace.py", synth).splitlines()
    con = save(synth_copy)
    k, calls, outl = con.execute(
        "SELECT kernel, calls, outliers FROM ext_raptor_kernelseq WHERE category != "
        "'_GPU_Idle' ORDER BY rank LIMIT 1").fetchone()
    con.close()
    assert out[0].startswith("sequence: " + k + " <- ")
    assert out[1] == "instances: %d calls: %d outliers: %d" % (calls + outl, calls, outl)
    assert out[3].split()[0] == "GPU.Seq_Id"
    assert len(out) == 4 + calls + outl


def test_idle_time(synth, synth_copy):
    out = cook("idle_time.py", synth, "10%", "90%").splitlines()
    con = save(synth_copy, "-s", "10%", "-e", "90%")
    gpus = con.execute("SELECT gpuId, duration_ns, pregap_ns FROM ext_raptor_gpu ORDER BY gpuId").fetchall()
    gaps = con.execute("SELECT kernel, calls, dur_sum_ns FROM ext_raptor_kernelseq WHERE "
                       "category = '_GPU_Idle' ORDER BY rank").fetchall()
    con.close()
    assert out[0].startswith("gpu,busy_ms,idle_ms")
    assert [l.split(",")[:3] for l in out[1:1 + len(gpus)]] == \
        [[str(g), "%.6f" % (b / 1e6), "%.6f" % (i / 1e6)] for g, b, i in gpus]
    assert out[1 + len(gpus)] == "gap,count,total_ms"
    assert out[2 + len(gpus):] == ["%s,%d,%.6f" % (k, c, d / 1e6) for k, c, d in gaps]
    assert len(gaps) > 0


def test_roi_explore(synth, tmp_path):
    out = list(csv.DictReader(io.StringIO(cook("roi_explore.py", synth, "attn_fwd"))))
    assert [r["roi"] for r in out] == ["full", "25%..75%", "from attn_fwd", "hottest", "trimmed"]
    for row, opts in ((out[0], ()), (out[1], ("-s", "25%", "-e", "75%")),
                      (out[2], ("-s", "attn_fwd"))):
        p = str(tmp_path / "r.rpd")
        shutil.copy(synth, p)
        os.chmod(p, 0o644)
        con = save(p, *opts)
        n, busy = con.execute("SELECT count(*), sum(duration_ns) FROM ext_raptor_op").fetchone()
        s = con.execute("SELECT value FROM rocpd_metadata WHERE tag = 'raptor_roi_start_ns'").fetchone()[0]
        if not opts:   # trimmed: from the last GPU's first op to the first GPU's last end
            trim = con.execute("SELECT max(s), min(e) FROM (SELECT min(start_ns) s, max(end_ns) e "
                               "FROM ext_raptor_op GROUP BY gpuId)").fetchone()
        con.close()
        assert (int(row["ops"]), row["busy_ms"], row["start_ms"]) == \
            (n, "%.6f" % (busy / 1e6), "%.6f" % (int(s) / 1e6)), row["roi"]
    assert int(out[3]["ops"]) < int(out[0]["ops"])
    assert (out[4]["start_ms"], out[4]["end_ms"]) == ("%.6f" % (trim[0] / 1e6), "%.6f" % (trim[1] / 1e6))
    assert 0 < int(out[4]["ops"]) < int(out[0]["ops"])


def test_cookbook_bad_input_one_line(tmp_path):
    bad = tmp_path / "bad.rpd"
    bad.write_bytes(b"nope" * 100)
    for name in ("top5_kernels.py", "instance_trace.py", "idle_time.py", "roi_explore.py"):
        p = subprocess.run([sys.executable, os.path.join(BOOK, name), str(bad)],
                           capture_output=True, text=True)
        assert p.returncode == 1
        assert p.stderr.count("\n") == 1 and p.stderr.startswith("raptor: cannot open")
