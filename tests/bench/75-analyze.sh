#!/bin/sh
# tests/bench/75-analyze.sh - rpd-analyze on both trace shapes (benchlib.sh
# BENCH_SHAPES: rpd-synth's default, and rows in completion order by 4
# threads with 24-layer models) at 1x ($BENCH_ROWS/4 api rows) and 4x
# ($BENCH_ROWS): secs, CPU secs, peak RSS, the 4x/1x CPU ratio (linear:
# about 4) and RSS growth (flat: about 1), against two floors, CPU seconds
# of the same run: the scans, one bare scan of each table it reads
# (rocpd_api, rocpd_op, rocpd_api_ops, rocpd_copyapi; every column the tool
# reads, no ORDER BY: the tool reads rocpd_op in rowid order), and the
# scans plus the writes its output needs: the same rows of every
# ext_analysis_* table (the 4x run's, ~850k queue-depth rows at 1M calls)
# copied into tables of the same definition with one INSERT ... SELECT per
# table naming the columns (a bare SELECT * into an empty table of the same
# shape is SQLite's transfer optimization, a copy of the stored records that
# no writer of new rows can do: 0.06 instead of 0.13 CPU s at 1M calls),
# the findings numbered by SQLite as the tool's are, in one
# transaction; then raptor --report of the analysed 4x synth trace (its
# analysis_* tables).
. "$(cd "$(dirname "$0")" && pwd)/../benchlib.sh"
q_rows=$((BENCH_ROWS / 4))
w="$BENCHDIR/analyze-work.rpd"
built="$BENCHDIR/analyze-built.rpd"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "inf" }'; }
floor_sql='SELECT count(*), total(start), total("end"), total(apiName_id + tid) FROM rocpd_api;
  SELECT count(*), total(start), total("end"), total(gpuId + queueId + opType_id + description_id) FROM rocpd_op;
  SELECT count(*), total(api_id + op_id) FROM rocpd_api_ops;
  SELECT count(*), total(size) FROM rocpd_copyapi;'

for shape in $BENCH_SHAPES; do
  if [ "$shape" = synth ]; then
    t1=$(bench_trace "synth-$q_rows" --seed 1 --api "$q_rows" --gpus 2) &&
      t4=$(bench_trace "synth-$BENCH_ROWS" --seed 1 --api "$BENCH_ROWS" --gpus 2) ||
      { echo "BENCH analyze FAILED (rpd-synth)"; exit 1; }
  else
    # shellcheck disable=SC2046
    t1=$(bench_trace "cs-$shape-$q_rows" --seed 1 --api "$q_rows" --gpus 2 --schema 3 \
      $(bench_shape_args "$shape")) &&
      t4=$(bench_trace "cs-$shape-$BENCH_ROWS" --seed 1 --api "$BENCH_ROWS" --gpus 2 --schema 3 \
        $(bench_shape_args "$shape")) || { echo "BENCH analyze FAILED (rpd-synth $shape)"; exit 1; }
  fi
  L="[$shape]"
  # the trace read once first, so the floor's scans and the tool both find
  # it in the page cache (a 4 GB trace generated or read long before is
  # not: the floor then measured the disk)
  cat "$t4" >/dev/null
  measure "analyze-floor(table scans, 4x) $L" "$BENCH_ROWS" sqlite3 "$t4" "$floor_sql"
  floor_cpu=$MEASURED_CPU
  fresh "$t1" "$w"
  measure "rpd-analyze(1x) $L" "$q_rows" rpd-analyze "$w" || exit 1
  c1=$MEASURED_CPU; r1=$_rss
  fresh "$t4" "$w"
  measure "rpd-analyze(4x) $L" "$BENCH_ROWS" rpd-analyze "$w" || exit 1
  c4=$MEASURED_CPU; r4=$_rss
  echo "BENCH rpd-analyze $L linearity: 4x the rows takes $(ratio "$c4" "$c1")x the CPU time; peak_rss_kb 1x=$r1 4x=$r4 growth=$(ratio "$r4" "$r1")x"
  # the writes: the 4x run's ext_analysis_* rows into tables of the same
  # definition (renamed), one INSERT ... SELECT each
  cp "$w" "$built"
  { echo "PRAGMA cache_size=-65536; BEGIN;"
    sqlite3 "$built" "SELECT replace(sql, 'ext_analysis_', 'floor_analysis_') || ';' FROM sqlite_master
      WHERE type = 'table' AND name LIKE 'ext_analysis_%' ORDER BY name"
    sqlite3 "$built" "SELECT 'INSERT INTO floor_' || substr(m.name, 5) || ' SELECT '
      || (SELECT group_concat(CASE WHEN c.name = 'id' THEN 'NULL' ELSE c.name END, ', ')
          FROM pragma_table_info(m.name) c) || ' FROM ' || m.name || ';'
      FROM sqlite_master m WHERE m.type = 'table' AND m.name LIKE 'ext_analysis_%' ORDER BY m.name"
    echo "COMMIT;"; } >"$BENCHDIR/analyze-writes.sql"
  out_rows=$(sqlite3 "$built" "SELECT (SELECT count(*) FROM ext_analysis_queue_depth)
    + (SELECT count(*) FROM ext_analysis_launch) + (SELECT count(*) FROM ext_analysis_findings)
    + (SELECT count(*) FROM ext_analysis_idle) + (SELECT count(*) FROM ext_analysis_overlap)
    + (SELECT count(*) FROM ext_analysis_memcpy) + (SELECT count(*) FROM ext_analysis_rules)")
  measure "analyze-floor(writes, 4x) $L" "$out_rows" sh -c 'sqlite3 "$1" <"$0"' \
    "$BENCHDIR/analyze-writes.sql" "$built"
  writes_cpu=$MEASURED_CPU
  both_cpu=$(awk -v a="$floor_cpu" -v b="$writes_cpu" 'BEGIN { printf "%.2f", a + b }')
  echo "BENCH rpd-analyze $L ratio to its floor (one scan per table, cpu, 4x): $(ratio "$c4" "$floor_cpu")x (floor $floor_cpu s)"
  echo "BENCH rpd-analyze $L ratio to its floor with the writes (scans + $out_rows output rows, cpu, 4x): $(ratio "$c4" "$both_cpu")x (floor $both_cpu s)"
  if [ "$shape" = synth ]; then
    rm -rf "$BENCHDIR/report-analysis"
    measure "raptor --report with analysis_*(4x)" "$BENCH_ROWS" raptor "$w" --report -q \
      --csv-dir "$BENCHDIR/report-analysis" --html "$BENCHDIR/report-analysis.html" || exit 1
    rm -rf "$BENCHDIR/report-analysis" "$BENCHDIR/report-analysis.html"
  fi
done
rm -f "$w" "$built" "$BENCHDIR/analyze-writes.sql"
