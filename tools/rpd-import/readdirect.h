/* readdirect.h - rpd-import's readers for the read-only tools: a
 * rocprofv3 database or a PyTorch profiler (Kineto) trace opened as an RPD
 * trace with no file written (readdirect.c).  A tool main that starts
 * "links: rpd-import" registers it with rpd_set_import_reader (rpd.h). */
#ifndef RPD_IMPORT_READDIRECT_H
#define RPD_IMPORT_READDIRECT_H

#include "rpd.h"

/* How much of the input the reader keeps (rpdi_direct.lean). */
enum {
  RPDI_FULL = 0,          /* every row rpd-import writes */
  RPDI_LEAN = 1,          /* leave out what no raptor mode reads: of a
                           * rocprofv3 database region arguments but a
                           * marker's text, pmc counters, memory
                           * allocations; of a Kineto trace the args of
                           * events but cpu_ops of a name the performance
                           * model has a model of (rpd_perf_named; their
                           * four shape members only) and collective kernels
                           * (ext_kineto_event), and a cpu_op's marker
                           * text is its name (not the autograd form) */
  RPDI_LEAN_REPORT = 2,   /* RPDI_LEAN, and of a Kineto trace's
                           * python_function calls only those that widen
                           * the span of the ones kept so far: the trace's
                           * first start and last end are kept, which is
                           * all raptor --report reads of them (the
                           * per-domain statistics would miss them) */
};

/* What the reader keeps (the arg of rpd_set_import_reader). */
typedef struct rpdi_direct {
  int lean;          /* RPDI_FULL, RPDI_LEAN or RPDI_LEAN_REPORT */
  int model;         /* 1: a Kineto trace whose cpu_ops carry shapes gets
                      * rpd-perfmodel's model too (ext_perf_op, as
                      * `rpd-perfmodel` with its defaults writes it) */
} rpdi_direct;

/* An rpd_import_reader: imports the rocprofv3 database or Kineto trace at
 * path (read only, never modified) into a new trace in memory
 * (rpd_create_memory), exactly as rpd-import would write it (less what
 * arg's lean leaves out, plus what its model adds), and returns it in *out
 * (the caller rpd_close()s it, never commits).  arg: a const rpdi_direct *
 * (NULL: not lean, no model).  RPD_OK; RPD_ENOTDB when path is neither
 * (no message: rpd_open keeps its own); else the status and message
 * rpd-import would fail with ("incomplete rocprofv3 database: no table or
 * view 'X'" for its "not a rocprofv3 database: no table ..."). */
int rpdi_direct_read(const char *path, void *arg, rpd **out);

#endif
