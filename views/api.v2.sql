-- api: rocpd_api with its strings expanded (schema v2: no domain/category
-- columns, so they read as ''; args are interned in rocpd_string).
DROP VIEW IF EXISTS api;
CREATE VIEW api AS SELECT rocpd_api.id, pid, tid, start, "end",
  '' AS domain, '' AS category, C.string AS apiName, D.string AS args
  FROM rocpd_api
  JOIN rocpd_string C ON C.id = rocpd_api.apiName_id
  JOIN rocpd_string D ON D.id = rocpd_api.args_id;
