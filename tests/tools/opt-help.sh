#!/bin/sh
# opt-help.sh - --help is generated from each tool's option table
# (common/opt.h): for every tool that answers --list-options,
#   - --help exits 0 (a table entry without help text makes it fail);
#   - every spelling the table accepts and does not hide is shown by --help;
#   - every option --help shows is accepted by the tool (no "unknown option");
#   - the option lines fit 79 columns;
#   - --help >/dev/full exits 1.
# The list of tools below must all answer: a tool that went back to a
# hand-written usage text fails here.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

: "${TESTDIR:?}"
cd "$TESTDIR" || exit 1
Z=--zz-not-an-option-zz

TOOLS="rpd-trim rpd-callstack rpd-autograd rpd-graph rpd-perfmodel rpd-stackframe
  rpd-deserialize rpd-subclass rpd-analyze rpd-strings rpd-schema rpd-metadata
  rpd2table rpd-health rpdRemote rpd-merge rpd-autograd-summary rpd-synth-rocpd
  rpd-import rpd-synth rpd2tracing rpd-diff rpd-budget
  raptor raptor:report raptor:by-rank raptor:stats"

for tool in $TOOLS; do
  t=$(echo "$tool" | tr ':' ' ')   # raptor:report = `raptor report`
  if ! $t --list-options >names.txt 2>err.txt; then
    notok "$t --list-options" "$(head -c 200 err.txt)"; continue
  fi
  check_rc "$t --help: exit 0" 0 $t --help
  cp "$TESTDIR/stdout" help.txt
  # the options --help shows: the words starting with '-' before the help column
  sed -n 's/^    \(-[^ ,]*\)\(, \(--[^ ]*\)\)\{0,1\}.*/\1 \3/p' help.txt | tr ' ' '\n' | grep . >shown.txt
  missing=''
  for o in $(sed '/^hidden:$/,$d' names.txt); do
    grep -qx -- "$o" shown.txt || missing="$missing $o"
  done
  check_eq "$t: every option it accepts is in --help" "" "$missing"
  unknown=''
  for o in $(cat shown.txt); do
    case $o in -h|--help|--version) continue ;; esac
    grep -qx -- "$o" names.txt || unknown="$unknown $o(not-in-table)"
    $t "$o" "$Z" "$Z" "$Z" </dev/null >/dev/null 2>err.txt
    grep -q "unknown option '$o'" err.txt && unknown="$unknown $o"
  done
  check_eq "$t: every option --help shows is accepted" "" "$unknown"
  # the generated option lines fit 79 columns and end without a space
  wide=$(grep -E '^    -|^ {26}' help.txt | grep -cE '.{80}| $')
  check_eq "$t: option lines within 79 columns, no trailing space" 0 "$wide"
  check_rc "$t --help >/dev/full: exit 1" 1 sh -c "$t --help >/dev/full"
done

