#!/bin/sh
# all-tools.sh - hold every rpdtools binary to the same contract
# (docs/developing.md "Rules"; what each section checks: docs/testing.md).
#   1. CLI: --help/-h exit 0 with a usage naming the tool; a bogus option or
#      no arguments exit 2 with "PROG: ..." and "Try 'PROG --help'.".
#   2. bad input, for every tool that takes a trace FILE: exactly one stderr
#      line "PROG: ...", exit 1 (2 usage), the input byte-identical, no
#      output, no temp file in $TMPDIR or next to the input; readers work
#      on read-only files and .gz; hostile names and identifiers work.
#   3. named outputs: never written over the input, a device or a symlink.
#   4. kill -9 at several moments: integrity_check ok, content as before
#      (.gz byte-identical).
#   5. idempotence: a second run exits 0, says so, file byte-identical;
#      --force rebuilds to the same row counts.
#   6. disk full (root only): fits, or one line and the trace as before.
# Needs only rpd-synth (no ../shared); uses ../shared's rocprofv3 db if there.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"

: "${TESTDIR:?run it through tests/run.sh, or set TESTDIR to a scratch directory}"
W=$TESTDIR
rm -rf "$W/tmp" "$W/in" "$W/out" "$W/k"
mkdir -p "$W/tmp" "$W/in" "$W/out" "$W/k"
TMPDIR=$W/tmp; export TMPDIR
RPD_BUSY_TIMEOUT_MS=200; export RPD_BUSY_TIMEOUT_MS
RPD_GZIP_LEVEL=1; export RPD_GZIP_LEVEL
BOGUS=--bogus-qa-option
EXEC='' DD='' NAMECHK=''

# ------------------------------------------------------------ background
LOCKPID='' MOUNTED='' FIFOPID=''
cleanup() {
  [ -n "$LOCKPID" ] && kill "$LOCKPID" 2>/dev/null
  [ -n "$FIFOPID" ] && kill "$FIFOPID" 2>/dev/null
  [ -n "$MOUNTED" ] && umount "$MOUNTED" 2>/dev/null
  chmod -R u+w "$W/in" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# ------------------------------------------------------------ the tools
# MODE:BINARY:ROLE (r reads FILE, w writes it in place)
MODES="schema-info:rpd-schema:r schema-upgrade:rpd-schema:w schema-views:rpd-schema:w
callstack:rpd-callstack:w autograd:rpd-autograd:w strings:rpd-strings:r
strings-dedupe:rpd-strings:w metadata-list:rpd-metadata:r metadata-set:rpd-metadata:w
graph:rpd-graph:w subclass:rpd-subclass:w deserialize:rpd-deserialize:w trim:rpd-trim:w
raptor:raptor:r raptor-save:raptor:w rpd2tracing:rpd2tracing:r
autograd-summary:rpd-autograd-summary:r analyze:rpd-analyze:w
merge:rpd-merge:r diff:rpd-diff:r byrank:raptor:r byrank-save:raptor:w
health:rpd-health:r budget:rpd-budget:r"

# the read-only modes that read a rocprofv3 database as it is
DIRECT_MODES="raptor byrank budget rpd2tracing health diff"

# modes only used in some sections
MODES_EXTRA="strings-vacuum:rpd-strings:w import:rpd-import:r table:rpd2table:r
stackframe:rpd-stackframe:w"

# mode_info MODE: sets MB (its binary) and MR (its role, r or w)
mode_info() {
  for _e in $MODES $MODES_EXTRA; do
    case $_e in "$1":*) _e=${_e#*:}; MB=${_e%%:*}; MR=${_e#*:}; return ;; esac
  done
  MB=; MR=
}

# run_mode MODE FILE [OPTION...]: run MODE on FILE with extra options.
# $EXEC=exec makes the tool replace the (sub)shell, so that $! is its pid;
# $DD=-- puts "--" before FILE (rpd-schema takes FILE as an option argument,
# where a leading dash is no ambiguity).
run_mode() {
  _m=$1; _f=$2; shift 2
  case $_m in
  schema-info)      $EXEC rpd-schema --info "$_f" "$@" ;;
  schema-upgrade)   $EXEC rpd-schema --upgrade "$_f" "$@" ;;
  schema-views)     $EXEC rpd-schema --views "$_f" "$@" ;;
  callstack)        $EXEC rpd-callstack "$@" $DD "$_f" ;;
  autograd)         $EXEC rpd-autograd "$@" $DD "$_f" ;;
  analyze)          $EXEC rpd-analyze "$@" $DD "$_f" ;;
  merge)            $EXEC rpd-merge -q --force -o "$W/out/o.rpd" "$@" $DD "$_f" ;;
  diff)             $EXEC rpd-diff "$@" $DD "$_f" "$_f" ;;
  byrank)           $EXEC raptor --by-rank "$@" $DD "$_f" ;;
  byrank-save)      $EXEC raptor --by-rank --save "$@" $DD "$_f" ;;
  strings)          $EXEC rpd-strings "$@" $DD "$_f" ;;
  strings-dedupe)   $EXEC rpd-strings --dedupe "$@" $DD "$_f" ;;
  metadata-list)    $EXEC rpd-metadata --list "$@" $DD "$_f" ;;
  metadata-set)     $EXEC rpd-metadata --set qa.tag "it's; \"x\"" "$@" $DD "$_f" ;;
  graph)            $EXEC rpd-graph "$@" $DD "$_f" ;;
  subclass)         $EXEC rpd-subclass --name qa --events hipMemcpyAsync "$@" $DD "$_f" ;;
  deserialize)      $EXEC rpd-deserialize "$@" $DD "$_f" ;;
  trim)             $EXEC rpd-trim --start 10% "$@" $DD "$_f" ;;
  strings-vacuum)   $EXEC rpd-strings --clean-autograd --vacuum "$@" $DD "$_f" ;;
  raptor)           $EXEC raptor "$@" $DD "$_f" ;;
  health)           $EXEC rpd-health "$@" $DD "$_f" ;;
  budget)           printf 'busy_ms >= 0\n' >"$W/limits.txt"
                    $EXEC rpd-budget "$W/limits.txt" "$@" $DD "$_f" ;;
  raptor-save)      $EXEC raptor --save "$@" $DD "$_f" ;;
  rpd2tracing)      $EXEC rpd2tracing -q "$@" $DD "$_f" "$W/out/o.json" ;;
  autograd-summary) $EXEC rpd-autograd-summary "$@" $DD "$_f" "$W/out/o.html" ;;
  import)           $EXEC rpd-import "$@" $DD "$_f" "$W/out/o.rpd" ;;
  table)            $EXEC rpd2table "$@" $DD "$_f" "$W/out/o.csv" ;;
  stackframe)       $EXEC rpd-stackframe "$@" $DD "$_f" ;;
  esac
}

# The modes whose binary was built; a skip line for the others.
PRESENT=
for _e in $MODES; do
  _m=${_e%%:*}; mode_info "$_m"
  if [ -x "$RPD_BIN/$MB" ]; then PRESENT="$PRESENT $_m"
  else skip "$_m: $MB is not built"; fi
done

# ------------------------------------------------------------ traces
rpd-synth --seed 5 --api 3000 --schema 2 -o "$W/small.rpd" >/dev/null 2>&1 ||
  { notok "rpd-synth small trace"; exit 0; }
gzip -c "$W/small.rpd" >"$W/small.rpd.gz"
# the autograd summary needs autograd data in its positive cases
cp "$W/small.rpd" "$W/ag.rpd"
if [ -x "$RPD_BIN/rpd-autograd" ]; then rpd-autograd "$W/ag.rpd" >/dev/null 2>&1; fi

# source of the valid input for a positive case of MODE
valid_src() {
  case $1 in autograd-summary) echo "$W/ag.rpd" ;; *) echo "$W/small.rpd" ;; esac
}

DOCS=$(cd "$(dirname "$0")/../../docs" && pwd)

