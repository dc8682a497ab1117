-- napi: api for merged multi-node traces: node = pid / pid_stride, and pid
-- and tid reduced modulo pid_stride (rocpd_metadata;
-- 10000000 when the tag is absent).
DROP VIEW IF EXISTS napi;
CREATE VIEW napi AS SELECT rocpd_api.id,
  pid / coalesce((SELECT value FROM rocpd_metadata WHERE tag = 'pid_stride'), 10000000) AS node,
  pid % coalesce((SELECT value FROM rocpd_metadata WHERE tag = 'pid_stride'), 10000000) AS pid,
  tid % coalesce((SELECT value FROM rocpd_metadata WHERE tag = 'pid_stride'), 10000000) AS tid,
  start, "end", A.string AS domain, B.string AS category, C.string AS apiName,
  D.string AS args
  FROM rocpd_api
  JOIN rocpd_string A ON A.id = rocpd_api.domain_id
  JOIN rocpd_string B ON B.id = rocpd_api.category_id
  JOIN rocpd_string C ON C.id = rocpd_api.apiName_id
  JOIN rocpd_ustring D ON D.id = rocpd_api.args_id;
