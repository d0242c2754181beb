#!/usr/bin/env bash
# run-gpu-checks.sh: the GPU checks of nqueens-gpu, run from the folder that
# `make bundle` makes, on a host with an NVIDIA GPU and driver and no Go.
#
#   ./run-gpu-checks.sh [LOGDIR]      (LOGDIR defaults to ./logs here)
#
# The script runs the commands: their time limits, the budget, the logs,
# the signals and which steps run. ./gpuchecks (scripts/gpuchecks, built
# into the bundle) judges what each command left, against the published
# counts and the CPU's results, plans the tune sweep and sizes the largen
# shards. docs/gpu.md, "Checks on a GPU host", describes every step.
#
# Variants (VARIANTS, default all twelve; vflags below gives their flags):
# eightfold, eightfold-static, static, dynamic, smem and carrychain, each
# also as V-nodes, its node-counting twin (-gpu-nodes).
#
# First a preflight, N=1 on the GPU: where the binary falls back to the
# CPU the script says "no GPU: <cause>" once, runs the test binaries
# without NQUEENS_REQUIRE_GPU and reports the other steps skipped; where
# it fails otherwise only the test binaries run. With a GPU it also checks
# the driver's version (R520 or newer; skipped where nothing tells it).
# Steps (STEPS, comma-separated; default tests,counts,largen,sanitizer,
# nodes,timing,tune):
#   tests      the cuda test binaries (NQUEENS_REQUIRE_GPU=1 with a GPU)
#   counts     each variant for N=1..MAXN (carry chain: CARRYN): published
#              counts, its classes equal to the CPU's for N <= CLASSN, the
#              -nodes twins of one algorithm with the same node counts
#   largen     for each N of LARGEN, shard 0 of M of the job on each variant
#              and on the CPU (CPU_WORKERS, about LARGEN_CPU_S seconds),
#              the same results; the CPU picks the depth (or LARGEN_DEPTH,
#              LARGEN_SPLIT), the GPU runs take it
#   sanitizer  compute-sanitizer memcheck and racecheck, N=11, each variant
#              (skipped where its probe is refused)
#   nodes      nodes.tsv: NODES_VARIANTS with and without -gpu-nodes,
#              N=TIME_FROM..TIMEN, until an N takes over NODES_STOP_S
#   timing     timing.tsv: each variant N=TIME_FROM..TIMEN, until an N
#              takes over TIME_STOP_S
#   tune       (a record) the sweep of `gpuchecks tune` at TUNEN; shapes
#              over MAX_SHARED bytes of shared memory per block are skipped
#   profile    (not by default) ncu of the launch after PROFILE_SKIP of each
#              kernel of PROFILE_VARIANTS at N=PROFILEN (profile-V.txt)
#
# Environment (defaults): MAXN 20, CARRYN 19 (or MAXN if smaller), CLASSN
# 17, LARGEN "21 22", LARGEN_CPU_S 40, CPU_WORKERS nproc, NODES_VARIANTS
# static, NODES_STOP_S 200, TIME_FROM 18, TIMEN 22, TIME_STOP_S 300, TUNEN
# 20, MAX_SHARED 49152 (48 KiB, a block's without the opt-in), PROFILEN
# 19, PROFILE_SKIP 2, PROFILE_VARIANTS the eightfold and symmetry ones,
# DEVICE 0, DRY_RUN=1 (print each command, "plan NAME: ...", run none),
# ASSUME_GPU=1 (run every step as on a GPU whatever the preflight says:
# for testing this script without one).
#
# Time: TOTAL_TIMEOUT (default 570 s) bounds the run. Each command runs
# under timeout(1) with the smaller of STEP_TIMEOUT (default TOTAL_TIMEOUT)
# and what the budget leaves less BUDGET_RESERVE (default 5 s); one that
# hits its limit fails ("timed out after T s"). What the budget leaves out
# is "not run (time budget)" and counted skipped. SIGTERM or SIGINT stops
# the running command (failed: "interrupted") and still ends with the
# archive and the summary line.
#
# Output: at most four files in LOGDIR: summary.txt (the environment, one
# PASS, FAIL or SKIP line per check, the summary line), logs.tar.gz (every
# command's NAME.out and NAME.err, rewritten after each command), and
# nodes.tsv and timing.tsv when those steps run. The last line is "N
# passed, M failed, K skipped".
#
# Exit status: 0 when every check that ran passed and every step ran on a
# GPU; 1 when a check failed (a timeout or an interruption included); 2
# for a bad variant, step or setting; 3 when nothing failed but the run is
# incomplete: no GPU, or the time budget ran out.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
outdir=${1:-$here/logs}
maxn=${MAXN:-20}
classn=${CLASSN:-17}
carryn=${CARRYN:-$((maxn < 19 ? maxn : 19))}
timefrom=${TIME_FROM:-18}
timen=${TIMEN:-22}
tunen=${TUNEN:-20}
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
for v in total_timeout step_timeout reserve max_shared maxn classn carryn timefrom timen tunen; do
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
[ -x "$here/gpuchecks" ] || usage_error "no gpuchecks beside the script: make bundle builds it"

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

