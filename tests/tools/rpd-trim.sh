#!/bin/sh
# rpd-trim: time forms, exact remaining rows, referential integrity, string
# cleanup, --dry-run, -o, errors for ranges outside the trace, bad input.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

sum() { cksum <"$1"; }

# integrity FILE LABEL: every link resolves, no orphan subclass rows, no
# unreferenced string, every referenced string present
integrity() {
  at=$(q "$1" "SELECT CASE WHEN count(*) THEN 'rocpd_ustring' ELSE 'rocpd_string' END FROM pragma_table_info('rocpd_api') WHERE name = 'domain_id'")
  check_eq "$2: every api_ops link resolves" 0 \
    "$(q "$1" "SELECT count(*) FROM rocpd_api_ops WHERE api_id NOT IN (SELECT id FROM rocpd_api) OR op_id NOT IN (SELECT id FROM rocpd_op)")"
  check_eq "$2: no orphan kernelapi/copyapi rows" 0 \
    "$(q "$1" "SELECT (SELECT count(*) FROM rocpd_kernelapi WHERE api_ptr_id NOT IN (SELECT id FROM rocpd_api)) + (SELECT count(*) FROM rocpd_copyapi WHERE api_ptr_id NOT IN (SELECT id FROM rocpd_api))")"
  check_eq "$2: every referenced string present" "0|0" \
    "$(q "$1" "SELECT count(*) FROM (SELECT apiName_id i FROM rocpd_api UNION SELECT description_id FROM rocpd_op UNION SELECT opType_id FROM rocpd_op UNION SELECT kernelName_id FROM rocpd_kernelapi) WHERE i NOT IN (SELECT id FROM rocpd_string)")|$(q "$1" "SELECT count(*) FROM rocpd_api WHERE args_id NOT IN (SELECT id FROM $at)")"
  check_eq "$2: no unreferenced string" "0|0" \
    "$(q "$1" "SELECT count(*) FROM rocpd_string WHERE string != '' AND id NOT IN (SELECT apiName_id FROM rocpd_api UNION SELECT description_id FROM rocpd_op UNION SELECT opType_id FROM rocpd_op UNION SELECT kernelName_id FROM rocpd_kernelapi $( [ "$at" = rocpd_ustring ] && echo 'UNION SELECT domain_id FROM rocpd_api UNION SELECT category_id FROM rocpd_api' || echo 'UNION SELECT args_id FROM rocpd_api'))")|$( [ "$at" = rocpd_ustring ] && q "$1" "SELECT count(*) FROM rocpd_ustring WHERE string != '' AND id NOT IN (SELECT args_id FROM rocpd_api)" || echo 0)"
}

# expect FILE START END: the rows that must remain, computed before trimming
expect() {
  q "$1" "SELECT (SELECT count(*) FROM rocpd_api WHERE start BETWEEN $2 AND $3),
     (SELECT count(DISTINCT L.op_id) FROM rocpd_api_ops L JOIN rocpd_api A ON A.id = L.api_id WHERE A.start BETWEEN $2 AND $3)
     + (SELECT count(*) FROM rocpd_op WHERE id NOT IN (SELECT op_id FROM rocpd_api_ops) AND start BETWEEN $2 AND $3),
     (SELECT count(*) FROM rocpd_monitor WHERE start BETWEEN $2 AND $3)"
}
remaining() { q "$1" "SELECT (SELECT count(*) FROM rocpd_api), (SELECT count(*) FROM rocpd_op), (SELECT count(*) FROM rocpd_monitor)"; }