# ------------------------------------------------------------ 1. CLI
echo "# $(date +%T) cli"
# usage_err NAME ARGS...: binary $b (named $n) must refuse ARGS as a usage
# error
usage_err() { # NAME ARGS...
  _name=$1; shift
  "$b" "$@" >"$W/so" 2>"$W/se"; _rc=$?
  _why=
  [ $_rc -eq 2 ] || _why="$_why exit $_rc (want 2);"
  [ -s "$W/so" ] && _why="$_why stdout not empty;"
  [ "$(wc -l <"$W/se")" -eq 2 ] || _why="$_why stderr has $(wc -l <"$W/se") lines;"
  case $(sed -n 1p "$W/se") in "$n: "?*) ;; *) _why="$_why line 1 not '$n: ...';" ;; esac
  [ "$(sed -n 2p "$W/se")" = "Try '$n --help'." ] || _why="$_why line 2 not the --help hint;"
  if [ -z "$_why" ]; then ok "cli $n $_name"
  else notok "cli $n $_name" "$_why $(head -c 200 "$W/se" | tr '\n' '|')"; fi
}
for b in "$RPD_BIN"/*; do
  [ -f "$b" ] && [ -x "$b" ] || continue
  n=$(basename "$b")
  for h in --help -h; do
    "$b" $h >"$W/so" 2>"$W/se"; rc=$?
    why=
    [ $rc -eq 0 ] || why="$why exit $rc;"
    [ -s "$W/so" ] || why="$why empty stdout;"
    grep -q -- "$n" "$W/so" || why="$why usage does not name $n;"
    [ -s "$W/se" ] && why="$why stderr: $(head -c 100 "$W/se");"
    if [ -z "$why" ]; then ok "cli $n $h"; else notok "cli $n $h" "$why"; fi
  done
  usage_err "bogus option" $BOGUS
  usage_err "no arguments"
  # docs/developing.md: a docs page per tool
  page=$n.md; [ "$n" = rpdRemote ] && [ ! -f "$DOCS/$page" ] && page=remote.md
  if [ -f "$DOCS/$page" ]; then ok "docs $n: docs/$page"
  else notok "docs $n: docs/$page" "missing"; fi
done

# a bogus option next to otherwise valid arguments: named in the message,
# the file untouched
for m in $PRESENT; do
  mode_info "$m"; b=$MB
  src=$(valid_src "$m"); cp "$src" "$W/in/u.rpd"
  run_mode "$m" "$W/in/u.rpd" $BOGUS >"$W/so" 2>"$W/se"; rc=$?
  why=
  [ $rc -eq 2 ] || why="$why exit $rc (want 2);"
  grep -q -- "$BOGUS" "$W/se" || why="$why message does not name $BOGUS;"
  [ "$(sed -n 2p "$W/se")" = "Try '$b --help'." ] || why="$why no --help hint;"
  cmp -s "$src" "$W/in/u.rpd" || why="$why input changed;"
  if [ -z "$why" ]; then ok "cli $m: bogus option with a valid FILE"
  else notok "cli $m: bogus option with a valid FILE" "$why $(head -c 200 "$W/se" | tr '\n' '|')"; fi
  rm -f "$W/in/u.rpd"
done

# results on stdout that cannot be written are a failure, not a success
# (stdout redirected to /dev/full; it is never named as an output file)
if [ -c /dev/full ]; then
  for m in schema-info strings metadata-list raptor; do
    case " $PRESENT " in *" $m "*) ;; *) continue ;; esac
    run_mode "$m" "$W/small.rpd" >/dev/full 2>"$W/se"; rc=$?
    if [ $rc -eq 1 ] && [ "$(wc -l <"$W/se")" -eq 1 ]; then ok "cli $m: stdout full"
    else notok "cli $m: stdout full" "exit $rc, $(wc -l <"$W/se") stderr lines: $(head -c 150 "$W/se")"; fi
  done
fi

# ------------------------------------------------------------ 2. bad input
echo "# $(date +%T) bad input"
# Each input lives alone in its own directory, so that anything a tool
# leaves next to it shows up in a listing.
mkin() { rm -rf "$W/in/$1"; mkdir -p "$W/in/$1"; echo "$W/in/$1"; }

d=$(mkin missing);  IN_missing=$d/nope.rpd
d=$(mkin dir);      IN_dir=$d/adir.rpd; mkdir "$IN_dir"
d=$(mkin empty);    IN_empty=$d/empty.rpd; : >"$IN_empty"
d=$(mkin text);     IN_text=$d/text.rpd; printf 'id,pid,tid,start,end\n1,2,3,4,5\n' >"$IN_text"
d=$(mkin truncgz);  IN_truncgz=$d/trunc.rpd.gz
sz=$(wc -c <"$W/small.rpd.gz"); head -c $((sz / 2)) "$W/small.rpd.gz" >"$IN_truncgz"
d=$(mkin other);    IN_other=$d/other.rpd
sqlite3 "$IN_other" "create table t(x); insert into t values (1);"
d=$(mkin rocprof);  IN_rocprof=$d/prof_results.db
if [ -f "$TRACES/rocprofv3_28_results.db" ]; then cat "$TRACES/rocprofv3_28_results.db" >"$IN_rocprof"
else
  sqlite3 "$IN_rocprof" "create table rocpd_info_node_0123abcd(id, hash, machine_id);
    create table rocpd_kernel_dispatch_0123abcd(id, start, end);
    create table rocpd_metadata_0123abcd(tag, value);
    insert into rocpd_metadata_0123abcd values ('schema_version', '3');
    create view kernels as select * from rocpd_kernel_dispatch_0123abcd;
    create view regions as select 1 as id;"
fi
d=$(mkin gzdouble); IN_gzdouble=$d/twice.rpd.gz; gzip -c "$W/small.rpd.gz" >"$IN_gzdouble"
# an SQLite file with a run of garbage pages in the middle: a tool that
# reads them fails with one line, one that does not may succeed
d=$(mkin corrupt);  IN_corrupt=$d/corrupt.rpd; cp "$W/small.rpd" "$IN_corrupt"
sz=$(wc -c <"$IN_corrupt")
head -c 32768 /dev/zero | tr '\0' 'Z' |
  dd of="$IN_corrupt" bs=4096 seek=$((sz / 8192)) conv=notrunc 2>/dev/null
# a FIFO: refused without blocking; should a tool ever open it, a bounded
# background writer hands it an end of file within a second
d=$(mkin fifo);     IN_fifo=$d/pipe.rpd; mkfifo "$IN_fifo"
timeout 300 sh -c 'while :; do : >"$0"; sleep 1; done' "$IN_fifo" 2>/dev/null &
FIFOPID=$!
d=$(mkin hostbad);  IN_hostbad="$d/bad; rm -rf x 'q' \"d\" \$(id).rpd"
printf 'not a trace\n' >"$IN_hostbad"

# check_case NAME MODE FILE WANT NEEDLE [OPTION...]
# Runs MODE on FILE (prepared by the caller) with OPTIONs and checks the
# contract: the exit status is one of WANT ("1", "0", "0 1"); a failure
# gives exactly one stderr line "PROG: ..." (containing NEEDLE unless it is
# empty; a usage error, 2, adds the "Try" line) and no output file; the
# input stays byte-identical unless a writer succeeded; nothing new appears
# next to the input nor in $TMPDIR.
check_case() {
  _n=$1; _m=$2; _f=$3; _want=$4; _needle=$5; shift 5
  mode_info "$_m"; _b=$MB; _role=$MR
  _dir=$(dirname "$_f")
  rm -rf "$W/out"/* "$W/out"/.[!.]* "${TMPDIR:?}"/* "${TMPDIR:?}"/.[!.]* "$W/pristine"
  [ -f "$_f" ] && cp "$_f" "$W/pristine"
  ls -A "$_dir" >"$W/ls.before"
  run_mode "$_m" "$_f" "$@" >"$W/so" 2>"$W/se" </dev/null; _rc=$?
  _why=
  case " $_want " in *" $_rc "*) ;; *) _why="$_why exit $_rc (want $_want);" ;; esac
  if [ "$_rc" != 0 ]; then
    _l=$(wc -l <"$W/se"); _wl=1; [ "$_rc" = 2 ] && _wl=2
    [ "$_l" -eq $_wl ] || _why="$_why $_l stderr lines;"
    case $(sed -n 1p "$W/se") in "$_b: "?*) ;; *) _why="$_why message not '$_b: ...';" ;; esac
    if [ -n "$_needle" ] && ! grep -qF -- "$_needle" "$W/se"; then
      _why="$_why message lacks [$_needle];"
    fi
    if [ -n "$NAMECHK" ] && [ "$_rc" = 1 ] && ! grep -qF -- "$(basename "$_f")" "$W/se"; then
      _why="$_why message does not name the file;"
    fi
    [ -z "$(ls -A "$W/out")" ] || _why="$_why wrote output $(ls -A "$W/out");"
  fi
  if [ -f "$W/pristine" ] && { [ "$_role" = r ] || [ "$_rc" != 0 ]; }; then
    cmp -s "$W/pristine" "$_f" || _why="$_why input changed;"
  fi
  ls -A "$_dir" >"$W/ls.after"
  cmp -s "$W/ls.before" "$W/ls.after" ||
    _why="$_why left next to input: $(comm -13 "$W/ls.before" "$W/ls.after" | tr '\n' ' ')$(comm -23 "$W/ls.before" "$W/ls.after" | sed 's/^/-/' | tr '\n' ' ');"
  [ -z "$(ls -A "$TMPDIR" 2>/dev/null)" ] || _why="$_why left in TMPDIR: $(ls -A "$TMPDIR" | tr '\n' ' ');"
  if [ -z "$_why" ]; then ok "$_n"
  else notok "$_n" "$_why :: $(head -c 200 "$W/se" | tr '\n' '|')"; fi
}

cat >"$W/hostile.sql" <<'EOF'
CREATE TABLE "ext_evil""; DROP TABLE rocpd_op; --" ("col""x" INTEGER, "it's" TEXT);
INSERT INTO "ext_evil""; DROP TABLE rocpd_op; --" VALUES (1, 'a');
INSERT INTO rocpd_metadata(tag, value) VALUES
  ('references::rocpd_string.id', '("ext_evil""; DROP TABLE rocpd_op; --", "col""x")'),
  ('references::rocpd_string.id', '("rocpd_api; DROP TABLE rocpd_kernelapi; --", "x")'),
  ('weird''tag', 'v"al');
UPDATE rocpd_api SET apiName_id = 999999 WHERE id % 7 = 0;
UPDATE rocpd_op SET opType_id = 888888 WHERE id % 13 = 0;
INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (777777, 1), (1, 666666);
UPDATE rocpd_kernelapi SET kernelName_id = 555555 WHERE api_ptr_id % 3 = 0;
EOF
# A trace from a stranger carries code (docs/common.md "Untrusted traces"):
# triggers on every rocpd_ table that would empty a sentinel table, FTS5
# and R-tree tables (they keep statements of their own on the connection),
# a rocpd_ table replaced by a view, planted planner statistics, a gzip bomb
# (a trace followed by 100 MB of zeros), data after the gzip stream.
{
  echo "CREATE TABLE qa_victim(x); INSERT INTO qa_victim VALUES (1);"
  for t in rocpd_metadata rocpd_op rocpd_api rocpd_string rocpd_api_ops rocpd_kernelapi rocpd_copyapi; do
    for e in INSERT UPDATE DELETE; do
      echo "CREATE TRIGGER qa_${t}_$e AFTER $e ON $t BEGIN DELETE FROM qa_victim; END;"
    done
  done
} >"$W/triggers.sql"
FTS_SQL="CREATE VIRTUAL TABLE qa_notes USING fts5(body);
  INSERT INTO qa_notes VALUES ('hello kernel'), ('other');
  CREATE VIRTUAL TABLE qa_boxes USING rtree(id, x0, x1); INSERT INTO qa_boxes VALUES (1, 0, 10);"
VIEW_SQL="ALTER TABLE rocpd_op RENAME TO qa_op; CREATE VIEW rocpd_op AS SELECT * FROM qa_op;"
STAT_SQL="ANALYZE; UPDATE sqlite_stat1 SET stat = '1 1';"
d=$(mkin gzbomb); IN_gzbomb=$d/bomb.rpd.gz
{ cat "$W/small.rpd"; head -c 100000000 /dev/zero; } | gzip -1 >"$IN_gzbomb"
d=$(mkin gztrail); IN_gztrail=$d/trail.rpd.gz
{ cat "$W/small.rpd.gz"; echo "trailing garbage"; } >"$IN_gztrail"

# untrusted_cases MODE SRC: the classes above for MODE, on copies of SRC
untrusted_cases() {
  _um=$1; _us=$2
  mode_info "$_um"
  # a reader may read what is intact; a writer never builds on it
  if [ "$MR" = w ]; then check_case "bad $_um: garbage pages inside" "$_um" "$IN_corrupt" 1 "corrupt"
  else check_case "bad $_um: garbage pages inside" "$_um" "$IN_corrupt" "0 1" ""; fi
  check_case "bad $_um: gzip bomb" "$_um" "$IN_gzbomb" 1 "gzip bomb"
  check_case "bad $_um: data after the gzip stream" "$_um" "$IN_gztrail" 1 "after the end of the gzip stream"
  # planted triggers never fire on the tool's writes
  _ud=$(mkin triggers); cp "$_us" "$_ud/t.rpd"
  sqlite3 "$_ud/t.rpd" <"$W/triggers.sql"
  check_case "good $_um: planted triggers" "$_um" "$_ud/t.rpd" 0 ""
  check_eq "good $_um: planted triggers did not fire" 1 "$(q "$_ud/t.rpd" "select count(*) from qa_victim")"
  # FTS5 and R-tree tables next to the trace's (under SANITIZE=1: no
  # double free at close)
  _ud=$(mkin fts); cp "$_us" "$_ud/t.rpd"
  sqlite3 "$_ud/t.rpd" "$FTS_SQL"
  check_case "good $_um: FTS5 and R-tree tables" "$_um" "$_ud/t.rpd" 0 ""
  # a rocpd_ table replaced by a view: refused in one line naming it
  _ud=$(mkin coreview); cp "$_us" "$_ud/t.rpd"
  sqlite3 "$_ud/t.rpd" "$VIEW_SQL"
  check_case "bad $_um: rocpd_op is a view" "$_um" "$_ud/t.rpd" 1 "rocpd_op is a view"
  # planner statistics that claim one row per table: refused (they turn
  # joins quadratic)
  _ud=$(mkin stat1); cp "$_us" "$_ud/t.rpd"
  sqlite3 "$_ud/t.rpd" "$STAT_SQL"
  check_case "bad $_um: planted sqlite_stat1" "$_um" "$_ud/t.rpd" 1 "sqlite_stat1"
}

NAMECHK=1    # a failure about FILE names it
for m in $PRESENT; do
  mode_info "$m"; role=$MR
  check_case "bad $m: nonexistent path" "$m" "$IN_missing" 1 "no such file"
  [ -e "$IN_missing" ] && { notok "bad $m: nonexistent path was created"; rm -rf "$IN_missing"; }
  check_case "bad $m: directory" "$m" "$IN_dir" 1 ""
  check_case "bad $m: empty file" "$m" "$IN_empty" 1 "empty"
  check_case "bad $m: text file" "$m" "$IN_text" 1 "not an SQLite database"
  check_case "bad $m: truncated .gz" "$m" "$IN_truncgz" 1 "gzip"
  check_case "bad $m: .gz of a .gz" "$m" "$IN_gzdouble" 1 "not an SQLite database"
  check_case "bad $m: SQLite without rocpd tables" "$m" "$IN_other" 1 "not an RPD trace"
  # a rocprofv3 database: the modes that read one directly ($DIRECT_MODES,
  # through rpd-import's reader) read the real one (the stand-in lacks
  # tables: one line naming them); the rest say how to convert it
  case " $DIRECT_MODES " in
    *" $m "*) if [ -f "$TRACES/rocprofv3_28_results.db" ]; then
                check_case "rocprofv3 database: $m reads it" "$m" "$IN_rocprof" 0 ""
              else
                check_case "bad $m: incomplete rocprofv3 database" "$m" "$IN_rocprof" 1 "incomplete rocprofv3 database"
              fi ;;
    *) check_case "bad $m: rocprofv3 database" "$m" "$IN_rocprof" 1 "rpd-import" ;;
  esac
  check_case "bad $m: a FIFO" "$m" "$IN_fifo" 1 ""
  untrusted_cases "$m" "$(valid_src "$m")"
  check_case "bad $m: hostile name, not a trace" "$m" "$IN_hostbad" 1 "$(basename "$IN_hostbad")"

  # rocpd_metadata is optional (older tracers did not write it; common/
  # accepts such a trace): every tool works without it
  d=$(mkin nometa); cp "$(valid_src "$m")" "$d/t.rpd"
  sqlite3 "$d/t.rpd" "drop table rocpd_metadata"
  check_case "good $m: trace without rocpd_metadata" "$m" "$d/t.rpd" 0 ""
  # hostile identifiers in the trace (an ext table, a column and metadata
  # reference pairs that read like SQL), and dangling string/op/api ids:
  # the tools work (or fail in one line) and never execute trace content
  d=$(mkin hostsql); cp "$(valid_src "$m")" "$d/t.rpd"
  sqlite3 "$d/t.rpd" <"$W/hostile.sql"
  check_case "good $m: hostile identifiers and dangling ids" "$m" "$d/t.rpd" "0 1" ""
  check_eq "good $m: hostile identifiers executed nothing" 2 \
    "$(q "$d/t.rpd" "select count(*) from sqlite_master where name in ('rocpd_op', 'rocpd_kernelapi')")"
  # read-only file: writers refuse, readers work
  d=$(mkin ro); cp "$(valid_src "$m")" "$d/ro.rpd"; chmod 444 "$d/ro.rpd"
  if [ "$role" = w ]; then check_case "bad $m: read-only file" "$m" "$d/ro.rpd" 1 "read-only"
  else check_case "good $m: reads a read-only file" "$m" "$d/ro.rpd" 0 ""; fi
  # read-only directory: no journal, no temp file, no .gz rewrite possible
  d=$(mkin rodir); cp "$(valid_src "$m")" "$d/t.rpd"; gzip -c "$d/t.rpd" >"$d/t.rpd.gz"
  chmod 555 "$d"
  for f in t.rpd t.rpd.gz; do
    if [ "$role" = w ]; then check_case "bad $m: $f in a read-only directory" "$m" "$d/$f" 1 "read-only"
    else check_case "good $m: reads $f in a read-only directory" "$m" "$d/$f" 0 ""; fi
  done
  chmod 755 "$d"
  # a valid .gz: readers leave it byte-identical, writers rewrite it in
  # place as gzip; no temp file either way
  d=$(mkin gz); gzip -c "$(valid_src "$m")" >"$d/t.rpd.gz"; chmod 640 "$d/t.rpd.gz"
  check_case "good $m: .gz input" "$m" "$d/t.rpd.gz" 0 ""
  if [ "$role" = w ]; then
    gzip -t "$d/t.rpd.gz" 2>/dev/null || notok "good $m: .gz rewritten as gzip"
    check_eq "good $m: .gz rewritten with its mode" 640 "$(stat -c %a "$d/t.rpd.gz")"
  fi
  # a reader of .gz needs $TMPDIR: when it is missing, one line says so
  if [ "$role" = r ]; then
    TMPDIR=$W/no-such-tmp
    check_case "bad $m: .gz with a missing TMPDIR" "$m" "$d/t.rpd.gz" 1 "TMPDIR"
    TMPDIR=$W/tmp
  fi
  # hostile names work (and a leading dash after --)
  d=$(mkin hostile)
  for f in "a b; c 'q' \"d\" \$(x) \`y\` & z.rpd" "-lead.rpd"; do
    cp "$(valid_src "$m")" "$d/$f"
    case $f in -*) DD=--; check_case "good $m: name with a leading dash after --" "$m" "$d/$f" 0 ""; DD= ;;
               *) check_case "good $m: hostile file name" "$m" "$d/$f" 0 "" ;; esac
    rm -f "$d/$f"
  done
done

# the tools outside MODES (rpd-stackframe wants a schema 3 trace)
rpd-synth --seed 5 --api 3000 -o "$W/v3.rpd" >/dev/null 2>&1 || notok "rpd-synth v3 trace"
for m in table stackframe; do
  mode_info "$m"
  if [ -x "$RPD_BIN/$MB" ]; then untrusted_cases "$m" "$W/v3.rpd"; else skip "$m: $MB is not built"; fi
done

kill "$FIFOPID" 2>/dev/null; wait "$FIFOPID" 2>/dev/null; FIFOPID=

# rpd-import reads rocprofv3 output, not a trace: what is not one fails
# the same way, and no OUT appears
if [ -x "$RPD_BIN/rpd-import" ]; then
  d=$(mkin import); cp "$W/small.rpd" "$d/trace.rpd"; mkdir "$d/emptydir"
  for f in "$IN_missing" "$IN_empty" "$IN_text" "$IN_truncgz" "$IN_other" "$d/trace.rpd" "$d/emptydir"; do
    check_case "bad import: $(basename "$f")" import "$f" 1 ""
  done
fi
NAMECHK=
# -o OUT that cannot be written: one line, the input untouched, nothing
# created; an empty OUT is a usage error
for m in schema-upgrade schema-views callstack autograd strings-dedupe metadata-set graph \
         subclass deserialize trim; do
  case " $PRESENT " in *" $m "*) ;; *) continue ;; esac
  d=$(mkin outs); cp "$(valid_src "$m")" "$d/t.rpd"
  mkdir "$d/adir" "$d/rodir"; chmod 555 "$d/rodir"
  : >"$d/ro.rpd"; chmod 444 "$d/ro.rpd"
  check_case "bad $m: -o into a missing directory" "$m" "$d/t.rpd" 1 "does not exist" -o "$d/nodir/x.rpd"
  check_case "bad $m: -o into a read-only directory" "$m" "$d/t.rpd" 1 "read-only" -o "$d/rodir/x.rpd"
  [ -z "$(ls -A "$d/rodir")" ] || notok "bad $m: -o into a read-only directory wrote there"
  check_case "bad $m: -o is a directory" "$m" "$d/t.rpd" 1 "directory" -o "$d/adir"
  check_case "bad $m: -o is a read-only file" "$m" "$d/t.rpd" 1 "read-only" -o "$d/ro.rpd"
  check_case "bad $m: -o ''" "$m" "$d/t.rpd" 2 "" -o ""
  chmod 755 "$d/rodir"
done

# ------------------------------------------------------------ 3. named outputs
# A tool that writes a file by name must not destroy what is there when it
# is not an output it may replace: the input trace itself, a device
# (/dev/null: root would replace it with a regular file), or the target of a
# symlink (written through, like cp and common/'s -o).
echo "# $(date +%T) named outputs"
# out_run KIND IN OUT: the tools that write a named output ($EXEC as in
# run_mode)
out_run() {
  case $1 in
  rpd2tracing)      $EXEC rpd2tracing -q "$2" "$3" ;;
  autograd-summary) $EXEC rpd-autograd-summary "$2" "$3" ;;
  raptor-optrace)   $EXEC raptor "$2" -o --op-trace-file "$3" ;;
  augment-o)        $EXEC rpd-callstack "$2" -o "$3" ;;
  schema-create)    $EXEC rpd-schema --create "$3" --force ;;
  synth)            $EXEC rpd-synth --api 100 -o "$3" --force ;;
  import)           $EXEC rpd-import "$2" "$3" --force ;;
  esac
}
out_bin() {
  case $1 in augment-o) echo rpd-callstack ;; schema-create) echo rpd-schema ;;
  synth) echo rpd-synth ;; import) echo rpd-import ;; raptor-*) echo raptor ;;
  autograd-summary) echo rpd-autograd-summary ;; *) echo "$1" ;; esac
}
out_src() {
  case $1 in autograd-summary) echo "$W/ag.rpd" ;; import) echo "$IN_rocprof" ;; *) echo "$W/small.rpd" ;; esac
}
d=$(mkin named)
for k in rpd2tracing autograd-summary raptor-optrace augment-o schema-create synth import; do
  [ -x "$RPD_BIN/$(out_bin "$k")" ] || { skip "output $k: not built"; continue; }
  # rpd-import needs a real rocprofv3 database (the stand-in is not importable)
  if [ "$k" = import ] && ! need_shared "$TRACES/rocprofv3_28_results.db"; then continue; fi
  src=$(out_src "$k")
  # the output is the input
  case $k in rpd2tracing|autograd-summary|raptor-optrace|import)
    cp "$src" "$d/in.rpd"
    out_run "$k" "$d/in.rpd" "$d/in.rpd" >"$W/so" 2>"$W/se"; rc=$?
    why=
    [ $rc -eq 1 ] || [ $rc -eq 2 ] || why="$why exit $rc (want 1 or 2);"
    cmp -s "$src" "$d/in.rpd" || why="$why THE INPUT WAS OVERWRITTEN;"
    if [ -z "$why" ]; then ok "output $k: refuses to write over its input"
    else notok "output $k: refuses to write over its input" "$why $(head -c 150 "$W/se" | tr '\n' '|')"; fi
    rm -f "$d/in.rpd" ;;
  esac
  # a character device (root only)
  if mknod "$d/null" c 1 3 2>/dev/null; then
    out_run "$k" "$src" "$d/null" >"$W/so" 2>"$W/se" </dev/null; rc=$?
    why=
    [ -c "$d/null" ] || why="$why the device was replaced by a $(stat -c %F "$d/null");"
    [ $rc -eq 0 ] || [ $rc -eq 1 ] || why="$why exit $rc;"
    [ $rc -ne 1 ] || [ "$(wc -l <"$W/se")" -eq 1 ] || why="$why $(wc -l <"$W/se") stderr lines;"
    if [ -z "$why" ]; then ok "output $k: a device stays a device"
    else notok "output $k: a device stays a device" "$why $(head -c 150 "$W/se" | tr '\n' '|')"; fi
  else
    skip "output $k: a device stays a device" "mknod needs root"
  fi
  rm -f "$d/null"
  # a symlink: its target is never damaged; an augmenter's -o writes
  # through it (docs/common.md); the others are only reported (# line)
  echo old >"$d/target"; ln -s target "$d/link"
  out_run "$k" "$src" "$d/link" >"$W/so" 2>"$W/se" </dev/null; rc=$?
  if [ $rc -ne 0 ]; then notok "output $k: through a symlink" "exit $rc: $(head -c 150 "$W/se" | tr '\n' '|')"
  elif [ -L "$d/link" ] && [ "$(cat "$d/target")" != old ]; then ok "output $k: writes through a symlink"
  elif [ "$k" = augment-o ]; then notok "output $k: writes through a symlink" "link replaced or target not written"
  elif [ "$(cat "$d/target")" = old ]; then
    ok "output $k: a symlink's target is left intact"
    echo "# output $k: replaces a symlink OUT by a new file (common/'s -o writes through it)"
  else notok "output $k: through a symlink" "the target was changed but the link is gone"; fi
  rm -f "$d/link" "$d/target"
  # a symlink another user planted in a sticky world-writable directory
  # (/tmp) is not followed (the kernel's protected_symlinks rule), and a
  # replaced 0600 output stays 0600 (root only: the link needs another owner)
  if [ "$(id -u)" = 0 ]; then
    mkdir -m 1777 "$d/pub"; echo secret >"$d/victim"; chmod 600 "$d/victim"
    ln -s ../victim "$d/pub/out"; chown -h 4321:4321 "$d/pub/out"
    out_run "$k" "$src" "$d/pub/out" >"$W/so" 2>"$W/se" </dev/null; rc=$?
    if [ $rc -eq 1 ] && [ "$(cat "$d/victim")" = secret ] && [ "$(wc -l <"$W/se")" -eq 1 ] &&
       grep -q "symbolic link of another user" "$W/se"; then ok "output $k: a planted symlink in a sticky directory is refused"
    else notok "output $k: a planted symlink in a sticky directory is refused" "exit $rc: $(head -c 150 "$W/se")"; fi
    rm -rf "$d/pub"
    out_run "$k" "$src" "$d/victim" >"$W/so" 2>"$W/se" </dev/null; rc=$?
    mode=$(stat -c %a "$d/victim")
    case $k in
    rpd2tracing|autograd-summary|raptor-optrace)
      check_eq "output $k: a replaced 0600 output stays 0600" "0|600" "$rc|$mode" ;;
    *) check_eq "output $k: a replaced (or refused) 0600 output stays 0600" "600" "$mode" ;;
    esac
    rm -f "$d/victim"
  fi
  # the longest legal name (255 bytes): temp names must fit too
  ln255=$(printf '%0251d' 0).out
  out_run "$k" "$src" "$d/$ln255" >"$W/so" 2>"$W/se" </dev/null; rc=$?
  if [ $rc -eq 0 ] && [ -s "$d/$ln255" ]; then ok "output $k: a 255-byte file name"
  else notok "output $k: a 255-byte file name" "exit $rc: $(sed 's/0000*/0.../' "$W/se" | head -c 160)"; fi
  rm -f "$d/$ln255"
  [ -z "$(ls -A "$d")" ] || { notok "output $k: left files" "$(ls -A "$d" | tr '\n' ' ')"; rm -rf "${d:?}"/*; }
  rm -rf "$W/tmp"/*
done
# raptor -x names its workbook after the trace: a trace called t.xlsx
if [ -x "$RPD_BIN/raptor" ]; then
  cp "$W/small.rpd" "$d/t.xlsx"
  raptor "$d/t.xlsx" -x >"$W/so" 2>"$W/se"
  same_file "output raptor -x: a trace named t.xlsx is not overwritten" "$W/small.rpd" "$d/t.xlsx"
  rm -f "$d/t.xlsx"
fi

echo "# $(date +%T) locked"
# locked: another process holds an exclusive lock; every tool gives up
# after RPD_BUSY_TIMEOUT_MS with one line and leaves the file alone
d=$(mkin locked); cp "$W/small.rpd" "$d/l.rpd"
mkfifo "$W/lockfifo"
timeout 60 sqlite3 "$d/l.rpd" <"$W/lockfifo" >"$W/lock.out" 2>&1 &
LOCKPID=$!
exec 9>"$W/lockfifo"
echo "BEGIN EXCLUSIVE; SELECT 'locked';" >&9
i=0
while [ $i -lt 100 ] && ! grep -q locked "$W/lock.out" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
if sqlite3 -cmd '.timeout 0' "$d/l.rpd" "select count(*) from rocpd_api" >/dev/null 2>&1; then
  notok "locked: could not take the lock (sqlite3 holder)"
else
  NAMECHK=1
  for m in $PRESENT; do
    check_case "bad $m: locked database" "$m" "$d/l.rpd" 1 "locked"
  done
  NAMECHK=
fi
exec 9>&-
wait "$LOCKPID" 2>/dev/null; LOCKPID=
rm -f "$W/lockfifo"

# ------------------------------------------------------------ 4. kill -9
echo "# $(date +%T) kill -9"
# Sizes: 200,000 api rows take the big augmenters 0.5-1.5 s on 2 cores
# (more under SANITIZE=1); the kills are timed from a full run, so they land
# in the same phases on any machine.  The .gz trace (50,000 rows) takes
# about half a second, decompression and recompression included.
KILL_MODES="callstack autograd graph strings-dedupe trim schema-upgrade raptor-save deserialize
subclass"
rpd-synth --seed 9 --api 200000 --schema 2 -o "$W/big.rpd" >/dev/null 2>&1 ||
  notok "rpd-synth big trace"
rpd-synth --seed 9 --api 50000 --schema 2 -o "$W/mid.rpd" >/dev/null 2>&1 ||
  notok "rpd-synth mid trace"
gzip -1 -c "$W/mid.rpd" >"$W/mid.rpd.gz"
BIGDUMP=

# kill_at MODE FILE DELAY: start MODE on FILE, kill -9 after DELAY seconds.
# Sets KST to "killed" or "finished N" (its exit status).
kill_at() {
  (EXEC='exec'; run_mode "$1" "$2") >/dev/null 2>"$W/kill.err" </dev/null &
  _p=$!
  sleep "$3"
  { kill -9 "$_p"; wait "$_p"; } 2>/dev/null; _s=$?
  if [ $_s -eq 137 ]; then KST=killed; else KST="finished $_s"; fi
}

# kill_on_write MODE FILE: start MODE on FILE and kill -9 it as soon as
# FILE itself changes (its mtime): the commit (or a cache spill) is writing
# database pages while the journal is hot.  Sets KST like kill_at.
kill_on_write() {
  _m0=$(stat -c %y "$2")
  (EXEC='exec'; run_mode "$1" "$2") >/dev/null 2>"$W/kill.err" </dev/null &
  _p=$!
  while kill -0 "$_p" 2>/dev/null; do
    [ "$(stat -c %y "$2")" = "$_m0" ] || break
    sleep 0.003
  done
  { kill -9 "$_p"; wait "$_p"; } 2>/dev/null; _s=$?
  if [ $_s -eq 137 ]; then KST=killed; else KST="finished $_s"; fi
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }
ms_to_s() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

for m in $KILL_MODES; do
  case " $PRESENT " in *" $m "*) ;; *) skip "kill $m: not built"; continue ;; esac
  # a full run first: it must work, and it times the kills below
  rm -rf "$W/k"; mkdir "$W/k"; cp "$W/big.rpd" "$W/k/k.rpd"
  t0=$(now_ms)
  run_mode "$m" "$W/k/k.rpd" >/dev/null 2>"$W/kill.err" </dev/null; rc=$?
  T=$(($(now_ms) - t0))
  ic=$(sqlite3 "$W/k/k.rpd" "PRAGMA integrity_check" 2>&1 | head -3 | tr '\n' ' ')
  mv "$W/k/k.rpd" "$W/done.rpd"; DONEDUMP=
  [ "$m" = autograd ] && cp "$W/done.rpd" "$W/bigag.rpd"
  if [ $rc -eq 0 ] && [ "$ic" = "ok " ]; then ok "kill $m: full run on the kill trace (${T} ms)"
  else notok "kill $m: full run on the kill trace" "exit $rc, integrity_check $ic, $(head -c 200 "$W/kill.err")"; fi
  hits=0
  for pct in 15 50 85 write; do
    rm -rf "$W/k"; mkdir "$W/k"; cp "$W/big.rpd" "$W/k/k.rpd"
    if [ $pct = write ]; then
      t='write'; kill_on_write "$m" "$W/k/k.rpd"; n="kill $m as it writes the file"
    else
      t=$(ms_to_s $((T * pct / 100))); kill_at "$m" "$W/k/k.rpd" "$t"; n="kill $m at ${pct}% of a run"
    fi
    left=$(ls -A "$W/k" | grep -v -x -e k.rpd -e k.rpd-journal -e '\.k\.rpd\.rpdtools-.*' | tr '\n' ' ')
    vleft=$(ls -A "$W/k" | grep -x '\.k\.rpd\.rpdtools-.*' | tr '\n' ' ')
    [ -n "$vleft" ] && echo "# kill -9 of $m left the VACUUM INTO temp of rpd_vacuum: $vleft"
    why=
    # our own readers open the file first, as a user would next: they must
    # see the trace as it was (a read-only open cannot roll back a hot
    # journal itself)
    if [ -x "$RPD_BIN/rpd-schema" ]; then
      rpd-schema --info "$W/k/k.rpd" >/dev/null 2>"$W/se" ||
        why="$why rpd-schema --info after the kill: $(head -c 150 "$W/se");"
      # and that open reclaims the temp the killed writer left (its flock
      # died with it): nothing of ours stays behind
      aleft=$(ls -A "$W/k" | grep -x '\.k\.rpd\.rpdtools-.*' | tr '\n' ' ')
      [ -z "$aleft" ] || why="$why left after the next open: $aleft;"
    fi
    ic=$(sqlite3 "$W/k/k.rpd" "PRAGMA integrity_check" 2>&1 | head -3 | tr '\n' ' ')
    [ "$ic" = "ok " ] || why="$why integrity_check: $ic;"
    [ -n "$left" ] && why="$why left: $left;"
    [ -z "$(ls -A "$W/tmp")" ] || why="$why left in TMPDIR: $(ls -A "$W/tmp" | tr '\n' ' ');"
    rm -rf "$W/tmp"/*
    if [ "$KST" = killed ]; then
      hits=$((hits + 1))
      if ! cmp -s "$W/big.rpd" "$W/k/k.rpd"; then
        # not byte-identical: compare the logical content (the dump as a
        # set of lines: VACUUM may renumber rowids) with the input, then
        # with the finished result (killed after its commit, e.g. in a
        # VACUUM that follows it)
        [ -n "$BIGDUMP" ] || BIGDUMP=$(sqlite3 "$W/big.rpd" .dump | sort | sha1sum)
        kd=$(sqlite3 "$W/k/k.rpd" .dump | sort | sha1sum)
        if [ "$kd" != "$BIGDUMP" ]; then
          [ -n "$DONEDUMP" ] || DONEDUMP=$(sqlite3 "$W/done.rpd" .dump | sort | sha1sum)
          if [ "$kd" = "$DONEDUMP" ]; then
            echo "# kill -9 of $m after ${t}s: killed after its commit; the file holds the finished result"
          else
            why="$why content is neither the input nor the finished result;"
          fi
        fi
      fi
    elif [ "$KST" != "finished 0" ]; then
      why="$why failed by itself: $(head -c 200 "$W/kill.err");"
    fi
    if [ -z "$why" ]; then ok "$n"; else notok "$n" "(${t}s, $KST)$why"; fi
  done
  [ $hits -gt 0 ] || notok "kill $m: never caught running (trace too small?)"

  # in-place .gz: the .gz stays byte-identical; the work copy next to it is
  # what kill -9 cannot remove (named .k.rpd.gz.rpdtools-XXXXXX by
  # common/trace/open.c); the next run removes it
  GZDONE=
  for t in 0.1 0.3; do
    rm -rf "$W/k"; mkdir "$W/k"; cp "$W/mid.rpd.gz" "$W/k/k.rpd.gz"
    kill_at "$m" "$W/k/k.rpd.gz" "$t"
    n="kill $m on .gz after ${t}s"
    left=$(ls -A "$W/k" | grep -v -x k.rpd.gz | tr '\n' ' ')
    why=
    if [ "$KST" = killed ]; then
      if ! cmp -s "$W/mid.rpd.gz" "$W/k/k.rpd.gz"; then
        # killed after the rename (while exiting)? then it is the result
        # of a full run
        if [ -z "$GZDONE" ]; then
          mkdir -p "$W/ref"; cp "$W/mid.rpd.gz" "$W/ref/r.rpd.gz"
          run_mode "$m" "$W/ref/r.rpd.gz" >/dev/null 2>&1
          GZDONE=$(gzip -dc "$W/ref/r.rpd.gz" >"$W/ref/r.rpd" && sqlite3 "$W/ref/r.rpd" .dump | sort | sha1sum)
          rm -rf "$W/ref"
        fi
        if gzip -dc "$W/k/k.rpd.gz" >"$W/kz.rpd" 2>/dev/null &&
           [ "$(sqlite3 "$W/kz.rpd" .dump | sort | sha1sum)" = "$GZDONE" ]; then
          echo "# kill -9 of $m on .gz after ${t}s: killed after its rename; the .gz holds the finished result"
        else
          why="$why .gz changed and is not the finished result;"
        fi
        rm -f "$W/kz.rpd"
      fi
      for f in $left; do
        case $f in rpdtools-*|.*.rpdtools-*) ;; *) why="$why unrecognisable leftover $f;" ;; esac
      done
      [ -n "$left" ] && echo "# kill -9 of $m on .gz left in its directory: $left"
      # the next run reclaims the killed run's temp (nobody holds its lock)
      # and leaves nothing behind itself
      run_mode "$m" "$W/k/k.rpd.gz" >/dev/null 2>"$W/kill.err" </dev/null; rc=$?
      [ $rc -eq 0 ] || why="$why next run: exit $rc $(head -c 150 "$W/kill.err");"
      aleft=$(ls -A "$W/k" | grep -v -x k.rpd.gz | tr '\n' ' ')
      [ -z "$aleft" ] || why="$why left after the next run: $aleft;"
    else
      [ "$KST" = "finished 0" ] || why="$why failed by itself: $(head -c 200 "$W/kill.err");"
      gzip -t "$W/k/k.rpd.gz" 2>/dev/null || why="$why result is not gzip;"
      [ -z "$left" ] || why="$why left: $left;"
    fi
    [ -z "$(ls -A "$W/tmp")" ] || why="$why left in TMPDIR: $(ls -A "$W/tmp" | tr '\n' ' ');"
    rm -rf "$W/tmp"/*
    if [ -z "$why" ]; then ok "$n"; else notok "$n" "$why"; fi
  done
done

# Named outputs killed: a previous OUT stays as it was (or becomes the
# complete new one); what is left next to it must be recognisable
# (.OUT.rpdtools-*, rpdtools-*), and is reported; the next run removes it.
for k in rpd2tracing autograd-summary raptor-optrace; do
  [ -x "$RPD_BIN/$(out_bin "$k")" ] || continue
  src=$W/big.rpd; [ "$k" = autograd-summary ] && src=$W/bigag.rpd
  [ -f "$src" ] || { skip "kill output $k: no input trace"; continue; }
  rm -rf "$W/k"; mkdir "$W/k"
  t0=$(now_ms); out_run "$k" "$src" "$W/k/OUT" >/dev/null 2>&1; rc=$?; T=$(($(now_ms) - t0))
  mv "$W/k/OUT" "$W/full.out" 2>/dev/null
  [ $rc -eq 0 ] || { notok "kill output $k: full run" "exit $rc"; continue; }
  for pct in 15 50 85; do
    t=$(ms_to_s $((T * pct / 100)))
    rm -rf "$W/k"; mkdir "$W/k"; echo previous >"$W/k/OUT"
    (EXEC='exec'; out_run "$k" "$src" "$W/k/OUT") >/dev/null 2>&1 </dev/null &
    kp=$!; sleep "$t"
    { kill -9 "$kp"; wait "$kp"; } 2>/dev/null
    why=; left=$(ls -A "$W/k" | grep -v -x OUT | tr '\n' ' ')
    if [ "$(cat "$W/k/OUT" 2>/dev/null)" != previous ] && ! cmp -s "$W/full.out" "$W/k/OUT"; then
      why="$why OUT is neither the previous file nor the complete output ($(head -c 30 "$W/k/OUT" | tr '\n' ' ')...);"
    fi
    for f in $left; do
      case $f in rpdtools-*|.OUT.rpdtools-*) ;; *) why="$why unrecognisable leftover $f;" ;; esac
    done
    [ -n "$left" ] && echo "# kill -9 of $k left next to OUT: $left"
    # the next run reclaims what the killed one left and writes OUT whole
    out_run "$k" "$src" "$W/k/OUT" >/dev/null 2>"$W/kill.err" </dev/null; rc=$?
    [ $rc -eq 0 ] || why="$why next run: exit $rc $(head -c 150 "$W/kill.err");"
    cmp -s "$W/full.out" "$W/k/OUT" || why="$why next run: OUT differs from a full run;"
    aleft=$(ls -A "$W/k" | grep -v -x OUT | tr '\n' ' ')
    [ -z "$aleft" ] || why="$why left after the next run: $aleft;"
    if [ -z "$why" ]; then ok "kill output $k at ${pct}% of a run"
    else notok "kill output $k at ${pct}% of a run" "(${t}s)$why"; fi
  done
  rm -rf "$W/tmp"/*
done
rm -rf "$W/k" "$W/big.rpd" "$W/bigag.rpd" "$W/mid.rpd" "$W/mid.rpd.gz" "$W/done.rpd" "$W/full.out"

# ------------------------------------------------------------ 5. idempotence
echo "# $(date +%T) idempotence"
# "table=rows table=rows ..." for every table of FILE
counts() {
  sqlite3 -batch -noheader "$1" "select 'select ''' || name || '='' || count(*) from \"' ||
    replace(name, '\"', '\"\"') || '\";' from sqlite_master where type = 'table' order by name" |
    sqlite3 -batch -noheader "$1" | tr '\n' ' '
}

# MODE FORCE-ARGS ("" when the tool has no --force)
IDEM="callstack:--force autograd:--force graph:--force subclass:--force
deserialize:--force schema-upgrade: schema-views:--force strings-dedupe:
metadata-set: raptor-save:"
for e in $IDEM; do
  m=${e%%:*}; force=${e#*:}
  case " $PRESENT " in *" $m "*) ;; *) skip "idempotence $m: not built"; continue ;; esac
  f="$W/in/idem.rpd"; rm -f "$f"*; cp "$W/small.rpd" "$f"
  run_mode "$m" "$f" >"$W/so" 2>"$W/se"; rc=$?
  check_eq "idempotence $m: first run exits 0" 0 "$rc"
  c1=$(counts "$f"); cp "$f" "$W/first.rpd"
  run_mode "$m" "$f" >"$W/so" 2>"$W/se"; rc=$?
  check_eq "idempotence $m: second run exits 0" 0 "$rc"
  case $m in
  raptor-save|metadata-set) # results are replaced on each run
    check_eq "idempotence $m: second run, same row counts" "$c1" "$(counts "$f")" ;;
  *)
    # an augmenter says it was done already; rpd-strings that it removed nothing
    if cat "$W/so" "$W/se" | grep -qi -e already -e 'nothing to do' -e 'removed 0 rows'; then
      ok "idempotence $m: second run says so"
    else notok "idempotence $m: second run says so" "$(head -c 200 "$W/se")"; fi
    same_file "idempotence $m: second run leaves the file byte-identical" "$W/first.rpd" "$f" ;;
  esac
  if [ -n "$force" ]; then
    run_mode "$m" "$f" $force >"$W/so" 2>"$W/se"; rc=$?
    check_eq "idempotence $m: $force exits 0" 0 "$rc"
    check_eq "idempotence $m: $force gives the same row counts" "$c1" "$(counts "$f")"
  fi
done
rm -f "$W/first.rpd" "$W/in/idem.rpd"

# rpd-trim is a transform, not an augmenter: trimming its own output to the
# output's full range [first start, last end] keeps every row
if case " $PRESENT " in *" trim "*) true ;; *) false ;; esac; then
  f="$W/in/trim.rpd"; cp "$W/small.rpd" "$f"
  rpd-trim "$f" --start 10% --end 90% >/dev/null 2>"$W/se"; rc=$?
  check_eq "idempotence trim: first run exits 0" 0 "$rc"
  c1=$(counts "$f")
  # the full range in the common time values (docs/time.md)
  rpd-trim "$f" --start 0 --end 100% >/dev/null 2>"$W/se"; rc=$?
  check_eq "idempotence trim: trim to its own range exits 0" 0 "$rc"
  check_eq "idempotence trim: trim to its own range keeps every row" "$c1" "$(counts "$f")"
  rm -f "$f"
fi

# ------------------------------------------------------------ 6. disk full
# Writers on a nearly full file system (a small tmpfs, $TMPDIR on it too):
# they either fit, or fail with one line and the trace as before, including
# a failure that comes after the commit (a VACUUM that follows it).  Needs
# root with mount rights; skipped elsewhere.
echo "# $(date +%T) disk full"
MNT=$W/full; mkdir -p "$MNT"
if mount -t tmpfs -o size=8m tmpfs "$MNT" 2>/dev/null; then
  MOUNTED=$MNT
  rpd-synth --seed 4 --api 6000 --schema 2 -o "$W/d.rpd" >/dev/null 2>&1 || notok "rpd-synth disk-full trace"
  kb=$(( $(wc -c <"$W/d.rpd") / 1024 ))
  # full_case MODE EXTRA-KB
  full_case() {
    rm -rf "${MNT:?}"/*
    if mount -o remount,size=$((kb + $2))k "$MNT" 2>/dev/null; then
      cp "$W/d.rpd" "$MNT/t.rpd"; mkdir "$MNT/tmp"
      TMPDIR=$MNT/tmp
      check_case "disk full $1: ${2} KB free" "$1" "$MNT/t.rpd" "0 1" ""
      TMPDIR=$W/tmp
    else
      notok "disk full $1: remount to $((kb + $2)) KB"
    fi
  }
  for m in schema-upgrade callstack autograd strings-dedupe metadata-set graph subclass \
           deserialize raptor-save; do
    case " $PRESENT " in *" $m "*) full_case "$m" 64 ;; esac
  done
  # the two that VACUUM after their commit, over a range of free space:
  # one line each, naming the sizes that failed
  for m in trim strings-vacuum; do
    case " $PRESENT " in *" ${m%-vacuum} "*) ;; *) continue ;; esac
    x=64; bad=
    while [ $x -le 1024 ]; do
      r=$(full_case "$m" $x)
      case $r in "not ok"*) bad="$bad ${x}"; why=${r#*free: } ;; esac
      x=$((x + 64))
    done
    if [ -z "$bad" ]; then ok "disk full $m: 64..1024 KB free"
    else notok "disk full $m: 64..1024 KB free" "fails at$bad KB free; last:$why"; fi
  done
  rm -rf "${MNT:?}"/*; umount "$MNT"; MOUNTED=
  rm -f "$W/d.rpd"
else
  skip "disk full" "cannot mount a tmpfs (needs root)"
fi
rmdir "$MNT" 2>/dev/null

# ------------------------------------------------------------ 7. adversarial
# The classes of issue 12 (docs/testing.md "Adversarial classes"): writers
# on one .gz, garbage values in the trace, stdout on a full device, kill -9
# of tools that create files through a temp, a concurrent rpd-trim, WAL on a
# read-only mount, one line per error.
echo "# $(date +%T) adversarial"
has() { case " $PRESENT " in *" $1 "*) true ;; *) false ;; esac; }
metatag() { q "$1" "select count(*) from rocpd_metadata where tag = '$2'"; }
gzq() { gzip -dc "$1" >"$W/gzq.rpd" && q "$W/gzq.rpd" "$2"; rm -f "$W/gzq.rpd"; }

# 7a. two writers on one .gz: the second waits for the first, both results
# are kept; with a short busy timeout the second fails in one line
if has callstack && has graph; then
  d=$(mkin gzpair); gzip -c "$W/small.rpd" >"$d/t.rpd.gz"
  RPD_BUSY_TIMEOUT_MS=60000 rpd-callstack "$d/t.rpd.gz" >/dev/null 2>"$W/se1" & p1=$!
  RPD_BUSY_TIMEOUT_MS=60000 rpd-graph "$d/t.rpd.gz" >/dev/null 2>"$W/se2" & p2=$!
  wait $p1; r1=$?; wait $p2; r2=$?
  check_eq "adversarial .gz: two concurrent writers exit 0" "0 0" "$r1 $r2"
  check_eq "adversarial .gz: both results kept" "1 1" \
    "$(gzq "$d/t.rpd.gz" "select (select count(*) from rocpd_metadata where tag = 'Callstack::Generated'), (select count(*) from rocpd_metadata where tag = 'Graph::Generated')" | tr '|' ' ')"
  check_eq "adversarial .gz: no temp left" "t.rpd.gz" "$(ls -A "$d")"
  if command -v flock >/dev/null 2>&1; then
    gzip -c "$W/small.rpd" >"$d/t.rpd.gz"; cp "$d/t.rpd.gz" "$W/pristine.gz"
    flock -x "$d/t.rpd.gz" sleep 3 & fp=$!
    sleep 0.3
    check_rc "adversarial .gz: a writer while another holds the .gz exits 1" 1 rpd-callstack "$d/t.rpd.gz"
    check_one_line "adversarial .gz: one line"
    grep -q "locked" "$TESTDIR/stderr" && ok "adversarial .gz: says it is locked" ||
      notok "adversarial .gz: says it is locked" "$(cat "$TESTDIR/stderr")"
    same_file "adversarial .gz: locked .gz unchanged" "$W/pristine.gz" "$d/t.rpd.gz"
    kill $fp 2>/dev/null; wait $fp 2>/dev/null
  else
    skip "adversarial .gz: held lock" "no flock(1)"
  fi
fi

# 7b. extreme integers and wrong column types in start/end/gpuId: the
# augmenters, rpd-trim, raptor, rpd2tracing and rpd-autograd-summary refuse
# in one line naming table.column and the
# number of rows; every other tool exits 0 or 1 with one line (no crash, no
# sanitizer abort); the input is never changed
# garbage NAME SQL: a copy of small.rpd with SQL applied, in $W/in/NAME/t.rpd
garbage() {
  _d=$(mkin "$1"); cp "$W/small.rpd" "$_d/t.rpd"
  # a rocpd_op / rocpd_api without NOT NULL constraints, so NULL fits too
  sqlite3 "$_d/t.rpd" "PRAGMA legacy_alter_table=ON;
    CREATE TABLE op_copy AS SELECT * FROM rocpd_op; DROP TABLE rocpd_op;
    ALTER TABLE op_copy RENAME TO rocpd_op;
    CREATE TABLE api_copy AS SELECT * FROM rocpd_api; DROP TABLE rocpd_api;
    ALTER TABLE api_copy RENAME TO rocpd_api; $2" || notok "garbage $1: sqlite3"
  echo "$_d/t.rpd"
}
GARBAGE="api-start-min:rocpd_api.start:UPDATE rocpd_api SET start = -9223372036854775808 WHERE id % 50 = 1
api-end-max:rocpd_api.end:UPDATE rocpd_api SET end = 9223372036854775807 WHERE id % 50 = 2
op-start-max:rocpd_op.start:UPDATE rocpd_op SET start = 9223372036854775807 WHERE id % 40 = 3
op-gpu-max:rocpd_op.gpuId:UPDATE rocpd_op SET gpuId = 9223372036854775807 WHERE id % 40 = 4
op-gpu-min:rocpd_op.gpuId:UPDATE rocpd_op SET gpuId = -9223372036854775808 WHERE id % 40 = 4
api-start-text:rocpd_api.start:UPDATE rocpd_api SET start = 'soon' WHERE id % 50 = 5
api-end-real:rocpd_api.end:UPDATE rocpd_api SET end = end + 0.5 WHERE id % 50 = 6
op-start-blob:rocpd_op.start:UPDATE rocpd_op SET start = x'0102' WHERE id % 40 = 7
op-end-null:rocpd_op.end:UPDATE rocpd_op SET end = NULL WHERE id % 40 = 8
op-end-before-start:rocpd_op.end:UPDATE rocpd_op SET end = start - 1000 WHERE id % 40 = 9"
MINE=" callstack autograd graph subclass trim analyze raptor raptor-save rpd2tracing autograd-summary "
echo "$GARBAGE" | while IFS=: read -r g col sql; do
  f=$(garbage "$g" "$sql")
  nbad=$(q "$f" "select count(*) from ${col%%.*} where not (typeof(start) = 'integer' and typeof(end) = 'integer' and start >= 0 and end >= start and end < 4611686018427387904 $(case $col in *gpuId) echo "and typeof(gpuId) = 'integer' and gpuId >= 0 and gpuId < 2147483648" ;; esac))")
  for m in $PRESENT; do
    case $MINE in
      *" $m "*) check_case "garbage $m: $g refused" "$m" "$f" 1 "$col: $nbad rows" ;;
      *)        check_case "garbage $m: $g, no crash" "$m" "$f" "0 1" "" ;;
    esac
  done
  if has schema-info; then
    rpd-schema --info "$f" >"$W/so" 2>/dev/null
    grep -q "^bad_rows:${col%%.*} .*$col: $nbad rows" "$W/so" &&
      ok "garbage schema-info: $g reported as bad_rows" ||
      notok "garbage schema-info: $g reported as bad_rows" "$(grep -E 'bad_rows|span' "$W/so" | tr '\n' '|')"
    span=$(sed -n 's/^span_ns  *//p' "$W/so")
    case $span in -*|'') notok "garbage schema-info: $g span is sane" "span_ns [$span]" ;;
                  *) ok "garbage schema-info: $g span is sane" ;; esac
  fi
