#!/bin/sh
# tests/tools/rpd-schema.sh - --create, --print, --info, --views, --upgrade
# and bad input.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
VIEWS_DIR="$here/../../views"
UTIL="api busy copy copyop kernel ktop napi nop op opClass stackframe top"

check "--help prints usage" rpd-schema --help
check_eq "--help first line" "usage: rpd-schema --create FILE [--schema 2|3] [--force]" "$(head -1 "$TESTDIR/check.out")"

# table:columns of every table, one line each, sorted
layout() {
  for t in $(q "$1" "select name from sqlite_master where type = 'table' and name not like 'sqlite%' order by name"); do
    echo "$t:$(q "$1" "select group_concat(name || ' ' || lower(type), ',') from pragma_table_info('$t')")"
  done
}
names() { q "$1" "select name from sqlite_master where type = '$2' and name not like 'sqlite%' order by name" | tr '\n' ' ' | sed 's/ $//'; }

# --- --create (v3): the reference's exact tables and columns
check_rc "--create" 0 rpd-schema --create new.rpd
cat >want3.txt <<'EOF'
rocpd_api:id integer,pid integer,tid integer,start integer,end integer,apiName_id bigint,category_id bigint,domain_id bigint,args_id bigint
rocpd_api_ops:id integer,api_id bigint,op_id bigint
rocpd_copyapi:api_ptr_id bigint,stream varchar(18),size integer,width integer,height integer,kind integer,dst varchar(18),src varchar(18),dstDevice integer,srcDevice integer,sync bool,pinned bool
rocpd_counter:id integer,value real,op_id bigint,name_id bigint
rocpd_kernelapi:api_ptr_id bigint,stream varchar(18),gridX integer,gridY integer,gridZ integer,workgroupX integer,workgroupY integer,workgroupZ integer,groupSegmentSize integer,privateSegmentSize integer,kernelName_id bigint
rocpd_metadata:id integer,tag varchar(4096),value varchar(4096)
rocpd_monitor:id integer,deviceType varchar(16),deviceId integer,monitorType varchar(16),start integer,end integer,value varchar(255)
rocpd_op:id integer,gpuId integer,queueId integer,sequenceId integer,start integer,end integer,description_id bigint,opType_id bigint
rocpd_stackframe:id integer,api_ptr_id bigint,depth integer,name_id bigint
rocpd_string:id integer,string varchar(4096)
rocpd_ustring:id integer,string varchar(4096)
EOF
layout new.rpd >got3.txt
if cmp -s want3.txt got3.txt; then ok "v3 tables and columns"; else notok "v3 tables and columns" "$(diff want3.txt got3.txt | head -5 | tr '\n' ' ')"; fi
check_eq "v3 metadata rows" "gpu_stride=1000 pid_stride=10000000 schema_version=3" \
  "$(q new.rpd "select tag || '=' || value from rocpd_metadata order by tag" | tr '\n' ' ' | sed 's/ $//')"
check_eq "v3 string indexes" "rocpd_strin_string_c7b9cd_idx rocpd_ustri_string_84d4a7_idx" "$(names new.rpd index)"
check_eq "v3 utility views" "$UTIL" "$(names new.rpd view)"
check_eq "api view columns" "id,pid,tid,start,end,domain,category,apiName,args" \
  "$(q new.rpd "select group_concat(name, ',') from pragma_table_info('api')")"
check_eq "created file is empty of rows" 0 "$(q new.rpd 'select count(*) from rocpd_api')"

cp new.rpd keep.rpd
check_rc "--create refuses a non-empty file" 1 rpd-schema --create new.rpd
check_one_line "refusal is one line"
same_file "refused file untouched" keep.rpd new.rpd
echo junk >junk.rpd
check_rc "--create --force replaces" 0 rpd-schema --create junk.rpd --force
check_eq "--force result is a trace" 3 "$(q junk.rpd "select value from rocpd_metadata where tag = 'schema_version'")"
cp keep.rpd ro-new.rpd; chmod 444 ro-new.rpd
check_rc "--create --force refuses a read-only file" 1 rpd-schema --create ro-new.rpd --force
check_one_line "read-only refusal is one line"
same_file "read-only file untouched" keep.rpd ro-new.rpd
: >empty0.rpd
check_rc "--create on an existing empty file (tracer dry run)" 0 rpd-schema --create empty0.rpd
check_eq "... gives a trace" 11 "$(q empty0.rpd "select count(*) from sqlite_master where type = 'table' and name like 'rocpd%'")"
check_rc "--create FILE.gz" 0 rpd-schema --create new.rpd.gz
check "--create FILE.gz is gzip" gzip -t new.rpd.gz
check_rc "--create in a missing directory" 1 rpd-schema --create no/such/x.rpd
check_one_line "missing directory is one line"

