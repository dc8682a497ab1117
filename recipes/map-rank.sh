#!/bin/sh
# map-rank.sh IN OUTDIR NAME - the map step of the scale-out recipes: one
# rank's trace IN (.rpd, .rpd.gz, or a rocprofv3 output: converted with
# rpd-import) becomes OUTDIR/ranks/NAME.rpd, augmented by the commands in
# $MAP_AUGMENT (default: none; e.g. "rpd-callstack rpd-graph"), and its
# per-rank raptor tables go to OUTDIR/ranks/NAME.raptor/*.csv.
# Ranks are independent: run any number of these at once.
# RPDTOOLS_BIN, if set, is put first on PATH.  See docs/scale-out.md.
set -eu
[ $# -eq 3 ] || { echo "usage: map-rank.sh IN OUTDIR NAME" >&2; exit 2; }
in=$1 out=$2 name=$3
[ -n "${RPDTOOLS_BIN:-}" ] && PATH=$RPDTOOLS_BIN:$PATH
mkdir -p "$out/ranks"
rank="$out/ranks/$name.rpd"
tmp="$out/ranks/.$name.tmp.rpd"
rm -f "$tmp"
case $in in
  *.rpd) cp "$in" "$tmp" ;;
  *.rpd.gz) gzip -dc "$in" >"$tmp" ;;
  *) rpd-import -q "$in" "$tmp" ;;
esac
for aug in ${MAP_AUGMENT:-}; do
  "$aug" "$tmp" >/dev/null
done
mv "$tmp" "$rank"
rm -rf "$out/ranks/$name.raptor"
raptor "$rank" -k -c --gpu-summary --csv-dir "$out/ranks/$name.raptor" >/dev/null
