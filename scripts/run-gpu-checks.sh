#!/usr/bin/env bash
# run-gpu-checks.sh: the GPU checks of nqueens-gpu, run from the folder that
# `make bundle` makes, on a host with an NVIDIA GPU and driver and no Go.
#
#   ./run-gpu-checks.sh [LOGDIR]      (LOGDIR defaults to ./logs here)
#
# Environment: MAXN (largest N of the counting runs, default 20), CLASSN
# (largest N whose C2/C4/C8 are compared with the CPU path, default 17),
# TIMEN (largest N of the timed runs from 18, default 22), TUNEN (the N of
# the depth and block-size sweep, default 20), DEVICE (GPU
# ordinal, default 0), STEP_TIMEOUT (seconds per step, default 900).
#
# Runs the cuda test binaries (with NQUEENS_REQUIRE_GPU=1: no skipping for
# want of a GPU) and nqueens-gpu-cuda -n 1-MAXN -device DEVICE for each GPU
# algorithm, checks every count against the published totals and that the
# GPU was used (no CPU fallback line), writes one log per step and ends
# with "N passed, M failed". Exit status 0 only when every step passed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
logs=${1:-$here/logs}
maxn=${MAXN:-20}
device=${DEVICE:-0}
step_timeout=${STEP_TIMEOUT:-900}
mkdir -p "$logs"
logs=$(cd "$logs" && pwd)
cd "$here" || exit 1

passed=0
failed=0

# STEPS picks what runs, a comma-separated list of tests, counts (the
# counts of N=1..MAXN and their classes against the CPU path), sanitizer,
# timing and tune; default all. A device call with a time limit can run
# them in several calls, each with its own LOGDIR.
steps=${STEPS:-tests,counts,sanitizer,timing,tune}
want() {
	case ",$steps," in
	*",$1,"*) return 0 ;;
	esac
	return 1
}
pass() { passed=$((passed + 1)); echo "PASS $1 ($2 s)"; }
fail() { failed=$((failed + 1)); echo "FAIL $1 ($2 s): $3"; }

# run NAME CMD...: runs CMD with stdout in LOGDIR/NAME.out and stderr in
# LOGDIR/NAME.err; sets rc and secs.
run() {
	local name=$1 start
	shift
	start=$(date +%s)
	if command -v timeout >/dev/null; then
		timeout "$step_timeout" "$@" >"$logs/$name.out" 2>"$logs/$name.err"
	else
		"$@" >"$logs/$name.out" 2>"$logs/$name.err"
	fi
	rc=$?
	secs=$(($(date +%s) - start))
}

# Published totals (OEIS A000170), N = 1..27.
known=(0 1 0 0 2 10 4 40 92 352 724 2680 14200 73712 365596 2279184 14772512
	95815104 666090624 4968057848 39029188884 314666222712 2691008701644
	24233937684440 227514171973736 2207893435808352 22317699616364044
	234907967154122528)

# check_counts FILE FROM TO: every N in FROM..TO has a table row
# "N:  Total  Unique ..." in FILE with the published Total.
check_counts() {
	local file=$1 from=$2 to=$3 n got bad=""
	for ((n = from; n <= to; n++)); do
		got=$(awk -v k="$n:" '$1 == k { print $2; exit }' "$file")
		if [ "$got" != "${known[n]}" ]; then
			bad+=" N=$n:${got:-missing}(want ${known[n]})"
		fi
	done
	[ -z "$bad" ] || { echo "$bad"; return 1; }
}

{
	echo "date: $(date -u +%FT%TZ)"
	echo "host: $(uname -a)"
	echo "glibc: $(ldd --version 2>&1 | head -n 1)"
	[ -f ptx-build.txt ] && sed 's/^/ptx /' ptx-build.txt
	if command -v nvidia-smi >/dev/null; then
		nvidia-smi --query-gpu=index,name,driver_version,memory.total,compute_cap --format=csv 2>&1
	else
		echo "nvidia-smi: not found"
	fi
} >"$logs/env.log" 2>&1
cat "$logs/env.log"

