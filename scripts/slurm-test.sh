#!/usr/bin/env bash
# make slurm-test: Mien on a real Slurm job array, on this machine.
#
# Installs Debian's slurm-wlm and munge when missing, starts munged, slurmctld and slurmd for one node on
# loopback (generated slurm.conf, private sockets, ports and folders under a scratch directory, no
# cgroups), and checks that:
#   1. `sbatch --array=0-3 --wait deploy/slurm/mien-array.sbatch` over a folder of clips and pictures, then
#      `mien merge`, gives exactly the rows of a single-process run of the same inputs;
#   2. SIGKILL to one array task's mien in the middle of an input leaves the data set incomplete (merge exits 1
#      naming the input), and resubmitting only that index completes it with no frame lost or repeated;
#   3. `scontrol requeue` twice during a long clip (SIGTERM, a last snapshot, the script rerun with --resume)
#      gives merged rows equal to an uninterrupted run's.
# Stops the daemons it started by their PIDs, whatever happens.
#
# Usage: scripts/slurm-test.sh [path/to/mien [path/to/MienDev]]   (defaults: the debug builds)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MIEN=$(realpath "${1:-$ROOT/.build/debug/mien}")
MIENDEV=$(realpath "${2:-$ROOT/.build/debug/MienDev}")
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
started=$(date +%s)

say() { echo "slurm-test: $*"; }
fail() {
    echo "slurm-test: FAILED: $*" >&2
    exit 1
}

missing=()
for package in slurm-wlm munge jq; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    say "installing ${missing[*]} from Debian"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

