#!/bin/sh
# rpd2tracing: whole-output JSON checks on a hand-made trace with known
# events and hostile names, time windows, .json.gz, bad input, and counts
# against the SQL tables on generated and real traces.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
ROOT=$(cd "$here/../.." && pwd)
JC="$RPD_TESTBIN/json_check"
if [ ! -x "$JC" ]; then notok "json_check is built" "missing $JC"; exit 0; fi

# ---------------------------------------------------------------- fixture
# Times in ns.  pid 100: tid 101 has a UserMarker [1000,100000] around three
# launches (ops on GPU0 q0, GPU0 q0, GPU1 q2), a zero-length marker at 6000;
# tid 102 launches one kernel on GPU1 q0.  Monitor: two sclk samples on
# device 0 and one non-numeric power sample (skipped).
sqlite3 mini.rpd <"$ROOT/views/schema.sql"
sqlite3 mini.rpd "
INSERT INTO rocpd_string(id, string) VALUES (1, 'hipLaunchKernel'), (2, 'UserMarker'),
  (3, 'KernelExecution'), (4, 'k\"q\\b' || char(9) || 't é日本<&>'), (5, ''), (6, 'hipMemcpy'),
  (7, 'CopyHostToDevice'), (8, 'void big<' || replace(hex(zeroblob(5120)), '0', 'x') || '>');
INSERT INTO rocpd_ustring(id, string) VALUES (1, 'stream = 0x1'),
  (2, 'outer \"quoted\" \\ back' || char(9) || 'tab'), (3, CAST(X'626164FFFE656E64' AS TEXT)),
  (4, 'dst = 0x2 | ' || char(1) || char(31) || ' ctl');
INSERT INTO rocpd_api(id, pid, tid, start, end, apiName_id, category_id, domain_id, args_id) VALUES
  (1, 100, 101, 1000, 100000, 2, 5, 5, 2),
  (2, 100, 101, 2000, 3000, 1, 5, 5, 1),
  (3, 100, 101, 4000, 4500, 1, 5, 5, 1),
  (4, 100, 101, 6000, 6000, 2, 5, 5, 3),
  (5, 100, 101, 10000, 20000, 6, 5, 5, 4),
  (6, 100, 102, 30000, 31000, 1, 5, 5, 1);
INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, end, description_id, opType_id) VALUES
  (1, 0, 0, 1, 5000, 8000, 4, 3), (2, 0, 0, 2, 8000, 9000, 4, 3),
  (3, 1, 2, 1, 12000, 18000, 5, 7), (4, 1, 0, 1, 200000, 260000, 8, 3);
INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (2, 1), (3, 2), (5, 3), (6, 4);
INSERT INTO rocpd_monitor(deviceType, deviceId, monitorType, start, end, value) VALUES
  ('gpu', 0, 'sclk', 0, 50000, '1500'), ('gpu', 0, 'sclk', 50000, 90000, '1700'),
  ('gpu', 0, 'power', 0, 90000, 'n/a');"
cp mini.rpd mini.orig

check_rc "converts with default OUT name" 0 rpd2tracing mini.rpd
check_eq "default OUT is FILE with .json" "yes" "$([ -s mini.json ] && echo yes)"
check_eq "summary line" "mini.json: 61 events: 4 ops, 5 api calls, 1 marks, 4 flows, 0 hsa, 0 graph launches, 2 marker frames, 21 counter points" "$(cat "$TESTDIR/stdout")"
same_file "input unchanged" mini.rpd mini.orig

# Every count of the whole parsed output (X = 4 ops + 5 api + 2 frames; M =
# names and sort indexes of 3 processes, 2 threads, 3 queues, 2 marker tracks).
"$JC" mini.json | grep -v '^tsrange' >jc.out
cat >jc.want <<'EOF'
events 61
ph C 21
ph M 20
ph X 11
ph f 4
ph i 1
ph s 4
cat C/monitor 3
cat C/queue 18
cat M/__metadata 20
cat X/api 5
cat X/copy 1
cat X/kernel 3
cat X/marker_frame 2
cat f/api_op 4
cat i/marker 1
cat s/api_op 4
counter 0 Idle 3
counter 0 QueueDepth 5
counter 0 sclk 3
counter 1 Idle 5
counter 1 QueueDepth 5
flow_unmatched 0
bad 0
nesting 0
unnamed_process 0
unnamed_thread 0
no_cat 0
EOF
same_file "event counts of the parsed JSON" jc.want jc.out

# Hostile names survive escaping exactly (invalid UTF-8 -> U+FFFD).
kname=$(printf 'k"q\\b\tt \303\251\346\227\245\346\234\254<&>')
mname=$(printf 'outer "quoted" \\ back\ttab')
bad=$(printf 'bad\357\277\275\357\277\275end')
long=$(q mini.rpd "SELECT string FROM rocpd_string WHERE id = 8")
check_eq "10 KB name in the fixture" 10250 "${#long}"
"$JC" mini.json --find "$kname" --find "$mname" --find "$bad" --find "$long" --find CopyHostToDevice \
  | grep '^find' | tr '\n' ' ' >find.out
check_eq "hostile names round-trip" "find 2 find 3 find 1 find 1 find 1 " "$(cat find.out)"
check_eq "control characters escaped" 1 "$(grep -cF 'dst = 0x2 | \u0001\u001f ctl' mini.json)"

# Exact timing: the marker frame covers ops 1-3 (5000..18000 ns) minus/plus 1 us.
check_eq "marker frame ts" "tsrange X/marker_frame 4.000 4.000" "$("$JC" mini.json | grep '^tsrange X/marker_frame')"
check_eq "marker frame dur and queues" 2 "$(grep -cF '"name":"outer \"quoted\" \\ back\ttab","ts":4.000,"dur":14.000,"args":{"desc":"UserMarker frame: 3 ops"}' mini.json)"
check_eq "op event exact" 1 "$(grep -c '"cat":"copy","pid":1,"tid":2,"name":"CopyHostToDevice","ts":12.000,"dur":6.000,' mini.json)"
check_eq "counters end at the trace end" 6 "$(grep -cE '"ts":260\.000,"args":\{"(idle|depth)":[01]\}' mini.json)"
check_eq "monitor series extends to the end" 1 "$(grep -c '"name":"sclk","ts":260.000,"args":{"sclk":1700}' mini.json)"

# The launch rows are sorted in chunks of RPD2TRACING_MEM_MAX bytes spilled
# to a temp file and merged (0: two rows per chunk, many runs): same bytes.
RPD2TRACING_MEM_MAX=0 rpd2tracing mini.rpd sqlpath.json -q
same_file "spilled sort runs: same JSON" mini.json sqlpath.json
rpd2tracing mini.rpd w1.json -q --start 0% --end 10%
RPD2TRACING_MEM_MAX=0 rpd2tracing mini.rpd w2.json -q --start 0% --end 10%
same_file "spilled sort runs in a window: same JSON" w1.json w2.json
# Two workers (a thread and a temp file) or one: the same bytes.
RPD2TRACING_THREADS=1 rpd2tracing mini.rpd one.json -q
RPD2TRACING_THREADS=2 rpd2tracing mini.rpd two.json -q
same_file "one worker or two: same JSON" one.json two.json
same_file "two workers: same JSON as the default" mini.json two.json
check_eq "no temp file left" "" "$(ls -A | grep -e rpdtools -e '\.tmp')"

