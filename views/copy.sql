-- copy: every copy api call with its parameters, CPU timing.
DROP VIEW IF EXISTS copy;
CREATE VIEW copy AS SELECT B.id, pid, tid, start, "end", C.string AS apiName,
  stream, size, width, height, kind, dst, src, dstDevice, srcDevice, sync, pinned
  FROM rocpd_copyapi A
  JOIN rocpd_api B ON B.id = A.api_ptr_id
  JOIN rocpd_string C ON C.id = B.apiName_id;
