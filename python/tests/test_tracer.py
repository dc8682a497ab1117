"""rpdTracerControl over lib/librpdctl.so, driven against the stand-in
tracer tests/fake_tracer.c (each case in a fresh interpreter: the tracer
stays loaded for the life of a process)."""
import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest

FAKE = os.path.join(os.environ.get("RPD_TESTBIN", ""), "libfake_tracer.so")


def run(tmp_path, code, **env):
    if not os.path.exists(FAKE):
        pytest.skip("needs " + FAKE)
    e = dict(os.environ, RPDT_TRACER_LIB=FAKE, FAKE_TRACER_LOG=str(tmp_path / "fake.log"))
    e.pop("RPDT_FILENAME", None)
    e.update(env)
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=str(tmp_path),
                       env=e, capture_output=True, text=True)
    log = tmp_path / "fake.log"
    return p, (log.read_text() if log.exists() else "")


def query(path, sql):
    """Every row of sql on the trace at path."""
    con = sqlite3.connect(str(path))
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def rows(path):
    return query(path, "SELECT count(*) FROM rocpd_api")[0][0]


def test_nested_start_stop_and_context_manager(tmp_path):
    p, log = run(tmp_path, """
        from rpdtools import rpdTracerControl
        rpdTracerControl.setFilename("py.rpd")
        t = rpdTracerControl()
        t.start(); t.start(); print(t.depth())
        t.stop(); print(t.depth()); t.stop(); print(t.depth())
        with rpdTracerControl() as u:
            print(u.depth())
        print(t.depth())
    """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["2", "1", "0", "1", "0"]
    assert log.splitlines() == ["load file=py.rpd autostart=0", "start 1", "stop 0",
                                "flush rows=1", "start 1", "stop 0", "flush rows=1"]
    assert rows(tmp_path / "py.rpd") == 2


def test_append_and_replace(tmp_path):
    code = """
        import sys
        from rpdtools import rpdTracerControl
        rpdTracerControl.setFilename("a.rpd", append=sys.argv[-1] == "x")
        with rpdTracerControl():
            pass
    """
    assert run(tmp_path, code)[0].returncode == 0
    assert run(tmp_path, code.replace('sys.argv[-1] == "x"', "True"))[0].returncode == 0
    assert rows(tmp_path / "a.rpd") == 2
    assert run(tmp_path, code)[0].returncode == 0
    assert rows(tmp_path / "a.rpd") == 1


def test_errors_raise(tmp_path):
    p, log = run(tmp_path, """
        import rpdtools
        t = rpdtools.rpdTracerControl()
        try:
            t.stop()
        except rpdtools.Error as e:
            print("E1", e)
        t.start()
        try:
            rpdtools.rpdTracerControl.setFilename("other.rpd")
        except rpdtools.Error as e:
            print("E2", e)
        t.stop()
    """)
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assert out[0] == "E1 rpdtools: not recording: rpdctl_stop() without rpdctl_start()"
    assert out[1].startswith("E2 rpdtools: ")
    assert rows(tmp_path / "trace.rpd") == 1


def test_missing_tracer_raises(tmp_path):
    p, _ = run(tmp_path, """
        import rpdtools
        try:
            rpdtools.rpdTracerControl().start()
        except rpdtools.Error as e:
            print(e)
    """, RPDT_TRACER_LIB=str(tmp_path / "nosuch_tracer.so"))
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("rpdtools: ") and "nosuch_tracer.so" in p.stdout


def test_multiprocessing_children_share_the_file(tmp_path):
    p, log = run(tmp_path, """
        import multiprocessing as mp
        from rpdtools import rpdTracerControl

        def work(i):
            with rpdTracerControl():
                pass
            return i

        if __name__ == "__main__":
            rpdTracerControl.setFilename("mp.rpd")
            with rpdTracerControl():       # the parent creates the file first
                pass
            ctx = mp.get_context("fork")
            with ctx.Pool(2) as pool:
                print(sum(pool.map(work, range(4))))
    """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "6"
    assert rows(tmp_path / "mp.rpd") == 5


def api_rows(path):
    """(apiName, args, start, end) of every rocpd_api row, by start."""
    return query(path, 'SELECT apiName, args, start, "end" FROM api ORDER BY start, id')


def test_range_push_pop_writes_a_row(tmp_path):
    p, log = run(tmp_path, """
        import time
        from rpdtools import rpdTracerControl
        rpdTracerControl.setFilename("r.rpd")
        t = rpdTracerControl()
        t.rangePush("app", "ignored", "before start")   # not recording: no-op
        t.rangePop()
        with t:
            t0 = time.time_ns()
            t.rangePush("app", "step", "i=3")
            time.sleep(0.02)
            t.rangePush("app", "inner", "")
            t.rangePop()
            t.rangePop()
            t1 = time.time_ns()
        print(t0, t1)
    """)
    assert p.returncode == 0, p.stderr
    t0, t1 = (int(x) for x in p.stdout.split())
    assert log.splitlines() == ["load file=r.rpd autostart=0", "start 1", "push step",
                                "push inner", "pop inner", "pop step", "stop 0",
                                "flush rows=3"]
    got = api_rows(tmp_path / "r.rpd")
    assert [(n, a) for n, a, _, _ in got] == [
        ("fake_tracer_window", "window = 1"), ("step", "i=3"), ("inner", "")]
    _, _, s, e = got[1]
    assert t0 <= s and e <= t1 and e - s >= 20 * 1000 * 1000
    _, _, si, ei = got[2]
    assert s <= si <= ei <= e


def test_python_trace_records_calls(tmp_path):
    p, _ = run(tmp_path, """
        from rpdtools import rpdTracerControl
        def leaf():
            return 1
        def outer():
            return leaf() + leaf()
        rpdTracerControl.setFilename("p.rpd")
        t = rpdTracerControl()
        with t:
            t.setPythonTrace(True)
            outer()
            t.setPythonTrace(False)
    """)
    assert p.returncode == 0, p.stderr
    names = [n for n, a, _, _ in api_rows(tmp_path / "p.rpd") if a.startswith("<string>:")]
    assert sorted(names) == ["leaf", "leaf", "outer"]


def test_c_range_api_through_remote_host(tmp_path):
    host = os.path.join(os.environ.get("RPD_TESTBIN", ""), "remote_host")
    if not os.path.exists(host) or not os.path.exists(FAKE):
        pytest.skip("needs " + host)
    e = dict(os.environ, RPDT_TRACER_LIB=FAKE)
    e.pop("RPDT_FILENAME", None)
    p = subprocess.run([host, "ctl", "file:c.rpd", "push:d:early:x", "pop", "start",
                        "push:d:step:k=v:w", "sleep:10", "pop", "pop", "stop"],
                       cwd=str(tmp_path), env=e, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert all(" rc=0 " in line for line in p.stdout.splitlines()), p.stdout
    got = api_rows(tmp_path / "c.rpd")
    assert [(n, a) for n, a, _, _ in got] == [("fake_tracer_window", "window = 1"),
                                              ("step", "k=v:w")]
    assert got[1][3] - got[1][2] >= 10 * 1000 * 1000


def test_set_filename_refuses_nul(tmp_path):
    """A NUL would cut the name in C: "a.rpd\\0junk" must not record into
    a.rpd (nor anywhere): ValueError, and the next name is used."""
    p, log = run(tmp_path, """
        from rpdtools import rpdTracerControl
        for bad in ("a.rpd\\0junk", b"b.rpd\\0"):
            try:
                rpdTracerControl.setFilename(bad)
            except ValueError as e:
                print("V", "NUL" in str(e))
        rpdTracerControl.setFilename("ok.rpd")
        with rpdTracerControl():
            pass
    """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["V True", "V True"]
    assert not (tmp_path / "a.rpd").exists() and not (tmp_path / "b.rpd").exists()
    assert (tmp_path / "ok.rpd").exists()
