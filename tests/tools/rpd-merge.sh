#!/bin/sh
# rpd-merge and raptor --by-rank: four generated ranks (rpd-synth --ranks 4:
# rank 3 is the planted straggler, attn_fwd is 3x slower on rank 2) merged
# and checked row by row against their sources; clock alignment, errors.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

for r in 0 1 2 3; do
  rpd-synth --ranks 4 --rank $r --api 3000 -o r$r.rpd >/dev/null || notok "synth rank $r"
done
before=$(sha r0.rpd)

# ---------------------------------------------------------------- merge
check_rc "merge 4 ranks" 0 rpd-merge -o m.rpd r0.rpd r1.rpd r2.rpd r3.rpd
check_eq "summary names 4 ranks" "rpd-merge: 4 ranks -> m.rpd: 12000 api, $(( $(q r0.rpd 'select count(*) from rocpd_op') + $(q r1.rpd 'select count(*) from rocpd_op') + $(q r2.rpd 'select count(*) from rocpd_op') + $(q r3.rpd 'select count(*) from rocpd_op') )) op rows" "$(head -1 stderr)"
same_file "inputs untouched" r0.rpd r0.rpd
check_eq "input sha unchanged" "$before" "$(sha r0.rpd)"

# every rank's rows, through the napi/nop views, equal its source's
for r in 0 2 3; do
  a=$(q r$r.rpd "select count(*), sum(start % 1000003), sum(\"end\" - start), sum(length(args)), sum(length(apiName)), min(pid), min(tid) from api")
  b=$(q m.rpd "select count(*), sum(start % 1000003), sum(\"end\" - start), sum(length(args)), sum(length(apiName)), min(pid), min(tid) from napi where node = $r")
  check_eq "rank $r api rows equal the source" "$a" "$b"
  a=$(q r$r.rpd "select count(*), sum(start % 1000003), sum(\"end\" - start), sum(length(description)), sum(length(opType)), group_concat(distinct gpuId), group_concat(distinct queueId) from op")
  b=$(q m.rpd "select count(*), sum(start % 1000003), sum(\"end\" - start), sum(length(description)), sum(length(opType)), group_concat(distinct gpuId), group_concat(distinct queueId) from nop where node = $r")
  check_eq "rank $r op rows equal the source" "$a" "$b"
  a=$(q r$r.rpd "select count(*), sum(length(S.string)), sum(O.\"end\" - O.start), sum(K.gridX) from rocpd_api_ops L join rocpd_kernelapi K on K.api_ptr_id = L.api_id join rocpd_op O on O.id = L.op_id join rocpd_string S on S.id = K.kernelName_id")
  b=$(q m.rpd "select count(*), sum(length(S.string)), sum(O.\"end\" - O.start), sum(K.gridX) from rocpd_api_ops L join rocpd_kernelapi K on K.api_ptr_id = L.api_id join rocpd_op O on O.id = L.op_id join rocpd_string S on S.id = K.kernelName_id where O.gpuId / 1000 = $r")
  check_eq "rank $r kernel launches linked as in the source" "$a" "$b"
  a=$(q r$r.rpd "select count(*), sum(size), sum(dstDevice) from rocpd_copyapi")
  b=$(q m.rpd "select count(*), sum(size), sum(dstDevice - $r * 1000) from rocpd_copyapi C join rocpd_api A on A.id = C.api_ptr_id where A.pid / 10000000 = $r")
  check_eq "rank $r copies" "$a" "$b"
done
check_eq "pids apart by the stride" "4242|10005242|20006242|30007242" \
  "$(q m.rpd "select group_concat(p, '|') from (select distinct pid p from rocpd_api order by 1)")"
check_eq "monitor rows of every rank" \
  "$(( $(q r0.rpd 'select count(*) from rocpd_monitor') * 2 + $(q r2.rpd 'select count(*) from rocpd_monitor') + $(q r3.rpd 'select count(*) from rocpd_monitor') ))" \
  "$(q m.rpd 'select count(*) from rocpd_monitor')"
check_eq "strings deduplicated" "$(q r0.rpd 'select count(*) from rocpd_string')" \
  "$(q m.rpd 'select count(*) from rocpd_string')"
