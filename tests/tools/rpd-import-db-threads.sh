#!/bin/sh
# tests/tools/rpd-import-db-threads.sh - issue 21: rpd-import of a rocprofv3
# database reads the input on its connection while a second thread (pipe.c)
# inserts the rows.  The threaded import gives the same database, byte for
# byte in `sqlite3 .dump`, as the one-thread path (RPDTOOLS_IMPORT_THREADS=1)
# on a generated 3-guid database that crosses every hand-over (rows handed
# over, then a savepoint, metadata, new kernel names, counters, allocations
# with the pipe paused), and on regions out of event order (the region pass
# rolled back to its savepoint after rows were handed over, then read
# again sorted) and on pmc rows out of event order after counter rows were
# handed over (the counter merge rolled back, the sorted path).  A corrupt input (the reading thread fails) or a write
# failure on the writer thread: one line, exit 1, no output file (or the
# old one untouched).  Fixtures: rpd-synth-rocpd and plain SQL.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

guids() { q "$1" "SELECT substr(name, 14) FROM sqlite_master WHERE type='table' AND name LIKE 'rocpd_region_%' ORDER BY rowid"; }
# the dump of $1.rpd into $1.sql
dump() { sqlite3 "$1.rpd" .dump >"$1.sql"; }

# 3 guids x 8000 dispatches: ~25k cells a guid in ops alone (a job is
# handed over past 65536 cells), regions with args (text cells), pmc
# events and allocations on every guid
rpd-synth-rocpd -q --seed 7 --dispatches 8000 --guids 3 -o g.db || notok "fixture" "rpd-synth-rocpd failed"
cp g.db g.orig
RPDTOOLS_IMPORT_THREADS=1 rpd-import -q g.db one.rpd
check_rc "threaded import (forced on): exit 0" 0 env RPDTOOLS_IMPORT_THREADS=2 rpd-import g.db two.rpd
same_file "threaded: input byte-identical" g.orig g.db
dump one; dump two
same_file "3 guids: threaded = one thread: every table, row and id (.dump)" one.sql two.sql
rpd-import -q g.db auto.rpd
dump auto
same_file "3 guids: the default (threads by CPUs online) = one thread (.dump)" one.sql auto.sql

# the values (the same on both paths, so checked on the threaded one)
check_eq "ops = the input's dispatches + copies" \
  "$(q g.db "SELECT (SELECT count(*) FROM rocpd_kernel_dispatch) + (SELECT count(*) FROM rocpd_memory_copy)")" \
  "$(q two.rpd "SELECT count(*) FROM rocpd_op")"
check_eq "op durations: exact sum" \
  "$(q g.db "SELECT (SELECT sum(end - start) FROM rocpd_kernel_dispatch) + (SELECT sum(end - start) FROM rocpd_memory_copy)")" \
  "$(q two.rpd "SELECT sum(\"end\" - start) FROM rocpd_op")"
check_eq "api calls = the input's regions, with their exact duration sum" \
  "$(q g.db "SELECT count(*), sum(end - start) FROM rocpd_region")" \
  "$(q two.rpd "SELECT count(*), sum(\"end\" - start) FROM rocpd_api")"
check_eq "kernelapi rows: every dispatch" "$(q g.db "SELECT count(*) FROM rocpd_kernel_dispatch")" \
  "$(q two.rpd "SELECT count(*) FROM rocpd_kernelapi")"
check_eq "counters = the input's counters_collection (count, sum)" \
  "$(q g.db "SELECT count(*), sum(value) FROM counters_collection")" \
  "$(q two.rpd "SELECT count(*), sum(value) FROM counter")"
check_eq "allocations: every REAL/VIRTUAL row" \
  "$(q g.db "SELECT count(*) FROM rocpd_memory_allocate WHERE level != 'SCRATCH'")" \
  "$(q two.rpd "SELECT count(*) FROM ext_memory_allocation")"
check_eq "one pid metadata row per guid" "3" \
  "$(q two.rpd "SELECT count(*) FROM rocpd_metadata WHERE tag = 'rocprofv3::pid'")"
check_eq "the args index is there" "1" \
  "$(q two.rpd "SELECT count(*) FROM sqlite_master WHERE name = 'rocpd_ustri_string_84d4a7_idx'")"

# regions of the second guid out of event order near its end: the rowid
# pass has handed rows over when it sees the swap, rolls back to its
# savepoint (the writer thread drained first) and reads them sorted
G=$(guids g.db | sed -n 2p)
cp g.db s.db
n=$(q s.db "SELECT max(id) FROM rocpd_region_$G")
sqlite3 s.db "CREATE TEMP TABLE e AS SELECT id, event_id FROM rocpd_region_$G WHERE id IN ($((n - 20)), $((n - 10)));
UPDATE rocpd_region_$G SET event_id = (SELECT event_id FROM e WHERE e.id = $((2 * n - 30)) - rocpd_region_$G.id)
 WHERE id IN ($((n - 20)), $((n - 10)));" || notok "fixture" "sqlite3 failed"
