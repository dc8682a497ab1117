-- top: GPU ops by total time, named by description (or by opType when the
-- description is empty, e.g. copies).  Durations in microseconds.
DROP VIEW IF EXISTS top;
CREATE VIEW top AS SELECT C.string AS Name, count(C.string) AS TotalCalls,
  sum(A."end" - A.start) / 1000 AS TotalDuration_us,
  (sum(A."end" - A.start) / count(C.string)) / 1000.0 AS Ave_us,
  sum(A."end" - A.start) * 100.0 / (SELECT sum("end" - start) FROM rocpd_op) AS Percentage
  FROM (SELECT opType_id AS name_id, start, "end" FROM rocpd_op
          WHERE description_id IN (SELECT id FROM rocpd_string WHERE string = '')
        UNION
        SELECT description_id, start, "end" FROM rocpd_op
          WHERE description_id NOT IN (SELECT id FROM rocpd_string WHERE string = '')) A
  JOIN rocpd_string C ON C.id = A.name_id
  GROUP BY Name ORDER BY TotalDuration_us DESC;
