#!/bin/sh
# tests/tools/rpd-budget.sh - rpd-budget: limits measured on the report's
# numbers (hand-computed on a planted trace), exact boundaries, the Markdown
# table, exit codes 0/1/2, one-line errors naming the limits file's line.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

# gemm: 3000 + 1000 + 500 ns; add: 1500 + 500 + 500 ns.  GPU busy (union)
# 6500 ns of the ops' span 1000..16500 (15500 ns): idle 58.0645%.  Steps
# ProfilerStep#5..8: 9500 (warm-up), 3000, 3100, 2900 -> median 3000 ns.
steps_trace s.rpd   # tests/lib.sh
cp s.rpd s.orig
printf '{"GEMM": ["gemm"], "Elementwise": ["add_"]}\n' >cats.json

cat >ok.txt <<'EOF2'
# a budget that holds, every boundary exactly met
kernel gemm total_ms <= 0.0045
kernel "add_kernel$" mean_us <= 0.834   # 0.8333 us
category GEMM pct <= 64.2858
category Elementwise pct >= 35.7142
idle pct <= 58.0646
busy_ms >= 0.0065
step median_ms <= 0.003

EOF2
check_rc "every limit holds: exit 0" 0 rpd-budget ok.txt s.rpd --category-json cats.json
check_eq "Markdown table: header, 7 rows, the closing line" \
"| limit | measured | result |
|---|---:|---|
| kernel gemm total\\_ms \\<= 0.0045 | 0.0045 | ok |
| kernel add\\_kernel\$ mean\\_us \\<= 0.834 | 0.833333 | ok |
| category GEMM pct \\<= 64.2858 | 64.2857 | ok |
| category Elementwise pct >= 35.7142 | 35.7143 | ok |
| idle pct \\<= 58.0646 | 58.0645 | ok |
| busy\\_ms >= 0.0065 | 0.0065 | ok |
| step median\\_ms \\<= 0.003 | 0.003 | ok |

7 of 7 limits hold: within budget" "$(cat "$TESTDIR/stdout")"
same_file "the trace is only read" s.orig s.rpd

over() { # NAME LINE: a one-limit file that must be over (exit 1)
  printf '%s\n' "$2" >one.txt
  check_rc "$1: exit 1" 1 rpd-budget one.txt s.rpd --category-json cats.json
  case "$(cat "$TESTDIR/stdout")" in
    *"| over"*"0 of 1 limits hold"*) ok "$1: reported over" ;;
    *) notok "$1: reported over" "$(cat "$TESTDIR/stdout")" ;;
  esac
}
over "total just under the measure" "kernel gemm total_ms <= 0.00449"
over "mean just under" "kernel add_kernel mean_us <= 0.833"
over "category share" "category GEMM pct <= 64.28"
over "idle" "idle pct <= 58.06"
over "busy at least" "busy_ms >= 0.0066"
over "step median" "step median_ms <= 0.0029"
over "a regex matching no kernel measures nothing" "kernel nosuchkernel total_ms <= 100"
check_eq "says why, the measured column left empty" \
  "| kernel nosuchkernel total\\_ms \\<= 100 |  | over: no kernel matches |" \
  "$(sed -n 3p "$TESTDIR/stdout")"
printf 'kernel gemm total_ms >= 0.002\n' >st2.txt
check_rc "--steady-state: the warm-up's kernels left out (gemm 1500 ns < 2000): exit 1" 1 \
  rpd-budget st2.txt s.rpd --steady-state
printf 'kernel gemm total_ms <= 0.0015\n' >st.txt
check_rc "--steady-state: gemm total 1500 ns within 0.0015" 0 rpd-budget st.txt s.rpd --steady-state
printf 'step median_ms <= 1\n' >nostep.txt
cp s.rpd nosteps.rpd
sqlite3 nosteps.rpd "DELETE FROM rocpd_api"
check_rc "no steps: the step limit is over" 1 rpd-budget nostep.txt nosteps.rpd

# bad limits files: exit 2, one line naming the file and line
bad() { # NAME TEXT WANT: stderr must contain WANT
  printf '%b' "$2" >bad.txt
  check_rc "bad limits ($1): exit 2" 2 rpd-budget bad.txt s.rpd --category-json cats.json
  check_one_line "bad limits ($1): one line"
  case "$(cat "$TESTDIR/stderr")" in
    *"$3"*) ok "bad limits ($1): names it" ;;
    *) notok "bad limits ($1): names it" "$(cat "$TESTDIR/stderr")" ;;
  esac
}
bad "unknown measure" "# ok\nidle pct <= 5\nlatency p99 <= 3\n" "bad.txt:3: unknown limit 'latency'"
bad "not a number" "idle pct <= five\n" "bad.txt:1: 'five' is not a number"
bad "comparison" "idle pct < 5\n" "bad.txt:1: '<': the comparison is <= or >="
bad "missing bound" "busy_ms >=\n" "bad.txt:1: expected 'busy_ms <= N'"
bad "bad regex" "kernel ([ total_ms <= 1\n" "bad.txt:1:"
bad "unclosed quote" "kernel \"gemm total_ms <= 1\n" "bad.txt:1: unclosed quote"
bad "unknown category" "category Attention pct <= 5\n" "unknown category 'Attention'"
bad "no limits" "# only a comment\n\n" "bad.txt: no limits"
check_rc "missing limits file: exit 2" 2 rpd-budget nosuch.txt s.rpd
check_one_line "missing limits file: one line"
printf 'not sqlite, not at all\n' >junk.rpd
check_rc "not a trace: exit 1" 1 rpd-budget ok.txt junk.rpd
check_one_line "not a trace: one line"
check_rc "usage: one argument, exit 2" 2 rpd-budget ok.txt
check_rc "the trace given first: exit 2" 2 rpd-budget s.rpd ok.txt
check "the trace given first: says the limits come first" grep -q \
  "'s.rpd' is a trace, not a limits file: the limits come first (rpd-budget LIMITS TRACE)" "$TESTDIR/stderr"
check_one_line "the trace given first: one line"
check_rc "usage: unknown option, exit 2" 2 rpd-budget ok.txt s.rpd --frob
check_rc "--help: exit 0" 0 rpd-budget --help
case "$(cat "$TESTDIR/stdout")" in
  "usage: rpd-budget"*) ok "--help: rpd-budget's usage" ;;
  *) notok "--help: rpd-budget's usage" "$(head -1 "$TESTDIR/stdout")" ;;
esac

# the real trace: a measure equals the report's own table
if need_shared "$TRACES/mytrace.rpd.gz"; then
  gzip -dc "$TRACES/mytrace.rpd.gz" >my.rpd
  want=$(raptor my.rpd --report --table category --format json 2>/dev/null |
    python3 -c "import json,sys; d=json.load(sys.stdin); t=d['category'] if isinstance(d, dict) else d; print('%.3f' % [r['percent'] for r in t if r['category']=='GEMM'][0])")
  printf 'category GEMM pct <= 100\n' >g.txt
  rpd-budget g.txt my.rpd >g.md 2>/dev/null
  check_eq "mytrace: GEMM share equals the report's category table ($want)" "$want" \
    "$(sed -n 3p g.md | cut -d'|' -f3 | tr -d ' ' | xargs printf '%.3f')"
fi
