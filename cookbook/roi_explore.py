#!/usr/bin/env python3
"""Explore regions of interest: the whole trace, a percentage window, from a
kernel's first launch, around the hottest sequence, with idle ends cut.
Each change of the ROI recomputes the tables through the C engine.

    PYTHONPATH=python python3 cookbook/roi_explore.py trace.rpd [KERNEL_REGEX]

Prints CSV: roi,start_ms,end_ms,ops,busy_ms,top_sequence.
"""
import sys

import rpdtools


def summary(rp, name):
    op = rp.get_op_df()
    ks = rp.get_kernelseq_df()
    top = ks[ks[("Category", "")] != "_GPU_Idle"].index[0][0]
    print("%s,%.6f,%.6f,%d,%.6f,%s" % (name, rp.roi_start_ns / 1e6, rp.roi_end_ns / 1e6,
                                       len(op), op["Duration_ns"].sum() / 1e6, top[:40]))


def main(argv):
    if not argv:
        sys.exit("usage: roi_explore.py TRACE [KERNEL_REGEX]")
    try:
        rp = rpdtools.RaptorParser(argv[0])
        print("roi,start_ms,end_ms,ops,busy_ms,top_sequence")
        summary(rp, "full")
        rp.set_roi_from_str("25%", "75%")
        summary(rp, "25%..75%")
        if len(argv) > 1:
            rp.set_roi_from_str(argv[1])
            summary(rp, "from " + argv[1])
        rp.set_full_roi()
        rp.set_roi_from_kernel()
        summary(rp, "hottest")
        rp.set_full_roi()
        rp.trim_idle_roi()
        summary(rp, "trimmed")
    except rpdtools.Error as e:
        sys.exit(str(e))


if __name__ == "__main__":
    main(sys.argv[1:])