done

# 7c. stdout on a full device, for every writer: the rule (docs/common.md
# "Standard output"): after a commit, exit 1 with one line saying the
# results were committed; a writer that reports before changing anything
# (rpd-trim) fails with the file as it was
if [ -c /dev/full ]; then
  for m in callstack autograd graph subclass strings-dedupe schema-upgrade schema-views trim; do
    has "$m" || continue
    d=$(mkin full-$m); cp "$W/small.rpd" "$d/t.rpd"; cp "$d/t.rpd" "$W/pristine"
    # something to change: a broken view, a duplicate string
    [ $m = schema-views ] && sqlite3 "$d/t.rpd" "drop view api"
    [ $m = strings-dedupe ] &&
      sqlite3 "$d/t.rpd" "insert into rocpd_string(string) select string from rocpd_string where string != '' limit 1"
    cp "$d/t.rpd" "$W/pristine"
    run_mode "$m" "$d/t.rpd" >/dev/full 2>"$W/se"; rc=$?
    why=
    [ $rc -eq 1 ] || why="$why exit $rc;"
    [ "$(wc -l <"$W/se")" -eq 1 ] || why="$why $(wc -l <"$W/se") stderr lines;"
    if [ $m = trim ]; then
      cmp -s "$W/pristine" "$d/t.rpd" || why="$why file changed;"
    else
      grep -q "results committed, but the summary could not be written" "$W/se" || why="$why no 'committed' message;"
      cmp -s "$W/pristine" "$d/t.rpd" && why="$why nothing committed;"
    fi
    [ "$(ls -A "$d")" = t.rpd ] || why="$why left $(ls -A "$d" | tr '\n' ' ');"
    if [ -z "$why" ]; then ok "stdout full $m"; else notok "stdout full $m" "$why $(head -c 200 "$W/se")"; fi
  done
  d=$(mkin full-meta); cp "$W/small.rpd" "$d/t.rpd"
  check_rc "stdout full metadata-set: silent, exit 0" 0 sh -c "rpd-metadata --set a b '$d/t.rpd' >/dev/full"
  check_rc "stdout full schema-create" 1 sh -c "rpd-schema --create '$d/new.rpd' >/dev/full"
  grep -q "results committed" "$TESTDIR/stderr" && [ -s "$d/new.rpd" ] &&
    ok "stdout full schema-create: created, and says so" ||
    notok "stdout full schema-create: created, and says so" "$(cat "$TESTDIR/stderr")"