# judge NAME KIND [FLAGS...]: `gpuchecks KIND` on the logs of the run NAME
# and how it ended: PASS, FAIL with the reason, or, when gpuchecks says
# neither (status 3: no GPU, a refused tool), nothing. Leaves the reason
# in why and returns gpuchecks' status.
judge() {
	local name=$1 kind=$2 code
	shift 2
	why=$(./gpuchecks "$kind" -rc "$rc" -ended "$(why_rc)" "$@" "$logs/$name")
	code=$?
	case $code in
	0) pass "$name" "$secs" ;;
	3) ;;
	*) fail "$name" "$secs" "${why:-gpuchecks $kind: exit $code}" ;;
	esac
	return "$code"
}

# verdict NAME ARGS...: PASS NAME when `gpuchecks ARGS...` agrees, else
# FAIL with its reason.
verdict() {
	local name=$1
	shift
	if why=$(./gpuchecks "$@"); then
		pass "$name" 0
	else
		fail "$name" 0 "${why:-gpuchecks $1 failed}"
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
if ! cap=120 run preflight ./nqueens-gpu -n 1 -device "$device" -json; then
	[ -n "$dry_run" ] || finish
	gpu=yes
elif [ "${ASSUME_GPU:-}" = 1 ]; then
	gpu=yes
	say "preflight: exit $rc, not judged (ASSUME_GPU=1: the steps run as on a GPU)"
else
	judge preflight preflight
	case $? in
	0) gpu=yes ;;
	3)
		gpu=no
		say "no GPU: $why"
		;;
	*) gpu=broken ;;
	esac
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
	[ -z "$list" ] || say "SKIP $list (skipped: $why)"
	if want tests && [ "$gpu" = no ]; then
		say "(the test binaries run without NQUEENS_REQUIRE_GPU: their GPU tests skip)"
	fi
fi

# The driver's version, from nvidia-smi or the binary's devices -json (its
# /proc/driver/nvidia/version).
if [ "$gpu" = yes ] && [ -z "$dry_run" ]; then
	if command -v nvidia-smi >/dev/null; then
		timeout 30 nvidia-smi --query-gpu=driver_version --format=csv,noheader -i "$device" >"$logs/driver.txt" 2>/dev/null
	fi
	cap=60 run devices ./nqueens-gpu devices -json
	drv=$(./gpuchecks driver -devices "$logs/devices.out" "$logs/driver.txt")
	case $? in
	0) pass "$drv" 0 ;;
	3) skip driver "$drv" ;;
	*) fail "${drv%%$'\t'*}" 0 "${drv#*$'\t'}" ;;
	esac
fi

