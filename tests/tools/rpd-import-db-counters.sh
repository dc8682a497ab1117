#!/bin/sh
# tests/tools/rpd-import-db-counters.sh - issue 21: the counters of a
# rocprofv3 database are merged with the dispatches in one ordered pass.
# Every counter (several agents, several guids, summed instances) lands on
# the op of its dispatch, equal to the input's own counters_collection
# view; pmc rows out of event order (the sorted path) give the same rows
# as the same rows in order (the merge); rows on no dispatch are skipped
# and counted.  With the writer thread (issue 21) every fixture gives the
# one-thread database.  Fixtures: rpd-synth-rocpd, then plain SQL.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

guids() { q "$1" "SELECT substr(name, 14) FROM sqlite_master WHERE type='table' AND name LIKE 'rocpd_region_%' ORDER BY rowid"; }

# two guids; per guid: counters on the dispatches of both agents (the
# generator puts them on every 4th dispatch, all on agent 1: plain SQL adds
# one on every dispatch of agent 2), every counter in two instances (one
# more row of the same name on the same event), one pmc row on no event and
# one on an event that is no dispatch; then the pmc table is rewritten in
# event order as rocprofv3 writes it
rpd-synth-rocpd -q --seed 7 --dispatches 96 --guids 2 -o c.db || notok "fixture" "rpd-synth-rocpd failed"
for G in $(guids c.db); do
  sqlite3 c.db "
INSERT INTO rocpd_event_$G(category_id, stack_id) VALUES (1, 0);
CREATE TEMP TABLE p AS SELECT event_id, pmc_id, value FROM rocpd_pmc_event_$G;
INSERT INTO p SELECT K.event_id, 2, 1000 + K.id FROM rocpd_kernel_dispatch_$G K WHERE K.agent_id = 2;
INSERT INTO p SELECT event_id, pmc_id, value / 4 + 0.25 FROM p;
INSERT INTO p VALUES (NULL, 1, 5), ((SELECT max(id) FROM rocpd_event_$G), 1, 99);
DELETE FROM rocpd_pmc_event_$G;
INSERT INTO rocpd_pmc_event_$G(event_id, pmc_id, value) SELECT event_id, pmc_id, value FROM p
  ORDER BY coalesce(event_id, 0), pmc_id DESC, value;" || notok "fixture" "sqlite3 failed"
done
check_eq "fixture: counters on both agents (both names on agent 1, one on agent 2), both guids" "0|2|2;1|2|1" \
  "$(q c.db "SELECT agent_type_index, count(DISTINCT guid), count(DISTINCT counter_name) FROM counters_collection GROUP BY 1" | paste -sd';')"
cp c.db c.orig
check_rc "in order: exit 0" 0 rpd-import c.db c.rpd
same_file "in order: input byte-identical" c.orig c.db
check_eq "in order: counters = the input's counters_collection (dispatch, gpu, name, summed value)" \
  "$(q c.db "SELECT dispatch_id, agent_type_index, counter_name, value FROM counters_collection ORDER BY 1, 2, 3, 4")" \
  "$(q c.rpd "SELECT dispatch, gpuId, counter, value FROM counter ORDER BY 1, 2, 3, 4")"
check_eq "in order: exact count and sum" \
  "$(q c.db "SELECT count(*), sum(value) FROM counters_collection")" \
  "$(q c.rpd "SELECT count(*), sum(value) FROM counter")"
# counters_collection has one row per pmc row: 2 instances each
check_eq "in order: every pmc row read, the two on no dispatch skipped per guid" \
  "read pmc_event $(( $(q c.db "SELECT count(*) FROM rocpd_pmc_event") ))|skipped 4 pmc" \
  "$(grep -E 'read pmc_event|skipped [0-9]+ pmc' "$TESTDIR/stderr" | awk '{print $1, $2, $3}' | paste -sd'|')"
check_eq "in order: counters on the op of their own dispatch (kernel name, start, end)" \
  "$(q c.db "SELECT dispatch_id, counter_name, kernel_name, start, end FROM counters_collection ORDER BY 1, 2, 3, 4")" \
  "$(q c.rpd "SELECT dispatch, counter, kernelName, start, end FROM counter ORDER BY 1, 2, 3, 4")"
