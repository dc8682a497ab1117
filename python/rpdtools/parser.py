"""RaptorParser: the reference raptor's pandas interface over the C engine.

Every table comes from one run of the raptor engine (lib/librptor.so) in this
process; pandas only shapes the engine's numbers into the reference's
DataFrames (columns, index, units).  Setters drop the cached run, the next
get_* recomputes.  Times are ns relative to the first API start unless a
column name says otherwise.
"""
import os
import sys
import threading

from . import _engine
from ._engine import Error

np = None
pd = None   # pandas, imported while the first engine run works (_pandas)


def _pandas():
    global pd, np
    if pd is None:
        import numpy
        import pandas
        np, pd = numpy, pandas
    return pd

_HERE = os.path.dirname(os.path.abspath(__file__))
_TIME_UNITS = {"ns": 1, "us": 1000, "ms": 1000 * 1000, "s": 10 ** 9, "sec": 10 ** 9}
_STAT = ["sum", "min", "mean", "std", "max"]
KERNELSEQ_COLUMNS = [("Start_ns", "min"), ("Start_ns", "max")] + \
    [("PreGap_ns", s) for s in _STAT] + [("Duration_ns", s) for s in _STAT] + \
    [("Outliers", ""), ("TotalCalls", ""), ("PctTotal", ""), ("Category", ""), ("VarSum_ns", "")]


def _unit(u):
    if u not in _TIME_UNITS:
        raise Error("rpdtools: bad duration unit '%s' (ns, us, ms, s)" % u)
    return _TIME_UNITS[u]


