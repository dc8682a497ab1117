"""rpdtools.read: suite tables and views as DataFrames."""
import gzip
import shutil

import numpy as np
import pytest

import rpdtools
from conftest import CATS, tool


def test_read_saved_raptor_tables(synth_copy):
    tool("raptor", synth_copy, "--save", "--reference-ops", "-C", CATS)
    rp = rpdtools.RaptorParser(synth_copy)
    ks = rpdtools.read(synth_copy, "ext_raptor_kernelseq")
    assert len(ks) == len(rp.get_kernelseq_df())
    assert ks["calls"].sum() == rp.get_kernelseq_df()[("TotalCalls", "")].sum()
    assert "ext_raptor_op" in rpdtools.tables(synth_copy)


def test_read_callstack_and_graph(synth_copy):
    tool("rpd-callstack", synth_copy)
    tool("rpd-graph", synth_copy)
    have = rpdtools.tables(synth_copy)
    names = [n for n in have if n.startswith("callStack") or n.startswith("ext_")]
    assert names
    for n in names:
        df = rpdtools.read(synth_copy, n)
        assert len(df.columns) > 0
    api = rpdtools.read(synth_copy, "rocpd_api")
    assert len(api) == 6000
    few = rpdtools.read(synth_copy, "rocpd_api", where="id <= ?", params=(10,))
    assert list(few["id"]) == list(range(1, 11))


def test_read_gz_and_errors(synth, tmp_path):
    gz = str(tmp_path / "s.rpd.gz")
    with open(synth, "rb") as f, gzip.open(gz, "wb") as g:
        shutil.copyfileobj(f, g)
    assert len(rpdtools.read(gz, "rocpd_op")) == len(rpdtools.read(synth, "rocpd_op"))
    with pytest.raises(rpdtools.Error, match="has no table or view 'nope'"):
        rpdtools.read(synth, "nope")
    bad = tmp_path / "bad.rpd"
    bad.write_bytes(b"garbage" * 50)
    with pytest.raises(rpdtools.Error, match="cannot open"):
        rpdtools.read(str(bad), "rocpd_api")
    trunc = tmp_path / "t.rpd.gz"
    trunc.write_bytes(open(gz, "rb").read()[:100])
    with pytest.raises(rpdtools.Error, match="cannot open"):
        rpdtools.read(str(trunc), "rocpd_api")


def test_every_documented_table_reads(synth_copy):
    for t in ("rpd-callstack", "rpd-autograd", "rpd-graph"):
        tool(t, synth_copy)
    tool("raptor", synth_copy, "--save")
    have = set(rpdtools.tables(synth_copy))
    missing = sorted(set(rpdtools.UNITS) - have)
    assert missing == []
    for name in rpdtools.UNITS:
        df = rpdtools.read(synth_copy, name)
        assert len(df.columns) > 0, name
    # one number checked against SQL: the exclusive cpu time of the trace
    ex = rpdtools.read(synth_copy, "callStack_exclusive_name")
    import sqlite3
    con = sqlite3.connect(synth_copy)
    want = con.execute("SELECT sum(cpu_time) FROM callStack_exclusive_name").fetchone()[0]
    con.close()
    assert ex["cpu_time"].sum() == want


def test_read_path_is_literal(synth, tmp_path):
    """A name is the file's name: % ? # are not URI escapes (x%41.rpd is
    not xA.rpd), a NUL is refused (C would cut the name there), gzip is
    known by its content, not by the suffix."""
    n = len(rpdtools.read(synth, "rocpd_op"))
    lit = tmp_path / "x%41.rpd"
    other = tmp_path / "xA.rpd"
    shutil.copy(synth, lit)
    other.write_bytes(b"")                      # the decoded name: empty
    assert len(rpdtools.read(str(lit), "rocpd_op")) == n
    for name in ("q?mode=rw.rpd", "h#frag.rpd", "sp ace%20.rpd", "caf\u00e9.rpd"):
        p = tmp_path / name
        shutil.copy(synth, p)
        assert len(rpdtools.read(str(p), "rocpd_op")) == n, name
    with pytest.raises(ValueError, match="NUL"):
        rpdtools.read(str(lit) + "\0junk", "rocpd_op")
    with pytest.raises(ValueError, match="NUL"):
        rpdtools.tables(str(lit).encode() + b"\0")
    with pytest.raises(ValueError, match="NUL"):
        rpdtools.RaptorParser(str(lit) + "\0x")
    gz_named_plain = tmp_path / "plain.rpd.gz"   # SQLite content, .gz name
    shutil.copy(synth, gz_named_plain)
    assert len(rpdtools.read(str(gz_named_plain), "rocpd_op")) == n
    gz_content = tmp_path / "packed.rpd"          # gzip content, .rpd name
    with open(synth, "rb") as f, gzip.open(gz_content, "wb") as g:
        shutil.copyfileobj(f, g)
    assert len(rpdtools.read(str(gz_content), "rocpd_op")) == n
