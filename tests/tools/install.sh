#!/bin/sh
# make install PREFIX=...: every binary, library, header and view file lands
# under the prefix, and the installed copies work.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
O=$(dirname "$RPD_BIN")
P="$TESTDIR/inst"
check "make install PREFIX=$P" make -s -C "$repo" install O="$O" PREFIX="$P"
nbin=$(ls "$RPD_BIN" | wc -l)
check_eq "every binary installed" "$nbin" "$(ls "$P/bin" | wc -l)"
for b in "$P"/bin/*; do
  check "installed $(basename "$b") --help" "$b" --help
done
check "rpd.h installed" test -f "$P/include/rpd.h"
check "rpd_control.h installed" test -f "$P/include/rpd_control.h"
check "librpdctl.so installed" test -f "$P/lib/librpdctl.so"
check "librpd_remote.so installed" test -f "$P/lib/librpd_remote.so"
check_eq "every view file installed" "$(ls "$repo"/views/*.sql | wc -l)" "$(ls "$P"/share/rpdtools/views/*.sql | wc -l)"
# the installed view files work by hand on a trace
"$P/bin/rpd-synth" --seed 3 --api 300 -o t.rpd >/dev/null
sqlite3 t.rpd 'DROP VIEW api' && sqlite3 t.rpd < "$P/share/rpdtools/views/api.sql"
check_eq "installed views/api.sql recreates the api view" 300 "$(q t.rpd 'SELECT count(*) FROM api')"
