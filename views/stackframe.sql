-- stackframe: the recorded host stack of each api call (RPDT_STACKFRAMES=1),
-- one row per frame; depth 0 is the innermost frame.
DROP VIEW IF EXISTS stackframe;
CREATE VIEW stackframe AS SELECT B.id, C.string AS apiName, A.depth, D.string AS name
  FROM rocpd_stackframe A
  JOIN rocpd_api B ON B.id = A.api_ptr_id
  JOIN rocpd_string C ON C.id = B.apiName_id
  JOIN rocpd_string D ON D.id = A.name_id;
