/* internal.h - functions shared between files of common/ and nobody else.
 * Not installed, not for tools: a tool that needs one of these needs a
 * public function in rpd.h instead. */
#ifndef RPD_INTERNAL_H
#define RPD_INTERNAL_H

#include <stddef.h>
#include <sqlite3.h>

/* sql.c: map an SQLite result code to an rpd status and set the message
 * (sqlite3_errmsg of db, plus the statement text when sql is not NULL). */
int rpd__sqlerr(sqlite3 *db, int src, const char *sql);

/* rocprof.c: after rpd_open of path failed with rc, recognise rocprofv3
 * output there and, if so, set a message saying how to convert it and
 * return RPD_EROCPROF; else return rc unchanged.  can_o: the caller is a
 * writer without -o that would read a rocprofv3 database or a Kineto trace
 * with -o OUT (rpd_set_import_reader): the message says so too. */
int rpd__explain_rocprof(const char *path, int rc, int can_o);

/* outfile.c: the list of this process's live temp files, removed by
 * rpd_cleanup_temps() (and by the signal handlers rpd__install_cleanup
 * sets).  Used by open.c for the temp copies of traces. */
void rpd__install_cleanup(void);
/* Create a temp file from tmpl (mkstemp pattern) and register it; *path
 * (caller frees) and *fdp receive its name and open descriptor. */
int rpd__temp_create(const char *tmpl, char **path, int *fdp);
/* Drop path from the list without removing the file (it was renamed
 * into place). */
void rpd__temp_forget(const char *path);
/* Remove the file and drop it from the list. */
void rpd__temp_remove(const char *path);
/* Add an existing file to the list. */
int rpd__temp_register(const char *path);
/* Remove stale temp files of dead processes that match tmpl. */
void rpd__temp_reclaim(const char *tmpl);
/* 1 if path is one of this process's live temp files (an rpd_outfile a
 * tool now opens with rpd_open(RPD_CREATE)), else 0. */
int rpd__temp_is_own(const char *path);

/* The open trace behind rpd.h's opaque rpd. */
struct rpd {
  sqlite3 *db;          /* the connection; use freely */
  int schema;           /* 2 or 3 (0 with RPD_ANYDB on a non-RPD file) */
  int flags;
  char *path;           /* the user's input path (owned) */
  char *work_path;      /* the file SQLite has open (owned) */
  char *final_path;     /* where the result lands on commit (owned; NULL if
                           work_path is final) */
  int tmp_work;         /* work_path is a temp file we remove */
  int gz_out;           /* final_path must be gzip-compressed */
  int lock_fd;          /* flock(LOCK_EX) on a .gz rewritten in place (so
                           writers exclude each other), or -1 */
  char *uri;            /* "file:...?immutable=1" when a WAL trace on a
                           read-only mount is read as immutable (owned) */
  long long checked_at; /* rpd_check_trace passed when the connection's
                           total changes were checked_at - 1 (0 = never) */
  long long clean_at[4]; /* rpd_check_table found rocpd_api (0, 1) or
                           rocpd_op (2, 3), without / with gpuId, clean at
                           total changes clean_at[i] - 1 (0 = never) */
  int64_t span_lo[2], span_hi[2]; /* rpd_check_table's fast pass found
                           rocpd_api (0) or rocpd_op (1) clean with these least
                           start and greatest end (lo > hi: no rows) at total
                           changes span_at[i] - 1 (0 = never) */
  long long span_at[2];
  struct rpd_opclass_map *opclass; /* the classes of the opTypes of
                           rocpd_op (rpd_opclass_condition_now), read when the
                           connection's total changes were opclass_at - 1 */
  long long opclass_at;
  int intscan_fn;       /* rpd_intscan's SQL function is registered on db */
};

/* open.c: the file of rpd_create (create.c): a temp file next to path's
 * target, opened, published on rpd_close(r, 1). */
int rpd__create_file(struct rpd **out, const char *path, const char *input, int force);

/* harden.c: refuse what a trace must not hold (rocpd_ views, virtual
 * tables, generated columns, lying sqlite_stat1): RPD_OK or RPD_ENOTRPD
 * with one line.  schema: the detected RPD schema (2 or 3). */
int rpd__check_untrusted(sqlite3 *db, int schema);
/* harden.c: the first row of sql (bound: ?1 = a, when a is not NULL) as
 * text in buf (n bytes, cut to fit), "" when there is no row; an RPD
 * status. */
int rpd__first_text(sqlite3 *db, const char *sql, const char *a, char *buf, size_t n);
/* harden.c: the first row of sql (?1 = a, when a is not NULL) as an
 * integer in *v (0 on error); RPD_OK, or an error when sql fails or
 * returns no row. */
int rpd__first_int(sqlite3 *db, const char *sql, const char *a, int64_t *v);
/* pages.c: before a writer changes the file, every page accounted for
 * (every b-tree and overflow chain read from the file, the freelist, no
 * page twice; PRAGMA quick_check
 * where that walk cannot see the whole file): RPD_OK
 * or an error naming the damage. */
int rpd__check_integrity(sqlite3 *db);

/* progress.c: rows a scan read from the file itself (rawscan.c), counted
 * in the progress phase running on db, if any, as SQLite's full-scan steps
 * would be; negative: rows taken back (a scan handed over to SQLite reads
 * them again). */
void rpd__progress_scanned(sqlite3 *db, int64_t rows);
/* progress.c: the rows the running phase has counted (-1: none running);
 * for tests. */
int64_t rpd__progress_done(void);

/* opclass.c: free the handle's cached op classes (rpd_close, rpd_detach). */
void rpd__opclass_drop(struct rpd *r);

/* table.c: a query table's rows read into the empty table t (name and
 * flags of q; the writers that need every row first: HTML). */
struct rpd_table;
int rpd__table_load(const struct rpd_table *q, struct rpd_table *t);
/* out.c: v as the shortest decimal that reads back exactly (Python's
 * repr: 0.1, 3.0, 1e+16), the way every writer prints a double of
 * digits -1. */
void rpd__double_repr(char *out, size_t size, double v);

#endif
