#!/usr/bin/env bash
# run-gpu-checks.sh: the GPU checks of nqueens-gpu, run from the folder that
# `make bundle` makes, on a host with an NVIDIA GPU and driver and no Go.
#
#   ./run-gpu-checks.sh [LOGDIR]      (LOGDIR defaults to ./logs here)
#
# Kernel variants (VARIANTS, a space-separated list; default all twelve):
#   eightfold   -algo eightfold              nq_eightfold: Total by eightfold pre-placements, dynamic fetching,
#                                            stacks in shared memory (the default kernel)
#   eightfold-static -algo eightfold -gpu-variant static  nq_eightfold_static: one task per thread
#   static      -algo symmetry               nq_symmetry_boards: one board per thread
#   dynamic     -algo symmetry -gpu-dynamic  nq_symmetry_boards_dyn: dynamic fetching, stack in local memory
#   smem        -algo symmetry -gpu-smem     nq_symmetry_boards_smem: dynamic fetching, stack in shared memory
#   carrychain  -algo carrychain             nq_carry_frames
#   V-nodes     V's flags and -gpu-nodes     V's node-counting twin (*_nodes), for each V above
#
# A preflight runs first: N=1 on the GPU. When the binary falls back to the
# CPU there is no usable GPU: the script says "no GPU: <cause>" once, runs
# the test binaries without NQUEENS_REQUIRE_GPU (their GPU tests skip),
# and reports every other step asked for as skipped. When the preflight
# fails otherwise (the GPU is there but does not count), the test binaries
# still run and the other steps are not run. With a GPU the preflight also
# checks the driver's version (R520 or newer: PTX ISA 7.8), from
# nvidia-smi or /proc/driver/nvidia/version, and reports it skipped, not
# failed, where neither gives it (gVisor, for one, has no
# /proc/driver/nvidia).
#
# Steps (STEPS, comma-separated; default tests,counts,largen,sanitizer,
# nodes,timing,tune). A device call with a time limit runs the steps in
# several calls, each with its own LOGDIR.
#   tests      the cuda test binaries, with NQUEENS_REQUIRE_GPU=1 (no
#              skipping for want of a GPU) when the preflight found one.
#   counts     each variant counts N=1..MAXN (carrychain and
#              carrychain-nodes N=1..CARRYN): every Total is the published
#              one, no CPU-fallback line, and Total, Unique, C2, C4, C8 equal
#              the CPU path's for N <= CLASSN. A -nodes variant must print a
#              "nodes: K" line, and the three symmetry -nodes variants the
#              same node counts (a node count depends only on N, the
#              algorithm and the depth).
#   largen     exactness at large N, where no full count is cheap: for each
#              N of LARGEN, shard 0 of M of the job (-shard 0/M -json
#              -quiet) is counted by each variant on the GPU and once per
#              algorithm on the CPU (-device cpu -workers CPU_WORKERS); each
#              GPU result must equal the CPU's in N, algorithm, shard,
#              batches, job batches, task-list fingerprint and partial sums
#              (orbit1, orbit2, orbit4, orbit8), and hold solutions. Both
#              sides of the symmetry runs pass -depth D (LARGEN_DEPTH, default
#              the CPU's default depth of N: 7 for N=18..23, the depth of the
#              fixed column-loss bug at N=22), so their task lists agree.
#              M = max(4, ceil(F * 17 * 7^(N-17) / (0.75 * CPU_WORKERS *
#              LARGEN_CPU_S))): one core does N=17 in about 17 s, each N
#              costs about 7 times the one before, 3/4 of the nominal
#              speed-up; F = 1 for symmetry, 4 for the carry chain (its CPU
#              search costs about 4 times as much). With 16 cores and 40 s:
#              N=21 86 shards (carry chain 341), N=22 596 (2381), N=23 4167
#              (16667).
#   sanitizer  compute-sanitizer memcheck and racecheck, N=11, each variant.
#              A probe (memcheck of N=4) runs first: where compute-sanitizer
#              is missing, or refused (it ends without its "ERROR SUMMARY"
#              line, as in gVisor), the step is reported skipped with the
#              reason, not failed.
#   nodes      for each kernel of NODES_VARIANTS (default static) and
#              N=18..TIMEN: the kernel with -gpu-nodes (its "nodes: K (R
#              nodes/s)" stderr line) and the same N without it (the plain
#              wall time). nodes.tsv: N, kernel, nodes, wall_s (the
#              plain run's JSON "seconds": the count's wall time, without
#              the process's start-up), nodes_per_s (nodes / wall_s),
#              nodes_run_s (the -gpu-nodes run's "seconds"). Totals must be
#              the published ones. Once an N took over NODES_STOP_S seconds
#              (default 200, both runs together), the kernel's larger N are
#              skipped.
#   timing     each variant without -nodes, N=18..TIMEN, one process per N
#              (-json; timing.tsv: variant, N, seconds, process_s);
#              totals must be the published ones. A variant stops after its
#              first run over TIME_STOP_S seconds.
#   profile    (not in the default list) ncu of one launch (the one after
#              PROFILE_SKIP, default 2) of each kernel of PROFILE_VARIANTS
#              (default: the eightfold and symmetry ones) at N=PROFILEN
#              (default 19): profile-V.txt with speed of light,
#              occupancy, warp state, scheduler, instruction, pipe and
#              shared-memory statistics, the source counters (where lanes
#              diverge) and the executed instructions; skipped, and not
#              failed, without ncu or where ncu is refused. The launch size
#              ramps up over the first launches: PROFILEN=21 PROFILE_SKIP=12
#              profiles a steady one (the H200's third launch at N=20 ran
#              35 ms with its SMs idle a third of it).
#   tune       (a record; every run must still give the published total)
#              the eightfold kernels at N=TUNEN for splits 3 and 4 and blocks
#              of 64, 128, 256 threads; the static kernel at N=TUNEN for
#              depths 6, 7, 8 and the same blocks; -gpu-dynamic and -gpu-smem
#              at N=TUNEN and TUNEN+1 for depths 6, 7, 8 and blocks of 128,
#              256. A shape whose shared-memory stacks need more than
#              MAX_SHARED bytes per block (default 49152, the 48 KiB a block
#              gets without the opt-in attribute; the binary sets the
#              opt-in up to the GPU's limit, so MAX_SHARED=232448 tries the
#              larger shapes on an H100 or H200) is skipped with its size, by
#              the arithmetic of gpu/kernels.go: eightfold 16 B x frames x
#              threads, frames = max(1, N-5-split) (the gpu package
#              splits the tasks of N-3-split levels; N=20: 256 threads
#              need 49,152 B at split 3, which fits); smem 4 B x
#              (2N-1-depth) x threads.
#
# Time: TOTAL_TIMEOUT (default 570 s, under the 600 s a device command may
# run) bounds the whole script. Each command runs under timeout(1) with the
# smaller of STEP_TIMEOUT (default TOTAL_TIMEOUT) and what is left of the
# budget less BUDGET_RESERVE (default 5 s, kept for the summary and the
# archive); a command that hits its limit fails ("timed out after T s").
# Once the budget is spent, the commands and steps left are reported "not
# run (time budget)" and counted as skipped. SIGTERM or SIGINT stops the
# command that runs, counts it failed ("interrupted"), and the script still
# writes the archive and the summary line.
#
# Environment: MAXN (largest N of counts, default 20), CARRYN (largest N of
# the carry chain's counts, default 19, or MAXN if smaller: its host-side
# frame enumeration takes about 9 s at N=20 on one core and doubles with
# each N; largen covers the carry chain at N >= 20, where its kernel lost
# columns before the fix), CLASSN (default 17), LARGEN (default "21 22"),
# LARGEN_CPU_S (default 40), LARGEN_DEPTH, CPU_WORKERS (default nproc),
# NODES_VARIANTS (default static), NODES_STOP_S (default 200), TIMEN
# (largest N of nodes and timing, default 22), TIME_FROM (their first N,
# default 18), TIME_STOP_S (default 300), TUNEN (default 20), MAX_SHARED
# (default 49152), PROFILEN, PROFILE_SKIP, PROFILE_VARIANTS (profile,
# above), VARIANTS, DEVICE (GPU ordinal, default 0),
# TOTAL_TIMEOUT, STEP_TIMEOUT, BUDGET_RESERVE (seconds, above), DRY_RUN=1
# (print each command with its time limit, "plan NAME: ...", and run
# nothing; the preflight is assumed to find a GPU), ASSUME_GPU=1 (for
# testing this script without a GPU: the preflight runs but is not judged,
# and every step runs as on a GPU, where the binary's GPU checks then fail
# on the CPU fallback; the skip paths of sanitizer, profile and the driver
# version can be tried with stand-in tools on PATH).
#
# Durations on one H100 with 16 cores, estimated before any GPU run (the
# kernels' speed is still unmeasured; docs/gpu.md, "Checks on a GPU host",
# has the arithmetic): tests and counts together 3-5 min; largen 2.5-4 min
# per N (the CPU shards about 40 s each, and the carry chain's
# single-threaded frame enumeration, about 20 s at N=21 and 40 s at N=22 in
# every carry-chain run, GPU or CPU); sanitizer a few minutes; nodes and
# timing as fast as the kernels are (each N costs 7 times the one before:
# with the symmetry kernels at 45 s for N=22, nodes takes about 2 min and
# timing about 3 min plus the carry chain's, whose search is 3 to 4 times
# larger); tune about 5 min at TUNEN=19 (at TUNEN=20 the -gpu-dynamic and
# -gpu-smem runs of N=21 alone take over 9). For calls of at most 10
# minutes: STEPS=tests,counts, then STEPS=largen LARGEN=21, STEPS=largen
# LARGEN=22, STEPS=sanitizer, STEPS=nodes, STEPS=timing VARIANTS="static
# dynamic smem", STEPS=timing VARIANTS=carrychain, STEPS=tune TUNEN=19,
# each with its own LOGDIR; lower TIMEN when N=21 already takes over a
# minute.
#
# Output: at most four files in LOGDIR, whatever runs: summary.txt (the
# environment, one PASS, FAIL or SKIP line per check, and the summary
# line), logs.tar.gz (every command's NAME.out and NAME.err and the other
# files the steps write, rewritten after each command, so a kill leaves
# the logs up to it), and nodes.tsv and timing.tsv when those steps run.
# The last line of output is "N passed, M failed, K skipped": skipped
# counts the checks skipped (a missing or refused tool, a tune shape over
# MAX_SHARED, a missing driver version), the steps not run without a GPU,
# and each step that the time budget or a signal cut or left out.
#
# Exit status: 0 when every check that ran passed and every step ran on a
# GPU; 1 when a check failed (a timeout and an interruption included); 2
# for a bad variant, step or setting; 3 when nothing failed but the run is
# incomplete: no GPU, or the time budget ran out.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
outdir=${1:-$here/logs}
maxn=${MAXN:-20}
device=${DEVICE:-0}
total_timeout=${TOTAL_TIMEOUT:-570}
step_timeout=${STEP_TIMEOUT:-$total_timeout}
reserve=${BUDGET_RESERVE:-5}
max_shared=${MAX_SHARED:-49152}
dry_run=${DRY_RUN:-}
[ "$dry_run" = 0 ] && dry_run=
variants=${VARIANTS:-eightfold eightfold-static static dynamic smem carrychain eightfold-nodes eightfold-static-nodes static-nodes dynamic-nodes smem-nodes carrychain-nodes}
nodes_variants=${NODES_VARIANTS:-static}
steps=${STEPS:-tests,counts,largen,sanitizer,nodes,timing,tune}
all_steps="tests counts largen sanitizer nodes timing tune profile"

