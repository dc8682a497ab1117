#!/bin/sh
# rpd-graph: golden equality on synth-small (v2 and a v3 copy), mytrace (20
# launches, no captures), generated traces with captures on several streams,
# idempotence, -o, bad input.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

# CSV of a query, rows sorted, without the CR that sqlite3 -csv may emit
csvq() { sqlite3 -batch -header -csv "$1" "$2" | tr -d '\r' | sort; }
# a golden CSV (.gz or not) the same way
gold() { _cat_any "$1" | tr -d '\r' | sort; }

# Turn a schema v2 copy into schema v3 in place, the way rpd-schema
# --upgrade lays it out (rocpd_api gains domain_id/category_id, rocpd_op
# loses completionSignal) but with the args moved to rocpd_ustring under ids
# that rocpd_string does not have, so that reading args from the wrong table
# shows.  (lib.sh's to_v3, used below too, keeps the ids, which overlap.)
to_v3_disjoint_ids() {
  sqlite3 -batch "$1" <<'EOF'
BEGIN;
DROP VIEW IF EXISTS api;
CREATE TABLE "rocpd_ustring" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "string" varchar(4096) NOT NULL);
INSERT INTO rocpd_ustring(id, string)
  SELECT id + 1000000, string FROM rocpd_string WHERE id IN (SELECT args_id FROM rocpd_api);
UPDATE rocpd_api SET args_id = args_id + 1000000;
DELETE FROM rocpd_string WHERE string != '' AND id + 1000000 IN (SELECT id FROM rocpd_ustring)
  AND id NOT IN (SELECT apiName_id FROM rocpd_api UNION SELECT description_id FROM rocpd_op
                 UNION SELECT opType_id FROM rocpd_op UNION SELECT kernelName_id FROM rocpd_kernelapi);
ALTER TABLE rocpd_api ADD COLUMN "category_id" integer NOT NULL DEFAULT 0;
ALTER TABLE rocpd_api ADD COLUMN "domain_id" integer NOT NULL DEFAULT 0;
UPDATE rocpd_api SET category_id = (SELECT min(id) FROM rocpd_string WHERE string = ''),
                     domain_id = (SELECT min(id) FROM rocpd_string WHERE string = '');
ALTER TABLE rocpd_op DROP COLUMN completionSignal;
UPDATE rocpd_metadata SET value = '3' WHERE tag = 'schema_version';
CREATE VIEW api AS SELECT rocpd_api.id, pid, tid, start, end, A.string AS domain, B.string AS category,
  C.string AS apiName, D.string AS args FROM rocpd_api JOIN rocpd_string A ON A.id = rocpd_api.domain_id
  JOIN rocpd_string B ON B.id = rocpd_api.category_id JOIN rocpd_string C ON C.id = rocpd_api.apiName_id
  JOIN rocpd_ustring D ON D.id = rocpd_api.args_id;
COMMIT;
EOF
}

GRAPH_Q='SELECT graph, graphExec, stream, start, "end" FROM ext_graph'
KAPI_Q='SELECT B.graphExec, A.api_id, A.sequence FROM ext_graph_kernelapis A JOIN ext_graph B ON B.id = A.graph_id'

golden_checks() { # LABEL FILE
  G="$GOLDEN/synth-small"
  csvq "$2" "$GRAPH_Q" >"$TESTDIR/got"; gold "$G/graph.csv" >"$TESTDIR/want"
  same_file "$1: ext_graph = golden graph.csv" "$TESTDIR/want" "$TESTDIR/got"
  csvq "$2" "$KAPI_Q" >"$TESTDIR/got"; gold "$G/graph_kernelapis.csv" >"$TESTDIR/want"
  same_file "$1: ext_graph_kernelapis = golden" "$TESTDIR/want" "$TESTDIR/got"
  csvq "$2" "SELECT * FROM graphLaunch" >"$TESTDIR/got"; gold "$G/graphLaunch.csv.gz" >"$TESTDIR/want"
  same_file "$1: graphLaunch view = golden" "$TESTDIR/want" "$TESTDIR/got"
  csvq "$2" "SELECT * FROM graphKernel" >"$TESTDIR/got"; gold "$G/graphKernel.csv" >"$TESTDIR/want"
  same_file "$1: graphKernel view = golden" "$TESTDIR/want" "$TESTDIR/got"
}