for schema in 2 3; do
  f="t$schema.rpd"
  rpd-synth --seed 6 --api 5000 --gpus 2 --schema "$schema" -o "$f" >/dev/null
  first=$(q "$f" "SELECT min(start) FROM rocpd_api"); last=$(q "$f" "SELECT max(\"end\") FROM rocpd_api")
  s=$((first + 10000000)); e=$(q "$f" "SELECT $first + CAST(($last - $first) * 50 / 100.0 AS INTEGER)")
  want=$(expect "$f" "$s" "$e")

  # --dry-run writes nothing
  before=$(sum "$f")
  check_rc "v$schema: --dry-run: exit 0" 0 rpd-trim "$f" --start +10ms --end 50% --dry-run
  check_eq "v$schema: --dry-run: file unchanged" "$before" "$(sum "$f")"
  check "v$schema: --dry-run: says so" grep -q "dry run: would remove $((5000 - ${want%%|*})) of 5000 api calls" "$TESTDIR/stdout"

  cp "$f" "o$schema.rpd"
  check_rc "v$schema: +10ms .. 50%: exit 0" 0 rpd-trim "$f" --start +10ms --end 50%
  check "v$schema: prints the range" grep -q "^range: $s \.\. $e ns" "$TESTDIR/stdout"
  check "v$schema: prints api before/after" grep -Eq "^rocpd_api +5000 +${want%%|*}\$" "$TESTDIR/stdout"
  check_eq "v$schema: remaining api|op|monitor rows" "$want" "$(remaining "$f")"
  check_eq "v$schema: every api starts inside the range" 0 \
    "$(q "$f" "SELECT count(*) FROM rocpd_api WHERE start < $s OR start > $e")"
  integrity "$f" "v$schema +10ms..50%"

  # a bare number is ms from the first call (docs/time.md), -T from the end,
  # units from the start
  g="o$schema.rpd"
  s=$((first + 1234567)); e=$((last - 2000000))
  want=$(expect "$g" "$s" "$e")
  cp "$g" "a$schema.rpd"
  check_rc "v$schema: bare ms: exit 0" 0 rpd-trim "a$schema.rpd" --start 1.234567 --end=-2
  check "v$schema: bare ms: the range" grep -q "^range: $s \.\. $e ns" "$TESTDIR/stdout"
  check_eq "v$schema: bare ms: remaining rows" "$want" "$(remaining "a$schema.rpd")"
  integrity "a$schema.rpd" "v$schema bare ms"
  cp "$g" "m$schema.rpd"
  check_rc "v$schema: --start 1234567ns --end=-2ms: exit 0" 0 rpd-trim "m$schema.rpd" --start 1234.567us --end=-2ms
  check "v$schema: units: same range" grep -q "^range: $s \.\. $e ns" "$TESTDIR/stdout"
  check_eq "v$schema: units: same rows as absolute" "$want" "$(remaining "m$schema.rpd")"

  # -o: input untouched
  before=$(sum "$g")
  check_rc "v$schema: -o OUT: exit 0" 0 rpd-trim "$g" -o "out$schema.rpd" --start 25% --end 75%
  check_eq "v$schema: -o OUT: input unchanged" "$before" "$(sum "$g")"
  check_eq "v$schema: -o OUT: output trimmed" \
    "$(expect "$g" "$(q "$g" "SELECT $first + CAST(($last - $first) * 25 / 100.0 AS INTEGER)")" \
                    "$(q "$g" "SELECT $first + CAST(($last - $first) * 75 / 100.0 AS INTEGER)")")" \
    "$(remaining "out$schema.rpd")"

  # ranges outside the trace are errors; the file is left alone
  for r in "--start 1e9" "--end +1000s" "--start=-1000s" "--start 60% --end 40%" "--start $(((last - first) / 1000000 + 1))"; do
    # shellcheck disable=SC2086
    check_rc "v$schema: outside ($r): exit 1" 1 rpd-trim "$g" $r
    check_one_line "v$schema: outside ($r): one line"
  done
  check_eq "v$schema: errors: input unchanged" "$before" "$(sum "$g")"
done

# default range keeps everything but still drops unreferenced strings
rpd-synth --seed 8 --api 2000 -o all.rpd >/dev/null
sqlite3 all.rpd "INSERT INTO rocpd_string(string) VALUES ('nobody uses me'); INSERT INTO rocpd_ustring(string) VALUES ('nor me')"
n=$(q all.rpd "SELECT (SELECT count(*) FROM rocpd_api), (SELECT count(*) FROM rocpd_op)")
check_rc "no range: exit 0" 0 rpd-trim all.rpd
check_eq "no range: all api and op rows kept" "$n" "$(q all.rpd "SELECT (SELECT count(*) FROM rocpd_api), (SELECT count(*) FROM rocpd_op)")"
check_eq "no range: unreferenced strings dropped" "0|0" \
  "$(q all.rpd "SELECT (SELECT count(*) FROM rocpd_string WHERE string = 'nobody uses me'), (SELECT count(*) FROM rocpd_ustring WHERE string = 'nor me')")"