fi

# 7d. kill -9 of tools that create a file through a temp (rpd-schema
# --create, rpd-import): whatever the moment, the next run leaves nothing
# but its output (no ".NAME.rpdtools-X" nor "..NAME.rpdtools-X.rpdtools-Y")
d=$(mkin kills)
imp_src=$TRACES/rocprofv3_908_results.json.gz
[ -f "$imp_src" ] || imp_src=
for k in 1 2 3 4 5 6 7 8 9 10 11 12; do
  rpd-schema --create "$d/c.rpd" --force >/dev/null 2>&1 & p=$!
  sleep "0.0$k"; kill -9 $p 2>/dev/null; wait $p 2>/dev/null
  if [ -n "$imp_src" ] && [ -x "$RPD_BIN/rpd-import" ]; then
    rpd-import "$imp_src" "$d/i.rpd" --force -q >/dev/null 2>&1 & p=$!
    sleep "0.$k"; kill -9 $p 2>/dev/null; wait $p 2>/dev/null
  fi
done
# leftovers of older versions (a temp of a temp), held by nobody
: >"$d/..c.rpd.rpdtools-AbC123.rpdtools-XyZ789"
: >"$d/..c.rpd.rpdtools-AbC123.rpdtools-XyZ789-journal"
rpd-schema --create "$d/c.rpd" --force >/dev/null 2>&1 || notok "kills: rpd-schema --create after kills"
want=c.rpd
if [ -n "$imp_src" ] && [ -x "$RPD_BIN/rpd-import" ]; then
  rpd-import "$imp_src" "$d/i.rpd" --force -q >/dev/null 2>&1 || notok "kills: rpd-import after kills"
  want="c.rpd i.rpd"
