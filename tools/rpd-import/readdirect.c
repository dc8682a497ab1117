/* readdirect.c - a rocprofv3 database read as an RPD trace with no copy on
 * disk: the database reader of rpd-import (db.c) writes through the same
 * writer (writer.c) into a trace in memory (rpd_create_memory), on this
 * thread, and the tool reads that.  Registered by raptor, rpd2tracing and
 * rpd-health (rpd_set_rocprof_reader), so `raptor x.db --report` is
 * `rpd-import x.db x.rpd && raptor x.rpd --report` without the file. */
#include <stdio.h>
#include <string.h>

#include "rpd.h"
#include "check.h"
#include "import.h"
#include "readdirect.h"

int rpdi_rocprof_read(const char *path, void *arg, rpd **out)
{
  const rpdi_direct *o = arg;
  rpd *in = NULL;
  imp m;
  int rc;

  *out = NULL;
  memset(&m, 0, sizeof m);
  m.input = path;
  m.lean = o && o->lean;
  rc = rpd_open(&in, path, NULL, RPD_READ | RPD_ANYDB);
  /* a streaming read: a small page cache */
  if (!rc)
    rc = rpd_profile(in, RPD_OPEN_SCAN);
  if (!rc)
    rc = rpd_create_memory(&m.r, path);
  if (!rc)
    rc = rpd_begin(m.r);
  if (!rc)
    rc = w_prepare(&m);
  if (!rc)
    rc = import_db_handle(&m, in);
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
  if (in)
    rpd_close(in, 0);
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
    return rpd_seterr(rc, "%s", msg);
  }
  *out = m.r;
  return RPD_OK;
}
