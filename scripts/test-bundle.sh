#!/usr/bin/env bash
# test-bundle.sh: checks bundle/run-gpu-checks.sh here, without a GPU, the
# way a device call runs it (at most 10 minutes a command, at most 8 files
# brought back). About half a minute after make bundle on 2 cores.
#
#   bash scripts/test-bundle.sh          make bundle, then the checks
#   BUNDLE=dir bash scripts/test-bundle.sh   the checks on a bundle made before
#
# 1. STEPS=tests,counts MAXN=8 with the real bundle: exit 3 (no GPU: the
#    run is incomplete), one "no GPU: <cause>" line, the counts step one
#    SKIP line, every test binary passes (their GPU tests skip), nothing
#    fails, the summary line last on stdout and in summary.txt, at most 8
#    files in LOGDIR, every test binary's log in logs.tar.gz. On a machine
#    with a GPU: exit 0 and no "no GPU" line instead.
# The next runs use a small bundle: the binary, gpuchecks, kernels.test and a stand-in
# test binary aaslow.test that sleeps 30 s (it runs first).
# 2. STEP_TIMEOUT=2: aaslow-test fails "timed out after 2 s", kernels-test
#    passes, exit 1, the summary line last.
# 3. TOTAL_TIMEOUT=8 BUDGET_RESERVE=5: aaslow-test is cut at the end of the
#    budget, the rest is "not run (time budget)", exit 1, the whole run
#    within the budget, the summary line last.
# 4. SIGTERM two seconds in: "interrupted by SIGTERM", exit 1, the summary
#    line last, the archive written.
# 5. ASSUME_GPU=1 STEPS=sanitizer with stand-ins for compute-sanitizer
#    (refused, as under gVisor) and nvidia-smi (no answer): the sanitizer
#    step and the driver version are skipped with their reasons, not
#    failed; exit 0.
# 6. DRY_RUN=1 STEPS=tune: the sweep of N=20 skips no shape at 48 KiB of
#    shared memory per block (gpuchecks' tests check the sizes), and the
#    256-thread eightfold shapes of N=20 at split 3 (exactly 48 KiB) are
#    planned; at MAX_SHARED=40000 the shapes over it are skipped.
# 7. Without a GPU, ASSUME_GPU=1 STEPS=counts,largen at small N: the
#    counts that fell back to the CPU fail "ran on the CPU: <cause>", their
#    classes agree with the CPU's, the CPU's shard passes and the
#    fallback's fails; exit 1.
# 8. An unknown step: exit 2.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
bundle=${BUNDLE:-}
if [ -z "$bundle" ]; then
	make bundle >/tmp/test-bundle-make.log 2>&1 || {
		tail -n 30 /tmp/test-bundle-make.log
		echo "FAIL: make bundle"
		exit 1
	}
	bundle=bundle
fi
bundle=$(cd "$bundle" && pwd) || exit 1
tmp=$(mktemp -d /tmp/test-bundle.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

failures=0
bad() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}
summary_re='^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$'

# checks NAME OUT LOGDIR WANT_RC RC: the checks every run shares: the exit
# status, the summary line last on stdout and in summary.txt, at most 8
# files in LOGDIR (counted recursively), the archive there.
checks() {
	local name=$1 out=$2 dir=$3 want=$4 rc=$5 last files
	[ "$rc" = "$want" ] || bad "$name: exit $rc, want $want"
	last=$(tail -n 1 "$out")
	[[ $last =~ $summary_re ]] || bad "$name: last line '$last' is not the summary line"
	[ "$(tail -n 1 "$dir/summary.txt" 2>/dev/null)" = "$last" ] || bad "$name: summary.txt does not end with the summary line"
	files=$(find "$dir" -type f | wc -l)
	[ "$files" -le 8 ] || bad "$name: $files files in the log folder, more than 8"
	tar -tzf "$dir/logs.tar.gz" >"$tmp/$name.tar.txt" 2>/dev/null || bad "$name: no readable logs.tar.gz"
	echo "$name: exit $rc, $files files, '$last'"
}
# has NAME OUT REGEX: OUT has a line matching REGEX (grep -E).
has() { grep -Eq -- "$3" "$2" || bad "$1: no line matching '$3'"; }

