"""Finding and calling the C libraries of rpdtools through ctypes.

librptor.so is the raptor engine (raptor/api.h), librpdctl.so the tracer
control (include/rpd_control.h).  They are looked for in $RPDTOOLS_LIB, the
directory written by `make install` (_config.LIBDIR), ../lib next to this
package in a build tree, then the system library path.
"""
import ctypes
import os

np = None   # numpy, imported at the first read (not before the engine starts)


class Error(Exception):
    """A failure of rpdtools: the one-line message the CLI would print."""


def _candidates(name):
    dirs = []
    env = os.environ.get("RPDTOOLS_LIB")
    if env:
        dirs.append(env)
    try:
        from . import _config
        dirs.append(_config.LIBDIR)
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    dirs.append(os.path.join(here, "..", "..", "lib"))
    for d in dirs:
        p = os.path.join(d, name)
        if os.path.exists(p):
            yield p
    import ctypes.util   # slow to import (subprocess): only for this fallback
    found = ctypes.util.find_library(name[3:-3])
    if found:
        yield found
    yield name


_libs = {}


def load(name):
    """The CDLL of lib NAME (e.g. 'librptor.so'); Error if none loads."""
    if name in _libs:
        return _libs[name]
    last = None
    for path in _candidates(name):
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError as e:
            last = e
    else:
        raise Error("rpdtools: cannot load %s: %s (build with make, or set RPDTOOLS_LIB)"
                    % (name, last))
    _libs[name] = lib
    return lib


# rptr_info() slots (raptor/api.h)
(FIRST_ABS, LAST_ABS, ROI_START, ROI_END, SEQLEN, NOPS, NKEYS, NROWS,
 NCATROWS, NGPUROWS, NNAMES, NCATS, NINFO) = range(13)

_P = ctypes.c_void_p


def _engine():
    lib = load("librptor.so")
    if not getattr(lib, "_rpd_typed", False):
        lib.rptr_open.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                  ctypes.POINTER(_P)]
        lib.rptr_open.restype = ctypes.c_int
        lib.rptr_errmsg.restype = ctypes.c_char_p
        lib.rptr_errmsg.argtypes = []
        lib.rptr_close.argtypes = [_P]
        lib.rptr_close.restype = None
        lib.rptr_info.argtypes = [_P, _P]
        for f in ("rptr_name", "rptr_catname", "rptr_row_label", "rptr_catrow_name"):
            getattr(lib, f).argtypes = [_P, ctypes.c_int64]
            getattr(lib, f).restype = ctypes.c_char_p
        lib.rptr_ops.argtypes = [_P, _P, _P, _P, _P]
        lib.rptr_keys.argtypes = [_P, _P]
        lib.rptr_kernelseq.argtypes = [_P, _P, _P, _P]
        lib.rptr_categories.argtypes = [_P, _P, _P]
        lib.rptr_gpus.argtypes = [_P, _P, _P]
        lib.rptr_variability.argtypes = [_P, _P]
        lib.rptr_op_details.argtypes = [_P, _P, _P, _P]
        lib.rptr_op_details.restype = ctypes.c_int
        lib.rptr_noptypes.argtypes = [_P]
        lib.rptr_noptypes.restype = ctypes.c_int64
        lib.rptr_optype.argtypes = [_P, ctypes.c_int64]
        lib.rptr_optype.restype = ctypes.c_char_p
        for f in ("rptr_info", "rptr_ops", "rptr_keys", "rptr_kernelseq",
                  "rptr_categories", "rptr_gpus", "rptr_variability"):
            getattr(lib, f).restype = None
        lib._rpd_typed = True
    return lib


def _ptr(a):
    return a.ctypes.data_as(_P)


def _text(b):
    return None if b is None else b.decode("utf-8", "surrogateescape")