check_rc "--create with an empty name" 2 rpd-schema --create ''
echo old >target.rpd; ln -s target.rpd link.rpd
check_rc "--create --force SYMLINK" 0 rpd-schema --create link.rpd --force
check "... the link stays a link" test -L link.rpd
check_eq "... its target is the new trace" 3 "$(q target.rpd "select value from rocpd_metadata where tag = 'schema_version'")"
if mknod dev.null c 1 3 2>/dev/null; then
  check_rc "--create --force DEVICE is refused" 1 rpd-schema --create dev.null --force
  check_one_line "device refusal is one line"
  check "... the device stays a device" test -c dev.null
  rm -f dev.null
else
  skip "--create DEVICE is refused" "mknod needs root"
fi
# the longest legal name works (the temp file is not FILE plus a suffix);
# --force replaces by rename (a hard link keeps the old file); nothing left
mkdir long
ln255=$(printf '%0251d' 0).rpd
check_rc "--create with a 255-byte name" 0 rpd-schema --create "long/$ln255"
echo junk >long/old.rpd; ln long/old.rpd long/old2.rpd
check_rc "--create --force over a file with two names" 0 rpd-schema --create long/old.rpd --force
check_eq "... the new trace, the other name keeps the old file" "3 junk" \
  "$(q long/old.rpd "select value from rocpd_metadata where tag = 'schema_version'") $(cat long/old2.rpd)"
check_rc "--create --force with a 255-byte name" 0 rpd-schema --create "long/$ln255" --force --schema 2
check_eq "... replaced by a v2 trace" 2 "$(q "long/$ln255" "select value from rocpd_metadata where tag = 'schema_version'")"
check_eq "... no temp file left" "$ln255 old.rpd old2.rpd" "$(ls -A long | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"

# --- --create --schema 2: the v2 layout
check_rc "--create --schema 2" 0 rpd-schema --create new2.rpd --schema 2
check_eq "v2 metadata" "schema_version=2" "$(q new2.rpd "select tag || '=' || value from rocpd_metadata")"
check_eq "v2 tables" "rocpd_api rocpd_api_ops rocpd_copyapi rocpd_kernelapi rocpd_metadata rocpd_monitor rocpd_op rocpd_string" "$(names new2.rpd table)"
check_eq "v2 views (no stackframe)" "api busy copy copyop kernel ktop napi nop op opClass top" "$(names new2.rpd view)"
if need_shared "$TRACES/synth-small.rpd"; then
  layout "$TRACES/synth-small.rpd" >ss.txt
  layout new2.rpd >n2.txt
  same_file "v2 layout = synth-small.rpd" ss.txt n2.txt
fi

# --- --print and the views/ files by hand
check_rc "--print" 0 rpd-schema --print
cp "$TESTDIR/stdout" print.sql
sqlite3 printed.rpd <print.sql 2>print.err
check_eq "--print output builds a trace" "" "$(cat print.err)"
check_eq "--print trace = --create trace" "$(layout new.rpd)" "$(layout printed.rpd)"
rpd-schema --print --schema 2 | sqlite3 printed2.rpd
check_eq "--print --schema 2 builds the --create --schema 2 trace" "$(layout new2.rpd) $(names new2.rpd view)" \
  "$(layout printed2.rpd) $(names printed2.rpd view)"
sqlite3 byhand.rpd <"$VIEWS_DIR/schema.sql"
for v in $UTIL; do sqlite3 byhand.rpd <"$VIEWS_DIR/$v.sql"; done
check_eq "views/*.sql by hand" "$UTIL" "$(names byhand.rpd view)"
sqlite3 byhand.rpd <"$VIEWS_DIR/api.sql"
check_eq "views/api.sql twice (DROP VIEW IF EXISTS)" "$UTIL" "$(names byhand.rpd view)"

