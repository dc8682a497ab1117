#!/bin/sh
# tests/tools/rpd-import-strict.sh - every importer reads its integers with
# the one strict reader (common/util/strictint.h): a timestamp that is not an
# integer (a fraction, an exponent, out of range, true, null, missing, an
# empty CSV cell, a text or blob in a database) is refused with one line
# and leaves no output, never turned into a wrong integer.  Duplicate JSON
# keys: the last value wins, as in Python's json module.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

# a rocprofv3 JSON with one kernel dispatch and one hip_api call; @K@ and
# @A@ are replaced by the kernel's and the call's timestamp fields
json_fx() { # KERNEL_FIELDS API_FIELDS > file
  cat <<EOF
{"rocprofiler-sdk-tool":[{"metadata":{"pid":7,"init_time":1000,"fini_time":900000000000000},
 "agents":[{"id":{"handle":12},"type":2,"logical_node_type_id":0}],
 "strings":{"buffer_records":[{"kind":"NONE","operations":[]},
  {"kind":"HIP_RUNTIME_API_EXT","operations":["x","hipLaunchKernel"]}]},
 "kernel_symbols":[{"kernel_id":1,"formatted_kernel_name":"k(int)","truncated_kernel_name":"k"}],
 "buffer_records":{
  "kernel_dispatch":[{"kind":11,"correlation_id":{"internal":5},$1,
    "dispatch_info":{"agent_id":{"handle":12},"queue_id":{"handle":16},"kernel_id":1,"dispatch_id":1}}],
  "hip_api":[{"kind":1,"operation":1,"thread_id":7,"correlation_id":{"internal":5},$2}]}}]}
EOF
}
GOODK='"start_timestamp":63857982592000,"end_timestamp":63857982594840'
GOODA='"start_timestamp":63857982590000,"end_timestamp":63857982591000'

json_fx "$GOODK" "$GOODA" >good.json
check_rc "good fixture imports" 0 rpd-import -q good.json good.rpd
check_eq "good fixture: exact times" "63857982592000|63857982594840 63857982590000|63857982591000" \
  "$(q good.rpd "SELECT start||'|'||end FROM rocpd_op UNION ALL SELECT start||'|'||end FROM rocpd_api" | tr '\n' ' ' | sed 's/ $//')"

refused() { # NAME FILE MESSAGE-PART
  rm -f bad.rpd
  check_rc "$1: refused" 1 rpd-import -q "$2" bad.rpd
  check_one_line "$1: one line"
  if grep -qF -- "$3" "$TESTDIR/stderr"; then ok "$1: says why"
  else notok "$1: says why" "$(cat "$TESTDIR/stderr")"; fi
  if [ ! -e bad.rpd ] && [ -z "$(ls -a | grep -i import)" ]; then ok "$1: nothing left"
  else notok "$1: nothing left" "$(ls -a)"; fi
}

json_fx '"start_timestamp":6.3857982592e13,"end_timestamp":63857982594840' "$GOODA" >k_exp.json
refused "json kernel start 6.3857982592e13" k_exp.json \
  "kernel_dispatch record: field 'start_timestamp': '6.3857982592e13' is not an integer"
