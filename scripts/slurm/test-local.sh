#!/bin/bash
# Tests the Slurm path for real on this machine: installs Slurm and MUNGE
# from Debian's packages (if missing), starts a one-node cluster on
# localhost (munged, slurmctld, slurmd), submits the job array of
# scripts/slurm/submit.sh for a small N with its merge job, waits, checks
# the merged counts against the published ones and an unsharded run, and
# stops everything it started.
#
#   sudo scripts/slurm/test-local.sh [N [SHARDS]]     (default N=12, 4 shards)
#
# Needs root (packages, daemons) and Go for `make build` unless
# NQUEENS_BIN names a built binary. Takes about half a minute once the
# packages are installed. Exit status 0 when the merged counts are right.
set -euo pipefail

n=${1:-12}
shards=${2:-4}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
deadline=$((SECONDS + ${SLURM_TEST_TIMEOUT:-240}))

say() { printf '=== %s\n' "$*"; }
die() {
	printf 'FAIL: %s\n' "$*" >&2
	exit 1
}

# Published Total and Unique (OEIS A000170, A002562) for the sizes the test
# may use.
declare -A total=([8]=92 [9]=352 [10]=724 [11]=2680 [12]=14200 [13]=73712 [14]=365596 [15]=2279184 [16]=14772512)
declare -A unique=([8]=12 [9]=46 [10]=92 [11]=341 [12]=1787 [13]=9233 [14]=45752 [15]=285053 [16]=1846955)
[ -n "${total[$n]:-}" ] || die "no published count for N=$n here; use 8 to 16"
[ "$(id -u)" = 0 ] || die "run as root: the test installs packages and starts daemons"

say "Slurm and MUNGE from Debian"
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=600 update -qq
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
fi
slurmctld -V

work=$(mktemp -d /tmp/nqueens-slurm.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
	local rc=$?
	set +e
	if [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ]; then
		scancel --quiet --user=root 2>/dev/null
	fi
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		for _ in $(seq 50); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
	done
	if [ "$rc" != 0 ]; then
		for f in "$work"/*.log "$work"/out/*.log; do
			[ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }
		done
	fi
	rm -rf "$work"
	exit "$rc"
}
trap cleanup EXIT

say "program"
bin=${NQUEENS_BIN:-}
if [ -z "$bin" ]; then
	make -C "$repo" --no-print-directory build >/dev/null
	bin=$repo/bin/nqueens-gpu
fi
cp "$bin" "$work/nqueens-gpu"
bin=$work/nqueens-gpu

say "munged"
mkdir -p "$work/munge"
chown munge:munge "$work/munge"
[ -s /etc/munge/munge.key ] || mungekey --create --keyfile=/etc/munge/munge.key
chown munge:munge /etc/munge/munge.key
chmod 600 /etc/munge/munge.key
runuser -u munge -- munged --socket="$work/munge/munge.socket" --pid-file="$work/munge/munged.pid" \
	--log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed"
for _ in $(seq 50); do
	[ -s "$work/munge/munged.pid" ] && break
	sleep 0.1
done
pids+=("$(cat "$work/munge/munged.pid")")
munge --socket="$work/munge/munge.socket" -n | unmunge --socket="$work/munge/munge.socket" >/dev/null
echo "munged $(cat "$work/munge/munged.pid") on $work/munge/munge.socket"

say "slurm.conf"
host=$(hostname -s)
export SLURM_CONF=$work/slurm.conf
mkdir -p "$work/state" "$work/spool" "$work/out"
cat >"$SLURM_CONF" <<CONF
ClusterName=nqtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=512 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
cat "$SLURM_CONF"

say "slurmctld and slurmd"
slurmctld -i
for _ in $(seq 100); do
	[ -s "$work/slurmctld.pid" ] && break
	sleep 0.1
done
pids+=("$(cat "$work/slurmctld.pid")")
slurmd
for _ in $(seq 100); do
	[ -s "$work/slurmd.pid" ] && break
	sleep 0.1
done
pids+=("$(cat "$work/slurmd.pid")")
until sinfo -h -o '%T' 2>/dev/null | grep -qx idle; do
	[ $SECONDS -lt $deadline ] || die "the node did not come up: $(sinfo 2>&1)"
	sleep 0.5
done
sinfo

say "job array of $shards shards of N=$n, then merge"
cd "$work/out"
export NQUEENS_BIN=$bin OUT=$work/out/results
line=$("$here/submit.sh" "$n" "$shards" --cpus-per-task=1)
echo "$line"
array=$(sed -E 's/^array job ([0-9]+).*/\1/' <<<"$line")
merge=$(sed -E 's/.*merge job ([0-9]+).*/\1/' <<<"$line")
state() { scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2; }
while :; do
	s=$(state "$merge")
	case $s in
	COMPLETED) break ;;
	FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | PREEMPTED)
		scontrol show job "$merge" || true
		die "the merge job ended $s"
		;;
	esac
	[ $SECONDS -lt $deadline ] || die "the jobs did not finish in time (array: $(squeue -h -j "$array" -o '%i %T' | tr '\n' ' '), merge: $s)"
	sleep 0.5
done
scontrol -o show job "$array" | grep -oE '^JobId=[0-9]+|ArrayTaskId=[0-9]+|JobState=[A-Z]+' | paste -d' ' - - -
ls "$OUT"

say "result"
cat "$OUT/result.txt"
cat "$OUT/result.json"
got_total=$(grep -o '"total":[0-9]*' "$OUT/result.json" | cut -d: -f2)
got_unique=$(grep -o '"unique":[0-9]*' "$OUT/result.json" | cut -d: -f2)
if [ "$got_total" != "${total[$n]}" ] || [ "$got_unique" != "${unique[$n]}" ]; then
	die "merged N=$n: total $got_total unique $got_unique, published ${total[$n]} and ${unique[$n]}"
fi
# The same counts, C2/C4/C8 included, as one unsharded run.
whole=$("$bin" -n "$n" -quiet -v | tail -n 1)
merged=$(tail -n 1 "$OUT/result.txt")
[ "${whole% *}" = "${merged% *}" ] || die "merged row '$merged' differs from the unsharded '$whole'"
echo "PASS: Slurm job array of $shards shards of N=$n merged to total ${total[$n]}, unique ${unique[$n]}, as published and as one unsharded run"
