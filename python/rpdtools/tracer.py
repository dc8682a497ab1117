"""rpdTracerControl: record parts of a Python program with the ROCm tracer,
through lib/librpdctl.so (include/rpd_control.h)."""
import ctypes
import os
import sys
import threading

from . import _engine
from ._engine import Error


def _ctl():
    lib = _engine.load("librpdctl.so")
    if not getattr(lib, "_rpd_typed", False):
        lib.rpdctl_set_filename.argtypes = [ctypes.c_char_p, ctypes.c_int]
        for f in ("rpdctl_set_filename", "rpdctl_start", "rpdctl_stop", "rpdctl_flush",
                  "rpdctl_depth"):
            getattr(lib, f).restype = ctypes.c_int
        for f in ("rpdctl_start", "rpdctl_stop", "rpdctl_flush", "rpdctl_depth",
                  "rpdctl_range_pop"):
            getattr(lib, f).argtypes = []
        lib.rpdctl_range_push.argtypes = [ctypes.c_char_p] * 3
        lib.rpdctl_range_push.restype = ctypes.c_int
        lib.rpdctl_range_pop.restype = ctypes.c_int
        lib.rpdctl_errmsg.restype = ctypes.c_char_p
        lib.rpdctl_errmsg.argtypes = []
        lib._rpd_typed = True
    return lib


def _check(lib, rc):
    if rc != 0:
        raise Error("rpdtools: " + lib.rpdctl_errmsg().decode("utf-8", "replace"))


def _utf8(s):
    return ("" if s is None else str(s)).encode("utf-8", "surrogateescape")


class rpdTracerControl:
    """The reference's interface: setFilename(name, append) once, before the
    first start (in the parent process when using multiprocessing: children
    inherit RPDT_FILENAME); start()/stop() are reference-counted and nest;
    `with rpdTracerControl():` records the block.  The trace file is created
    (or appended to) and the tracer loaded at the first start."""

    @classmethod
    def setFilename(cls, name, append=False):
        """Record into NAME (default trace.rpd, or $RPDT_FILENAME)."""
        name = os.fsencode(name if isinstance(name, (str, bytes, os.PathLike)) else str(name))
        if b"\0" in name:   # C would cut the name there: another file
            raise ValueError("rpdtools: a file name cannot contain a NUL byte: %r" % (name,))
        lib = _ctl()
        _check(lib, lib.rpdctl_set_filename(name, 1 if append else 0))

    def __init__(self):
        self._lib = _ctl()

    def start(self):
        """Begin (or nest) a recorded section."""
        _check(self._lib, self._lib.rpdctl_start())

    def stop(self):
        """End a section; the outermost stop stops and flushes the tracer."""
        _check(self._lib, self._lib.rpdctl_stop())

    def flush(self):
        """Write what was recorded so far."""
        _check(self._lib, self._lib.rpdctl_flush())

    def depth(self):
        """Nesting depth: 0 when not recording."""
        return self._lib.rpdctl_depth()

    def rangePush(self, domain, apiName, args):
        """Open a named range on this thread: at the matching rangePop the
        tracer writes one rocpd_api row (apiName, args, start = now, end =
        the pop).  Ignored while not recording, as in the reference."""
        _check(self._lib, self._lib.rpdctl_range_push(
            _utf8(domain), _utf8(apiName), _utf8(args)))

    def rangePop(self):
        """Close this thread's innermost range."""
        _check(self._lib, self._lib.rpdctl_range_pop())

    def _profile(self, frame, event, arg):
        name = frame.f_code.co_name
        if name.startswith("__") or name in ("rangePush", "rangePop"):
            return
        if event == "call":
            self.rangePush("python", name, "%s:%d" % (frame.f_code.co_filename,
                                                      frame.f_code.co_firstlineno))
        elif event == "return":
            self.rangePop()

    def setPythonTrace(self, doTrace):
        """Record every Python function call as a range (sys.setprofile, in
        this and new threads) while doTrace; False turns it off."""
        hook = self._profile if doTrace else None
        sys.setprofile(hook)
        if hasattr(threading, "setprofile_all_threads"):   # Python 3.12+
            threading.setprofile_all_threads(hook)
        else:
            threading.setprofile(hook)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()
        return False
