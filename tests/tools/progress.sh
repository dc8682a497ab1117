#!/bin/sh
# progress.sh - the one progress line (common/trace/progress.c) of every tool
# that can run long: under a pseudo-terminal it shows percent of a known
# total, rate and ETA and ends at 100%; it is absent when stderr is not a
# terminal and with -q; stdout is the same either way.  RPD_PROGRESS_MS=0
# lets the small generated traces show the line (no 250 ms wait).
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

command -v python3 >/dev/null 2>&1 || { skip "progress: needs python3"; exit 0; }
cat >pty_run.py <<'PY'
# pty_run.py ERR OUT CMD...: CMD with stderr on a pseudo-terminal (saved to
# ERR), stdout to OUT; exits with CMD's status.
import os, pty, subprocess, sys
err, out, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
m, s = pty.openpty()
with open(out, "wb") as o:
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=o, stderr=s)
os.close(s)
data = b""
while True:
    try:
        chunk = os.read(m, 65536)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
open(err, "wb").write(data)
sys.exit(p.wait())
PY

rpd-synth --seed 3 --api 60000 --gpus 2 --graphs 4 --stackframes -o t.rpd >/dev/null ||
  { notok "progress: rpd-synth"; exit 1; }
rpd-synth --seed 3 --api 60000 --schema 2 -o v2.rpd >/dev/null || { notok "progress: rpd-synth v2"; exit 1; }
rpd-trim t.rpd -o t2.rpd --start 5% --end 95% >/dev/null || { notok "progress: rpd-trim"; exit 1; }

# run NAME MODE CMD...: MODE tty (stderr on a pty), tty-q (the same with
# -q), plain (stderr to a file); leaves NAME.MODE.err and NAME.MODE.out.
# Every run writes into o.rpd afresh.
run() {
  _n=$1; _m=$2; shift 2
  rm -f o.rpd o.rpd-journal
  case $_m in
    tty) RPD_PROGRESS_MS=0 python3 pty_run.py "$_n.$_m.err" "$_n.$_m.out" "$@" ;;
    tty-q) RPD_PROGRESS_MS=0 python3 pty_run.py "$_n.$_m.err" "$_n.$_m.out" "$@" -q ;;
    plain) RPD_PROGRESS_MS=0 "$@" >"$_n.$_m.out" 2>"$_n.$_m.err" ;;
  esac
}

# tool NAME WHAT CMD...: the checks for one tool; WHAT is the phase whose
# line must show (percent, rate and ETA, then 100%).
tool() {
  _n=$1; _w=$2; shift 2
  run "$_n" tty "$@" || { notok "$_n: exit $? under a terminal: $(tr '\r' '\n' <"$_n.tty.err" | tail -2)"; return; }
  tr '\r' '\n' <"$_n.tty.err" >"$_n.lines"
  if grep -Eq "^$_n: $_w: [0-9]+/[0-9]+ rows \([0-9]+%\), [0-9.]+[kMG]? rows/s, ETA [0-9]" "$_n.lines"; then
    ok "$_n: '$_w' line with percent, rate and ETA"
  else notok "$_n: no '$_w' line with percent, rate and ETA" "$(head -c 300 "$_n.lines")"; fi
  _last=$(grep -E "^$_n: $_w: " "$_n.lines" | tail -1)
  case $_last in
    *" rows (100%)"*) _a=${_last#*: "$_w": }; _a=${_a%% *}
      if [ "${_a%/*}" = "${_a#*/}" ]; then ok "$_n: '$_w' ends at 100% ($_a)"
      else notok "$_n: '$_w' ends at 100% but done != total: $_a"; fi ;;
    *) notok "$_n: '$_w' does not end at 100%" "$_last" ;;
  esac
  run "$_n" plain "$@" || { notok "$_n: exit $? without a terminal"; return; }
  if grep -q "rows (" "$_n.plain.err"; then notok "$_n: a progress line without a terminal" "$(head -c 200 "$_n.plain.err")"
  else ok "$_n: no progress line when stderr is not a terminal"; fi
  run "$_n" tty-q "$@" || { notok "$_n: exit $? with -q"; return; }
  if tr '\r' '\n' <"$_n.tty-q.err" | grep -q "rows ("; then notok "$_n: a progress line with -q"
  else ok "$_n: no progress line with -q"; fi
  same_file "$_n: stdout the same with and without a terminal" "$_n.plain.out" "$_n.tty.out"
}