usage_error() {
	echo "run-gpu-checks: $*" >&2
	exit 2
}
for v in total_timeout step_timeout reserve max_shared maxn; do
	case ${!v} in
	'' | *[!0-9]*) usage_error "$v must be a whole number, not '${!v}'" ;;
	esac
done
for s in ${steps//,/ }; do
	case " $all_steps " in
	*" $s "*) ;;
	*) usage_error "unknown step '$s' in STEPS: want some of ${all_steps// /,}" ;;
	esac
done

# vflags VARIANT: sets the array vf to the variant's flags and valgo to
# its algorithm; fails for an unknown variant.
vflags() {
	case ${1%-nodes} in
	eightfold) vf=(-algo eightfold) valgo=eightfold ;;
	eightfold-static) vf=(-algo eightfold -gpu-variant static) valgo=eightfold ;;
	static) vf=(-algo symmetry) valgo=symmetry ;;
	dynamic) vf=(-algo symmetry -gpu-dynamic) valgo=symmetry ;;
	smem) vf=(-algo symmetry -gpu-smem) valgo=symmetry ;;
	carrychain) vf=(-algo carrychain) valgo=carrychain ;;
	*) return 1 ;;
	esac
	case $1 in
	*-nodes-nodes) return 1 ;;
	*-nodes) vf+=(-gpu-nodes) ;;
	esac
}
for v in $variants $nodes_variants; do
	vflags "$v" || usage_error "unknown variant '$v': want eightfold, eightfold-static, static, dynamic, smem or carrychain, each with or without -nodes"
