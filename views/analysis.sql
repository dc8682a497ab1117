-- analysis: the tables and views rpd-analyze writes (docs/rpd-analyze.md).
-- Every time is integer ns unless the column name says otherwise.
-- Executed by rpd-analyze before it fills the tables; usable by hand to
-- create the empty layout: sqlite3 trace.rpd < views/analysis.sql
DROP VIEW IF EXISTS ext_analysis_idle_pct;
DROP VIEW IF EXISTS ext_analysis_queue;
DROP TABLE IF EXISTS ext_analysis_rules;
DROP TABLE IF EXISTS ext_analysis_idle;
DROP TABLE IF EXISTS ext_analysis_launch;
DROP TABLE IF EXISTS ext_analysis_queue_depth;
DROP TABLE IF EXISTS ext_analysis_overlap;
DROP TABLE IF EXISTS ext_analysis_memcpy;
DROP TABLE IF EXISTS ext_analysis_findings;
-- the rules of the findings (data: thresholds are the values used)
CREATE TABLE ext_analysis_rules (rule TEXT PRIMARY KEY, severity TEXT,
  threshold REAL, unit TEXT, window_us REAL, min_count INTEGER,
  description TEXT, advice TEXT);
-- per GPU: span (first op start .. last op end of GPU work), busy (union of
-- kernel+copy ops), idle = span - busy = host_wait + kernel_wait + other
CREATE TABLE ext_analysis_idle (gpuId INTEGER PRIMARY KEY, span_ns INTEGER,
  busy_ns INTEGER, idle_ns INTEGER, host_wait_ns INTEGER,
  kernel_wait_ns INTEGER, other_ns INTEGER, gaps INTEGER);
-- per kernel name: api duration, launch delay (api start -> op start) and
-- GPU duration: mean, median, p95 (nearest rank), max; outliers = dispatches
-- longer than 3x the median GPU duration; launch_bound = mean GPU duration
-- below the mean api duration
CREATE TABLE ext_analysis_launch (kernel TEXT, count INTEGER,
  api_mean_ns REAL, api_median_ns INTEGER, api_p95_ns INTEGER, api_max_ns INTEGER,
  delay_mean_ns REAL, delay_median_ns INTEGER, delay_p95_ns INTEGER, delay_max_ns INTEGER,
  gpu_mean_ns REAL, gpu_median_ns INTEGER, gpu_p95_ns INTEGER, gpu_max_ns INTEGER,
  outliers INTEGER, launch_bound INTEGER);
-- per GPU queue: the number of ops launched and not finished, from time_ns
-- until the next row of the same queue
CREATE TABLE ext_analysis_queue_depth (gpuId INTEGER, queueId INTEGER,
  time_ns INTEGER, depth INTEGER);
-- per GPU: communication kernels (nccl/rccl/all-reduce/all-gather/
-- reduce-scatter names), compute (other kernels), their overlap; copies
-- and the part of copy time no kernel overlaps
CREATE TABLE ext_analysis_overlap (gpuId INTEGER PRIMARY KEY, comm_ns INTEGER,
  compute_ns INTEGER, overlap_ns INTEGER, exposed_comm_ns INTEGER,
  copy_ns INTEGER, exposed_copy_ns INTEGER);
-- memcpy bandwidth by direction and size bucket (sizes from rocpd_copyapi)
CREATE TABLE ext_analysis_memcpy (direction TEXT, size_bucket TEXT,
  count INTEGER, bytes INTEGER, gpu_ns INTEGER, gbps REAL);
-- one row per hit of a rule; value in the unit value_unit says (it
-- differs by rule: total call time, gap length, mean percent, mean time)
CREATE TABLE ext_analysis_findings (id INTEGER PRIMARY KEY, rule TEXT,
  severity TEXT, gpuId INTEGER, tid INTEGER, start_ns INTEGER, end_ns INTEGER,
  count INTEGER, value REAL, value_unit TEXT, detail TEXT, advice TEXT);
CREATE VIEW ext_analysis_idle_pct AS SELECT gpuId,
  round(100.0 * busy_ns / nullif(span_ns, 0), 2) AS busy_pct,
  round(100.0 * host_wait_ns / nullif(idle_ns, 0), 2) AS host_wait_pct_of_idle,
  round(100.0 * kernel_wait_ns / nullif(idle_ns, 0), 2) AS kernel_wait_pct_of_idle,
  round(100.0 * other_ns / nullif(idle_ns, 0), 2) AS other_pct_of_idle
  FROM ext_analysis_idle;
CREATE VIEW ext_analysis_queue AS SELECT gpuId, queueId, count(*) AS points,
  max(depth) AS max_depth, min(time_ns) AS first_ns, max(time_ns) AS last_ns
  FROM ext_analysis_queue_depth GROUP BY gpuId, queueId;
