# tests/lib.sh - helpers for tool test scripts (sourced; POSIX sh).
# Each check prints exactly one line: "ok - NAME", "not ok - NAME", or
# "skip - NAME"; tests/run.sh counts them.  Scripts run inside a fresh
# scratch directory ($TESTDIR) with $RPD_BIN, $RPD_LIB, $RPD_SHARED set.
#
#   ok NAME / notok NAME [WHY] / skip NAME [WHY]
#   check NAME CMD...               ok if CMD exits 0
#   check_eq NAME EXPECTED ACTUAL   ok if the strings are equal
#   check_rc NAME RC CMD...         ok if CMD exits with RC; its stderr is
#                                   kept in $TESTDIR/stderr
#   check_one_line NAME             stderr of the last check_rc is one line
#   q FILE SQL                      sqlite3 query, '|' separated, no header
#   same_file NAME A B              byte-identical files
#   csv_same NAME A.csv[.gz] B.csv[.gz]   same rows as a multiset (header
#                                   included), gz transparent
#   need_shared PATH                returns 1 (and prints a skip) if absent
#   tmpcopy SRC DST                 copy (decompressing .gz) and make writable
: "${RPD_BIN:?RPD_BIN not set}"
PATH="$RPD_BIN:$PATH"; export PATH
SHARED="${RPD_SHARED:-../shared}"
TRACES="$SHARED/traces"; GOLDEN="$SHARED/golden"

ok()    { echo "ok - $1"; }
notok() { echo "not ok - $1${2:+: $2}"; }
skip()  { echo "skip - $1${2:+: $2}"; }

check() {
  _n=$1; shift
  if "$@" >"$TESTDIR/check.out" 2>"$TESTDIR/check.err"; then ok "$_n"
  else notok "$_n" "exit $? from: $* :: $(head -c 400 "$TESTDIR/check.err")"; fi
}

check_eq() {
  if [ "$2" = "$3" ]; then ok "$1"; else notok "$1" "expected [$2] got [$3]"; fi
}

check_rc() {
  _n=$1; _want=$2; shift 2
  "$@" >"$TESTDIR/stdout" 2>"$TESTDIR/stderr"; _got=$?
  if [ "$_got" = "$_want" ]; then ok "$_n"
  else notok "$_n" "expected exit $_want, got $_got: $(head -c 300 "$TESTDIR/stderr")"; fi
}

check_one_line() {
  _l=$(wc -l <"$TESTDIR/stderr")
  if [ "$_l" -eq 1 ]; then ok "$1"; else notok "$1" "stderr has $_l lines: $(head -c 300 "$TESTDIR/stderr")"; fi
}

q() { sqlite3 -batch -noheader "$1" "$2"; }

same_file() {
  if cmp -s "$2" "$3"; then ok "$1"; else notok "$1" "$2 and $3 differ"; fi
}

# golden CSVs have CRLF line ends; compare without the CR
_cat_any() { case "$1" in *.gz) gzip -dc "$1" ;; *) cat "$1" ;; esac | tr -d '\r'; }

csv_same() {
  _cat_any "$2" | sort >"$TESTDIR/csv_a"; _cat_any "$3" | sort >"$TESTDIR/csv_b"
  if cmp -s "$TESTDIR/csv_a" "$TESTDIR/csv_b"; then ok "$1"
  else notok "$1" "$(diff "$TESTDIR/csv_a" "$TESTDIR/csv_b" | head -6 | tr '\n' ' ')"; fi
}

need_shared() {
  if [ -e "$1" ]; then return 0; fi
  skip "needs $1"; return 1
}

tmpcopy() {
  case "$1" in *.gz) gzip -dc "$1" >"$2" ;; *) cat "$1" >"$2" ;; esac
  chmod u+w "$2"
}
