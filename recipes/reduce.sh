#!/bin/sh
# reduce.sh OUTDIR - the reduce step of the scale-out recipes: merge
# OUTDIR/ranks/*.rpd into OUTDIR/merged.rpd (rpd-merge; extra options in
# $MERGE_OPTS, e.g. "--align collective") and write the cross-rank report:
# OUTDIR/byrank/*.csv, OUTDIR/byrank.xlsx and the ext_byrank_* tables in the
# merged trace.  See docs/scale-out.md.
set -eu
[ $# -eq 1 ] || { echo "usage: reduce.sh OUTDIR" >&2; exit 2; }
out=$1
[ -n "${RPDTOOLS_BIN:-}" ] && PATH=$RPDTOOLS_BIN:$PATH
# shellcheck disable=SC2086
rpd-merge -q --force ${MERGE_OPTS:-} -o "$out/merged.rpd" "$out"/ranks/*.rpd
raptor "$out/merged.rpd" --by-rank --save --top 0 --csv-dir "$out/byrank"
raptor "$out/merged.rpd" --by-rank --top 0 --xlsx "$out/byrank.xlsx" >/dev/null
