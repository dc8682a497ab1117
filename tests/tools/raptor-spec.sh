#!/bin/sh
# Every command line of the user's raptor README (../shared/spec/raptor-README.md)
# run verbatim on ../shared/traces/mytrace.rpd.gz (the README's
# tests/mytrace.rpd.gz), and its example category file raptor_cat_vllm.json
# (shipped as raptor/raptor_cat_vllm.json).  Issue 11.3.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"
SRC="$(cd "$(dirname "$0")" && pwd)/../.."
CATS="$SRC/raptor/raptor_cat_vllm.json"
SPEC="$SHARED/spec/raptor-README.md"

check_rc "raptor --help" 0 raptor --help
check "--help names --top, --auto-roi and --prekernel-seq" sh -c \
  "grep -q -- '--top' '$TESTDIR/stdout' && grep -q -- '--auto-roi ' '$TESTDIR/stdout' && grep -q -- '--prekernel-seq' '$TESTDIR/stdout'"

# the shipped example file is the README's (compared as JSON, in order)
check "raptor_cat_vllm.json is valid JSON" python3 -c "import json; json.load(open('$CATS'))"
if need_shared "$SPEC"; then
  check_eq "raptor_cat_vllm.json = the README's example" "" "$(python3 - "$SPEC" "$CATS" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
block = text.split('$ cat raptor_cat_vllm.json', 1)[1].split('```', 1)[0]
spec = json.loads(block)
ours = json.load(open(sys.argv[2]))
if list(spec.items()) != list(ours.items()):
    print("differs:", spec, ours)
PY
)"
fi

need_shared "$TRACES/mytrace.rpd.gz" || exit 0
T="$TRACES/mytrace.rpd.gz"
roi() { sed -n "s/^ *$1 *: *\([-0-9.]*\) ms$/\1/p" "$TESTDIR/stdout"; }

# ./raptor.py tests/mytrace.rpd.gz --categorize --top
check_rc "--categorize --top" 0 raptor "$T" --categorize --top
check_eq "--categorize --top: the category and kernel-sequence tables only" "Categories: Top Kernels:" \
  "$(grep -E '^(Categories|Top Kernels|Variability|GPUs):$' "$TESTDIR/stdout" | tr '\n' ' ' | sed 's/ $//')"
check_eq "--top = --kernelseq" "$(raptor "$T" --kernelseq --format json | cksum)" "$(raptor "$T" --top --format json | cksum)"

# ./raptor.py tests/mytrace.rpd.gz --categorize --top --auto-roi
check_rc "--categorize --top --auto-roi" 0 raptor "$T" --categorize --top --auto-roi
tmpcopy "$T" k.rpd
raptor k.rpd --save -k >/dev/null
check_eq "--auto-roi: ROI = first..last start of the hottest sequence (ms)" \
  "$(q k.rpd "SELECT printf('%.6f %.6f', start_min_ns / 1e6, start_max_ns / 1e6) FROM ext_raptor_kernelseq WHERE kernel NOT LIKE 'GAP %' ORDER BY rank LIMIT 1")" \
  "$(roi roi_start) $(roi roi_end)"
check_eq "--auto-roi on mytrace: 10.496683 .. 317.706361 ms" "10.496683 317.706361" "$(roi roi_start) $(roi roi_end)"
check_eq "--auto-roi = --auto-roi-top" "$(raptor "$T" --top --auto-roi-top --format json | cksum)" \
  "$(raptor "$T" --top --auto-roi --format json | cksum)"

# ./raptor.py tests/mytrace.rpd.gz --op-trace
check_rc "--op-trace" 0 raptor "$T" --op-trace
check_eq "--op-trace: a line per GPU op (10124) after the header" 10124 \
  "$(sed -n '/GPU.Seq_Id/,$p' "$TESTDIR/stdout" | tail -n +2 | grep -c .)"

# --prekernel-seq N (0 = kernel name only)
check_rc "--prekernel-seq 0" 0 raptor "$T" --top --prekernel-seq 0 --format csv
check_eq "--prekernel-seq 0: one row per kernel name" \
  "$(raptor "$T" --top --kernelseq-len 0 --format csv | cksum)" "$(cksum <"$TESTDIR/stdout")"
