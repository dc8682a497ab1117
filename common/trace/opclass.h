/* opclass.h - the one classification of GPU ops (kernel, copy, barrier,
 * other) by opType, defined by views/opClass.sql (view opClass).  C code
 * reads the same SQL text; nothing here creates the view, so it works on
 * read-only traces.  See docs/schema.md "Op classes". */
#ifndef RPD_OPCLASS_H
#define RPD_OPCLASS_H

#include <stddef.h>
#include <stdint.h>

#include "rpd.h"

enum {
  RPD_OPCLASS_OTHER = 0,
  RPD_OPCLASS_KERNEL = 1,
  RPD_OPCLASS_COPY = 2,
  RPD_OPCLASS_BARRIER = 3,
};
/* Class bits for the mask arguments: 1u << RPD_OPCLASS_xxx. */
#define RPD_OPCLASS_BIT(c) (1u << (c))
/* GPU work: what busy time, idle time and timelines count. */
#define RPD_OPCLASS_GPU_WORK \
  (RPD_OPCLASS_BIT(RPD_OPCLASS_KERNEL) | RPD_OPCLASS_BIT(RPD_OPCLASS_COPY))

/* opType_id -> class of one trace, sorted by id. */
typedef struct rpd_opclass_map {
  int64_t *id;
  unsigned char *cls;
  size_t n;
} rpd_opclass_map;

/* Fill *m with the class of every opType used by rocpd_op of r, by running
 * the SELECT of views/opClass.sql.  The caller frees with
 * rpd_opclass_free().  RPD_OK or an error (message in rpd_errmsg()). */
int rpd_opclass_load(rpd *r, rpd_opclass_map *m);
/* Prepare *st on db: the class of one opType string id by the same view
 * text, without the scan of rocpd_op that rpd_opclass_load makes (for a
 * tool that meets its opTypes one by one).  The caller finalizes *st.
 * RPD_OK or an error (message in rpd_errmsg()). */
int rpd_opclass_prepare_one(sqlite3 *db, sqlite3_stmt **st);
/* The class of optype_id through a statement of rpd_opclass_prepare_one
 * (RPD_OPCLASS_OTHER when no string has that id), or -1 on an SQL error
 * (sqlite3_errmsg of st's connection). */
int rpd_opclass_one(sqlite3_stmt *st, int64_t optype_id);
/* Class of opType_id (RPD_OPCLASS_OTHER when unknown). */
int rpd_opclass_of(const rpd_opclass_map *m, int64_t optype_id);
/* 1 if opType_id's class is in mask (RPD_OPCLASS_BIT values). */
int rpd_opclass_in(const rpd_opclass_map *m, int64_t optype_id, unsigned mask);
/* "kernel", "copy", "barrier" or "other". Static string. */
const char *rpd_opclass_name(int cls);
void rpd_opclass_free(rpd_opclass_map *m);

/* The SELECT text of the opClass view (columns opType_id, opType, class),
 * usable as a subquery: "... IN (SELECT opType_id FROM (<text>) WHERE
 * class = 'kernel')".  Static string; NULL if the view file is missing. */
const char *rpd_opclass_select(void);

/* A new SQL condition "COLUMN IN (SELECT opType_id FROM (...) WHERE class
 * IN (...))" selecting the classes of mask; column is an SQL expression
 * written by the caller (not data).  Caller frees with free(). */
char *rpd_opclass_condition(const char *column, unsigned mask);

/* The classes of the opTypes rocpd_op of r uses now: rpd_opclass_load's
 * map, read once per handle and kept until the connection changes the
 * file.  Owned by r: valid until the next call on r that writes, or
 * rpd_close.  NULL on an error (message in rpd_errmsg()). */
const rpd_opclass_map *rpd_opclass_now(rpd *r);

/* The same condition for SQL run on r's connection now, as the list of
 * the trace's opType ids in the classes of mask: "COLUMN IN (22,37)".
 * rpd_opclass_condition's subquery reads every row of rocpd_op each time a
 * query runs it; this reads them once per handle (rpd_opclass_load, kept
 * until the connection changes the file).  True for the same rows of
 * rocpd_op; never store it in a view.  *out: new text, free().  RPD_OK or
 * an error (message in rpd_errmsg()). */
int rpd_opclass_condition_now(rpd *r, const char *column, unsigned mask, char **out);

/* The GPU ids that have ops of a class in mask, as new text "0, 1, 2"
 * ("" when none), for messages that name the GPUs present.  The caller
 * frees *list with free().  RPD_OK or an error. */
int rpd_opclass_gpus(rpd *r, unsigned mask, char **list);

#endif
