/* subclass.h - generic "subclass" tables: the args of selected api calls (or
 * the descriptions of selected ops) exposed as one column per key.
 *
 * Used by rpd-subclass (any names) and rpd-graph (the graph api calls).
 * Layout, for base "api" and NAME "graph":
 *   table rocpd_graphapi(api_ptr_id PRIMARY KEY, "<key1>", "<key2>", ...)
 *   view  graphapi = api JOIN rocpd_graphapi ON api_ptr_id = id
 * For base "op" the pointer column is op_ptr_id and the text parsed is the
 * op's description.  See docs/rpd-subclass.md.
 */
#ifndef RPD_SUBCLASS_H
#define RPD_SUBCLASS_H

#include <stdint.h>

#include "rpd.h"

typedef struct rpd_subclass {
  const char *base;              /* "api" or "op" */
  const char *name;              /* NAME in rocpd_<NAME><base> */
  const char *const *events;     /* apiName / opType values to include */
  size_t nevents;
  /* Column types: "key", "SQLTYPE" pairs, NULL-terminated (may be NULL).
   * Keys without a type are varchar(255). */
  const char *const *types;
  /* Columns created even when no selected call carries the key
   * (NULL-terminated, may be NULL). */
  const char *const *required;
} rpd_subclass;

/* Name of the table (rocpd_<NAME><base>) and of the view (<NAME><base>);
 * new strings the caller frees. */
char *rpd_subclass_table(const rpd_subclass *sc);
char *rpd_subclass_view(const rpd_subclass *sc);

/* Create and fill the subclass table and its view inside the caller's
 * transaction.  The table must not exist yet (RPD_EEXIST otherwise).
 * *nrows (may be NULL) receives the number of rows inserted. */
int rpd_subclass_build(rpd *r, const rpd_subclass *sc, int64_t *nrows);

/* Drop the subclass view and table if they exist. */
int rpd_subclass_drop(rpd *r, const rpd_subclass *sc);

/* 1 if `type` is a plain SQL type name fit for DDL: one or more words
 * (letters, digits, '_'), then at most "(N)" or "(N, M)" -- "varchar(255)",
 * "double precision", "decimal(10, 5)".  A column constraint (DEFAULT,
 * REFERENCES, NOT NULL, CHECK, COLLATE, ...) or any other text: 0. */
int rpd_subclass_type_ok(const char *type);

#endif
