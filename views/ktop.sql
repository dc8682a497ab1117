-- ktop: kernels (ops of class 'kernel' in view opClass: KernelExecution,
-- Task for kernels run by graph launches, ...) by total GPU time; copies
-- and barriers are left out.  Durations in microseconds; Percentage of all
-- kernel time.
DROP VIEW IF EXISTS ktop;
CREATE VIEW ktop AS SELECT C.string AS Name, count(*) AS TotalCalls,
  sum(A."end" - A.start) / 1000 AS TotalDuration_us,
  (sum(A."end" - A.start) / count(*)) / 1000.0 AS Ave_us,
  sum(A."end" - A.start) * 100.0 / (SELECT sum("end" - start) FROM rocpd_op
      WHERE opType_id IN (SELECT opType_id FROM opClass WHERE class = 'kernel'))
    AS Percentage
  FROM rocpd_op A
  JOIN rocpd_string C ON C.id = A.description_id
  WHERE A.opType_id IN (SELECT opType_id FROM opClass WHERE class = 'kernel')
  GROUP BY Name ORDER BY TotalDuration_us DESC;
