#!/bin/sh
# tests/tools/rpd-stackframe.sh - rpd-synth --stackframes and rpd-stackframe:
# the tables and views, folded output, the SVG flame graph, bad input.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

check "rpd-synth --stackframes" rpd-synth --seed 3 --api 3000 --stackframes -o t.rpd
check_eq "every api call has 4..6 frames at depths 0..n-1" "3000|4|6" \
  "$(q t.rpd "SELECT count(*), min(n), max(n) FROM (SELECT api_ptr_id, count(*) n, max(depth) + 1 AS m FROM rocpd_stackframe GROUP BY api_ptr_id) WHERE n = m")"
rpd-synth --seed 3 --api 3000 -o plain.rpd >/dev/null
check_eq "--stackframes changes no other table" \
  "$(q plain.rpd "SELECT count(*), sum(start), sum(end) FROM rocpd_api")|$(q plain.rpd "SELECT count(*), sum(start) FROM rocpd_op")" \
  "$(q t.rpd "SELECT count(*), sum(start), sum(end) FROM rocpd_api")|$(q t.rpd "SELECT count(*), sum(start) FROM rocpd_op")"
check_rc "--stackframes with --schema 2: usage error" 2 rpd-synth --schema 2 --stackframes -o v2.rpd

cp t.rpd a.rpd
check_rc "rpd-stackframe: exit 0" 0 rpd-stackframe a.rpd
check_eq "summary line" "rpd-stackframe: 3000 calls with a stack, $(q a.rpd "SELECT count(*) FROM ext_stackframe_stack") distinct stacks" \
  "$(cat "$TESTDIR/stdout")"
check_eq "cpu time over the stacks = every api call's duration" \
  "$(q a.rpd "SELECT sum(end - start) FROM rocpd_api")" "$(q a.rpd "SELECT sum(cpu_time) FROM stackframe_stack")"
cp a.rpd oc.rpd && sqlite3 oc.rpd <"$(cd "$(dirname "$0")" && pwd)/../../views/opClass.sql"
check_eq "gpu time over the sites = kernels + copies (opClass) linked to the calls" \
  "$(q oc.rpd "SELECT sum(O.end - O.start) FROM rocpd_api_ops L JOIN rocpd_op O ON O.id = L.op_id JOIN opClass C ON C.opType_id = O.opType_id WHERE C.class IN ('kernel', 'copy')")" \
  "$(q a.rpd "SELECT sum(gpu_time) FROM stackframe_site")"
check_eq "stackframe_frame: 'main' is on every stack" "3000" "$(q a.rpd "SELECT calls FROM stackframe_frame WHERE frame = 'main'")"
check_eq "stackframe_site: one row per innermost frame" \
  "$(q a.rpd "SELECT count(DISTINCT name_id) FROM rocpd_stackframe WHERE depth = 0")" "$(q a.rpd "SELECT count(*) FROM stackframe_site")"
check_eq "stackframe_top: at most 20, by gpu time" "1" \
  "$(q a.rpd "SELECT count(*) <= 20 AND max(gpu_time) = (SELECT max(gpu_time) FROM stackframe_site) FROM stackframe_top")"
check_rc "re-run: nothing to do, exit 0" 0 rpd-stackframe a.rpd
check_eq "re-run: rows not duplicated" "3000" "$(q a.rpd "SELECT count(*) FROM ext_stackframe_call")"
check_rc "--force rebuilds" 0 rpd-stackframe a.rpd --force
check_eq "--force: same rows" "3000" "$(q a.rpd "SELECT count(*) FROM ext_stackframe_call")"
rpd-callstack -q a.rpd >/dev/null 2>&1 || rpd-callstack a.rpd >/dev/null
rpd-stackframe a.rpd --force >/dev/null
check_eq "with rpd-callstack: stackframe_site_inclusive has every site" \
  "$(q a.rpd "SELECT count(*) FROM stackframe_site")" "$(q a.rpd "SELECT count(*) FROM stackframe_site_inclusive")"

# hand-made frames: exact folded output
rpd-synth --api 0 --stackframes -o h.rpd >/dev/null
sqlite3 h.rpd <<'EOF'
INSERT INTO rocpd_string(id, string) VALUES (9001, 'hipLaunchKernel'), (9002, 'main'), (9003, 'step;1'), (9004, 'launch'), (9005, 'KernelExecution'), (9006, 'k');
INSERT INTO rocpd_api(id, pid, tid, start, end, apiName_id, args_id, domain_id, category_id) VALUES (1, 1, 1, 0, 100, 9001, 1, 1, 1), (2, 1, 1, 200, 230, 9001, 1, 1, 1), (3, 1, 1, 300, 310, 9001, 1, 1, 1);
INSERT INTO rocpd_stackframe(api_ptr_id, depth, name_id) VALUES (1, 0, 9004), (1, 1, 9003), (1, 2, 9002), (2, 0, 9004), (2, 1, 9003), (2, 2, 9002), (3, 0, 9004), (3, 1, 9002);
INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, end, description_id, opType_id) VALUES (1, 0, 0, 0, 150, 650, 9006, 9005);
INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (1, 1);
EOF
check_rc "--folded -: exit 0" 0 rpd-stackframe h.rpd --folded -
check_eq "folded, cpu: sorted stacks, ';' in a name becomes ':'" \
  "main;launch;hipLaunchKernel 10|main;step:1;launch;hipLaunchKernel 130" "$(paste -sd'|' "$TESTDIR/stdout")"
check_eq "folded, gpu: stacks with no gpu time left out" "main;step:1;launch;hipLaunchKernel 500" \
  "$(rpd-stackframe h.rpd --folded - --value gpu 2>/dev/null)"
check_eq "folded, calls" "main;launch;hipLaunchKernel 1|main;step:1;launch;hipLaunchKernel 2" \
  "$(rpd-stackframe h.rpd --folded - --value calls 2>/dev/null | paste -sd'|')"
check_rc "--svg: exit 0" 0 rpd-stackframe h.rpd --svg h.svg --folded h.txt
check_eq "svg parses as XML; 5 boxes (main, step:1, 2x launch, 2x api merged by prefix) + background" "7|main — 140 ns (100.00%)" \
  "$(python3 -c 'import xml.dom.minidom as m; d = m.parse("h.svg"); r = d.getElementsByTagName("rect"); t = d.getElementsByTagName("title"); print("%d|%s" % (len(r), t[0].firstChild.data))')"
check_eq "svg: no script, no external reference" "0" "$(grep -c -i '<script\|href=' h.svg)"
check_eq "--folded file = stdout form" "$(rpd-stackframe h.rpd --folded - 2>/dev/null)" "$(cat h.txt)"

check_rc "--value bad: exit 2" 2 rpd-stackframe h.rpd --folded - --value wall
rpd-synth --api 50 --schema 2 -o v2.rpd >/dev/null
cp v2.rpd v2.orig
check_rc "schema v2 trace (no rocpd_stackframe): exit 1" 1 rpd-stackframe v2.rpd
check_one_line "schema v2: one line"
same_file "schema v2: input byte-identical" v2.orig v2.rpd
printf 'not sqlite' >junk.rpd
check_rc "not a trace: exit 1" 1 rpd-stackframe junk.rpd --folded -
check_one_line "not a trace: one line"
check_rc "--value without --folded/--svg: usage error" 2 rpd-stackframe x.rpd --value gpu
check "--value without --folded/--svg: says so" grep -q -- "--value needs --folded or --svg" "$TESTDIR/stderr"
