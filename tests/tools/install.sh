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
# the installed header and library are enough to build a program: rpd.h
# compiles alone (every header it includes is installed) and
# librpdcommon.a links with the pkg-config libraries
for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$repo/common/rpd.h"); do
  check "installed $h (included by rpd.h)" test -f "$P/include/$h"
done
cat > prog.c <<'PROG'
#include <rpd.h>
int main(int argc, char **argv)
{
  rpd *r = NULL;
  int64_t n = -1;
  if (argc < 2 || rpd_open(&r, argv[1], NULL, RPD_READ) != RPD_OK) {
    fprintf(stderr, "prog: %s\n", rpd_errmsg());
    return 1;
  }
  if (rpd_query_int64(r, "SELECT count(*) FROM rocpd_api", &n) != RPD_OK)
    n = -1;
  printf("schema %d, %lld api rows\n", rpd_schema(r), (long long)n);
  return rpd_close(r, 0) != RPD_OK;
}
PROG
# the handle is opaque: a program that reaches into it does not compile
cat > peek.c <<'PROG'
#include <rpd.h>
int peek(rpd *r) { return r->schema; }
PROG
 the library holds ASan/UBSan calls: the program
# is built with the same flags (RPD_SANFLAGS, from the Makefile)
if command -v pkg-config >/dev/null && pkg-config --exists sqlite3 zlib libpcre2-8 yajl xlsxwriter; then
  check "a program compiles against the installed rpd.h alone (-std=c11 -Werror)" \
    ${CC:-cc} -std=c11 -Wall -Wextra -Werror $RPD_SANFLAGS -c -I"$P/include" prog.c -o prog.o
  check "... and links with the installed librpdcommon.a" \
    ${CC:-cc} $RPD_SANFLAGS prog.o "$P/lib/librpdcommon.a" $(pkg-config --libs sqlite3 zlib libpcre2-8 yajl xlsxwriter) \
    -lm -lpthread -ldl -o prog
  check_rc "struct rpd is opaque: r->schema does not compile" 1 \
    ${CC:-cc} -std=c11 -Wall -Werror $RPD_SANFLAGS -c -I"$P/include" peek.c -o peek.o
  check_eq "the program reads a trace through the installed library" "schema 3, 300 api rows" "$(./prog t.rpd)"
  ./prog nosuch.rpd 2>err.txt
  check_eq "... and its errors come from the installed library" 1 "$?"
  check "... with the library's message" grep -q "nosuch.rpd\|No such\|no such" err.txt
else
  skip "pkg-config lacks the libraries: no program build against the install"
fi