if want tests; then
	# The test binaries.
	for t in ./*.test; do
		[ -x "$t" ] || continue
		name=$(basename "$t" .test)-test
		run "$name" env NQUEENS_REQUIRE_GPU=1 "$t" -test.v -test.count=1
		if [ "$rc" = 0 ]; then
			pass "$name" "$secs"
		else
			fail "$name" "$secs" "exit $rc; see $logs/$name.out"
			tail -n 20 "$logs/$name.out"
		fi
	done
fi

# The counting runs, one per GPU algorithm, after a quick look that the
# binary uses the GPU at all (a CPU fallback would take hours for N=20).
fallback_re='running on the CPU|fall(ing)? ?back'
run preflight ./nqueens-gpu-cuda -n 1 -device "$device"
if [ "$rc" != 0 ] || grep -Eiq "$fallback_re" "$logs/preflight.err"; then
	fail preflight "$secs" "exit $rc: $(head -c 500 "$logs/preflight.err")"
	echo "$passed passed, $failed failed"
	exit 1
fi
pass preflight "$secs"
if want counts; then
	for algo in symmetry carrychain; do
		name=count-$algo-1-$maxn
		run "$name" ./nqueens-gpu-cuda -n "1-$maxn" -device "$device" -algo "$algo" -v
		if [ "$rc" != 0 ]; then
			fail "$name" "$secs" "exit $rc: $(head -c 500 "$logs/$name.err")"
		elif grep -Eiq "$fallback_re" "$logs/$name.err"; then
			fail "$name" "$secs" "ran on the CPU: $(head -c 500 "$logs/$name.err")"
		elif ! why=$(check_counts "$logs/$name.out" 1 "$maxn"); then
			fail "$name" "$secs" "wrong counts:$why"
		else
			pass "$name" "$secs"
		fi
		cat "$logs/$name.out"
	done

	# The class counts: every GPU algorithm's Total, Unique, C2, C4 and C8
	# equal the CPU path's for N <= CLASSN (default 17).
	classn=${CLASSN:-17}
	[ "$classn" -gt "$maxn" ] && classn=$maxn
	run "count-cpu-1-$classn" ./nqueens-gpu-cuda -n "1-$classn" -device cpu -v
	for algo in symmetry carrychain; do
		name=classes-$algo-1-$classn
		start=$(date +%s)
		# columns 1-6 of the -v table: N, Total, Unique, C2, C4, C8
		if diff <(awk '$1 ~ /^[0-9]+:$/ { print $1, $2, $3, $4, $5, $6 }' "$logs/count-cpu-1-$classn.out") \
			<(awk -v m="$classn" '$1 ~ /^[0-9]+:$/ && $1 + 0 <= m { print $1, $2, $3, $4, $5, $6 }' "$logs/count-$algo-1-$maxn.out") \
			>"$logs/$name.diff"; then
			pass "$name" $(($(date +%s) - start))
		else
			fail "$name" $(($(date +%s) - start)) "GPU and CPU classes differ; see $logs/$name.diff"
		fi
	done
fi

# compute-sanitizer (part of the CUDA toolkit) on a small N: memory errors
# and shared-memory races in both kernels.
if want sanitizer && sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null); then
	for tool in memcheck racecheck; do
		for algo in symmetry carrychain; do
			name=sanitizer-$tool-$algo
			run "$name" "$sanitizer" --tool "$tool" --error-exitcode 99 ./nqueens-gpu-cuda -n 11 -device "$device" -algo "$algo"
			if [ "$rc" = 0 ] && grep -q 'ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards' "$logs/$name.err" "$logs/$name.out"; then
				pass "$name" "$secs"
			else
				fail "$name" "$secs" "exit $rc; see $logs/$name.err"
			fi
		done
	done
elif want sanitizer; then
	echo "compute-sanitizer: not found, skipped (not counted)"
fi

if want timing; then
	# Timings for the benchmark record: one JSON line per N with the wall time
	# of the count (the process's own start-up is in the step's time).
	timen=${TIMEN:-22}
	for algo in symmetry carrychain; do
		name=time-$algo-18-$timen
		run "$name" ./nqueens-gpu-cuda -n "18-$timen" -device "$device" -algo "$algo" -json
		if [ "$rc" = 0 ] && ! grep -Eiq "$fallback_re" "$logs/$name.err"; then
			pass "$name" "$secs"
		else
			fail "$name" "$secs" "exit $rc: $(head -c 500 "$logs/$name.err")"
		fi
		cat "$logs/$name.out"
	done
fi

if want tune; then
	# Tuning sweep (information for the benchmark record, not a check): the
	# symmetry kernel at N=TUNEN (default 20) for each depth and block size,
	# then with dynamic fetching at N=TUNEN and the next N. Every run must
	# still give the published total.
	# tune LABEL N DEPTH THREADS [FLAGS...]: one timed count.
	tune() {
		local label=$1 n=$2 depth=$3 threads=$4 name
		shift 4
		name=tune-$label-n$n-d$depth-t$threads
		run "$name" ./nqueens-gpu-cuda -n "$n" -device "$device" -algo symmetry -quiet -json \
			-depth "$depth" -gpu-threads "$threads" "$@"
		if [ "$rc" = 0 ] && grep -q "\"total\":${known[n]}," "$logs/$name.out"; then
			pass "$name" "$secs"
		else
			fail "$name" "$secs" "exit $rc: $(head -c 300 "$logs/$name.err")"
		fi
		echo "$label n=$n depth=$depth threads=$threads $(cat "$logs/$name.out")"
	}
	tunen=${TUNEN:-20}
	for depth in 6 7 8; do
		for threads in 64 128 256; do
			tune static "$tunen" "$depth" "$threads"
		done
	done
	for n in "$tunen" $((tunen + 1)); do
		for depth in 6 7 8; do
			for threads in 128 256; do
				tune dynamic "$n" "$depth" "$threads" -gpu-dynamic
			done
		done
	done
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
