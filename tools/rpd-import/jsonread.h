/* jsonread.h - rpd-import: the rocprofv3 JSON parser (json.c) and where
 * its bytes come from (jsonfile.c: the file, read ahead on a thread;
 * json.c: a memory buffer).  Internal. */
#ifndef RPD_IMPORT_JSONREAD_H
#define RPD_IMPORT_JSONREAD_H

#include <stdint.h>

#include "import.h"

/* The next chunk of JSON: *buf points at it (owned by the source, valid
 * until the next call); returns its length, 0 at the end, -1 on an error
 * (message set; `fed` bytes were read before). */
typedef int (*json_read_fn)(void *ctx, const unsigned char **buf, uint64_t fed);

/* Parse the whole stream from rd, writing records as they complete
 * (json.c); an RPD_* status, the message set on failure. */
int json_run(imp *m, json_read_fn rd, void *ctx);

/* The parser of one JSON format: reads the stream from rd into m. */
typedef int (*json_run_fn)(imp *m, json_read_fn rd, void *ctx);

/* The file at path (.json or .json.gz) through parser run (jsonfile.c:
 * read ahead on a thread when the writer thread runs). */
int import_json_with(imp *m, const char *path, json_run_fn run);

#endif
