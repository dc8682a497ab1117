#!/bin/sh
# xlsx-readers: trace strings that real readers choke on (invalid UTF-8,
# control characters XML forbids, names longer than an xlsx cell) go
# through common/out/textsafe.c: raptor -x and raptor --report --xlsx workbooks
# open in openpyxl, raptor's CSV is valid UTF-8 that python's csv (and
# pandas) parse, its JSON parses; on a full disk an xlsx writer fails with
# one line of its own (libxlsxwriter's "[ERROR]" lines never show).
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

# a python3 with openpyxl: the first python3 on PATH may be a private one
PY=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import openpyxl' 2>/dev/null; then PY=$p; break; fi
done

# A small trace whose most used kernel names are hostile (plain SQL; blobs
# cast to text):
#  24 invalid UTF-8 then a NUL      6 C0 controls, ESC, CR LF TAB, U+FFFE/F
#  14 'long' + 40000 chars         13 'emoji' + 20000 x U+1F600 (40005 UTF-16)
#   5 a CSV/HTML/formula lookalike
rpd-synth --seed 3 --api 3000 -o t.rpd >/dev/null || { notok "rpd-synth"; exit 1; }
sqlite3 t.rpd "
UPDATE rocpd_string SET string = CAST(X'4b65726e656cfffe80c0afeda080f490808000' AS TEXT) WHERE id = 24;
UPDATE rocpd_string SET string = 'ctl' || char(1,2,8,11,12,27) || '[31mred' || char(13,10,9) || 'end' || char(65534,65535) WHERE id = 6;
UPDATE rocpd_string SET string = 'long' || replace(hex(zeroblob(20000)), '00', 'xy') WHERE id = 14;
UPDATE rocpd_string SET string = 'emoji' || replace(hex(zeroblob(20000)), '00', char(128512)) WHERE id = 13;
UPDATE rocpd_string SET string = '=cmd|'' /C calc''!A0,\"q\";<b>&amp;' WHERE id = 5;"
check_eq "fixture: hostile names are kernel names" 5 \
  "$(q t.rpd "SELECT count(DISTINCT description_id) FROM rocpd_op WHERE description_id IN (24, 6, 14, 13, 5)")"

# what a workbook holds, as openpyxl reads it: sheets, rows, the longest
# string in UTF-16 units (Excel's _x000D_ escape counts as the one unit it
# stands for), strings holding U+FFFD, strings holding C0 controls other
# than TAB/LF/CR, cells starting 'long' of exactly 32767 units, likewise
# 'emoji' with 32767 units (16381 emoji)
XLSX_PY='
import re, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], read_only=True)
rows = longest = fffd = ctl = long_ok = emoji_ok = 0
for ws in wb.worksheets:
    for row in ws.iter_rows(values_only=True):
        rows += 1
        for v in row:
            if not isinstance(v, str):
                continue
            v = re.sub("_x000D_", "\r", v)
            n = len(v.encode("utf-16-le")) // 2
            longest = max(longest, n)
            fffd += "\ufffd" in v
            ctl += any(ord(c) < 32 and c not in "\t\r\n" for c in v)
            long_ok += v.startswith("long") and n == 32767
            emoji_ok += v.startswith("emoji") and n == 32767
print(len(wb.worksheets), rows, longest, fffd > 0, ctl, long_ok > 0, emoji_ok > 0)
'

check_xlsx() {  # NAME FILE SHEETS
  if [ -z "$PY" ]; then skip "$1: opens in openpyxl" "no python3 with openpyxl (apt-get install python3-openpyxl)"; return; fi
  _r=$("$PY" -c "$XLSX_PY" "$2" 2>&1 | tail -1)
  case "$_r" in
    "$3 "*" 32767 True 0 True True") ok "$1: opens in openpyxl, cells cut to 32767, U+FFFD, no controls" ;;
    *) notok "$1: opens in openpyxl" "got [$_r] (sheets rows longest fffd ctl long emoji)" ;;
  esac
}

check_rc "raptor -x: exit 0" 0 raptor t.rpd -x
check "raptor -x: t.xlsx written" test -s t.xlsx
check_xlsx "raptor -x" t.xlsx 5
check_rc "raptor --report --xlsx: exit 0" 0 raptor --report t.rpd --xlsx r.xlsx -q
# info, six tables, utilization, idle_gaps, idle_definitions, api_stats
check_xlsx "raptor --report --xlsx" r.xlsx 11

