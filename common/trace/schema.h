/* schema.h - per-view helpers of common/trace/schema.c beyond the rpd.h contract
 * (used by rpd-schema --views). */
#ifndef RPD_SCHEMA_H
#define RPD_SCHEMA_H

#include "rpd.h"

/* The utility view names (api, op, busy, top, ktop, kernel, copy, copyop,
 * stackframe, napi, nop), NULL-terminated; static storage. */
extern const char *const rpd_utility_views[];

/* Drop and recreate one view from its embedded views/ text for r->schema,
 * then check it compiles.  RPD_ENOTFOUND (message says why) when its base
 * tables are missing or a table has that name: nothing is left of the view
 * then.  Other failures (locks, I/O) as usual.  Atomic (a savepoint). */
int rpd_schema_install_view(rpd *r, const char *name);

/* Where a tool that creates the file `path` must write: rpd_output_check
 * (path, NULL, out) -- kept for existing callers; new code calls
 * rpd_output_check or rpd_outfile_begin directly.  On RPD_OK *out is a new
 * string the caller frees. */
int rpd_output_target(const char *path, char **out);

#endif
