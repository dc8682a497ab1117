-- kernel: each kernel op with the launch parameters of the api call that
-- launched it (rocpd_kernelapi), GPU timing.
DROP VIEW IF EXISTS kernel;
CREATE VIEW kernel AS SELECT B.id, gpuId, queueId, sequenceId, start, "end",
  ("end" - start) AS duration, stream, gridX, gridY, gridZ,
  workgroupX, workgroupY, workgroupZ, groupSegmentSize, privateSegmentSize,
  D.string AS kernelName
  FROM rocpd_api_ops A
  JOIN rocpd_op B ON B.id = A.op_id
  JOIN rocpd_kernelapi C ON C.api_ptr_id = A.api_id
  JOIN rocpd_string D ON D.id = C.kernelName_id;