check_eq "--prekernel-seq 0: no predecessor columns" "rank,kernel,category" \
  "$(head -1 "$TESTDIR/stdout" | cut -d, -f1-3 | tr -d '\r')"

# ROI units: the default unit is ms
for a in "123.45" "123.45ms" ".12345s"; do
  check_rc "--roi-start $a" 0 raptor "$T" -c --roi-start "$a"
  check_eq "--roi-start $a = 123.45 ms" "123.450000" "$(roi roi_start)"
done
# the README lists 123450ns with them; 123450 ns is 0.12345 ms (docs/raptor.md)
check_rc "--roi-start 123450ns" 0 raptor "$T" -c --roi-start 123450ns
check_eq "--roi-start 123450ns = 0.12345 ms" "0.123450" "$(roi roi_start)"
check_rc "--roi-start=+123.45" 0 raptor "$T" -c --roi-start=+123.45
check_eq "--roi-start=+123.45 = 123.45 ms" "123.450000" "$(roi roi_start)"
check_rc "--roi-start=-100ms --roi-end=-10ms" 0 raptor "$T" -c --roi-start=-100ms --roi-end=-10ms
check_eq "... a 90 ms region near the end" "398.594451 488.594451 90.000000" \
  "$(roi roi_start) $(roi roi_end) $(roi roi_dur)"
check_rc "--roi-start=Cijk_" 0 raptor "$T" -c --roi-start=Cijk_
check_eq "--roi-start=Cijk_: the first Cijk_ op" "8.270900" "$(roi roi_start)"

# the README's category file: "_COMM" is communication, Attention as written
check_rc "-C raptor_cat_vllm.json --categorize --top" 0 raptor "$T" --category-json "$CATS" --categorize --top
check_eq "raptor_cat_vllm.json on mytrace: its categories" "Attention CopyD2D GEMM _GPU_Idle _Other aten" \
  "$(sed -n '/^Categories:/,/^$/p' "$TESTDIR/stdout" | tail -n +4 | awk '{print $1}' | grep . | sort | tr '\n' ' ' | sed 's/ $//')"
check_eq "Attention = paged_attention* and attn_fwd kernels (1280 calls)" 1280 \
  "$(raptor "$T" -C "$CATS" -c --format csv | tr -d '\r' | grep '^Attention,' | cut -d, -f3)"
if need_shared "$TRACES/rocprofv3_908_results.json.gz"; then
  rpd-import -q "$TRACES/rocprofv3_908_results.json.gz" r908.rpd
  check_rc "908: -C raptor_cat_vllm.json -c -v --save" 0 raptor r908.rpd -C "$CATS" -c -v --save
  check_eq "908: by_comm = VarSum of the _COMM category (us), > 0" 1 \
    "$(q r908.rpd "SELECT abs((SELECT var_us FROM ext_raptor_variability WHERE name = 'by_comm') - (SELECT varsum_ns / 1000 FROM ext_raptor_category WHERE category = '_COMM')) < 1e-3 AND (SELECT var_us FROM ext_raptor_variability WHERE name = 'by_comm') > 0")"
  # full kernel names are the identity (docs/rpd-import.md): the nccl variants
  # are separate kernels, each with its own minimum
  check_eq "908: by_comm = 3032751.5 us (full kernel names)" 3032751.5 \
    "$(q r908.rpd "SELECT round(var_us, 1) FROM ext_raptor_variability WHERE name = 'by_comm'")"
  rpd-import -q --truncated-names "$TRACES/rocprofv3_908_results.json.gz" r908t.rpd
  raptor r908t.rpd -C "$CATS" -c -v --save >/dev/null
  check_eq "908 --truncated-names: by_comm = 3940818.6 us (one kernel per short name)" 3940818.6 \
    "$(q r908t.rpd "SELECT round(var_us, 1) FROM ext_raptor_variability WHERE name = 'by_comm'")"
fi
