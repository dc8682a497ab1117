#!/bin/sh
# tests/tools/rpd-synth.sh - the trace generator: determinism, exact row
# counts, referential integrity, v2/v3 layouts, graph arg formats, markers.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

check "--help prints usage" rpd-synth --help
check_eq "--help first line" "usage: rpd-synth [OPTIONS] -o OUT.rpd" "$(head -1 "$TESTDIR/check.out")"

# --- determinism and exact counts
rpd-synth --seed 7 --api 4000 -o a.rpd >a.out 2>&1 || notok "generate a.rpd" "$(cat a.out)"
rpd-synth --seed 7 --api 4000 -o b.rpd >/dev/null 2>&1
rpd-synth --seed 8 --api 4000 -o c.rpd >/dev/null 2>&1
same_file "same seed gives a byte-identical file" a.rpd b.rpd
if cmp -s a.rpd c.rpd; then notok "another seed gives another trace"; else ok "another seed gives another trace"; fi
check_eq "exactly --api rows" 4000 "$(q a.rpd 'select count(*) from rocpd_api')"
check_eq "summary line counts" "api 4000, op $(q a.rpd 'select count(*) from rocpd_op')" \
  "$(sed -n 's/.*): \(api [0-9]*, op [0-9]*\),.*/\1/p' a.out)"
check_eq "same content for the same seed (api view)" \
  "$(q a.rpd 'select * from api' | cksum)" "$(q b.rpd 'select * from api' | cksum)"
check_eq "no temp file left" "a.out a.rpd b.rpd c.rpd" "$(ls | grep -v '^check\.' | tr '\n' ' ' | sed 's/ $//')"

for n in 0 1 7 150; do
  rpd-synth --api $n -o n$n.rpd >/dev/null 2>&1
  check_eq "--api $n is exact" "$n" "$(q n$n.rpd 'select count(*) from rocpd_api')"
done

# --- referential integrity
check_eq "every api_ops link resolves" 0 "$(q a.rpd 'select count(*) from rocpd_api_ops l
  left join rocpd_api a on a.id = l.api_id left join rocpd_op o on o.id = l.op_id
  where a.id is null or o.id is null')"
check_eq "every op has exactly one api" "$(q a.rpd 'select count(*) from rocpd_op')" \
  "$(q a.rpd 'select count(distinct op_id) from rocpd_api_ops')"
check_eq "ops = api_ops rows" "$(q a.rpd 'select count(*) from rocpd_op')" "$(q a.rpd 'select count(*) from rocpd_api_ops')"
check_eq "kernelapi rows map to launches" 0 "$(q a.rpd "select count(*) from rocpd_kernelapi k
  left join api a on a.id = k.api_ptr_id
  where a.apiName is null or a.apiName not in ('hipLaunchKernel', 'hipExtModuleLaunchKernel')")"
check_eq "every launch has a kernelapi row" 0 "$(q a.rpd "select count(*) from api where apiName in
  ('hipLaunchKernel', 'hipExtModuleLaunchKernel') and id not in (select api_ptr_id from rocpd_kernelapi)")"
check_eq "copyapi rows map to hipMemcpyAsync" 0 "$(q a.rpd "select count(*) from rocpd_copyapi c
  left join api a on a.id = c.api_ptr_id where a.apiName is null or a.apiName <> 'hipMemcpyAsync'")"
check_eq "launches outside capture have one op" 1 "$(q a.rpd "select count(distinct n) from (select
  (select count(*) from rocpd_api_ops l where l.api_id = k.api_ptr_id) n from rocpd_kernelapi k
  join rocpd_api a on a.id = k.api_ptr_id where a.start > (select max(start) from api where apiName = 'hipGraphInstantiate'))")"
check_eq "captured launches have no op" 0 "$(q a.rpd "select count(*) from rocpd_api_ops l join rocpd_api a
  on a.id = l.api_id where a.\"end\" < (select min(start) from api where apiName = 'hipStreamEndCapture')")"
check_eq "times ordered" 0 "$(q a.rpd 'select (select count(*) from rocpd_api where start > "end")
  + (select count(*) from rocpd_op where start >= "end")')"
