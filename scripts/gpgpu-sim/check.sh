#!/usr/bin/env bash
# make gpusim-check: bin/nqueens-gpu itself counts on GPGPU-Sim, a
# cycle-level GPU simulator that runs the committed PTX (docs/gpu.md, "On a
# simulated GPU"), and every count must be exact. It builds the simulator
# with our driver API first where needed (scripts/gpgpu-sim/build.sh).
#
#   scripts/gpgpu-sim/check.sh [BIN]        BIN: default bin/nqueens-gpu (CUDA build)
#
# What it runs, from a temporary folder holding the SM7_QV100 (V100)
# configuration cut to GPGPUSIM_CLUSTERS SMs (default 4; the V100 has 80):
#   1. BIN -n 4-11 -device 0 -require-gpu -json, against the same on the
#      CPU: every N's Total, Unique, C1, C2, C4 and C8, and "backend":"gpu";
#   2. BIN check -n 4-10 -device 0,cpu -require-gpu (the GPU's eightfold and
#      symmetry kernels next to the CPU's and the published table);
#   2b. a count of N=GPUSIM_RESUME_N (default 11) in launches of at most
#      512 tasks, with -checkpoint, stopped by SIGINT after
#      GPUSIM_STOP_AFTER seconds (default 10) while a launch runs (the
#      simulator runs it inside cuLaunchKernel), then resumed: the stopped
#      run must save some batches and not all, the resumed one be exact;
#   3. unless GPUSIM_VARIANTS=0: the gpu package's tests on the simulated
#      GPU (TestSolveMatchesCPU for N=1..GPUSIM_TEST_MAXN, default 6: every
#      variant, several launches per N, nodes against the host's C search;
#      TestLaunch, TestOpenLoadsModules, TestDevices), then the other
#      kernels, each as in 1 with -n 4-GPUSIM_VARIANTS_MAX (default 11):
#      -gpu-variant static, -algo symmetry with -gpu-variant static,
#      dynamic and smem, -algo carrychain; and each of these and the
#      default with -gpu-nodes (the _nodes twins), -n 4-GPUSIM_NODES_MAX
#      (default 10).
# It exits 1 on any wrong count or failed run. The simulator's own output
# goes to files in the folder (kept when the check fails; KEEP=1 keeps it
# always).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=$(cd "$repo" && realpath -m "${1:-bin/nqueens-gpu}")
clusters=${GPGPUSIM_CLUSTERS:-4}
variants=${GPUSIM_VARIANTS:-1}
vmax=${GPUSIM_VARIANTS_MAX:-11}
nmax=${GPUSIM_NODES_MAX:-10}

log() { printf 'gpusim-check: %s\n' "$*" >&2; }

[ -x "$bin" ] || { log "$bin not found: make gpu first"; exit 1; }
bash "$here/build.sh"
cache=${GPGPUSIM_CACHE:-$HOME/.cache/nqueens-gpgpu-sim}
# shellcheck source=/dev/null
. "$cache/env.sh"
# The cycle-level mode: the functional one gets warp shuffles wrong (N=8:
# 60 solutions from eightfold, 24 from symmetry).
export PTX_SIM_MODE_FUNC=0

run=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-check.XXXXXX")
ok=0
trap 'if [ "$ok" = 1 ] && [ -z "${KEEP:-}" ]; then rm -rf "$run"; else log "kept $run"; fi' EXIT
cfg=$GPGPUSIM_CONFIGS/SM7_QV100
cp "$cfg/gpgpusim.config" "$cfg/config_volta_islip.icnt" "$run/"
sed -i "s/^-gpgpu_n_clusters .*/-gpgpu_n_clusters $clusters/" "$run/gpgpusim.config"
cd "$run"

start=$(date +%s)
failed=0

# compare CPU GPU: every N of GPU's JSON lines must match CPU's, and say
# backend gpu.
compare() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
keys = ["total", "unique", "count1", "count2", "count4", "count8"]
cpu = {r["n"]: r for r in map(json.loads, open(sys.argv[1]))}
gpu = [json.loads(l) for l in open(sys.argv[2])]
bad = []
if sorted(r["n"] for r in gpu) != sorted(cpu):
    bad.append("sizes: gpu %s, cpu %s" % (sorted(r["n"] for r in gpu), sorted(cpu)))
for r in gpu:
    c = cpu.get(r["n"], {})
    if r.get("backend") != "gpu":
        bad.append("N=%d: backend %r, not gpu" % (r["n"], r.get("backend")))
    for k in keys:
        if r.get(k) != c.get(k):
            bad.append("N=%d: %s gpu %s, cpu %s" % (r["n"], k, r.get(k), c.get(k)))
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
EOF
}

