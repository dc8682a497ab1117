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

__all__ = ["Error", "RaptorParser", "read", "tables", "UNITS", "rpdTracerControl"]
__version__ = "0.1.0"

# The rest is imported at first use (PEP 562): `import rpdtools` stays cheap
# and RaptorParser does not pay for read()'s sqlite3/gzip or the tracer.
_LAZY = {"RaptorParser": "parser", "read": "read", "tables": "read", "UNITS": "read",
         "rpdTracerControl": "tracer"}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        value = getattr(importlib.import_module("." + _LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError("module 'rpdtools' has no attribute %r" % name)


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