done

mkdir -p "$outdir" || exit 2
outdir=$(cd "$outdir" && pwd)
cd "$here" || exit 2
# The logs of the commands gather in a private folder, and the archive
# LOGDIR/logs.tar.gz holds them: a device call brings back only a few
# files.
logs=$(mktemp -d "${TMPDIR:-/tmp}/gpu-checks.XXXXXX") || exit 2
summary=$outdir/summary.txt
: >"$summary"

passed=0
failed=0
skipped=0
child=""     # the pid of the command that runs
current=""   # its name
step=""      # the step that runs
started=" "  # the steps begun
cut=""       # the steps the time budget cut short or left out
reported=" " # the steps the preflight reported skipped
gpu=unknown  # yes, no (no usable GPU) or broken (the preflight failed)

want() {
	case ",$steps," in
	*",$1,"*) return 0 ;;
	esac
	return 1
}
# say LINE: a line on stdout and in summary.txt.
say() {
	printf '%s\n' "$*"
	printf '%s\n' "$*" >>"$summary"
}
pass() {
	passed=$((passed + 1))
	say "PASS $1 ($2 s)"
}
fail() {
	failed=$((failed + 1))
	say "FAIL $1 ($2 s): $3"
}
skip() {
	skipped=$((skipped + 1))
	say "SKIP $1 (skipped: $2)"
}

# archive: LOGDIR/logs.tar.gz from the logs so far (written aside, then
# renamed, so a kill never leaves half an archive).
archive() {
	tar -C "$logs" -czf "$outdir/.logs.tar.gz.part" . 2>/dev/null &&
		mv -f "$outdir/.logs.tar.gz.part" "$outdir/logs.tar.gz"
}

# budget_left: the seconds a command may still take.
budget_left() { echo $((total_timeout - reserve - SECONDS)); }

# note_cut_step STEP: the time budget (or a signal) cut STEP short or
# left it out; note_cut: the step that runs.
note_cut_step() {
	case " $cut " in
	*" $1 "*) ;;
	*) cut+=" $1" ;;
	esac
}
note_cut() { note_cut_step "$step"; }

# run NAME CMD...: runs CMD with stdout in NAME.out and stderr in NAME.err
# (in the archive) under the time limit (see the header); sets rc, secs and
# timedout (the limit when it hit it, else 0). Returns 1 without running
# CMD when the budget is spent (the step is noted as cut) and under
# DRY_RUN (which prints the command). cap=S before the call lowers the
# limit to S seconds.
run() {
	local name=$1 limit left start bound=STEP_TIMEOUT
	shift
	rc=0 secs=0 timedout=0 limit_why=""
	left=$(budget_left)
	limit=$step_timeout
	if [ -n "${cap:-}" ] && [ "$cap" -lt "$limit" ]; then
		limit=$cap bound="the limit of $name"
	fi
	if [ "$left" -lt "$limit" ]; then
		limit=$left bound="the end of the time budget"
	fi
	if [ -n "$dry_run" ]; then
		say "plan $name (limit ${cap:-$step_timeout} s): $*"
		return 1
	fi
	if [ "$limit" -lt 1 ]; then
		note_cut
		return 1
	fi
	current=$name
	start=$SECONDS
	# In the background, so that a signal to the script is handled at
	# once (wait returns) and not when the command ends.
	if command -v timeout >/dev/null; then
		timeout -k 2 "$limit" "$@" >"$logs/$name.out" 2>"$logs/$name.err" &
	else
		"$@" >"$logs/$name.out" 2>"$logs/$name.err" &
	fi
	child=$!
	wait "$child"
	rc=$?
	child=""
	current=""
	secs=$((SECONDS - start))
	if { [ "$rc" = 124 ] || [ "$rc" = 137 ]; } && [ "$secs" -ge "$limit" ]; then
		timedout=$limit limit_why=$bound
		[ "$bound" = "the end of the time budget" ] && note_cut
	fi
	archive
	return 0
}

