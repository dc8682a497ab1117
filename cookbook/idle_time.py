#!/usr/bin/env python3
"""How idle is each GPU, and in which gaps?

    PYTHONPATH=python python3 cookbook/idle_time.py trace.rpd [ROI_START ROI_END]

Prints the per-GPU busy/idle table (ms) and the idle-gap rows of the kernel
sequence table (how many gaps of each size, their total).
"""
import sys

import rpdtools


def main(argv):
    if not argv:
        sys.exit("usage: idle_time.py TRACE [ROI_START ROI_END]")
    roi = argv[1:3] + [None] * (2 - len(argv[1:3]))
    try:
        rp = rpdtools.RaptorParser(argv[0], roi_start=roi[0], roi_end=roi[1])
        gpu = rp.get_gpu_ts_df("ms")
        ks = rp.get_kernelseq_df()
    except rpdtools.Error as e:
        sys.exit(str(e))
    print("gpu,busy_ms,idle_ms,idle_pct,leading_idle_ms,trailing_idle_ms")
    for g, r in gpu.iterrows():
        print("%d,%.6f,%.6f,%.3f,%.6f,%.6f" % (g, r["Duration_ms"], r["PreGap_ms"], r["Idle_pct"],
                                             r["LeadingIdle_ms"], r["TrailingIdle_ms"]))
    gaps = ks[ks[("Category", "")] == "_GPU_Idle"]
    print("gap,count,total_ms")
    for idx, r in gaps.iterrows():
        print("%s,%d,%.6f" % (idx[0], r[("TotalCalls", "")], r[("Duration_ns", "sum")] / 1e6))


if __name__ == "__main__":
    main(sys.argv[1:])
