#!/bin/sh
# tests/tools/rpd-import-dos.sh - hostile sizes: one JSON string of 96 MB
# (a 450 KB .json.gz) parses in linear time (yajl re-lexes a token from its
# start on every chunk it is fed: json.c feeds a stuck token in doubling
# pieces), and running out of memory (ulimit -v, in a subshell) is one
# line and exit 1 with no temp file left, in rpd-import and rpd-autograd.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

# ASan reserves terabytes of address space: ulimit -v cannot work there
if ldd "$RPD_BIN/rpd-import" 2>/dev/null | grep -q libasan; then
  skip "hostile sizes: not under the sanitizer build"
  exit 0
fi

nothing_left() { # NAME: no output, no temp, no journal in the directory
  _left=$(ls -A | grep -v '^s96.json.gz$\|^h.rpd$\|^h.orig$\|^check\.\|^stdout$\|^stderr$')
  if [ -z "$_left" ]; then ok "$1"; else notok "$1" "left: $_left"; fi
}

# ---------------------------------------------------------------- one long string
{ printf '{"rocprofiler-sdk-tool":[{"metadata":{"pid":7},"kernel_symbols":[{"kernel_id":1,"formatted_kernel_name":"'
  head -c 100663296 /dev/zero | tr '\0' a
  printf '","truncated_kernel_name":"k"}]}]}'; } | gzip -1 >s96.json.gz
# CPU seconds, not wall time (a loaded machine does not change them much):
# linear parsing takes about 1 s; the quadratic one took 20+ s
(ulimit -t 8; exec rpd-import -q s96.json.gz long.rpd) >/dev/null 2>"$TESTDIR/stderr"; rc=$?
check_eq "96 MB JSON string: parsed within 8 CPU seconds" "0" "$rc"
check_eq "96 MB JSON string: the trace is written" "7" \
  "$(q long.rpd "SELECT value FROM rocpd_metadata WHERE tag = 'rocprofv3::pid'" 2>&1)"
rm -f long.rpd

# ---------------------------------------------------------------- out of memory
# 100 MB of address space: yajl's buffer for the string cannot grow
(ulimit -v 100000; exec rpd-import -q s96.json.gz oom.rpd) >/dev/null 2>"$TESTDIR/stderr"; rc=$?
check_eq "rpd-import out of memory: exit 1 (not a signal)" "1" "$rc"
check_one_line "rpd-import out of memory: one line"
check "rpd-import out of memory: says so" grep -q "^rpd-import: out of memory ([0-9]* bytes)$" "$TESTDIR/stderr"
nothing_left "rpd-import out of memory: no output, no temp left"

# rpd-autograd with a 20 MB autograd marker, into -o OUT (a temp file)
rpd-synth --seed 1 --api 50 --schema 3 -o h.rpd >/dev/null
sqlite3 h.rpd "INSERT INTO rocpd_string(id, string) VALUES (900, 'UserMarker');
  INSERT INTO rocpd_ustring(id, string) VALUES (9001, 'aten::mm, op_id = 5, sizes = ['
    || replace(hex(zeroblob(4000000)), '00', '[2], ') || '[1]], input_op_ids = [1]');
  INSERT INTO rocpd_api(id, pid, tid, start, end, apiName_id, category_id, domain_id, args_id)
    VALUES (100000, 1, 1, 0, 10, 900, 900, 900, 9001);"
cp h.rpd h.orig
(ulimit -v 60000; exec rpd-autograd h.rpd -o oom.rpd --skip-callstacks) >/dev/null 2>"$TESTDIR/stderr"; rc=$?
check_eq "rpd-autograd out of memory: exit 1 (not a signal)" "1" "$rc"
check_one_line "rpd-autograd out of memory: one line"
# which allocation fails first (the tool's 32 MB, or SQLite's page cache
# holding the pages the writer's page check read) moves with a few MB of
# address space: either is the one line the user must get
check "rpd-autograd out of memory: says so" grep -Eq "^rpd-autograd: (out of memory \([0-9]+ bytes\)|'h.rpd': out of memory in SQLite)$" "$TESTDIR/stderr"
nothing_left "rpd-autograd out of memory: no output, no temp left"
same_file "rpd-autograd out of memory: input byte-identical" h.rpd h.orig
check_rc "rpd-autograd with memory: the marker is read" 0 rpd-autograd h.rpd -o ok.rpd --skip-callstacks
check_eq "rpd-autograd with memory: its row (op_id 5, 20 MB of sizes)" "520000005" "$(q ok.rpd "SELECT op_id || length(sizes) FROM ext_autogradapi WHERE api_ptr_id = 100000")"
