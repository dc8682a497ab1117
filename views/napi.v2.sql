-- napi: api for merged multi-node traces (schema v2: domain/category read as
-- ''; args in rocpd_string).  node = pid / pid_stride from rocpd_metadata (default 10000000).
DROP VIEW IF EXISTS napi;
CREATE VIEW napi AS SELECT rocpd_api.id,
  pid / coalesce((SELECT value FROM rocpd_metadata WHERE tag = 'pid_stride'), 10000000) AS node,
  pid % coalesce((SELECT value FROM rocpd_metadata WHERE tag = 'pid_stride'), 10000000) AS pid,
  tid % coalesce((SELECT value FROM rocpd_metadata WHERE tag = 'pid_stride'), 10000000) AS tid,
  start, "end", '' AS domain, '' AS category, C.string AS apiName, D.string AS args
  FROM rocpd_api
  JOIN rocpd_string C ON C.id = rocpd_api.apiName_id
  JOIN rocpd_string D ON D.id = rocpd_api.args_id;
