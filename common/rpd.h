/* rpd.h - the RPD access layer every rpdtools binary links.
 *
 * Conventions (see docs/common.md):
 *  - Every function that can fail returns an int status: RPD_OK (0) or one of
 *    the RPD_E* codes below.  The human-readable reason is kept in a
 *    per-thread buffer read with rpd_errmsg(); it never contains the
 *    program name or the file name (tools add those).
 *  - common/ never exits and never prints, except: out of memory in
 *    rpd_xmalloc & co (one line, exit 1, temp files removed), and
 *    rpd_progress()/rpd_fail()/rpd_usage_error() which exist to print.
 *  - Memory returned to the caller says who frees it in the comment above
 *    the function.
 *  - SQL is never built by pasting data: bind parameters, or
 *    sqlite3_mprintf with %Q / %w (rpd_execf).
 */
#ifndef RPD_H
#define RPD_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sqlite3.h>

/* ---------------------------------------------------------------- status */

enum {
  RPD_OK = 0,
  RPD_ERR,        /* generic failure; see rpd_errmsg() */
  RPD_ENOMEM,     /* out of memory (only from code that does not abort) */
  RPD_ENOENT,     /* no such file */
  RPD_EIO,        /* read/write/rename failure, disk full */
  RPD_ENOTDB,     /* not an SQLite database (or empty file) */
  RPD_ENOTRPD,    /* SQLite, but not an RPD trace (missing tables, ...) */
  RPD_EROCPROF,   /* a rocprofv3 database: use rpd-import */
  RPD_EGZIP,      /* corrupt or truncated gzip stream */
  RPD_EROFS,      /* file or directory is read-only, cannot write */
  RPD_EBUSY,      /* database is locked by another process */
  RPD_ESQL,       /* an SQL statement failed; message has SQL + errmsg */
  RPD_EPARSE,     /* malformed value (args, time, json, regex) */
  RPD_EEXIST,     /* target exists and we must not overwrite it */
  RPD_ENOTFOUND,  /* lookup found nothing (metadata tag, row) */
  RPD_EDONE,      /* augmentation already present (not an error to users) */
  RPD_ERANGE,     /* value outside the trace / allowed range */
};

/* The message of the last failure on the calling thread.  Thread-local
 * storage owned by common/; valid until the thread's next failing call.
 * Never NULL. */
const char *rpd_errmsg(void);

/* Set the last error message (printf format) and return rc, so that
 * `return rpd_seterr(RPD_EPARSE, "bad unit '%s'", u);` reads naturally. */
