#!/bin/sh
# tests/tools/rpd-import-csv-threads.sh - issue 21: rpd-import of a rocprofv3
# CSV set parses on one thread while a second one (pipe.c) inserts the
# rows; counter, allocation and scratch files are read with it paused.  The
# threaded import gives the same database, byte for byte in `sqlite3
# .dump`, as the one-thread path (RPDTOOLS_IMPORT_THREADS=1) on a generated
# set that crosses every hand-over (kernels with names first seen
# mid-file, hip api calls, copies, markers, then counters, allocations,
# scratch with the pipe paused).  A bad row late in a file: one line,
# exit 1, no output file.  Fixture: awk.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

N=30000   # dispatches (and hip api calls): several hand-overs of 65536 cells
mkdir -p set
awk -v n=$N 'BEGIN {
  print "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\""
  for (i = 1; i <= n; i++) {
    k = i > n / 2 ? i % 45 : i % 40   # kernels 40..44 first seen mid-file
    printf "\"KERNEL_DISPATCH\",\"Agent %d\",%d,%d,77,%d,%d,\"void kernel_%d<float>(float*, int)\",%d,%d,%d,0,0,8,0,16,256,1,1,%d,1,1\n", 1 + i % 2, 1 + i % 3, i % 4, i, k, k, i, 1000 + 100 * i, 1060 + 100 * i + i % 7, 4096 + i
  }
}' >set/7_kernel_trace.csv
awk -v n=$N 'BEGIN {
  print "\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\""
  for (i = 1; i <= n + 2000; i++)
    printf "\"HIP_RUNTIME_API_EXT\",\"%s\",7,%d,%d,%d,%d\n", i <= n ? "hipLaunchKernel" : "hipMemcpyAsync", 77 + i % 3, i, 950 + 100 * i, 990 + 100 * i
}' >set/7_hip_api_trace.csv
awk -v n=$N 'BEGIN {
  print "\"Kind\",\"Direction\",\"Stream_Id\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\""
  for (i = 1; i <= 2000; i++)
    printf "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",0,\"Agent 0\",\"Agent %d\",%d,%d,%d\n", 1 + i % 2, n + i, 1007 + 100 * i, 1040 + 100 * i
}' >set/7_memory_copy_trace.csv
awk 'BEGIN {
  print "\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\""
  for (i = 1; i <= 50; i++) printf "\"MARKER_CORE_API\",\"step %d\",7,77,%d,%d,%d\n", i, 900000 + i, 10 * i, 10 * i + 5
}' >set/7_marker_api_trace.csv
awk 'BEGIN {
  print "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\",\"Thread_Id\",\"Grid_Size\",\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Counter_Name\",\"Counter_Value\",\"Start_Timestamp\",\"End_Timestamp\""
  for (i = 1; i <= 300; i++) printf "%d,%d,\"Agent 1\",1,7,77,4096,%d,\"void kernel_%d<float>(float*, int)\",256,0,0,8,0,16,\"SQ_WAVES\",%d.000000,%d,%d\n", i, i, i % 40, i % 40, i, 1000 + 100 * i, 1060 + 100 * i + i % 7
}' >set/7_counter_collection.csv
awk 'BEGIN {
  print "\"Kind\",\"Operation\",\"Agent_Id\",\"Allocation_Size\",\"Address\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\""
  for (i = 1; i <= 100; i++) printf "\"MEMORY_ALLOCATION\",\"MEMORY_ALLOCATION_ALLOCATE\",\"Agent 1\",%d,\"0x%016x\",%d,%d,%d\n", 1024 * i, 4096 * i, i, 10 * i, 10 * i + 5
}' >set/7_memory_allocation_trace.csv
awk 'BEGIN {
  print "\"Kind\",\"Operation\",\"Agent_Id\",\"Queue_Id\",\"Thread_Id\",\"Alloc_Flags\",\"Start_Timestamp\",\"End_Timestamp\""
  for (i = 1; i <= 20; i++) printf "\"SCRATCH_MEMORY\",\"SCRATCH_MEMORY_ALLOC\",\"Agent 1\",1,77,0,%d,%d\n", 10 * i, 10 * i + 3
}' >set/7_scratch_memory_trace.csv

RPDTOOLS_IMPORT_THREADS=1 rpd-import -q set one.rpd
check_rc "threaded import (forced on) of the CSV set: exit 0" 0 env RPDTOOLS_IMPORT_THREADS=2 rpd-import set two.rpd
sqlite3 one.rpd .dump >one.sql
sqlite3 two.rpd .dump >two.sql
same_file "CSV set: threaded = one thread: every table, row and id (.dump)" one.sql two.sql

# the values (the same on both paths, so checked on the threaded one)
check_eq "ops: dispatches + copies" "$((N + 2000))" "$(q two.rpd "SELECT count(*) FROM rocpd_op")"
check_eq "op durations: exact sum" \
  "$(awk -v n=$N 'BEGIN { s = 0; for (i = 1; i <= n; i++) s += 60 + i % 7; print s + 2000 * 33 }')" \
  "$(q two.rpd "SELECT sum(\"end\" - start) FROM rocpd_op")"
check_eq "api calls: hip + markers" "$((N + 2000 + 50))" "$(q two.rpd "SELECT count(*) FROM rocpd_api")"
check_eq "links: every dispatch and copy to its hip call" "$((N + 2000))" \
  "$(q two.rpd "SELECT count(*) FROM rocpd_api_ops A JOIN rocpd_api B ON B.id = A.api_id")"
check_eq "kernel names, the ones first seen mid-file included" "45" \
  "$(q two.rpd "SELECT count(DISTINCT description_id) FROM rocpd_op WHERE description_id IN (SELECT id FROM rocpd_string WHERE string LIKE 'void kernel_%')")"
check_eq "counters: 300 values on their dispatches' ops, exact sum" "300|$((300 * 301 / 2)).0" \
  "$(q two.rpd "SELECT count(*), sum(value) FROM counter")"
check_eq "counters hang on the kernel ops of their dispatch" "300" \
  "$(q two.rpd "SELECT count(*) FROM counter WHERE dispatch BETWEEN 1 AND 300 AND kernelName LIKE 'void kernel_%'")"
check_eq "allocations and scratch rows" "100|20" \
  "$(q two.rpd "SELECT (SELECT count(*) FROM ext_memory_allocation), (SELECT count(*) FROM ext_scratch_memory)")"

# a bad row late in the api file: rows were handed over when it is read
mkdir -p bad
cp set/7_kernel_trace.csv bad/
awk -v n=$N 'NR == n { print "\"HIP_RUNTIME_API_EXT\",\"hipLaunchKernel\",7,77,x,1,2"; next } { print }' \
  set/7_hip_api_trace.csv >bad/7_hip_api_trace.csv
check_rc "a bad row late in a file, threaded: exit 1" 1 env RPDTOOLS_IMPORT_THREADS=2 rpd-import -q bad bad.rpd
check_one_line "... one line"
check "... naming the file and line" grep -q "7_hip_api_trace.csv.*$N" "$TESTDIR/stderr"
check "... no output file" test ! -e bad.rpd
