#!/bin/sh
# tests/bench.sh - `make bench`: runs every tests/bench/*.sh at 1x
# ($BENCH_ROWS api calls, default 1000000), the pieces named in $BENCH_4X
# again at 4x the rows (one run each), and with BENCH_BIG=1 the same pieces
# at $BENCH_BIG_ROWS (default 25000000) calls ($BENCH_PIECES, when set,
# limits every scale to those pieces, e.g. BENCH_PIECES=40-raptor); then
# prints ONE table of
# every measured command (tests/benchlib.sh bench_table):
#   scale, tool, rows, seconds, CPU seconds, rows/s, peak MB, ratio to
#   the piece's SQLite floor (wall and CPU), time ratio 4x/1x.
# Each piece sources tests/benchlib.sh and prints lines of the form
#   BENCH tool rows=N secs=S [cpu_secs=C] rows/s=R peak_rss_kb=K
#   BENCH tool floor secs=F [cpu_secs=G]
# which are all the table reads.  Traces are generated under $BENCHDIR
# (default /tmp/rpdtools-bench) and reused across runs.  The raw lines
# are kept in $BENCHDIR/bench.log.
here=$(cd "$(dirname "$0")" && pwd)
export RPD_BIN RPD_LIB
export BENCHDIR="${BENCHDIR:-/tmp/rpdtools-bench}"
BENCH_ROWS="${BENCH_ROWS:-1000000}"
BENCH_4X="${BENCH_4X-20-callstack 40-raptor 50-tracing}"
mkdir -p "$BENCHDIR"
log="$BENCHDIR/bench.log"
: >"$log"

# run_scale SCALE ROWS PIECES...: the pieces (all when none) at ROWS calls
run_scale() {
  _scale=$1 _rows=$2; shift 2
  echo "== SCALE $_scale rows=$_rows" | tee -a "$log"
  for b in "$here"/bench/*.sh; do
    [ -f "$b" ] || continue
    n=$(basename "$b" .sh)
    if [ $# -gt 0 ]; then
      case " $* " in *" $n "*) ;; *) continue ;; esac
    fi
    echo "== $n ($_scale)"
    BENCH_ROWS=$_rows BENCH_SCALE=$_scale sh "$b" 2>&1 | tee -a "$log" ||
      echo "BENCH $n FAILED" | tee -a "$log"
  done
}

export BENCH_REPEAT="${BENCH_REPEAT:-3}"
# shellcheck disable=SC2086
run_scale 1x "$BENCH_ROWS" ${BENCH_PIECES:-}
if [ -n "${BENCH_PIECES:-}" ]; then
  _only=
  for p in $BENCH_4X; do
    case " $BENCH_PIECES " in *" $p "*) _only="$_only $p" ;; esac
  done
  BENCH_4X=${_only# }
fi
if [ -n "$BENCH_4X" ]; then
  # shellcheck disable=SC2086
  BENCH_REPEAT=1 run_scale 4x $((4 * BENCH_ROWS)) $BENCH_4X
fi
if [ "${BENCH_BIG:-0}" = 1 ] && [ -n "$BENCH_4X" ]; then
  # shellcheck disable=SC2086
  BENCH_REPEAT=1 run_scale big "${BENCH_BIG_ROWS:-25000000}" $BENCH_4X
fi
echo
. "$here/benchlib.sh"
bench_table <"$log"