# CSV: valid UTF-8 (invalid bytes are U+FFFD, never raw), parses
check_rc "raptor -k --format csv: exit 0" 0 raptor t.rpd -k --format csv
cp "$TESTDIR/stdout" o.csv
if command -v iconv >/dev/null; then
  check "csv is valid UTF-8 (iconv)" iconv -f UTF-8 -t UTF-8 -o /dev/null o.csv
fi
if [ -n "$PY" ]; then
  # raptor's CSV is tables separated by blank lines: every record of a
  # table must have as many fields as its header
  check_eq "csv: U+FFFD in place of the invalid bytes; python csv parses, every record as wide as its header" \
    "True 0" \
    "$("$PY" -c '
import csv, sys
d = open(sys.argv[1], "rb").read().decode("utf-8")
bad, width = 0, None
for r in csv.reader(open(sys.argv[1], newline="", encoding="utf-8"), strict=True):
    if not r:
        width = None
    elif width is None:
        width = len(r)
    else:
        bad += len(r) != width
print("\ufffd" in d, bad)' o.csv 2>&1)"
  if "$PY" -c 'import pandas' 2>/dev/null; then
    check "csv: pandas reads it" "$PY" -c '
import pandas, sys
pandas.read_csv(sys.argv[1], encoding="utf-8", header=None, engine="python", on_bad_lines="skip")' o.csv
  else
    skip "csv: pandas reads it" "no pandas"
  fi
  check_rc "raptor --format json: exit 0" 0 raptor t.rpd --format json
  check_eq "json parses; U+FFFD and the 40000-char name kept" "True True" \
    "$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
s = json.dumps(d, ensure_ascii=False)
print("\ufffd" in s, "long" + "xy" * 20000 in s)' "$TESTDIR/stdout" 2>&1)"
else
  skip "csv/json parse in python" "no python3 with openpyxl"
fi

# full disk: a tiny tmpfs (root with mount rights only)
mkdir -p full
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
  trap 'umount "$TESTDIR/full" 2>/dev/null' EXIT
  dd if=/dev/zero of=full/fill bs=1k count=60 2>/dev/null
  check_rc "full disk: raptor --report --xlsx fails" 1 raptor --report t.rpd --xlsx full/r.xlsx -q
  check_one_line "full disk: --report --xlsx: one stderr line"
  check "full disk: the line names the file and the reason" grep -q "^raptor: .*full/r.xlsx.*No space left on device" "$TESTDIR/stderr"
  ln -s ../t.rpd full/t.rpd
  check_rc "full disk: raptor -x fails" 1 raptor full/t.rpd -x
  check_eq "full disk: -x: one error line, no [ERROR] lines" "1 0" \
    "$(grep -c '^raptor: ' "$TESTDIR/stderr") $(grep -c 'ERROR' "$TESTDIR/stderr")"
  check_eq "full disk: nothing left behind" "fill t.rpd" "$(ls -A full | tr '\n' ' ' | sed 's/ $//')"
  # rpd-diff and --by-rank write through the same workbook writer
  check_rc "full disk: rpd-diff --xlsx fails" 1 rpd-diff --xlsx full/d.xlsx t.rpd t.rpd
  check_eq "full disk: rpd-diff: one line with the reason, no [ERROR] lines" "1 0" \
    "$(grep -c '^rpd-diff: .*full/d.xlsx.*No space left on device' "$TESTDIR/stderr") $(grep -c 'ERROR' "$TESTDIR/stderr")"
  check_rc "full disk: raptor --by-rank --xlsx fails" 1 raptor --by-rank t.rpd --xlsx full/b.xlsx
  check_eq "full disk: --by-rank: one line with the reason, no [ERROR] lines" "1 0" \
    "$(grep -c '^raptor: .*full/b.xlsx.*No space left on device' "$TESTDIR/stderr") $(grep -c 'ERROR' "$TESTDIR/stderr")"
  check_eq "full disk: nothing left behind by either" "fill t.rpd" "$(ls -A full | tr '\n' ' ' | sed 's/ $//')"
  umount full
  trap - EXIT
else
  skip "full disk: xlsx writers fail in one line" "needs root and a tmpfs mount"
fi
