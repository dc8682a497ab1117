# tests/benchlib.sh - helpers for tests/bench/*.sh (sourced).
#   bench_trace NAME ARGS...   generate (once) $BENCHDIR/NAME.rpd with rpd-synth ARGS
#   measure LABEL ROWS CMD...  run CMD, print secs, CPU secs, rows/s and peak RSS
#   measure_median N LABEL ROWS CMD...  the same, the medians of N runs
#                              (wall and CPU each; the largest RSS)
#   fresh SRC DST              copy a trace so an augmenter can write it (and
#                              write the copy back to disk before the run, so
#                              the run does not wait on the copy's writeback)
#   BENCH_SHAPES, bench_shape_args SHAPE   the trace shapes (rpd-synth args)
#   bench_ref_python           where the reference's Python modules are
#   bench_table <LOG           the one table of tests/bench.sh from BENCH lines
PATH="$RPD_BIN:$PATH"; export PATH
bench_trace() {
  _f="$BENCHDIR/$1.rpd"; shift
  [ -s "$_f" ] || rpd-synth "$@" -o "$_f" >/dev/null || return 1
  echo "$_f"
}
fresh() { cp "$1" "$2" && sync "$2"; }
# The two trace shapes of the bench, as rpd-synth arguments: "synth" is
# rpd-synth's default (whole steps per thread); "end" stores every call when
# it ends, as rpd_tracer does (4 host threads interleaved row by row, 24-layer
# forward passes nesting 6 deep).  A third, "wide", is held out of the
# default run: 16 threads driving 8 GPUs, in completion order, 96-layer
# passes (BENCH_SHAPES=wide make bench, or "synth end wide"); the tuning
# never looked at it, so its ratios say whether the figures hold off the two
# shapes the work was measured on.
BENCH_SHAPES=${BENCH_SHAPES:-"synth end"}
bench_shape_args() {
  case $1 in
    end) echo "--order end --threads 4 --layers 24" ;;
    wide) echo "--order end --threads 16 --gpus 8 --layers 96" ;;
    *) echo "" ;;
  esac
}
# bench_ref_python: print a directory holding the reference's Python
# package rocpd (and tools/rpd2tracing.py as rpd2tracing.py):
# $RPD_REF_PYTHON when set, else extracted from the ROCm/rocmProfileData
# mirror ($RPD_REF_MIRROR, default /work/.mirror/ROCm+rocmProfileData/repo)
# into $BENCHDIR/ref-python; nothing when neither is there (never part of
# this repository).
bench_ref_python() {
  if [ -n "${RPD_REF_PYTHON:-}" ]; then
    [ -d "$RPD_REF_PYTHON/rocpd" ] && echo "$RPD_REF_PYTHON"
    return 0
  fi
  _m=${RPD_REF_MIRROR:-/work/.mirror/ROCm+rocmProfileData/repo}
  _d=$BENCHDIR/ref-python
  if [ ! -s "$_d/rocpd/call_stacks.py" ] && [ -d "$_m" ]; then
    mkdir -p "$_d/rocpd"
    for _f in $(git -C "$_m" ls-tree --name-only HEAD rocpd_python/rocpd/ 2>/dev/null); do
      case $_f in *.py) git -C "$_m" show "HEAD:$_f" >"$_d/rocpd/${_f##*/}" ;; esac
    done
    git -C "$_m" show HEAD:tools/rpd2tracing.py >"$_d/rpd2tracing.py" 2>/dev/null
  fi
  [ -s "$_d/rocpd/call_stacks.py" ] && echo "$_d"
  return 0
}
# measure LABEL ROWS CMD... -> sets MEASURED_SECS, MEASURED_CPU, prints one BENCH line
measure() {
  _label=$1; _rows=$2; shift 2
  _t="$BENCHDIR/.time.$$"
  _cpu=
  sync   # untimed: an earlier step's dirty pages are not written back on this one's time
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%e %M %U %S" -o "$_t" "$@" >/dev/null 2>"$BENCHDIR/.err.$$"; _rc=$?
    read -r MEASURED_SECS _rss _u _s <"$_t"
    _cpu=$(awk -v u="$_u" -v s="$_s" 'BEGIN { printf "%.2f", u + s }')
  else
    _s=$(date +%s.%N); "$@" >/dev/null 2>"$BENCHDIR/.err.$$"; _rc=$?
    MEASURED_SECS=$(echo "$(date +%s.%N) - $_s" | bc); _rss=?
  fi
  MEASURED_CPU=$_cpu
  [ "$_rc" = 0 ] || { echo "BENCH $_label FAILED (exit $_rc): $(head -c 300 "$BENCHDIR/.err.$$")"; return 1; }
  _rate=$(awk -v r="$_rows" -v s="$MEASURED_SECS" 'BEGIN{ if (s > 0) printf "%.0f", r/s; else print "inf" }')
  echo "BENCH $_label rows=$_rows secs=$MEASURED_SECS${_cpu:+ cpu_secs=$_cpu} rows/s=$_rate peak_rss_kb=$_rss"
  rm -f "$_t" "$BENCHDIR/.err.$$"
}