# --- --info
rpd-synth --seed 3 --api 3000 -o s3.rpd >/dev/null 2>&1
rpd-synth --seed 3 --api 3000 --schema 2 -o s2.rpd >/dev/null 2>&1
info() { rpd-schema --info "$1" --format csv | tr -d '\r' | sed -n "s/^$2,//p"; }
check_eq "--info schema" 3 "$(info s3.rpd schema)"
check_eq "--info rows:rocpd_api" 3000 "$(info s3.rpd rows:rocpd_api)"
check_eq "--info rows:rocpd_op" "$(q s3.rpd 'select count(*) from rocpd_op')" "$(info s3.rpd rows:rocpd_op)"
check_eq "--info gpus" 2 "$(info s3.rpd gpus)"
check_eq "--info gpu_ids" '"0,1"' "$(info s3.rpd gpu_ids)"
check_eq "--info threads" 2 "$(info s3.rpd threads)"
check_eq "--info span" "$(q s3.rpd 'select max(e) - min(s) from (select min(start) s, max("end") e from rocpd_api union all select min(start), max("end") from rocpd_op)')" "$(info s3.rpd span_ns)"
check_eq "--info v2 schema" 2 "$(info s2.rpd schema)"
check_eq "--info v2 stackframe view" missing "$(info s2.rpd view:stackframe)"
check_eq "--info v3 views ok" 12 "$(rpd-schema --info s3.rpd --format csv | tr -d '\r' | grep -c '^view:.*,ok$')"
check_eq "--info every table counted" "$(q s3.rpd "select count(*) from sqlite_master where type = 'table' and name not like 'sqlite%'")" \
  "$(rpd-schema --info s3.rpd --format csv | tr -d '\r' | grep -c '^rows:')"
if command -v python3 >/dev/null; then
  check "--info --format json is JSON" sh -c "rpd-schema --info s3.rpd --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert any(r[\"key\"]==\"rows:rocpd_api\" and r[\"value\"]==3000 for r in d)'"
fi
check "--info table format" sh -c "rpd-schema --info s3.rpd | grep -q '^rows:rocpd_api  *3000\$'"
if need_shared "$TRACES/synth-small.rpd"; then
  check_eq "--info synth-small api" 4582 "$(info "$TRACES/synth-small.rpd" rows:rocpd_api)"
  check_eq "--info synth-small ops" 2460 "$(info "$TRACES/synth-small.rpd" rows:rocpd_op)"
  check_eq "--info synth-small span" 53322802 "$(info "$TRACES/synth-small.rpd" span_ns)"
fi
if need_shared "$TRACES/mytrace.rpd.gz"; then
  check_eq "--info mytrace api" 14736 "$(info "$TRACES/mytrace.rpd.gz" rows:rocpd_api)"
  check_eq "--info mytrace ops" 10124 "$(info "$TRACES/mytrace.rpd.gz" rows:rocpd_op)"
  check_eq "--info mytrace GPU" "1 2" "$(info "$TRACES/mytrace.rpd.gz" gpus) $(info "$TRACES/mytrace.rpd.gz" gpu_ids)"
  check_eq "--info mytrace threads" 4 "$(info "$TRACES/mytrace.rpd.gz" threads)"
  check_eq "--info mytrace augmentations" '"ext_autogradapi, ext_callstack"' "$(info "$TRACES/mytrace.rpd.gz" augmentations)"
  check_eq "--info mytrace tags" '"Autograd::Generated, Autograd::Table, Callstack::Generated, Callstack::Table"' \
    "$(info "$TRACES/mytrace.rpd.gz" augmentation_tags)"
fi

