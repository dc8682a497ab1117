-- api: rocpd_api with its strings expanded (schema v3).
DROP VIEW IF EXISTS api;
CREATE VIEW api AS SELECT rocpd_api.id, pid, tid, start, "end",
  A.string AS domain, B.string AS category, C.string AS apiName, D.string AS args
  FROM rocpd_api
  JOIN rocpd_string A ON A.id = rocpd_api.domain_id
  JOIN rocpd_string B ON B.id = rocpd_api.category_id
  JOIN rocpd_string C ON C.id = rocpd_api.apiName_id
  JOIN rocpd_ustring D ON D.id = rocpd_api.args_id;
