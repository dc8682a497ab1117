#!/bin/sh
# tests/tools/raptor-kstats.sh - raptor --format kernel-stats / api-stats /
# copy-stats / domain-stats: rocprofv3's --stats CSV layout, exact values.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

mkdir set
cat >set/kernel_trace.csv <<'EOF'
"Kind","Agent_Id","Queue_Id","Dispatch_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp"
"KERNEL_DISPATCH",1,1,1,"gemm(int, float)",1,1000,1600
"KERNEL_DISPATCH",1,1,2,"gemm(int, float)",2,2000,3000
"KERNEL_DISPATCH",1,1,3,"gemm(int, float)",3,4000,4200
"KERNEL_DISPATCH",1,1,4,"add ""x""",4,5000,5007
EOF
cat >set/hip_api_trace.csv <<'EOF'
"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"
"HIP_RUNTIME_API_EXT","hipLaunchKernel",5,5,1,900,1000
"HIP_RUNTIME_API_EXT","hipLaunchKernel",5,5,2,1900,2000
"HIP_RUNTIME_API_EXT","hipLaunchKernel",5,5,3,3900,4000
"HIP_RUNTIME_API_EXT","hipLaunchKernel",5,5,4,4900,5000
"HIP_RUNTIME_API_EXT","hipDeviceSynchronize",5,5,5,5000,1005000
EOF
cat >set/memory_copy_trace.csv <<'EOF'
"Kind","Direction","Stream_Id","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp","End_Timestamp"
"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,0,1,6,100,300
EOF
rpd-import -q set t.rpd
# gemm: 600, 1000, 200: mean 600, sample sd sqrt((0+160000+160000)/2) = 400
cat >want_k.csv <<'EOF'
"Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev"
"gemm(int, float)",3,1800,600.000000,99.61,200,1000,400.000000
"add ""x""",1,7,7.000000,0.3874,7,7,0.00000000e+00
EOF
check_rc "kernel-stats: exit 0" 0 raptor t.rpd --format kernel-stats -o k.csv
same_file "kernel-stats: rocprofv3 layout, exact values" want_k.csv k.csv
cat >want_a.csv <<'EOF'
"Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev"
"hipDeviceSynchronize",1,1000000,1000000.000000,99.96,1000000,1000000,0.00000000e+00
"hipLaunchKernel",4,400,100.000000,0.0400,100,100,0.00000000e+00
EOF
raptor t.rpd --format api-stats >a.csv 2>a.err
same_file "api-stats (stdout): percent %.4f below 1" want_a.csv a.csv
cat >want_d.csv <<'EOF'
"Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev"
"HIP_API",5,1000400,200080.000000,99.80,100,1000000,447168.874140
"KERNEL_DISPATCH",4,1807,451.750000,0.1803,7,1000,441.111003
"MEMORY_COPY",1,200,200.000000,0.0200,200,200,0.00000000e+00
EOF
raptor t.rpd --format domain-stats >d.csv
same_file "domain-stats: one row per domain, sample standard deviation (python statistics.stdev)" want_d.csv d.csv
printf '"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"\n"HIP_RUNTIME_API_EXT","hipA",1,1,1,0,1000000\n"HIP_RUNTIME_API_EXT","hipB",1,1,2,0,3\n' >p_hip_api_trace.csv
rpd-import -q p_hip_api_trace.csv p.rpd
check_eq "percentage below 0.01 in %.3e" '"hipB",1,3,3.000000,3.000e-04,3,3,0.00000000e+00' \
  "$(raptor p.rpd --format api-stats | sed -n 3p)"
check_eq "copy-stats" '"CopyHostToDevice",1,200,200.000000,100.00,200,200,0.00000000e+00' \
  "$(raptor t.rpd --format copy-stats | sed -n 2p)"
check_eq "python csv reads kernel-stats: 2 rows, names unquoted" "2|gemm(int, float)|add \"x\"" \
  "$(python3 -c 'import csv,sys; r=list(csv.DictReader(open("k.csv"))); print("%d|%s|%s" % (len(r), r[0]["Name"], r[1]["Name"]))')"