else
  skip "kills: rpd-import" "needs $TRACES/rocprofv3_908_results.json.gz"
fi
check_eq "kills: after 12 kill -9 each, the next run leaves only its output" "$want" \
  "$(ls -A "$d" | sort | tr '\n' ' ' | sed 's/ $//')"

# 7e. a writer that starts while rpd-trim compacts (VACUUM INTO + rename):
# it waits, then works on the new file; nothing is lost
if has trim && has callstack; then
  d=$(mkin trimrace)
  rpd-synth --seed 9 --api 150000 -o "$d/big.rpd" >/dev/null 2>&1
  for delay in 0.2 0.5; do
    cp "$d/big.rpd" "$d/t.rpd"
    RPD_BUSY_TIMEOUT_MS=60000 rpd-trim "$d/t.rpd" --start 10% --end 90% >/dev/null 2>"$W/se1" & p=$!
    sleep $delay
    RPD_BUSY_TIMEOUT_MS=60000 rpd-callstack "$d/t.rpd" >/dev/null 2>"$W/se2"; r2=$?
    wait $p; r1=$?
    if [ "$r1 $r2" = "0 0" ]; then ok "trim race $delay s: both exit 0"
    else notok "trim race $delay s: both exit 0" "rpd-trim $r1, rpd-callstack $r2: $(cat "$W/se1" "$W/se2" | head -c 300)"; fi
    check_eq "trim race $delay s: call stack of the trimmed trace" \
      "$(q "$d/t.rpd" "select count(*) from rocpd_api")" \
      "$(q "$d/t.rpd" "select count(*) from ext_callstack where depth = 0")"
  done
  rm -f "$d"/*.rpd
fi

# 7f. one line per error: a newline in a file name, a corrupt view
# definition (its SQL spans lines)
nl='
'
d=$(mkin newline)
for m in $PRESENT; do
  check_case "one line $m: newline in a missing file's name" "$m" "$d/a${nl}b.rpd" 1 ""
  printf 'x\n' >"$d/c${nl}d.rpd"
  check_case "one line $m: newline in a bad file's name" "$m" "$d/c${nl}d.rpd" 1 ""
  rm -f "$d/c${nl}d.rpd"
  dv=$(mkin badview); cp "$(valid_src "$m")" "$dv/t.rpd"
  sqlite3 "$dv/t.rpd" "PRAGMA writable_schema=ON; UPDATE sqlite_master SET sql =
    'CREATE VIEW api AS SELECT$nl  nonsense ((($nl FROM$nl  nowhere' WHERE name = 'api'"
  check_case "one line $m: corrupt view definition" "$m" "$dv/t.rpd" "0 1" ""
done

# 7g. a WAL-mode trace on a read-only mount: readers read it (also with a
# -wal left by a writer), writers say read-only.  A tmpfs remounted
# read-only, as root (like section 6); skipped with the reason elsewhere
M=$W/romnt; mkdir -p "$M"
if mount -t tmpfs -o size=16m tmpfs "$M" 2>/dev/null; then
  MOUNTED=$M
  cp "$W/ag.rpd" "$M/w.rpd"; sqlite3 "$M/w.rpd" "pragma journal_mode=wal" >/dev/null
  cp "$M/w.rpd" "$M/x.rpd"
  # x.rpd: a row still in its -wal (a writer died before the checkpoint)
  python3 -c "
import sqlite3, os, sys
c = sqlite3.connect(sys.argv[1]); c.execute('pragma wal_autocheckpoint=0')
c.execute(\"insert into rocpd_metadata(tag, value) values ('in.wal', 'yes')\"); c.commit()
os._exit(0)" "$M/x.rpd" && rm -f "$M/x.rpd-shm"
  if mount -o remount,ro "$M" 2>/dev/null; then
    for m in $PRESENT; do
      mode_info "$m"
      for f in w.rpd x.rpd; do
        rm -rf "${TMPDIR:?}"/* "$W/out"/*
        run_mode "$m" "$M/$f" >"$W/so" 2>"$W/se"; rc=$?
        if [ "$MR" = r ]; then
          check_eq "wal ro $m: reads $f" "0" "$rc$( [ $rc = 0 ] || head -c 200 "$W/se")"
        else
          why=
          [ $rc -eq 1 ] || why="exit $rc"
          [ "$(wc -l <"$W/se")" -eq 1 ] || why="$why, $(wc -l <"$W/se") lines"
          grep -q "read-only" "$W/se" || why="$why, no 'read-only'"
          check_eq "wal ro $m: $f refused in one line" "" "$why"
        fi
        check_eq "wal ro $m: $f, no temp left" "" "$(ls -A "$TMPDIR")"
      done
    done
    check_eq "wal ro: reads the rows still in the -wal" yes "$(rpd-metadata --get in.wal "$M/x.rpd" 2>&1)"
  else
    skip "wal ro" "cannot remount the tmpfs read-only"
  fi
  umount "$M"; MOUNTED=
else
  skip "wal ro" "cannot mount a tmpfs (needs root)"
fi
rmdir "$M" 2>/dev/null
