#!/usr/bin/env python3
"""Top-5 kernel sequences of each of many traces, side by side.

    PYTHONPATH=python python3 cookbook/top5_kernels.py run1.rpd run2.rpd.gz ...

Prints CSV: file,rank,kernel,calls,total_ms,pct (gap rows left out).
"""
import csv
import os
import sys

import rpdtools


def top5(path, n=5):
    rp = rpdtools.RaptorParser(path, prekernel_seq=0)
    ks = rp.get_kernelseq_df()
    ks = ks[ks[("Category", "")] != "_GPU_Idle"].head(n)
    for rank, (idx, row) in enumerate(ks.iterrows(), 1):
        yield (os.path.basename(path), rank, idx[0], int(row[("TotalCalls", "")]),
               "%.6f" % (row[("Duration_ns", "sum")] / 1e6), "%.3f" % row[("PctTotal", "")])


def main(paths):
    if not paths:
        sys.exit("usage: top5_kernels.py TRACE...")
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["file", "rank", "kernel", "calls", "total_ms", "pct"])
    for p in paths:
        try:
            w.writerows(top5(p))
        except rpdtools.Error as e:
            sys.exit(str(e))


if __name__ == "__main__":
    main(sys.argv[1:])