class Run:
    """One engine run over a trace with raptor's options.  The tables are
    copied out into numpy arrays (times in ns from the first API start); the
    engine's state stays open for ops() until close() or garbage collection.
    The engine call releases the GIL, so a Run may be built in a thread."""

    def __init__(self, args, read=True):
        lib = _engine()
        self._lib = lib
        self._h = None
        enc = [os.fsencode(a) if not isinstance(a, bytes) else a for a in args]
        if any(b"\0" in a for a in enc):   # C would cut the name there
            raise ValueError("rpdtools: an argument cannot contain a NUL byte: %r"
                             % [a for a in enc if b"\0" in a][0])
        argv = (ctypes.c_char_p * max(1, len(enc)))(*enc)
        h = _P()
        rc = lib.rptr_open(len(enc), argv, ctypes.byref(h))
        if rc != 0 or not h.value:
            raise Error(_text(lib.rptr_errmsg()) or "raptor: failed")
        self._h = h
        if read:
            self.read()

    def close(self):
        """Free the engine's state (ops() is unavailable afterwards)."""
        if self._h is not None:
            self._lib.rptr_close(self._h)
            self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def read(self):
        """Copy the tables out of the engine (Run(args, read=False) defers
        this, e.g. to a thread that may import numpy)."""
        global np
        if np is None:
            import numpy
            np = numpy
        lib, h = self._lib, self._h
        info = np.zeros(NINFO, dtype=np.int64)
        lib.rptr_info(h, _ptr(info))
        self.info = [int(x) for x in info]
        nr = info[NROWS]
        self.names = np.array([_text(lib.rptr_name(h, i)) for i in range(info[NNAMES])],
                              dtype=object)
        self.catnames = [_text(lib.rptr_catname(h, i)) for i in range(info[NCATS])]
        self.ks_i32 = np.zeros((nr, 2), dtype=np.int32)
        self.ks_i64 = np.zeros((nr, 4), dtype=np.int64)
        self.ks_f64 = np.zeros((nr, 12), dtype=np.float64)
        lib.rptr_kernelseq(h, _ptr(self.ks_i32), _ptr(self.ks_i64), _ptr(self.ks_f64))
        self.row_labels = [_text(lib.rptr_row_label(h, i)) for i in range(nr)]
        self.keys = np.zeros((info[NKEYS], int(info[SEQLEN]) + 1), dtype=np.int32)
        lib.rptr_keys(h, _ptr(self.keys))
        nc = info[NCATROWS]
        self.cat_i64 = np.zeros((nc, 2), dtype=np.int64)
        self.cat_f64 = np.zeros((nc, 4), dtype=np.float64)
        lib.rptr_categories(h, _ptr(self.cat_i64), _ptr(self.cat_f64))
        self.cat_names = [_text(lib.rptr_catrow_name(h, i)) for i in range(nc)]
        ng = info[NGPUROWS]
        self.gpu_ids = np.zeros(ng, dtype=np.int32)
        self.gpu_f64 = np.zeros((ng, 5), dtype=np.float64)
        lib.rptr_gpus(h, _ptr(self.gpu_ids), _ptr(self.gpu_f64))
        self.var = np.zeros(3, dtype=np.float64)
        lib.rptr_variability(h, _ptr(self.var))

    def ops(self):
        """(i64[n,5], i32[n,4], zscore[n], outlier[n]) of every op (api.h)."""
        if self._h is None:
            raise Error("rpdtools: the engine run was closed")
        n = self.info[NOPS]
        i64 = np.zeros((n, 5), dtype=np.int64)
        i32 = np.zeros((n, 4), dtype=np.int32)
        z = np.zeros(n, dtype=np.float64)
        out = np.zeros(n, dtype=np.int8)
        self._lib.rptr_ops(self._h, _ptr(i64), _ptr(i32), _ptr(z), _ptr(out))
        return i64, i32, z, out

    def op_details(self):
        """(index, queueId, opType names) of every op, as ops() (api.h
        rptr_op_details: the trace is read again)."""
        if self._h is None:
            raise Error("rpdtools: the engine run was closed")
        n = self.info[NOPS]
        index = np.zeros(n, dtype=np.int64)
        queue = np.zeros(n, dtype=np.int64)
        optype = np.zeros(n, dtype=np.int32)
        lib = self._lib
        if lib.rptr_op_details(self._h, _ptr(index), _ptr(queue), _ptr(optype)) != 0:
            raise Error(_text(lib.rptr_errmsg()) or "raptor: failed")
        names = np.array([_text(lib.rptr_optype(self._h, i))
                          for i in range(lib.rptr_noptypes(self._h))] + [None], dtype=object)
        return index, queue, names[optype]   # -1 (not in the op view): None
