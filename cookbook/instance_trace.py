#!/usr/bin/env python3
"""Every instance of the hottest kernel sequence, slowest last.

    PYTHONPATH=python python3 cookbook/instance_trace.py trace.rpd [ROW]

ROW is a kernelseq_df row number (default 0, the hottest non-gap row).
Prints the sequence, its call count, then the op trace of its instances.
"""
import sys

import rpdtools


def main(argv):
    if not argv:
        sys.exit("usage: instance_trace.py TRACE [ROW]")
    try:
        rp = rpdtools.RaptorParser(argv[0])
        ks = rp.get_kernelseq_df()
        ks = ks[ks[("Category", "")] != "_GPU_Idle"]
        row = ks.iloc[int(argv[1]) if len(argv) > 1 else 0]
        inst = rp.get_instance_df_from_kernel_df(row)
    except rpdtools.Error as e:
        sys.exit(str(e))
    print("sequence:", " <- ".join(row.name))
    print("instances:", len(inst), "calls:", int(row[("TotalCalls", "")]),
          "outliers:", int(row[("Outliers", "")]))
    print("duration_ns min/median/max: %d %d %d" % (inst["Duration_ns"].min(),
          inst["Duration_ns"].median(), inst["Duration_ns"].max()))
    rp.print_op_trace(op_df=inst, command_print_width=60)


if __name__ == "__main__":
    main(sys.argv[1:])
