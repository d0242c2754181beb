#!/bin/bash
# Runs an nqueens-gpu count on Kubernetes: the Indexed Job of shards, then,
# once it is complete, the merge Job, whose log is the result.
#
#   deploy/k8s/run.sh [KUBECTL-OPTION...]     (such as -n my-namespace)
#
# Edit N, SHARDS (with completions and parallelism), DEVICE and the image
# in indexed-job.yaml and merge-job.yaml first.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
k() { kubectl "$@"; }

k "$@" apply -f "$here/pvc.yaml"
k "$@" delete --ignore-not-found job/nqueens-merge
k "$@" apply -f "$here/indexed-job.yaml"
# Stops waiting when the Job completes or fails.
k "$@" wait --for=condition=complete --timeout=-1s job/nqueens-shards &
ok=$!
k "$@" wait --for=condition=failed --timeout=-1s job/nqueens-shards &
failed=$!
wait -n "$ok" "$failed" || true
if ! k "$@" get job/nqueens-shards -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}' | grep -q True; then
	kill "$ok" "$failed" 2>/dev/null || true
	echo "the shard Job failed: kubectl $* describe job/nqueens-shards" >&2
	exit 1
fi
kill "$failed" 2>/dev/null || true
k "$@" apply -f "$here/merge-job.yaml"
k "$@" wait --for=condition=complete --timeout=10m job/nqueens-merge
k "$@" logs job/nqueens-merge