RPDTOOLS_IMPORT_THREADS=1 rpd-import -q s.db sone.rpd
check_rc "regions out of order, threaded: exit 0" 0 env RPDTOOLS_IMPORT_THREADS=2 rpd-import s.db stwo.rpd
check "... read again sorted (the summary says so)" \
  grep -q "regions or args of 1 process(es) were not in event order" "$TESTDIR/stderr"
dump sone; dump stwo
same_file "regions out of order: threaded = one thread (.dump)" sone.sql stwo.sql
check_eq "regions out of order: every region once" \
  "$(q s.db "SELECT count(*), sum(end - start) FROM rocpd_region")" \
  "$(q stwo.rpd "SELECT count(*), sum(\"end\" - start) FROM rocpd_api")"
check_eq "regions out of order: one args row per region with args (no rolled-back row left)" \
  "$(q one.rpd "SELECT count(*) FROM rocpd_ustring")" "$(q stwo.rpd "SELECT count(*) FROM rocpd_ustring")"

# pmc rows of the third guid out of event order near their end: the
# counter merge has handed batches of counter rows to the writer thread
# when it sees the swap, rolls back to its savepoint and takes the sorted
# path (the ops read back from OUT)
G=$(guids g.db | sed -n 3p)
cp g.db p.db
n=$(q p.db "SELECT max(id) FROM rocpd_pmc_event_$G")
check "fixture: over 64 x 10 pmc rows before the swap" test "$n" -gt 700
sqlite3 p.db "CREATE TEMP TABLE e AS SELECT id, event_id FROM rocpd_pmc_event_$G WHERE id IN ($((n - 30)), $((n - 3)));
UPDATE rocpd_pmc_event_$G SET event_id = (SELECT event_id FROM e WHERE e.id = $((2 * n - 33)) - rocpd_pmc_event_$G.id)
 WHERE id IN ($((n - 30)), $((n - 3)));" || notok "fixture" "sqlite3 failed"
RPDTOOLS_IMPORT_THREADS=1 rpd-import -q p.db pone.rpd
check_rc "pmc rows out of order, threaded: exit 0" 0 env RPDTOOLS_IMPORT_THREADS=2 rpd-import -q p.db ptwo.rpd
dump pone; dump ptwo
same_file "pmc rows out of order: threaded = one thread (.dump)" pone.sql ptwo.sql
check_eq "pmc rows out of order: counters = the input's counters_collection (dispatch, name, value)" \
  "$(q p.db "SELECT dispatch_id, counter_name, value FROM counters_collection ORDER BY 1, 2, 3")" \
  "$(q ptwo.rpd "SELECT dispatch, counter, value FROM counter ORDER BY 1, 2, 3")"
check_eq "pmc rows out of order: no rolled-back counter row left" \
  "$(q p.db "SELECT count(*) FROM counters_collection")" "$(q ptwo.rpd "SELECT count(*) FROM rocpd_counter")"

# ---------------------------------------------------------------- failures
# the input cut at 2/3: SQLite finds it malformed while rows are in flight
sz=$(wc -c <g.db)
head -c $((sz * 2 / 3)) g.db >cut.db
check_rc "a cut database, threaded: exit 1" 1 env RPDTOOLS_IMPORT_THREADS=2 rpd-import -q cut.db cut.rpd
check_one_line "... one line"
check "... it says the database is corrupt" grep -q "cannot import 'cut.db': corrupt SQLite database" "$TESTDIR/stderr"
check "... no output file" test ! -e cut.rpd
cp one.rpd old.rpd
check_rc "a cut database over an existing output (--force): exit 1" 1 \
  env RPDTOOLS_IMPORT_THREADS=2 rpd-import -q --force cut.db old.rpd
check_one_line "... one line"
same_file "... the old output is untouched" one.rpd old.rpd
check "... and no temp file is left" sh -c "! ls -a | grep -q '^\.old\.rpd\|old\.rpd\..*tmp'"

# the writer thread fails: a 60k-dispatch database overflows the 16 MiB
# page cache, so pages are written while the rows are (on the writer
# thread); the output may not grow past 512 KB (ulimit -f 1024 blocks:
# the schema's pages are below it, the first pages the writer thread
# spills are past it), SIGXFSZ ignored so the write fails with EFBIG
rpd-synth-rocpd -q --seed 3 --dispatches 60000 -o big.db || notok "fixture" "rpd-synth-rocpd failed"
check_writer_thread_failure 1024 big.db
rm -f big.db