WORK=$(mktemp -d -t mien-slurm.XXXXXX)
DAEMONS=()
cleanup() {
    status=$?
    for pid in "${DAEMONS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${DAEMONS[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    if [ "$status" != 0 ]; then
        for log in "$WORK"/slurmctld.log "$WORK"/slurmd.log "$WORK"/logs/*.log; do
            [ -f "$log" ] && { echo "--- $log (end)"; tail -n 25 "$log"; }
        done
        echo "slurm-test: scratch folder kept: $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT

# --- munge: a private key, socket and state; run as root with --force (it refuses root otherwise).
mkdir -p "$WORK/munge" "$WORK/state" "$WORK/spool" "$WORK/logs"
chmod 700 "$WORK/munge"
mungekey --create --keyfile="$WORK/munge/munge.key" --force
chmod 400 "$WORK/munge/munge.key"
munged --force --foreground --socket="$WORK/munge/munge.socket" --key-file="$WORK/munge/munge.key" \
    --pid-file="$WORK/munge/munged.pid" --log-file="$WORK/munge/munged.log" --seed-file="$WORK/munge/seed" \
    2>>"$WORK/munge/munged.stderr" &
DAEMONS+=($!)
for _ in $(seq 50); do [ -S "$WORK/munge/munge.socket" ] && break; sleep 0.1; done
[ -S "$WORK/munge/munge.socket" ] || fail "munged did not start"

# --- slurm.conf: one node (this machine, on 127.0.0.1), ports away from Slurm's defaults.
NODE=$(hostname -s)
CPUS=$(nproc)
export SLURM_CONF="$WORK/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=mien-test
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=$(id -un)
SlurmctldPort=${SLURMCTLD_PORT:-16817}
SlurmdPort=${SLURMD_PORT:-16818}
AuthType=auth/munge
# cred_expire: a requeued job waits this long before it may start again (120 s by default).
AuthInfo=socket=$WORK/munge/munge.socket,cred_expire=10
CredType=cred/munge
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/slurmctld.log
SlurmdLogFile=$WORK/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
# A requeued job that may start again waits for the main scheduling pass (every 60 s by default).
SchedulerParameters=sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
KillWait=5
MailProg=/bin/true
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=mien Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -D -i -f "$SLURM_CONF" 2>>"$WORK/slurmctld.stderr" &
DAEMONS+=($!)
slurmd -D -f "$SLURM_CONF" -N "$NODE" 2>>"$WORK/slurmd.stderr" &
DAEMONS+=($!)
for _ in $(seq 100); do
    sinfo -h -o %t 2>/dev/null | grep -qx idle && break
    sleep 0.2
done
sinfo -h -o %t | grep -qx idle || fail "the node did not come up: $(sinfo 2>&1)"
say "slurmctld and slurmd up (Slurm $(sinfo -V | cut -d' ' -f2), node $NODE, $CPUS CPUs)"

# --- inputs: clips of different lengths and sizes, pictures, and two files of the same name.
IN="$WORK/inputs"
mkdir -p "$IN/day1" "$IN/day2"
"$MIENDEV" make-clip --width 640 --height 360 --frames 60 "$IN/day1/session.mp4" >/dev/null
"$MIENDEV" make-clip --width 320 --height 240 --frames 30 "$IN/day2/session.mp4" >/dev/null
"$MIENDEV" make-clip --width 480 --height 270 --frames 90 "$IN/interview.mp4" >/dev/null
# The long one, which the kill test cuts off in the middle.
"$MIENDEV" make-clip --width 320 --height 240 --frames 300 "$IN/long.mp4" >/dev/null
cp "$ROOT/Samples/astronaut.jpg" "$IN/astronaut.jpg"
cp "$ROOT/Samples/astronaut.jpg" "$IN/day1/astronaut.jpg"
EVAL_DIR=${EVAL_DIR:-$ROOT/../shared/eval}
if [ -d "$EVAL_DIR/dlib_examples_faces" ]; then
    find "$EVAL_DIR/dlib_examples_faces" -maxdepth 1 -name '*.jpg' | sort | head -n 6 | xargs -r cp -t "$IN"
else
    say "NOTE: $EVAL_DIR/dlib_examples_faces absent: the pictures are the bundled sample only"
fi
find "$IN" -type f | sort >"$WORK/inputs.txt"
count=$(wc -l <"$WORK/inputs.txt")
say "$count inputs"

# --- the single-process reference.
"$MIEN" analyze --inputs-from "$WORK/inputs.txt" --shard 0/1 --output "$WORK/single" 2>"$WORK/logs/single.log"
"$MIEN" merge "$WORK/single" >/dev/null 2>>"$WORK/logs/single.log"

submit() { # submit OUTPUT [sbatch options...]: prints the job ID
    local output=$1
    shift
    MIEN="$MIEN" MIEN_INPUTS="$WORK/inputs.txt" MIEN_OUTPUT="$output" MIEN_SHARDS=4 \
        sbatch --parsable --cpus-per-task=1 --mem=0 --output="$WORK/logs/%x-%A_%a.log" --chdir="$WORK" "$@" \
        "$ROOT/deploy/slurm/mien-array.sbatch"
}

# --- 1. four array tasks, merged, equal the single process.
t0=$(date +%s.%N)
job=$(submit "$WORK/cluster" --array=0-3 --wait) || fail "sbatch --wait reported a failed task"
t1=$(date +%s.%N)
"$MIEN" merge "$WORK/cluster" || fail "mien merge of the array's outputs"
cmp -s "$WORK/single/merged/results.csv" "$WORK/cluster/merged/results.csv" ||
    fail "the merged rows differ from the single process's: diff $WORK/single/merged/results.csv $WORK/cluster/merged/results.csv"
rows=$(($(wc -l <"$WORK/cluster/merged/results.csv") - 1))
for k in 0 1 2 3; do
    jq -e --arg k "$k" '.finished and .shard == ($k | tonumber) and .shardCount == 4 and .scheduler.SLURM_ARRAY_JOB_ID != null' \
        "$WORK/cluster/manifests/shard-000$k-of-0004.json" >/dev/null || fail "manifest of task $k"
done
say "job $job: 4 tasks, merged $rows rows = the single process's, byte for byte ($(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s)"

# --- 2. SIGKILL one task in the middle of long.mp4, then resubmit only its index.
job=$(submit "$WORK/killed" --array=0-3)
partial=""
for _ in $(seq 600); do
    partial=$(find "$WORK/killed" -maxdepth 1 -name '.long.mp4.jsonl.partial-*' 2>/dev/null | head -n 1 || true)
    if [ -n "$partial" ] && [ "$(wc -l <"$partial")" -ge 40 ]; then break; fi
    partial=""
    sleep 0.1
done
[ -n "$partial" ] || fail "long.mp4 never got 40 frames in"
index=$(jq -r --arg input "$IN/long.mp4" 'select(any(.inputs[]; .input == $input)) | .shard' \
    "$WORK"/killed/manifests/shard-*.json)
[ -n "$index" ] || fail "no manifest lists long.mp4"
done_frames=$(wc -l <"$partial")
# SIGKILL straight to the task's mien (its PID names the temporary file), as the OOM killer or a lost node
# would: no chance to clean up. (`scancel` would send SIGTERM first, which mien answers by completing its
# files and recording the input as interrupted; the command-line tests cover that path.)
pid=${partial##*.partial-}
pid=${pid%%-*}
kill -KILL "$pid"
for _ in $(seq 1500); do
    [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
    sleep 0.25
done
[ -z "$(squeue -h -j "$job")" ] || fail "job $job did not end"
state=$(sacct -n -X -j "${job}_${index}" -o State 2>/dev/null | tr -d ' ' || true)
if "$MIEN" merge "$WORK/killed" >"$WORK/logs/merge-killed.out" 2>"$WORK/logs/merge-killed.err"; then
    fail "merge called the data set complete after task $index was killed"
fi
grep -q "missing: $IN/long.mp4" "$WORK/logs/merge-killed.err" || fail "merge did not name long.mp4 as missing"
say "task $index killed after $done_frames frames of long.mp4${state:+ ($state)}; merge exits 1 naming it"

submit "$WORK/killed" --array="$index" --wait >/dev/null || fail "the resubmitted task failed"
grep -q "resuming after frame" "$WORK"/logs/mien-*_"$index".log || fail "the resubmitted task did not resume"
"$MIEN" merge "$WORK/killed" >/dev/null || fail "merge after the resubmission"
# Every (input, frame) of the single process, each once; rows of the inputs the kill did not touch, equal.
keys() { tail -n +2 "$1" | cut -d, -f1,3 | sort; }
cmp -s <(keys "$WORK/single/merged/results.csv") <(keys "$WORK/killed/merged/results.csv") ||
    fail "frames lost or repeated after the resubmission"
[ "$(tail -n +2 "$WORK/killed/merged/results.csv" | cut -d, -f1,3,4 | sort | uniq -d | wc -l)" = 0 ] ||
    fail "a face of a frame is in the data set twice"
cmp -s <(grep -v "^$IN/long.mp4," "$WORK/single/merged/results.csv") \
    <(grep -v "^$IN/long.mp4," "$WORK/killed/merged/results.csv") || fail "rows of the other inputs changed"
frames=$(jq .frames "$WORK/killed/merged/summary.json")
say "resubmitted index $index: $frames frames, every one once; other inputs unchanged"

# --- 3. Preemption: `scontrol requeue` twice in the middle of a long clip. Each time Slurm sends SIGTERM (mien
# completes its files and a last snapshot, exit 143) and reruns the script; --resume goes on from the snapshot.
# The merged rows must equal an uninterrupted run's, byte for byte.
PRE="$WORK/preempt"
mkdir -p "$PRE/in"
"$MIENDEV" make-clip --width 320 --height 240 --frames 900 "$PRE/in/long.mp4" >/dev/null
echo "$PRE/in/long.mp4" >"$PRE/inputs.txt"
"$MIEN" analyze --inputs-from "$PRE/inputs.txt" --shard 0/1 --output "$PRE/single" 2>>"$WORK/logs/preempt-single.log"
"$MIEN" merge "$PRE/single" >/dev/null 2>>"$WORK/logs/preempt-single.log"
job=$(MIEN="$MIEN" MIEN_INPUTS="$PRE/inputs.txt" MIEN_OUTPUT="$PRE/out" MIEN_SHARDS=1 \
    sbatch --parsable --array=0 --cpus-per-task=1 --mem=0 --open-mode=append --output="$WORK/logs/preempt-%A.log" \
    --chdir="$WORK" "$ROOT/deploy/slurm/mien-array.sbatch")
# The number of finished frames in the running task's temporary JSON Lines file (0 while there is none).
written() { cat "$PRE"/out/.long.mp4.jsonl.partial-* 2>/dev/null | wc -l; }
for at in 200 500; do
    for _ in $(seq 600); do
        [ "$(written)" -ge "$at" ] && break
        sleep 0.1
    done
    [ "$(written)" -ge "$at" ] || fail "the task did not reach frame $at"
    scontrol requeue "$job" 2>"$WORK/logs/requeue.err" || fail "scontrol requeue $job: $(cat "$WORK/logs/requeue.err")"
    # Wait until the requeued task's mien has left (its temporary files are committed or renamed).
    for _ in $(seq 300); do
        [ "$(written)" -lt "$at" ] && break
        sleep 0.1
    done
done
for _ in $(seq 1200); do
    [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && [ -f "$PRE/out/manifests/shard-0000-of-0001.json" ] &&
        [ "$(jq -r .finished "$PRE/out/manifests/shard-0000-of-0001.json")" = true ] && break
    sleep 0.1
done
[ "$(jq -r .finished "$PRE/out/manifests/shard-0000-of-0001.json")" = true ] || fail "the requeued job did not finish"
resumed=$(grep -c "from its snapshot" "$WORK/logs/preempt-$job.log" || true)
[ "$resumed" = 2 ] || fail "the task went on from its snapshot $resumed times, not 2 (see logs/preempt-$job.log)"
"$MIEN" merge "$PRE/out" >/dev/null 2>>"$WORK/logs/preempt-merge.log" || fail "merge after the requeues"
cmp -s "$PRE/single/merged/results.csv" "$PRE/out/merged/results.csv" ||
    fail "the requeued task's rows differ from an uninterrupted run's: diff $PRE/single/merged/results.csv $PRE/out/merged/results.csv"
say "job $job requeued twice in the middle of a 900-frame clip, resumed from its snapshot both times: merged rows = an uninterrupted run's, byte for byte"
say "passed in $(($(date +%s) - started)) s"
