#!/bin/sh
# tests/tools/rpd-stackframe-svg.sh - the structure of rpd-stackframe's SVG
# flame graph: every box's width is its weight (the folded stacks of the
# same trace, read independently), children sum to at most their parent and
# lie inside it, labels fit their box and are clipped by it, hostile frame
# names (markup, quotes, control and bidi characters, long and empty names)
# come out escaped and inert.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

rpd-synth -q --stackframes --api 2000 -o s.rpd >/dev/null 2>&1 || rpd-synth --stackframes --api 2000 -o s.rpd >/dev/null
sqlite3 s.rpd "
UPDATE rocpd_string SET string = '<script>alert(1)</script> & \"q\" ''s' || char(7) WHERE string = 'main';
UPDATE rocpd_string SET string = 'void ck::kernel<' || replace(hex(zeroblob(600)), '00', 'ab') || '>' WHERE string = 'PyEval_EvalFrameDefault';
UPDATE rocpd_string SET string = 'f' || char(246) || char(0x202e) || 'evil' WHERE string = '_start';
UPDATE rocpd_string SET string = '' WHERE string = '__libc_start_main';
UPDATE rocpd_string SET string = '解码' || char(0x1f525) || 'decode_step' WHERE string LIKE 'decode_step%';"
cp s.rpd s.orig
for v in cpu gpu calls; do
  check_rc "--svg --value $v: exit 0" 0 rpd-stackframe s.rpd --svg $v.svg --folded $v.txt --value $v
  check_eq "--value $v: the structure holds" "ok" "$(python3 - "$v.svg" "$v.txt" <<'EOF'
import sys, xml.etree.ElementTree as ET
from collections import defaultdict
svg, folded = sys.argv[1], sys.argv[2]
ns = '{http://www.w3.org/2000/svg}'
root = ET.parse(svg).getroot()
W = float(root.get('width'))
errs = []
# the folded stacks, read on their own: weight of every (depth, prefix)
weights = defaultdict(int); total = 0
for line in open(folded, encoding='utf-8'):
    stack, val = line.rstrip('\n').rsplit(' ', 1)
    frames = stack.split(';'); val = int(val); total += val
    for d in range(len(frames)):
        weights[(d, ';'.join(frames[:d + 1]))] += val
want = defaultdict(list)
for (d, _), w in weights.items():
    want[d].append(round(w * W / total, 2))
boxes = []
for g in root.iter(ns + 'g'):
    r = g.find(ns + 'rect'); t = g.find(ns + 'title')
    boxes.append((float(r.get('y')), float(r.get('x')), float(r.get('width')), t.text, g.find(ns + 'svg')))
ys = sorted({b[0] for b in boxes}, reverse=True)
got = defaultdict(list)
for b in boxes:
    got[ys.index(b[0])].append(round(b[2], 2))
for d in set(want) | set(got):
    if sorted(want[d]) != sorted(got[d]):
        errs.append('depth %d widths %s != folded %s' % (d, sorted(got[d])[:5], sorted(want[d])[:5]))
if abs(sum(got[0]) - W) > 0.05:
    errs.append('roots sum to %.2f, not %g' % (sum(got[0]), W))
for b in boxes:
    d = ys.index(b[0])
    if d == 0:
        continue
    parents = [p for p in boxes if ys.index(p[0]) == d - 1 and p[1] - 0.01 <= b[1] and b[1] + b[2] <= p[1] + p[2] + 0.02]
    if len(parents) != 1:
        errs.append('box at depth %d x %.2f has %d parents' % (d, b[1], len(parents)))
for p in boxes:
    d = ys.index(p[0])
    kids = [b for b in boxes if ys.index(b[0]) == d + 1 and p[1] - 0.01 <= b[1] and b[1] + b[2] <= p[1] + p[2] + 0.02]
    if sum(k[2] for k in kids) > p[2] + 0.02 * (len(kids) + 1):
        errs.append('children of %s exceed it' % p[3][:30])
for b in boxes:
    clip = b[4]
    if clip is None:
        continue
    if abs(float(clip.get('width')) - b[2]) > 0.01 or abs(float(clip.get('x')) - b[1]) > 0.01:
        errs.append('label clip is not its box')
    label = clip.find(ns + 'text').text
    if len(label) * 7 > b[2]:
        errs.append('label %r wider than its box %.2f' % (label[:20], b[2]))
texts = [e.text or '' for e in root.iter() if e.text]
if any(c in s for s in texts for c in '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\x07'):
    errs.append('a bidi or control character passed')
if not any('<script>alert(1)</script> & "q" \'s' in s for s in texts):
    errs.append('the markup name is not there as text')
if list(root.iter(ns + 'script')) or list(root.iter('script')):
    errs.append('a script element')
if not any(s.startswith('(no name)') for s in texts):
    errs.append('the empty name is not shown as (no name)')
if not any(s.startswith('\u89e3\u7801\U0001f525') for s in texts):
    errs.append('the CJK/emoji name did not come through')
if any(len(s) > 1100 for s in texts):
    errs.append('a tooltip longer than its cap')
print('; '.join(errs[:4]) if errs else 'ok')
EOF
)"
done
same_file "svg: input byte-identical" s.orig s.rpd
check_eq "svg: raw markup never appears unescaped" "0" "$(grep -c '<script' cpu.svg)"
check_eq "svg title: total with separators and stack count" \
  "1" "$(grep -c 's.rpd — cpu time: [0-9,]* ns in [0-9]* stacks</text>' cpu.svg)"
# a trace whose stacks have no gpu time draws an empty graph, says so
rpd-synth --stackframes --api 50 -o z.rpd >/dev/null 2>&1
sqlite3 z.rpd "DELETE FROM rocpd_api_ops"
check_rc "--value gpu with no gpu time: exit 0" 0 rpd-stackframe z.rpd --svg z.svg --value gpu
check_eq "no gpu time: no boxes, the title says so" "0|1" \
  "$(python3 -c "
import xml.etree.ElementTree as ET; r = ET.parse('z.svg').getroot(); ns = '{http://www.w3.org/2000/svg}'
print('%d|%d' % (len(list(r.iter(ns + 'g'))), sum('nothing to draw' in (t.text or '') for t in r.iter(ns + 'text'))))")"
