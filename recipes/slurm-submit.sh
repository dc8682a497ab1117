#!/bin/sh
# slurm-submit.sh OUTDIR RANK_FILE... - scale-out on Slurm: a job array maps
# every rank file (recipes/slurm-map.sbatch, one task per rank), and a reduce
# job (recipes/slurm-reduce.sbatch) runs after the whole array succeeded
# (--dependency=afterok).  Prints "MAP_JOB_ID REDUCE_JOB_ID".  Extra sbatch
# options (partition, account, time) in $SBATCH_OPTS; logs in OUTDIR/logs/.
# See docs/scale-out.md.
set -eu
[ $# -ge 2 ] || { echo "usage: slurm-submit.sh OUTDIR RANK_FILE..." >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
out=$1; shift
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
: >"$out/inputs.txt"
for f in "$@"; do
  case $f in /*) echo "$f" ;; *) echo "$PWD/$f" ;; esac >>"$out/inputs.txt"
done
n=$#
# shellcheck disable=SC2086
map=$(sbatch --parsable ${SBATCH_OPTS:-} --array=1-$n --job-name=rpd-map \
  --output="$out/logs/map-%a.log" "$here/slurm-map.sbatch" "$here" "$out")
map=${map%%;*}
# shellcheck disable=SC2086
reduce=$(sbatch --parsable ${SBATCH_OPTS:-} --dependency=afterok:$map \
  --job-name=rpd-reduce --output="$out/logs/reduce.log" \
  "$here/slurm-reduce.sbatch" "$here" "$out")
echo "$map ${reduce%%;*}"
