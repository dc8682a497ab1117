#!/bin/sh
# rpd-import on generated rocprofv3 databases (rpd-synth-rocpd): every row
# accounted for, kernels keep their identity (two symbols that truncate to
# the same name stay two kernels in every output), one guid or several,
# rows in event order or not (the sorted path gives the same trace), input
# byte-identical.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

rpd-synth-rocpd -q --dispatches 120 -o g.db || notok "generate g.db"
cp g.db g.orig
check_rc "generated database imports" 0 rpd-import g.db g.rpd
same_file "input byte-identical" g.db g.orig
check_eq "summary: every region and copy read" \
  "kernel_dispatch 120|hip_api 124|hsa_api 15|marker_api 8|rccl_api 4|memory_copy 4|pmc_event 60|memory_allocation 2" \
  "$(sed -n 's/^  read \([a-z_]*\) *\([0-9]*\).*/\1 \2/p' "$TESTDIR/stderr" | tr '\n' '|' | sed 's/|$//')"
check_eq "ops = dispatches + copies, api = regions, all linked" "124|151|124" \
  "$(q g.rpd "SELECT count(*), (SELECT count(*) FROM rocpd_api), (SELECT count(*) FROM rocpd_api_ops A JOIN rocpd_api B ON B.id = A.api_id) FROM rocpd_op")"
check_eq "kernel durations: exact sum of the database's kernels view" \
  "$(q g.db 'SELECT sum(duration) FROM kernels')" \
  "$(q g.rpd "SELECT sum(end - start) FROM op WHERE opType = 'KernelExecution'")"
corr7=$(q g.db "SELECT stack_id FROM regions WHERE id = 7")
check_eq "region args merged in position order (region 7)" \
  "$(q g.db "SELECT group_concat(name || '=' || value, ' | ') FROM (SELECT name, value FROM rocpd_arg WHERE event_id = (SELECT event_id FROM rocpd_region WHERE id = 7) ORDER BY position)")" \
  "$(q g.rpd "SELECT args FROM api WHERE id = $corr7")"

# --- kernel identity: the full name is the op description
kentry_groups() { # RPD -> "calls|duration_sum" per distinct kentry description
  q "$1" "SELECT count(*) || '|' || sum(end - start) FROM op WHERE description LIKE '%kentry%' GROUP BY description ORDER BY count(*) DESC" | tr '\n' ' ' | sed 's/ $//'
}
want=$(q g.db "SELECT count(*) || '|' || sum(duration) FROM kernels WHERE name LIKE '%kentry%' GROUP BY kernel_id ORDER BY count(*) DESC" | tr '\n' ' ' | sed 's/ $//')
check_eq "two kentry kernels stay two ops groups (20 and 10 calls, exact sums)" "$want" "$(kentry_groups g.rpd)"
case $want in "20|"*" 10|"*) ok "identity case is 20 + 10 dispatches" ;; *) notok "identity case is 20 + 10 dispatches" "$want" ;; esac
check_eq "ext_kernel_name: both full names keep the short name kentry" "2" \
  "$(q g.rpd "SELECT count(*) FROM ext_kernel_name K JOIN rocpd_string S ON S.id = K.short_name_id WHERE S.string = 'kentry'")"
check_eq "kernel view: kernelName = description (full)" "0" \
  "$(q g.rpd "SELECT count(*) FROM kernel K JOIN op O ON O.id = K.id WHERE K.kernelName <> O.description" 2>/dev/null || echo '?')"
check_eq "metadata: kernel names are full" "full" \
  "$(q g.rpd "SELECT value FROM rocpd_metadata WHERE tag = 'rpd-import::kernel_names'")"
check_rc "--truncated-names" 0 rpd-import -q --truncated-names g.db gt.rpd
check_eq "--truncated-names groups both as kentry (TraceLens' grouping)" \
  "$(q g.db "SELECT count(*) || '|' || sum(duration) FROM kernels WHERE name LIKE '%kentry%'")" \
  "$(kentry_groups gt.rpd)"

# every output tells the two kernels apart
if command -v raptor >/dev/null 2>&1; then
  check_rc "raptor --report on the import" 0 raptor g.rpd --report -q --csv-dir rep
  check_eq "raptor --report kernel summary: two kentry rows" "2" \
    "$(grep -c kentry rep/kernel_summary.csv 2>/dev/null)"
  check_rc "raptor tables on the import" 0 raptor g.rpd
  n=$(grep -c 'kentry' "$TESTDIR/stdout")
  if [ "$n" -ge 2 ]; then ok "raptor tables: both kentry kernels listed ($n lines)"
  else notok "raptor tables: both kentry kernels listed" "$n lines"; fi
  cp g.rpd gx.rpd
  check_rc "raptor -x (xlsx) on the import" 0 raptor gx.rpd -x
  check_eq "raptor xlsx: both full kentry names among its cells" "2" \
    "$(python3 -c "
