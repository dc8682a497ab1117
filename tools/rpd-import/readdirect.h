/* readdirect.h - rpd-import's rocprofv3 database reader for the read-only
 * tools: a rocprofv3 database opened as an RPD trace with no file written
 * (readdirect.c).  A tool main that starts "links: rpd-import" registers it
 * with rpd_set_rocprof_reader (rpd.h). */
#ifndef RPD_IMPORT_READDIRECT_H
#define RPD_IMPORT_READDIRECT_H

#include "rpd.h"

/* What the reader keeps (the arg of rpd_set_rocprof_reader). */
typedef struct rpdi_direct {
  int lean;          /* 1: leave out what no raptor mode reads (region
                      * arguments but a marker's text, pmc counters, memory
                      * allocations); 0: every row rpd-import writes */
} rpdi_direct;

/* An rpd_rocprof_reader: imports the rocprofv3 database at path (read
 * only, never modified) into a new trace in memory (rpd_create_memory),
 * exactly as rpd-import would write it (less what arg's lean leaves out),
 * and returns it in *out (the caller rpd_close()s it, never commits).
 * arg: a const rpdi_direct * (NULL: not lean).  RPD_OK, or the status and
 * message rpd-import would fail with ("incomplete rocprofv3 database: no
 * table or view 'X'" for its "not a rocprofv3 database: no table ..."). */
int rpdi_rocprof_read(const char *path, void *arg, rpd **out);

#endif