check_eq "no duplicate string" "0|0" \
  "$(q m.rpd "select (select count(*) - count(distinct string) from rocpd_string), (select count(*) - count(distinct string) from rocpd_ustring)")"
check_eq "every api_ops link resolves" "$(q m.rpd 'select count(*) from rocpd_api_ops')" \
  "$(q m.rpd 'select count(*) from rocpd_api_ops L join rocpd_api A on A.id = L.api_id join rocpd_op O on O.id = L.op_id')"
check_eq "rank table" "0|synth-node0|4242|r0.rpd|0|0|0|3000
1|synth-node0|5242|r1.rpd|0|10000000|1000|3000
2|synth-node0|6242|r2.rpd|0|20000000|2000|3000
3|synth-node0|7242|r3.rpd|0|30000000|3000|3000" \
  "$(q m.rpd 'select rank, host, pid, file, clock_shift_ns, pid_base, gpu_base, api_rows from rpd_rank')"
check_eq "rank metadata" "r2.rpd|synth-node0|6242|0|4|meta" \
  "$(q m.rpd "select (select value from rocpd_metadata where tag = 'rank.2.file'), (select value from rocpd_metadata where tag = 'rank.2.host'), (select value from rocpd_metadata where tag = 'rank.2.pid'), (select value from rocpd_metadata where tag = 'rank.2.clock_shift_ns'), (select value from rocpd_metadata where tag = 'merge::ranks'), (select value from rocpd_metadata where tag = 'merge::align')")"

# rank numbers come from the 'rank' tags, whatever the argument order
rpd-merge -q -o rev.rpd r3.rpd r1.rpd r0.rpd r2.rpd 2>/dev/null
check_eq "ranks from metadata, not argument order" "0|r0.rpd,1|r1.rpd,2|r2.rpd,3|r3.rpd" \
  "$(q rev.rpd "select group_concat(rank || '|' || file) from rpd_rank")"
# without tags: the argument position
tmpcopy r0.rpd u0.rpd; tmpcopy r0.rpd u1.rpd
q u0.rpd "delete from rocpd_metadata where tag = 'rank'"; q u1.rpd "delete from rocpd_metadata where tag = 'rank'"
rpd-merge -q -o pos.rpd u1.rpd u0.rpd 2>/dev/null
check_eq "untagged inputs: rank = position" "0|u1.rpd,1|u0.rpd" \
  "$(q pos.rpd "select group_concat(rank || '|' || file) from rpd_rank")"

# derived ext_* tables are not copied
tmpcopy r1.rpd x1.rpd
q x1.rpd "create table ext_fake(a); insert into ext_fake values (1)"
rpd-merge -q -o x.rpd r0.rpd x1.rpd 2>/dev/null
check_eq "ext_* tables not copied" "0" "$(q x.rpd "select count(*) from sqlite_master where name like 'ext%'")"

# a dangling string reference becomes '' (the row is kept)
tmpcopy r1.rpd dang.rpd
q dang.rpd "update rocpd_api set apiName_id = 999999 where id in (select id from rocpd_api limit 3)"
check_rc "dangling string ids" 0 rpd-merge -q -o dang-m.rpd r0.rpd dang.rpd
check_eq "dangling string ids: rows kept, named ''" "6000|3" \
  "$(q dang-m.rpd "select count(*), sum(apiName = '') from napi")"

# schema v2 ranks merge into a v2 trace
rpd-synth --schema 2 --ranks 2 --rank 0 --api 500 -o v0.rpd >/dev/null
rpd-synth --schema 2 --ranks 2 --rank 1 --api 500 -o v1.rpd >/dev/null
check_rc "merge v2 ranks" 0 rpd-merge -o v.rpd v0.rpd v1.rpd
check_eq "v2 merged rows" "1000|2|$(q v1.rpd 'select sum(length(args)) from api')" \
  "$(q v.rpd "select count(*), (select value from rocpd_metadata where tag = 'schema_version'), (select sum(length(args)) from api where pid >= 10000000) from rocpd_api")"
