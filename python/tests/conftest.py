"""Fixtures of the rpdtools pytest suite (run by tests/tools/python.sh with
RPD_BIN, RPD_LIB, RPD_TESTBIN, RPD_SHARED set; PYTHONPATH=python)."""
import os
import shutil
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("RPD_BIN", os.path.join(ROOT, "bin"))
SHARED = os.environ.get("RPD_SHARED", os.path.join(ROOT, "..", "shared"))
TRACES = os.path.join(SHARED, "traces")
GOLDEN = os.path.join(SHARED, "golden")
CATS = os.path.join(ROOT, "python", "rpdtools", "raptor_cat_reference.json")


def tool(name, *args, check=True):
    """Run bin/NAME ARGS; the CompletedProcess (text)."""
    p = subprocess.run([os.path.join(BIN, name)] + [str(a) for a in args],
                       capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError("%s failed: %s" % (name, p.stderr))
    return p


@pytest.fixture(scope="session")
def synth(tmp_path_factory):
    """A 2-GPU rpd-synth trace (6000 api rows), read-only for the tests."""
    d = tmp_path_factory.mktemp("synth")
    path = str(d / "synth.rpd")
    tool("rpd-synth", "--api", 6000, "--seed", 7, "-o", path)
    os.chmod(path, 0o444)
    return path


@pytest.fixture
def synth_copy(synth, tmp_path):
    """A writable copy of the synth trace."""
    p = str(tmp_path / "copy.rpd")
    shutil.copy(synth, p)
    os.chmod(p, 0o644)
    return p


def shared(name):
    p = os.path.join(TRACES, name)
    if not os.path.exists(p):
        pytest.skip("needs " + p)
    return p


def pytest_runtest_logreport(report):
    """With $RPD_TAP_FILE set, one "ok - / not ok - / skip - " line per test
    (tests/lib.sh's format), for tests/tools/python.sh."""
    path = os.environ.get("RPD_TAP_FILE")
    if not path:
        return
    name = "python: " + report.nodeid.split("::", 1)[-1]
    line = None
    if report.failed:
        why = str(report.longrepr).strip().splitlines()[-1:] if report.longrepr else []
        line = "not ok - %s%s" % (name, (": " + why[0][:200]) if why else "")
    elif report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
        line = "skip - %s: %s" % (name, reason)
    elif report.when == "call":
        line = "ok - " + name
    if line:
        with open(path, "a") as f:
            f.write(line.replace("\n", " ") + "\n")
