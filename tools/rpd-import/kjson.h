/* kjson.h - rpd-import: the streaming JSON reader of the Kineto parser
 * (kjson.c).  It calls the same callback table as yajl (yajl_callbacks:
 * numbers as their text, strings unescaped) and is strict JSON (RFC 8259:
 * no comments, one top-level value).  Internal. */
#ifndef RPD_IMPORT_KJSON_H
#define RPD_IMPORT_KJSON_H

#include <stdint.h>
#include <yajl_parse.h>

#include "jsonread.h"

enum {
  KJ_OK,                    /* one whole value, then only whitespace */
  KJ_CANCELED,              /* a callback returned 0 */
  KJ_MALFORMED,             /* not JSON: *msg says why */
  KJ_TRUNCATED,             /* the input ended inside a value */
  KJ_READ,                  /* rd failed (its message set) */
};

/* Parse the JSON text rd delivers, calling cb with ctx.  Returns a KJ_*;
 * *at is the input offset the status is about (the end of the token a
 * callback canceled at, the malformed byte, or the bytes read), *msg a
 * static text for KJ_MALFORMED. */
int kjson_run(const yajl_callbacks *cb, void *ctx, json_read_fn rd, void *rdctx,
              uint64_t *at, const char **msg);

#endif