# measure_median N LABEL ROWS CMD...: run CMD N times (BENCH_PREP, when set,
# is run before each, untimed); print one BENCH line with the median wall
# and CPU seconds and the largest peak RSS; sets MEASURED_SECS/_CPU.
measure_median() {
  _n=$1 _label=$2 _rows=$3; shift 3
  _runs="$BENCHDIR/.runs.$$"
  : >"$_runs"
  _i=0
  while [ "$_i" -lt "$_n" ]; do
    [ -z "${BENCH_PREP:-}" ] || eval "$BENCH_PREP"
    _line=$(measure "$_label" "$_rows" "$@") || { echo "$_line"; rm -f "$_runs"; return 1; }
    echo "$_line" >>"$_runs"
    _i=$((_i + 1))
  done
  awk -v n="$_n" -v l="$_label" -v r="$_rows" '
    function val(line, key,   i, rest) {
      i = index(line, " " key "="); rest = substr(line, i + length(key) + 2); sub(/ .*/, "", rest); return rest
    }
    { w[NR] = val($0, "secs") + 0; c[NR] = val($0, "cpu_secs") + 0; k = val($0, "peak_rss_kb") + 0; if (k > m) m = k }
    function median(a,   i, j, t) {
      for (i = 2; i <= NR; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return a[int((NR + 1) / 2)]
    }
    END {
      s = median(w); cs = median(c)
      printf "BENCH %s rows=%d secs=%.2f cpu_secs=%.2f rows/s=%.0f peak_rss_kb=%d (median of %d)\n", l, r, s, cs, (s > 0 ? r / s : 0), m, n
      printf "%.2f %.2f\n", s, cs > "/dev/stderr"
    }' "$_runs" 2>"$_runs.m"
  read -r MEASURED_SECS MEASURED_CPU <"$_runs.m"
  rm -f "$_runs" "$_runs.m"
}

# bench_table: read BENCH lines (with "== SCALE NAME rows=N" markers) on
# stdin, print one table.  A row per measured command and scale; "floor x"
# is secs over the floor the piece printed for that label ("BENCH LABEL
# floor secs=F [cpu_secs=G]"; floor_cx the same in CPU seconds), "4x/1x"
# the wall time at that scale over the 1x time of the same label, scaled to
# 4x the rows (linear = 4.0; for the big scale it is the same per-row growth
# expressed per 4x), "cpu" the same in CPU seconds (steadier on a shared
# machine).
bench_table() {
  awk '
  function val(line, key,   i, rest) {
    i = index(line, " " key "=")
    if (!i) return ""
    rest = substr(line, i + length(key) + 2)
    sub(/ .*/, "", rest)
    return rest
  }
  /^== SCALE / { scale = $3; next }
  /^BENCH / && / floor secs=/ {
    label = substr($0, 7); sub(/ floor secs=.*/, "", label)
    fw[scale, label] = val($0, "secs"); fc[scale, label] = val($0, "cpu_secs")
    next
  }
  /^BENCH / && / FAILED/ {
    label = substr($0, 7); sub(/ FAILED.*/, "", label)
    k = scale SUBSEP label
    if (!(k in seen)) { seen[k] = 1; order[++n] = k }
    failed[k] = 1
    next
  }
  /^BENCH / && / rows=/ && / secs=/ {
    label = substr($0, 7); sub(/ rows=.*/, "", label)
    k = scale SUBSEP label
    if (!(k in seen)) { seen[k] = 1; order[++n] = k }
    rows[k] = val($0, "rows"); secs[k] = val($0, "secs"); cpu[k] = val($0, "cpu_secs")
    rss[k] = val($0, "peak_rss_kb")
  }
  function ratio(a, b) { return (a != "" && b != "" && b + 0 > 0) ? sprintf("%.2f", a / b) : "-" }
  END {
    fmt = "%-5s %-42s %10s %8s %8s %10s %8s %8s %8s %6s %6s\n"
    printf fmt, "scale", "tool", "rows", "secs", "cpu_s", "rows/s", "peak_MB", "floor_x", "floor_cx", "4x/1x", "cpu"
    for (i = 1; i <= n; i++) {
      split(order[i], p, SUBSEP); s = p[1]; l = p[2]; k = order[i]
      if (k in failed && !(k in secs)) { printf fmt, s, substr(l, 1, 42), "FAILED", "-", "-", "-", "-", "-", "-", "-", "-"; continue }
      rate = secs[k] + 0 > 0 ? sprintf("%.0f", rows[k] / secs[k]) : "-"
      mb = rss[k] ~ /^[0-9]+$/ ? sprintf("%.0f", rss[k] / 1024) : "-"
      lin = clin = "-"
      b = "1x" SUBSEP l
      if (s != "1x" && (b in secs) && secs[b] + 0 > 0 && rows[b] + 0 > 0 && rows[k] + 0 > 0) {
        lin = sprintf("%.2f", secs[k] / secs[b] * 4 * rows[b] / rows[k])
        if (cpu[k] != "" && cpu[b] + 0 > 0)
          clin = sprintf("%.2f", cpu[k] / cpu[b] * 4 * rows[b] / rows[k])
      }
      printf fmt, s, substr(l, 1, 42), rows[k], secs[k], (cpu[k] == "" ? "-" : cpu[k]), rate, mb,
        ratio(secs[k], fw[s, l]), ratio(cpu[k], fc[s, l]), lin, clin
    }
  }'
}