# .gz input
gzip -c r1.rpd >g1.rpd.gz
check_rc "gz input" 0 rpd-merge -o g.rpd r0.rpd g1.rpd.gz
check_eq "gz input rows" "6000" "$(q g.rpd 'select count(*) from rocpd_api')"
# .gz output: written compressed (rpd_create), byte-identical inside
check_rc "gz output" 0 rpd-merge -q -o gout.rpd.gz r0.rpd g1.rpd.gz
check "gz output is gzip" gzip -t gout.rpd.gz
gzip -dc gout.rpd.gz >gout.rpd
check_eq "gz output: same rows" "$(sqlite3 g.rpd .dump | cksum)" "$(sqlite3 gout.rpd .dump | cksum)"

# ---------------------------------------------------------------- clocks
for r in 0 1 2; do
  rpd-synth --ranks 4 --rank $r --api 3000 --clock-skew 5000000 -o s$r.rpd >/dev/null
done
rpd-merge -q -o none.rpd --align none s0.rpd s1.rpd s2.rpd
check_eq "--align none keeps the skew" "5000000" \
  "$(q none.rpd "select (select min(start) from rocpd_api where pid / 10000000 = 1) - (select min(start) from rocpd_api where pid / 10000000 = 0)")"
rpd-merge -q -o coll.rpd --align collective s0.rpd s1.rpd s2.rpd
check_eq "--align collective: shifts" "0,-5000000,-10000000" \
  "$(q coll.rpd "select group_concat(clock_shift_ns) from rpd_rank")"
check_eq "--align collective: ranks 0 and 1 on one clock" "0" \
  "$(q coll.rpd "select (select sum(start) from rocpd_api where pid / 10000000 = 1) - (select sum(start) from rocpd_api where pid / 10000000 = 0)")"
tmpcopy s1.rpd h1.rpd
q h1.rpd "insert into rocpd_metadata(tag, value) values ('clock_offset_ns', '-5000000')"
rpd-merge -q -o meta.rpd s0.rpd h1.rpd
check_eq "metadata hint clock_offset_ns" "0,-5000000" "$(q meta.rpd "select group_concat(clock_shift_ns) from rpd_rank")"
rpd-merge -q -o off.rpd --align none --offset 1=-4999000 s0.rpd s1.rpd
check_eq "--offset R=NS" "1000" \
  "$(q off.rpd "select (select min(start) from rocpd_api where pid / 10000000 = 1) - (select min(start) from rocpd_api where pid / 10000000 = 0)")"

# ---------------------------------------------------------------- errors
mkdir -p err && cd err
printf 'not a database at all, not even close\n' >junk.rpd
check_rc "not SQLite: exit 1" 1 rpd-merge -o out.rpd ../r0.rpd junk.rpd
check_one_line "not SQLite: one line"
check_eq "not SQLite: no output, no temp file" "junk.rpd" "$(ls -A)"
check_rc "no inputs: usage" 2 rpd-merge -o out.rpd
check_rc "no -o: usage" 2 rpd-merge ../r0.rpd
check_rc "bad --align" 2 rpd-merge --align sideways -o out.rpd ../r0.rpd
check_rc "bad --offset" 2 rpd-merge --offset x -o out.rpd ../r0.rpd
check_rc "--offset of a missing rank" 2 rpd-merge -q --offset 7=1 -o out.rpd ../r0.rpd
check_rc "mixed schemas" 1 rpd-merge -o out.rpd ../r0.rpd ../v0.rpd
check_one_line "mixed schemas: one line"
check_rc "output exists" 1 rpd-merge -o ../m.rpd ../r0.rpd
check_rc "output is an input" 1 rpd-merge --force -o ../r0.rpd ../r0.rpd ../r1.rpd
check_eq "input unchanged after refusals" "$before" "$(sha ../r0.rpd)"
if [ -e "$TRACES/rocprofv3_28_results.db" ]; then
  check_rc "rocprofv3 database: use rpd-import" 1 rpd-merge -o out.rpd "$TRACES/rocprofv3_28_results.db"
  check_one_line "rocprofv3 database: one line"
else
  skip "rocprofv3 database" "needs $TRACES/rocprofv3_28_results.db"
