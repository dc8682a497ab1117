#!/bin/sh
# The scale-out recipes (recipes/): make -j, GNU parallel and a Slurm job
# array with a dependent reduce job, each on four generated ranks, each
# checked against rpd-merge + raptor --by-rank run by hand.  The Slurm part
# starts munged, slurmctld and slurmd on localhost (root only; private
# config, key, ports and spool in $TESTDIR), waits boundedly and stops them.
. "$(cd "$(dirname "$0")" && pwd)/../lib.sh"
RECIPES="$(cd "$(dirname "$0")" && pwd)/../../recipes"
RPDTOOLS_BIN=$RPD_BIN; export RPDTOOLS_BIN

for r in 0 1 2 3; do
  rpd-synth --ranks 4 --rank $r --api 2000 -o rank$r.rpd >/dev/null || notok "synth rank $r"
done
gzip -c rank3.rpd >rank3.rpd.gz
RANKS="rank0.rpd rank1.rpd rank2.rpd rank3.rpd.gz"

# the reference: merge + cross-rank tables by hand
rpd-merge -q -o ref.rpd rank0.rpd rank1.rpd rank2.rpd rank3.rpd
raptor ref.rpd --by-rank --top 0 --csv-dir ref >/dev/null
raptor rank1.rpd -k -c --gpu-summary --csv-dir ref1 >/dev/null

# same_outputs WHAT DIR: DIR's reduce and map outputs equal the reference
same_outputs() {
  for t in ranks categories kernels sequences collectives stragglers; do
    csv_same "$1: $t.csv" ref/$t.csv "$2/byrank/$t.csv"
  done
  csv_same "$1: rank 1 kernelseq.csv" ref1/kernelseq.csv "$2/ranks/in00002.raptor/kernelseq.csv"
  check_eq "$1: merged rows" "$(q ref.rpd 'select count(*) from rocpd_api')|$(q ref.rpd 'select count(*) from rocpd_op')" \
    "$(q "$2/merged.rpd" 'select count(*) from rocpd_api')|$(q "$2/merged.rpd" 'select count(*) from rocpd_op')"
  check_eq "$1: ext_byrank tables saved" "6" \
    "$(q "$2/merged.rpd" "select count(*) from sqlite_master where name like 'ext_byrank_%'")"
  check "$1: byrank.xlsx is a zip" python3 -c "import zipfile; zipfile.ZipFile('$2/byrank.xlsx').testzip()"
}

# ---------------------------------------------------------------- make -j
check_rc "make -j2" 0 make -s -f "$RECIPES/Makefile" -j2 RANKS="$RANKS" OUT=mk
same_outputs "make" mk
m1=$(stat -c %Y.%s mk/merged.rpd); r1=$(stat -c %Y mk/ranks/in00001.rpd)
sleep 1
check_rc "make again" 0 make -s -f "$RECIPES/Makefile" -j2 RANKS="$RANKS" OUT=mk
check_eq "make again: nothing redone" "$m1" "$(stat -c %Y.%s mk/merged.rpd)"
touch rank1.rpd
make -s -f "$RECIPES/Makefile" -j2 RANKS="$RANKS" OUT=mk >/dev/null 2>&1
check_eq "touched rank 1: rank 0 not remapped" "$r1" "$(stat -c %Y mk/ranks/in00001.rpd)"
check "touched rank 1: remapped and reduced" test mk/ranks/in00002.rpd -nt mk/ranks/in00001.rpd -a mk/merged.rpd -nt mk/ranks/in00001.rpd
printf 'not a trace\n' >bad.rpd
check_rc "make with a bad rank fails" 2 make -s -f "$RECIPES/Makefile" -j2 RANKS="rank0.rpd bad.rpd" OUT=mkbad
check "make with a bad rank: no reduce" test ! -e mkbad/merged.rpd
check_rc "make without RANKS" 2 make -s -f "$RECIPES/Makefile" OUT=mk0

# ---------------------------------------------------------------- GNU parallel
if command -v parallel >/dev/null; then
  check_rc "GNU parallel" 0 env JOBS=2 sh "$RECIPES/parallel.sh" par $RANKS
  same_outputs "parallel" par
  check_rc "parallel with a bad rank fails" 1 sh "$RECIPES/parallel.sh" parbad rank0.rpd bad.rpd
  check "parallel with a bad rank: no reduce" test ! -e parbad/merged.rpd
else
  skip "GNU parallel recipe" "parallel is not installed (make deps installs it as root)"
fi

# ---------------------------------------------------------------- Slurm
SL=$TESTDIR/slurm
slurm_why=""
if [ "$(id -u)" != 0 ]; then
  slurm_why="slurmd needs root"
else
  for c in munged mungekey slurmctld slurmd sbatch squeue scontrol; do
    command -v $c >/dev/null || { slurm_why="$c is not installed (make deps installs slurm-wlm and munge as root)"; break; }
  done
fi