tool rpd-graph "graph kernels" rpd-graph t.rpd -o o.rpd
tool rpd-autograd "markers" rpd-autograd t.rpd -o o.rpd
# (the op scan: the longest phase; the kernel statistics take ~1 ms here)
tool rpd-analyze "api calls and ops" rpd-analyze t.rpd -o o.rpd
tool rpd-stackframe "stack frames" rpd-stackframe t.rpd -o o.rpd
tool rpd-trim "vacuum" rpd-trim t.rpd -o o.rpd --start 10% --end 90%
tool rpd-subclass "events" rpd-subclass t.rpd -o o.rpd --name launch --events hipGraphLaunch
tool rpd-deserialize "checking times" rpd-deserialize t.rpd -o o.rpd
tool rpd-strings "rocpd_ustring" rpd-strings t.rpd -o o.rpd --dedupe
tool rpd-schema "upgrading" rpd-schema --upgrade v2.rpd -o o.rpd
tool rpd-diff "trace B" rpd-diff t.rpd t2.rpd
tool rpd2table "ops" rpd2table t.rpd -
rpd-autograd t.rpd -o ag.rpd >/dev/null 2>&1 || notok "progress: rpd-autograd for the summary"
tool rpd-autograd-summary "operators" rpd-autograd-summary ag.rpd o.html
tool raptor "reading ops" raptor t.rpd
tool rpd2tracing "api calls" rpd2tracing t.rpd o.json
# (rpd-import's lines, in MB of input: tests/tools/rpd-import-progress.sh)
# (the call stack's own line: every 4096 calls)
tool rpd-callstack "call stack" rpd-callstack t.rpd -o o.rpd

# copying a trace for -o, compressing OUT.gz, decompressing a .gz input:
# a bytes line in MB that ends at the file's size
rm -f o.rpd.gz
RPD_PROGRESS_MS=0 python3 pty_run.py gz.err gz.out rpd-graph t.rpd -o o.rpd.gz >/dev/null
_size=$(awk -v s="$(wc -c <t.rpd)" 'BEGIN { printf "%.1f", s / 1e6 }')
if tr '\r' '\n' <gz.err | grep -Eq "^rpd-graph: copying: $_size/$_size MB \(100%\)"; then ok "progress: copying line ends at the input's $_size MB"
else notok "progress: copying line ends at the input's $_size MB" "$(tr '\r' '\n' <gz.err | grep copying | tail -1)"; fi
# (the augmented work file grew: its own size is the total)
if tr '\r' '\n' <gz.err | grep -Eq "^rpd-graph: compressing: ([0-9.]+)/\1 MB \(100%\)"; then ok "progress: compressing line ends at 100%"
else notok "progress: compressing line ends at 100%" "$(tr '\r' '\n' <gz.err | grep compressing | tail -1)"; fi
RPD_PROGRESS_MS=0 python3 pty_run.py gunz.err gunz.out rpd-graph o.rpd.gz -o o2.rpd --force >/dev/null
if tr '\r' '\n' <gunz.err | grep -Eq "^rpd-graph: decompressing: [0-9.]+/[0-9.]+ MB \(100%\)"; then ok "progress: decompressing line ends at 100%"
else notok "progress: decompressing line ends at 100%" "$(tr '\r' '\n' <gunz.err | tail -2)"; fi

# the line is one line rewritten in place: every print starts with '\r'
# and the finished line ends with a newline
if python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); sys.exit(0 if d.startswith(b"\r") and b"(100%)" in d and d.rstrip(b" ").endswith(b"\n") else 1)' rpd-graph.tty.err
then ok "progress: '\\r'-rewritten line ending in a newline"
else notok "progress: '\\r'-rewritten line ending in a newline"; fi