import zipfile,re,html
s=zipfile.ZipFile('gx.xlsx').read('xl/sharedStrings.xml').decode()
names={html.unescape(t) for t in re.findall(r'<t[^>]*>([^<]*)</t>', s)}
print(len({n for n in names if n.startswith('void ck_tile::kentry') and '<-' not in n}))" 2>&1)"
else
  skip "raptor outputs (raptor not built)"
fi
if command -v rpd2tracing >/dev/null 2>&1; then
  check_rc "rpd2tracing on the import" 0 rpd2tracing g.rpd g.json
  check_eq "rpd2tracing: two distinct kentry slice names" "2" \
    "$(python3 -c "
import json,sys
d=json.load(open('g.json')); ev=d['traceEvents'] if isinstance(d,dict) else d
print(len({e.get('name') for e in ev if 'kentry' in str(e.get('name'))}))" 2>&1)"
else
  skip "rpd2tracing output (not built)"
fi

# --- several guids: ids of the second process shifted past the first
rpd-synth-rocpd -q --guids 2 --dispatches 60 -o two.db || notok "generate two.db"
check_rc "two guids import" 0 rpd-import -q two.db two.rpd
check_eq "two guids: every region and dispatch, no duplicate id dropped" \
  "$(q two.db "SELECT (SELECT count(*) FROM rocpd_kernel_dispatch) + (SELECT count(*) FROM rocpd_memory_copy), (SELECT count(*) FROM rocpd_region)" | tr '|' ' ')" \
  "$(q two.rpd "SELECT count(*), (SELECT count(*) FROM rocpd_api) FROM rocpd_op" | tr '|' ' ')"
check_eq "two guids: both processes' pids" "4000 4001" \
  "$(q two.rpd "SELECT DISTINCT pid FROM rocpd_api ORDER BY 1" | tr '\n' ' ' | sed 's/ $//')"

# --- rows not in event order: the sorted path gives the same trace
sfx=$(q g.db "SELECT substr(name, 14) FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd\_region\_%' ESCAPE '\'")
cp g.db shuf.db
sqlite3 shuf.db "CREATE TEMP TABLE a AS SELECT * FROM \"rocpd_arg_$sfx\";
  DELETE FROM \"rocpd_arg_$sfx\";
  INSERT INTO \"rocpd_arg_$sfx\" SELECT * FROM a ORDER BY event_id DESC, position DESC;
  UPDATE \"rocpd_arg_$sfx\" SET id = -id; UPDATE \"rocpd_arg_$sfx\" SET id = 100000 + id;" ||
  notok "shuffle args"
check_eq "shuffled copy: args no longer in rowid order" "1" \
  "$(q shuf.db "SELECT (SELECT event_id FROM \"rocpd_arg_$sfx\" ORDER BY id LIMIT 1) > (SELECT event_id FROM \"rocpd_arg_$sfx\" ORDER BY id DESC LIMIT 1)")"
check_rc "shuffled database imports" 0 rpd-import shuf.db shuf.rpd
check "shuffled: the summary says the regions were read sorted" \
  grep -q "regions or args of 1 process(es) were not in event order: read again sorted" "$TESTDIR/stderr"
check_eq "shuffled: same counts as the ordered import (the first pass rolled back)" \
  "$(q g.rpd 'SELECT count(*), (SELECT count(*) FROM rocpd_ustring), (SELECT count(*) FROM rocpd_string) FROM rocpd_api')" \
  "$(q shuf.rpd 'SELECT count(*), (SELECT count(*) FROM rocpd_ustring), (SELECT count(*) FROM rocpd_string) FROM rocpd_api')"
check_eq "shuffled: same api rows (args in position order)" \
  "$(q g.rpd 'SELECT * FROM api ORDER BY id' | md5sum)" "$(q shuf.rpd 'SELECT * FROM api ORDER BY id' | md5sum)"

# --- not a rocprofv3 database: one line, input untouched
sqlite3 other.db "CREATE TABLE t(x); INSERT INTO t VALUES (1);"
cp other.db other.orig
check_rc "a database without rocpd tables fails" 1 rpd-import other.db o.rpd
check_one_line "not rocprofv3: one line"
check "not rocprofv3: names the missing table" grep -q "not a rocprofv3 database: no table or view 'rocpd_kernel_dispatch'" "$TESTDIR/stderr"
same_file "not rocprofv3: input untouched" other.db other.orig
rpd-synth --api 50 -o native.rpd >/dev/null
check_rc "an RPD trace given to rpd-import fails" 1 rpd-import native.rpd n.rpd
check "an RPD trace: says it is one already" grep -q "it is an RPD trace already" "$TESTDIR/stderr"
cp g.db broken.db
sqlite3 broken.db "DROP VIEW rocpd_arg; DROP TABLE \"rocpd_arg_$sfx\"; CREATE VIEW rocpd_arg AS SELECT 1 AS event_id"
check_rc "a guid without its rocpd_arg table fails" 1 rpd-import broken.db b.rpd
check "missing per-guid table: named" grep -q "no table 'rocpd_arg_$sfx'" "$TESTDIR/stderr"
