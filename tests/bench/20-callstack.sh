#!/bin/sh
# rpd-callstack / rpd-autograd / rpd-strings on generated traces of
# $BENCH_ROWS api rows (schema 3, 2 GPUs) of both shapes (benchlib.sh
# BENCH_SHAPES: rpd-synth's default, and rows stored in completion order by
# 4 threads with 24-layer models), against the SQLite floor of the call
# stack: the bare scans rpd-callstack needs, with no ORDER BY (the calls;
# the op links joined to their ops), reading every column the tool reads (a
# subquery's unused columns are never decoded: the old floor read `end`
# only, 0.05 CPU s per million calls less), plus inserting the same
# ext_callstack rows with one INSERT ... SELECT, SQLite numbering them as it
# does for the tool (same ids, 1..N: a `SELECT *` that copies the ids costs
# a uniqueness seek per row, 0.1-0.15 CPU s per million rows more than the
# tool pays).  Every figure is the median of $BENCH_REPEAT (default 3)
# back-to-back runs on a fresh copy, wall and CPU (user + sys: steadier on a
# shared machine).  When the reference's Python modules are there
# (benchlib.sh bench_ref_python: $RPD_REF_PYTHON or the rocmProfileData
# mirror) rocpd.call_stacks and rocpd.autograd run on the same trace in the
# same run ($BENCH_REF_REPEAT runs, default 1) and the speedups printed are
# of that run.  rpd-autograd's floor is the call stack's plus reading its
# marker calls and inserting the same ext_autogradapi rows.
. "$(cd "$(dirname "$0")" && pwd)/../benchlib.sh"

w="$BENCHDIR/cs-work.rpd"
built="$BENCHDIR/cs-built.rpd"
REPEAT=${BENCH_REPEAT:-3}
REF=$(bench_ref_python)
[ -n "$REF" ] && [ -x /usr/bin/python3 ] ||
  { echo "BENCH reference rocpd modules skipped (set RPD_REF_PYTHON or provide the rocmProfileData mirror)"; REF=; }