# why_rc: how the last run ended, for a FAIL line.
why_rc() {
	if [ "$timedout" != 0 ]; then
		echo "timed out after $timedout s ($limit_why)"
	else
		echo "exit $rc"
	fi
}

# begin STEP: true when STEP is asked for and can run; notes it as begun.
# Without a usable GPU every step but tests is left out (the preflight
# reported them); with the budget spent the step is noted as cut.
begin() {
	want "$1" || return 1
	step=$1
	if [ "$1" != tests ] && [ "$gpu" != yes ] && [ -z "$dry_run" ]; then
		return 1
	fi
	started+="$1 "
	if [ -z "$dry_run" ] && [ "$(budget_left)" -lt 1 ]; then
		note_cut
		return 1
	fi
	return 0
}

# finish [REASON]: reports the steps not run (REASON: "time budget" unless
# given), prints the summary line, writes the archive and exits.
finish() {
	local reason=${1:-time budget} s left=() code
	trap '' TERM INT
	for s in ${steps//,/ }; do
		case "$started$reported" in
		*" $s "*) ;;
		*) note_cut_step "$s" ;;
		esac
	done
	for s in $cut; do
		case "$started" in
		*" $s "*) left+=("the rest of $s") ;;
		*) left+=("$s") ;;
		esac
		skipped=$((skipped + 1))
	done
	if [ "${#left[@]}" -gt 0 ]; then
		say "not run ($reason): $(
			IFS=,
			echo "${left[*]}" | sed 's/,/, /g'
		)"
	fi
	code=0
	if [ "$failed" -gt 0 ]; then
		code=1
	elif [ -z "$dry_run" ] && { [ "$gpu" != yes ] || [ -n "$cut" ]; }; then
		code=3
	fi
	say "$passed passed, $failed failed, $skipped skipped"
	archive
	rm -rf "$logs"
	exit "$code"
}

# on_signal SIG: stops the command that runs (counted failed), then
# finishes.
on_signal() {
	trap '' TERM INT
	if [ -n "$child" ]; then
		kill -TERM "$child" 2>/dev/null
		wait "$child" 2>/dev/null
		child=""
		fail "${current:-command}" 0 "interrupted by SIG$1"
		note_cut
	else
		fail script 0 "interrupted by SIG$1"
	fi
	finish "interrupted by SIG$1"
}
trap 'on_signal TERM' TERM
trap 'on_signal INT' INT

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

# json_field FILE KEY: the value of "KEY" in the first line of FILE that
# has it (a number or a string without commas or braces), or nothing.
json_field() {
	grep -o "\"$2\":[^,}]*" "$1" 2>/dev/null | head -n 1 | cut -d: -f2- | tr -d '"'
}

# nodes_list FILE: the K of each "nodes: K (R nodes/s)" line of FILE, one
# per line, in order.
nodes_list() {
	grep -Eo 'nodes: [0-9]+' "$1" 2>/dev/null | awk '{ print $2 }'
}

# The CPU-fallback line of the binary ("...; running on the CPU with K
# workers"): a GPU run that prints it did not use the GPU.
fallback_re='running on the CPU|fall(ing)? ?back'
fell_back() { grep -Eiq "$fallback_re" "$1"; }

# head_err NAME: the start of NAME's stderr, for a FAIL line.
head_err() { head -c 500 "$logs/$1.err" 2>/dev/null; }

# json_ok NAME N: the run NAME (rc as run left it) exited 0, did not fall
# back to the CPU, and its -json line has the published total of N;
# otherwise prints why and fails.
json_ok() {
	local name=$1 n=$2 total
	if [ "$rc" != 0 ]; then
		echo "$(why_rc): $(head_err "$name")"
		return 1
	fi
	if fell_back "$logs/$name.err"; then
		echo "ran on the CPU: $(head_err "$name")"
		return 1
	fi
	total=$(json_field "$logs/$name.out" total)
	if [ "$total" != "${known[n]}" ]; then
		echo "N=$n: total ${total:-missing}, want ${known[n]}"
		return 1
	fi
}

# The environment, at the top of summary.txt.
{
	echo "date: $(date -u +%FT%TZ)"
	echo "host: $(uname -a)"
	echo "glibc: $(ldd --version 2>&1 | head -n 1)"
	echo "cpus: $(nproc 2>&1)"
	echo "steps: $steps"
	echo "variants: $variants"
	echo "budget: TOTAL_TIMEOUT=$total_timeout STEP_TIMEOUT=$step_timeout BUDGET_RESERVE=$reserve"
	[ -f ptx-build.txt ] && sed 's/^/ptx /' ptx-build.txt
	if command -v nvidia-smi >/dev/null; then
		timeout 30 nvidia-smi --query-gpu=index,name,driver_version,memory.total,compute_cap --format=csv 2>&1
	else
		echo "nvidia-smi: not found"
	fi
	if [ -r /proc/driver/nvidia/version ]; then
		sed 's/^/proc: /' /proc/driver/nvidia/version
	else
		echo "proc: /proc/driver/nvidia/version missing"
	fi
} >"$logs/env.log" 2>&1
cat "$logs/env.log"
cat "$logs/env.log" >>"$summary"

# The preflight: does the binary count on the GPU at all (a CPU fallback
# would take hours for N=20)?
step=preflight
if [ -n "$dry_run" ]; then
	cap=120 run preflight ./nqueens-gpu -n 1 -device "$device"
	gpu=yes