check_eq "ops of one queue never overlap" 0 "$(q a.rpd 'select count(*) from (select start, lag("end")
  over (partition by gpuId, queueId order by start) as prev from rocpd_op) where start < prev')"

# --- graph capture and launches
check_eq "BeginCapture args" 2 "$(q a.rpd "select count(*) from api where apiName = 'hipStreamBeginCapture'
  and args glob 'stream = 0x*[0-9a-f] | mode = 0'")"
check_eq "EndCapture args" 2 "$(q a.rpd "select count(*) from api where apiName = 'hipStreamEndCapture'
  and args glob 'stream = 0x*[0-9a-f] | graph = 0x*[0-9a-f]'")"
check_eq "GraphInstantiate args" 2 "$(q a.rpd "select count(*) from api where apiName = 'hipGraphInstantiate'
  and args glob 'graphExec = 0x*[0-9a-f] | graph = 0x*[0-9a-f]'")"
check_eq "GraphLaunch args all well formed" 0 "$(q a.rpd "select count(*) from api where apiName = 'hipGraphLaunch'
  and args not glob 'graphExec = 0x*[0-9a-f] | stream = 0x*[0-9a-f]'")"
check_eq "every launched graphExec was instantiated" 0 "$(q a.rpd "select count(*) from api l where
  l.apiName = 'hipGraphLaunch' and substr(l.args, 1, instr(l.args, ' |')) not in
  (select substr(args, 1, instr(args, ' |')) from api where apiName = 'hipGraphInstantiate')")"
check_eq "a graph launch runs 4-12 Task ops" "1|1" "$(q a.rpd "select min(n) >= 4, max(n) <= 12 from
  (select count(*) n from api a join rocpd_api_ops l on l.api_id = a.id join op o on o.id = l.op_id
   where a.apiName = 'hipGraphLaunch' and o.opType = 'Task' group by a.id)")"
check "some graph launches" test "$(q a.rpd "select count(*) from api where apiName = 'hipGraphLaunch'")" -gt 5
check_eq "graphs on several streams" 2 "$(q a.rpd "select count(distinct substr(args, instr(args, 'stream ='))) from api where apiName = 'hipGraphLaunch'")"
rpd-synth --api 2000 --graphs 0 -o g0.rpd >/dev/null 2>&1
check_eq "--graphs 0: no graph api" 0 "$(q g0.rpd "select count(*) from api where apiName like 'hipGraph%' or apiName like '%Capture'")"

# --- markers
check "nested ranges (a marker inside a marker)" test "$(q a.rpd "select count(*) from api p join api c on
  c.tid = p.tid and c.start > p.start and c.\"end\" < p.\"end\" and c.apiName = 'UserMarker'
  where p.apiName = 'UserMarker' and p.args = 'attention'")" -gt 0
check "autograd full form" test "$(q a.rpd "select count(*) from api where args glob
  'aten::*, seq = [0-9]*, op_id = [0-9]*, sizes = [[]*], input_op_ids = [[]*]'")" -gt 0
check "autograd form without seq" test "$(q a.rpd "select count(*) from api where args glob
  'aten::*, op_id = [0-9]*, sizes = [[]*], input_op_ids = [[]*]' and args not like '%seq =%'")" -gt 0
check "autograd form seq + op_id" test "$(q a.rpd "select count(*) from api where args glob
  'aten::*, seq = [0-9]*, op_id = [0-9]*' and args not like '%sizes%'")" -gt 0
check "autograd form op_id only" test "$(q a.rpd "select count(*) from api where args glob
  'aten::*, op_id = [0-9]*' and args not like '%seq%' and args not like '%sizes%'")" -gt 0
check "zero-length markers" test "$(q a.rpd "select count(*) from api where apiName = 'UserMarker' and start = \"end\"")" -gt 0
check "ties: a row starts on the ns another ends" test "$(q a.rpd 'select count(*) from rocpd_api a
  join rocpd_api b on b.tid = a.tid and b.start = a."end" and b.id <> a.id')" -gt 0
check_eq "hostile kernel names present" 3 "$(q a.rpd "select count(distinct kernelName) from kernel where
  kernelName like '%\"%' or kernelName like '%<script>%' or kernelName like '%\\%'")"