# timed LABEL ROWS SRC CMD...: run CMD with a fresh copy of SRC appended,
# REPEAT times; print the medians and set T_WALL, T_CPU.
timed() {
  _label=$1; _rows=$2; _src=$3; shift 3
  : >"$BENCHDIR/.runs.$$"
  _i=0
  while [ "$_i" -lt "$REPEAT" ]; do
    fresh "$_src" "$w"
    sync
    if ! /usr/bin/time -f "%e %U %S %M" -o "$BENCHDIR/.t.$$" "$@" "$w" \
        >/dev/null 2>"$BENCHDIR/.err.$$"; then
      echo "BENCH $_label FAILED: $(head -c 300 "$BENCHDIR/.err.$$")"
      rm -f "$BENCHDIR/.t.$$" "$BENCHDIR/.err.$$" "$BENCHDIR/.runs.$$"
      return 1
    fi
    tail -n 1 "$BENCHDIR/.t.$$" >>"$BENCHDIR/.runs.$$"
    _i=$((_i + 1))
  done
  T_WALL=$(awk '{print $1}' "$BENCHDIR/.runs.$$" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  T_CPU=$(awk '{printf "%.2f\n", $2 + $3}' "$BENCHDIR/.runs.$$" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  _rss=$(awk '$4 > m {m = $4} END {print m}' "$BENCHDIR/.runs.$$")
  awk -v l="$_label" -v r="$_rows" -v s="$T_WALL" -v c="$T_CPU" -v k="$_rss" -v n="$REPEAT" \
    'BEGIN { printf "BENCH %s rows=%d secs=%s cpu_secs=%s rows/s=%.0f peak_rss_kb=%s (median of %d)\n", l, r, s, c, (s > 0 ? r / s : 0), k, n }'
  rm -f "$BENCHDIR/.t.$$" "$BENCHDIR/.err.$$" "$BENCHDIR/.runs.$$"
}

ratio() {  # ratio LABEL A B: A / B
  awk -v l="$1" -v a="$2" -v b="$3" 'BEGIN { printf "BENCH %s=%.2f\n", l, (b > 0 ? a / b : 0) }'
}
add() { awk -v a="$1" -v b="$2" 'BEGIN { print a + b }'; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { print a - b }'; }

cat >"$BENCHDIR/cs-read.sql" <<'EOF2'
PRAGMA cache_size=-65536;
SELECT count(*), total(pid + tid + id + start + end) FROM rocpd_api;
SELECT count(*), total(A.api_id + B.end - B.start) FROM rocpd_api_ops A
  CROSS JOIN rocpd_op B ON B.id = A.op_id;
EOF2
cat >"$BENCHDIR/cs-insert.sql" <<'EOF2'
PRAGMA cache_size=-65536;
BEGIN;
CREATE TABLE floor_callstack ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "parent_id" integer NOT NULL REFERENCES "rocpd_api" ("id") DEFERRABLE INITIALLY DEFERRED, "child_id" integer NOT NULL REFERENCES "rocpd_api" ("id") DEFERRABLE INITIALLY DEFERRED, "depth" integer NOT NULL, "cpu_time" integer NOT NULL DEFAULT 0, "gpu_time" integer NOT NULL DEFAULT 0);
INSERT INTO floor_callstack(parent_id, child_id, depth, cpu_time, gpu_time)
  SELECT parent_id, child_id, depth, cpu_time, gpu_time FROM ext_callstack;
COMMIT;
EOF2
sql_read='sqlite3 "$1" <"$0"'

for shape in $BENCH_SHAPES; do
  # shellcheck disable=SC2046
  t=$(bench_trace "cs-$shape-$BENCH_ROWS" --seed 1 --api "$BENCH_ROWS" --gpus 2 --schema 3 \
    $(bench_shape_args "$shape")) || exit 1
  L="[$shape]"
  timed "rpd-callstack $L" "$BENCH_ROWS" "$t" rpd-callstack || exit 1
  cs_wall=$T_WALL cs_cpu=$T_CPU
  rows=$(sqlite3 "$w" "SELECT count(*) FROM ext_callstack")
  echo "BENCH rpd-callstack $L ext_callstack rows=$rows"
  cp "$w" "$built"
  timed "floor-read $L" "$BENCH_ROWS" "$t" sh -c "$sql_read" "$BENCHDIR/cs-read.sql" || exit 1
  fr_wall=$T_WALL fr_cpu=$T_CPU
  timed "floor-insert $L" "$rows" "$built" sh -c "$sql_read" "$BENCHDIR/cs-insert.sql" || exit 1
  floor_wall=$(add "$fr_wall" "$T_WALL") floor_cpu=$(add "$fr_cpu" "$T_CPU")
  echo "BENCH rpd-callstack $L floor secs=$floor_wall cpu_secs=$floor_cpu"
  ratio "rpd-callstack $L ratio to floor (wall)" "$cs_wall" "$floor_wall"
  ratio "rpd-callstack $L ratio to floor (cpu)" "$cs_cpu" "$floor_cpu"
  # every writer checks the pages before it writes (common/trace/pages.c):
  # not part of the floor; the ratio without it says what the walk costs
  # (a writer that writes nothing: rpd-metadata clearing a tag the trace
  # does not have is the open, the check and an empty transaction)
  timed "pre-write page check $L" "$BENCH_ROWS" "$t" rpd-metadata -q --clear bench.absent || exit 1
  ratio "rpd-callstack $L ratio to floor without the pre-write page check (cpu)" \
    "$(sub "$cs_cpu" "$T_CPU")" "$floor_cpu"

  timed "rpd-autograd $L" "$BENCH_ROWS" "$t" rpd-autograd || exit 1
  ag_wall=$T_WALL ag_cpu=$T_CPU
  # rpd-autograd's floor: the call stack's, plus reading the marker calls
  # with their args and inserting the same ext_autogradapi rows
  cp "$w" "$built"
  cat >"$BENCHDIR/ag-floor.sql" <<EOF2
PRAGMA cache_size=-65536;
SELECT count(*), total(length(s)) FROM (SELECT A.id, S.string AS s FROM rocpd_api A
  JOIN rocpd_ustring S ON S.id = A.args_id WHERE A.apiName_id IN
  (SELECT id FROM rocpd_string WHERE string = 'UserMarker'));
BEGIN;
CREATE TABLE floor_autograd ("api_ptr_id" integer NOT NULL PRIMARY KEY REFERENCES "rocpd_api" ("id") DEFERRABLE INITIALLY DEFERRED, "autogradName_id" integer NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED, "seq" integer NOT NULL, "op_id" integer NOT NULL, "sizes" varchar(4096) NOT NULL, "input_op_ids" varchar(4096) NOT NULL);
INSERT INTO floor_autograd SELECT * FROM ext_autogradapi;
COMMIT;
EOF2
  timed "floor-autograd-rows $L" "$BENCH_ROWS" "$built" sh -c "$sql_read" "$BENCHDIR/ag-floor.sql" || exit 1
  ag_floor_wall=$(add "$floor_wall" "$T_WALL") ag_floor_cpu=$(add "$floor_cpu" "$T_CPU")
  echo "BENCH rpd-autograd $L floor secs=$ag_floor_wall cpu_secs=$ag_floor_cpu"
  ratio "rpd-autograd $L ratio to floor (wall)" "$ag_wall" "$ag_floor_wall"
  ratio "rpd-autograd $L ratio to floor (cpu)" "$ag_cpu" "$ag_floor_cpu"
  if [ "$shape" = synth ]; then
    timed "rpd-autograd --skip-callstacks $L" "$BENCH_ROWS" "$t" rpd-autograd --skip-callstacks || exit 1
    timed "rpd-strings --dedupe $L" "$BENCH_ROWS" "$built" rpd-strings --dedupe || exit 1
  fi

  if [ -n "$REF" ]; then
    REPEAT_SAVED=$REPEAT; REPEAT=${BENCH_REF_REPEAT:-1}
    timed "reference rocpd.call_stacks $L" "$BENCH_ROWS" "$t" \
      env PYTHONPATH="$REF" /usr/bin/python3 -m rocpd.call_stacks || exit 1
    ratio "rpd-callstack $L speedup vs reference, this run (wall)" "$T_WALL" "$cs_wall"
    ratio "rpd-callstack $L speedup vs reference, this run (cpu)" "$T_CPU" "$cs_cpu"
    timed "reference rocpd.autograd $L" "$BENCH_ROWS" "$t" \
      env PYTHONPATH="$REF" /usr/bin/python3 -m rocpd.autograd || exit 1
    ratio "rpd-autograd $L speedup vs reference, this run (wall)" "$T_WALL" "$ag_wall"
    ratio "rpd-autograd $L speedup vs reference, this run (cpu)" "$T_CPU" "$ag_cpu"
    REPEAT=$REPEAT_SAVED
  fi
done
rm -f "$w" "$built" "$BENCHDIR/ag-floor.sql" "$BENCHDIR/cs-qc.sql"
