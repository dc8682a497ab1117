-- op: rocpd_op with description and opType expanded (v2 and v3).
DROP VIEW IF EXISTS op;
CREATE VIEW op AS SELECT rocpd_op.id, gpuId, queueId, sequenceId, start, "end",
  A.string AS description, B.string AS opType
  FROM rocpd_op
  JOIN rocpd_string A ON A.id = rocpd_op.description_id
  JOIN rocpd_string B ON B.id = rocpd_op.opType_id;