# the fixture wrote each event's GRBM_COUNT rows before its SQ_WAVES rows
check_eq "in order: rows in pmc order (op, then the name's first row)" \
  "$(q c.rpd "SELECT group_concat(x, ',') FROM (SELECT C.op_id || S.string AS x FROM rocpd_counter C JOIN rocpd_string S ON S.id = C.name_id ORDER BY C.op_id, S.string)")" \
  "$(q c.rpd "SELECT group_concat(x, ',') FROM (SELECT C.op_id || S.string AS x FROM rocpd_counter C JOIN rocpd_string S ON S.id = C.name_id ORDER BY C.id)")"

# the same rows out of event order (reversed): the sorted path, same output
cp c.db r.db
for G in $(guids r.db); do
  sqlite3 r.db "CREATE TEMP TABLE p AS SELECT event_id, pmc_id, value FROM rocpd_pmc_event_$G ORDER BY id DESC;
DELETE FROM rocpd_pmc_event_$G;
INSERT INTO rocpd_pmc_event_$G(event_id, pmc_id, value) SELECT event_id, pmc_id, value FROM p;" || notok "fixture" "sqlite3 failed"
done
check_rc "out of order: exit 0" 0 rpd-import r.db r.rpd
check_eq "out of order: the same counter rows (op, name, value)" \
  "$(q c.rpd "SELECT op_id, counter, value FROM counter ORDER BY op_id, counter")" \
  "$(q r.rpd "SELECT op_id, counter, value FROM counter ORDER BY op_id, counter")"
check_eq "out of order: the same ops, api calls and strings" \
  "$(q c.rpd "SELECT (SELECT count(*) FROM rocpd_op), (SELECT count(*) FROM rocpd_api), (SELECT count(*) FROM rocpd_string), (SELECT count(*) FROM rocpd_counter)")" \
  "$(q r.rpd "SELECT (SELECT count(*) FROM rocpd_op), (SELECT count(*) FROM rocpd_api), (SELECT count(*) FROM rocpd_string), (SELECT count(*) FROM rocpd_counter)")"

# dispatches out of event order (one pair swapped): the sorted path too
G=$(guids c.db | head -1)
cp c.db k.db
sqlite3 k.db "CREATE TEMP TABLE e AS SELECT id, event_id FROM rocpd_kernel_dispatch_$G WHERE id IN (5, 9);
UPDATE rocpd_kernel_dispatch_$G SET event_id = (SELECT event_id FROM e WHERE e.id = 14 - rocpd_kernel_dispatch_$G.id) WHERE id IN (5, 9);" || notok "fixture" "sqlite3 failed"
check_eq "fixture: dispatches 5 and 9 swapped their events" "1" \
  "$(q k.db "SELECT (SELECT event_id FROM rocpd_kernel_dispatch_$G WHERE id = 5) > (SELECT event_id FROM rocpd_kernel_dispatch_$G WHERE id = 9)")"
check_rc "dispatches out of order: exit 0" 0 rpd-import k.db k.rpd
check_eq "dispatches out of order: counters = the input's counters_collection" \
  "$(q k.db "SELECT dispatch_id, agent_type_index, counter_name, value FROM counters_collection ORDER BY 1, 2, 3, 4")" \
  "$(q k.rpd "SELECT dispatch, gpuId, counter, value FROM counter ORDER BY 1, 2, 3, 4")"

# issue 21: the writer thread (pipe.c) on these fixtures (in order, pmc
# rows reversed, dispatches swapped: the merge, its rollback and the
# sorted path with the op read-back) gives the one-thread database
for f in c r k; do
  RPDTOOLS_IMPORT_THREADS=1 rpd-import -q --force $f.db $f.one.rpd
  check_rc "$f.db: threaded import (forced on): exit 0" 0 env RPDTOOLS_IMPORT_THREADS=2 rpd-import -q --force $f.db $f.two.rpd
  sqlite3 $f.one.rpd .dump >$f.one.sql
  sqlite3 $f.two.rpd .dump >$f.two.sql
  same_file "$f.db: threaded = one thread (.dump)" $f.one.sql $f.two.sql
done
check_eq "threaded: counters = the input's counters_collection (pmc rows reversed)" \
  "$(q r.db "SELECT dispatch_id, agent_type_index, counter_name, value FROM counters_collection ORDER BY 1, 2, 3, 4")" \
  "$(q r.two.rpd "SELECT dispatch, gpuId, counter, value FROM counter ORDER BY 1, 2, 3, 4")"