elif cap=120 run preflight ./nqueens-gpu -n 1 -device "$device"; then
	if [ "${ASSUME_GPU:-}" = 1 ]; then
		gpu=yes
		say "preflight: exit $rc, not judged (ASSUME_GPU=1: the steps run as on a GPU)"
	elif [ "$rc" = 0 ] && ! fell_back "$logs/preflight.err"; then
		gpu=yes
		pass preflight "$secs"
	elif [ "$rc" = 0 ]; then
		# The binary's line: "nqueens-gpu: no GPU available (CAUSE); to use
		# a GPU: ...; running on the CPU with K workers".
		gpu=no
		cause=$(head -n 1 "$logs/preflight.err" | sed -e 's/^nqueens-gpu: //' -e 's/; to use a GPU.*//' \
			-e 's/; running on the CPU.*//' -e 's/^no GPU available (\(.*\))$/\1/' | head -c 400)
		say "no GPU: ${cause:-the binary fell back to the CPU}"
	else
		gpu=broken
		fail preflight "$secs" "$(why_rc): $(head_err preflight)"
	fi
	# The steps that need a GPU, reported once.
	if [ "$gpu" != yes ]; then
		list=""
		for s in ${steps//,/ }; do
			[ "$s" = tests ] && continue
			reported+="$s "
			skipped=$((skipped + 1))
			list+="${list:+, }$s"
		done
		why="no GPU"
		[ "$gpu" = broken ] && why="the preflight failed"
		if [ -n "$list" ]; then
			say "SKIP $list (skipped: $why)"
		fi
		if want tests && [ "$gpu" = no ]; then
			say "(the test binaries run without NQUEENS_REQUIRE_GPU: their GPU tests skip)"
		fi
	fi
else
	finish
fi

# The driver's version: the PTX is ISA 7.8 (nvcc 11.8), which needs R520
# or newer. Without nvidia-smi's answer and /proc/driver/nvidia/version
# (a sandbox such as gVisor) it is skipped.
if [ "$gpu" = yes ] && [ -z "$dry_run" ]; then
	drv="" src=""
	if command -v nvidia-smi >/dev/null; then
		drv=$(timeout 30 nvidia-smi --query-gpu=driver_version --format=csv,noheader -i "$device" 2>/dev/null | head -n 1 | tr -d ' ')
		src=nvidia-smi
	fi
	case $drv in
	[0-9]*) ;;
	*)
		drv=$(sed -n 's/.*Kernel Module[^0-9]*\([0-9][0-9.]*\).*/\1/p' /proc/driver/nvidia/version 2>/dev/null | head -n 1)
		src=/proc/driver/nvidia/version
		;;
	esac
	if [ -z "$drv" ]; then
		why="nvidia-smi gave no version"
		command -v nvidia-smi >/dev/null || why="nvidia-smi not found"
		skip driver "$why and /proc/driver/nvidia/version is missing or has none (a sandbox such as gVisor)"
	elif [ "${drv%%.*}" -ge 520 ] 2>/dev/null; then
		pass "driver-$drv" 0
	else
		fail "driver-$drv" 0 "driver $drv (from $src) is older than R520, which the PTX (ISA 7.8) needs"
	fi
fi