if begin tests; then
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
	declare -A counted=() # variant -> the largest N it counted
	for v in $variants; do
		vflags "$v"
		top=$maxn
		[ "$valgo" = carrychain ] && top=$carryn
		name=count-$v-1-$top
		run "$name" ./nqueens-gpu -n "1-$top" -device "$device" "${vf[@]}" -json || continue
		counted[$v]=$top
		nodes=()
		[[ $v == *-nodes ]] && nodes=(-nodes)
		judge "$name" count -n "1-$top" "${nodes[@]}"
		cat "$logs/$name.out"
	done
	# The -nodes twins of one algorithm search the same tasks.
	for group in "static-nodes dynamic-nodes smem-nodes" "eightfold-nodes eightfold-static-nodes"; do
		ref=""
		for v in $group; do
			[ -n "${counted[$v]:-}" ] || continue
			if [ -z "$ref" ]; then
				ref=$v
				continue
			fi
			verdict "nodes-$ref-vs-$v" same-nodes "$logs/count-$ref-1-${counted[$ref]}" "$logs/count-$v-1-${counted[$v]}"
		done
	done
	# The classes of every variant against the CPU path's, N <= CLASSN.
	top=0
	for m in "${counted[@]}"; do
		((m > top)) && top=$m
	done
	((top > classn)) && top=$classn
	cpuname=count-cpu-1-$top
	if [ "$top" -gt 0 ] && run "$cpuname" ./nqueens-gpu -n "1-$top" -device cpu -json; then
		[ "$rc" = 0 ] || echo "the CPU count $cpuname failed ($(why_rc)): $(head -c 300 "$logs/$cpuname.err")"
		for v in $variants; do
			[ -n "${counted[$v]:-}" ] || continue
			m=$((counted[$v] < classn ? counted[$v] : classn))
			verdict "classes-$v-1-$m" same-classes -max "$m" -cpu "$logs/$cpuname" "$logs/count-$v-1-${counted[$v]}"
		done
	fi
	archive
fi

if begin largen; then
	# The same shard of one job on each variant and on the CPU. The CPU
	# runs once per algorithm and N, at its default depth, and the GPU
	# runs take that depth (gpuchecks gpu-flags), so the jobs agree.
	cpu_workers=${CPU_WORKERS:-$(nproc 2>/dev/null || echo 16)}
	declare -A cpuref=()
	for n in ${LARGEN:-21 22}; do
		cpuref=()
		for v in $variants; do
			vflags "$v"
			m=$(./gpuchecks shards -algo "$valgo" -n "$n" -workers "$cpu_workers" -seconds "${LARGEN_CPU_S:-40}") ||
				usage_error "bad LARGEN, CPU_WORKERS or LARGEN_CPU_S"
			cname=largen-cpu-$valgo-n$n-shard0of$m
			if [ -z "${cpuref[$valgo]:-}" ]; then
				d="" dflags=()
				case $valgo in
				symmetry) d=${LARGEN_DEPTH:-} ;;
				eightfold) d=${LARGEN_SPLIT:-} ;;
				esac
				[ -z "$d" ] || dflags=(-depth "$d")
				run "$cname" ./nqueens-gpu -n "$n" -device cpu -workers "$cpu_workers" -algo "$valgo" \
					"${dflags[@]}" -shard "0/$m" -json -quiet || continue
				cat "$logs/$cname.out"
				judge "$cname" shard
				cpuref[$valgo]=$cname
			fi
			read -ra dflags <<<"$(./gpuchecks gpu-flags "$logs/$cname")"
			name=largen-$v-n$n-shard0of$m
			run "$name" ./nqueens-gpu -n "$n" -device "$device" "${vf[@]}" "${dflags[@]}" \
				-shard "0/$m" -json -quiet || continue
			cat "$logs/$name.out"
			judge "$name" shard -cpu "$logs/$cname"
		done
	done
	archive
fi

if begin sanitizer; then
	# A probe first: where the tool is refused (gVisor does not let it
	# attach) the step is skipped with the tool's first error line.
	if ! sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null); then
		skip sanitizer "compute-sanitizer not found"
	elif cap=120 run sanitizer-probe "$sanitizer" --tool memcheck ./nqueens-gpu -n 4 -device "$device" &&
		! why=$(./gpuchecks sanitizer -probe -rc "$rc" -ended "$(why_rc)" "$logs/sanitizer-probe"); then
		skip sanitizer "$why"
	elif [ -z "$dry_run" ] && [ "$(budget_left)" -lt 1 ]; then
		note_cut
	else
		for tool in memcheck racecheck; do
			for v in $variants; do
				vflags "$v"
				name=sanitizer-$tool-$v
				run "$name" "$sanitizer" --tool "$tool" --error-exitcode 99 ./nqueens-gpu -n 11 -device "$device" "${vf[@]}" -json || continue
				judge "$name" sanitizer -n 11
			done
		done
	fi
fi

