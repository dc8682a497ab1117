#!/bin/sh
# tests/tools/python.sh - the Python package rpdtools (python/, docs/python.md):
# the pytest suite python/tests (one line per pytest test), the cookbook
# (run by that suite), `pip install ./python` offline and `make install`.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
ROOT=$(cd "$here/../.." && pwd)
: "${RPD_LIB:?}"

# librptor.so is raptor's engine and its API only: no main(), none of the
# command line's writers
if [ -e "$RPD_LIB/librptor.so" ] && command -v nm >/dev/null 2>&1; then
  got=$(nm "$RPD_LIB/librptor.so" 2>/dev/null | awk '$3 ~ /^(main|print_all|write_xls|write_csv_dir|save_results|report_build|raptor_report_main|raptor_byrank_main)$/ {print $3}' | sort | tr '\n' ' ')
  check_eq "python: librptor.so holds the engine and the API only (no main, no writers)" "" "$got"
fi

# a python3 with pandas and pytest: $PYTHON, python3, then Debian's
PY=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
  command -v "$p" >/dev/null 2>&1 || continue
  if "$p" -c "import pandas, pytest" >/dev/null 2>&1; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
  skip "python: rpdtools tests" "needs python3 with pandas and pytest (Debian python3-pandas python3-pytest; make deps)"
  exit 0
fi
if [ ! -e "$RPD_LIB/librptor.so" ]; then notok "python: built $RPD_LIB/librptor.so"; exit 0; fi

# an ASan build of the libraries needs the ASan runtime loaded first
ASAN_RT=$(ldd "$RPD_LIB/librptor.so" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*libasan[^ ]*\).*/\1/p' | head -1)
if [ -n "$ASAN_RT" ]; then
  LD_PRELOAD="$ASAN_RT${LD_PRELOAD:+ $LD_PRELOAD}"; export LD_PRELOAD
  ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"; export ASAN_OPTIONS
fi

RPDTOOLS_LIB=$RPD_LIB; RPDTOOLS_BIN=$RPD_BIN; export RPDTOOLS_LIB RPDTOOLS_BIN
RPD_TAP_FILE="$TESTDIR/pytest.tap"; export RPD_TAP_FILE
: >"$RPD_TAP_FILE"
PYTHONPATH="$ROOT/python:$ROOT/python/tests" PYTHONDONTWRITEBYTECODE=1 \
  "$PY" -m pytest -q -p no:cacheprovider --basetemp="$TESTDIR/pytest" "$ROOT/python/tests" \
  >"$TESTDIR/pytest.out" 2>&1
rc=$?
cat "$RPD_TAP_FILE"
n=$(grep -c '^ok - ' "$RPD_TAP_FILE")
if [ "$rc" -ne 0 ] && ! grep -q '^not ok - ' "$RPD_TAP_FILE"; then
  notok "python: pytest exit $rc" "$(tail -3 "$TESTDIR/pytest.out" | tr '\n' ' ')"
fi
[ "$n" -ge 30 ] || notok "python: at least 30 pytest tests passed" "$n"

# pip install ./python, offline: into a venv that sees the system's pandas
# (the Debian way), with pip's defaults (build isolation: the in-tree
# backend python/_build needs nothing from the network)
cp -r "$ROOT/python" "$TESTDIR/pysrc"
if "$PY" -m venv --system-site-packages "$TESTDIR/venv" >"$TESTDIR/venv.out" 2>&1 &&
   [ -x "$TESTDIR/venv/bin/pip" ]; then
  if PIP_NO_INDEX=1 "$TESTDIR/venv/bin/pip" install --quiet "$TESTDIR/pysrc" >"$TESTDIR/pip.out" 2>&1; then
    got=$(cd "$TESTDIR" && env -u PYTHONPATH "$TESTDIR/venv/bin/python" -c "
import rpdtools, os
print(rpdtools.__file__.startswith('$TESTDIR/venv/'), os.path.exists(os.path.join(os.path.dirname(rpdtools.__file__), 'raptor_cat_reference.json')))
rp = rpdtools.RaptorParser('$TESTDIR/pytest/synth0/synth.rpd')
print(rp.get_kernelseq_df()[('TotalCalls', '')].sum() > 0)" 2>&1)
    check_eq "python: pip install ./python (offline, venv): package, category file, a run" "True True
True" "$got"
  else
    notok "python: pip install ./python (offline)" "$(tail -2 "$TESTDIR/pip.out" | tr '\n' ' ')"
  fi
else
  skip "python: pip install ./python" "no venv/pip for $PY"
fi

# make install PREFIX=...: the package finds the installed libraries alone
if [ -z "$ASAN_RT" ] && command -v make >/dev/null; then
  if make -C "$ROOT" --no-print-directory -s install PREFIX="$TESTDIR/prefix" \
       O="$(dirname "$RPD_LIB")" >"$TESTDIR/inst.out" 2>&1; then
    got=$(cd "$TESTDIR" && env -u RPDTOOLS_LIB -u RPDTOOLS_BIN PYTHONPATH="$TESTDIR/prefix/lib/python3/dist-packages" "$PY" -c "
import os, rpdtools, rpdtools._engine as e
rp = rpdtools.RaptorParser('$TESTDIR/pytest/synth0/synth.rpd')
print(len(rp.get_op_df()) > 0, e.load('librptor.so')._name.startswith('$TESTDIR/prefix/lib/'))
rp.set_roi_from_str('10%', '20%')
print(os.path.getsize(rp.trim_to_roi('$TESTDIR/trim.rpd')) > 0)" 2>&1)
    check_eq "python: make install PREFIX: the package loads PREFIX/lib/librptor.so, runs PREFIX/bin/rpd-trim" "True True
True" "$got"
  else
    notok "python: make install PREFIX" "$(tail -2 "$TESTDIR/inst.out" | tr '\n' ' ')"
  fi
fi
exit 0
