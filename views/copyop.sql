-- copyop: copies that produced a GPU op, with GPU timing.
DROP VIEW IF EXISTS copyop;
CREATE VIEW copyop AS SELECT B.id, gpuId, queueId, sequenceId, B.start, B."end",
  (B."end" - B.start) AS duration, stream, size, width, height, kind, dst, src,
  dstDevice, srcDevice, sync, pinned, E.string AS apiName
  FROM rocpd_api_ops A
  JOIN rocpd_op B ON B.id = A.op_id
  JOIN rocpd_copyapi C ON C.api_ptr_id = A.api_id
  JOIN rocpd_api D ON D.id = A.api_id
  JOIN rocpd_string E ON E.id = D.apiName_id;
