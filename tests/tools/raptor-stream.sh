#!/bin/sh
# raptor-stream.sh - raptor streams the ops (R->ops stays empty, memory flat
# in the number of ops) when no output needs them one by one; the results
# must be those of the in-memory path (RPDTOOLS_RAPTOR_LOAD=memory; --save
# streams too since issue 19).  Generated traces only.
. "$(dirname "$0")/../lib.sh"
cd "$TESTDIR" || exit 1
rpd-synth -q --seed 7 --api 20000 --gpus 3 -o s.rpd >/dev/null 2>&1 ||
  rpd-synth --seed 7 --api 20000 --gpus 3 -o s.rpd >/dev/null
ops=$(q s.rpd "SELECT count(*) FROM rocpd_op")
check_eq "fixture: the trace has ops on 3 GPUs" 3 "$(q s.rpd "SELECT count(DISTINCT gpuId) FROM rocpd_op")"

# both paths, the same options; every table as CSV, compared byte for byte
n=0
for opts in "-k -c -v --gpu-summary" "-k -c -v --gpu-summary -z 2" \
            "-k --gpu-summary -s 10% -e 90%" "-k -c --gpu-id 1 --kernelseq-len 1" \
            "-k -c --reference-ops -l 500"; do
  n=$((n + 1))
  rm -rf mem str; cp s.rpd w.rpd
  # shellcheck disable=SC2086
  check_rc "streamed: $opts" 0 raptor s.rpd $opts --csv-dir str
  # shellcheck disable=SC2086
  check_rc "in memory (--save): $opts" 0 env RPDTOOLS_RAPTOR_LOAD=memory raptor w.rpd $opts --save --csv-dir mem
  for f in str/*.csv; do
    same_file "$opts: $(basename "$f") identical" "$f" "mem/$(basename "$f")"
  done
  check_eq "$opts: same tables" "$(ls mem | tr '\n' ' ')" "$(ls str | tr '\n' ' ')"
done

# real values of the streamed run against the saved ops: per GPU the busy
# time (ms) and, in the kernelseq table, calls + outliers = ops with a key
rm -rf str; cp s.rpd w.rpd
raptor s.rpd -k --gpu-summary -z 2 --display-rows 1000000 --csv-dir str >/dev/null 2>&1
raptor w.rpd -k --gpu-summary -z 2 --save >/dev/null 2>&1
work=$(q w.rpd "SELECT count(*) FROM ext_raptor_op")
check_eq "the saved ops are the kernels and copies (not every op)" 1 \
  "$(q w.rpd "SELECT $work > 1000 AND $work < $ops")"
check_eq "per-GPU busy ms = sum of op durations" \
  "$(q w.rpd "SELECT gpuId || ',' || printf('%.6f', sum(duration_ns) / 1e6) FROM ext_raptor_op GROUP BY gpuId ORDER BY gpuId" | tr '\n' ' ' | sed 's/ $//')" \
  "$(awk -F, 'NR > 1 { printf "%s,%.6f ", $1, $3 }' str/gpus.csv | sed 's/ $//')"
# the CSV quotes names with commas: read it back with sqlite3
ksum() { sqlite3 -batch -noheader :memory: ".import --csv str/kernelseq.csv k" "$1"; }
check_eq "kernelseq calls + outliers = every op" "$work" \
  "$(ksum "SELECT sum(calls + outliers) FROM k WHERE kernel NOT LIKE 'GAP %'")"
check_eq "... and outliers > 0 with -z 2" 1 \
  "$(ksum "SELECT sum(outliers) > 0 FROM k WHERE kernel NOT LIKE 'GAP %'")"