check_rc "bad file: exit 1" 1 raptor nosuch.rpd --format kernel-stats
check_one_line "bad file: one line"
check_rc "unknown option: exit 2" 2 raptor t.rpd --format kernel-stats --bogus
check_eq "--format=kernel-stats = --format kernel-stats" "$(raptor t.rpd --format kernel-stats | md5sum)" \
  "$(raptor t.rpd --format=kernel-stats 2>&1 | md5sum)"
for f in kernel-stats api-stats copy-stats domain-stats; do
  raptor -q t.rpd --format $f --quiet >q.csv 2>q.err; rc=$?
  check_eq "$f takes -q and --quiet: exit 0, nothing on stderr" "0|" "$rc|$(cat q.err)"
  check_eq "$f -q: same CSV" "$(raptor t.rpd --format $f | md5sum)" "$(md5sum <q.csv)"
done

# schema v2 (no domain column): domains from the api names
rpd-synth --schema 2 --seed 4 --api 3000 -o v2.rpd >/dev/null
check_eq "schema v2 domain-stats: calls per domain from the names" \
  "$(q v2.rpd "SELECT sum(A.apiName_id IN (SELECT id FROM rocpd_string WHERE string GLOB 'hip*' OR string GLOB '__hip*')) || '|' || sum(A.apiName_id IN (SELECT id FROM rocpd_string WHERE string = 'UserMarker')) FROM rocpd_api A")" \
  "$(raptor v2.rpd --format domain-stats | python3 -c 'import csv, sys; r = {x["Name"]: x["Calls"] for x in csv.DictReader(sys.stdin)}; print("%s|%s" % (r.get("HIP_API"), r.get("MARKER_API")))')"
cp v2.rpd v2c.rpd && sqlite3 v2c.rpd <"$(cd "$(dirname "$0")" && pwd)/../../views/opClass.sql"
check_eq "schema v2 kernel-stats: every kernel op (opClass kernel, graph Tasks too)" \
  "$(q v2c.rpd "SELECT count(*) FROM rocpd_op O JOIN opClass C ON C.opType_id = O.opType_id WHERE C.class = 'kernel'")" \
  "$(raptor v2.rpd --format kernel-stats | python3 -c 'import csv, sys; print(sum(int(x["Calls"]) for x in csv.DictReader(sys.stdin)))')"

# api-stats reads the calls in C while every row has integer ids and times,
# else from the start through the SQL: a last row with a text name id
# (joins no name: adds nothing) sends it there after counting every other
# row, and the output must not change (nothing counted twice)
rpd-synth --seed 6 --api 3000 -o hard.rpd >/dev/null
raptor hard.rpd --format api-stats >h1.csv
check_eq "api-stats of the synth trace: rows" 1 "$(awk 'END {print (NR > 3)}' h1.csv)"
sqlite3 hard.rpd "INSERT INTO rocpd_api (pid, tid, start, end, apiName_id, args_id, domain_id, category_id)
  SELECT pid, tid, start, end, 'x', args_id, domain_id, category_id FROM rocpd_api WHERE id = 1"
check_eq "fixture: the last call's name id is a text" "text" \
  "$(q hard.rpd "SELECT typeof(apiName_id) FROM rocpd_api ORDER BY id DESC LIMIT 1")"
same_file "api-stats: a text name id at the end (the SQL from the start) gives the same rows" \
  h1.csv "$(raptor hard.rpd --format api-stats >h2.csv; echo h2.csv)"

V="$TRACES/rocprofv1_batched_gemm"
if need_shared "$V/results.db"; then
  rpd-import -q "$V/results.db" v.rpd
  for p in "kernel-stats results.stats.csv" "api-stats results.hip_stats.csv" "copy-stats results.copy_stats.csv"; do
    set -- $p
    raptor v.rpd --format "$1" >stats.csv
    python3 -c 'import csv, sys
for f in sys.argv[1:]:
    with open(f, newline="") as h:
        print(sorted((r["Name"], r["Calls"], r["TotalDurationNs"]) for r in csv.DictReader(h)))' "$V/$2" stats.csv >both.txt
    check_eq "batched_gemm $1: Name, Calls, TotalDurationNs = rocprof v1's $2" "$(sed -n 1p both.txt)" "$(sed -n 2p both.txt)"
  done
fi