# 1. tests and counts with the real bundle.
out=$tmp/1.out
start=$SECONDS
STEPS=tests,counts MAXN=8 CARRYN=8 CLASSN=8 "$bundle/run-gpu-checks.sh" "$tmp/1" >"$out" 2>&1
rc=$?
if grep -q '^no GPU: ' "$out"; then
	checks tests-counts "$out" "$tmp/1" 3 "$rc"
	[ "$(grep -c '^no GPU: ' "$out")" = 1 ] || bad "tests-counts: 'no GPU:' more than once"
	[ "$(grep -c '^SKIP ' "$out")" = 1 ] || bad "tests-counts: want one SKIP line"
	has tests-counts "$out" '^SKIP counts \(skipped: no GPU\)$'
else
	checks tests-counts "$out" "$tmp/1" 0 "$rc"
	has tests-counts "$out" '^PASS count-eightfold-1-8 '
fi
if grep -q '^FAIL' "$out"; then
	bad "tests-counts: a FAIL line"
	grep '^FAIL' "$out"
fi
for t in "$bundle"/*.test; do
	name=$(basename "$t" .test)-test
	has tests-counts "$out" "^PASS $name "
	grep -qx "./$name.out" "$tmp/tests-counts.tar.txt" || bad "tests-counts: $name.out is not in logs.tar.gz"
done
echo "tests-counts: $((SECONDS - start)) s"

# The small bundle of runs 2 to 4.
mini=$tmp/mini
mkdir -p "$mini"
cp "$bundle/run-gpu-checks.sh" "$mini/"
ln -s "$bundle/nqueens-gpu" "$bundle/gpuchecks" "$bundle/kernels.test" "$mini/"
printf '#!/bin/sh\necho "a test binary that takes too long"\nexec sleep 30\n' >"$mini/aaslow.test"
chmod +x "$mini/aaslow.test"

# 2. A command over STEP_TIMEOUT.
out=$tmp/2.out
STEP_TIMEOUT=2 STEPS=tests "$mini/run-gpu-checks.sh" "$tmp/2" >"$out" 2>&1
checks step-timeout "$out" "$tmp/2" 1 $?
has step-timeout "$out" '^FAIL aaslow-test \([0-9]+ s\): timed out after 2 s \(STEP_TIMEOUT\)'
has step-timeout "$out" '^PASS kernels-test '

# 3. The time budget runs out.
out=$tmp/3.out
start=$SECONDS
TOTAL_TIMEOUT=8 BUDGET_RESERVE=5 STEPS=tests,counts "$mini/run-gpu-checks.sh" "$tmp/3" >"$out" 2>&1
rc=$?
took=$((SECONDS - start))
checks budget "$out" "$tmp/3" 1 "$rc"
has budget "$out" '^FAIL aaslow-test \([0-9]+ s\): timed out after [0-9]+ s \(the end of the time budget\)'
has budget "$out" '^not run \(time budget\): the rest of tests$'
[ "$took" -le 8 ] || bad "budget: the run took $took s, over TOTAL_TIMEOUT=8"

# 4. SIGTERM while a command runs.
out=$tmp/4.out
STEPS=tests "$mini/run-gpu-checks.sh" "$tmp/4" >"$out" 2>&1 &
pid=$!
sleep 2
kill -TERM "$pid"
wait "$pid"
checks sigterm "$out" "$tmp/4" 1 $?
has sigterm "$out" '^FAIL aaslow-test \([0-9]+ s\): interrupted by SIGTERM$'
has sigterm "$out" '^not run \(interrupted by SIGTERM\): the rest of tests$'

# 5. compute-sanitizer refused and no driver version, as under gVisor.
fake=$tmp/fake
mkdir -p "$fake"
printf '#!/bin/sh\necho "==ERROR== not supported in this environment (a stand-in)" >&2\nexit 1\n' >"$fake/compute-sanitizer"
printf '#!/bin/sh\necho "Failed to initialize NVML (a stand-in)"\nexit 9\n' >"$fake/nvidia-smi"
chmod +x "$fake/compute-sanitizer" "$fake/nvidia-smi"
out=$tmp/5.out
PATH=$fake:$PATH ASSUME_GPU=1 STEPS=sanitizer "$bundle/run-gpu-checks.sh" "$tmp/5" >"$out" 2>&1
checks refused-tools "$out" "$tmp/5" 0 $?
has refused-tools "$out" '^SKIP sanitizer \(skipped: compute-sanitizer refused: exit 1: ==ERROR== not supported'
if [ ! -e /proc/driver/nvidia/version ]; then
	has refused-tools "$out" '^SKIP driver \(skipped: nvidia-smi gave no version and /proc/driver/nvidia/version is missing'
	has refused-tools "$out" '^0 passed, 0 failed, 2 skipped$'
fi

# 6. The tune step's shapes fit in 48 KiB.
out=$tmp/6.out
DRY_RUN=1 STEPS=tune "$bundle/run-gpu-checks.sh" "$tmp/6" >"$out" 2>&1
checks tune-plan "$out" "$tmp/6" 0 $?
[ "$(grep -c '^SKIP tune-' "$out")" = 0 ] || bad "tune-plan: shapes skipped at MAX_SHARED=49152: $(grep '^SKIP tune-' "$out")"
[ "$(grep -c '^plan tune-' "$out")" -gt 40 ] || bad "tune-plan: fewer than 40 planned tune runs"
for s in eightfold-n20-d3-t256 eightfold-static-n20-d3-t256; do
	has tune-plan "$out" "^plan tune-$s "
done
MAX_SHARED=40000 DRY_RUN=1 STEPS=tune "$bundle/run-gpu-checks.sh" "$tmp/6b" >"$tmp/6b.out" 2>&1
checks tune-skip "$tmp/6b.out" "$tmp/6b" 0 $?
has tune-skip "$tmp/6b.out" '^SKIP tune-eightfold-n20-d3-t256 \(skipped: its stacks need 49152 B of shared memory per block, over MAX_SHARED=40000'

# 7. What gpuchecks says of the binary's output, on the CPU fallback.
if grep -q '^no GPU: ' "$tmp/1.out"; then
	out=$tmp/7.out
	ASSUME_GPU=1 STEPS=counts,largen MAXN=6 CLASSN=6 LARGEN=12 CPU_WORKERS=2 VARIANTS="static eightfold-nodes" \
		"$bundle/run-gpu-checks.sh" "$tmp/7" >"$out" 2>&1
	checks fallback "$out" "$tmp/7" 1 $?
	for re in '^FAIL count-static-1-6 \([0-9]+ s\): ran on the CPU: .' '^FAIL count-eightfold-nodes-1-6 ' \
		'^PASS classes-static-1-6 ' '^PASS classes-eightfold-nodes-1-6 ' '^PASS largen-cpu-symmetry-n12-shard0of4 ' \
		'^FAIL largen-static-n12-shard0of4 \([0-9]+ s\): ran on the CPU: .' '^[0-9]+ passed, 4 failed, '; do
		has fallback "$out" "$re"
	done
fi

# 8. A bad STEPS.
STEPS=tests,nosuchstep "$bundle/run-gpu-checks.sh" "$tmp/8" >"$tmp/8.out" 2>&1
rc=$?
[ "$rc" = 2 ] || bad "bad-step: exit $rc, want 2"

if [ "$failures" != 0 ]; then
	echo "test-bundle: $failures failures; the outputs:"
	for f in "$tmp"/*.out; do
		echo "--- $f"
		tail -n 25 "$f"
	done
	exit 1
fi
echo "test-bundle: all checks passed"
