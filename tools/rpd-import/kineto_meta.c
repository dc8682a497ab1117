/* kineto_meta.c - rpd-import, Kineto: the trace's top-level keys into
 * rocpd_metadata (kineto::KEY as JSON text, clock_offset_ns, and the
 * devices and ranks derived from them) and the DDL of ext_kineto_event,
 * where the args of the events without an RPD column are kept. */
#include <stdio.h>
#include <string.h>

#include "kineto.h"
#include "pipe.h"

const char kineto_ext_ddl[] =
  "CREATE TABLE IF NOT EXISTS ext_kineto_event ("
  " id INTEGER PRIMARY KEY, cat TEXT NOT NULL, name TEXT NOT NULL,"
  " pid INTEGER NOT NULL, tid INTEGER NOT NULL, start INTEGER NOT NULL,"
  " end INTEGER NOT NULL, api_id INTEGER, op_id INTEGER, args TEXT NOT NULL);"
  "CREATE VIEW IF NOT EXISTS kineto_op_args AS SELECT api_id, name,"
  " json_extract(args, '$.\"External id\"') AS external_id,"
  " json_extract(args, '$.\"Sequence number\"') AS seq,"
  " json_extract(args, '$.\"Input Dims\"') AS input_dims,"
  " json_extract(args, '$.\"Input type\"') AS input_types,"
  " json_extract(args, '$.\"Input Strides\"') AS input_strides,"
  " json_extract(args, '$.\"Concrete Inputs\"') AS concrete_inputs,"
  " start, end FROM ext_kineto_event WHERE cat = 'cpu_op';"
  "CREATE VIEW IF NOT EXISTS kineto_collective AS SELECT id, cat, name, api_id, op_id,"
  " pid, tid, start, end,"
  " json_extract(args, '$.\"Collective name\"') AS collective,"
  " json_extract(args, '$.\"Group size\"') AS group_size,"
  " json_extract(args, '$.dtype') AS dtype,"
  " json_extract(args, '$.\"In msg nelems\"') AS in_nelems,"
  " json_extract(args, '$.\"Out msg nelems\"') AS out_nelems,"
  " json_extract(args, '$.\"Process Group Name\"') AS pg_name,"
  " json_extract(args, '$.\"Process Group Description\"') AS pg_desc,"
  " json_extract(args, '$.\"Process Group Ranks\"') AS pg_ranks"
  " FROM ext_kineto_event WHERE json_extract(args, '$.\"Collective name\"') IS NOT NULL"
  " OR name = 'record_param_comms';";

/* A top-level value closed (or a scalar one read): metadata. */
int kineto_meta_end(kstate *k)
{
  imp *m = k->m;
  char tag[96];
  const char *key = k->topkey, *v = k->meta.s ? k->meta.s : "";
  int rc = RPD_OK;
  if (!strcmp(key, "baseTimeNanoseconds") && k->meta.len > 0 && k->meta.len <= 19 &&
      strspn(v, "0123456789") == k->meta.len) {
    /* absolute ns = start + base: rpd-merge's --align meta shift */
    rc = w_meta_add(m, "clock_offset_ns", v);
  }
  snprintf(tag, sizeof tag, "kineto::%s", key);
  if (!rc)
    rc = w_meta_add(m, tag, v);
  return rc;
}

/* Devices and ranks from the metadata kept as JSON (SQLite's json1):
 * kineto::gpu.N.name / .cus / .memory, rank, world_size. */
int kineto_meta_derived(imp *m)
{
  static const char sql[] =
    "INSERT INTO rocpd_metadata(tag, value)"
    " SELECT 'kineto::gpu.' || json_extract(D.value, '$.id') || '.' || F.k,"
    "   json_extract(D.value, '$.' || F.f)"
    " FROM rocpd_metadata M, json_each(M.value) D,"
    "  (SELECT 'name' AS k, 'name' AS f UNION ALL SELECT 'cus', 'numSms'"
    "   UNION ALL SELECT 'memory', 'totalGlobalMem') F"
    " WHERE M.tag = 'kineto::deviceProperties' AND json_valid(M.value)"
    "  AND json_type(M.value) = 'array' AND json_type(D.value) = 'object'"
    "  AND json_extract(D.value, '$.' || F.f) IS NOT NULL;"
    "INSERT INTO rocpd_metadata(tag, value)"
    " SELECT F.tag, json_extract(M.value, '$.' || F.f)"
    " FROM rocpd_metadata M, (SELECT 'rank' AS tag, 'rank' AS f"
    "  UNION ALL SELECT 'world_size', 'world_size'"
    "  UNION ALL SELECT 'kineto::backend', 'backend') F"
    " WHERE M.tag = 'kineto::distributedInfo' AND json_valid(M.value)"
    "  AND json_type(M.value) = 'object'"
    "  AND json_extract(M.value, '$.' || F.f) IS NOT NULL;";
  int rc = pipe_pause(m);
  if (!rc)
    rc = rpd_exec(m->r, sql);
  pipe_resume(m);
  return rc;
}

