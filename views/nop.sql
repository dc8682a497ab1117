-- nop: op for merged multi-node traces: node = gpuId / gpu_stride, gpuId and
-- queueId reduced modulo gpu_stride (rocpd_metadata;
-- 1000 when the tag is absent).
DROP VIEW IF EXISTS nop;
CREATE VIEW nop AS SELECT rocpd_op.id,
  gpuId / coalesce((SELECT value FROM rocpd_metadata WHERE tag = 'gpu_stride'), 1000) AS node,
  gpuId % coalesce((SELECT value FROM rocpd_metadata WHERE tag = 'gpu_stride'), 1000) AS gpuId,
  queueId % coalesce((SELECT value FROM rocpd_metadata WHERE tag = 'gpu_stride'), 1000) AS queueId,
  sequenceId, start, "end", A.string AS description, B.string AS opType
  FROM rocpd_op
  JOIN rocpd_string A ON A.id = rocpd_op.description_id
  JOIN rocpd_string B ON B.id = rocpd_op.opType_id;