class RaptorParser:
    """Kernel sequences, categories, idle gaps, variability and outliers of
    an RPD trace (.rpd or .rpd.gz), as pandas DataFrames.

    Defaults follow the reference raptor_parser.py: its op set
    (KernelExecution, Task, CopyDeviceToDevice; reference_ops=False takes
    all GPU work as the raptor CLI does) and its category file
    (raptor_cat_reference.json shipped in this package)."""

    default_gaps = [10, 20, 50, 100, 1000, 10000, 100000]
    default_gpu_id = -1
    default_zscore = -1
    _other_cat = "_Other"
    _gpu_idle_cat = "_GPU_Idle"
    _latency_cat = "_Latency"
    _collective_cat = "_Collective"
    _var_cat = "_Variability"

    def __init__(self, rpd_file=None, tag=None, category_json=None, gaps=None,
                 gpu_id=-1, roi_start=None, roi_end=None, prekernel_seq=2,
                 zscore_threshold=-1, category_latency_ns=0, reference_ops=True):
        if rpd_file is None:
            raise Error("rpdtools: RaptorParser needs an RPD file")
        self.rpd_file = os.fspath(rpd_file)
        base = os.path.basename(self.rpd_file)
        for suffix in (".gz", ".rpd", ".db"):
            if base.endswith(suffix):
                base = base[:-len(suffix)]
        self.tag = tag if tag is not None else base
        self.category_json = category_json or os.path.join(_HERE, "raptor_cat_reference.json")
        self.gpu_id = int(gpu_id)
        self.prekernel_seq = int(prekernel_seq)
        self.zscore_threshold = zscore_threshold
        self.category_latency_ns = int(category_latency_ns)
        self.reference_ops = bool(reference_ops)
        self._tmp_cat = None
        self._run = None
        self.set_gaps(self.default_gaps if gaps is None else gaps)
        self.roi_start_ns = self.roi_end_ns = None
        self.set_roi_from_str(roi_start, roi_end)

    # ------------------------------------------------------------ engine
    def _args(self):
        a = [self.rpd_file, "-C", self.category_json, "--kernelseq-len",
             str(self.prekernel_seq), "-z", repr(float(self.zscore_threshold)),
             "--gpu-id", str(self.gpu_id), "-l", str(self.category_latency_ns)]
        a += ["--gaps"] + [str(int(g)) for g in self.gaps]
        if self.reference_ops:
            a.append("--reference-ops")
        if self._roi[0] is not None:
            a.append("--roi-start=" + self._roi[0])
        if self._roi[1] is not None:
            a.append("--roi-end=" + self._roi[1])
        return a

    def _engine_run(self):
        if self._run is None:
            run = self._run_with_pandas_import() if pd is None else _engine.Run(self._args())
            self._run = run
            info = run.info
            self.first_abs_ns = info[_engine.FIRST_ABS]
            self.last_abs_ns = info[_engine.LAST_ABS]
            self.roi_start_ns = info[_engine.ROI_START]
            self.roi_end_ns = info[_engine.ROI_END]
        return self._run

    def _run_with_pandas_import(self):
        """The engine in a thread (ctypes releases the GIL) while this thread
        imports pandas: the first run costs max(engine, import), not the sum."""
        box = {}

        def work():
            try:
                box["run"] = _engine.Run(self._args(), read=False)
            except BaseException as e:   # re-raised in the caller's thread
                box["err"] = e
        t = threading.Thread(target=work, name="rpdtools-engine")
        t.start()
        try:
            _pandas()
        finally:
            t.join()
        if "err" in box:
            raise box["err"]
        box["run"].read()
        return box["run"]

    def reset(self, reset_op_df=True):
        """Drop the cached results: the next get_* runs the engine again."""
        self._run = None
        self.op_df = self.kernelseq_df = self.category_df = None
        self.variability_df = self.gpu_ts_df = self.monitor_df = None

    # ------------------------------------------------------------ setters
    def set_gpu_id(self, gpu_id):
        """Only this GPU (-1: all)."""
        self.gpu_id = int(gpu_id)
        self.reset()

    def set_prekernel_seq(self, prekernel_seq):
        """Preceding kernels in a kernel sequence key (0: the name only)."""
        self.prekernel_seq = int(prekernel_seq)
        self.reset()

    def set_zscore_threshold(self, zscore_threshold):
        """Ops with |zscore| >= threshold are outliers (-1: off)."""
        self.zscore_threshold = zscore_threshold
        self.reset()

    def set_gaps(self, gaps):
        """Idle-gap bucket bounds in us."""
        g = sorted(int(x) for x in gaps)
        if not g or g[0] <= 0:
            raise Error("raptor: bad --gaps: positive us values needed")
        self.gaps = g
        self.reset()

    def set_category_json(self, category_json):
        """Categories file: {"NAME": ["regex", ...]}; the last match wins."""
        self.category_json = os.fspath(category_json)
        self.reset()

    def set_roi_from_str(self, roi_start=None, roi_end=None):
        """ROI as raptor's --roi-start/--roi-end: 123.4 (ms), 5ms, +10ms,
        -8ms (from the end), 50%, or a kernel regex (its first op)."""
        old = getattr(self, "_roi", (None, None))
        self._roi = (None if roi_start is None else str(roi_start),
                     None if roi_end is None else str(roi_end))
        self.reset()
        try:
            self._engine_run()
        except Error:
            self._roi = old
            self.reset()
            raise

    def set_roi_from_rel_ns(self, roi_start_ns, roi_end_ns):
        """ROI in ns from the first API start."""
        s, e = int(roi_start_ns), int(roi_end_ns)
        if s < 0 or e < s:
            raise Error("raptor: bad ROI %d .. %d ns" % (s, e))
        self.set_roi_from_str("%dns" % s, "%dns" % e)

    def shrink_roi_from_rel_ns(self, roi_start_ns, roi_end_ns):
        """Shrink (never grow) the ROI."""
        s = max(self.roi_start_ns, int(roi_start_ns))
        e = min(self.roi_end_ns, int(roi_end_ns))
        if (s, e) != (self.roi_start_ns, self.roi_end_ns):
            self.set_roi_from_rel_ns(s, e)

    def set_full_roi(self):
        """ROI = the whole trace."""
        self.set_roi_from_str(None, None)

    def set_roi_from_kernel(self):
        """ROI = first..last start of the hottest kernel sequence."""
        ks = self.get_kernelseq_df()
        top = ks[ks[("Category", "")] != self._gpu_idle_cat].iloc[0]
        self.set_roi_from_rel_ns(top[("Start_ns", "min")], top[("Start_ns", "max")])

    def trim_idle_roi(self):
        """Cut idle time at both ends (all GPUs busy)."""
        op = self.get_op_df()
        gb = op.groupby("gpuId")
        self.shrink_roi_from_rel_ns(gb["Start_ns"].min().max(), gb["End_ns"].max().min())

    # ------------------------------------------------------------ tables
    def get_op_df(self, force=False, kernel_name=None):
        """One row per op in the ROI, index 1..n, sorted by gpuId, start; the
        reference's columns: index (the op's 0-based row in the reference's
        op query: every op type in the ROI by start), id, gpuId, queueId,
        sequenceId, Start_ns, End_ns, Kernel, opType, Duration_ns,
        PreGap_ns (NaN: first op of its GPU), Kernel+1.., Duration_zscore,
        Outlier."""
        if force:
            self.reset()
        if self.op_df is None:
            run = self._engine_run()
            i64, i32, z, outlier = run.ops()
            index, queue, optype = run.op_details()
            n = len(i64)
            pregap = i64[:, 4].astype(np.float64)
            pregap[i64[:, 4] < 0] = np.nan
            kernel = run.names[i32[:, 1]] if n else np.array([], dtype=object)
            df = pd.DataFrame({
                "index": index, "id": i64[:, 0], "gpuId": i32[:, 0].astype(np.int64),
                "queueId": queue, "sequenceId": i32[:, 3].astype(np.int64),
                "Start_ns": i64[:, 1], "End_ns": i64[:, 2], "Kernel": kernel,
                "opType": optype, "Duration_ns": i64[:, 3], "PreGap_ns": pregap,
            }, index=pd.RangeIndex(1, n + 1))
            for i in range(self.prekernel_seq):
                df["Kernel+%d" % (i + 1)] = df["Kernel"].shift(i + 1)
            df["Duration_zscore"] = z
            df["Outlier"] = outlier.astype(bool)
            self._op_keys = i32[:, 2].copy()
            self.op_df = df
        if kernel_name is not None:
            return self.op_df[self.op_df["Kernel"].str.contains(pat=kernel_name, regex=True)]
        return self.op_df

    def get_kernelseq_df(self, force=False, op_df=None):
        """Kernel sequences and idle-gap rows, sorted by total duration.
        Index "Kernel Sequence": a tuple (kernel, its predecessors...) or
        ("GAP ...",); columns as the reference (ns)."""
        if force:
            self.reset()
        if self.kernelseq_df is None:
            run = self._engine_run()
            w = self.prekernel_seq + 1
            idx = []
            for i, (key, _) in enumerate(run.ks_i32):
                if key >= 0:
                    idx.append(tuple(run.names[run.keys[key]]))
                else:
                    idx.append((run.row_labels[i],))
            f, i64 = run.ks_f64, run.ks_i64
            outl = pd.array(np.where(i64[:, 1] < 0, 0, i64[:, 1]), dtype="Int64")
            outl[i64[:, 1] < 0] = pd.NA
            cat = [run.catnames[c] for c in run.ks_i32[:, 1]]
            data = [i64[:, 2], i64[:, 3]] + [f[:, j] for j in range(10)] + \
                   [outl, i64[:, 0], f[:, 10], cat, f[:, 11]]
            index = pd.Index(idx, name="Kernel Sequence", tupleize_cols=False)
            df = pd.DataFrame(dict(zip(range(len(data)), data)))
            df.index = index
            df.columns = pd.MultiIndex.from_tuples(KERNELSEQ_COLUMNS)
            self._row_keys = run.ks_i32[:, 0].copy()
            self.kernel_cols = ["Kernel"] + ["Kernel+%d" % (i + 1) for i in range(w - 1)]
            self.kernelseq_df = df
        return self.kernelseq_df

    def get_pretty_kernelseq_df(self, kernelseq_df=None):
        """kernelseq_df as display strings: First_ms, Last_ms, PreGap_mean_us,
        Dur_min_us, Dur_mean_us, Dur_max_us, Var_us, VarTotal_pct, Outliers,
        TotalCalls, PctTotal, Category (as raptor -x's pretty sheet)."""
        ks = self.get_kernelseq_df() if kernelseq_df is None else kernelseq_df
        p = pd.DataFrame(index=ks.index)
        fmt = lambda col, div, f: (ks[col] / div).apply(f.format)
        p["First_ms"] = fmt(("Start_ns", "min"), 1e6, "{:+.3f}")
        p["Last_ms"] = fmt(("Start_ns", "max"), 1e6, "{:+.3f}")
        p["PreGap_mean_us"] = fmt(("PreGap_ns", "mean"), 1e3, "{:.1f}")
        p["Dur_min_us"] = fmt(("Duration_ns", "min"), 1e3, "{:.1f}")
        p["Dur_mean_us"] = fmt(("Duration_ns", "mean"), 1e3, "{:.1f}")
        p["Dur_max_us"] = fmt(("Duration_ns", "max"), 1e3, "{:.1f}")
        var = ks[("VarSum_ns", "")]
        p["Var_us"] = var / 1000 / ks[("TotalCalls", "")]
        p["VarTotal_pct"] = (var / var.sum()).apply("{0:.1%}".format)
        p["Outliers"] = ks[("Outliers", "")].apply(lambda v: "nan" if pd.isna(v) else "%d" % v)
        p["TotalCalls"] = ks[("TotalCalls", "")].apply("{0:.0f}".format)
        p["PctTotal"] = ks[("PctTotal", "")].apply("{0:.1f}%".format)
        p["Category"] = ks[("Category", "")]
        self.pretty_kernelseq_df = p
        return p

    def get_category_df(self, kernelseq_df=None, categories=None,
                        variability_method=None, duration_units="ms"):
        """Categories: UniqKernels, TotalCalls, TotalDur_<unit>,
        VarSum_<unit>, AvgDur_us, Pct; index the category name, sorted by
        duration.  categories={"NAME": [regex...]} re-runs the engine with
        them; variability_method 'collective' / 'non_collective' moves that
        part's variability into a _Variability row (as the reference)."""
        div = _unit(duration_units)
        if categories is not None:
            self._set_categories_dict(categories)
        run = self._engine_run()
        dur, vs = "TotalDur_" + duration_units, "VarSum_" + duration_units
        df = pd.DataFrame({
            "UniqKernels": run.cat_i64[:, 0], "TotalCalls": run.cat_i64[:, 1],
            dur: run.cat_f64[:, 0], vs: run.cat_f64[:, 1],
        }, index=pd.Index(run.cat_names))
        if variability_method:
            if variability_method == "collective":
                sel = df.index == self._collective_cat
            elif variability_method == "non_collective":
                sel = df.index != self._collective_cat
            else:
                raise Error("rpdtools: bad variability_method '%s'" % variability_method)
            df.loc[~sel, vs] = 0
            df.loc[sel, dur] -= df.loc[sel, vs]
            row = pd.DataFrame({"UniqKernels": df.loc[sel, "UniqKernels"].sum(),
                                "TotalCalls": df.loc[sel, "TotalCalls"].sum(),
                                dur: df.loc[sel, vs].sum(), vs: np.nan},
                               index=[self._var_cat])
            df = pd.concat([df, row])
            df["AvgDur_us"] = df[dur] / df["TotalCalls"] / 1000
            df["Pct"] = df[dur] / df[dur].sum() * 100
            df = df.sort_values(dur, ascending=False)
        else:
            df["AvgDur_us"] = run.cat_f64[:, 2]
            df["Pct"] = run.cat_f64[:, 3]
        df[dur] = df[dur] / div
        df[vs] = df[vs] / div
        self.category_df = df
        return df

    def _set_categories_dict(self, categories):
        import json
        import tempfile
        fd, path = tempfile.mkstemp(prefix="rpdtools-cat-", suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(categories, f)
        if self._tmp_cat:
            os.unlink(self._tmp_cat)
        self._tmp_cat = path
        self.set_category_json(path)

    def get_variability_df(self, kernelseq_df=None, categories=None):
        """Variability by communication kernels / the rest: Var_us, VarPct
        (a string, "12.3%"), index by_comm, by_non_comm."""
        run = self._engine_run()
        comm, other, total = (float(x) for x in run.var)
        with np.errstate(divide="ignore", invalid="ignore"):
            pct = [np.float64(comm) / total, np.float64(other) / total]
        df = pd.DataFrame({"Var_us": [comm / 1000, other / 1000],
                           "VarPct": ["{0:.1%}".format(p) for p in pct]},
                          index=["by_comm", "by_non_comm"])
        self.variability_df = df
        return df

    def get_gpu_ts_df(self, duration_unit="ms"):
        """Per GPU (index gpuId): PreGap_<u> (idle), Duration_<u> (busy),
        Idle_pct, LeadingIdle_<u>, TrailingIdle_<u> (to the ROI ends)."""
        div = _unit(duration_unit)
        run = self._engine_run()
        f = run.gpu_f64
        u = duration_unit
        df = pd.DataFrame({"PreGap_" + u: f[:, 0] / div, "Duration_" + u: f[:, 1] / div,
                           "Idle_pct": f[:, 2], "LeadingIdle_" + u: f[:, 3] / div,
                           "TrailingIdle_" + u: f[:, 4] / div},
                          index=pd.Index(run.gpu_ids.astype(np.int64), name="gpuId"))
        self.gpu_ts_df = df
        return df

    def get_instance_df_from_kernel_df(self, kernel_df, sort_by="Duration_ns"):
        """Every op of one kernelseq_df row (kernel_df = that row, e.g.
        kernelseq_df.iloc[0]), sorted by sort_by (None: time order)."""
        ks = self.get_kernelseq_df()
        op = self.get_op_df()
        pos = ks.index.get_indexer([kernel_df.name])[0]
        if pos < 0:
            raise Error("rpdtools: %r is not a row of kernelseq_df" % (kernel_df.name,))
        key = self._row_keys[pos]
        if key < 0:
            raise Error("rpdtools: %r is a gap row, not a kernel sequence" % (kernel_df.name,))
        inst = op[self._op_keys == key]
        return inst.sort_values(by=sort_by, kind="stable") if sort_by else inst

    def get_monitor_df(self):
        """GPU clock samples (rocpd_monitor sclk) in the ROI: deviceId,
        start, end (absolute ns), value."""
        if self.monitor_df is None:
            self._engine_run()
            _pandas()
            from .read import _connect
            with _connect(self.rpd_file) as con:
                self.monitor_df = pd.read_sql_query(
                    "SELECT deviceId, start, end, value FROM rocpd_monitor WHERE "
                    "deviceType = 'gpu' AND monitorType = 'sclk' AND start >= ? AND "
                    "start <= ? ORDER BY start", con,
                    params=(self.first_abs_ns + self.roi_start_ns,
                            self.first_abs_ns + self.roi_end_ns))
        return self.monitor_df

    # ------------------------------------------------------------ outputs
    @staticmethod
    def pretty_ts(timestamp_ns):
        """ns as "%8d.%06d" ms, as the reference."""
        ms = int(timestamp_ns) // 1000000
        return "%8d.%06d" % (ms, int(timestamp_ns) - ms * 1000000)

    def print_timestamps(self, indent=""):
        self._engine_run()
        for name, v in (("first    ", 0), ("last     ", self.last_abs_ns - self.first_abs_ns),
                        ("roi_start", self.roi_start_ns), ("roi_end  ", self.roi_end_ns),
                        ("roi_dur  ", self.roi_end_ns - self.roi_start_ns)):
            print(indent, " ", name + ":", self.pretty_ts(v), "ms")

    def print_op_trace(self, outfile=None, op_df=None, max_ops=None,
                       command_print_width=150, start_ns=None, end_ns=None, gpu_id=None):
        """One line per op as the reference's op trace."""
        op = self.get_op_df() if op_df is None else op_df
        if start_ns is not None:
            op = op[op["Start_ns"] >= start_ns]
        if end_ns is not None:
            op = op[op["End_ns"] <= end_ns]
        if gpu_id is not None:
            op = op[op["gpuId"] == gpu_id]
        width = command_print_width or None
        f = sys.stdout if outfile is None else open(outfile, "w")
        try:
            print("%10s %9s %13s %13s %10s %5s %s" % ("GPU.Seq_Id", "PreGap_us", "Start_ms",
                                                     "End_ms", "Dur_us", "Outlr?", "Kernel"), file=f)
            for i, r in enumerate(op.itertuples(), 1):
                print("%d.%08d %9.1f %13s %13s %6.1f %5s %30s" % (
                    r.gpuId, r.sequenceId, r.PreGap_ns / 1000, self.pretty_ts(r.Start_ns),
                    self.pretty_ts(r.End_ns), r.Duration_ns / 1000,
                    "OUTLR " if r.Outlier else "      ", r.Kernel[:width]), file=f)
                if max_ops is not None and i >= max_ops:
                    break
        finally:
            if outfile is not None:
                f.close()

    def to_xls(self, xls_file_name=None, add_op_df=False):
        """kernelseq_df, pretty_kernelseq_df, category_df, variability_df
        (and op_df) as sheets of an .xlsx file (needs openpyxl)."""
        if xls_file_name is None:
            xls_file_name = os.path.splitext(self.rpd_file)[0] + ".xlsx"
        with _pandas().ExcelWriter(xls_file_name) as w:
            self.get_kernelseq_df().to_excel(w, sheet_name="kernelseq_df")
            self.get_pretty_kernelseq_df().to_excel(w, sheet_name="pretty_kernelseq_df")
            self.get_category_df().to_excel(w, sheet_name="category_df")
            self.get_variability_df().to_excel(w, sheet_name="variability_df")
            if add_op_df:
                self.get_op_df().to_excel(w, sheet_name="op_df")
        return xls_file_name

    def trim_to_roi(self, new_file_name=None, inplace=False):
        """Write the trace cut to the ROI (rpd-trim) to new_file_name
        (default NAME.trim.rpd), or into the trace itself if inplace."""
        self._engine_run()
        if self.rpd_file.endswith(".gz") and inplace:
            raise Error("rpd-trim: cannot trim a .gz trace in place")
        args = [_tool("rpd-trim"), self.rpd_file,
                "--start=+%dns" % self.roi_start_ns, "--end=+%dns" % self.roi_end_ns]
        if not inplace:
            if new_file_name is None:
                new_file_name = os.path.splitext(self.rpd_file)[0] + ".trim.rpd"
                if self.rpd_file.endswith(".rpd.gz"):
                    new_file_name = self.rpd_file[:-7] + ".trim.rpd"
            args += ["-o", os.fspath(new_file_name)]
        import subprocess
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode != 0:
            raise Error((p.stderr.strip().splitlines() or ["rpd-trim: failed"])[0])
        return os.fspath(new_file_name) if not inplace else self.rpd_file

    def __del__(self):
        if getattr(self, "_tmp_cat", None):
            try:
                os.unlink(self._tmp_cat)
            except OSError:
                pass


def _tool(name):
    """Path of an rpdtools binary: $RPDTOOLS_BIN, next to the libraries, the
    build tree, then PATH."""
    dirs = [os.environ.get("RPDTOOLS_BIN")]
    if os.environ.get("RPDTOOLS_LIB"):
        dirs.append(os.path.join(os.environ["RPDTOOLS_LIB"], "..", "bin"))
    try:
        from . import _config
        dirs.append(os.path.join(_config.LIBDIR, "..", "bin"))
    except ImportError:
        pass
    dirs.append(os.path.join(_HERE, "..", "..", "bin"))
    for d in dirs:
        if d and os.access(os.path.join(d, name), os.X_OK):
            return os.path.join(d, name)
    import shutil
    found = shutil.which(name)
    if not found:
        raise Error("rpdtools: cannot find the %s tool (set RPDTOOLS_BIN)" % name)
    return found
