#!/bin/sh
# rpd-synth-rocpd: deterministic rocprofv3 (rocpd schema) databases; exact
# row counts for a given size; the shape (tables, columns, types, NOT NULL,
# views) equals a real rocprofv3 database's.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

check_rc "--help" 0 rpd-synth-rocpd --help
check_rc "no -o is a usage error" 2 rpd-synth-rocpd --dispatches 5
check_rc "bad --dispatches is a usage error" 2 rpd-synth-rocpd --dispatches x -o x.db

check_rc "120 dispatches" 0 rpd-synth-rocpd --dispatches 120 -o g.db
check_eq "summary line counts the rows" \
  "rpd-synth-rocpd: wrote g.db (seed 1, 1 guid): event 284, arg 534, region 151, kernel_dispatch 120, memory_copy 4, memory_allocate 2, pmc_event 60, sample 7, info_kernel_symbol 11" \
  "$(cat "$TESTDIR/stdout")"
# regions: 120 launches + 15 HSA (i%8) + 8 markers (i%16) + 4 RCCL (i%32)
# + 4 hipMemcpyAsync (i%32 = 16); args 4*120 + 2*15 + 3*4 + 3*4
check_eq "regions by category (through the views)" \
  "HIP_RUNTIME_API_EXT|124 HSA_CORE_API|15 MARKER_CORE_API|8 RCCL_API|4" \
  "$(q g.db "SELECT category||'|'||count(*) FROM regions GROUP BY category ORDER BY 1" | tr '\n' ' ' | sed 's/ $//')"
check_eq "args: 534 rows, 4 per launch" "534|4" \
  "$(q g.db "SELECT count(*), (SELECT count(*) FROM region_args A JOIN regions R ON R.id = A.id WHERE R.name = 'hipLaunchKernel' AND R.id = 1) FROM rocpd_arg")"
check_eq "kernels view: every dispatch, joined to its launch by stack id" "120|120" \
  "$(q g.db "SELECT count(*), (SELECT count(*) FROM kernels K JOIN regions R ON R.stack_id = K.stack_id AND R.name = 'hipLaunchKernel') FROM kernels")"
check_eq "identity case: two symbols truncate to kentry, 20 and 10 dispatches" "2|20,10" \
  "$(q g.db "SELECT count(DISTINCT display_name), (SELECT group_concat(c) FROM (SELECT count(*) c FROM kernels WHERE name LIKE '%kentry%' GROUP BY kernel_id ORDER BY kernel_id)) FROM kernel_symbols WHERE truncated_kernel_name = 'kentry'")"
check_eq "rocprofv3's summary views work: top_kernels, busy per agent, counters" \
  "19|2|3|60" \
  "$(q g.db "SELECT (SELECT count(*) FROM top), (SELECT count(*) FROM busy WHERE type = 'GPU'), (SELECT count(*) FROM busy), (SELECT count(*) FROM counters_collection)")"
check_eq "copies both ways with agents, allocations, pmc events, samples" \
  "MEMORY_COPY_DEVICE_TO_HOST|2 MEMORY_COPY_HOST_TO_DEVICE|2 alloc 2 pmc 60 samples 7" \
  "$(q g.db "SELECT name||'|'||count(*) FROM memory_copies GROUP BY name ORDER BY 1" | tr '\n' ' ')alloc $(q g.db 'SELECT count(*) FROM memory_allocations') pmc $(q g.db 'SELECT count(*) FROM pmc_events') samples $(q g.db 'SELECT count(*) FROM rocpd_sample')"

check_rc "same seed again" 0 rpd-synth-rocpd -q --dispatches 120 -o g2.db
same_file "same options give the same bytes" g.db g2.db
check_rc "another seed" 0 rpd-synth-rocpd -q --seed 9 --dispatches 120 -o g3.db
if cmp -s g.db g3.db; then notok "another seed gives other bytes"; else ok "another seed gives other bytes"; fi
check_rc "an existing OUT is refused" 1 rpd-synth-rocpd -q --dispatches 3 -o g.db
same_file "refused: OUT untouched" g.db g2.db

# OUT.gz: written compressed (rpd_create), the same database inside,
# which rpd-import reads as it is
check_rc "OUT.gz" 0 rpd-synth-rocpd -q --dispatches 120 -o gz.db.gz
check "OUT.gz is gzip" gzip -t gz.db.gz
gzip -dc gz.db.gz >gz.db
same_file "OUT.gz holds the same database" g.db gz.db
check_rc "rpd-import reads OUT.gz" 0 rpd-import -q gz.db.gz gz.rpd
check_rc "two guids" 0 rpd-synth-rocpd -q --guids 2 --dispatches 50 -o two.db
check_eq "two guids: two table sets, views over both" "2|100|2" \
  "$(q two.db "SELECT (SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd\_region\_%' ESCAPE '\'), (SELECT count(*) FROM kernels), count(DISTINCT guid) FROM rocpd_region")"

# the shape against a real rocprofv3 database
shape() { # type, base name (guid suffix cut), column, type, notnull
  sqlite3 -batch -noheader "$1" "SELECT m.type || ' ' ||
      CASE WHEN m.type = 'table' THEN substr(m.name, 1, length(m.name) - 37) ELSE m.name END
      || ': ' || p.name || ' ' || p.type || ' ' || p.\"notnull\"
    FROM sqlite_master m, pragma_table_info(m.name) p
    WHERE (m.type = 'table' AND m.name LIKE 'rocpd%') OR m.type = 'view'" | sort -u
}
if need_shared "$TRACES/rocprofv3_28_results.db"; then
  shape "$TRACES/rocprofv3_28_results.db" >real.shape
  shape g.db >gen.shape
  check_eq "every per-guid table, column, type and NOT NULL as in rocprofv3" \
    "$(grep '^table' real.shape)" "$(grep '^table' gen.shape)"
  check_eq "every rocpd_* view as in rocprofv3" \
    "$(grep '^view rocpd_' real.shape)" "$(grep '^view rocpd_' gen.shape)"
  for v in processes threads kernel_symbols regions region_args kernels memory_copies \
           memory_allocations pmc_events top_kernels top busy code_objects pmc_info \
           events_args stream_args scratch_memory counters_collection samples \
           sample_regions regions_and_samples; do
    check_eq "view $v: columns and types as in rocprofv3" \
      "$(grep "^view $v:" real.shape)" "$(grep "^view $v:" gen.shape)"
  done
  check_eq "the whole shape (every table and view) equals rocprofv3's" \
    "$(md5sum <real.shape)" "$(md5sum <gen.shape)"
fi