# An OUT that is not a regular file (a FIFO here; /dev/null alike) is
# written in place, never replaced by a renamed temp file.
if mkfifo out.fifo 2>/dev/null; then
  cat out.fifo >fifo.json &
  check_rc "FIFO as OUT" 0 rpd2tracing mini.rpd out.fifo -q
  wait
  same_file "FIFO receives the same JSON" mini.json fifo.json
  check_eq "FIFO still a FIFO" "yes" "$([ -p out.fifo ] && echo yes)"
else skip "FIFO as OUT" "mkfifo failed"; fi
# A character device alike: a private copy of /dev/null (root only).
if mknod null.json c 1 3 2>/dev/null; then
  check_rc "device as OUT" 0 rpd2tracing mini.rpd null.json -q
  check_eq "device still a device" "yes" "$([ -c null.json ] && echo yes)"
  rm -f null.json
  # a private /dev/full: the write error is reported, with its cause
  mknod full.json c 1 7
  check_rc "full device as OUT" 1 rpd2tracing mini.rpd full.json -q
  check_eq "full device: message" "rpd2tracing: cannot write 'full.json': No space left on device" "$(cat "$TESTDIR/stderr")"
  rm -f full.json
else skip "device as OUT" "mknod not permitted"; fi
mkdir outdir.json
check_rc "OUT is a directory" 1 rpd2tracing mini.rpd outdir.json
check_one_line "OUT is a directory: one line"
check_eq "OUT is a directory: message" "rpd2tracing: cannot write 'outdir.json': is a directory" "$(cat "$TESTDIR/stderr")"

# OUT goes through rpd_outfile: a symlink is written through to its
# target (the link stays), a read-only OUT is refused and kept, and a
# stale temp of a killed run (.OUT.rpdtools-XXXXXX, nobody holds its lock)
# is removed by the next run for the same OUT.
ln -s real.json link.json
check_rc "symlink as OUT" 0 rpd2tracing mini.rpd link.json -q
check_eq "symlink stays a symlink" "yes" "$([ -L link.json ] && echo yes)"
same_file "symlink target gets the JSON" mini.json real.json
echo previous >ro.json; chmod 444 ro.json
check_rc "read-only OUT" 1 rpd2tracing mini.rpd ro.json -q
check_eq "read-only OUT: message" "rpd2tracing: cannot write 'ro.json': output file is read-only" "$(cat "$TESTDIR/stderr")"
check_eq "read-only OUT kept" "previous" "$(cat ro.json)"
echo partial >.stale.json.rpdtools-AbC123
echo partial >.other.json.rpdtools-AbC123
check_rc "run after a killed one" 0 rpd2tracing mini.rpd stale.json -q
check_eq "stale temp of OUT reclaimed, others kept" ".other.json.rpdtools-AbC123" "$(ls -A | grep rpdtools)"
same_file "run after a killed one: whole JSON" mini.json stale.json
rm -f .other.json.rpdtools-AbC123

# HSA api calls (rocpd_hsaApi, when present) on tid + 1 with their own names
cp mini.orig hsa.rpd
sqlite3 hsa.rpd "CREATE TABLE rocpd_hsaApi (id integer PRIMARY KEY, pid integer, tid integer,
  start integer, end integer, apiName_id integer, args_id integer);
  INSERT INTO rocpd_string(id, string) VALUES (20, 'hsa_signal_wait'), (21, 'sig = 0x9');
  INSERT INTO rocpd_hsaApi VALUES (1, 100, 101, 2500, 2700, 20, 21);"
check_rc "trace with rocpd_hsaApi" 0 rpd2tracing hsa.rpd hsa.json -q
check_eq "HSA call and thread names" "X/hsa_api 1 M 22" \
  "$("$JC" hsa.json | awk '$1=="cat"&&$2=="X/hsa_api"{h=$3} $1=="ph"&&$2=="M"{m=$3} END{printf "X/hsa_api %d M %d", h, m}')"
check_eq "HSA call on tid + 1" 1 "$(grep -c '"cat":"hsa_api","pid":100,"tid":102,"name":"hsa_signal_wait","ts":2.500,"dur":0.200,"args":{"desc":"sig = 0x9"}' hsa.json)"
check_eq "HSA thread named on tid + 1" 1 "$(grep -c '"name":"thread_name","ph":"M","pid":100,"tid":102,"args":{"name":"HSA 101"}' hsa.json)"

# --format array and .json.gz
check_rc "--format array" 0 rpd2tracing mini.rpd arr.json --format array -q
check_eq "array form parses with the same events" "events 61" "$("$JC" arr.json | head -1)"
check_eq "array form starts with [" "[" "$(head -c 1 arr.json)"
check_rc ".json.gz output" 0 rpd2tracing mini.rpd out.json.gz -q
if gzip -dc out.json.gz >gz.json 2>/dev/null; then same_file ".json.gz decompresses to the same JSON" mini.json gz.json
else notok ".json.gz decompresses to the same JSON" "gzip -dc failed"; fi
check_rc ".rpd.gz input" 0 sh -c 'gzip -c mini.rpd >mini2.rpd.gz && rpd2tracing mini2.rpd.gz -q'
same_file ".rpd.gz input -> FILE.json with the same JSON" mini.json mini2.json

# ---------------------------------------------------------------- lanes
# GPU 0 queue 0: op 1 [1000,2000], op 2 [1500,2500] overlaps it, op 3
# [2000,3000] follows op 1, op 4 [1600,1700] starts before op 3 on lane 1:
# lanes 0 (tid 0), 1 and 2 (new tids from 1879048192 = 0x70000000 on).
# Thread 7: api [100,500] and [300,800] overlap without nesting -> lane 2.
sqlite3 lanes.rpd <"$ROOT/views/schema.sql"
sqlite3 lanes.rpd "
INSERT INTO rocpd_string(id, string) VALUES (1, 'hipLaunchKernel'), (2, 'KernelExecution'), (3, 'k');
INSERT INTO rocpd_ustring(id, string) VALUES (1, '');
INSERT INTO rocpd_api(id, pid, tid, start, end, apiName_id, category_id, domain_id, args_id) VALUES
  (1, 5, 7, 100, 500, 1, 1, 1, 1), (2, 5, 7, 300, 800, 1, 1, 1, 1), (3, 5, 7, 900, 950, 1, 1, 1, 1);
INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, end, description_id, opType_id) VALUES
  (1, 0, 0, 1, 1000, 2000, 3, 2), (2, 0, 0, 2, 1500, 2500, 3, 2),
  (3, 0, 0, 3, 2000, 3000, 3, 2), (4, 0, 0, 4, 1600, 1700, 3, 2);
INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (3, 2);"
if rpd2tracing lanes.rpd lanes.json -q 2>lanes.err; then
  check_eq "lanes: op tids in order" "0 1879048192 0 1879048193" \
    "$(grep '"cat":"kernel"' lanes.json | sed 's/.*"tid":\([0-9]*\).*/\1/' | tr '\n' ' ' | sed 's/ $//')"
  check_eq "lanes: api lane" "7 1879048194 7" \
    "$(grep '"cat":"api"' lanes.json | sed 's/.*"tid":\([0-9]*\).*/\1/' | tr '\n' ' ' | sed 's/ $//')"
  check_eq "lanes: lane tracks named" "Queue 0 (3)|Queue 0 (2)|Queue 0|Hip 7 (2)|Hip 7" \
    "$(grep '"thread_name"' lanes.json | sed 's/.*"name":"\([^"]*\)"}.*/\1/' | sort -u | sort -r | tr '\n' '|' | sed 's/|$//')"
  check_eq "lanes: flow ends on the op's lane" 1 \
    "$(grep -c '"ph":"f","bp":"e",.*"pid":0,"tid":1879048192,"ts":1.500}' lanes.json)"
  check_eq "lanes: strict nesting" "nesting 0" "$("$JC" lanes.json | grep '^nesting')"
else notok "lanes fixture converts" "$(cat lanes.err)"; fi

# --start/--end forms (first api start 1000, last api end 100000)
win() { # NAME "X-op X-api i flows" ARGS...
  _n=$1; _w=$2; shift 2
  if rpd2tracing mini.rpd w.json -q "$@" 2>w.err; then
    _got=$("$JC" w.json | awk '$1=="cat"&&$2~/^X\/(kernel|copy|barrier|other)$/{o+=$3} $1=="cat"&&$2=="X/api"{a=$3} $1=="cat"&&$2=="i/marker"{i=$3} $1=="cat"&&$2=="s/api_op"{f=$3} END{printf "%d %d %d %d", o, a, i, f}')
    check_eq "$_n" "$_w" "$_got"
  else notok "$_n" "exit $?: $(cat w.err)"; fi
}
win "--abs-us: --start/--end bare = absolute us" "1 1 0 1" --abs-us --start 9 --end 20
win "--start/--end bare = ms from the first call" "1 1 0 1" --start 0.008 --end 0.019
win "--start/--end percent" "2 4 1 2" --start 0% --end 10%
win "--start=+T --end=-T" "2 1 1 0" --start=+4us --end=-90us
win "--start with unit counts from the first call" "2 2 0 2" --start 9us
win "--end only (--abs-us)" "0 1 0 0" --abs-us --end 1.5
win "--end only (bare ms)" "0 1 0 0" --end 0.0005
check_eq "window keeps ts in range" "tsrange X/copy 12.000 12.000" "$(rpd2tracing mini.rpd w.json -q --abs-us --start 9 --end 20 && "$JC" w.json | grep '^tsrange X/copy')"
check_eq "--end sets the counter end" 1 "$(rpd2tracing mini.rpd w.json -q --abs-us --end 50 && grep -c '"name":"sclk","ts":90.000' w.json)"

# bad arguments and bad input: one line, exit code, input untouched, no output
check_rc "bad --start" 2 rpd2tracing mini.rpd x.json --start abc
check_eq "bad --start: message names the option" "rpd2tracing: --start: bad time 'abc'" "$(head -1 "$TESTDIR/stderr" | cut -d: -f1-3)"
check_rc "--start after --end" 2 rpd2tracing mini.rpd x.json --start 50 --end 10
check_rc "bad --format" 2 rpd2tracing mini.rpd x.json --format xml
check_rc "unknown option" 2 rpd2tracing mini.rpd --bogus
check_rc "too many arguments" 2 rpd2tracing mini.rpd a.json b.json
check_rc "OUT is the input" 2 rpd2tracing mini.rpd mini.rpd
same_file "input unchanged after usage errors" mini.rpd mini.orig
check_eq "no output on usage errors" "no" "$([ -e x.json ] && echo yes || echo no)"
check_rc "missing file" 1 rpd2tracing nosuch.rpd
check_one_line "missing file: one line"
printf 'this is not a database, just text\n' >notdb.rpd
cp notdb.rpd notdb.orig
check_rc "not SQLite" 1 rpd2tracing notdb.rpd
check_one_line "not SQLite: one line"
same_file "not SQLite: input unchanged" notdb.rpd notdb.orig
check_eq "not SQLite: no output left" "" "$(ls -A | grep notdb.json)"
gzip -c mini.rpd >full.rpd.gz
head -c $(($(wc -c <full.rpd.gz) / 2)) full.rpd.gz >trunc.rpd.gz
check_rc "truncated .gz" 1 rpd2tracing trunc.rpd.gz t.json
check_one_line "truncated .gz: one line"
sqlite3 empty.rpd <"$ROOT/views/schema.sql"
check_rc "empty trace" 1 rpd2tracing empty.rpd
check_one_line "empty trace: one line"
check_eq "empty trace: no output" "no" "$([ -e empty.json ] && echo yes || echo no)"
check_rc "unwritable OUT" 1 rpd2tracing mini.rpd /nonexistent-dir/x.json
check_one_line "unwritable OUT: one line"
check_eq "no temp file left after the errors" "" "$(ls -A | grep rpdtools)"

# ---------------------------------------------------------------- counts vs SQL
# counts TRACE JSON NAME: X/op = ops, X/api + marks = api rows, flows =
# rocpd_api_ops rows, QueueDepth points per GPU = 2 * its launched ops + 1.
counts() {
  _t=$1; _j=$2; _n=$3
  "$JC" "$_j" >cnt.out || { notok "$_n: valid JSON" "$(head -c 300 cnt.out)"; return; }
  ok "$_n: valid JSON"
  check_eq "$_n: X ops = rocpd_op rows" "$(q "$_t" 'SELECT count(*) FROM rocpd_op')" \
    "$(awk '$1=="cat"&&$2~/^X\/(kernel|copy|barrier|other)$/{n+=$3} END{print n+0}' cnt.out)"
  check_eq "$_n: X api + marks = rocpd_api rows" "$(q "$_t" 'SELECT count(*) FROM rocpd_api')" \
    "$(awk '$1=="cat"&&($2=="X/api"||$2=="i/marker"){n+=$3} END{print n+0}' cnt.out)"
  check_eq "$_n: marks = zero-length UserMarker rows" \
    "$(q "$_t" "SELECT count(*) FROM rocpd_api A JOIN rocpd_string S ON S.id = A.apiName_id WHERE S.string = 'UserMarker' AND A.start = A.end")" \
    "$(awk '$1=="cat"&&$2=="i/marker"{n=$3} END{print n+0}' cnt.out)"
  check_eq "$_n: flow pairs = rocpd_api_ops rows" \
    "$(q "$_t" 'SELECT count(*) FROM rocpd_api_ops') $(q "$_t" 'SELECT count(*) FROM rocpd_api_ops')" \
    "$(awk '$1=="cat"&&$2=="s/api_op"{s=$3} $1=="cat"&&$2=="f/api_op"{f=$3} END{print s+0, f+0}' cnt.out)"
  check_eq "$_n: QueueDepth points per GPU" \
    "$(q "$_t" 'SELECT G.gpuId || " " || (1 + 2 * (SELECT count(*) FROM rocpd_api_ops X JOIN rocpd_op O ON O.id = X.op_id WHERE O.gpuId = G.gpuId)) FROM (SELECT DISTINCT gpuId FROM rocpd_op) G ORDER BY 1' | tr '\n' ' ')" \
    "$(awk '$1=="counter"&&$3=="QueueDepth"{printf "%s %s ", $2, $4}' cnt.out)"
  check_eq "$_n: no bad events, flows matched" "flow_unmatched 0 bad 0" "$(grep -E '^(flow_unmatched|bad) ' cnt.out | tr '\n' ' ' | sed 's/ $//')"
  check_eq "$_n: strict nesting, every pid/tid named, cat everywhere" \
    "nesting 0 unnamed_process 0 unnamed_thread 0 no_cat 0" \
    "$(grep -E '^(nesting|unnamed_process|unnamed_thread|no_cat) ' cnt.out | tr '\n' ' ' | sed 's/ $//')"
}

if command -v rpd-synth >/dev/null 2>&1; then
  if rpd-synth --seed 7 --api 3000 --gpus 2 -o synth.rpd >/dev/null 2>synth.err; then
    check_rc "synth trace converts" 0 rpd2tracing synth.rpd synth.json.gz -q
    counts synth.rpd synth.json.gz "synth"
    rpd2tracing synth.rpd synth-a.json -q && RPD2TRACING_MEM_MAX=0 rpd2tracing synth.rpd synth-b.json -q
    same_file "synth: spilled sort runs give the same JSON" synth-a.json synth-b.json
    RPD2TRACING_THREADS=1 RPD2TRACING_MEM_MAX=20000 rpd2tracing synth.rpd synth-c.json -q
    same_file "synth: one worker, a few runs: the same JSON" synth-a.json synth-c.json
    # OUT written with O_DIRECT (whole 4 KB blocks from a writer thread; B's
    # temp file copied through A's buffers) or through the page cache
    # (RPD2TRACING_DIRECT=0): the same bytes, one or two workers, JSON and
    # protobuf; an event over the 1 MB buffer (a 1.2 MB args text) ends direct mode
    rpd2tracing synth.rpd synth-p.pftrace -q
    cp synth.rpd synthbig.rpd
    q synthbig.rpd "UPDATE rocpd_ustring SET string = replace(hex(zeroblob(600000)), '0', 'y')
      WHERE id = (SELECT args_id FROM rocpd_api ORDER BY id LIMIT 1 OFFSET 1000)"
    RPD2TRACING_DIRECT=0 rpd2tracing synthbig.rpd synthbig-a.json -q
    for _w in 1 2; do
      for _f in synth-a.json synth-p.pftrace synthbig-a.json; do
        _in=synth.rpd; case $_f in synthbig*) _in=synthbig.rpd ;; esac
        RPD2TRACING_THREADS=$_w rpd2tracing $_in d.$_f -q
        RPD2TRACING_THREADS=$_w RPD2TRACING_DIRECT=0 rpd2tracing $_in nd.$_f -q
        same_file "$_f, $_w worker(s): direct writes give the same bytes" $_f d.$_f
        same_file "$_f, $_w worker(s): page-cache writes give the same bytes" $_f nd.$_f
      done
    done
    check_eq "synthbig: the 1.2 MB args text is in the JSON" yes \
      "$(tr -cd y <synthbig-a.json | wc -c | awk '{ print ($1 >= 1200000 ? "yes" : $1) }')"
    # a write that fails on the direct writer thread (EFBIG past ulimit -f:
    # 1000 blocks of 512 bytes, the JSON is 1.6 MB) is reported, no OUT left
    printf 'trap "" XFSZ\nulimit -f 1000\nexec "$@"\n' >fsz.sh
    check_rc "direct write failure: exit 1" 1 env RPD2TRACING_THREADS=1 sh fsz.sh rpd2tracing synth.rpd fsz.json -q
    check_eq "direct write failure: message" "rpd2tracing: cannot write 'fsz.json': File too large" "$(cat "$TESTDIR/stderr")"
    check "direct write failure: no output file" test ! -e fsz.json
    rm -f fsz.sh
    if [ -d /dev/shm ] && [ -w /dev/shm ]; then   # tmpfs: O_DIRECT or its refusal
      _shm=/dev/shm/rpd2tracing-test-$$.json
      RPD2TRACING_THREADS=1 rpd2tracing synth.rpd "$_shm" -q
      same_file "OUT on tmpfs: the same JSON" synth-a.json "$_shm"
      rm -f "$_shm"
    fi
    # several 1 MB chunks compressed in parallel: one gzip member, same bytes
    check_eq "synth .json.gz: more than one 1 MB chunk" yes "$([ "$(wc -c <synth-a.json)" -gt 1048576 ] && echo yes)"
    check "synth .json.gz: gzip -t" gzip -t synth.json.gz
    check_eq "synth .json.gz: decompresses to the plain JSON" "$(cksum <synth-a.json)" "$(gzip -dc synth.json.gz | cksum)"
    if command -v python3 >/dev/null 2>&1; then
      check_eq "synth .json.gz: python's gzip and json read it" "$(q synth.rpd 'SELECT count(*) FROM rocpd_op')" \
        "$(python3 -c "import gzip,json,sys; e=json.load(gzip.open(sys.argv[1]))['traceEvents']; print(sum(1 for x in e if x.get('ph')=='X' and x.get('cat') in ('kernel','copy','barrier','other')))" synth.json.gz)"
    fi
    RPD_GZIP_LEVEL=1 rpd2tracing synth.rpd synth1.json.gz -q
    check_eq "synth .json.gz level 1: same JSON" "$(cksum <synth-a.json)" "$(gzip -dc synth1.json.gz | cksum)"
    if rpd-synth --seed 7 --api 3000 --gpus 2 --schema 2 -o synth2.rpd >/dev/null 2>&1; then
      check_rc "synth v2 converts" 0 rpd2tracing synth2.rpd synth2.json -q
      counts synth2.rpd synth2.json "synth v2"
    fi
  else notok "rpd-synth generates a trace" "$(head -c 300 synth.err)"; fi
