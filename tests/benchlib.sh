# tests/benchlib.sh - helpers for tests/bench/*.sh (sourced).
#   bench_trace NAME ARGS...   generate (once) $BENCHDIR/NAME.rpd with rpd-synth ARGS
#   measure LABEL ROWS CMD...  run CMD, print secs, rows/s and peak RSS
#   fresh SRC DST              copy a trace so an augmenter can write it
PATH="$RPD_BIN:$PATH"; export PATH
bench_trace() {
  _f="$BENCHDIR/$1.rpd"; shift
  [ -s "$_f" ] || rpd-synth "$@" -o "$_f" >/dev/null || return 1
  echo "$_f"
}
fresh() { cp "$1" "$2"; }
# measure LABEL ROWS CMD... -> sets MEASURED_SECS, prints one BENCH line
measure() {
  _label=$1; _rows=$2; shift 2
  _t="$BENCHDIR/.time.$$"
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%e %M" -o "$_t" "$@" >/dev/null 2>"$BENCHDIR/.err.$$"; _rc=$?
    read -r MEASURED_SECS _rss <"$_t"
  else
    _s=$(date +%s.%N); "$@" >/dev/null 2>"$BENCHDIR/.err.$$"; _rc=$?
    MEASURED_SECS=$(echo "$(date +%s.%N) - $_s" | bc); _rss=?
  fi
  [ "$_rc" = 0 ] || { echo "BENCH $_label FAILED (exit $_rc): $(head -c 300 "$BENCHDIR/.err.$$")"; return 1; }
  _rate=$(awk -v r="$_rows" -v s="$MEASURED_SECS" 'BEGIN{ if (s > 0) printf "%.0f", r/s; else print "inf" }')
  echo "BENCH $_label rows=$_rows secs=$MEASURED_SECS rows/s=$_rate peak_rss_kb=$_rss"
  rm -f "$_t" "$BENCHDIR/.err.$$"
}