check "copies with empty description" test "$(q a.rpd "select count(*) from op where description = ''
  and opType in ('CopyHostToDevice', 'CopyDeviceToHost', 'CopyDeviceToDevice')")" -gt 0
check "idle gaps after hipDeviceSynchronize" test "$(q a.rpd "select count(*) from api where apiName = 'hipDeviceSynchronize'")" -gt 0
check "sclk samples for both GPUs" test "$(q a.rpd "select count(distinct deviceId) from rocpd_monitor where monitorType = 'sclk'")" -eq 2
rpd-synth --api 2000 --no-autograd -o na.rpd >/dev/null 2>&1
check_eq "--no-autograd: plain marker names" 0 "$(q na.rpd "select count(*) from api where args like '%op_id =%'")"
check "--no-autograd: aten markers still there" test "$(q na.rpd "select count(*) from api where args = 'aten::linear'")" -gt 0

# --- GPUs and threads
rpd-synth --api 3000 --gpus 3 --threads 6 -o t6.rpd >/dev/null 2>&1
check_eq "--gpus 3 --threads 6: GPUs" "0 1 2" "$(q t6.rpd 'select distinct gpuId from rocpd_op order by 1' | tr '\n' ' ' | sed 's/ $//')"
check_eq "--gpus 3 --threads 6: threads" 6 "$(q t6.rpd 'select count(distinct tid) from rocpd_api')"
check_eq "--gpus 3 --threads 6: queues per GPU" 4 "$(q t6.rpd 'select count(distinct queueId) from rocpd_op where gpuId = 0')"

# --- layouts
v3_api="id,pid,tid,start,end,apiName_id,category_id,domain_id,args_id"
v2_api="id,pid,tid,start,end,apiName_id,args_id"
v2_op="id,gpuId,queueId,sequenceId,completionSignal,start,end,description_id,opType_id"
cols() { q "$1" "select group_concat(name, ',') from pragma_table_info('$2')"; }
check_eq "v3 rocpd_api columns" "$v3_api" "$(cols a.rpd rocpd_api)"
check_eq "v3 metadata" "gpu_stride=1000 pid_stride=10000000 schema_version=3" \
  "$(q a.rpd "select tag || '=' || value from rocpd_metadata order by tag" | tr '\n' ' ' | sed 's/ $//')"
check_eq "v3 args in rocpd_ustring" 0 "$(q a.rpd "select count(*) from rocpd_api a left join rocpd_ustring u on u.id = a.args_id where u.id is null")"
check_eq "v3 domains" "UserMarker hip" "$(q a.rpd 'select distinct domain from api order by 1' | tr '\n' ' ' | sed 's/ $//')"
rpd-synth --seed 7 --api 4000 --schema 2 -o v2.rpd >/dev/null 2>&1
check_eq "v2 rocpd_api columns" "$v2_api" "$(cols v2.rpd rocpd_api)"
check_eq "v2 rocpd_op columns" "$v2_op" "$(cols v2.rpd rocpd_op)"
check_eq "v2 has no rocpd_ustring" 0 "$(q v2.rpd "select count(*) from sqlite_master where name = 'rocpd_ustring'")"
check_eq "v2 metadata" "schema_version=2" "$(q v2.rpd "select tag || '=' || value from rocpd_metadata")"
check_eq "v2 and v3 of one seed: same api view" "$(q a.rpd 'select id, pid, tid, start, "end", apiName, args from api' | cksum)" \
  "$(q v2.rpd 'select id, pid, tid, start, "end", apiName, args from api' | cksum)"
check_eq "v2 and v3 of one seed: same kernel view" "$(q a.rpd 'select * from kernel' | cksum)" "$(q v2.rpd 'select * from kernel' | cksum)"
if need_shared "$TRACES/synth-small.rpd"; then
  for t in rocpd_api rocpd_op rocpd_api_ops rocpd_kernelapi rocpd_copyapi rocpd_monitor rocpd_string rocpd_metadata; do
    check_eq "v2 $t layout = synth-small.rpd" \
      "$(q "$TRACES/synth-small.rpd" "select group_concat(name || ' ' || type, ',') from pragma_table_info('$t')")" \
      "$(q v2.rpd "select group_concat(name || ' ' || type, ',') from pragma_table_info('$t')")"
  done