if need_shared "$TRACES/synth-small.rpd" && need_shared "$GOLDEN/synth-small/graph.csv"; then
  tmpcopy "$TRACES/synth-small.rpd" s2.rpd
  check_rc "synth-small v2: exit 0" 0 rpd-graph s2.rpd
  check_eq "synth-small v2: summary line" \
    "rpd-graph: 6 capture/instantiate calls, 2 graphs, 24 graph kernels, 40 graph launches" \
    "$(cat "$TESTDIR/stdout")"
  golden_checks "synth-small v2" s2.rpd
  check_eq "synth-small v2: graph tables typed" "varchar(18) NOT NULL" \
    "$(q s2.rpd "SELECT type || CASE WHEN \"notnull\" THEN ' NOT NULL' ELSE '' END FROM pragma_table_info('rocpd_graphapi') WHERE name = 'graph'")"
  check_eq "synth-small v2: done tag" "True" \
    "$(q s2.rpd "SELECT value FROM rocpd_metadata WHERE tag = 'Graph::Generated'")"

  # idempotence: a rerun says so, exits 0 and leaves the file byte-identical
  before=$(sha s2.rpd)
  check_rc "rerun: exit 0" 0 rpd-graph s2.rpd
  check "rerun: says already" grep -q "already has the graph tables" "$TESTDIR/stderr"
  check_eq "rerun: file unchanged" "$before" "$(sha s2.rpd)"
  q s2.rpd "SELECT * FROM ext_graph; SELECT * FROM ext_graph_kernelapis; SELECT * FROM rocpd_graphapi" >"$TESTDIR/a"
  check_rc "--force: exit 0" 0 rpd-graph --force s2.rpd
  q s2.rpd "SELECT * FROM ext_graph; SELECT * FROM ext_graph_kernelapis; SELECT * FROM rocpd_graphapi" >"$TESTDIR/b"
  same_file "--force: same rows and ids" "$TESTDIR/a" "$TESTDIR/b"
  check_eq "--force: one done tag" 1 "$(q s2.rpd "SELECT count(*) FROM rocpd_metadata WHERE tag = 'Graph::Generated'")"
  golden_checks "synth-small v2 after --force" s2.rpd

  # v3 copy: args live in rocpd_ustring under ids rocpd_string does not have
  tmpcopy "$TRACES/synth-small.rpd" s3.rpd
  to_v3_disjoint_ids s3.rpd
  check_eq "v3 fixture: no args in rocpd_string" 0 \
    "$(q s3.rpd "SELECT count(*) FROM rocpd_string WHERE id IN (SELECT args_id FROM rocpd_api)")"
  check_rc "synth-small v3: exit 0" 0 rpd-graph s3.rpd
  golden_checks "synth-small v3" s3.rpd

  # and a v3 copy made by rpd-schema --upgrade, when that tool is built
  if command -v rpd-schema >/dev/null 2>&1; then
    if to_v3 "$TRACES/synth-small.rpd" u3.rpd 2>/dev/null; then
      check_rc "synth-small rpd-schema --upgrade: exit 0" 0 rpd-graph u3.rpd
      golden_checks "synth-small upgraded" u3.rpd
    else
      skip "rpd-schema --upgrade failed on synth-small"
    fi
  else
    skip "rpd-schema not built"
  fi

  # -o: input untouched, output augmented
  tmpcopy "$TRACES/synth-small.rpd" in.rpd
  before=$(sha in.rpd)
  check_rc "-o OUT: exit 0" 0 rpd-graph in.rpd -o out.rpd
  check_eq "-o OUT: input unchanged" "$before" "$(sha in.rpd)"
  check_eq "-o OUT: output has 2 graphs" 2 "$(q out.rpd "SELECT count(*) FROM ext_graph")"
fi