json_fx '"start_timestamp":1e400,"end_timestamp":63857982594840' "$GOODA" >k_huge.json
refused "json kernel start 1e400" k_huge.json "'1e400' is not an integer"
json_fx '"start_timestamp":true,"end_timestamp":63857982594840' "$GOODA" >k_true.json
refused "json kernel start true" k_true.json "'true' is not an integer"
json_fx '"start_timestamp":null,"end_timestamp":63857982594840' "$GOODA" >k_null.json
refused "json kernel start null" k_null.json "field 'start_timestamp' is missing"
json_fx '"end_timestamp":63857982594840' "$GOODA" >k_miss.json
refused "json kernel start missing" k_miss.json "field 'start_timestamp' is missing"
json_fx "$GOODK" '"start_timestamp":63857982590000,"end_timestamp":9223372036854775808' >a_big.json
refused "json api end 2^63" a_big.json "hip_api record: field 'end_timestamp': '9223372036854775808' is beyond the 64-bit integer range"
json_fx "$GOODK" '"start_timestamp":63857982590000,"end_timestamp":[1,2]' >a_arr.json
refused "json api end an array" a_arr.json "field 'end_timestamp': an array"
json_fx "$GOODK" '"start_timestamp":63857982590000.5,"end_timestamp":63857982591000' >a_frac.json
refused "json api start with a fraction" a_frac.json "not an integer"
sed 's/"pid":7/"pid":7.5/' good.json >m_pid.json
refused "json metadata pid 7.5" m_pid.json "metadata record: field 'pid': '7.5' is not an integer"
# a quoted integer is an integer; a quoted fraction is not
json_fx '"start_timestamp":"63857982592000","end_timestamp":63857982594840' "$GOODA" >k_str.json
check_rc "json: a timestamp as a string of digits imports" 0 rpd-import -q k_str.json kstr.rpd
check_eq "json: ... to the same op" "$(q good.rpd 'SELECT * FROM rocpd_op')" "$(q kstr.rpd 'SELECT * FROM rocpd_op')"

# duplicate keys: the last value wins (Python's json), also for an object
json_fx '"start_timestamp":5,"end_timestamp":63857982594840,"start_timestamp":63857982592000' "$GOODA" >dup.json
check_rc "json duplicate key imports" 0 rpd-import -q dup.json dup.rpd
check_eq "json duplicate key: the last value" "63857982592000|2840" \
  "$(q dup.rpd "SELECT start||'|'||(end-start) FROM rocpd_op")"
json_fx "$GOODK,\"correlation_id\":{\"internal\":99}" "$GOODA" >dupobj.json
check_rc "json duplicate object key imports" 0 rpd-import -q dupobj.json dupobj.rpd
check_eq "json duplicate object key: the last object's correlation id" \
  "$(( $(q good.rpd "SELECT api_id FROM rocpd_api_ops") + 94 ))" "$(q dupobj.rpd "SELECT api_id FROM rocpd_api_ops")"

# ---------------------------------------------------------------- CSV
cat >ok_kernel_trace.csv <<'EOF'
"Kind","Agent_Id","Queue_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp"
"KERNEL_DISPATCH","Agent 1","2","k(int)","4","1000","2000"
EOF
check_rc "csv fixture imports" 0 rpd-import -q ok_kernel_trace.csv okcsv.rpd
check_eq "csv fixture: exact times" "1000|2000" "$(q okcsv.rpd "SELECT start||'|'||end FROM rocpd_op")"
sed 's/"1000","2000"/"","2000"/' ok_kernel_trace.csv >e_kernel_trace.csv
refused "csv empty Start_Timestamp" e_kernel_trace.csv "e_kernel_trace.csv: line 2: column 'Start_Timestamp' is empty"
sed 's/"1000","2000"/"1000","2.5e3"/' ok_kernel_trace.csv >f_kernel_trace.csv
refused "csv End_Timestamp 2.5e3" f_kernel_trace.csv "column 'End_Timestamp': not a number: '2.5e3'"
sed 's/"1000","2000"/"1000","99999999999999999999"/' ok_kernel_trace.csv >o_kernel_trace.csv
refused "csv End_Timestamp beyond int64" o_kernel_trace.csv "not a number"

# ---------------------------------------------------------------- rocprofv3 database
rpd-synth-rocpd -q --dispatches 20 -o g.db || notok "generate g.db"
check_rc "rocprofv3 db imports" 0 rpd-import -q g.db g.rpd
KD=$(q g.db "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'rocpd_kernel_dispatch%' LIMIT 1")
RG=$(q g.db "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'rocpd_region%' LIMIT 1")
MC=$(q g.db "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'rocpd_memory_copy%' LIMIT 1")
plant_db() { # NAME SQL MESSAGE-PART
  cp g.db p.db
  q p.db "$2"
  cp p.db p.orig
  refused "$1" p.db "$3"
  same_file "$1: input byte-identical" p.db p.orig
}
plant_db "rocprofv3 db kernel start text" "UPDATE \"$KD\" SET start = '17x' WHERE id = (SELECT min(id) FROM \"$KD\")" \
  "rocpd_kernel_dispatch.start: the text value '17x' is not an integer"
