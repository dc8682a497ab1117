-- top: GPU work (ops of class kernel or copy in view opClass) by total
-- time, named by description (or by opType when the description is empty,
-- e.g. copies).  Durations in microseconds; Percentage of all GPU work time.
DROP VIEW IF EXISTS top;
CREATE VIEW top AS SELECT C.string AS Name, count(C.string) AS TotalCalls,
  sum(A."end" - A.start) / 1000 AS TotalDuration_us,
  (sum(A."end" - A.start) / count(C.string)) / 1000.0 AS Ave_us,
  sum(A."end" - A.start) * 100.0 / (SELECT sum("end" - start) FROM rocpd_op
      WHERE opType_id IN (SELECT opType_id FROM opClass WHERE class IN ('kernel', 'copy')))
    AS Percentage
  FROM (SELECT CASE WHEN D.string = '' THEN O.opType_id ELSE O.description_id END AS name_id,
          O.start, O."end" FROM rocpd_op O JOIN rocpd_string D ON D.id = O.description_id
          WHERE O.opType_id IN (SELECT opType_id FROM opClass WHERE class IN ('kernel', 'copy'))) A
  JOIN rocpd_string C ON C.id = A.name_id
  GROUP BY Name ORDER BY TotalDuration_us DESC;