int rpd_seterr(int rc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Clear the last error message. */
void rpd_clearerr(void);

/* ------------------------------------------------------------ memory */

/* malloc/calloc/realloc/strdup that end the process on out-of-memory:
 * "PROG: out of memory (N bytes)" on stderr, exit status 1, the atexit
 * handlers run (rpd_cleanup_temps: no temp file is left).  The caller
 * frees the result with free(). */
void *rpd_xmalloc(size_t n);
void *rpd_xcalloc(size_t n, size_t size);
void *rpd_xrealloc(void *p, size_t n);
char *rpd_xstrdup(const char *s);
/* printf into a new string; caller frees. */
char *rpd_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable byte buffer, always NUL-terminated. Zero-initialize to start;
 * rpd_buf_free() releases it. */
typedef struct rpd_buf {
  char *s;
  size_t len, cap;
} rpd_buf;
void rpd_buf_add(rpd_buf *b, const char *s, size_t n);
void rpd_buf_puts(rpd_buf *b, const char *s);
void rpd_buf_printf(rpd_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void rpd_buf_reset(rpd_buf *b);          /* len = 0, keeps memory */
void rpd_buf_free(rpd_buf *b);

/* ------------------------------------------------------------ open/close */

/* Open flags for rpd_open(). */
enum {
  RPD_READ = 0,        /* read-only (.gz read through a private temp copy) */
  RPD_WRITE = 1,       /* read-write in place, or into out_path */
  RPD_CREATE = 2,      /* with RPD_WRITE: create a new, empty file */
  RPD_ANYDB = 4,       /* skip the RPD schema check (importers, --info on
                          foreign files); schema is then 0 */
  RPD_CHECKED = 8,     /* rpd_open_or_report only: then rpd_check_trace
                          (check.h), refusing garbage timestamps/gpuIds */
  RPD_OFFER_OUT = 16,  /* with RPD_WRITE, for a tool whose -o OUT is
                          rpd_open's out_path (the augment driver): a file
                          the import reader reads (rpd_set_import_reader),
                          refused for want of out_path, is refused with the
                          hint to give -o OUT */
};

/* An open trace.  Opaque: its connection, schema and files are read
 * through the functions below. */
typedef struct rpd rpd;

/* The trace's SQLite connection (owned by r; use freely, never close it). */
sqlite3 *rpd_db(const rpd *r);
/* The trace's schema: 2 or 3 (0 with RPD_ANYDB on a non-RPD file). */
int rpd_schema(const rpd *r);
/* Record the schema a tool has just created or upgraded (2 or 3). */
void rpd_set_schema(rpd *r, int schema);
/* The path the trace was opened by, as the user gave it (owned by r). */
const char *rpd_path(const rpd *r);
/* The file SQLite has open (a temp copy for .gz or -o OUT; owned by r). */
const char *rpd_work_path(const rpd *r);
/* The URI the connection was opened with, NULL for a plain path (a WAL
 * trace on a read-only mount is read as immutable; owned by r). */
const char *rpd_uri(const rpd *r);

/* Open the trace at `path`.
 *  flags: RPD_READ, RPD_WRITE, RPD_WRITE|RPD_CREATE, | RPD_ANYDB.
 *  out_path: with RPD_WRITE, write the result to this file instead of
 *    modifying `path` (`-o OUT`): the input is copied (decompressed if .gz),
 *    augmented, and on rpd_close(r, 1) moved to out_path atomically
 *    (compressed if out_path ends in .gz).  NULL = in place.
 *  A `.gz` path is decompressed to a private temp file; for RPD_WRITE it is
 *  recompressed and renamed over the original on rpd_close(r, 1).
 *  Checks: existence, SQLite header, RPD tables, schema version (2/3),
 *  rocprofv3 databases (RPD_EROCPROF), writability for RPD_WRITE
 *  (RPD_EROFS), locks (RPD_EBUSY after the busy timeout); a file from a
 *  stranger (docs/common.md "Untrusted traces"): the connection is
 *  hardened (rpd_db_harden), a rocpd_ view, virtual table or generated
 *  column and planner statistics that lie are refused (RPD_ENOTRPD), a
 *  .gz is checked as it inflates (RPD_EGZIP/RPD_ENOTDB), and RPD_WRITE
 *  refuses a file whose pages do not account for themselves (a page
 *  used twice, on the freelist and in use, owned by nobody, or that does
 *  not parse; PRAGMA quick_check where that walk cannot see the whole
 *  file) with RPD_ENOTDB.
 * On success *out is a new handle the caller releases with rpd_close().
 * On failure *out is NULL, nothing was modified and no temp file is left. */
int rpd_open(rpd **out, const char *path, const char *out_path, int flags);

/* Close the handle.  commit=1: for a temp working copy, produce the final
 * file (compress if needed, fsync, rename into place).  commit=0: discard
 * the working copy (an in-place database is simply closed; an open
 * transaction is rolled back).  Temp files are always removed.  Frees r.
 * Returns RPD_OK or the first failure (the handle is freed regardless). */
int rpd_close(rpd *r, int commit);

/* A handle over a connection the caller opened and keeps owning (a writer
 * that builds its file itself, an in-memory scratch database), so that the
 * rpd_* functions work on it: schema 2 or 3, flags as for rpd_open.  The
 * caller releases the handle with rpd_detach and closes db itself. */
rpd *rpd_attach(sqlite3 *db, int schema, int flags);

/* Free a handle from rpd_attach (NULL: no-op); its connection stays open. */
void rpd_detach(rpd *r);

/* A new, empty RPD trace (schema 3) in memory, for a reader that presents
 * a file of another format as a trace without writing one (the rocprofv3
 * reader below): SQLite's private temporary database, in its page cache
 * up to 64 MiB and past that in an unnamed file in $TMPDIR (so memory
 * stays flat).  rpd_path(r) is path (for messages); rpd_work_path(r) and
 * rpd_uri(r) are NULL (no second connection can open it: a tool that
 * would open one reads on the handle's).  Bulk-load settings; the caller
 * fills it in its own transactions.  rpd_close(r, 0) frees it.  RPD_OK or
 * an error status. */
int rpd_create_memory(rpd **out, const char *path);

/* A reader that opens a file rpd-import can read -- a rocprofv3 database
 * (plain or .gz) or a PyTorch profiler (Kineto) trace (JSON, plain or .gz)
 * -- as an RPD trace: on success *out is a new handle over a private trace
 * in memory (rpd_create_memory; the caller closes it with rpd_close); on
 * failure an error status and its message; RPD_ENOTDB (message not
 * needed) when path is none of the formats it reads.  arg is what
 * rpd_set_import_reader was given. */
typedef int (*rpd_import_reader)(const char *path, void *arg, rpd **out);

/* Let rpd_open with RPD_READ read such a file through fn: a rocprofv3
 * database instead of refusing it with RPD_EROCPROF ("convert it with
 * rpd-import"), and a file that is not SQLite (RPD_ENOTDB) when fn reads
 * its format (else the open's own message stands).  With RPD_WRITE and an
 * out_path (an augmenter's -o OUT), the trace fn reads is copied into the
 * work file of out_path, so OUT is the import with the writer's result;
 * in place it is still refused (RPD_OFFER_OUT adds the -o hint).  A tool
 * that links such a reader (rpd-import's: raptor and lib/librptor.so,
 * rpd2tracing, rpd-health, rpd2table, rpd-diff, every augmenter)
 * registers it once; RPD_ANYDB opens and rocprofv3 JSON or CSV still get
 * the refusal.  fn NULL: off. */
void rpd_set_import_reader(rpd_import_reader fn, void *arg);

/* Remove every temp file rpd_open created that is still alive; safe to call
 * from atexit() and from a fatal signal handler.  rpd_open installs it. */
void rpd_cleanup_temps(void);

/* What the first bytes of the file at path say: *is_trace = 1 for an SQLite
 * database or gzip data (what rpd_open would take), else 0 (an empty file
 * too).  RPD_OK, or the error of reading it (no such file, not a regular
 * file, ...).  For a tool that takes a text file beside a trace and wants
 * to say which argument is which. */
int rpd_looks_like_trace(const char *path, int *is_trace);

/* 1 when the file at path (plain or gzip) is a PyTorch profiler (Kineto)
 * trace: its first MiB carries Kineto's marks (top-level keys such as
 * "schemaVersion" or "deviceProperties", or event categories such as
 * "cat": "cpu_op") and not rocprofv3's "rocprofiler-sdk-tool"; else 0 (an
 * unreadable file too).  rpd-import's detection, and the hint writers give
 * for such a file ("convert it with: rpd-import ..."). */
int rpd_kineto_file(const char *path);

/* Detect the schema of an open connection without opening through rpd_open:
 * returns 2, 3, or 0 (not RPD; reason in rpd_errmsg(), RPD_EROCPROF
 * distinguished by *why if not NULL). */
int rpd_detect_schema(sqlite3 *db, int *why);

/* Harden a connection to a file we did not write (docs/common.md
 * "Untrusted traces"): the file's triggers never fire, its schema may call
 * only innocuous functions (trusted_schema off), defensive mode, no foreign
 * key actions, no extension loading.  rpd_open does it on its own
 * connections; call it on any other connection to a trace.  Returns an
 * SQLite result code (SQLITE_ERROR when the library refused a switch). */
int rpd_db_harden(sqlite3 *db);

/* sqlite3_open_v2(path, db, flags, NULL), then rpd_db_harden.  Returns an
 * SQLite result code; *db is the caller's to sqlite3_close, also on
 * failure (it may be NULL). */
int rpd_sqlite_open(const char *path, sqlite3 **db, int flags);

/* The table that holds api args strings: "rocpd_string" on v2,
 * "rocpd_ustring" on v3. Static string. */
const char *rpd_args_table(const rpd *r);

/* ------------------------------------------------------------ SQL helpers */

/* Execute one or more statements (no result rows expected). On failure
 * returns RPD_ESQL (RPD_EBUSY for locks) with a message carrying the
 * statement text and sqlite3_errmsg(). */
int rpd_exec(rpd *r, const char *sql);

/* Format with sqlite3_mprintf (%Q quotes a literal, %w an identifier inside
 * "..."), then rpd_exec. */
int rpd_execf(rpd *r, const char *fmt, ...);

/* Prepare one statement; on failure RPD_ESQL with message. The caller
 * finalizes *st with sqlite3_finalize(). */
int rpd_prepare(rpd *r, const char *sql, sqlite3_stmt **st);

/* Step a statement: returns SQLITE_ROW or SQLITE_DONE; anything else is
 * turned into RPD_ESQL/RPD_EBUSY with a message (the statement's SQL and
 * errmsg) and returned as a negative number: -RPD_ESQL, -RPD_EBUSY.
 * Idiom: while ((s = rpd_step(r, st)) == SQLITE_ROW) {...} if (s < 0) rc = -s; */
int rpd_step(rpd *r, sqlite3_stmt *st);

/* Run a query whose first row's first column is an integer.
 * RPD_ENOTFOUND when there is no row (or the value is NULL). */
int rpd_query_int64(rpd *r, const char *sql, int64_t *out);

/* *sorts = 1 when SQLite's plan for the query sql (EXPLAIN QUERY PLAN)
 * has a sort step (a TEMP B-TREE: ORDER BY or GROUP BY not given by an
 * index or the rowid), else 0.  RPD_OK or the error of preparing it. */
int rpd_plan_sorts(rpd *r, const char *sql, int *sorts);

/* 1 if a table or view with that name exists (case-insensitive), else 0. */
int rpd_table_exists(rpd *r, const char *name);
/* 1 if `table` has column `col`, else 0. */
int rpd_column_exists(rpd *r, const char *table, const char *col);

/* Transactions.  rpd_begin issues BEGIN IMMEDIATE (fails with RPD_EBUSY if
 * another writer holds the file past the busy timeout).  rpd_commit commits;
 * rpd_rollback rolls back (and never fails loudly). */
int rpd_begin(rpd *r);
/* 1 if the file r works on was renamed over or unlinked since it was
 * opened (a concurrent rpd-trim or VACUUM replaced it): a transaction
 * begun now would fail at its first write; reopen instead. */
int rpd_file_moved(rpd *r);
int rpd_commit(rpd *r);
void rpd_rollback(rpd *r);

/* ------------------------------------------------------------ strings */

/* An interning table over rocpd_string or rocpd_ustring: id lookup with an
 * in-memory cache; new strings are inserted (inside the caller's
 * transaction). */
typedef struct rpd_strtab rpd_strtab;

/* table: "rocpd_string" or "rocpd_ustring". Caller frees with
 * rpd_strtab_free(). */
int rpd_strtab_open(rpd *r, const char *table, rpd_strtab **out);
/* Id of string s, inserting it if new. */
int rpd_strtab_id(rpd_strtab *t, const char *s, int64_t *id);
/* Id of s without inserting: RPD_ENOTFOUND if absent. */
int rpd_strtab_find(rpd_strtab *t, const char *s, int64_t *id);
/* Id of s from the in-memory cache only: RPD_ENOTFOUND (no message set)
 * if it is not cached.  Never touches the database, so a thread may call
 * it while another uses the connection (rpd-import's writer thread). */
int rpd_strtab_cached(rpd_strtab *t, const char *s, int64_t *id);
void rpd_strtab_free(rpd_strtab *t);

/* ------------------------------------------------------------ metadata */

/* Value of the first rocpd_metadata row with `tag`; *value is a new string
 * the caller frees, or NULL with RPD_ENOTFOUND. */
int rpd_meta_get(rpd *r, const char *tag, char **value);
/* Replace every row of `tag` by one row (tag, value). */
int rpd_meta_set(rpd *r, const char *tag, const char *value);
/* Append (tag, value) unless that exact pair exists already. */
int rpd_meta_add(rpd *r, const char *tag, const char *value);
/* Delete every row of `tag` (RPD_OK even if none). */
int rpd_meta_clear(rpd *r, const char *tag);

/* ------------------------------------------------------------ views */

/* SQL text of an embedded views/ file, by name without ".sql" ("api",
 * "callstack", ...).  On v2 traces NAME.v2.sql is preferred when it exists.
 * schema: 2 or 3.  Static storage; NULL if unknown. */
const char *rpd_view_sql(const char *name, int schema);
/* Execute the embedded file `name` on r (schema chosen from r). */
int rpd_view_install(rpd *r, const char *name);
/* Names of all embedded files, NULL-terminated; static. */
const char *const *rpd_view_names(void);

/* ------------------------------------------------------------ output files */

/* Check that `path` may be written as a tool's output file: refuses a
 * directory or special file (device, fifo, socket: "not a regular file"),
 * the input itself (same inode as `input`, which may be NULL; "is the input
 * file"), and an unwritable directory (RPD_EROFS).  Symlinks are followed:
 * the output replaces the link's final target, never the link or a device
 * behind it.  On success *target (if not NULL) is the path to rename onto;
 * the caller frees it. */
int rpd_output_check(const char *path, const char *input, char **target);

/* Unnamed scratch files for spilling data that does not fit in memory,
 * in $TMPDIR (default /tmp): O_TMPFILE, or a mkostemp name unlinked at
 * once, so nothing is left behind even on a crash.  rpd_scratch_fd returns
 * a read-write descriptor (the caller closes it) or -1 with errno set;
 * rpd_scratch_file the same as a "w+" stream (the caller fcloses it) or
 * NULL.  tmpfile(3) would ignore $TMPDIR. */
int rpd_scratch_fd(void);
FILE *rpd_scratch_file(void);
/* len bytes at p written to fd at offset off, or read from there into p,
 * whole (short transfers and EINTR retried; the end of the file before
 * len bytes is EIO): 0, or -1 with errno set, for the caller's message.
 * For scratch files (rpd_scratch_fd) written and read back in blocks. */
int rpd_pwrite_full(int fd, const void *p, size_t len, int64_t off);
int rpd_pread_full(int fd, void *p, size_t len, int64_t off);

/* An output file written atomically: begin checks the path with
 * rpd_output_check, creates a temp file next to the target named
 * ".<name, cut to 64 bytes>.rpdtools-XXXXXX" (registered so a fatal signal
 * or exit removes it, and flock-locked for its life, so that after a kill -9
 * the next rpd_open of the file or rpd_outfile_begin for the same target
 * removes it) and opens it as fp.  Write through fp -- or fclose(fp),
 * set it to NULL and write tmp by other means (gzopen, sqlite).  commit
 * flushes, closes, gives the file mode 0666 & ~umask and renames it onto
 * target (with RPD_SYNC=1 in the environment it also fsyncs the file
 * before and the directory after the rename); abort removes it.  Both free
 * the fields.  Atomic against a kill either way; durable across a power
 * loss only with RPD_SYNC=1, as gzip without --synchronous. */
typedef struct rpd_outfile {
  char *target;   /* final path (symlinks resolved) */
  char *tmp;      /* temp file next to it */
  FILE *fp;       /* open "wb" on tmp, or NULL once the caller closed it */
} rpd_outfile;
int rpd_outfile_begin(rpd_outfile *of, const char *path, const char *input);
int rpd_outfile_commit(rpd_outfile *of);
void rpd_outfile_abort(rpd_outfile *of);

/* Name for a temp file next to `path` (same directory, so rename is atomic):
 * "DIR/.<basename cut to 64 bytes>.rpdtools-XXXXXX" ready for mkstemp.  The
 * caller frees it. */
char *rpd_temp_template(const char *path);

/* VACUUM the trace without risking the user's file.  Call after the last
 * commit, outside a transaction, as the last thing before rpd_close: on a
 * temp work copy (.gz or -o) it vacuums in place; on the user's own file it
 * runs VACUUM INTO a temp file next to it and renames that over the file, so
 * a failure or a kill leaves the committed file as it was. */
int rpd_vacuum(rpd *r);

/* Flush stdout and report a write error (disk full, closed pipe) as
 * RPD_EIO; tools call it before exiting 0 after printing results. */
int rpd_finish_stdout(void);

/* ------------------------------------------------------------ create */

/* How a new trace is made (rpd_create).  Zero-initialise: schema 3, the
 * output refused if it exists and is not empty, SQLite's page size. */
typedef struct rpd_create_opts {
  int schema;          /* 3 (0 means 3), 2, or RPD_SCHEMA_NONE: an empty
                          database for a foreign layout (rpd-synth-rocpd's
                          rocprofv3 tables); r->schema is then 0 */
  const char *input;   /* the tool's input file, refused as the output
                          (NULL: none) */
  int force;           /* replace an existing non-empty file */
  int page_size;       /* PRAGMA page_size before the first table (0:
                          SQLite's default) */
} rpd_create_opts;
#define RPD_SCHEMA_NONE (-1)

/* The one way to make a trace file.  Checks path as an output
 * (rpd_output_check: never a directory, a device, the input; symlinks
 * followed), refuses an existing non-empty file unless o->force
 * (RPD_EEXIST), creates a temp file next to the target (removed on
 * failure, exit or a fatal signal; reclaimed after a kill -9), opens it
 * with the RPD_OPEN_BULK profile (no syncs, journal in memory: the file is
 * private until published), sets the page size, and creates the schema
 * (tables, indexes, metadata, utility views) in a committed transaction.
 * The tool fills it through *out (its own transactions), then
 * rpd_close(r, 1) publishes it atomically: gzip-compressed when path ends
 * in .gz, fsynced, renamed onto the target, which keeps the mode and owner
 * of a file it replaces (a new file: 0666 & ~umask); rpd_close(r, 0)
 * removes it and leaves the target as it was.  o may be NULL (defaults).
 * On failure *out is NULL and nothing is left behind. */
int rpd_create(rpd **out, const char *path, const rpd_create_opts *o);

/* Open profiles: the connection settings (page cache, temp storage,
 * journal) for a kind of work, set only here so that tools do not
 * hand-tune pragmas.  rpd_open gives RPD_OPEN_DEFAULT; rpd_create gives
 * RPD_OPEN_BULK. */
enum {
  RPD_OPEN_DEFAULT = 0, /* 64 MB page cache: writes into a trace (raptor --save) */
  RPD_OPEN_SCAN,        /* sequential reading passes: 4 MB page cache, temp
                           tables in files with a 4 MB cache (raptor, the
                           report, rpd2tracing, rpd-diff, importer inputs) */
  RPD_OPEN_SIDE,        /* one of many connections open at once (merge
                           inputs, a second reader): 2 MB page cache */
  RPD_OPEN_UPDATE,      /* an augmenter or rewrite whose sorter and VACUUM
                           size themselves by the cache: 16 MB, so the peak
                           stays flat in trace size */
  RPD_OPEN_SORT,        /* RPD_OPEN_UPDATE whose temp tables (big sorts)
                           get 16 MB as well (rpd-analyze) */
  RPD_OPEN_BULK,        /* filling a new private file: 16 MB page cache,
                           journal in memory, no syncs, no foreign keys,
                           temp tables in files (4 MB); only for a file
                           nobody else sees until it is published */
};
/* Apply a profile to the trace's connection: RPD_OK or RPD_ESQL. */
int rpd_profile(rpd *r, int profile);
/* The same on a connection the caller opened (a worker's second reader,
 * a scratch database): an SQLite result code. */
int rpd_db_profile(sqlite3 *db, int profile);

/* ------------------------------------------------------------ schema */

/* Create the RPD tables, indexes, metadata rows (schema_version, gpu_stride,
 * pid_stride) and utility views in an empty database opened with
 * RPD_WRITE|RPD_CREATE.  r->schema selects the layout: 3 (default for new
 * files) or 2 (views/schema.v2.sql, for tests and rpd-synth --schema 2).
 * (common/trace/schema.c) */
int rpd_schema_create(rpd *r);
/* Drop and recreate the utility views (api, op, busy, top, ktop, kernel,
 * copy, copyop, stackframe, napi, nop) for r->schema. (common/trace/schema.c) */
int rpd_schema_install_views(rpd *r);

/* ------------------------------------------------------------ args parser */

/* The tracer's args text `key = value | key = value`: split on '|', then at
 * the first '=', trim spaces and one level of surrounding quotes.  Segments
 * without '=' get an empty key and the trimmed text as value. */
typedef struct rpd_kv {
  const char *key;
  const char *value;
} rpd_kv;
typedef struct rpd_args {
  rpd_kv *kv;
  size_t n;
  char *buf;   /* storage for keys/values */
} rpd_args;
/* Parse s into a (zero-initialised or freed) *a; the caller frees with
 * rpd_args_free(). NULL s = no pairs. */
int rpd_args_parse(const char *s, rpd_args *a);
/* Value of the first pair with `key`, or NULL. Points into a. */
const char *rpd_args_get(const rpd_args *a, const char *key);
void rpd_args_free(rpd_args *a);

/* ------------------------------------------------------------ time */

/* A parsed time value for ROI/trim/start/end options. */
enum {
  RPD_TIME_BARE,   /* "123.4" or "5ms": no sign; caller decides origin */
  RPD_TIME_PLUS,   /* "+10ms": from the start */
  RPD_TIME_MINUS,  /* "-8ms": back from the end */
  RPD_TIME_PCT,    /* "50%": fraction of the span */
};
typedef struct rpd_time {
  int kind;
  double ns;       /* magnitude in ns (not for PCT) */
  double pct;      /* 0..100 for PCT */
  int had_unit;    /* 1 if the text carried a unit */
} rpd_time;
/* Parse "123.45", "123.45ms", "123450ns", ".12345s", "10sec", "+10ms",
 * "-8ms", "50%".  Units: ns, us, ms, s, sec (also "usec", "msec", "nsec").
 * default_unit ("ns","us","ms","s") applies to bare numbers. */
int rpd_time_parse(const char *s, const char *default_unit, rpd_time *t);
/* Absolute timestamp (ns) for t over the span [first, last]:
 * BARE -> bare_origin + ns, PLUS -> first + ns, MINUS -> last - ns,
 * PCT -> first + (last-first)*pct/100. */
int64_t rpd_time_resolve(const rpd_time *t, int64_t bare_origin,
                         int64_t first, int64_t last);

/* ------------------------------------------------------------ regex */

/* PCRE2 regex with Python re.search semantics for the usual patterns
 * (unanchored search, UTF-8). */
typedef struct rpd_regex rpd_regex;
/* Compile; on failure RPD_EPARSE with "MESSAGE at offset N" in rpd_errmsg().
 * Caller frees with rpd_regex_free(). */
int rpd_regex_compile(const char *pattern, rpd_regex **out);
/* 1 if the pattern matches anywhere in subject, 0 if not (NULL subject = 0),
 * a negative RPD error code when PCRE2 cannot finish the search (match
 * limit, JIT stack: RPD_ERANGE with the reason in rpd_errmsg()); never
 * "no match" for an unfinished search.  The regex keeps its match data:
 * one search at a time per regex. */
int rpd_regex_search(const rpd_regex *re, const char *subject);
void rpd_regex_free(rpd_regex *re);

/* ------------------------------------------------------------ output */

/* RPD_FMT_MD (Markdown) is written by the table writers of table.h
 * (rpd_table_write, rpd_tables_stdout) only: rpd_out and rpd_fmt_parse
 * know the other three. */
typedef enum { RPD_FMT_TABLE, RPD_FMT_CSV, RPD_FMT_JSON, RPD_FMT_MD } rpd_fmt;
/* "table", "csv", "json" -> *fmt; RPD_EPARSE otherwise. */
int rpd_fmt_parse(const char *s, rpd_fmt *fmt);

/* A result writer: aligned text table (printed by rpd_out_end; rows past
 * 4 MB of text wait in an unnamed temp file in $TMPDIR, or in memory if
 * none can be made; RPD_OUT_SPILL_BYTES overrides the 4 MB for tests), CSV
 * (RFC 4180, streamed), or JSON (an array of objects, streamed). */
typedef struct rpd_out rpd_out;
/* Start a result with ncols columns named by names[] (copied). The caller
 * owns f; free the writer with rpd_out_end(). */
rpd_out *rpd_out_new(FILE *f, rpd_fmt fmt, int ncols, const char *const *names);
void rpd_out_str(rpd_out *o, const char *s);        /* NULL -> null */
void rpd_out_int(rpd_out *o, int64_t v);
void rpd_out_double(rpd_out *o, double v, int digits); /* digits after '.';
                                                        -1 = shortest exact */
void rpd_out_null(rpd_out *o);
void rpd_out_endrow(rpd_out *o);
/* Table mode: print lines at most width columns wide (0, the default: as
 * wide as the widest cells) by narrowing the widest text columns; their
 * cells are cut in the middle (rpd_text_cut, textcut.h).  Numbers and
 * column names are never cut.  CSV and JSON are not affected. */
void rpd_out_fit(rpd_out *o, size_t width);
/* Write every row of a prepared statement (column names from it). */
int rpd_out_stmt(rpd *r, sqlite3_stmt *st, FILE *f, rpd_fmt fmt);
/* The same, a table at most width columns wide (rpd_out_fit). */
int rpd_out_stmt_fit(rpd *r, sqlite3_stmt *st, FILE *f, rpd_fmt fmt, size_t width);
/* Flush (tables print here), free. Returns RPD_EIO on write errors. */
int rpd_out_end(rpd_out *o);

/* Append s to b as the body of a JSON string (RFC 8259): quotes,
 * backslashes and control characters escaped, invalid UTF-8 replaced by
 * U+FFFD.  No surrounding quotes are added. */
void rpd_json_escape(rpd_buf *b, const char *s);

/* Progress line on stderr for long work, only when stderr is a terminal
 * and not rpd_quiet, at most four times a second, in one format for every
 * tool: "PROG: WHAT: 1234567/3000000 rows (41%), 812k rows/s, ETA 2s"
 * (total < 0: "PROG: WHAT: 1234567 rows, 812k rows/s").  done == total (or
 * total < 0 and done < 0) finishes the line.  The unit is "rows" unless
 * rpd_progress_unit() changed it. */
void rpd_progress(const char *what, int64_t done, int64_t total);
/* rpd_progress for a loop over the rows of `table` in id order: done is
 * the current row's id, the total max(id) (queried once per table, only
 * when a line can show); the last row finishes the line.  NULL r: no-op.
 * One call per row: rpd_progress_rows(r, "ops", "rocpd_op", id). */
void rpd_progress_rows(rpd *r, const char *what, const char *table, int64_t id);
/* The unit the next progress line counts: "rows" (default) or "bytes"
 * (shown as MB).  unit must be a static string. */
void rpd_progress_unit(const char *unit);
/* The progress line text for done/total after elapsed_ms (the format of
 * rpd_progress, without the "PROG: " prefix) into buf; for tests. */
void rpd_progress_format(char *buf, size_t n, const char *what, const char *unit,
                         int64_t done, int64_t total, int64_t elapsed_ms);

/* ------------------------------------------------------------ CLI */

/* Program name used in messages (basename of argv[0]); set by rpd_cli_init. */
extern const char *rpd_progname;
/* Set by -q / --quiet (rpd_cli_init): no progress line. */
extern int rpd_quiet;
/* The rpdtools version ("0.15.0"; common/cli/version.h).  Static string. */
const char *rpd_version(void);
/* Record "rpdtools_version::PROG" = rpd_version() in rocpd_metadata, inside
 * the caller's transaction (every tool that writes ext_ tables or rewrites
 * a trace); nothing is written when the same version is already there.
 * Returns RPD_OK or the error of the read/write. */
int rpd_record_version(rpd *r);
/* 1 when s is -q or --quiet: a tool's option loop accepts it with
 * `if (rpd_cli_quiet_opt(a)) continue;` (rpd_cli_init already set rpd_quiet). */
int rpd_cli_quiet_opt(const char *s);

/* Set rpd_progname; if any argument is --help or -h (before a "--"), print
 * usage to stdout and return 1 (the tool then returns rpd_cli_status()
 * from main); --version prints "PROG (rpdtools) VERSION" and returns 1 too.
 * -q / --quiet anywhere (before "--") sets rpd_quiet.  Else 0. */
int rpd_cli_init(int argc, char **argv, const char *usage);
/* The exit code after rpd_cli_init returned 1: 0, or 1 when the text could
 * not be written to stdout (`--help >/dev/full`; one line said so). */
int rpd_cli_status(void);

/* CSV cells that start with = + - @ TAB or CR are formulas to a spreadsheet
 * (=HYPERLINK(...) sends cells to a web site): every CSV writer
 * (rpd_csv_field) prefixes such a text cell with a single quote, as OWASP
 * recommends, unless rpd_csv_raw is set (--csv-raw).  Numbers, negative
 * ones included, are never changed. */
extern int rpd_csv_raw;
/* 1 (and rpd_csv_raw = 1) when s is --csv-raw; a tool's option loop
 * accepts it with `if (rpd_cli_csv_raw_opt(a)) continue;`. */
int rpd_cli_csv_raw_opt(const char *s);
/* Append s (NULL is "") to b as one CSV field: valid UTF-8 (textsafe.h
 * RPD_TEXT_CSV), a text that a spreadsheet would run as a formula
 * prefixed with ' (unless rpd_csv_raw), then quoted when it holds a comma,
 * a quote, CR or LF, or always when quote_all.  b owns its memory. */
void rpd_csv_field(rpd_buf *b, const char *s, int quote_all);

/* Print "PROG: MESSAGE" on stderr as ONE line: newlines and other control
 * characters in the message (file names, SQLite messages) are escaped as
 * \n, \r, \t, \xNN.  Returns 1 (the failure exit code). */
int rpd_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "PROG: MESSAGE" on stderr as one line (a note or warning; control
 * characters are escaped as in rpd_fail). */
void rpd_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The rule for stdout after a commit (every writer follows it): flush
 * stdout; if that fails (disk full, closed pipe) print "PROG: 'PATH':
 * results committed, but the summary could not be written (REASON)" and
 * return 1, else return 0.  Tools `return rpd_fail_committed(file);` after
 * printing their summary of a committed change. */
int rpd_fail_committed(const char *path);
/* Print "PROG: MESSAGE" and "Try 'PROG --help'." on stderr; returns 2. */
int rpd_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Open for a tool and report failures as one line:
 * "PROG: cannot open 'PATH': REASON". With RPD_CHECKED in flags the trace's
 * values are then checked (rpd_check_trace): garbage gives "PROG: cannot
 * read 'PATH': REASON" and *out is closed and NULL. Returns RPD_OK or the rc. */
int rpd_open_or_report(rpd **out, const char *path, const char *out_path,
                       int flags);

/* ------------------------------------------------------------ augmenters */

/* The shared driver of every augmenter (rpd-callstack, rpd-graph, ...):
 * parses `FILE [-o OUT] [--force]` plus the tool's own options, opens the
 * trace for writing, checks the done-tag in rocpd_metadata (already done
 * and no --force: prints "PROG: 'FILE' already has WHAT; nothing to do (use
 * --force to rebuild)" and returns 0 leaving the file untouched; with -o the
 * output is still written, as an unchanged copy), runs drop() (with
 * --force) and build() inside ONE transaction, records the done-tags,
 * commits and closes. SQLite runs single-threaded (no mutexes): an augmenter
 * is one thread on one connection. Returns the process exit code. */
typedef struct rpd_augment {
  /* the text of --help around the option list generated from opts (the
   * driver's -o and --force first); NULL: usage, written whole */
  const struct rpd_help *help;   /* (common/opt.h) */
  const char *usage;
  const char *what;           /* "the call stack": used in messages */
  const char *done_tag;       /* metadata tag that marks it done */
  int (*drop)(rpd *r, void *ctx);   /* remove old results (may be NULL) */
  int (*build)(rpd *r, void *ctx);  /* create tables/rows/views */
  void *ctx;
  /* Print the summary of a committed run on stdout (may be NULL); called
   * after the commit, then stdout is flushed (rpd_fail_committed). */
  void (*summary)(void *ctx);
  /* 1: build() applies rpd_check_trace's rule itself, folded into the
   * scans it makes anyway, so the driver skips its own check scans. */
  int checks_itself;
  /* The tool's options as a table (common/cli/opt.h; NULL: none), parsed
   * with FILE, -o and --force. */
  const struct rpd_opt *opts;
} rpd_augment;
/* What rpd_augment_main does first, for a tool that reads some options
 * before building its rpd_augment: set rpd_progname, answer --help (the
 * help generated from a->help and the driver's table with a->opts) and
 * --version.  Returns 1 when answered (exit with rpd_cli_status()), else
 * 0.  rpd_augment_main calls it again, harmlessly. */
int rpd_augment_init(const rpd_augment *a, int argc, char **argv);
int rpd_augment_main(const rpd_augment *a, int argc, char **argv);

#include "progress.h"   /* progress phases over SQL work, rpd_progress_end */

#endif
