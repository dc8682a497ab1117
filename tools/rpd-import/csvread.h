/* csvread.h - rpd-import: what the files of the rocprofv3 CSV reader share.
 *   csvread.c   the CSV parser, one record at a time; csv_each, csv_rows
 *   csv_kinds.c the columns and rows of each kind of file (kernels, api
 *               calls, copies, counters, ...) and the agent map
 *   csv_set.c   finding the files of a set (csv_collect) and their kinds
 *   csv.c       reading a set in order (import_csv, import_csv_stream)
 * Internal. */
#ifndef RPD_IMPORT_CSVREAD_H
#define RPD_IMPORT_CSVREAD_H

#include <stdint.h>
#include <stdio.h>

#include "import.h"

typedef struct csv {
  FILE *f;
  const char *path;
  int64_t line;         /* line of the current record's start */
  int64_t nextline;
  char *buf;            /* read buffer: buf[pos..len) not consumed yet */
  size_t pos, len;
  char *rec;            /* the current record's fields, each NUL-ended */
  size_t rlen, rcap;
  size_t *off;          /* field i starts at rec + off[i] */
  int nfld, capfld;
  char **hdr;
  int nhdr;
  int keep;             /* > 0: keep the first `keep` fields of each
                         * record, skip the rest unparsed (a column scan) */
} csv;

/* The import whose progress line counts the bytes read (import_csv sets
 * it for the duration of a set; NULL otherwise). */
extern imp *csv_prog;

/* One record of a CSV section; col[] are the indexes of its column names. */
typedef int (*csv_row_fn)(imp *m, const csv *c, const int *col, const void *arg);

/* The CSV kinds by slot of csvset (import_csv_stream's `which`). */
enum {
  K_KERNEL, K_HIP, K_HSA, K_MARKER, K_RCCL, K_COPY, K_AGENT, K_ROCDECODE,
  K_ROCJPEG, K_COUNTER, K_ALLOC, K_SCRATCH, K_API_ANY, K_V1RESULTS, K_NKINDS
};

/* CSV agent numbers -> gpu index. */
typedef struct agentmap {
  imap gpu;        /* agent number -> gpu index, -1 = CPU */
  int known;
} agentmap;

/* csvread.c: open path (or f, taken over) and read its header; the next
 * record (1, 0 at the end, -1 on an error); close. */
int csv_open(csv *c, const char *path, FILE *f);
int csv_next(csv *c);
void csv_close(csv *c);
/* csvread.c: the index of the first column named one of `names` ("A|B"),
 * -1 if none; a field's text ("" past the end); a field as an integer /
 * a double (RPD_OK, or RPD_EPARSE naming file, line and column). */
int csv_col(const csv *c, const char *names);
const char *cval(const csv *c, int col);
int cint(const csv *c, int col, int64_t *v);
int cdbl(const csv *c, int col, double *v);
/* csvread.c: every record of a file through row (see there). */
int csv_each(imp *m, const char *path, FILE *f, const char *kind,
             const char *const *names, int n, csv_row_fn row, const void *arg);

/* csv_kinds.c: agent_info.csv into am; the agents found in the kernel and
 * counter files when there is none; one file of kind `which`. */
int csv_agent_info(const char *path, FILE *f, agentmap *am);
int csv_agent_scan(char **const *files, const int *nfiles, int n, agentmap *am);
int csv_read_one(imp *m, const char *path, FILE *f, int which, agentmap *am);

#endif