# count NAME ARGS...: a count of -n 4-... on the simulated GPU, compared
# with the CPU's.
count() {
	local name=$1 n=$2
	shift 2
	local t0 t1
	t0=$(date +%s)
	"$bin" -n "$n" -device cpu -json >"cpu-$n.json"
	if GPGPUSIM_STDOUT="$run/sim-$name.log" "$bin" -n "$n" -device 0 -require-gpu -json "$@" >"gpu-$name.json" 2>"err-$name.txt" &&
		compare "cpu-$n.json" "gpu-$name.json"; then
		t1=$(date +%s)
		printf 'PASS %-44s -n %s  %3d s  %s\n' "${*:-(default: eightfold, dynamic)}" "$n" $((t1 - t0)) "$(sed -n 's/.*"device_name":"\([^"]*\)".*/\1/p' "gpu-$name.json" | head -1)"
	else
		printf 'FAIL %-44s -n %s\n' "${*:-(default)}" "$n"
		grep -v '^nodes:' "err-$name.txt" | sed 's/^/  /' | head -5
		failed=1
	fi
}

count count 4-11
t0=$(date +%s)
if GPGPUSIM_STDOUT="$run/sim-check.log" "$bin" check -n 4-10 -device 0,cpu -require-gpu >check.txt 2>&1; then
	printf 'PASS %-44s -n 4-10  %3d s\n' "check -device 0,cpu" $(($(date +%s) - t0))
else
	printf 'FAIL %-44s -n 4-10\n' "check -device 0,cpu"
	sed 's/^/  /' check.txt
	failed=1
fi
# resume: a count stopped while a launch runs, and resumed (2b above).
resume() {
	local n=${GPUSIM_RESUME_N:-11} ck=$run/resume.ckpt t0 pid rc=0
	t0=$(date +%s)
	local args=(-n "$n" -device 0 -require-gpu -json -quiet -gpu-max-tasks 512 -checkpoint "$ck" -checkpoint-interval 1s)
	"$bin" -n "$n" -device cpu -json >"cpu-$n.json"
	GPGPUSIM_STDOUT="$run/sim-resume1.log" "$bin" "${args[@]}" >resume1.json 2>resume1.txt &
	pid=$!
	sleep "${GPUSIM_STOP_AFTER:-10}"
	kill -INT "$pid"
	wait "$pid" || rc=$?
	local saved
	saved=$(python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["body"]; print(b["done_batches"], b["job"]["batches"], b["complete"])' "$ck")
	read -r done all complete <<<"$saved"
	if [ "$rc" = 130 ] && [ "$done" -gt 0 ] && [ "$complete" = False ] &&
		GPGPUSIM_STDOUT="$run/sim-resume2.log" "$bin" "${args[@]}" >resume2.json 2>resume2.txt &&
		compare "cpu-$n.json" resume2.json; then
		printf 'PASS %-44s -n %s  %3d s  (%s of %s batches saved)\n' "stopped in a launch and resumed" "$n" $(($(date +%s) - t0)) "$done" "$all"
	else
		printf 'FAIL %-44s -n %s  (exit %s, %s of %s batches saved, complete %s)\n' "stopped in a launch and resumed" "$n" "$rc" "$done" "$all" "$complete"
		cat resume1.txt resume2.txt 2>/dev/null | sed 's/^/  /' | head -8
		failed=1
	fi
}
resume

# The gpu package's own tests on the simulated GPU: every kernel variant,
# with small launches too (several per N, both slots), N=1..GPUSIM_TEST_MAXN
# at two depths, counts against the CPU path and nodes against the host's
# C search (TestSolveMatchesCPU), the modules, a launch of 64-bit values
# (TestLaunch) and the device listing. Needs Go.
if [ "$variants" != 0 ] && command -v go >/dev/null; then
	t0=$(date +%s)
	(cd "$repo" && CGO_CFLAGS="-I$repo/gpu/cudacompat ${CGO_CFLAGS:-}" go test -c -tags cuda -o "$run/gpu.test" ./gpu)
	if GPGPUSIM_STDOUT="$run/sim-gotest.log" NQUEENS_REQUIRE_GPU=1 NQUEENS_TEST_MAXN=${GPUSIM_TEST_MAXN:-6} \
		"$run/gpu.test" -test.run 'TestSolveMatchesCPU|TestLaunch$|TestOpenLoadsModules|TestDevices' >gotest.txt 2>&1; then
		printf 'PASS %-44s -n 1-%s  %3d s\n' "go test ./gpu on the simulated GPU" "${GPUSIM_TEST_MAXN:-6}" $(($(date +%s) - t0))
	else
		printf 'FAIL %-44s\n' "go test ./gpu on the simulated GPU"
		grep -E -- '--- FAIL|_test.go' gotest.txt | sed 's/^/  /' | head -20
		failed=1
	fi
fi
if [ "$variants" != 0 ]; then
	i=0
	for args in "-gpu-variant static" "-algo symmetry -gpu-variant static" "-algo symmetry -gpu-variant dynamic" \
		"-algo symmetry -gpu-variant smem" "-algo carrychain"; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		count "v$i" "4-$vmax" $args
		# shellcheck disable=SC2086
		count "v$i-nodes" "4-$nmax" $args -gpu-nodes
	done
	count nodes "4-$nmax" -gpu-nodes
fi
log "$([ $failed = 0 ] && echo passed || echo FAILED) in $(($(date +%s) - start)) s on GPGPU-Sim (SM7_QV100, $clusters SMs)"
[ $failed = 0 ] && ok=1
exit $failed