# alive PID: the process exists and is not a zombie
alive() {
  [ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status"
}

slurm_stop() {
  if [ -f "$SL/slurm.conf" ]; then
    SLURM_CONF=$SL/slurm.conf timeout 10 scontrol shutdown >/dev/null 2>&1
  fi
  for p in "$SL/slurmd.pid" "$SL/slurmctld.pid" "$SL/munge/pid"; do
    [ -s "$p" ] || continue
    pid=$(cat "$p")
    i=0
    while alive "$pid" && [ $i -lt 20 ]; do
      kill "$pid" 2>/dev/null; sleep 0.5; i=$((i + 1))
    done
    kill -9 "$pid" 2>/dev/null
    rm -f "$p"
  done
}

# slurm_wait SECONDS: until the queue is empty (0) or the time is up (1)
slurm_wait() {
  i=0
  while [ $i -lt $(($1 * 2)) ]; do
    [ -z "$(squeue -h 2>/dev/null)" ] && return 0
    sleep 0.5; i=$((i + 1))
  done
  return 1
}

slurm_start() {
  host=$(hostname -s)
  port=$((20000 + ($$ % 10000) * 2))
  mkdir -p "$SL/state" "$SL/spool" "$SL/munge"
  chmod 700 "$SL/munge"
  mungekey -c -k "$SL/munge/key" >/dev/null 2>&1 || { slurm_why="mungekey failed"; return 1; }
  timeout 10 munged --force --key-file="$SL/munge/key" --socket="$SL/munge/sock" \
    --pid-file="$SL/munge/pid" --log-file="$SL/munge/log" --seed-file="$SL/munge/seed" \
    >/dev/null 2>&1 || { slurm_why="munged did not start: $(tail -1 "$SL/munge/log" 2>/dev/null)"; return 1; }
  cat >"$SL/slurm.conf" <<EOF
ClusterName=rpdtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$SL/munge/sock
CredType=cred/munge
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$SL/state
SlurmdSpoolDir=$SL/spool
SlurmctldPidFile=$SL/slurmctld.pid
SlurmdPidFile=$SL/slurmd.pid
SlurmctldLogFile=$SL/slurmctld.log
SlurmdLogFile=$SL/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  SLURM_CONF=$SL/slurm.conf; export SLURM_CONF
  timeout 20 slurmctld -c >/dev/null 2>&1 || { slurm_why="slurmctld did not start: $(tail -1 "$SL/slurmctld.log" 2>/dev/null)"; return 1; }
  timeout 20 slurmd >/dev/null 2>&1 || { slurm_why="slurmd did not start: $(tail -1 "$SL/slurmd.log" 2>/dev/null)"; return 1; }
  i=0
  while [ $i -lt 40 ]; do
    sinfo -h -o %t 2>/dev/null | grep -q idle && return 0
    sleep 0.5; i=$((i + 1))
  done
  slurm_why="the node did not become idle in 20 s: $(tail -1 "$SL/slurmd.log" 2>/dev/null)"
  return 1
}

# seconds since the epoch of a job's StartTime or EndTime
job_time() {
  t=$(scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1)
  date -d "$t" +%s 2>/dev/null || echo "?"
}

if [ -z "$slurm_why" ]; then
  trap 'slurm_stop' EXIT INT TERM
  slurm_start || true
fi
if [ -n "$slurm_why" ]; then
  skip "Slurm job array + dependent reduce" "$slurm_why"
  slurm_stop
else
  ids=$(sh "$RECIPES/slurm-submit.sh" sl $RANKS 2>"$TESTDIR/submit.err")
  map=${ids% *}; reduce=${ids#* }
  check "slurm: submitted a map array and a reduce job" test -n "$map" -a -n "$reduce" -a "$map" != "$reduce"
  if slurm_wait 120; then ok "slurm: all jobs finished"; else notok "slurm: all jobs finished" "still queued after 120 s: $(squeue -h | head -3)"; fi
  check_eq "slurm: reduce job completed" "COMPLETED" \
    "$(scontrol show job "$reduce" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobState=//p')"
  check_eq "slurm: 4 map tasks completed" "4" \
    "$(scontrol show job "$map" 2>/dev/null | grep -c 'JobState=COMPLETED')"
  rstart=$(job_time "$reduce" StartTime)
  late=$(for j in $(scontrol show job "$map" | tr ' ' '\n' | sed -n 's/^JobId=//p'); do job_time "$j" EndTime; done | sort -n | tail -1)
  check "slurm: reduce started after every map task ended ($rstart >= $late)" test "$rstart" -ge "$late"
  check_eq "slurm: one log per map task" "map-1.log map-2.log map-3.log map-4.log reduce.log" "$(ls sl/logs | tr '\n' ' ' | sed 's/ $//')"
  same_outputs "slurm" sl
  # a failing map task: the reduce never runs
  ids=$(sh "$RECIPES/slurm-submit.sh" slbad rank0.rpd bad.rpd 2>/dev/null)
  reduce=${ids#* }
  i=0; why=""
  while [ $i -lt 120 ]; do
    why=$(scontrol show job "$reduce" 2>/dev/null | tr ' ' '\n' | sed -n 's/^Reason=//p')
    [ "$why" = DependencyNeverSatisfied ] && break
    sleep 0.5; i=$((i + 1))
  done
  check_eq "slurm: a failed map task blocks the reduce" "DependencyNeverSatisfied" "$why"
  check "slurm: no merged trace after a failed map" test ! -e slbad/merged.rpd
  scancel "$reduce" 2>/dev/null
  slurm_wait 30 || true
  pids=$(cat "$SL/slurmd.pid" "$SL/slurmctld.pid" "$SL/munge/pid" 2>/dev/null)
  slurm_stop
  trap - EXIT INT TERM
  left=""
  for p in $pids; do alive "$p" && left="$left $p"; done
  check_eq "slurm: daemons stopped ($(echo $pids | wc -w) started)" "" "$left"
fi
