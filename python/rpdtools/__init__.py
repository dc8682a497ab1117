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
from .parser import RaptorParser
from .read import read, tables, UNITS
from .tracer import rpdTracerControl

__all__ = ["Error", "RaptorParser", "read", "tables", "UNITS", "rpdTracerControl"]
__version__ = "0.1.0"