if need_shared "$TRACES/mytrace.rpd.gz"; then
  tmpcopy "$TRACES/mytrace.rpd.gz" my.rpd
  check_rc "mytrace: +100ms .. +300ms: exit 0" 0 rpd-trim my.rpd --start +100ms --end +300ms
  integrity my.rpd "mytrace"
  check_eq "mytrace: ext tables lose rows of removed calls" "0|0" \
    "$(q my.rpd "SELECT (SELECT count(*) FROM ext_callstack WHERE parent_id NOT IN (SELECT id FROM rocpd_api) OR child_id NOT IN (SELECT id FROM rocpd_api)), (SELECT count(*) FROM ext_autogradapi WHERE api_ptr_id NOT IN (SELECT id FROM rocpd_api))")"
  check_eq "mytrace: declared string references kept" 0 \
    "$(q my.rpd "SELECT count(*) FROM ext_autogradapi WHERE autogradName_id NOT IN (SELECT id FROM rocpd_string)")"
fi

# bad input
printf 'junk' >junk.rpd; before=$(sum junk.rpd)
check_rc "not SQLite: exit 1" 1 rpd-trim junk.rpd --start 10%
check_one_line "not SQLite: one line"
check_eq "not SQLite: unchanged" "$before" "$(sum junk.rpd)"
cp all.rpd e.rpd; sqlite3 e.rpd "DELETE FROM rocpd_api"; before=$(sum e.rpd)
check_rc "no api calls: exit 1" 1 rpd-trim e.rpd
check_one_line "no api calls: one line"
check_eq "no api calls: unchanged" "$before" "$(sum e.rpd)"
before=$(sum all.rpd)
check_rc "bad time: exit 2" 2 rpd-trim all.rpd --start 5parsecs
# beyond +-2^63 ns: refused with one line, never wrapped
cp all.rpd big.rpd
for t in "--start=-1e999ms" "--end=+1e999ms" "--start=1e30" "--end=99999999999999999999" "--start=-9223372036854775808" "--start=nan" "--end=inf"; do
  check_rc "extreme time $t: exit 2" 2 rpd-trim big.rpd "$t"
  check_eq "extreme time $t: one error line (and the usage hint)" "1 1" \
    "$(grep -c "^rpd-trim: bad time '${t#*=}': " "$TESTDIR/stderr") $(grep -vc '^Try ' "$TESTDIR/stderr")"
done
same_file "extreme times: trace byte-identical" all.rpd big.rpd
check_rc "percent over 100: exit 2" 2 rpd-trim all.rpd --end 120%
check_rc "--start without value: exit 2" 2 rpd-trim all.rpd --start
check_rc "unknown option: exit 2" 2 rpd-trim all.rpd --bogus
check_eq "usage errors: unchanged" "$before" "$(sum all.rpd)"

# a trace from an older tracer without rocpd_metadata: trimmed all the same
cp all.rpd nometa.rpd; sqlite3 nometa.rpd "DROP TABLE rocpd_metadata"
want=$(expect nometa.rpd "$(q nometa.rpd 'SELECT min(start) FROM rocpd_api')" "$(q nometa.rpd 'SELECT max(start) FROM rocpd_api')")
check_rc "no rocpd_metadata: exit 0" 0 rpd-trim nometa.rpd --start 0%
check_eq "no rocpd_metadata: rows kept" "$want" "$(remaining nometa.rpd)"
# -- ends the options: a file name with a leading dash
cp all.rpd ./-dash.rpd
check_rc "-- then a name with a leading dash: exit 0" 0 rpd-trim --start 10% -- -dash.rpd
check_eq "-- then a name with a leading dash: trimmed" 1 \
  "$( [ "$(q ./-dash.rpd 'SELECT count(*) FROM rocpd_api')" -lt "$(q all.rpd 'SELECT count(*) FROM rocpd_api')" ] && echo 1)"
# VACUUM by rpd_vacuum (VACUUM INTO + rename): mode kept, file compacted,
# nothing left next to it
mkdir -p vac; cp all.rpd vac/v.rpd; chmod 640 vac/v.rpd; size0=$(wc -c <vac/v.rpd)
check_rc "vacuum: exit 0" 0 rpd-trim vac/v.rpd --start 50%
check_eq "vacuum: mode kept" 640 "$(stat -c %a vac/v.rpd)"
check_eq "vacuum: file shrank" 1 "$( [ "$(wc -c <vac/v.rpd)" -lt "$size0" ] && echo 1)"
check_eq "vacuum: no free pages" 0 "$(q vac/v.rpd 'PRAGMA freelist_count')"
check_eq "vacuum: nothing left next to the file" "v.rpd" "$(ls -A vac | tr '\n' ' ' | sed 's/ $//')"
# a hard-linked file is vacuumed in place: both names still see the result
cp all.rpd vac/h.rpd; ln vac/h.rpd vac/h2.rpd
check_rc "vacuum hard link: exit 0" 0 rpd-trim vac/h.rpd --start 50%
same_file "vacuum hard link: both names are the trimmed file" vac/h.rpd vac/h2.rpd
# a stdout that cannot be written fails before anything is changed
if [ -c /dev/full ]; then
  cp all.rpd full.rpd; before=$(sum full.rpd)
  check_rc "stdout full: exit 1" 1 sh -c 'rpd-trim full.rpd --start 50% >/dev/full'
  check_one_line "stdout full: one line"
  check_eq "stdout full: unchanged" "$before" "$(sum full.rpd)"
