/* kineto.h - rpd-import's PyTorch profiler (Kineto) reader: the state the
 * parser (kineto.c), the event writers (kineto_event.c) and the metadata
 * (kineto_meta.c) share.  Internal. */
#ifndef RPD_IMPORT_KINETO_H
#define RPD_IMPORT_KINETO_H

#include <stdint.h>
#include <string.h>
#include <sqlite3.h>

#include "rpd.h"
#include "import.h"

enum {
  KMAXD = 64,               /* deepest nesting accepted */
  KARGS = 64,               /* args keys remembered per event */
  KTEXT_MAX = 16 << 20,     /* one event's name or args text at most */
  KMETA_MAX = 4 << 20,      /* one top-level value kept as metadata */
};

/* Where the parser is. */
enum { P_NONE, P_TOP, P_EVENTS, P_EVENT, P_ARGS, P_META, P_SKIP };

/* A top-level key of an event (the few that matter). */
enum { F_OTHER, F_PH, F_CAT, F_NAME, F_PID, F_TID, F_TS, F_DUR, F_ID, F_ARGS };

/* What an event's cat says, read once when the cat is (every later test
 * of the cat is on this). */
enum {
  CK_OTHER, CK_KERNEL, CK_MEMCPY, CK_MEMSET, CK_RUNTIME, CK_SYNC, CK_CPU_OP,
  CK_ANNOTATION, CK_PYTHON, CK_GPU_ANNOTATION, CK_FLOW
};

/* One args key of the current event and where its value's text is. */
typedef struct karg {
  char key[40];
  size_t klen, off, len;
  int str;                  /* the value is a string (text without quotes) */
} karg;

/* The event being read. */
typedef struct kev {
  char ph[8], cat[32];
  rpd_buf name;
  char pid[32], tid[32], ts[48], dur[48];
  int ck;                   /* CK_* of cat */
  int has_ts, has_dur, ts_str, dur_str, has_name;
  rpd_buf args;             /* the args object as JSON text */
  int lite;                 /* args kept as bare values only (see args_lite) */
  karg a[KARGS];
  int na;
} kev;

typedef struct kstate {
  imp *m;
  int rc;
  int depth;
  int role[KMAXD + 2];
  char is_map[KMAXD + 2];
  int field;                /* F_* of the event key just read */
  int need_comma[KMAXD + 2];   /* serializing: an element came before */
  char topkey[64];
  int serial_base;          /* depth at which serialization started */
  rpd_buf *out;             /* serialization target (args or meta) */
  int argkey;               /* index into ev.a of the args key being read, -1 */
  int drop_member;          /* lean: the args member being read is left out */
  int saw_events;
  kev ev;
  rpd_buf meta;
  rpd_buf text;             /* scratch: the marker args */
  int64_t nev;              /* events read */
  int64_t next_marker;      /* odd api ids of markers */
  int64_t ext_id;
  rpd_buf extq;             /* ext_kineto_event rows not yet handed over */
  int n_extq;
  sqlite3_stmt *st_ext, *st_ext_many;  /* used on the writer thread only */
  int64_t n_ext, n_flow;
  struct kname_verdict *named;  /* lean: rpd_perf_named by op name, cached
                             * (NAMED_SLOTS, made on first use) */
  int py_seen;              /* lean 2: a python_function call was kept */
  int64_t py_lo, py_hi;     /* lean 2: the span of the ones kept */
} kstate;

/* Append n bytes to b: in place while they fit (the common case: the
 * buffers are reused event after event), else through rpd_buf_add. */
static inline void put(rpd_buf *b, const char *s, size_t n)
{
  if (b->s && b->len + n < b->cap) {
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
  } else
    rpd_buf_add(b, s, n);
}

/* kineto_event.c: the event just closed (k->ev) becomes its rows; an
 * RPD_* status, the message set on failure. */
int kineto_event_end(kstate *k);

/* kineto_event.c: free what the event writers keep in k. */
void kineto_event_free(kstate *k);

/* kineto_event.c: the CK_* of a cat text. */
int kineto_cat_kind(const char *cat);

/* kineto_event.c: hand the ext_kineto_event rows collected so far to the
 * writer (before the end of a run).  An RPD_* status. */
int kineto_ext_flush(kstate *k);

/* kineto_event.c: set the message "event N ('name'): what"; RPD_EPARSE. */
int kineto_event_fail(kstate *k, const char *what);

/* kineto_event.c: 1 if a kernel name is an NCCL/RCCL collective's. */
int kineto_is_collective(const char *name);

/* kineto_meta.c: the DDL of ext_kineto_event and its views. */
extern const char kineto_ext_ddl[];

/* kineto_meta.c: a top-level value closed (its text in k->meta, its key
 * in k->topkey): rocpd_metadata rows.  An RPD_* status. */
int kineto_meta_end(kstate *k);

/* kineto_meta.c: devices and ranks derived from the metadata kept as
 * JSON, after the parse.  An RPD_* status. */
int kineto_meta_derived(imp *m);

#endif
