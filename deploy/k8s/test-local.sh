#!/bin/bash
# Runs the shell of the pods of indexed-job.yaml and merge-job.yaml on this
# machine, without Kubernetes: every index of the Indexed Job in turn, the
# first one stopped with SIGTERM midway (as an eviction would) and started
# again, then the merge. Checks that the shell passes SIGTERM on so that the
# checkpoint is saved, that the restarted pod finishes from it, and that
# the merged counts equal an unsharded run.
#
#   deploy/k8s/test-local.sh [N [SHARDS]]      (default N=18, 4 shards)
#
# Uses bin/nqueens-gpu (make build) or NQUEENS_BIN, and /bin/sh (dash on
# Debian) as in the image.
set -euo pipefail
n=${1:-18}
shards=${2:-4}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=${NQUEENS_BIN:-$repo/bin/nqueens-gpu}
[ -x "$bin" ] || make -C "$repo" --no-print-directory build >/dev/null

work=$(mktemp -d /tmp/nqueens-k8s.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/results"
cp "$bin" "$work/bin/nqueens-gpu"

# script FILE: the pod's shell script (the block under "args: - |"), with
# /results pointing at the work directory.
script() {
	awk '/^            - \|$/ { on = 1; next } on && /^          [a-z]/ { on = 0 } on { sub(/^              /, ""); print }' "$1" |
		sed "s#/results#$work/results#g"
}
script "$here/indexed-job.yaml" >"$work/shard.sh"
script "$here/merge-job.yaml" >"$work/merge.sh"
if ! [ -s "$work/shard.sh" ] || ! [ -s "$work/merge.sh" ]; then
	echo "FAIL: no pod script found in the manifests"
	exit 1
fi

pod() { # pod INDEX: runs the shard pod's script in the background
	env PATH="$work/bin:$PATH" N="$n" SHARDS="$shards" DEVICE=cpu JOB_COMPLETION_INDEX="$1" \
		/bin/sh "$work/shard.sh" 2>>"$work/pod-$1.log" &
	podpid=$!
}
dir=$work/results/n$n

echo "=== pod 0, evicted with SIGTERM midway"
pod 0
# The checkpoint is first written as the count starts; stop it a little
# later, with work done and most of it still ahead.
for _ in $(seq 600); do
	[ -s "$dir/shard-0.ckpt" ] && break
	sleep 0.05
done
sleep 1
kill -TERM "$podpid"
rc=0
wait "$podpid" || rc=$?
cat "$work/pod-0.log"
if [ "$rc" != 143 ] || [ -e "$dir/shard-0.json" ] || ! grep -q 'saved in' "$work/pod-0.log"; then
	echo "FAIL: pod 0 exited $rc on SIGTERM; want 143, its checkpoint saved and no result"
	exit 1
fi
grep -o '"done_batches": [0-9]*' "$dir/shard-0.ckpt"

echo "=== pods 0 (again) to $((shards - 1))"
for i in $(seq 0 $((shards - 1))); do
	pod "$i"
	wait "$podpid" || { echo "FAIL: pod $i failed"; cat "$work/pod-$i.log"; exit 1; }
	cat "$dir/shard-$i.json"
done
grep -o '"runs": [0-9]*' "$dir/shard-0.ckpt"

echo "=== merge pod"
env PATH="$work/bin:$PATH" N="$n" /bin/sh "$work/merge.sh"
merged=$(grep -o '"total":[0-9]*,"unique":[0-9]*,"count1":[0-9]*,"count2":[0-9]*,"count4":[0-9]*,"count8":[0-9]*' "$dir/result.json")
whole=$("$bin" -n "$n" -quiet -json | grep -o '"total":[0-9]*,"unique":[0-9]*,"count1":[0-9]*,"count2":[0-9]*,"count4":[0-9]*,"count8":[0-9]*')
if [ "$merged" != "$whole" ]; then
	echo "FAIL: merged $merged, unsharded $whole"
	exit 1
fi
echo "PASS: $shards pods of N=$n (one evicted and restarted) merged to $merged, as one unsharded run"