if need_shared "$TRACES/mytrace.rpd.gz"; then
  tmpcopy "$TRACES/mytrace.rpd.gz" my.rpd
  check_rc "mytrace (launches, no captures): exit 0" 0 rpd-graph my.rpd
  check_eq "mytrace: ext_graph empty" 0 "$(q my.rpd "SELECT count(*) FROM ext_graph")"
  check_eq "mytrace: graphLaunch has 20 rows" 20 "$(q my.rpd "SELECT count(*) FROM graphLaunch")"
  check_eq "mytrace: graphKernel empty" 0 "$(q my.rpd "SELECT count(*) FROM graphKernel")"
  # the view's sums against a direct computation over the same links
  check_eq "mytrace: gpuTime_usec total" \
    "$(q my.rpd "SELECT sum((O.\"end\" - O.start) / 1000) FROM rocpd_api A JOIN rocpd_string S ON S.id = A.apiName_id JOIN rocpd_api_ops L ON L.api_id = A.id JOIN rocpd_op O ON O.id = L.op_id WHERE S.string = 'hipGraphLaunch'")" \
    "$(q my.rpd "SELECT sum(gpuTime_usec) FROM graphLaunch")"
  check_eq "mytrace: one graphExec on stream 0x0" "0x24922d90|0x0|20" \
    "$(q my.rpd "SELECT graphExec, stream, count(*) FROM graphLaunch GROUP BY 1, 2")"
fi

# generated traces: 7 graphs captured by 4 threads on 4 streams
for schema in 2 3; do
  rpd-synth --seed 5 --api 6000 --gpus 2 --threads 4 --graphs 7 --schema "$schema" -o "g$schema.rpd" >/dev/null
  check_rc "synth v$schema: exit 0" 0 rpd-graph "g$schema.rpd"
  check_eq "synth v$schema: 7 graphs on 4 streams" "7|4" \
    "$(q "g$schema.rpd" "SELECT count(*), count(DISTINCT stream) FROM ext_graph")"
  check_eq "synth v$schema: one graph per end-capture call" \
    "$(q "g$schema.rpd" "SELECT count(*) FROM rocpd_api A JOIN rocpd_string S ON S.id = A.apiName_id WHERE S.string = 'hipStreamEndCapture'")" \
    "$(q "g$schema.rpd" "SELECT count(*) FROM ext_graph")"
  # each graph's kernel count equals the ops of each of its launches
  check_eq "synth v$schema: kernels per graph = ops per launch" "0" \
    "$(q "g$schema.rpd" "SELECT count(*) FROM ext_graph G JOIN rocpd_graphLaunchapi L ON L.graphExec = G.graphExec
       WHERE (SELECT count(*) FROM ext_graph_kernelapis K WHERE K.graph_id = G.id)
          != (SELECT count(*) FROM rocpd_api_ops O WHERE O.api_id = L.api_ptr_id)")"
  check_eq "synth v$schema: every graph launched and counted" "58|42" \
    "$(q "g$schema.rpd" "SELECT (SELECT count(*) FROM ext_graph_kernelapis), (SELECT count(*) FROM graphLaunch)")"
  check_eq "synth v$schema: sequences are 1..n per graph" "0" \
    "$(q "g$schema.rpd" "SELECT count(*) FROM (SELECT graph_id, max(sequence) m, count(*) n, count(DISTINCT sequence) d FROM ext_graph_kernelapis GROUP BY 1) WHERE m != n OR d != n")"
done
check_eq "synth v2 and v3 give the same graphs" "$(csvq g2.rpd "$GRAPH_Q")" "$(csvq g3.rpd "$GRAPH_Q")"

# no graphs at all
rpd-synth --seed 2 --api 2000 --graphs 0 -o none.rpd >/dev/null
check_rc "no graph calls: exit 0" 0 rpd-graph none.rpd
check_eq "no graph calls: empty tables, views work" "0|0|0" \
  "$(q none.rpd "SELECT (SELECT count(*) FROM ext_graph), (SELECT count(*) FROM graphLaunch), (SELECT count(*) FROM graphKernel)")"

# bad input: one line, exit 1 (2 for usage), input byte-identical
printf 'this is not a database\n' >junk.rpd; before=$(sha junk.rpd)
check_rc "not SQLite: exit 1" 1 rpd-graph junk.rpd
check_one_line "not SQLite: one line"
check_eq "not SQLite: input unchanged" "$before" "$(sha junk.rpd)"
: >empty.rpd
check_rc "empty file: exit 1" 1 rpd-graph empty.rpd
check_one_line "empty file: one line"
sqlite3 other.db "CREATE TABLE t(x); INSERT INTO t VALUES (1);"; before=$(sha other.db)
check_rc "not an RPD trace: exit 1" 1 rpd-graph other.db
check_one_line "not an RPD trace: one line"
check_eq "not an RPD trace: unchanged" "$before" "$(sha other.db)"
gzip -c none.rpd | head -c 3000 >trunc.rpd.gz; before=$(sha trunc.rpd.gz)
check_rc "truncated .gz: exit 1" 1 rpd-graph trunc.rpd.gz
check_one_line "truncated .gz: one line"
check_eq "truncated .gz: unchanged" "$before" "$(sha trunc.rpd.gz)"
rpd-synth --seed 2 --api 500 -o nokern.rpd >/dev/null; sqlite3 nokern.rpd "DROP VIEW IF EXISTS kernel; DROP TABLE rocpd_kernelapi"; before=$(sha nokern.rpd)
check_rc "missing rocpd_kernelapi: exit 1" 1 rpd-graph nokern.rpd
check_one_line "missing rocpd_kernelapi: one line"
check_eq "missing rocpd_kernelapi: unchanged" "$before" "$(sha nokern.rpd)"
check_rc "missing file: exit 1" 1 rpd-graph nosuch.rpd
check_one_line "missing file: one line"
check_rc "unknown option: exit 2" 2 rpd-graph --bogus none.rpd
check_rc "no FILE: exit 2" 2 rpd-graph
check_rc "--help: exit 0" 0 rpd-graph --help
check "--help: prints usage" grep -q "usage: rpd-graph" "$TESTDIR/stdout"

# issue 12: a user's own ext_graph (other columns) is never dropped, not
# even with --force: one line, the file as it was
rpd-synth --seed 2 --api 3000 --graphs 2 -o owng.rpd >/dev/null 2>&1
sqlite3 owng.rpd "CREATE TABLE ext_graph(label TEXT); INSERT INTO ext_graph VALUES ('mine')"
before=$(sha owng.rpd)
for force in "" --force; do
  check_rc "own ext_graph $force: exit 1" 1 rpd-graph owng.rpd $force
  check_eq "own ext_graph $force: message" \
    "rpd-graph: 'owng.rpd': table ext_graph exists with other columns (label); it was not written by rpdtools: rename or drop it yourself" \
    "$(cat "$TESTDIR/stderr")"
  check_eq "own ext_graph $force: unchanged" "$before" "$(sha owng.rpd)"
done