# our views give the reference's results (mytrace carries the reference's
# own view texts; its top has TotalDuration where ours says TotalDuration_us)
if need_shared "$TRACES/mytrace.rpd.gz"; then
  tmpcopy "$TRACES/mytrace.rpd.gz" ref.rpd
  cp ref.rpd ours.rpd
  rpd-schema --views ours.rpd --force >/dev/null
  # busy: GpuTime/WallTime as the reference (mytrace has only kernels and
  # copies); Busy is ours (union of GPU work, docs/schema.md "Op classes")
  for v in "op|*" "busy|gpuId, GpuTime, WallTime" "kernel|*" "copy|*" "copyop|*" "api|id, pid, tid, start, end, apiName, args"; do
    n=${v%%|*}; c=${v#*|}
    check_eq "view $n = the reference's on mytrace" "$(q ref.rpd "select $c from $n" | sort | cksum)" \
      "$(q ours.rpd "select $c from $n" | sort | cksum)"
  done
  check_eq "view top = the reference's on mytrace" \
    "$(q ref.rpd 'select Name, TotalCalls, TotalDuration, Percentage from top' | sort | cksum)" \
    "$(q ours.rpd 'select Name, TotalCalls, TotalDuration_us, Percentage from top' | sort | cksum)"
  check_eq "ktop: calls = kernel ops" "$(q ours.rpd "select count(*) from op where opType in ('KernelExecution', 'Task')")" \
    "$(q ours.rpd 'select sum(TotalCalls) from ktop')"
  check_eq "ktop: per-kernel GPU time" 0 "$(q ours.rpd "select count(*) from ktop k where TotalDuration_us <>
    (select sum(\"end\" - start) / 1000 from op where description = k.Name and opType in ('KernelExecution', 'Task'))")"
fi

# --- --views
cp s2.rpd v.rpd
q v.rpd 'drop view top; drop view kernel; drop view busy; create view busy as select * from no_such_table'
check_eq "broken view detected" "broken: no such table: main.no_such_table" "$(info v.rpd view:busy)"
check_rc "--views repairs" 0 rpd-schema --views v.rpd
check_eq "--views reports the left-out view" "rpd-schema: 'v.rpd': 11 utility views installed (left out, base tables missing: stackframe)" "$(cat "$TESTDIR/stdout")"
check_eq "--views: all ok but stackframe" 11 "$(rpd-schema --info v.rpd --format csv | tr -d '\r' | grep -c '^view:.*,ok$')"
cp v.rpd v-before.rpd
check_rc "--views again: nothing to do" 0 rpd-schema --views v.rpd
same_file "--views with nothing to do leaves the file alone" v-before.rpd v.rpd
check_rc "--views -o OUT" 0 rpd-schema --views v.rpd -o v-out.rpd --force
same_file "--views -o leaves the input alone" v-before.rpd v.rpd
check_eq "--views -o OUT has the views" 11 "$(rpd-schema --info v-out.rpd --format csv | tr -d '\r' | grep -c '^view:.*,ok$')"
# options between the action and FILE are options, not FILE
q v.rpd 'drop view top'
check_rc "--views --force FILE" 0 rpd-schema --views --force v.rpd
check_eq "--views --force FILE: reinstalls all of them" "rpd-schema: 'v.rpd': 11 utility views installed (left out, base tables missing: stackframe)" "$(cat "$TESTDIR/stdout")"
check_eq "--views --force FILE: all ok but stackframe" 11 "$(rpd-schema --info v.rpd --format csv | tr -d '\r' | grep -c '^view:.*,ok$')"
check_eq "--info --format csv FILE" "3000" "$(rpd-schema --info --format csv s3.rpd | tr -d '\r' | sed -n 's/^rows:rocpd_api,//p')"
check_rc "--info -- FILE" 0 rpd-schema --info -- s3.rpd
check_rc "--info with no FILE" 2 rpd-schema --info --format json
check "--info with no FILE: says FILE is missing" grep -q "^rpd-schema: --info needs a FILE" "$TESTDIR/stderr"
check_rc "two FILEs" 2 rpd-schema --info s3.rpd s2.rpd
check "two FILEs: names the extra one" grep -q "unexpected argument 's2.rpd'" "$TESTDIR/stderr"

bad_case() { # name rc args... (last arg is the file)
  _name=$1; _rc=$2; shift 2
  eval "_f=\${$#}"
  [ -e "$_f" ] && cp "$_f" bad.orig
  check_rc "$_name" "$_rc" "$@"
  check_one_line "$_name: one line"
  if [ -e "$_f" ]; then same_file "$_name: input untouched" bad.orig "$_f"; fi
}

# --- --upgrade: rows and every view result preserved
VIEWCMP="api op busy top ktop kernel copy copyop napi nop"
snapshot() { # file -> counts of base tables + sorted content of the views
  for t in rocpd_api rocpd_op rocpd_api_ops rocpd_kernelapi rocpd_copyapi rocpd_monitor rocpd_string; do
    echo "$t $(q "$1" "select count(*) from $t")"
  done
  for v in $VIEWCMP $2; do echo "== $v"; q "$1" "select * from \"$v\"" | sort; done
}
upgrade_case() { # name src [extra views]
  tmpcopy "$2" "up-$1.rpd"
  rpd-schema --views "up-$1.rpd" --force >/dev/null   # compare like with like
  snapshot "up-$1.rpd" "$3" >"up-$1.before"
  check_rc "--upgrade $1" 0 rpd-schema --upgrade "up-$1.rpd"
  snapshot "up-$1.rpd" "$3" >"up-$1.after"
  same_file "--upgrade $1: rows and views preserved" "up-$1.before" "up-$1.after"
  check_eq "--upgrade $1: schema 3" "3 3" "$(info "up-$1.rpd" schema) $(q "up-$1.rpd" "select value from rocpd_metadata where tag = 'schema_version'")"
  check_eq "--upgrade $1: v3 api/op layout" "$(cols s3.rpd rocpd_api)|$(cols s3.rpd rocpd_op)" "$(cols "up-$1.rpd" rocpd_api)|$(cols "up-$1.rpd" rocpd_op)"
  check_eq "--upgrade $1: args resolve in rocpd_ustring" 0 "$(q "up-$1.rpd" 'select count(*) from rocpd_api a left join rocpd_ustring u on u.id = a.args_id where u.id is null')"
  check_eq "--upgrade $1: integrity" ok "$(q "up-$1.rpd" 'pragma integrity_check')"
  cp "up-$1.rpd" "up-$1.again"
  check_rc "--upgrade $1 again: nothing to do" 0 rpd-schema --upgrade "up-$1.rpd"
  same_file "--upgrade $1 again leaves the file alone" "up-$1.again" "up-$1.rpd"
}
cols() { q "$1" "select group_concat(name || ' ' || type, ',') from pragma_table_info('$2')"; }
upgrade_case synth-v2 s2.rpd
check_eq "upgraded v2 = generated v3 (api view)" "$(q s3.rpd 'select id, pid, tid, start, "end", apiName, args from api' | cksum)" \
  "$(q up-synth-v2.rpd 'select id, pid, tid, start, "end", apiName, args from api' | cksum)"
if need_shared "$TRACES/synth-small.rpd"; then
  upgrade_case synth-small "$TRACES/synth-small.rpd"
fi
if need_shared "$TRACES/mytrace.rpd.gz"; then
  upgrade_case mytrace "$TRACES/mytrace.rpd.gz" "autograd callStack_inclusive_name callStack_exclusive_name autogradKernel"
  check_eq "--upgrade mytrace: 14736 api, 10124 ops" "14736 10124" "$(q up-mytrace.rpd 'select (select count(*) from rocpd_api) || " " || (select count(*) from rocpd_op)')"
  check_eq "--upgrade mytrace: ext tables kept" "86387 11816" "$(q up-mytrace.rpd 'select (select count(*) from ext_callstack) || " " || (select count(*) from ext_autogradapi)')"
  cp "$TRACES/mytrace.rpd.gz" my.rpd.gz
  chmod u+w my.rpd.gz
  check_rc "--upgrade in place on .gz" 0 rpd-schema --upgrade my.rpd.gz
  check "... stays gzip" gzip -t my.rpd.gz
  check_eq "... is schema 3 with all rows" "3 14736" "$(info my.rpd.gz schema) $(info my.rpd.gz rows:rocpd_api)"
fi
cp s2.rpd sig.rpd
q sig.rpd "update rocpd_op set completionSignal = '0x7f01' where id = 3"
check_rc "--upgrade keeps a non-empty completionSignal" 0 rpd-schema --upgrade sig.rpd
check_eq "... with its value" "0x7f01" "$(q sig.rpd 'select completionSignal from rocpd_op where id = 3')"
check_eq "... and is schema 3" 3 "$(info sig.rpd schema)"
cp s2.rpd dangling.rpd
q dangling.rpd "update rocpd_api set args_id = 999999 where id = 5"
check_rc "--upgrade with a dangling args id" 0 rpd-schema --upgrade dangling.rpd
check_eq "... the row is kept" 1 "$(q dangling.rpd 'select count(*) from rocpd_api where id = 5 and args_id < 0')"
check_eq "... and (as before) not in the api view" 2999 "$(q dangling.rpd 'select count(*) from api')"
cp s2.rpd nometa.rpd
q nometa.rpd 'drop table rocpd_metadata'
check_rc "--upgrade a trace without rocpd_metadata" 0 rpd-schema --upgrade nometa.rpd
check_eq "... gets the v3 metadata" "gpu_stride=1000 pid_stride=10000000 schema_version=3" \
  "$(q nometa.rpd "select tag || '=' || value from rocpd_metadata order by tag" | tr '\n' ' ' | sed 's/ $//')"
cp s2.rpd extra.rpd
q extra.rpd 'alter table rocpd_api add column note text'
bad_case "--upgrade refuses an unknown column" 1 rpd-schema --upgrade extra.rpd
check "... naming it" grep -q "unexpected column 'note'" "$TESTDIR/stderr"
cp s2.rpd o-in.rpd
check_rc "--upgrade -o OUT" 0 rpd-schema --upgrade o-in.rpd -o o-out.rpd
same_file "--upgrade -o leaves the input alone" s2.rpd o-in.rpd
check_eq "--upgrade -o OUT is schema 3" 3 "$(info o-out.rpd schema)"

# --- bad input: one line, exit 1, input byte-identical
echo "hello, not a database" >text.rpd
: >empty.rpd
gzip -c s2.rpd | head -c 3000 >trunc.rpd.gz
sqlite3 notrpd.rpd 'create table foo (x); insert into foo values (1);'
sqlite3 rocprof.db 'create table rocpd_info_node_0123 (id); create view kernels as select 1; create view regions as select 1;'
cp s2.rpd ro.rpd; chmod 444 ro.rpd
for act in --info --upgrade --views; do
  bad_case "$act not SQLite" 1 rpd-schema $act text.rpd
  bad_case "$act empty file" 1 rpd-schema $act empty.rpd
  bad_case "$act truncated .gz" 1 rpd-schema $act trunc.rpd.gz
  bad_case "$act missing tables" 1 rpd-schema $act notrpd.rpd
  bad_case "$act rocprofv3 database" 1 rpd-schema $act rocprof.db
  bad_case "$act nonexistent path" 1 rpd-schema $act no-such-file.rpd
done
check_rc "rocprofv3 database named as such" 1 rpd-schema --info rocprof.db
check "rocprofv3 message points to rpd-import" grep -q "rpd-import" "$TESTDIR/stderr"
bad_case "--upgrade read-only file" 1 rpd-schema --upgrade ro.rpd
bad_case "--views read-only file" 1 rpd-schema --views ro.rpd
if need_shared "$TRACES/rocprofv3_28_results.db"; then
  cp "$TRACES/rocprofv3_28_results.db" rp.db
  bad_case "--info real rocprofv3 database" 1 rpd-schema --info rp.db
fi

# a locked database: another process holds an exclusive lock
cp s2.rpd locked.rpd
check "lock held by sqlite3" hold_lock locked.rpd EXCLUSIVE
RPD_BUSY_TIMEOUT_MS=200; export RPD_BUSY_TIMEOUT_MS
check_rc "--upgrade locked database" 1 rpd-schema --upgrade locked.rpd
check_one_line "--upgrade locked database: one line"
check "locked message says locked" grep -q "lock" "$TESTDIR/stderr"
check_rc "--views locked database" 1 rpd-schema --views locked.rpd --force
check_one_line "--views locked database: one line"
unset RPD_BUSY_TIMEOUT_MS
release_lock
same_file "locked database untouched" s2.rpd locked.rpd

# usage errors
check_rc "no action" 2 rpd-schema
check_rc "two actions" 2 rpd-schema --info a.rpd --upgrade b.rpd
check_rc "--info without FILE" 2 rpd-schema --info
check_rc "bad --schema" 2 rpd-schema --create x.rpd --schema 4
check_rc "bad --format" 2 rpd-schema --info s3.rpd --format xml
check_rc "-o with --info" 2 rpd-schema --info s3.rpd -o x.rpd
check_rc "unknown option" 2 rpd-schema --frobnicate
check_rc "empty -o" 2 rpd-schema --upgrade s2.rpd -o ''
check_rc "empty -o (--views)" 2 rpd-schema --views s2.rpd -o ''
