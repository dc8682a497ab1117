#!/bin/sh
# raptor-merge.sh - raptor reads the ops in table order and merges the
# sorted runs it finds per GPU (raptor/opmerge.c); a table in no order at
# all (more than 1024 runs) is read again sorted by SQLite.  Whatever the
# row order, the op trace must come out in exactly (gpuId, start, id) order
# as SQL sorts it, and every table must equal those of the SQL-sorted
# (RPDTOOLS_RAPTOR_LOAD=sql) and in-memory (=memory) paths.  The op trace,
# --save and -i stream from the temp file: their output must equal the
# in-memory path's.  Generated traces only.
. "$(dirname "$0")/../lib.sh"
cd "$TESTDIR" || exit 1
rpd-synth -q --seed 11 --api 20000 --gpus 3 -o s.rpd >/dev/null 2>&1 ||
  rpd-synth --seed 11 --api 20000 --gpus 3 -o s.rpd >/dev/null
check_eq "fixture: no two ops of a GPU start at the same time" 0 \
  "$(q s.rpd "SELECT count(*) FROM (SELECT 1 FROM rocpd_op GROUP BY gpuId, start HAVING count(*) > 1)")"

# copies of the trace whose rocpd_op rows are stored in another order (a
# table without the integer primary key scans in insertion order)
reorder() {  # NAME ORDER-BY
  reorder_ops s.rpd "$1.rpd" "$2"
}
reorder runs4 "id % 4, id"          # four sorted streams per GPU: merged
reorder reversed "start DESC"       # every op a run of its own: SQLite sorts
reorder shuffled "(id * 7919) % 10007, id"  # scattered: SQLite sorts
check_eq "fixture: the reordered copies hold the same ops" \
  "$(q s.rpd "SELECT count(*), sum(id), sum(start) FROM rocpd_op")" \
  "$(q reversed.rpd "SELECT count(*), sum(id), sum(start) FROM rocpd_op")"
check_eq "fixture: runs4 is stored out of time order" 1 \
  "$(q runs4.rpd "SELECT count(*) > 100 FROM (SELECT start < lag(start) OVER (ORDER BY rowid) AS back FROM rocpd_op) WHERE back")"

# the op trace's order against SQL's, on the ids raptor printed
order_ok() {  # NAME TRACE CSV
  sqlite3 -batch -noheader :memory: ".import --csv $3 t" \
    "ATTACH '$2' AS tr;
     CREATE TABLE got AS SELECT rowid AS pos, CAST(op_id AS INTEGER) AS id FROM t;
     CREATE TABLE want AS SELECT row_number() OVER (ORDER BY o.gpuId, o.start, o.id) AS pos, o.id
       FROM got g JOIN tr.rocpd_op o ON o.id = g.id;
     SELECT count(*), sum(g.id = w.id) FROM got g JOIN want w USING (pos);" >order.out
  _n=$(q s.rpd "SELECT count(*) FROM rocpd_op")
  check_eq "$1: op trace in (gpuId, start, id) order" "$(cut -d'|' -f1 order.out)|$(cut -d'|' -f1 order.out)" "$(cat order.out)"
  check_eq "$1: op trace has the kernels and copies (1000 < n <= ops)" 1 "$(awk -F'|' -v n="$_n" '{ print ($1 > 1000 && $1 <= n) }' order.out)"
}

opts="-k -c -v --gpu-summary -z 2"
rm -rf base; RPDTOOLS_RAPTOR_LOAD=sql raptor s.rpd $opts -o --csv-dir base >/dev/null 2>&1
order_ok "SQL-sorted path" s.rpd base/op_trace.csv
for t in s runs4 reversed shuffled; do
  for mode in merge memory; do
    rm -rf out
    # shellcheck disable=SC2086
    check_rc "$t ($mode): raptor $opts -o" 0 env RPDTOOLS_RAPTOR_LOAD=$mode raptor $t.rpd $opts -o --csv-dir out
    [ -f out/op_trace.csv ] || continue
    order_ok "$t ($mode)" "$t.rpd" out/op_trace.csv
    for f in base/*.csv; do
      same_file "$t ($mode): $(basename "$f") as the SQL-sorted path's" "$f" "out/$(basename "$f")"
    done
  done
done

# --save and -i stream from the temp file; the in-memory path is the oracle
for mode in merge memory; do
  cp s.rpd "save-$mode.rpd"
  check_rc "--save ($mode)" 0 env RPDTOOLS_RAPTOR_LOAD=$mode raptor "save-$mode.rpd" -z 2 --save
  q "save-$mode.rpd" "SELECT * FROM ext_raptor_op ORDER BY rowid" >"saved-$mode.txt"
  env RPDTOOLS_RAPTOR_LOAD=$mode raptor s.rpd -z 2 -i 0 --format csv >"inst-$mode.csv" 2>/dev/null
  env RPDTOOLS_RAPTOR_LOAD=$mode raptor s.rpd -i 3 --op-trace-file "inst3-$mode.txt" >/dev/null 2>&1
done
same_file "--save: ext_raptor_op rows as the in-memory path's" saved-memory.txt saved-merge.txt
check_eq "--save: ext_raptor_op holds every op raptor used" "$(($(wc -l <base/op_trace.csv) - 1))" \
  "$(wc -l <saved-merge.txt | tr -d ' ')"
same_file "-i 0 (csv): as the in-memory path's" inst-memory.csv inst-merge.csv
same_file "-i 3 (text file): as the in-memory path's" inst3-memory.txt inst3-merge.txt
check_eq "-i 0: the instances are sorted by duration" "" \
  "$(awk -F, 'NR > 2 && $6 + 0 < prev { print NR } { prev = $6 + 0 }' inst-merge.csv)"

# ROIs that depend on the ops read them twice (a probe or a first analysis,
# then the final ROI): the same tables in every load mode, on the scattered
# copy too; the ROI really moved
for o in "--auto-roi" "--roi-trim --gpu-summary" "-s Cijk_ -e 90% -o" "--auto-roi --roi-trim -z 2 -i 1"; do
  # shellcheck disable=SC2086
  RPDTOOLS_RAPTOR_LOAD=sql raptor s.rpd $o --format json >roi-sql.json 2>&1
  for v in "s merge" "s memory" "shuffled merge"; do
    set -- $v
    # shellcheck disable=SC2086
    env RPDTOOLS_RAPTOR_LOAD=$2 raptor $1.rpd $o --format json >roi-got.json 2>&1
    same_file "$o on $1 ($2): as the SQL-sorted path's" roi-sql.json roi-got.json
  done
  check_eq "$o: a narrower ROI than the whole trace" 1 \
    "$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["timestamps"][0]; print(int(t["roi_start_ns"] > 0 or t["roi_end_ns"] < t["last_abs_ns"] - t["first_abs_ns"]))' roi-sql.json 2>&1)"
done

# issue 15: the progress line is for terminals only, never in a pipe
check_rc "no progress line when stderr is not a terminal" 0 raptor s.rpd -k
check_eq "... stderr stays empty" "" "$(cat "$TESTDIR/stderr")"
