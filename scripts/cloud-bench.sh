#!/usr/bin/env bash
# cloud-bench.sh: measure and cross-check nqueens-gpu on a GPU host reached
# by ssh, and bring the results back.
#
#   scripts/cloud-bench.sh HOST [N-RANGE]
#
# HOST is anything ssh accepts (user@address, or a Host of ~/.ssh/config);
# the key must already work without a prompt (BatchMode). N-RANGE is the
# bench range, default 12-20. From the repository root, on a machine with Go
# and the CUDA toolkit (make cuda-deps), it:
#
#   1. runs `make bundle` (SKIP_BUNDLE=1 ships bundle/ as it is, BUNDLE=DIR
#      ships DIR instead);
#   2. copies bundle/ to HOST:~/nqueens-gpu-bench/STAMP/ with scp;
#   3. runs there, each step logged, a failing step not stopping the next:
#        run-gpu-checks.sh                        (skip with GPU_CHECKS=0)
#        nqueens-gpu check -n CHECK_N -device DEVICE -o check.json
#        nqueens-gpu bench -n N-RANGE -device DEVICE -algo ALGOS
#                               -runs RUNS -warmup WARMUP -o bench.json
#      and fails the check and bench steps if they fell back to the CPU;
#   4. copies the results back into results/HOST-STAMP/ (RESULTS=DIR for
#      another folder): bench.json, bench.txt, check.json, check.txt, the
#      stderr of each, nvidia-smi.txt, gpu-checks/ and summary.txt.
#
# Environment: DEVICE (GPU ordinal, default 0), RUNS (5), WARMUP (1),
# ALGOS (symmetry,carrychain), CHECK_N (1-18), GPU_CHECKS (1), SKIP_BUNDLE,
# BUNDLE, RESULTS (results), REMOTE_BASE (nqueens-gpu-bench, relative to the remote
# home), KEEP_REMOTE=1 to leave the remote folder in place, SSH_OPTS (extra
# options for ssh and scp, split on spaces).
#
# Exit status: 0 when every remote step passed, 1 when one failed (the
# results are copied back all the same), 2 on a usage error, and ssh's or
# scp's status when the host cannot be reached.
#
# Then, for docs/benchmarks.md:
#   cp results/HOST-STAMP/bench.json docs/bench/GPUNAME-HOST.json && make bench-doc
set -euo pipefail

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
case $1 in -h | --help) usage ;; esac
host=$1
range=${2:-12-20}
if ! [[ $range =~ ^[0-9]+(-[0-9]+)?$ ]]; then
	echo "cloud-bench: invalid N-RANGE '$range': want N or A-B, as in 12-20" >&2
	exit 2
fi
device=${DEVICE:-0}
runs=${RUNS:-5}
warmup=${WARMUP:-1}
algos=${ALGOS:-symmetry,carrychain}
check_n=${CHECK_N:-1-18}
gpu_checks=${GPU_CHECKS:-1}
results=${RESULTS:-results}
remote_base=${REMOTE_BASE:-nqueens-gpu-bench}
for v in "$device" "$runs" "$warmup"; do
	[[ $v =~ ^[0-9]+$ ]] || { echo "cloud-bench: DEVICE, RUNS and WARMUP must be numbers" >&2; exit 2; }
done
[[ $check_n =~ ^[0-9]+(-[0-9]+)?$ ]] || { echo "cloud-bench: invalid CHECK_N '$check_n'" >&2; exit 2; }
[[ $algos =~ ^[a-z,]+$ ]] || { echo "cloud-bench: invalid ALGOS '$algos'" >&2; exit 2; }
[[ $remote_base =~ ^[A-Za-z0-9._/-]+$ ]] || { echo "cloud-bench: invalid REMOTE_BASE '$remote_base'" >&2; exit 2; }

cd "$(dirname "$0")/.."

# ssh and scp never prompt: a host that needs a password or an unknown host
# key fails at once instead of hanging.
read -r -a extra <<<"${SSH_OPTS:-}"
ssh_opts=(-o BatchMode=yes -o ConnectTimeout=20 -o ServerAliveInterval=30 "${extra[@]}")
remote_ssh() { ssh -n "${ssh_opts[@]}" "$host" "$@"; }

