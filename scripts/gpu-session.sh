#!/usr/bin/env bash
# gpu-session.sh: one device call that measures nqueens-gpu on a GPU host,
# most important first, under one time budget. `make bundle` copies it
# into bundle/ (with ../shared's peer counters when they are there); run it
# from the repository root of the GPU host:
#
#   BUDGET=480 bash bundle/gpu-session.sh $OUT      (timeout_s 550)
#
# What it runs, in order, each only while BUDGET (seconds, default 480)
# leaves room for it:
#   1. the environment (nvidia-smi, nvcc, `nqueens-gpu devices`) and the
#      README's GPU quick start, -n 20 -device 0;
#   2. our default count, one process per N of TIMES (default 18 19 20 21),
#      -json; then N=18, 19 and 20 again with -gpu-trace (the start's
#      steps, gpu-open and gpu-start, and each launch's tasks, levels and
#      when it was packed, queued and done);
#   2b. issue 33's measures for docs/benchmarks.md: N=22 with -checkpoint
#      stopped by SIGINT 20 s in, then resumed (each process's wall and
#      exit status, and the resumed count's seconds of both runs), next to
#      an uninterrupted N=22 (-json); -device 0,cpu and -device 0 at N=21,
#      twice each, alternating (-json);
#   3. ygch's n_queens at the same N (bundle/shared/bench/peer-gpu.sh);
#   4. run-gpu-checks.sh STEPS=tests,counts,sanitizer, MAXN=18 (OUT/checks);
#   5. run-gpu-checks.sh STEPS=profile on a steady launch of nq_eightfold
#      at N=21 (OUT/profile);
#   6. our default count at N=22;
#   7. the seeds' author's CUDA program for N up to SEEDS_MAXN (default 20),
#      its rows read from its own output (gpuchecks seeds-rows: seconds,
#      Total, and 1 in the last column when the Total is the published one).
# OUT gets main.log (every command's output, and a "[Ts] rc= wall=" line
# after each), peers.tsv, and the summary.txt and logs.tar.gz of steps 4
# and 5: six files, under the device tool's eight.
set -uo pipefail
out=${1:-${OUT:-./session-out}}
budget=${BUDGET:-480}
times=${TIMES:-18 19 20 21}
here=$(cd "$(dirname "$0")" && pwd)
t0=$(date +%s)
mkdir -p "$out"
main="$out/main.log"
left() { echo $((budget - ($(date +%s) - t0))); }
log() { echo "[$(($(date +%s) - t0))s] $*" | tee -a "$main"; }
# run LIMIT CMD...: CMD under timeout(1), its output in main.log, then its
# exit status and wall seconds.
run() {
	local limit=$1 a b rc
	shift
	a=$(date +%s.%N)
	timeout "$limit" "$@" >>"$main" 2>&1
	rc=$?
	b=$(date +%s.%N)
	log "rc=$rc wall=$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.3f", b-a}') :: $*"
	return $rc
}
cd "$here" || exit 2

log "=== environment"
run 20 nvidia-smi
run 20 nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu,persistence_mode --format=csv
run 10 uname -a
run 10 nvcc --version
run 30 ./nqueens-gpu devices
log "=== quick start: -n 20 -device 0 (the first process pays the PTX JIT)"
run 60 ./nqueens-gpu -n 20 -device 0

log "=== ours, N=$times"
for n in $times; do
	run 120 ./nqueens-gpu -n "$n" -device 0 -json
done
run 20 nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv
log "=== the start's steps and the launches' timeline (-gpu-trace), N=18, 19 and 20"
for n in 18 19 20; do
	run 60 ./nqueens-gpu -n "$n" -device 0 -json -quiet -gpu-trace
done

log "=== a stop and a resume: N=22 with -checkpoint, SIGINT 20 s in, resumed; N=22 uninterrupted (left $(left) s)"
if (($(left) > 260)); then
	ck=/tmp/nq-session-n22.ckpt
	rm -f "$ck"
	a=$(date +%s.%N)
	./nqueens-gpu -n 22 -device 0 -json -quiet -gpu-trace -checkpoint "$ck" -checkpoint-interval 5s >>"$main" 2>&1 &
	pid=$!
	sleep 20
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	log "rc=$rc wall=$(awk -v a="$a" -v b="$(date +%s.%N)" 'BEGIN{printf "%.3f", b-a}') :: N=22 stopped by SIGINT 20 s in"
	run 120 ./nqueens-gpu -n 22 -device 0 -json -quiet -checkpoint "$ck"
	run 120 ./nqueens-gpu -n 22 -device 0 -json -quiet
fi
log "=== the CPU next to the GPU: N=21, -device 0,cpu and -device 0, twice each (left $(left) s)"
if (($(left) > 120)); then
	for dev in 0,cpu 0 0,cpu 0; do
		run 60 ./nqueens-gpu -n 21 -device "$dev" -json -quiet
	done
fi

peers=$here/shared/bench/peer-gpu.sh
if [ -x "$peers" ]; then
	log "=== ygch, N=$times"
	# shellcheck disable=SC2086 # times is a list of N
	SUZUKI_MAXN=0 PEER_TIMEOUT=90 PEER_WORK=/tmp/nq-peers timeout 200 "$peers" $times >"$out/peers.tsv" 2>>"$main"
	cat "$out/peers.tsv" >>"$main"
else
	log "=== no peers in the bundle (make bundle copies them from ../shared)"
fi

log "=== checks (left $(left) s)"
limit=$(($(left) - 200))
((limit > 300)) && limit=300
if ((limit > 30)); then
	STEPS=tests,counts,sanitizer MAXN=18 CARRYN=18 TOTAL_TIMEOUT=$limit ./run-gpu-checks.sh "$out/checks" >>"$main" 2>&1
	log "checks: exit $?"
	grep -E '^(PASS|FAIL|SKIP)|passed,' "$out/checks/summary.txt" >>"$main"
fi

log "=== ncu, a steady launch of nq_eightfold at N=21 (left $(left) s)"
if (($(left) > 180)); then
	STEPS=profile PROFILEN=21 PROFILE_SKIP=12 PROFILE_VARIANTS=eightfold TOTAL_TIMEOUT=120 \
		./run-gpu-checks.sh "$out/profile" >>"$main" 2>&1
	log "profile: exit $?"
fi

log "=== ours, N=22 (left $(left) s)"
(($(left) > 150)) && run $(($(left) - 40)) ./nqueens-gpu -n 22 -device 0 -json

log "=== the seeds' program up to N=${SEEDS_MAXN:-20} (left $(left) s)"
if [ -x "$peers" ] && (($(left) > 40)); then
	# peer-gpu.sh's pattern for this program's rows (^ *N:) misses them:
	# the program prints its progress on the same line, before "N:".
	# gpuchecks seeds-rows reads them from the end of each line.
	seeds_n=$(seq -s ' ' 18 "${SEEDS_MAXN:-20}")
	# shellcheck disable=SC2086 # a list of N
	SUZUKI_MAXN=${SEEDS_MAXN:-20} PEER_TIMEOUT=$(($(left) - 25)) PEER_WORK=/tmp/nq-seeds \
		timeout $(($(left) - 10)) "$peers" $seeds_n >>"$main" 2>&1
	./gpuchecks seeds-rows -from 18 /tmp/nq-seeds/suzuki.out 2>>"$main" | tee -a "$out/peers.tsv" >>"$main"
fi
log "=== done (left $(left) s)"
