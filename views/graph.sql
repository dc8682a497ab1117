-- graph.sql - tables and views of rpd-graph (same text for schema v2 and v3).
-- ext_graph: one row per captured graph and instantiation; the rows are
-- filled by rpd-graph.  graphLaunch / graphKernel: the reference's views,
-- durations in integer microseconds (SQLite integer division).
CREATE TABLE "ext_graph" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "graph" varchar(18) NOT NULL, "graphExec" varchar(18) NOT NULL, "stream" varchar(18) NOT NULL, "start" integer NOT NULL, "end" integer NOT NULL);
CREATE TABLE "ext_graph_kernelapis" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "graph_id" integer NOT NULL REFERENCES "ext_graph" ("id") DEFERRABLE INITIALLY DEFERRED, "api_id" integer NOT NULL REFERENCES "rocpd_api" ("id") DEFERRABLE INITIALLY DEFERRED, "sequence" integer NOT NULL);

-- One row per graph launch: api time, first op start to last op end, and the
-- sum of the op durations (each truncated to whole microseconds first).
CREATE VIEW graphLaunch AS
SELECT B.id, B.pid, B.tid, E.string AS apiName, A.graphExec, A.stream,
       D.gpuId, D.queueId,
       (B."end" - B.start) / 1000 AS apiDuration_usec,
       (max(D."end") - min(D.start)) / 1000 AS opDuration_usec,
       sum((D."end" - D.start) / 1000) AS gpuTime_usec
  FROM rocpd_graphLaunchapi A
  JOIN rocpd_api B ON B.id = A.api_ptr_id
  JOIN rocpd_api_ops C ON C.api_id = A.api_ptr_id
  JOIN rocpd_op D ON D.id = C.op_id
  JOIN rocpd_string E ON E.id = B.apiName_id
 GROUP BY B.id;

-- The kernels of each instantiated graph in capture order.
CREATE VIEW graphKernel AS
SELECT B.graphExec, A.sequence, D.string AS kernelName,
       C.gridX, C.gridY, C.gridZ, C.workgroupX, C.workgroupY, C.workgroupZ,
       C.groupSegmentSize, C.privateSegmentSize
  FROM ext_graph_kernelapis A
  JOIN ext_graph B ON B.id = A.graph_id
  JOIN rocpd_kernelapi C ON C.api_ptr_id = A.api_id
  JOIN rocpd_string D ON D.id = C.kernelName_id;
