#!/bin/bash
# Kill -9 soak test of checkpoints, shards and merge, on the program as
# `make build` makes it, with the floor of -checkpoint-interval lowered
# from 1 s to 50 ms (-ldflags -X main.checkpointFloor=50ms).
#
#   scripts/soak-kill9.sh [KILLS [N...]]     (default: 200 kills, N=16 17)
#
# One round counts every N as a job of two shards, the shards side by side
# (as two machines would), each with its own checkpoint. Each shard is
# started again and again and killed with SIGKILL after a random delay of
# 0 to 300 ms (before its first checkpoint, while it writes one, or
# between two), until a run ends by itself; then the two shard results are
# merged. Every round checks:
#   - every restarted run accepts the checkpoint the killed one left
#     (a damaged checkpoint would be refused with exit status 1);
#   - the merged counts are the published ones (N=16 and 17), class by
#     class;
#   - nothing is left beside the checkpoints: no temporary file (*.tmp-*)
#     and no lock file.
# Rounds go on until at least KILLS kills have landed. The last line sums
# up the figures (docs/long-runs.md records a run).
#
# Builds its binary into a temporary folder, or uses NQUEENS_BIN (which
# must accept -checkpoint-interval 50ms). Flags used: -n,
# -shard, -json, -quiet, -workers 1, -checkpoint, -checkpoint-interval
# 50ms, and the merge subcommand.
set -euo pipefail
kills_wanted=${1:-200}
shift || true
ns=${*:-16 17}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

# The published counts: total unique count2 count4 count8.
declare -A want=(
	[16]="14772512 1846955 32 734 1846189"
	[17]="95815104 11977939 64 2006 11975869"
)
for n in $ns; do
	[ -n "${want[$n]:-}" ] || { echo "no published counts for N=$n in this script" >&2; exit 2; }
done

work=$(mktemp -d /tmp/nqueens-soak.XXXXXX)
trap 'rm -rf "$work"' EXIT
bin=${NQUEENS_BIN:-}
if [ -z "$bin" ]; then
	bin=$work/nqueens-gpu
	(cd "$repo" && go build -ldflags "-X main.checkpointFloor=50ms" -o "$bin" ./cmd/nqueens-gpu)
fi

fail() {
	echo "FAIL: $*"
	exit 1
}

# shard N I DIR: runs shard I/2 of N under random SIGKILLs until a run
# ends by itself. Writes DIR/shard-I.json and DIR/stats-I: kills, runs,
# kills within 20 ms of the start (start-up, plan, first checkpoint).
shard() {
	local n=$1 i=$2 dir=$3 kills=0 runs=0 early=0 rc pid ms
	local ck=$dir/shard-$i.ckpt
	while :; do
		runs=$((runs + 1))
		"$bin" -n "$n" -shard "$i/2" -json -quiet -workers 1 \
			-checkpoint "$ck" -checkpoint-interval 50ms >"$dir/out-$i" 2>>"$dir/log-$i" &
		pid=$!
		ms=$((RANDOM % 300))
		sleep "0.$(printf %03d "$ms")"
		kill -KILL "$pid" 2>/dev/null || true
		rc=0
		wait "$pid" 2>/dev/null || rc=$?
		case $rc in
		137)
			kills=$((kills + 1))
			[ "$ms" -ge 20 ] || early=$((early + 1))
			;;
		0) break ;;
		*)
			echo "shard $i/2 of N=$n: exit status $rc" >&2
			cat "$dir/log-$i" >&2
			return 1
			;;
		esac
	done
	mv "$dir/out-$i" "$dir/shard-$i.json"
	echo "$kills $runs $early" >"$dir/stats-$i"
}

start=$(date +%s.%N)
round=0 total_kills=0 total_runs=0 total_early=0 removed=0
declare -A kills_n
while [ "$total_kills" -lt "$kills_wanted" ]; do
	round=$((round + 1))
	for n in $ns; do
		dir=$work/r$round-n$n
		mkdir -p "$dir"
		shard "$n" 0 "$dir" &
		p0=$!
		shard "$n" 1 "$dir" &
		p1=$!
		wait "$p0" || fail "round $round N=$n: shard 0 failed"
		wait "$p1" || fail "round $round N=$n: shard 1 failed"
		for i in 0 1; do
			read -r k r e <"$dir/stats-$i"
			total_kills=$((total_kills + k))
			total_runs=$((total_runs + r))
			total_early=$((total_early + e))
			kills_n[$n]=$((${kills_n[$n]:-0} + k))
			c=$(awk '/removed [0-9]+ temporary/ { for (f = 1; f < NF; f++) if ($f == "removed") s += $(f + 1) } END { print s + 0 }' "$dir/log-$i")
			removed=$((removed + c))
		done
		merged=$("$bin" merge -json "$dir/shard-0.json" "$dir/shard-1.json") ||
			fail "round $round N=$n: merge failed"
		got=$(echo "$merged" | sed -E 's/.*"total":([0-9]+),"unique":([0-9]+),"count1":[0-9]+,"count2":([0-9]+),"count4":([0-9]+),"count8":([0-9]+).*/\1 \2 \3 \4 \5/')
		[ "$got" = "${want[$n]}" ] || fail "round $round N=$n: merged $got, published ${want[$n]}"
		left=$(cd "$dir" && ls -A | grep -E '\.tmp-|\.lock$' | tr '\n' ' ' || true)
		[ -z "$left" ] || fail "round $round N=$n: left behind: $left"
		grep -q '"complete": true' "$dir/shard-0.ckpt" && grep -q '"complete": true' "$dir/shard-1.ckpt" ||
			fail "round $round N=$n: a checkpoint is not marked complete"
		echo "round $round N=$n: $(cat "$dir/stats-0" | cut -d' ' -f1) + $(cat "$dir/stats-1" | cut -d' ' -f1) kills, merged total unique C2 C4 C8 = $got"
	done
done
end=$(date +%s.%N)
per_n=""
for n in $ns; do per_n="$per_n N=$n: ${kills_n[$n]} kills;"; done
printf 'PASS: %d SIGKILLs in %d rounds (%s %d runs, %d kills within 20 ms of a start, %d stale temporary files removed by the next run), every merge exact, nothing left behind, %.0f s\n' \
	"$total_kills" "$round" "$per_n" "$total_runs" "$total_early" "$removed" "$(echo "$end - $start" | bc)"
