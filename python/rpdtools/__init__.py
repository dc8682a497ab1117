"""rpdtools: ROCm Profile Data post-processing from Python, on the C engine.

    import rpdtools
    rp = rpdtools.RaptorParser("trace.rpd.gz", roi_start="20%")
    rp.get_kernelseq_df().head(5)
    rpdtools.read("trace.rpd", "ext_raptor_kernelseq")
    with rpdtools.rpdTracerControl():
        ...

See docs/python.md.
"""
from ._engine import Error
from .read import read, tables, UNITS   # eager: the submodule is named read too

__all__ = ["Error", "RaptorParser", "read", "tables", "UNITS", "rpdTracerControl"]
__version__ = "0.1.0"

# The rest is imported at first use (PEP 562): `import rpdtools` stays cheap
# (read.py imports sqlite3/gzip only when called).
_LAZY = {"RaptorParser": "parser", "rpdTracerControl": "tracer"}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        value = getattr(importlib.import_module("." + _LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError("module 'rpdtools' has no attribute %r" % name)


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