if begin tests; then
	# The test binaries.
	req=()
	[ "$gpu" = yes ] && req=(NQUEENS_REQUIRE_GPU=1)
	for t in ./*.test; do
		[ -x "$t" ] || continue
		name=$(basename "$t" .test)-test
		run "$name" env "${req[@]}" "$t" -test.v -test.count=1 || continue
		if [ "$rc" = 0 ]; then
			pass "$name" "$secs"
		else
			fail "$name" "$secs" "$(why_rc); see $name.out in logs.tar.gz"
			tail -n 20 "$logs/$name.out"
		fi
	done
fi

if begin counts; then
	# The counting runs, N=1..MAXN (carry chain: N=1..CARRYN), one per
	# variant.
	carryn=${CARRYN:-$((maxn < 19 ? maxn : 19))}
	classn=${CLASSN:-17}
	declare -A countfile=() counttop=()
	for v in $variants; do
		vflags "$v"
		top=$maxn
		[ "$valgo" = carrychain ] && top=$carryn
		name=count-$v-1-$top
		run "$name" ./nqueens-gpu -n "1-$top" -device "$device" "${vf[@]}" -v || continue
		countfile[$v]=$logs/$name.out
		counttop[$v]=$top
		if [ "$rc" != 0 ]; then
			fail "$name" "$secs" "$(why_rc): $(head_err "$name")"
		elif fell_back "$logs/$name.err"; then
			fail "$name" "$secs" "ran on the CPU: $(head_err "$name")"
		elif ! why=$(check_counts "$logs/$name.out" 1 "$top"); then
			fail "$name" "$secs" "wrong counts:$why"
		elif [[ $v == *-nodes ]] && [ -z "$(nodes_list "$logs/$name.err")" ]; then
			fail "$name" "$secs" "no 'nodes: K' line on stderr: $(head -c 300 "$logs/$name.err")"
		else
			pass "$name" "$secs"
		fi
		cat "$logs/$name.out"
	done

	# The node counts of the -nodes twins of one algorithm agree N by N
	# (the same tasks at the same depth give the same search).
	for group in "static-nodes dynamic-nodes smem-nodes" "eightfold-nodes eightfold-static-nodes"; do
		ref=""
		for v in $group; do
			[ -n "${countfile[$v]:-}" ] || continue
			nodes_list "${countfile[$v]%.out}.err" >"$logs/nodes-$v.txt"
			if [ -z "$ref" ]; then
				ref=$v
			elif diff "$logs/nodes-$ref.txt" "$logs/nodes-$v.txt" >"$logs/nodes-$ref-$v.diff"; then
				pass "nodes-$ref-vs-$v" 0
			else
				fail "nodes-$ref-vs-$v" 0 "their 'nodes: K' lines differ; see nodes-$ref-$v.diff in logs.tar.gz"
			fi
		done
	done

	# The class counts: every variant's Total, Unique, C2, C4 and C8 equal
	# the CPU path's for N <= CLASSN (and the variant's own largest N).
	top=0
	for v in "${!counttop[@]}"; do
		m=${counttop[$v]}
		[ "$m" -gt "$classn" ] && m=$classn
		[ "$m" -gt "$top" ] && top=$m
	done
	cpuname=count-cpu-1-$top
	if [ "$top" -gt 0 ] && run "$cpuname" ./nqueens-gpu -n "1-$top" -device cpu -v; then
		cpurc=$rc
		[ "$cpurc" = 0 ] || echo "the CPU count $cpuname failed ($(why_rc)): $(head -c 300 "$logs/$cpuname.err")"
		for v in $variants; do
			[ -n "${counttop[$v]:-}" ] || continue
			m=${counttop[$v]}
			[ "$m" -gt "$classn" ] && m=$classn
			name=classes-$v-1-$m
			start=$SECONDS
			# columns 1-6 of the -v table: N, Total, Unique, C2, C4, C8
			if [ "$cpurc" = 0 ] && diff <(awk -v m="$m" '$1 ~ /^[0-9]+:$/ && $1 + 0 <= m { print $1, $2, $3, $4, $5, $6 }' "$logs/$cpuname.out") \
				<(awk -v m="$m" '$1 ~ /^[0-9]+:$/ && $1 + 0 <= m { print $1, $2, $3, $4, $5, $6 }' "${countfile[$v]}") \
				>"$logs/$name.diff"; then
				pass "$name" $((SECONDS - start))
			else
				fail "$name" $((SECONDS - start)) "GPU and CPU classes differ; see $name.diff in logs.tar.gz"
			fi
		done
	fi
	archive
fi

if begin largen; then
	# Exactness at large N: the same shard of one job, counted by each
	# variant on the GPU and by the CPU path, gives the same result.
	cpu_workers=${CPU_WORKERS:-$(nproc 2>/dev/null || echo 16)}
	largen_cpu_s=${LARGEN_CPU_S:-40}
	# default_depth N: tasks.DefaultDepth(N), the CPU's board depth.
	default_depth() {
		local n=$1 d
		if ((n < 12)); then
			d=$((n / 3))
		elif ((n < 16)); then
			d=5
		elif ((n < 18)); then
			d=6
		elif ((n < 24)); then
			d=7
		else
			d=8
		fi
		((d < 2)) && d=2
		((d > n - 2)) && d=$((n - 2))
		echo "$d"
	}
	# default_split N: tasks.DefaultSplit(N), the eightfold tasks' depth.
	default_split() {
		local n=$1
		if ((n < 10)); then echo 0; elif ((n < 12)); then echo 1; elif ((n < 16)); then echo 2; elif ((n < 24)); then echo 3; else echo 4; fi
	}
	# shard_count N F: the M of shard 0/M (see the header).
	shard_count() {
		awk -v n="$1" -v f="$2" -v c="$cpu_workers" -v t="$largen_cpu_s" 'BEGIN {
			m = f * 17 * 7 ^ (n - 17) / (0.75 * c * t)
			m = (m == int(m)) ? m : int(m) + 1
			if (m < 4) m = 4
			printf "%d\n", m
		}'
	}
	# shard_key FILE: the fields of a -shard -json result that must agree
	# between devices, one per line; fails when one is missing.
	shard_key() {
		local f=$1 k v out=""
		for k in n algo shard shards batches job_batches fingerprint; do
			v=$(json_field "$f" "$k")
			[ -n "$v" ] || return 1
			out+="$k=$v"$'\n'
		done
		v=$(grep -o '"sums":{[^}]*}' "$f" | head -n 1)
		[ -n "$v" ] || return 1
		printf '%s%s\n' "$out" "$v"
	}
	declare -A cpuref=()
	for n in ${LARGEN:-21 22}; do
		depth=${LARGEN_DEPTH:-$(default_depth "$n")}
		cpuref=()
		for v in $variants; do
			vflags "$v"
			if [ "$valgo" = carrychain ]; then
				m=$(shard_count "$n" 4)
				dflags=()
			elif [ "$valgo" = eightfold ]; then
				m=$(shard_count "$n" 1)
				dflags=(-depth "${LARGEN_SPLIT:-$(default_split "$n")}")
			else
				m=$(shard_count "$n" 1)
				dflags=(-depth "$depth")
			fi
			# The CPU side, once per algorithm and N.
			if [ -z "${cpuref[$valgo]:-}" ]; then
				cname=largen-cpu-$valgo-n$n-shard0of$m
				run "$cname" ./nqueens-gpu -n "$n" -device cpu -workers "$cpu_workers" -algo "$valgo" \
					"${dflags[@]}" -shard "0/$m" -json -quiet || continue
				cat "$logs/$cname.out"
				if [ "$rc" = 0 ] && shard_key "$logs/$cname.out" >"$logs/$cname.key"; then
					pass "$cname" "$secs"
					cpuref[$valgo]=$logs/$cname.key
				else
					fail "$cname" "$secs" "$(why_rc): $(head_err "$cname")"
					cpuref[$valgo]=none
				fi
			fi
			name=largen-$v-n$n-shard0of$m
			run "$name" ./nqueens-gpu -n "$n" -device "$device" "${vf[@]}" "${dflags[@]}" \
				-shard "0/$m" -json -quiet || continue
			cat "$logs/$name.out"
			if [ "$rc" != 0 ]; then
				fail "$name" "$secs" "$(why_rc): $(head_err "$name")"
			elif fell_back "$logs/$name.err" || [ "$(json_field "$logs/$name.out" backend)" != gpu ]; then
				fail "$name" "$secs" "ran on the CPU: $(head_err "$name")"
			elif ! shard_key "$logs/$name.out" >"$logs/$name.key"; then
				fail "$name" "$secs" "no shard result in $name.out"
			elif [ "${cpuref[$valgo]}" = none ]; then
				fail "$name" "$secs" "no CPU result to compare with"
			elif ! diff "${cpuref[$valgo]}" "$logs/$name.key" >"$logs/$name.diff"; then
				fail "$name" "$secs" "GPU and CPU shard results differ; see $name.diff in logs.tar.gz"
			elif grep -q '"orbit2":0,"orbit4":0,"orbit8":0' "$logs/$name.key"; then
				fail "$name" "$secs" "the shard holds no solution on either side: nothing was compared"
			else
				pass "$name" "$secs"
			fi
		done
	done
	archive
fi

# compute-sanitizer (part of the CUDA toolkit) on a small N: memory errors
# and shared-memory races in every kernel variant. A probe first: where the
# tool is refused (gVisor does not let it attach) it ends without its
# summary line, and the step is skipped with the tool's first error line.
if begin sanitizer; then
	if ! sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null); then
		skip sanitizer "compute-sanitizer not found"
	elif cap=120 run sanitizer-probe "$sanitizer" --tool memcheck ./nqueens-gpu -n 4 -device "$device" &&
		! grep -q 'ERROR SUMMARY:' "$logs/sanitizer-probe.out" "$logs/sanitizer-probe.err"; then
		# its first line after the banner
		why=$(cat "$logs/sanitizer-probe.err" "$logs/sanitizer-probe.out" | grep -v 'COMPUTE-SANITIZER *$' | grep -m 1 . | head -c 300)
		skip sanitizer "compute-sanitizer refused: $(why_rc): ${why:-no ERROR SUMMARY line}"
	elif [ -z "$dry_run" ] && [ "$(budget_left)" -lt 1 ]; then
		note_cut
	else
		for tool in memcheck racecheck; do
			for v in $variants; do
				vflags "$v"
				name=sanitizer-$tool-$v
				run "$name" "$sanitizer" --tool "$tool" --error-exitcode 99 ./nqueens-gpu -n 11 -device "$device" "${vf[@]}" || continue
				if [ "$rc" = 0 ] && ! fell_back "$logs/$name.err" &&
					grep -q 'ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards' "$logs/$name.err" "$logs/$name.out"; then
					pass "$name" "$secs"
				else
					fail "$name" "$secs" "$(why_rc); see $name.err in logs.tar.gz"
				fi
			done
		done
	fi
fi

timen=${TIMEN:-22}
timefrom=${TIME_FROM:-18}

if begin nodes; then
	# Search nodes, and nodes per second of the plain kernel (the kernels
	# that count nodes are slower: measurement only).
	nodes_stop_s=${NODES_STOP_S:-200}
	tsv=$logs/nodes.tsv
	printf 'N\tkernel\tnodes\twall_s\tnodes_per_s\tnodes_run_s\n' >"$tsv"
	for v in $nodes_variants; do
		v=${v%-nodes}
		vflags "$v"
		took=0
		for ((n = timefrom; n <= timen; n++)); do
			if [ "$took" -gt "$nodes_stop_s" ]; then
				say "nodes: $v N=$n..$timen skipped (N=$((n - 1)) took $took s)"
				break
			fi
			name=nodes-$v-n$n
			run "$name" ./nqueens-gpu -n "$n" -device "$device" "${vf[@]}" -gpu-nodes -quiet -json || continue
			took=$secs
			nodes=$(nodes_list "$logs/$name.err" | tail -n 1)
			if ! why=$(json_ok "$name" "$n"); then
				fail "$name" "$secs" "$why"
			elif [ -z "$nodes" ]; then
				fail "$name" "$secs" "no 'nodes: K' line on stderr: $(head -c 300 "$logs/$name.err")"
			else
				pass "$name" "$secs"
			fi
			nodes_s=$(json_field "$logs/$name.out" seconds)
			plain=nodes-plain-$v-n$n
			wall=""
			if run "$plain" ./nqueens-gpu -n "$n" -device "$device" "${vf[@]}" -quiet -json; then
				took=$((took + secs))
				wall=$(json_field "$logs/$plain.out" seconds)
				if why=$(json_ok "$plain" "$n"); then
					pass "$plain" "$secs"
				else
					fail "$plain" "$secs" "$why"
				fi
			fi
			rate=$(awk -v a="${nodes:-0}" -v b="${wall:-0}" 'BEGIN { if (a > 0 && b > 0) printf "%.4g\n", a / b; else print "NA" }')
			printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$v" "${nodes:-NA}" "${wall:-NA}" "$rate" "${nodes_s:-NA}" >>"$tsv"
		done
	done
	cat "$tsv"
	[ -n "$dry_run" ] || cp "$tsv" "$outdir/nodes.tsv"
	archive
fi

if begin timing; then
	# Timings for the benchmark record: one process and JSON line per
	# variant and N ("seconds" is the count's wall time; process_s, whole
	# seconds, adds the process's start-up).
	stop_s=${TIME_STOP_S:-300}
	tsv=$logs/timing.tsv
	printf 'variant\tN\tseconds\tprocess_s\n' >"$tsv"
	for v in $variants; do
		[[ $v == *-nodes ]] && continue
		vflags "$v"
		for ((n = timefrom; n <= timen; n++)); do
			name=time-$v-n$n
			run "$name" ./nqueens-gpu -n "$n" -device "$device" "${vf[@]}" -quiet -json || continue
			if why=$(json_ok "$name" "$n"); then
				pass "$name" "$secs"
			else
				fail "$name" "$secs" "$why"
			fi
			cat "$logs/$name.out"
			printf '%s\t%s\t%s\t%s\n' "$v" "$n" "$(json_field "$logs/$name.out" seconds)" "$secs" >>"$tsv"
			if [ "$secs" -gt "$stop_s" ]; then
				[ "$n" -lt "$timen" ] && say "timing: $v stops after N=$n ($secs s > $stop_s s)"
				break
			fi
		done
	done
	cat "$tsv"
	[ -n "$dry_run" ] || cp "$tsv" "$outdir/timing.tsv"
	archive
fi

if begin tune; then
	# Tuning sweep (information for the benchmark record, not a check): the
	# eightfold kernels and the static symmetry kernel at N=TUNEN (default
	# 20) for each split or depth and block size, then dynamic fetching
	# with the stack in local memory (-gpu-dynamic) and in shared memory
	# (-gpu-smem) at N=TUNEN and the next N. Every run must still give the
	# published total.
	# tune_shared LABEL N DEPTH THREADS: the dynamic shared memory per
	# block of the shape, as gpu/kernels.go computes it (efStackBytes,
	# symStackBytes); 0 for a kernel with its stack elsewhere.
	tune_shared() {
		local label=$1 n=$2 depth=$3 threads=$4 frames
		case $label in
		eightfold*)
			frames=$((n - 5 - depth))
			((frames < 1)) && frames=1
			echo $((16 * frames * threads))
			;;
		smem) echo $((4 * (2 * n - 1 - depth) * threads)) ;;
		*) echo 0 ;;
		esac
	}
	# tune LABEL N DEPTH THREADS [FLAGS...]: one timed count, or a SKIP
	# line for a shape over MAX_SHARED.
	tune() {
		local label=$1 n=$2 depth=$3 threads=$4 name why algo=symmetry bytes
		shift 4
		[[ $label == eightfold* ]] && algo=eightfold
		name=tune-$label-n$n-d$depth-t$threads
		bytes=$(tune_shared "$label" "$n" "$depth" "$threads")
		if [ "$bytes" -gt "$max_shared" ]; then
			skip "$name" "its stacks need $bytes B of shared memory per block, over MAX_SHARED=$max_shared (48 KiB without the opt-in)"
			return
		fi
		run "$name" ./nqueens-gpu -n "$n" -device "$device" -algo "$algo" -quiet -json \
			-depth "$depth" -gpu-threads "$threads" "$@" || return
		if why=$(json_ok "$name" "$n"); then
			pass "$name" "$secs"
		else
			fail "$name" "$secs" "$why"
		fi
		echo "$label n=$n depth=$depth threads=$threads $(cat "$logs/$name.out")"
	}
	tunen=${TUNEN:-20}
	# The eightfold kernels first: split (its -depth) and block size.
	for split in 3 4; do
		for threads in 64 128 256; do
			tune eightfold "$tunen" "$split" "$threads"
			tune eightfold-static "$tunen" "$split" "$threads" -gpu-variant static
		done
	done
	for depth in 6 7 8; do
		for threads in 64 128 256; do
			tune static "$tunen" "$depth" "$threads"
		done
	done
	for kernel in dynamic smem; do
		for n in "$tunen" $((tunen + 1)); do
			for depth in 6 7 8; do
				for threads in 128 256; do
					tune "$kernel" "$n" "$depth" "$threads" "-gpu-$kernel"
				done
			done
		done
	done
fi

# Nsight Compute (ncu) of one launch of each kernel of PROFILE_VARIANTS at
# N=PROFILEN (default 19): the launch after PROFILE_SKIP (default 2)
# launches of the count. Each report (profile-V.txt in
# the archive) holds speed of light, occupancy, warp state (stall
# reasons), launch statistics and the executed integer and total
# instructions, to divide by the nodes of the same launch
# (docs/performance.md). Skipped without ncu, and where the first report
# fails with ncu's own error (==ERROR==: no access to the counters, or a
# sandbox).
if begin profile; then
	if ! ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null); then
		skip profile "ncu not found"
	else
		profilen=${PROFILEN:-19}
		first=1
		for v in ${PROFILE_VARIANTS:-eightfold eightfold-static static dynamic smem}; do
			vflags "$v"
			name=profile-$v
			run "$name" "$ncu" --clock-control none --launch-skip "${PROFILE_SKIP:-2}" --launch-count 1 \
				--kernel-name regex:'nq_(symmetry_boards|eightfold)' \
				--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
				--section SchedulerStats --section InstructionStats --section ComputeWorkloadAnalysis \
				--section MemoryWorkloadAnalysis_Tables --section SourceCounters --print-details all \
				--metrics smsp__sass_thread_inst_executed_op_integer_pred_on.sum,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__average_warp_latency_per_inst_issued.ratio \
				./nqueens-gpu -n "$profilen" -device "$device" -quiet "${vf[@]}" || continue
			cp "$logs/$name.out" "$logs/$name.txt" 2>/dev/null
			if [ "$rc" = 0 ] && grep -q 'Occupancy' "$logs/$name.out"; then
				pass "$name" "$secs"
			elif [ -n "$first" ] && grep -q '==ERROR==' "$logs/$name.out" "$logs/$name.err"; then
				skip profile "ncu refused: $(grep -h -m 1 '==ERROR==' "$logs/$name.out" "$logs/$name.err" | head -n 1 | head -c 300)"
				break
			else
				fail "$name" "$secs" "$(why_rc); see $name.err in logs.tar.gz"
			fi
			first=""
		done
	fi
	archive
fi

finish