else skip "generated traces" "rpd-synth not built"; fi

# Real traces (../shared)
if need_shared "$TRACES/mytrace.rpd.gz"; then
  sum0=$(cksum <"$TRACES/mytrace.rpd.gz")
  check_rc "mytrace.rpd.gz converts" 0 rpd2tracing "$TRACES/mytrace.rpd.gz" my.json.gz -q
  tmpcopy "$TRACES/mytrace.rpd.gz" my.rpd
  counts my.rpd my.json.gz "mytrace"
  check_eq "mytrace: input unchanged" "$sum0" "$(cksum <"$TRACES/mytrace.rpd.gz")"
  # thread 1560's calls nest perfectly (rpd-callstack: depth 10, no crossing)
  check_eq "mytrace: thread 1560 (10 levels of nested calls) is one track" "Hip 1560" \
    "$(gzip -dc my.json.gz | grep '"thread_name"' | grep -o '"name":"Hip 1560[^"]*"' | sed 's/"name":"//; s/"$//' | sort -u | tr '\n' '|' | sed 's/|$//')"
fi
if need_shared "$TRACES/synth-small.rpd"; then
  tmpcopy "$TRACES/synth-small.rpd" ss.rpd
  check_rc "synth-small converts" 0 rpd2tracing ss.rpd ss.json -q
  counts ss.rpd ss.json "synth-small"
  if command -v rpd-graph >/dev/null 2>&1 && rpd-graph ss.rpd >/dev/null 2>&1 &&
     [ "$(q ss.rpd "SELECT count(*) FROM sqlite_master WHERE name = 'rocpd_graphLaunchapi'")" = 1 ]; then
    rpd2tracing ss.rpd ssg.json -q
    check_eq "synth-small: one frame per graph launch with ops" \
      "$(q ss.rpd 'SELECT count(DISTINCT L.api_ptr_id) FROM rocpd_graphLaunchapi L JOIN rocpd_api_ops X ON X.api_id = L.api_ptr_id')" \
      "$("$JC" ssg.json | awk '$1=="cat"&&$2=="X/graph"{n=$3} END{print n+0}')"
  else skip "graph launch frames" "rpd-graph not built or found no launches"; fi
fi

# Perfetto's rules on every trace of ../shared/traces (the rocprofv3 ones
# imported with rpd-import first): strict nesting per (pid, tid), every
# pid/tid named, a cat on every event.
nest_rule() { # NAME TRACE
  if rpd2tracing "$2" nest.json -q 2>nest.err; then
    check_eq "$1: strict nesting, names, cat" "nesting 0 unnamed_process 0 unnamed_thread 0 no_cat 0 bad 0" \
      "$("$JC" nest.json | grep -E '^(nesting|unnamed_process|unnamed_thread|no_cat|bad) ' | sort -k1,1 -s | awk '{a[$1]=$2} END{printf "nesting %s unnamed_process %s unnamed_thread %s no_cat %s bad %s", a["nesting"], a["unnamed_process"], a["unnamed_thread"], a["no_cat"], a["bad"]}')"
  else notok "$1: converts" "$(cat nest.err)"; fi
}
if need_shared "$TRACES/mytrace.rpd.gz"; then
  for f in mytrace.rpd.gz synth-small.rpd matmul_result.rpd amelia_monitor_only.rpd; do
    [ -e "$TRACES/$f" ] && nest_rule "$f" "$TRACES/$f"
  done
  if command -v rpd-import >/dev/null 2>&1; then
    for f in rocprofv3_908_results.json.gz rocprofv3_28_results.db rocprofv3_csv rocprofv3_doc_samples; do
      [ -e "$TRACES/$f" ] || continue
      rm -f imp.rpd
      if rpd-import "$TRACES/$f" imp.rpd -q 2>imp.err; then nest_rule "$f (imported)" imp.rpd
      else notok "$f: rpd-import" "$(head -c 300 imp.err)"; fi
    done
  else skip "rocprofv3 traces" "rpd-import not built"; fi
fi
if command -v rpd-synth >/dev/null 2>&1 && rpd-synth --seed 3 --api 2000 --gpus 3 -o nest-synth.rpd >/dev/null 2>&1; then
  nest_rule "rpd-synth --seed 3" nest-synth.rpd
fi

# ---------------------------------------------------------------- protobuf
PC="$RPD_TESTBIN/proto_check"
PROTO_DIR="$ROOT/tests/proto"
# same_events TRACE NAME [OPTION...]: the JSON and the protobuf of TRACE hold the same events
# (slices and instants per category with their first and last start,
# counter points per process and series, flows), and the protobuf keeps
# Perfetto's rules.
same_events() {
  _t=$1; _n=$2; shift 2   # further arguments: options of both runs
  if ! rpd2tracing "$_t" se.json -q "$@" 2>se.err || ! rpd2tracing "$_t" se.pftrace -q "$@" 2>>se.err; then
    notok "$_n: converts to JSON and protobuf" "$(cat se.err)"; return
  fi
  "$JC" se.json | awk '($1=="cat"||$1=="tsrange") && $2 ~ /^(X|i)\// {print}
    $1=="counter" {print} $1=="cat" && $2=="s/api_op" {f=$3} END {print "flows", f+0}' | sort >se.j
  "$PC" se.pftrace >se.pc 2>se.err || { notok "$_n: protobuf reads back" "$(cat se.err)"; return; }
  awk '($1=="cat"||$1=="tsrange") && $2 ~ /^(X|i)\// && $2 != "i/api_op" {print}
    $1=="counter" || $1=="flows" {print}' se.pc | sort >se.p
  if cmp -s se.j se.p; then ok "$_n: protobuf has the JSON's events ($(wc -l <se.j) facts)"
  else notok "$_n: protobuf has the JSON's events" "$(diff se.j se.p | head -5 | tr '\n' ' ')"; fi
  # event by event: names, ns times, durations, tracks, args, counter values, flows
  if "$JC" se.json --events se.je >/dev/null 2>se.err && "$PC" se.pftrace --events se.pe >/dev/null 2>>se.err; then
    sort se.je >se.jes
    sort se.pe >se.pes
    if [ -s se.jes ] && cmp -s se.jes se.pes; then
      ok "$_n: protobuf = JSON event by event ($(wc -l <se.jes) events and flows)"
    else notok "$_n: protobuf = JSON event by event" "$(diff se.jes se.pes | head -4 | tr '\n\t' '  ')"; fi
  else notok "$_n: event lines" "$(cat se.err)"; fi
  check_eq "$_n: every flow end point binds to a slice (JSON, protobuf)" "flow_loose 0 flow_loose 0" \
    "$("$JC" se.json --events /dev/null | grep '^flow_loose') $("$PC" se.pftrace --events /dev/null | grep '^flow_loose')"
  check_eq "$_n: protobuf nests, names, flows matched" \
    "flow_unmatched 0 nesting 0 unnamed 0 bad 0" \
    "$(grep -E '^(flow_unmatched|nesting|unnamed|bad) ' se.pc | tr '\n' ' ' | sed 's/ $//')"
}

check_rc "--format proto" 0 rpd2tracing mini.rpd --format proto -q
check_eq "--format proto: default OUT is FILE.pftrace" "yes" "$([ -s mini.pftrace ] && echo yes)"
check_rc ".pftrace OUT" 0 rpd2tracing mini.rpd p.pftrace -q
same_file ".pftrace OUT = --format proto" mini.pftrace p.pftrace
check_rc ".perfetto-trace OUT" 0 rpd2tracing mini.rpd p.perfetto-trace -q
same_file ".perfetto-trace OUT = --format proto" mini.pftrace p.perfetto-trace
check_rc ".pftrace.gz OUT" 0 rpd2tracing mini.rpd p.pftrace.gz -q
check_eq ".pftrace.gz decompresses to the same" "$(cksum <p.pftrace)" "$(gzip -dc p.pftrace.gz | cksum)"
"$PC" p.pftrace >p.pc 2>p.err
check_eq "protobuf: slices per category (4 ops, 5 api, 2 frames)" \
  "cat X/api 5 cat X/copy 1 cat X/kernel 3 cat X/marker_frame 2 cat i/marker 1" \
  "$(grep '^cat ' p.pc | tr '\n' ' ' | sed 's/ $//')"
check_eq "protobuf: counters" "counter 0 Idle 3 counter 0 QueueDepth 5 counter 0 sclk 3 counter 1 Idle 5 counter 1 QueueDepth 5" \
  "$(grep '^counter ' p.pc | tr '\n' ' ' | sed 's/ $//')"
check_eq "protobuf: op start exact (12.000 us)" "tsrange X/copy 12.000 12.000" "$(grep '^tsrange X/copy' p.pc)"
same_events mini.rpd "mini"
# Each flow goes from its api call's own slice (not the UserMarker around
# it, [1000, 100000]: the 1 us call at 2000 is where the reference's "s", 2 us
# before the call's end, would bind to the marker) to its op's slice.
MINI_FLOWS="F 10000 Process 100/Hip 101 -> 12000 GPU1/Queue 2|F 2000 Process 100/Hip 101 -> 5000 GPU0/Queue 0|F 30000 Process 100/Hip 102 -> 200000 GPU1/Queue 0|F 4000 Process 100/Hip 101 -> 8000 GPU0/Queue 0"
"$JC" mini.json --events fl.je >/dev/null
"$PC" p.pftrace --events fl.pe >/dev/null
check_eq "JSON flows: api call slice -> op slice" "$MINI_FLOWS" "$(grep '^F' fl.je | sort | tr '\n' '|' | sed 's/|$//')"
check_eq "protobuf flows: api call slice -> op slice" "$MINI_FLOWS" "$(grep '^F' fl.pe | sort | tr '\n' '|' | sed 's/|$//')"
check_eq "protobuf: flows start on the api slices (flow_ids on 4 begins, no flow instant)" "4 0" \
  "$(grep -c '^F' fl.pe) $(grep -c '^cat i/api_op' p.pc)"
# rocpd_api_ops out of api order: the row of api 3 comes after api 5's; its
# flow starts at an instant inside the call in the protobuf, the same flows
cp mini.rpd ooo.rpd
sqlite3 ooo.rpd "DELETE FROM rocpd_api_ops; INSERT INTO rocpd_api_ops(id, api_id, op_id) VALUES (1, 2, 1), (2, 5, 3), (3, 3, 2), (4, 6, 4);"
same_events ooo.rpd "api_ops out of order"
rpd2tracing ooo.rpd ooo.pftrace -q && "$PC" ooo.pftrace --events ooo.pe >ooo.pc
check_eq "api_ops out of order: the same flows, one from an instant" "$MINI_FLOWS cat i/api_op 1" \
  "$(grep '^F' ooo.pe | sort | tr '\n' '|' | sed 's/|$//') $(grep '^cat i/api_op' ooo.pc)"
# The api pass takes the links in api order, worker B the others: every
# event but the flows' own (their ids are rocpd_api_ops ids) is the same
# whatever the rows' order, queue counters and marker frames included (the
# launch of api 3 is B's in ooo.rpd, A's in mini.rpd)
for _t in mini ooo; do
  RPD2TRACING_THREADS=1 rpd2tracing $_t.rpd $_t-ev.json -q
  grep -v '"ph":"[sf]"' $_t-ev.json | sed 's/,$//' | grep '^{' | sort >$_t-ev.txt
done
check_eq "api_ops out of order: the other events unchanged (5 X api/2 frames/21 counters)" "5 2 21 same" \
  "$(grep -c '"cat":"api"' ooo-ev.txt) $(grep -c '"cat":"marker_frame"' ooo-ev.txt) $(grep -c '"ph":"C"' ooo-ev.txt) $(cmp -s mini-ev.txt ooo-ev.txt && echo same)"
same_events lanes.rpd "lanes"
# Nesting calls on one track, whatever their order.  Thread 7, rows in end
# order as rocpd writes them (children before their range): hipLaunchKernel
# [2000,3000] and, inside UserMarker inner [3500,6000], [4000,5000], inside
# outer [1000,90000] with a launch [60000,61000] after inner: one track.
# Thread 8: three calls [100,500], [300,800], [400,900] that cross each
# other, each with a call inside ([150,200], [600,700], [850,880]): 3 lanes.
# Thread 9, rows in start order: [100,900] around [200,300] and [400,800]
# around [500,600]: one track.  GPU side, queue 1: outer's launches make a
# frame [49000,71000] (ops [50000,51000] and [70000,71000]) around the frame
# [59000,61000] of thread 10's marker: one Markers track.
sqlite3 nest.rpd <"$ROOT/views/schema.sql"
sqlite3 nest.rpd "
INSERT INTO rocpd_string(id, string) VALUES (1, 'hipLaunchKernel'), (2, 'KernelExecution'), (3, 'k'),
  (4, 'UserMarker'), (5, 'hipMalloc');
INSERT INTO rocpd_ustring(id, string) VALUES (1, ''), (2, 'outer'), (3, 'inner');
INSERT INTO rocpd_api(id, pid, tid, start, end, apiName_id, category_id, domain_id, args_id) VALUES
  (1, 5, 7, 2000, 3000, 1, 1, 1, 1), (2, 5, 7, 4000, 5000, 1, 1, 1, 1),
  (3, 5, 7, 3500, 6000, 4, 1, 1, 3), (4, 5, 7, 60000, 61000, 1, 1, 1, 1),
  (5, 5, 7, 1000, 90000, 4, 1, 1, 2),
  (6, 5, 8, 150, 200, 5, 1, 1, 1), (7, 5, 8, 100, 500, 5, 1, 1, 1), (8, 5, 8, 600, 700, 5, 1, 1, 1),
  (9, 5, 8, 300, 800, 5, 1, 1, 1), (10, 5, 8, 850, 880, 5, 1, 1, 1), (11, 5, 8, 400, 900, 5, 1, 1, 1),
  (12, 5, 9, 100, 900, 5, 1, 1, 1), (13, 5, 9, 200, 300, 5, 1, 1, 1), (14, 5, 9, 400, 800, 5, 1, 1, 1),
  (15, 5, 9, 500, 600, 5, 1, 1, 1),
  (16, 5, 7, 800, 950, 1, 1, 1, 1),
  (17, 5, 10, 56000, 57000, 1, 1, 1, 1), (18, 5, 10, 55000, 65000, 4, 1, 1, 3);
INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, end, description_id, opType_id) VALUES
  (1, 0, 1, 1, 50000, 51000, 3, 2), (3, 0, 1, 3, 60000, 61000, 3, 2), (4, 0, 1, 4, 70000, 71000, 3, 2);
INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (1, 1), (17, 3), (4, 4);"
if rpd2tracing nest.rpd nest.json -q 2>nest.err; then
  check_eq "nest: calls that nest are one track per thread (7, 9); crossing calls of 8 take 3 lanes" \
    "Hip 10|Hip 7|Hip 8|Hip 8 (2)|Hip 8 (3)|Hip 9|Markers 1|Queue 1" \
    "$(grep '"thread_name"' nest.json | sed 's/.*"name":"\([^"]*\)"}.*/\1/' | sort -u | tr '\n' '|' | sed 's/|$//')"
  check_eq "nest: thread 7's 6 calls (markers and launches in end order) on tid 7" 6 \
    "$(grep '"cat":"api"' nest.json | grep -c '"pid":5,"tid":7,')"
  check_eq "nest: the two marker frames on one track" "2 1" \
    "$(grep -c '"cat":"marker_frame"' nest.json) $(grep '"cat":"marker_frame"' nest.json | sed 's/.*"tid":\([0-9]*\).*/\1/' | sort -u | wc -l)"
  check_eq "nest: strict nesting" "nesting 0" "$("$JC" nest.json | grep '^nesting')"
  if python3 -c 'import json, sys; json.load(open(sys.argv[1]))' nest.json 2>/dev/null; then
    ok "nest: python json loads it"
  else notok "nest: python json loads it"; fi
else notok "nest fixture converts" "$(cat nest.err)"; fi
same_events nest.rpd "nest"
if rpd2tracing nest.rpd nest.pftrace -q 2>nest.err; then
  check_eq "nest protobuf: strict nesting, every END matched" "nesting 0|bad 0" \
    "$("$PC" nest.pftrace | grep -E '^(nesting|bad) ' | tr '\n' '|' | sed 's/|$//')"
  if command -v protoc >/dev/null 2>&1; then
    check "nest protobuf: protoc --decode reads it" \
      sh -c 'protoc -I"$1" --decode=perfetto.protos.Trace perfetto_trace.proto <nest.pftrace >nest.txt' _ "$PROTO_DIR"
  else skip "nest protobuf: protoc --decode" "no protoc"; fi
else notok "nest fixture converts to protobuf" "$(cat nest.err)"; fi
# (in hsa.rpd the HSA track of tid 101 is tid 102, a Hip thread too: one JSON
# track with two names, two tracks in the protobuf; hsa2 keeps them apart)
cp hsa.rpd hsa2.rpd
sqlite3 hsa2.rpd "UPDATE rocpd_hsaApi SET tid = 102"
same_events hsa2.rpd "hsa"
# An event whose name and argument are both invalid UTF-8, different
# texts: each is repaired on its own (the protobuf looks both up before it
# writes the event, the name inline at its first sighting).  HSA calls
# (both raw texts), the same pair four times on two threads: inline, then
# interned, then by iid.
cp hsa2.rpd hsa3.rpd
sqlite3 hsa3.rpd "INSERT INTO rocpd_string(id, string) VALUES (30, CAST(X'6E616D65FF31' AS TEXT)),
    (31, CAST(X'61726773FE32' AS TEXT));
  INSERT INTO rocpd_hsaApi VALUES (2, 100, 102, 3000, 3100, 30, 31), (3, 100, 102, 3200, 3300, 30, 31),
    (4, 100, 102, 3400, 3500, 30, 31), (5, 100, 110, 3600, 3700, 30, 31);"
same_events hsa3.rpd "invalid UTF-8 in both an event's name and its argument"
if command -v protoc >/dev/null 2>&1; then
  if protoc -I"$PROTO_DIR" --decode=perfetto.protos.Trace perfetto_trace.proto <p.pftrace >p.txt 2>p.err; then
    ok "protoc --decode reads the protobuf"
    check_eq "protoc: 11 slice begins and ends, 1 instant (no flow instants: flows start on the api slices), 21 counter points" "11 11 1 21" \
      "$(grep -c TYPE_SLICE_BEGIN p.txt) $(grep -c TYPE_SLICE_END p.txt) $(grep -c TYPE_INSTANT p.txt) $(grep -c TYPE_COUNTER p.txt)"
    check_eq "protoc: one sequence per track, each with an incremental clock and its track as default" \
      "$(grep -c 'track_descriptor {' p.txt) $(grep -c 'is_incremental: true' p.txt) $(grep -c 'timestamp_clock_id: 64' p.txt)" \
      "$(grep -c 'track_descriptor {' p.txt) $(grep -c 'clock_snapshot {' p.txt) $(grep -c 'track_event_defaults {' p.txt)"
    check_eq "protoc: hostile names survive as UTF-8 (marker range and its 2 frames, one interning per track)" 3 "$(grep -c 'name: "outer \\"quoted\\" \\\\ back\\ttab"' p.txt)"
    check_eq "protoc: invalid UTF-8 repaired to U+FFFD (the name; its desc, the same text, is not repeated)" 1 "$(grep -c 'bad\\357\\277\\275\\357\\277\\275end' p.txt)"
    check_eq "protoc: 9 args (3 ops, 4 api calls, 2 frames): no desc repeating the name (UserMarker range and mark, the copy named by its type)" 9 "$(grep -c 'debug_annotations {' p.txt)"
    check_eq "protoc: a string-table name (hipLaunchKernel) is interned at once: an entry on each of its 2 threads, never inline" "0 2" \
      "$(grep -c '^    name: "hipLaunchKernel"' p.txt) $(grep -c '^      name: "hipLaunchKernel"' p.txt)"
    check_eq "protoc: an args value (stream = 0x1, 3 calls) is inline at its first sighting, then interned (an entry on each of its 2 threads)" "1 2" \
      "$(grep -c '^      string_value: "stream = 0x1"' p.txt) $(grep -c '^      str: "stream = 0x1"' p.txt)"
    check_eq "protoc: flow ids are varints (flow_ids_old, terminating_flow_ids_old), none fixed64" "4 4 0" \
      "$(grep -c ' flow_ids_old:' p.txt) $(grep -c 'terminating_flow_ids_old:' p.txt) $(grep -c ' flow_ids:' p.txt)"
  else notok "protoc --decode reads the protobuf" "$(head -c 300 p.err)"; fi
else skip "protoc --decode" "protoc not installed (Debian protobuf-compiler)"; fi
if command -v rpd-synth >/dev/null 2>&1 && [ -s synth.rpd ]; then
  same_events synth.rpd "synth"
  RPD2TRACING_THREADS=1 rpd2tracing synth.rpd s1.pftrace -q
  RPD2TRACING_THREADS=2 rpd2tracing synth.rpd s2.pftrace -q
  same_file "synth: one worker or two: the same protobuf" s1.pftrace s2.pftrace
fi
if need_shared "$TRACES/mytrace.rpd.gz"; then
  same_events my.rpd "mytrace"
  check_eq "mytrace: protobuf at least 5x smaller than the JSON" yes \
    "$([ $(($(wc -c <se.json) / $(wc -c <se.pftrace))) -ge 5 ] && echo yes)"
  same_events my.rpd "mytrace --start 20% --end 40%" --start 20% --end 40%
  if command -v rpd-import >/dev/null 2>&1; then
    for f in rocprofv3_908_results.json.gz rocprofv3_28_results.db rocprofv3_csv rocprofv3_doc_samples; do
      [ -e "$TRACES/$f" ] || continue
      rm -f imp.rpd
      rpd-import "$TRACES/$f" imp.rpd -q 2>/dev/null && same_events imp.rpd "$f (imported)"
    done
  fi
fi

# ---------------------------------------------------------------- bad times
# A whole-file conversion checks the times of rocpd_api and rocpd_op on its
# scans' way (no scan of its own at open): a bad row still gives
# rpd_check_trace's one line, no output, the input unchanged; in both
# formats, with one worker or two.
bad_times() { # NAME SQL MESSAGE
  cp mini.rpd bt.rpd
  sqlite3 bt.rpd "$2"
  _ck=$(cksum <bt.rpd)
  for _o in bt.json bt.pftrace; do
    for _th in 1 2; do
      rm -f "$_o"
      check_rc "$1 ($_o, $_th worker(s)): exit 1" 1 env RPD2TRACING_THREADS=$_th rpd2tracing bt.rpd "$_o" -q
      check_eq "$1 ($_o, $_th worker(s)): the message" "rpd2tracing: cannot read 'bt.rpd': $3" "$(cat "$TESTDIR/stderr")"
      check_eq "$1 ($_o, $_th worker(s)): no output" no "$([ -e "$_o" ] && echo yes || echo no)"
    done
  done
  check_eq "$1: input unchanged" "$_ck" "$(cksum <bt.rpd)"
}
bad_times "api start not an integer" "UPDATE rocpd_api SET start = 'x' WHERE id = 3" \
  "rocpd_api.start: 1 row is not an integer (text, real, blob or null); fix or delete it"
bad_times "op gpuId negative" "UPDATE rocpd_op SET gpuId = -1 WHERE id = 2" \
  "rocpd_op.gpuId: 1 row is not an integer in 0 .. 2^31-1; fix or delete it"
bad_times "launching api ends before it starts" "UPDATE rocpd_api SET end = start - 1 WHERE id = 6" \
  "rocpd_api.end: 1 row ends before it starts; fix or delete it"
bad_times "launched op past 2^62" "UPDATE rocpd_op SET start = 4611686018427387905, end = 4611686018427387906 WHERE id = 4" \
  "rocpd_op.start: 1 row outside 0 .. 2^62 ns; fix or delete it"
cp mini.rpd bt.rpd
sqlite3 bt.rpd "UPDATE rocpd_api SET start = 'x' WHERE id = 3"
check_rc "bad times with --start: checked at open" 1 rpd2tracing bt.rpd bt.json -q --start 0
check_eq "bad times with --start: the message" "rpd2tracing: cannot read 'bt.rpd': rocpd_api.start: 1 row is not an integer (text, real, blob or null); fix or delete it" "$(cat "$TESTDIR/stderr")"

# ---------------------------------------------------------------- windows
check_rc "--split 3" 0 rpd2tracing mini.rpd sp.json --split 3 -q
check_eq "--split 3: three files that sort in time order" "sp.0001.json sp.0002.json sp.0003.json" "$(ls sp.*.json | tr '\n' ' ' | sed 's/ $//')"
check_eq "--split 3: every api call in exactly one file" 6 \
  "$(for f in sp.*.json; do "$JC" "$f"; done | awk '$1=="cat"&&($2=="X/api"||$2=="i/marker"){n+=$3} END{print n+0}')"
check_eq "--split: windows keep the rules" "0 0 0" \
  "$(for f in sp.*.json; do "$JC" "$f"; done | awk '$1=="nesting"||$1=="unnamed_process"||$1=="unnamed_thread"{n[$1]+=$2} END{print n["nesting"]+0, n["unnamed_process"]+0, n["unnamed_thread"]+0}')"
check_rc "a file over the warning size still converts" 0 env RPD2TRACING_WARN_BYTES=1000 rpd2tracing mini.rpd big.json -q
check_one_line "over the warning size: one warning line"
check_eq "over the warning size: the warning" "rpd2tracing: warning: 'big.json' is 0.0 GB, more than the Perfetto UI loads (about 2 GB): use --max-size 2G, --split N or a .pftrace OUT" "$(cat "$TESTDIR/stderr")"
check_rc "under the warning size: no warning" 0 rpd2tracing mini.rpd small.json -q
check_eq "under the warning size: stderr empty" "" "$(cat "$TESTDIR/stderr")"
check_rc "--split 0" 2 rpd2tracing mini.rpd x.json --split 0
check_rc "--max-size junk" 2 rpd2tracing mini.rpd x.json --max-size 12Q
check_rc "--split with --max-size" 2 rpd2tracing mini.rpd x.json --split 2 --max-size 1M
if need_shared "$TRACES/mytrace.rpd.gz"; then
  check_rc "mytrace --max-size 2M" 0 rpd2tracing my.rpd ms.json --max-size 2M -q
  check_eq "--max-size: every file at most 2 MiB" "" \
    "$(for f in ms.*.json; do [ "$(wc -c <"$f")" -le 2097152 ] || echo "$f"; done)"
  check_eq "--max-size: more than one file" yes "$([ "$(ls ms.*.json | wc -l)" -ge 5 ] && echo yes)"
  check_eq "--max-size: every op in exactly one file" "$(q my.rpd 'SELECT count(*) FROM rocpd_op')" \
    "$(for f in ms.*.json; do "$JC" "$f"; done | awk '$1=="cat"&&$2~/^X\/(kernel|copy|barrier|other)$/{n+=$3} END{print n+0}')"
  check_rc "mytrace --max-size 500K .pftrace" 0 rpd2tracing my.rpd ms.pftrace --max-size 500K -q
  check_eq "--max-size .pftrace: every file at most 500 KiB" "" \
    "$(for f in ms.*.pftrace; do [ "$(wc -c <"$f")" -le 512000 ] || echo "$f"; done)"
  check_eq "--max-size .pftrace: every op in one file" "$(q my.rpd 'SELECT count(*) FROM rocpd_op')" \
    "$(for f in ms.*.pftrace; do "$PC" "$f"; done | awk '$1=="cat"&&$2~/^X\/(kernel|copy|barrier|other)$/{n+=$3} END{print n+0}')"
fi

# Marker frame labels travel from the api pass to the launch pass through a
# temp file: labels of 70 KB (past its 64 KB write buffer) and 300 KB (past
# its 256 KB read window) between short ones, each frame named by its own
# marker's args, in JSON and protobuf.
sqlite3 labels.rpd <"$ROOT/views/schema.sql"
sqlite3 labels.rpd "
INSERT INTO rocpd_string(id, string) VALUES (1, 'hipLaunchKernel'), (2, 'UserMarker'), (3, 'KernelExecution'), (4, 'k');
INSERT INTO rocpd_ustring(id, string) VALUES (1, 'short one'),
  (2, 'long70 ' || replace(hex(zeroblob(35000)), '0', 'a')),
  (3, 'long300 ' || replace(hex(zeroblob(150000)), '0', 'b')), (4, 'short two'), (5, 'stream');
INSERT INTO rocpd_api(id, pid, tid, start, end, apiName_id, category_id, domain_id, args_id) VALUES
  (1, 1, 1, 2000, 3000, 1, 5, 5, 5), (2, 1, 1, 1000, 10000, 2, 5, 5, 1),
  (3, 1, 1, 2002000, 2003000, 1, 5, 5, 5), (4, 1, 1, 2001000, 2010000, 2, 5, 5, 2),
  (5, 1, 1, 4002000, 4003000, 1, 5, 5, 5), (6, 1, 1, 4001000, 4010000, 2, 5, 5, 3),
  (7, 1, 1, 6002000, 6003000, 1, 5, 5, 5), (8, 1, 1, 6001000, 6010000, 2, 5, 5, 4);
INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, end, description_id, opType_id) VALUES
  (1, 0, 0, 1, 4000, 5000, 4, 3), (2, 0, 0, 2, 2004000, 2005000, 4, 3),
  (3, 0, 0, 3, 4004000, 4005000, 4, 3), (4, 0, 0, 4, 6004000, 6005000, 4, 3);
INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (1, 1), (3, 2), (5, 3), (7, 4);"
labels_want=$(sqlite3 labels.rpd "SELECT S.string FROM rocpd_api A JOIN rocpd_ustring S ON S.id = A.args_id WHERE A.apiName_id = 2 ORDER BY A.start" | cksum)
if rpd2tracing labels.rpd labels.json -q 2>labels.err; then
  check_eq "labels: four frames, each named by its marker's args (70 KB and 300 KB ones too)" "$labels_want" \
    "$(python3 -c 'import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
for e in sorted((e for e in ev if e.get("cat") == "marker_frame"), key=lambda e: e["ts"]): print(e["name"])' labels.json | cksum)"
else notok "labels fixture converts" "$(cat labels.err)"; fi
if rpd2tracing labels.rpd labels.pftrace -q 2>labels.err; then
  check_eq "labels protobuf: the 300 KB label is there" yes \
    "$(grep -q "long300 $(printf 'b%.0s' $(seq 1 64))" labels.pftrace && echo yes)"
else notok "labels fixture converts to protobuf" "$(cat labels.err)"; fi