stamp=$(date -u +%Y%m%dT%H%M%SZ)
# A folder name from the host: user@gpu-1.example.org -> gpu-1.example.org.
label=${host##*@}
label=${label//[^A-Za-z0-9._-]/_}
local_dir=$results/$label-$stamp
remote_dir=$remote_base/$stamp

bundle=${BUNDLE:-bundle}
if [ "${SKIP_BUNDLE:-0}" != 1 ] && [ -z "${BUNDLE:-}" ]; then
	echo "== make bundle"
	make bundle
fi
for f in "$bundle/nqueens-gpu" "$bundle/run-gpu-checks.sh"; do
	[ -f "$f" ] || { echo "cloud-bench: $f is missing: run make bundle" >&2; exit 1; }
done

# The remote part, run by sh from the remote folder. Its arguments are
# checked above to hold no characters a shell would interpret.
remote_script=$(mktemp "${TMPDIR:-/tmp}/cloud-bench-remote.XXXXXX")
summary=$(mktemp "${TMPDIR:-/tmp}/cloud-bench-summary.XXXXXX")
trap 'rm -f "$remote_script" "$summary"' EXIT
cat >"$remote_script" <<'REMOTE'
# cloud-bench-remote.sh RANGE CHECK_N DEVICE ALGOS RUNS WARMUP GPU_CHECKS
# (written by scripts/cloud-bench.sh; runs in the shipped bundle folder)
set -u
cd "$(dirname "$0")" || exit 1
range=$1 check_n=$2 device=$3 algos=$4 runs=$5 warmup=$6 gpu_checks=$7
mkdir -p results
status=0
fallback="counting on the CPU ("
step() { echo "-- $1: $2"; }
{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "host: $(uname -a)"
	if command -v nvidia-smi >/dev/null; then nvidia-smi; else echo "nvidia-smi: not found"; fi
} >results/nvidia-smi.txt 2>&1
if [ "$gpu_checks" = 1 ]; then
	# Over ssh no 10-minute limit applies: a day's budget instead of the
	# 570 s default of a device call (all steps take an hour or more).
	if DEVICE=$device TOTAL_TIMEOUT=86400 bash ./run-gpu-checks.sh results/gpu-checks >results/gpu-checks.txt 2>&1; then
		step gpu-checks PASS
	else
		step gpu-checks "FAIL (see gpu-checks.txt)"
		status=1
	fi
fi
# verdict NAME EXIT: PASS, or FAIL when the step failed or used the CPU.
verdict() {
	if [ "$2" != 0 ]; then
		step "$1" "FAIL, exit $2 (see $1.txt, $1.err)"
		status=1
	elif grep -q "$fallback" "results/$1.err"; then
		step "$1" "FAIL, ran on the CPU: $(head -c 300 "results/$1.err")"
		status=1
	else
		step "$1" PASS
	fi
}
rc=0
./nqueens-gpu check -n "$check_n" -device "$device" -o results/check.json \
	>results/check.txt 2>results/check.err </dev/null || rc=$?
verdict check "$rc"
rc=0
./nqueens-gpu bench -n "$range" -device "$device" -algo "$algos" -runs "$runs" \
	-warmup "$warmup" -o results/bench.json >results/bench.txt 2>results/bench.err </dev/null || rc=$?
verdict bench "$rc"
exit $status
REMOTE

echo "== copy $bundle/ to $host:$remote_dir"
remote_ssh "mkdir -p '$remote_base' && rm -rf '$remote_dir'"
scp "${ssh_opts[@]}" -q -r "$bundle" "$host:$remote_dir"
scp "${ssh_opts[@]}" -q "$remote_script" "$host:$remote_dir/cloud-bench-remote.sh"

echo "== run on $host (bench N=$range, check N=$check_n, GPU $device)"
remote_status=0
remote_ssh "sh '$remote_dir/cloud-bench-remote.sh' '$range' '$check_n' '$device' '$algos' '$runs' '$warmup' '$gpu_checks'" |
	tee "$summary" || remote_status=$?

echo "== copy the results back to $local_dir"
mkdir -p "$results"
if ! scp "${ssh_opts[@]}" -q -r "$host:$remote_dir/results" "$local_dir"; then
	echo "cloud-bench: could not copy $host:$remote_dir/results back (the remote folder is kept)" >&2
	exit 1
fi
cp "$summary" "$local_dir/summary.txt"
chmod 644 "$local_dir/summary.txt"
if [ "${KEEP_REMOTE:-0}" != 1 ]; then
	remote_ssh "rm -rf '$remote_dir'" || echo "cloud-bench: could not remove $host:$remote_dir" >&2
fi

ls -l "$local_dir"
if [ "$remote_status" != 0 ]; then
	echo "cloud-bench: a step failed on $host (exit $remote_status); see $local_dir" >&2
	exit 1
fi
echo "cloud-bench: all steps passed; bench JSON: $local_dir/bench.json"
