#!/bin/sh
# tests/tools/cli-common.sh - what every tool takes (common/cli/cli.c): --version
# (one version for all, from common/cli/version.h), -q / --quiet, and the
# version an augmenter records in rocpd_metadata.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

SRC=$(cd "$(dirname "$0")/../.." && pwd)
want=$(sed -n 's/^#define RPDTOOLS_VERSION "\(.*\)"$/\1/p' "$SRC/common/cli/version.h")
check "common/cli/version.h holds the version" test -n "$want"

n=0; bad=
for t in "$RPD_BIN"/*; do
  [ -x "$t" ] || continue
  name=$(basename "$t")
  out=$("$t" --version 2>&1); rc=$?
  n=$((n + 1))
  [ "$rc" = 0 ] && [ "$out" = "$name (rpdtools) $want" ] || bad="$bad $name[$rc:$out]"
done
check_eq "--version: every tool prints 'NAME (rpdtools) $want', exit 0" "" "$bad"
check "--version: at least 15 tools checked ($n)" test "$n" -ge 15

# --help and --version to a stdout that cannot be written: exit 1 and one
# line, for every tool (the text was lost: exit 0 would hide it)
if [ -c /dev/full ]; then
  bad=
  for t in "$RPD_BIN"/*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    for opt in --help --version; do
      "$t" $opt >/dev/full 2>err.txt; rc=$?
      [ "$rc" = 1 ] && [ "$(cat err.txt)" = "$name: cannot write to stdout: No space left on device" ] ||
        bad="$bad $name$opt[$rc:$(head -c 80 err.txt)]"
    done
  done
  check_eq "--help/--version >/dev/full: exit 1, one line, every tool" "" "$bad"
  check_rc "raptor --report --help >/dev/full: exit 1" 1 sh -c 'raptor --report --help >/dev/full'
fi

rpd-synth --api 2000 -o s.rpd -q >synth.out 2>&1
check_rc "rpd-synth -q writes a trace" 0 test -s s.rpd

# -q on a real run of every tool that takes a trace
for tool in rpd-callstack rpd-autograd rpd-deserialize rpd-graph rpd-trim; do
  cp s.rpd "q-$tool.rpd"
  check_rc "$tool -q: accepted" 0 "$tool" -q "q-$tool.rpd"
  check_eq "$tool -q: no summary on stdout, nothing on stderr" "" "$(cat "$TESTDIR/stdout" "$TESTDIR/stderr")"
done
cp s.rpd q-rpd-analyze.rpd
check_rc "rpd-analyze -q: accepted" 0 rpd-analyze -q q-rpd-analyze.rpd
check_eq "rpd-analyze -q: no summary, no findings table" "" "$(cat "$TESTDIR/stdout" "$TESTDIR/stderr")"
check "rpd-analyze -q: the tables are written" test "$(sqlite3 q-rpd-analyze.rpd 'SELECT count(*) FROM ext_analysis_idle')" -gt 0
cp s.rpd q-rpd-strings.rpd
check_rc "rpd-strings -q --dedupe: accepted" 0 rpd-strings -q --dedupe q-rpd-strings.rpd
cp s.rpd q-meta.rpd
check_rc "rpd-metadata -q --list: accepted" 0 rpd-metadata -q --list q-meta.rpd
cp s.rpd q-sub.rpd
check_rc "rpd-subclass -q: accepted" 0 rpd-subclass -q --name k --events hipLaunchKernel q-sub.rpd
cp s.rpd q-schema.rpd
check_rc "rpd-schema -q --info: accepted" 0 rpd-schema -q --info q-schema.rpd
check_rc "rpd2tracing -q: accepted" 0 rpd2tracing -q s.rpd q.json
check_eq "rpd2tracing -q: no summary, no progress" "" "$(cat "$TESTDIR/stdout" "$TESTDIR/stderr")"
check_rc "raptor -q: accepted" 0 raptor -q s.rpd --format csv -c
check_rc "raptor --report -q: accepted" 0 raptor s.rpd --report -q --csv-dir rq
check_rc "rpd-autograd-summary -q: accepted" 0 rpd-autograd-summary -q q-rpd-autograd.rpd sum.html

# an augmenter records which rpdtools built its tables
check_eq "rpd-callstack records rpdtools_version::rpd-callstack" "$want" \
  "$(q q-rpd-callstack.rpd "SELECT value FROM rocpd_metadata WHERE tag = 'rpdtools_version::rpd-callstack'")"
cp q-rpd-callstack.rpd again.rpd
rpd-callstack --force -q again.rpd >/dev/null 2>&1
check_eq "--force rebuild keeps one version row" 1 \
  "$(q again.rpd "SELECT count(*) FROM rocpd_metadata WHERE tag = 'rpdtools_version::rpd-callstack'")"

check_eq "rpd-strings --dedupe records its version" "$want" \
  "$(q q-rpd-strings.rpd "SELECT value FROM rocpd_metadata WHERE tag = 'rpdtools_version::rpd-strings'")"
check_eq "rpd-trim records its version" "$want" \
  "$(q q-rpd-trim.rpd "SELECT value FROM rocpd_metadata WHERE tag = 'rpdtools_version::rpd-trim'")"

# a file named -q after -- is a file, not the option
check_rc "rpd-callstack -- -q: a file named -q (missing)" 1 rpd-callstack -- -q
check "rpd-callstack -- -q: says cannot open '-q'" grep -q "cannot open '-q'" "$TESTDIR/stderr"

# progress goes to a terminal only: stderr is a file here
cp s.rpd p.rpd
rpd-callstack p.rpd >/dev/null 2>p.err
check_eq "no progress line when stderr is not a terminal" "" "$(cat p.err)"

# the option table (common/cli/opt.h) of every tool outside raptor/ and
# rpd-diff: one message for an unknown option, exit 2, and the same
# spellings everywhere
bad=
for t in rpd-autograd rpd-callstack rpd-deserialize rpd-graph rpd-trim rpd-strings \
         rpd-metadata rpd-subclass rpd-schema rpd-stackframe rpd-analyze rpd-perfmodel \
         rpd-synth rpd-synth-rocpd rpd-merge rpd-import rpd2tracing rpd2table \
         rpd-autograd-summary rpd-health rpdRemote; do
  extra=; [ "$t" = rpd-subclass ] && extra="--name k --events e"   # checked first
  "$t" $extra --no-such-option s.rpd >/dev/null 2>err.txt; rc=$?
  [ "$rc" = 2 ] && [ "$(cat err.txt)" = "$t: unknown option '--no-such-option'
Try '$t --help'." ] || bad="$bad $t[$rc:$(head -c 80 err.txt)]"
done
check_eq "every table tool: \"unknown option '--no-such-option'\", exit 2" "" "$bad"
check_rc "rpd-synth --api=500 --output=eq.rpd: the = form" 0 rpd-synth -q --api=500 --output=eq.rpd
check_eq "rpd-synth --api=500: 500 calls" 500 "$(q eq.rpd 'SELECT count(*) FROM rocpd_api')"
check_rc "rpd-synth --gpus 0: a range error, exit 2" 2 rpd-synth --gpus 0 -o x.rpd
check_eq "rpd-synth --gpus 0: the range in the message" \
  "rpd-synth: option '--gpus': '0' is not a number in 1..64" "$(head -n 1 "$TESTDIR/stderr")"

# Derived outputs (rpd_outfile: reports, JSON, CSV) are renamed into place
# complete but not fsynced, as gzip without --synchronous; RPD_SYNC=1 makes
# them durable: the file before the rename, its directory after.
if command -v strace >/dev/null 2>&1 && strace -f -qq -e trace=fsync -o st.log true 2>/dev/null; then
  rpd-synth -q --api 2000 -o sy.rpd
  strace -f -qq -e trace=fsync,fdatasync -o st0.log rpd2tracing -q sy.rpd sy.json
  check_eq "rpd2tracing: no fsync without RPD_SYNC" 0 "$(grep -c sync st0.log)"
  RPD_SYNC=0 strace -f -qq -e trace=fsync,fdatasync -o st0.log rpd2table -q sy.rpd sy.csv
  check_eq "rpd2table: no fsync with RPD_SYNC=0" 0 "$(grep -c sync st0.log)"
  check_eq "rpd2table: its CSV written (header and rows)" 1 "$(grep -c '^marker_name,' sy.csv)"
  RPD_SYNC=1 strace -f -qq -e trace=fsync,fdatasync -o st1.log rpd2tracing -q sy.rpd sy2.json
  check_eq "rpd2tracing with RPD_SYNC=1: the file and its directory fsynced" 2 \
    "$(grep -c '^[0-9]* *fsync(.*= 0$' st1.log)"
  check "the JSON of both runs is the same" cmp sy.json sy2.json
else
  skip "RPD_SYNC fsync count" "no working strace"
fi
