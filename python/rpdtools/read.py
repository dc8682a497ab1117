"""rpdtools.read: any table or view of a trace as a pandas DataFrame."""
import contextlib
import os

from ._engine import Error

# Units of what the suite writes (docs/python.md "read()").
UNITS = {
    "rocpd_api": "start, end: absolute ns",
    "rocpd_op": "start, end: absolute ns",
    "api": "start, end: absolute ns",
    "op": "start, end: absolute ns",
    "top": "TotalDuration_us, Ave_us: us; Percentage: percent",
    "ext_callstack": "cpu_time, gpu_time: ns",
    "callStack_inclusive": "cpu_time, gpu_time: ns",
    "callStack_exclusive": "cpu_time, gpu_time: ns",
    "callStack_inclusive_name": "cpu_time, gpu_time: ns",
    "callStack_exclusive_name": "cpu_time, gpu_time: ns",
    "autograd": "start, end: absolute ns",
    "autogradKernel": "avg_gpu, total_gpu: ns",
    "graphLaunch": "apiDuration_usec, opDuration_usec, gpuTime_usec: us",
    "graphKernel": "no times (launch geometry)",
    "ext_raptor_op": "ns from the first API start",
    "ext_raptor_kernelseq": "ns from the first API start; *_ns columns ns",
    "ext_raptor_category": "total_dur_ns, varsum_ns: ns; avg_dur_us: us; pct: percent",
    "ext_raptor_variability": "var_us: us; var_pct: percent",
    "ext_raptor_gpu": "ns; idle_pct: percent",
}


def _no_nul(path):
    """PATH as str or bytes (os.fspath); ValueError if it holds a NUL byte,
    which the C side would cut the name at (another file)."""
    path = os.fspath(path)
    if ("\0" if isinstance(path, str) else b"\0") in path:
        raise ValueError("rpdtools: a file name cannot contain a NUL byte: %r" % (path,))
    return path


def _is_gzip(path):
    """Whether the file starts with the gzip magic (1f 8b), whatever its
    name: the C tools decide by content too."""
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def _uri(path):
    """The file: URI of PATH: every byte but letters, digits and / _ . - ~
    percent-encoded, so that % ? # in a name stay themselves (SQLite decodes
    the URI path)."""
    from urllib.parse import quote
    return "file:%s?mode=ro" % quote(os.fsencode(path), safe="/")


@contextlib.contextmanager
def _connect(path):
    """A read-only sqlite3 connection to PATH (gzip content: a decompressed
    temp copy)."""
    import gzip      # imported here: `import rpdtools` stays cheap
    import shutil
    import sqlite3
    import tempfile
    path = _no_nul(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if os.path.isdir(path):
        raise Error("rpdtools: cannot open '%s': is a directory, not an SQLite database" % path)
    if not os.path.isfile(path):
        raise Error("rpdtools: cannot open '%s': no such file" % path)
    tmp = None
    try:
        if _is_gzip(path):
            fd, tmp = tempfile.mkstemp(prefix="rpdtools-", suffix=".rpd")
            try:
                with gzip.open(path, "rb") as src, os.fdopen(fd, "wb") as dst:
                    shutil.copyfileobj(src, dst)
            except (OSError, EOFError) as e:
                raise Error("rpdtools: cannot open '%s': %s" % (path, e)) from None
            target = tmp
        else:
            target = path
        con = sqlite3.connect(_uri(target), uri=True)
        try:
            # a stranger's file: its views and triggers may call only
            # innocuous functions, and (Python 3.12+) its triggers never
            # fire, as on the C tools' connections (docs/common.md)
            con.execute("PRAGMA trusted_schema = OFF")
            for opt, on in (("SQLITE_DBCONFIG_DEFENSIVE", True),
                            ("SQLITE_DBCONFIG_ENABLE_TRIGGER", False)):
                if hasattr(con, "setconfig") and hasattr(sqlite3, opt):
                    con.setconfig(getattr(sqlite3, opt), on)
            con.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as e:
            con.close()
            raise Error("rpdtools: cannot open '%s': %s" % (path, e)) from None
        try:
            yield con
        finally:
            con.close()
    finally:
        if tmp:
            os.unlink(tmp)


def tables(path):
    """Names of the tables and views in the trace, sorted."""
    with _connect(path) as con:
        return [r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name")]


def read(path, name, where=None, params=()):
    """Table or view NAME of the trace at PATH (.rpd or .rpd.gz) as a
    DataFrame, e.g. read("t.rpd", "ext_raptor_kernelseq") after raptor
    --save, "callStack_inclusive_name" after rpd-callstack, "top", "api".
    where: an optional SQL condition with ? parameters bound from params.
    It is raw SQL pasted after WHERE (on a read-only connection): pass
    values through params, never from untrusted text."""
    with _connect(path) as con:
        have = {r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
        if name not in have:
            raise Error("rpdtools: '%s' has no table or view '%s'" % (path, name))
        q = 'SELECT * FROM "%s"' % name.replace('"', '""')
        if where:
            q += " WHERE " + where
        import sqlite3
        import pandas as pd
        try:
            return pd.read_sql_query(q, con, params=tuple(params))
        except (sqlite3.Error, pd.errors.DatabaseError) as e:
            raise Error("rpdtools: cannot read '%s' from '%s': %s" % (name, path, e)) from None
