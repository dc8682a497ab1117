/* json_int.h - rpd-import's rocprofiler-sdk JSON reader, shared by its two
 * files: json.c walks the document (yajl callbacks, the flattened keys of
 * a record, its fields), json_rec.c turns a finished record into rows. */
#ifndef RPD_IMPORT_JSON_INT_H
#define RPD_IMPORT_JSON_INT_H

#include <stdint.h>

#include "rpd.h"
#include "import.h"

enum { R_NONE, R_TOP, R_TOOL, R_SECTION, R_STRINGS, R_BUFREC, R_AGENTS,
       R_SYMS, R_KINDNAMES, R_MARKERSTR, R_RECARR, R_RECORD, R_INREC };
enum { RK_META = 1, RK_AGENT, RK_SYM, RK_KIND, RK_MARKER, RK_BUF };
#define JMAXD 64
#define JKEY 96

typedef struct jfield {
  char key[128];
  size_t klen;  /* strlen(key) */
  rpd_buf val;
  int n;        /* values appended (arrays) */
} jfield;

/* The default of an integer field that must be present (a timestamp). */
#define JREQ INT64_MIN

typedef struct ksym {
  char *short_name, *full_name;
  int64_t desc_id, full_id;    /* description and full name ids, interned
                                  lazily by w_kernel_name; -1 = not yet */
} ksym;

typedef struct kindnames {
  char *name;
  char **ops;
  int nops;
} kindnames;

typedef struct jstate {
  imp *m;
  int rc;                          /* first failure (callbacks abort) */
  int depth;
  char is_map[JMAXD + 1];
  int role[JMAXD + 1];
  char key[JMAXD + 1][JKEY];
  unsigned char klen[JMAXD + 1];   /* strlen(key[d]) */
  int rec_depth, rec_kind;
  /* the flattened key ("dispatch_info.grid_size.x") of the current
   * position inside a record, kept as keys come and containers close */
  char path[128];
  size_t plen;
  size_t pbase[JMAXD + 1];         /* plen when depth d was opened */
  char recarr[48];                 /* buffer_records key of the current array */
  jfield *f;
  int nf, capf, hint;
  /* the keys of the current record's fields, hashed (jkey_bit): a key
   * seen again is a duplicate (the last value wins, as in Python) */
  uint64_t keybits[2];
  char arr_fresh[JMAXD + 1];       /* keyed array at depth d has no value yet */
  /* fields from this index on belong to the container instance open at
   * depth d (a new element of an array of maps starts a new barrier: its
   * keys repeat the previous element's legitimately) */
  int barrier[JMAXD + 1];
  /* the first integer field of the record that was not an integer (or a
   * required one that was missing): the record is refused with it */
  char ibad[200];
  uint64_t ncb;                    /* parser callbacks so far (json_run) */
  int saw_tool;
  int saw_events;     /* a top-level traceEvents array: a chrome trace */
  /* per-section tables */
  imap agents;                     /* agent handle -> gpu index (or -1) */
  imap symidx;                     /* kernel_id -> index into syms */
  ksym *syms;
  int nsyms, capsyms;
  kindnames *kn;
  int nkn, capkn;
  imap markmsg;                    /* correlation id -> index into markers */
  char **markers;
  int nmarkers, capmarkers;
} jstate;

/* Free the tables of a finished tool section (agents, symbols, kind and
 * marker names). */
void json_clear_section(jstate *j);
/* The record that just closed (j->rec_kind, j->recarr, fields j->f)
 * written as rows or kept as a table; an RPD status. */
int json_rec_end(jstate *j);
/* jk_flush with the writer thread paused. */
int json_flush_paused(imp *m);

#endif