plant_db "rocprofv3 db kernel end blob" "UPDATE \"$KD\" SET end = x'00ff' WHERE id = (SELECT max(id) FROM \"$KD\")" \
  "rocpd_kernel_dispatch.end: a blob of 2 bytes is not an integer"
plant_db "rocprofv3 db region start text" "UPDATE \"$RG\" SET start = 'early' WHERE id = (SELECT min(id) FROM \"$RG\")" \
  "rocpd_region.start: the text value 'early' is not an integer"
plant_db "rocprofv3 db copy end real" "UPDATE \"$MC\" SET end = 1.5 WHERE id = (SELECT min(id) FROM \"$MC\")" \
  "rocpd_memory_copy.end: the real value 1.5 is not an integer"

# ---------------------------------------------------------------- rocprof v1 results.db
v1db() { # FILE OPS-BEGIN
  sqlite3 "$1" <<EOF
CREATE TABLE HIP ("BeginNs" INTEGER,"EndNs" INTEGER,"pid" INTEGER,"tid" INTEGER,"Name" TEXT,"args" TEXT,"Index" INTEGER,"Data" TEXT,"__section" INTEGER,"__lane" INTEGER,"DurationNs" INTEGER);
CREATE TABLE OPS ("BeginNs" INTEGER,"EndNs" INTEGER,"dev-id" INTEGER,"queue-id" INTEGER,"Name" TEXT,"pid" INTEGER,"tid" INTEGER,"roctx-range" TEXT,"stream-id" INTEGER,"Index" INTEGER,"Data" TEXT,"__section" INTEGER,"__lane" INTEGER,"DurationNs" INTEGER);
INSERT INTO HIP VALUES (300,400,9,9,'hipLaunchKernel','( kernel(k(int)))',2,'',2,9,100);
INSERT INTO OPS VALUES ($2,1310,3,0,'k(int)',9,9,'',0,2,'',8,1,1000);
EOF
}
v1db v1ok.db 310
check_rc "v1 results.db imports" 0 rpd-import -q v1ok.db v1ok.rpd
check_eq "v1 results.db: exact op times" "310|1310" "$(q v1ok.rpd "SELECT start||'|'||end FROM rocpd_op")"
v1db v1text.db "'abc'"
cp v1text.db v1text.orig
refused "v1 results.db OPS BeginNs text" v1text.db "OPS.BeginNs: the text value 'abc' is not an integer"
same_file "v1 results.db text: input byte-identical" v1text.db v1text.orig
v1db v1blob.db "x'01'"
refused "v1 results.db OPS BeginNs blob" v1blob.db "OPS.BeginNs: a blob of 1 bytes is not an integer"


# ---------------------------------------------------------------- rocprof v1 results.json
V1J="$TRACES/rocprofv1_batched_gemm/results.json"
if need_shared "$V1J"; then
  cp "$V1J" v1_results.json
  check_rc "v1 results.json imports" 0 rpd-import -q v1_results.json v1j.rpd
  check_eq "v1 results.json: the exact BeginNs of an op" "1" "$(q v1j.rpd "SELECT count(*) FROM rocpd_op WHERE start = 3497798450324472")"
  sed '0,/"BeginNs":"3497798450324472"/s//"BeginNs":"3.497798450324472e15"/' "$V1J" >v1e_results.json
  refused "v1 results.json BeginNs 3.497798450324472e15" v1e_results.json \
    "rocprof v1 results.json: args.BeginNs: '3.497798450324472e15' is not an integer"
fi

# a marker message's key (strings.marker_api) is an integer too
sed 's/"strings":{/"strings":{"marker_api":[{"key":1.5,"value":"step"}],/' good.json >mk.json
refused "json marker_api key 1.5" mk.json "strings.marker_api record: field 'key': '1.5' is not an integer"
sed 's/"strings":{/"strings":{"marker_api":[{"key":5,"value":"step"}],/' good.json >mk_ok.json
check_rc "json marker_api key 5 imports" 0 rpd-import -q mk_ok.json mk_ok.rpd
