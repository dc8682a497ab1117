-- callstack.sql - views over ext_callstack (rpd-callstack, rpd-autograd).
-- Texts as the reference rocpd.call_stacks creates them.  By hand, on a
-- trace that already has ext_callstack:  sqlite3 trace.rpd < views/callstack.sql
CREATE VIEW IF NOT EXISTS callStack_inclusive as select parent_id, sum(cpu_time) as cpu_time, sum(gpu_time) as gpu_time from ext_callstack group by parent_id;
CREATE VIEW IF NOT EXISTS callStack_exclusive as select parent_id, sum(cpu_time) as cpu_time, sum(gpu_time) as gpu_time from ext_callstack where depth = 0 group by parent_id;
CREATE VIEW IF NOT EXISTS callStack_inclusive_name as select A.parent_id, B.apiName, B.args, sum(cpu_time) as cpu_time, sum(gpu_time) as gpu_time from ext_callstack A join api B on B.id = A.parent_id group by parent_id;
CREATE VIEW IF NOT EXISTS callStack_exclusive_name as select A.parent_id, B.apiName, B.args, sum(cpu_time) as cpu_time, sum(gpu_time) as gpu_time from ext_callstack A join api B on B.id = A.parent_id where A.depth = 0 group by parent_id;
