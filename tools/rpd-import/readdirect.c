/* readdirect.c - a file rpd-import reads, read as an RPD trace with no
 * copy on disk: a rocprofv3 database (db.c) or a PyTorch profiler
 * (Kineto) trace (kineto.c) is imported through the same writer
 * (writer.c) into a trace in memory (rpd_create_memory), and the tool
 * reads that.  Registered by the read-only tools (rpd_set_import_reader),
 * so `raptor x.db --report` is `rpd-import x.db x.rpd && raptor x.rpd
 * --report` without the file, and `raptor T.json.gz --report` is the same
 * with rpd-perfmodel's model run in between. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "rpd.h"
#include "check.h"
#include "import.h"
#include "perfmodel.h"
#include "pipe.h"
#include "readdirect.h"

enum { DIRECT_NONE, DIRECT_DB, DIRECT_KINETO };

/* What the regular file at path is to this reader: an SQLite file (plain
 * or gzip; rpd_open sent it here as a rocprofv3 database), a Kineto
 * trace, or neither. */
static int direct_kind(const char *path)
{
  static const char magic[16] = "SQLite format 3";
  unsigned char h[16];
  struct stat st;
  gzFile gz;
  int n;

  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !(gz = gzopen(path, "rb")))
    return DIRECT_NONE;
  n = gzread(gz, h, sizeof h);
  gzclose(gz);
  if (n == (int)sizeof h && !memcmp(h, magic, sizeof h))
    return DIRECT_DB;
  return n > 0 && rpd_kineto_file(path) ? DIRECT_KINETO : DIRECT_NONE;
}

/* The rocprofv3 database at path (read only) into m->r. */
static int read_db(imp *m, const char *path)
{
  rpd *in = NULL;
  int rc = rpd_open(&in, path, NULL, RPD_READ | RPD_ANYDB);
  /* a streaming read: a small page cache */
  if (!rc)
    rc = rpd_profile(in, RPD_OPEN_SCAN);
  if (!rc)
    rc = import_db_handle(m, in);
  if (in)
    rpd_close(in, 0);
  return rc;
}

/* The Kineto trace at path into m->r, with rpd-import's writer thread
 * beside the parser (the same rows and ids as on one thread). */
static int read_kineto(imp *m, const char *path)
{
  int rc = pipe_begin(m);
  if (!rc)
    rc = import_kineto(m, path);
  return pipe_end(m, rc);
}

/* rpd-perfmodel's model, as the augmenter writes it with its defaults
 * (the peaks of the trace's device), in its own transaction. */
static int model(rpd *r)
{
  /* lean: the report reads the modelled rows only */
  rpd_perf_run run = {.lean = 1};
  int rc = rpd_begin(r);
  if (!rc)
    rc = rpd_perf_write(r, &run);
  if (!rc)
    rc = rpd_meta_set(r, "PerfModel::Generated", "True");
  if (!rc)
    rc = rpd_commit(r);
  return rc;
}

int rpdi_direct_read(const char *path, void *arg, rpd **out)
{
  const rpdi_direct *o = arg;
  int kind = direct_kind(path), rc;
  imp m;

  *out = NULL;
  if (kind == DIRECT_NONE)
    return RPD_ENOTDB;
  memset(&m, 0, sizeof m);
  m.input = path;
  m.lean = o ? o->lean : 0;
  rc = rpd_create_memory(&m.r, path);
  if (!rc)
    rc = rpd_begin(m.r);
  if (!rc)
    rc = w_prepare(&m);
  if (!rc)
    rc = kind == DIRECT_DB ? read_db(&m, path) : read_kineto(&m, path);
  if (!rc)
    rc = w_flush(&m);
  if (!rc)
    rc = w_finish(&m);
  w_finalize(&m);
  if (!rc)
    rc = rpd_commit(m.r);
  /* rows rpd-import would refuse: the same message (rpd_check_trace);
   * else the writer checked every row, and the tool's check is free */
  if (!rc && m.n_bad_rows)
    rc = rpd_check_trace(m.r);
  else if (!rc)
    rpd_check_mark_passed(m.r);
  /* the model writes ext_perf_op and metadata only: the rows checked
   * above are as they were */
  if (!rc && kind == DIRECT_KINETO && m.n_shaped && o && o->model &&
      !(rc = model(m.r)))
    rpd_check_mark_passed(m.r);
  if (rc) {
    /* rpd_open said it is a rocprofv3 database: one that lacks a table
     * is an incomplete one (rpd-import refuses it for the same reason) */
    static const char notdb[] = "not a rocprofv3 database: ";
    const char *e = rpd_errmsg();
    char msg[2048];
    if (!strncmp(e, notdb, sizeof notdb - 1) && strstr(e, "no table"))
      snprintf(msg, sizeof msg, "incomplete rocprofv3 database: %s", e + sizeof notdb - 1);
    else
      snprintf(msg, sizeof msg, "%s", e);
    if (m.r) {
      rpd_rollback(m.r);
      rpd_close(m.r, 0);
    }
    /* a Kineto trace that fails to parse is still a failure, never "not
     * mine": its message is the import's */
    if (rc == RPD_ENOTDB && kind == DIRECT_KINETO)
      rc = RPD_EPARSE;
    return rpd_seterr(rc, "%s", msg);
  }
  *out = m.r;
  return RPD_OK;
}