fi
rpd-synth --api 500 -o nocoll.rpd --graphs 0 >/dev/null
q nocoll.rpd "update rocpd_string set string = 'plain_kernel' where string like 'nccl%' or string like '%cross_device%'"
check_rc "--align collective without collectives" 1 rpd-merge --align collective -o out.rpd ../r0.rpd nocoll.rpd
check_eq "left nothing behind" "junk.rpd nocoll.rpd" "$(ls -A | tr '\n' ' ' | sed 's/ $//')"
cd ..

# ---------------------------------------------------------------- kills
# killed while writing: no OUT; the temp file (named after OUT, locked) is
# removed by the next run; SIGTERM removes it at once
mkdir -p kill && cd kill
for r in 0 1 2 3; do rpd-synth --ranks 4 --rank $r --api 20000 -o k$r.rpd >/dev/null; done
# kill_when_temp SIG: start a merge, send SIG once its temp file exists
kill_when_temp() {
  rpd-merge -q --force -o km.rpd k0.rpd k1.rpd k2.rpd k3.rpd k0.rpd k1.rpd k2.rpd k3.rpd 2>/dev/null &
  _p=$!
  _i=0
  while [ $_i -lt 500 ] && kill -0 $_p 2>/dev/null; do
    ls -A | grep -q '^\.km\.rpd\.rpdtools-' && { kill -$1 $_p; break; }
    sleep 0.01; _i=$((_i + 1))
  done
  wait $_p
}
kill_when_temp 9
check_eq "kill -9: exit 137, no output" "137|" "$?|$(ls | grep '^km' | tr '\n' ' ')"
check_rc "merge after a kill -9" 0 rpd-merge -q -o km.rpd k0.rpd k1.rpd
check_eq "the killed run's temp file is gone" "" "$(ls -A | grep rpdtools)"
kill_when_temp TERM
check_eq "SIGTERM: exit 143, nothing left, old OUT kept" "143|km.rpd|40000" \
  "$?|$(ls -A | grep '^\.\?km' | tr '\n' ' ' | sed 's/ $//')|$(q km.rpd 'select count(*) from rocpd_api')"
cd ..

# ---------------------------------------------------------------- --by-rank
check_rc "by-rank text" 0 raptor m.rpd --by-rank
check_eq "by-rank text: each table under '# NAME', as --report's" \
  "# ranks # categories # kernels # sequences # collectives # stragglers" \
  "$(grep '^#' stdout | tr '\n' ' ' | sed 's/ $//')"
check_rc "by-rank json" 0 raptor m.rpd --by-rank --top 0 --format json
check "by-rank json parses" python3 -c "import json; d = json.load(open('stdout')); assert set(d) == {'ranks', 'categories', 'kernels', 'sequences', 'collectives', 'stragglers'}"
check_eq "straggler: rank 3 last at every shared collective" "3|1" \
  "$(python3 -c "import json; s = json.load(open('stdout'))['stragglers'][0]; print(s['rank'], int(s['times_last'] == s['collectives'] and s['collectives'] > 20), sep='|')")"
check_eq "straggler: the others never last" "0 0 0" \
  "$(python3 -c "import json; print(*[s['times_last'] for s in json.load(open('stdout'))['stragglers'][1:]])")"
# rank 3's k-th collective counts when another rank has a k-th one too:
# per local GPU, min(rank 3's count, the largest other count)
ncoll=$(q m.rpd "with n as (select O.gpuId % 1000 lg, O.gpuId / 1000 r, count(*) c from rocpd_op O join rocpd_string S on S.id = O.description_id where S.string like 'nccl%' or S.string like '%cross_device_reduce%' group by 1, 2) select sum(min(c, (select max(c) from n o where o.lg = n.lg and o.r <> 3))) from n where r = 3")
check_eq "straggler: collectives counted" "$ncoll" \
  "$(python3 -c "import json; print(json.load(open('stdout'))['stragglers'][0]['collectives'])")"
check_eq "first collective skew is the planted 200 us" "200.0" \
  "$(python3 -c "import json; print(min(c['skew_us'] for c in json.load(open('stdout'))['collectives'] if c['collective'] == 1 and c['local_gpu'] == 0))")"