fi

# issue 12: every ext_* table the suite writes is trimmed or dropped: the
# call stack and autograd rows follow their calls; raptor/report results of
# the untrimmed trace are dropped with their metadata and named
if [ -x "$RPD_BIN/raptor" ] && [ -x "$RPD_BIN/rpd-callstack" ] && [ -x "$RPD_BIN/rpd-graph" ]; then
  cp all.rpd ext.rpd
  rpd-callstack ext.rpd >/dev/null 2>&1; rpd-graph ext.rpd >/dev/null 2>&1
  raptor ext.rpd --save >/dev/null 2>&1
  check_eq "ext: raptor --save wrote ext_raptor_op" 1 "$(q ext.rpd 'SELECT count(*) > 0 FROM ext_raptor_op')"
  check_rc "ext: trim exit 0" 0 rpd-trim ext.rpd --start 20% --end 60%
  check_eq "ext: names the dropped results" \
    "dropped results of the untrimmed trace (run raptor --save again): ext_raptor_category, ext_raptor_gpu, ext_raptor_kernelseq, ext_raptor_op, ext_raptor_variability" \
    "$(grep '^dropped' "$TESTDIR/stdout")"
  check_eq "ext: no ext_raptor_* table left" 0 \
    "$(q ext.rpd "SELECT count(*) FROM sqlite_master WHERE name LIKE 'ext_raptor%'")"
  check_eq "ext: raptor metadata cleared" 0 \
    "$(q ext.rpd "SELECT count(*) FROM rocpd_metadata WHERE tag LIKE 'raptor%'")"
  check_eq "ext: call stack rows only of kept calls" 0 \
    "$(q ext.rpd "SELECT count(*) FROM ext_callstack WHERE parent_id NOT IN (SELECT id FROM rocpd_api) OR child_id NOT IN (SELECT id FROM rocpd_api)")"
  check_eq "ext: call stack depth-0 row per kept call" \
    "$(q ext.rpd 'SELECT count(*) FROM rocpd_api')" "$(q ext.rpd 'SELECT count(*) FROM ext_callstack WHERE depth = 0')"
  check_eq "ext: graph kernels only of kept calls" 0 \
    "$(q ext.rpd "SELECT count(*) FROM ext_graph_kernelapis WHERE api_id NOT IN (SELECT id FROM rocpd_api)")"
fi

# the results of rpd-analyze and rpd-stackframe are computed over the whole
# trace (spans, per-call stacks): dropped with their views and done tags, so
# that the tools run again after a trim and their rows are of kept calls only
if [ -x "$RPD_BIN/rpd-analyze" ] && [ -x "$RPD_BIN/rpd-stackframe" ]; then
  rpd-synth --seed 5 --api 3000 --stackframes -o der.rpd >/dev/null 2>&1
  rpd-analyze der.rpd >/dev/null 2>&1; rpd-stackframe der.rpd >/dev/null 2>&1
  check_eq "derived: both tools wrote their tables" "1|3000" \
    "$(q der.rpd "SELECT (SELECT count(*) > 0 FROM ext_analysis_launch), (SELECT count(*) FROM ext_stackframe_call)")"
  check_rc "derived: trim exit 0" 0 rpd-trim der.rpd --start 20% --end 60%
  check_eq "derived: names the dropped results and the tools" \
    "dropped results of the untrimmed trace (run rpd-analyze, rpd-stackframe again): ext_analysis_findings, ext_analysis_idle, ext_analysis_launch, ext_analysis_memcpy, ext_analysis_overlap, ext_analysis_queue_depth, ext_analysis_rules, ext_stackframe_call, ext_stackframe_stack" \
    "$(grep '^dropped' "$TESTDIR/stdout")"
  check_eq "derived: no ext_analysis/ext_stackframe table or view left, done tags cleared" "0|0" \
    "$(q der.rpd "SELECT (SELECT count(*) FROM sqlite_master WHERE name LIKE 'ext_analysis%' OR name LIKE '%stackframe_%' AND name != 'rocpd_stackframe' AND type != 'index'), (SELECT count(*) FROM rocpd_metadata WHERE tag IN ('ext_analysis::done', 'rpd-stackframe::done'))")"
  check_rc "derived: rpd-stackframe runs again" 0 rpd-stackframe der.rpd
  check_eq "derived: stackframe rows = kept calls" "$(q der.rpd 'SELECT count(*) FROM rocpd_api')" \
    "$(q der.rpd "SELECT count(*) FROM ext_stackframe_call C JOIN rocpd_api A ON A.id = C.api_id")"
  check_rc "derived: rpd-analyze runs again" 0 rpd-analyze der.rpd
  check "derived: rpd-analyze is not 'already done'" sh -c "! grep -q 'already' '$TESTDIR/stderr'"
