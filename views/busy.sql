-- busy: per GPU, the GPU work (ops of class kernel or copy, view opClass):
-- GpuTime = summed op time, BusyTime = time covered by at least one op
-- (interval union), WallTime = first start to last end of all GPU work,
-- Busy = BusyTime / WallTime.  Times in ns.
DROP VIEW IF EXISTS busy;
CREATE VIEW busy AS
  WITH work AS (
    SELECT gpuId, start, "end" FROM rocpd_op
      WHERE opType_id IN (SELECT opType_id FROM opClass WHERE class IN ('kernel', 'copy'))),
  ordered AS (
    SELECT gpuId, start, "end", max("end") OVER (PARTITION BY gpuId ORDER BY start, "end"
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach FROM work),
  pergpu AS (
    SELECT gpuId, sum(max("end" - start, 0)) AS GpuTime,
      sum(CASE WHEN reach IS NULL OR start >= reach THEN max("end" - start, 0)
               WHEN "end" > reach THEN "end" - reach ELSE 0 END) AS BusyTime
      FROM ordered GROUP BY gpuId)
  SELECT pergpu.gpuId, GpuTime, BusyTime, WallTime, BusyTime * 1.0 / WallTime AS Busy
    FROM pergpu JOIN (SELECT max("end") - min(start) AS WallTime FROM work);
