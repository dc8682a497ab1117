#!/bin/sh
# parallel.sh OUTDIR RANK_FILE... - scale-out with GNU parallel: the map step
# (recipes/map-rank.sh) for every rank file, $JOBS at a time (default: one
# per CPU), then the reduce (recipes/reduce.sh).  See docs/scale-out.md.
set -eu
[ $# -ge 2 ] || { echo "usage: parallel.sh OUTDIR RANK_FILE..." >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
out=$1; shift
command -v parallel >/dev/null || { echo "parallel.sh: GNU parallel is not installed" >&2; exit 1; }
mkdir -p "$out"
# {#} is the job's sequence number: in00001, in00002, ... in input order
printf '%s\n' "$@" | parallel --will-cite --halt now,fail=1 -j "${JOBS:-100%}" \
  sh "$here/map-rank.sh" {} "$out" 'in$(printf %05d {#})'
sh "$here/reduce.sh" "$out"