if begin nodes; then
	# Search nodes (-gpu-nodes), and the same N without them for the
	# plain kernel's wall time: the kernels that count nodes are slower.
	tsv=$logs/nodes.tsv
	./gpuchecks nodes-row -header >"$tsv"
	for v in $nodes_variants; do
		v=${v%-nodes}
		vflags "$v"
		took=0
		for ((n = timefrom; n <= timen; n++)); do
			if [ "$took" -gt "${NODES_STOP_S:-200}" ]; then
				say "nodes: $v N=$n..$timen skipped (N=$((n - 1)) took $took s)"
				break
			fi
			name=nodes-$v-n$n
			run "$name" ./nqueens-gpu -n "$n" -device "$device" "${vf[@]}" -gpu-nodes -quiet -json || continue
			took=$secs
			judge "$name" count -n "$n" -nodes
			plain=nodes-plain-$v-n$n
			if run "$plain" ./nqueens-gpu -n "$n" -device "$device" "${vf[@]}" -quiet -json; then
				took=$((took + secs))
				judge "$plain" count -n "$n"
			fi
			./gpuchecks nodes-row "$n" "$v" "$logs/$name" "$logs/$plain" >>"$tsv"
		done
	done
	cat "$tsv"
	[ -n "$dry_run" ] || cp "$tsv" "$outdir/nodes.tsv"
	archive
fi

if begin timing; then
	# One process and JSON line per variant and N.
	tsv=$logs/timing.tsv
	./gpuchecks timing-row -header >"$tsv"
	for v in $variants; do
		[[ $v == *-nodes ]] && continue
		vflags "$v"
		for ((n = timefrom; n <= timen; n++)); do
			name=time-$v-n$n
			run "$name" ./nqueens-gpu -n "$n" -device "$device" "${vf[@]}" -quiet -json || continue
			judge "$name" count -n "$n"
			cat "$logs/$name.out"
			./gpuchecks timing-row "$v" "$n" "$secs" "$logs/$name" >>"$tsv"
			if [ "$secs" -gt "${TIME_STOP_S:-300}" ]; then
				[ "$n" -lt "$timen" ] && say "timing: $v stops after N=$n ($secs s > ${TIME_STOP_S:-300} s)"
				break
			fi
		done
	done
	cat "$tsv"
	[ -n "$dry_run" ] || cp "$tsv" "$outdir/timing.tsv"
	archive
fi

if begin tune; then
	# The sweep's lines: "run NAME FLAGS..." or "skip NAME REASON".
	mapfile -t plan < <(./gpuchecks tune -n "$tunen" -max-shared "$max_shared")
	for line in "${plan[@]}"; do
		read -r what name rest <<<"$line"
		if [ "$what" = skip ]; then
			skip "$name" "$rest"
			continue
		fi
		read -ra args <<<"$rest"
		run "$name" ./nqueens-gpu -device "$device" -quiet -json "${args[@]}" || continue
		judge "$name" count
		echo "$name $(cat "$logs/$name.out")"
	done
fi

# Nsight Compute (ncu) of one launch of each kernel of PROFILE_VARIANTS:
# speed of light, occupancy, warp state, launch, scheduler, instruction,
# pipe and shared-memory statistics, the source counters and the executed
# instructions (docs/performance.md). Skipped without ncu, and where the
# first report fails with ncu's own error (no access to the counters).
if begin profile; then
	if ! ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null); then
		skip profile "ncu not found"
	else
		first=-first
		for v in ${PROFILE_VARIANTS:-eightfold eightfold-static static dynamic smem}; do
			vflags "$v"
			name=profile-$v
			run "$name" "$ncu" --clock-control none --launch-skip "${PROFILE_SKIP:-2}" --launch-count 1 \
				--kernel-name regex:'nq_(symmetry_boards|eightfold)' \
				--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
				--section SchedulerStats --section InstructionStats --section ComputeWorkloadAnalysis \
				--section MemoryWorkloadAnalysis_Tables --section SourceCounters --print-details all \
				--metrics smsp__sass_thread_inst_executed_op_integer_pred_on.sum,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__average_warp_latency_per_inst_issued.ratio \
				./nqueens-gpu -n "${PROFILEN:-19}" -device "$device" -quiet "${vf[@]}" || continue
			cp "$logs/$name.out" "$logs/$name.txt" 2>/dev/null
			judge "$name" ncu ${first:+"$first"}
			if [ $? = 3 ]; then
				skip profile "$why"
				break
			fi
			first=""
		done
	fi
	archive
fi

finish