slow0=$(q r0.rpd "select sum(\"end\" - start) from op where description = 'attn_fwd'")
slow2=$(q r2.rpd "select sum(\"end\" - start) from op where description = 'attn_fwd'")
check_eq "planted slow kernel: 3x on rank 2 in the source" "$((slow0 * 3))" "$slow2"
slow3=$(q r3.rpd "select sum(\"end\" - start) from op where description = 'attn_fwd'")
check_eq "slow kernel: attn_fwd first, slowest rank 2, imbalance max/mean" \
  "attn_fwd|2|$(python3 -c "print(round($slow2 * 4 / ($slow0 * 2 + $slow2 + $slow3), 3))")" \
  "$(python3 -c "import json; k = json.load(open('stdout'))['kernels'][0]; print(k['kernel'], k['slowest_rank'], k['imbalance'], sep='|')")"
check_eq "by-rank kernel totals per rank" "$(echo "$slow0 $slow2" | awk '{printf "%.3f|%.3f", $1/1000, $2/1000}')" \
  "$(python3 -c "import json; k = json.load(open('stdout'))['kernels'][0]; print('%.3f|%.3f' % (k['rank0_us'], k['rank2_us']))")"
check_eq "ranks table" "0 1 2 3" "$(python3 -c "import json; print(*[r['rank'] for r in json.load(open('stdout'))['ranks']])")"
check_rc "by-rank --save" 0 raptor m.rpd --by-rank --save --table ranks
check_eq "ext_byrank tables" "ext_byrank_categories ext_byrank_collectives ext_byrank_kernels ext_byrank_ranks ext_byrank_sequences ext_byrank_stragglers" \
  "$(q m.rpd "select group_concat(name, ' ') from (select name from sqlite_master where name like 'ext_byrank_%' order by 1)")"
check_eq "saved straggler row" "3|1" "$(q m.rpd 'select rank, times_last = collectives from ext_byrank_stragglers limit 1')"
raptor m.rpd --by-rank --save --table ranks >/dev/null
check_eq "--save again replaces" "4" "$(q m.rpd 'select count(*) from ext_byrank_ranks')"
check_rc "by-rank --csv-dir" 0 raptor m.rpd --by-rank --csv-dir csv
check_eq "csv files" "categories.csv collectives.csv kernels.csv ranks.csv sequences.csv stragglers.csv" "$(ls csv | tr '\n' ' ' | sed 's/ $//')"
check_eq "csv stragglers header" "rank,collectives,times_last,mean_late_us,max_late_us" "$(head -1 csv/stragglers.csv | tr -d '\r')"
check_rc "by-rank --xlsx" 0 raptor m.rpd --by-rank --xlsx br.xlsx --table ranks
# a python with openpyxl (the Debian one when python3 is another)
xlpy=python3
python3 -c "import openpyxl" 2>/dev/null || xlpy=/usr/bin/python3
if $xlpy -c "import openpyxl" 2>/dev/null; then
  check_eq "xlsx sheets and a straggler cell" "ranks categories kernels sequences collectives stragglers|3" \
    "$($xlpy -c "import openpyxl; wb = openpyxl.load_workbook('br.xlsx'); print(*wb.sheetnames, end='|'); print(wb['stragglers']['A2'].value)")"
else
  skip "xlsx opened with openpyxl" "python3-openpyxl not installed"
fi
check_rc "by-rank csv needs --table" 2 raptor m.rpd --by-rank --format csv
check_rc "by-rank bad --table" 2 raptor m.rpd --by-rank --table nope
check_rc "by-rank on a trace without GPU work" 1 raptor err/junk.rpd --by-rank
check_one_line "by-rank failure: one line"
check_rc "by-rank --help" 0 raptor --by-rank --help
check "by-rank --help text" grep -q "stragglers" stdout
check_rc "unmerged trace is rank 0" 0 raptor r1.rpd --by-rank --table ranks --format csv
check_eq "unmerged ranks row" "0,,2,$(q r1.rpd "select count(*) from rocpd_op")" "$(sed -n 2p stdout | tr -d '\r' | cut -d, -f1-4)"