fi

# --- refusing to overwrite, usage errors
cp a.rpd keep.rpd
check_rc "refuses a non-empty OUT" 1 rpd-synth --api 10 -o a.rpd
check_one_line "refusal is one line"
same_file "refused OUT untouched" keep.rpd a.rpd
check_rc "--force overwrites" 0 rpd-synth --api 10 --force -o a.rpd
check_eq "--force result" 10 "$(q a.rpd 'select count(*) from rocpd_api')"
: >empty.rpd
check_rc "an existing empty OUT is fine" 0 rpd-synth --api 10 -o empty.rpd
check_rc "fewer threads than GPUs" 2 rpd-synth --gpus 2 --threads 1 -o x.rpd
check_rc "unknown option" 2 rpd-synth --bogus -o x.rpd
check_rc "no -o" 2 rpd-synth --api 10
check_rc "bad number" 2 rpd-synth --api 12x -o x.rpd
check_rc "bad schema" 2 rpd-synth --schema 4 -o x.rpd
# OUT.gz: written compressed (rpd_create), the same rows as the plain file
check_rc ".gz output" 0 rpd-synth -q --api 300 -o gz.rpd.gz
check ".gz output is gzip" gzip -t gz.rpd.gz
rpd-synth --api 300 -o plain300.rpd >/dev/null
gzip -dc gz.rpd.gz >gz300.rpd
check_eq ".gz output: same rows as plain" "$(sqlite3 plain300.rpd .dump | cksum)" \
  "$(sqlite3 gz300.rpd .dump | cksum)"
check_eq ".gz output: no temp left" "" "$(ls -a | grep rpdtools-)"
check_rc "directory as OUT" 1 rpd-synth -o .
check_rc "missing directory" 1 rpd-synth -o no/such/dir/x.rpd
check_one_line "missing directory is one line"
check_rc "empty -o" 2 rpd-synth -o ''
# a symlink is written through (the link stays); a device is never replaced
echo old >target.rpd; ln -s target.rpd link.rpd
check_rc "-o SYMLINK --force" 0 rpd-synth --api 20 --force -o link.rpd
check "... the link stays a link" test -L link.rpd
check_eq "... its target is the trace" 20 "$(q target.rpd 'select count(*) from rocpd_api')"
ln -s missing-target.rpd dangling.rpd
check_rc "-o DANGLING-SYMLINK creates the target" 0 rpd-synth --api 5 -o dangling.rpd
check_eq "... through the link" "5 yes" "$(q missing-target.rpd 'select count(*) from rocpd_api') $(test -L dangling.rpd && echo yes)"
if mknod dev.null c 1 3 2>/dev/null; then
  check_rc "-o DEVICE is refused" 1 rpd-synth --api 5 --force -o dev.null
  check_one_line "device refusal is one line"
  check "... the device stays a device" test -c dev.null
  rm -f dev.null
else
  skip "-o DEVICE is refused" "mknod needs root"
fi
# the longest legal name works: the temp file is not OUT plus a suffix
# (".<name cut to 64>.rpdtools-XXXXXX"), and nothing is left next to OUT
mkdir long
ln255=$(printf '%0251d' 0).rpd
check_rc "-o with a 255-byte name" 0 rpd-synth --api 30 -o "long/$ln255"
check_eq "... the trace" 30 "$(q "long/$ln255" 'select count(*) from rocpd_api')"
check_rc "-o with a 255-byte name --force over it" 0 rpd-synth --api 40 --force -o "long/$ln255"
check_eq "... replaced" 40 "$(q "long/$ln255" 'select count(*) from rocpd_api')"
check_eq "... no temp file left" "$ln255" "$(ls -A long)"
# replaced by rename, never rewritten in place: a hard link to the old
# file keeps the old trace
ln "long/$ln255" long/old.rpd
check_rc "--force over an existing trace" 0 rpd-synth --api 50 --force -o "long/$ln255"
check_eq "... the old trace's other name still holds it" "50 40" \
  "$(q "long/$ln255" 'select count(*) from rocpd_api') $(q long/old.rpd 'select count(*) from rocpd_api')"
