-- busy: per GPU, the summed op time, the wall time of all ops, and their ratio.
DROP VIEW IF EXISTS busy;
CREATE VIEW busy AS SELECT A.gpuId, GpuTime, WallTime, GpuTime * 1.0 / WallTime AS Busy
  FROM (SELECT gpuId, sum("end" - start) AS GpuTime FROM rocpd_op GROUP BY gpuId) A
  JOIN (SELECT max("end") - min(start) AS WallTime FROM rocpd_op);