# ---------------------------------------------------------------- values the merge must not trust
# a text timestamp: refused, not copied
cp r1.rpd bt.rpd
q bt.rpd "UPDATE rocpd_api SET start = 'soon' WHERE id = (SELECT min(id) FROM rocpd_api)"
check_rc "text api start: refused" 1 rpd-merge -o bt_m.rpd r0.rpd bt.rpd
check_one_line "text api start: one line"
check "text api start: names file and column" grep -q "cannot read 'bt.rpd': rocpd_api.start: 1 row" "$TESTDIR/stderr"
check_eq "text api start: no OUT" "no" "$(test -e bt_m.rpd && echo yes || echo no)"
# clock_offset_ns that moves the times out of range (REALs past 2^63)
cp r1.rpd bo.rpd
rpd-metadata bo.rpd --set clock_offset_ns 9223372036854775807 >/dev/null 2>&1
check_eq "clock_offset_ns planted" "9223372036854775807" "$(q bo.rpd "SELECT value FROM rocpd_metadata WHERE tag = 'clock_offset_ns'")"
check_rc "clock_offset_ns 2^63-1: refused" 1 rpd-merge -o bo_m.rpd r0.rpd bo.rpd
check_one_line "clock_offset_ns 2^63-1: one line"
check "clock_offset_ns 2^63-1: says why" grep -q "cannot merge 'bo.rpd': a clock shift of 9223372036854775807 ns (metadata clock_offset_ns) moves its times" "$TESTDIR/stderr"
check_eq "clock_offset_ns 2^63-1: no OUT" "no" "$(test -e bo_m.rpd && echo yes || echo no)"
check_rc "clock_offset_ns 2^63-1 with --align none: merges" 0 rpd-merge -q --align none -o bo_n.rpd r0.rpd bo.rpd
check_eq "--align none: every start stays an integer" "0" "$(q bo_n.rpd "SELECT count(*) FROM rocpd_api WHERE typeof(start) <> 'integer'")"
q bo.rpd "UPDATE rocpd_metadata SET value = '-1e3' WHERE tag = 'clock_offset_ns'"
check_rc "clock_offset_ns -1e3: refused" 1 rpd-merge -o bo_m.rpd r0.rpd bo.rpd
check "clock_offset_ns -1e3: says why" grep -q "metadata clock_offset_ns: '-1e3' is not an integer" "$TESTDIR/stderr"
q bo.rpd "UPDATE rocpd_metadata SET value = '-1000' WHERE tag = 'clock_offset_ns'"
check_rc "clock_offset_ns -1000: merges" 0 rpd-merge -q -o bo_ok.rpd r0.rpd bo.rpd
check_eq "clock_offset_ns -1000: rank 1 shifted by exactly -1000" \
  "$(( $(q bo.rpd "SELECT min(start) FROM rocpd_api") - 1000 ))" \
  "$(q bo_ok.rpd "SELECT min(start) FROM napi WHERE node = 1")"
check_rc "--offset that overflows: refused" 1 rpd-merge -o bo_m.rpd --offset 1=9223372036854775000 r0.rpd bo.rpd
check_one_line "--offset that overflows: one line"
# rank tags whose strides leave the sane ranges
for rk in 9223372036854775807 2147483647 2147483; do
  cp r0.rpd rk0.rpd; cp r1.rpd rk1.rpd
  rpd-metadata rk1.rpd --set rank $rk >/dev/null 2>&1
  rm -f rk_m.rpd
  check_rc "rank $rk: refused" 1 rpd-merge -o rk_m.rpd rk0.rpd rk1.rpd
  check_one_line "rank $rk: one line"
  check "rank $rk: says why" grep -q "cannot merge 'rk1.rpd': its metadata rank $rk is beyond 2147482" "$TESTDIR/stderr"
  check_eq "rank $rk: no OUT" "no" "$(test -e rk_m.rpd && echo yes || echo no)"
done
rpd-metadata rk1.rpd --set rank 2147482 >/dev/null 2>&1
check_rc "rank 2147482 (the largest): merges" 0 rpd-merge -q -o rk_m.rpd rk0.rpd rk1.rpd
check_eq "rank 2147482: gpuIds stay below 2^31" "1" \
  "$(q rk_m.rpd "SELECT max(gpuId) < 2147483648 AND min(gpuId) >= 0 FROM rocpd_op")"