fi

# raptor --by-rank --save tables (a rankN_us column per rank) go the same way
if [ -x "$RPD_BIN/raptor" ]; then
  cp all.rpd br.rpd
  raptor br.rpd --by-rank --save >/dev/null 2>&1
  check_eq "by-rank: six ext_byrank_* tables written" 6 \
    "$(q br.rpd "SELECT count(*) FROM sqlite_master WHERE name LIKE 'ext_byrank%'")"
  check_rc "by-rank: trim exit 0" 0 rpd-trim br.rpd --start 20% --end 60%
  check_eq "by-rank: named, dropped, tag cleared" \
    "dropped results of the untrimmed trace (run raptor --by-rank --save again): ext_byrank_categories, ext_byrank_collectives, ext_byrank_kernels, ext_byrank_ranks, ext_byrank_sequences, ext_byrank_stragglers|0|0" \
    "$(grep '^dropped' "$TESTDIR/stdout")|$(q br.rpd "SELECT count(*) FROM sqlite_master WHERE name LIKE 'ext_byrank%'")|$(q br.rpd "SELECT count(*) FROM rocpd_metadata WHERE tag = 'raptor::byrank'")"
fi

# a user's table named like a result table (other columns) is not ours: kept
cp all.rpd user.rpd
sqlite3 user.rpd "CREATE TABLE ext_raptor_op(note TEXT); INSERT INTO ext_raptor_op VALUES ('mine');
  CREATE TABLE ext_report_notes(x); INSERT INTO ext_report_notes VALUES (1);
  CREATE TABLE ext_analysis_idle(a, b); INSERT INTO ext_analysis_idle VALUES (1, 2);
  CREATE TABLE ext_raptor_kernelseq(rank, kernel, kernel_1, note); INSERT INTO ext_raptor_kernelseq VALUES (1, 2, 3, 4);
  CREATE TABLE ext_byrank_kernels(kernel, calls, total_us, rank0_us, mine); INSERT INTO ext_byrank_kernels VALUES (1, 2, 3, 4, 5);"
check_rc "user tables: trim exit 0" 0 rpd-trim user.rpd --start 20% --end 60%
check_eq "user tables: kept with their rows" "mine|1|1|1|1" \
  "$(q user.rpd "SELECT (SELECT note FROM ext_raptor_op), (SELECT count(*) FROM ext_report_notes), (SELECT count(*) FROM ext_analysis_idle), (SELECT count(*) FROM ext_raptor_kernelseq), (SELECT count(*) FROM ext_byrank_kernels)")"
check_eq "user tables: nothing said dropped" "" "$(grep '^dropped' "$TESTDIR/stdout")"

# issue 12: garbage timestamps are refused in one line, the file as it was
cp all.rpd garb.rpd
sqlite3 garb.rpd "UPDATE rocpd_api SET end = 9223372036854775807 WHERE id % 100 = 1"
n=$(q garb.rpd "SELECT count(*) FROM rocpd_api WHERE end = 9223372036854775807")
before=$(sha garb.rpd)
check_rc "garbage: INT64_MAX end exit 1" 1 rpd-trim garb.rpd --start 50%
check_eq "garbage: message" \
  "rpd-trim: 'garb.rpd': rocpd_api.end: $n rows outside 0 .. 2^62 ns; fix or delete those rows" \
  "$(cat "$TESTDIR/stderr")"
check_eq "garbage: unchanged" "$before" "$(sha garb.rpd)"