if [ -c /dev/full ]; then
  check_rc "stdout full: exit 1" 1 sh -c 'rpd-synth --api 10 -o long/full.rpd >/dev/full'
  check_one_line "stdout full: one line"
fi

# --- the completion-order shape: --order end, --layers N
rpd-synth --seed 7 --api 4000 -o od.rpd >/dev/null 2>&1
rpd-synth --seed 7 --api 4000 --order step -o os.rpd >/dev/null 2>&1
same_file "--order step is the default (byte-identical)" od.rpd os.rpd
rpd-synth --seed 5 --api 20000 --order end --threads 4 --layers 24 -o oe.rpd >oe.out 2>&1 ||
  notok "generate oe.rpd" "$(cat oe.out)"
rpd-synth --seed 5 --api 20000 --order end --threads 4 --layers 24 -o oe2.rpd >/dev/null 2>&1
same_file "--order end: same options give a byte-identical file" oe.rpd oe2.rpd
check_eq "--order end: exactly --api rows, 4 threads" "20000 4" \
  "$(q oe.rpd 'select count(*), count(distinct tid) from rocpd_api' | tr '|' ' ')"
check_eq "--order end: every row ends no earlier than the row before it" 0 \
  "$(q oe.rpd 'select count(*) from (select "end" e, lag("end") over (order by id) p from rocpd_api) where e < p')"
check "--order end: threads interleave row by row (>1000 thread switches)" test \
  "$(q oe.rpd 'select count(*) from (select tid t, lag(tid) over (order by id) p from rocpd_api) where t <> p')" -gt 1000
check "--order end: a caller is stored after its callees (model.forward after its layers)" test \
  "$(q oe.rpd "select count(*) from api f join api l on l.tid = f.tid and l.start >= f.start and l.\"end\" <= f.\"end\" and l.id <> f.id where f.args = 'model.forward' and l.args like 'layer.%' and l.id < f.id")" -gt 100
check_eq "--order end: every op linked once, to an existing call" "0 $(q oe.rpd 'select count(*) from rocpd_op')" \
  "$(q oe.rpd 'select count(*) from rocpd_api_ops l left join rocpd_api a on a.id = l.api_id where a.id is null') $(q oe.rpd 'select count(distinct op_id) from rocpd_api_ops')"
check_eq "--order end: ops numbered in the order their calls are stored" 0 \
  "$(q oe.rpd 'select count(*) from (select api_id a, lag(api_id) over (order by op_id) p from rocpd_api_ops) where a < p')"
check_eq "--layers 24: each model.forward holds layer.0 .. layer.23" "24 0 23" \
  "$(q oe.rpd "select min(n), min(lo), max(hi) from (select f.id, count(*) n, min(cast(substr(l.args, 7) as int)) lo, max(cast(substr(l.args, 7) as int)) hi from api f join api l on l.tid = f.tid and l.start >= f.start and l.\"end\" <= f.\"end\" where f.args = 'model.forward' and l.args like 'layer.%' group by f.id)" | tr '|' ' ')"
check_eq "--layers 24: calls nest 6 deep (forward > layer > range > aten > aten > launch)" 6 \
  "$(rpd-callstack oe.rpd | sed -n 's/.*max depth \([0-9]*\),.*/\1/p')"
rpd-synth --seed 5 --api 20000 --threads 4 --layers 24 -o ol.rpd >/dev/null 2>&1
check_eq "--order end stores the rows of --order step, reordered" \
  "$(q ol.rpd 'select tid, start, "end", apiName, args from api order by tid, start, "end", args' | cksum)" \
  "$(q oe.rpd 'select tid, start, "end", apiName, args from api order by tid, start, "end", args' | cksum)"
check_rc "--order bogus: usage" 2 rpd-synth --order bogus -o x.rpd
check_rc "--layers 0: usage" 2 rpd-synth --layers 0 -o x.rpd
check_rc "--layers 129: usage" 2 rpd-synth --layers 129 -o x.rpd
