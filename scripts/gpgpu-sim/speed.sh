#!/usr/bin/env bash
# make gpusim-speed: simulated speed per SM, side by side (a SIMULATION,
# not a measurement). For each N, bin/nqueens-gpu's default GPU count
# (nq_eightfold, every task of N) and the ygch peer (../shared/peers/
# ygch_n_queens, built for sm_70 against the simulator's runtime API) at
# each of PEER_ROWS pre-placed rows, on GPGPU-Sim's SM7_QV100 (V100)
# config cut to SMS SMs, cycle-level mode. Prints, per run: the kernels'
# cycles (our self-test launch left out), thread instructions, IPC,
# occupancy, the share of scheduler cycles waiting on a dependency
# (W0_Scoreboard over all the scheduler-cycle classes it prints), the
# shared-memory bank-conflict stalls, and ours/peer cycles against the
# peer's best row count.
#
#   scripts/gpgpu-sim/speed.sh [N...]     (default 11 12; SMS default 4;
#                                          PEER_ROWS default "3 4 5")
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tools=${GPGPUSIM_TOOLS:-$repo/../shared/tools/gpgpu-sim}
peersrc=${PEER_SRC:-$repo/../shared/peers/ygch_n_queens/src}
sms=${SMS:-4}
rows=${PEER_ROWS:-3 4 5}
ns=${*:-11 12}
bin=$repo/bin/nqueens-gpu

log() { printf 'gpusim-speed: %s\n' "$*" >&2; }
[ -x "$bin" ] || { log "$bin not found: make gpu first"; exit 1; }
[ -d "$peersrc" ] || { log "the peer's source is not at $peersrc (PEER_SRC)"; exit 2; }

# Ours runs on the simulator with our driver API; the peer is a
# runtime-API program, which the shared build of the simulator runs.
bash "$here/build.sh" >&2
ours_env=${GPGPUSIM_CACHE:-$HOME/.cache/nqueens-gpgpu-sim}/env.sh
shared_cache=${GPGPUSIM_SHARED_CACHE:-$HOME/.cache/gpgpu-sim}
[ -f "$shared_cache/env.sh" ] || bash "$tools/build.sh" "$shared_cache" >&2

run=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-speed.XXXXXX")
cd "$run"
(
	# shellcheck source=/dev/null
	. "$shared_cache/env.sh"
	cp "$GPGPUSIM_CONFIGS/SM7_QV100/gpgpusim.config" "$GPGPUSIM_CONFIGS/SM7_QV100/config_volta_islip.icnt" .
)
sed -i "s/^-gpgpu_n_clusters .*/-gpgpu_n_clusters $sms/" gpgpusim.config
cp -r "$peersrc" peer && chmod -R u+w peer
(cd peer && nvcc -arch=sm_70 -cudart shared -O3 -Xcompiler -fopenmp -D_USE_CONFIG2_ \
	n_queens_cuda.cu n_queens.cpp utils.cpp main.cpp -o n_queens) >peer-build.log 2>&1 ||
	{ log "the peer did not build: $run/peer-build.log"; exit 1; }

# stats LOG SKIP: the simulator's per-kernel statistics of LOG summed over
# its kernels but the first SKIP: cycles, instructions, the occupancy of
# the longest, the scheduler's dependency-wait share and the bank stalls.
stats() {
	awk -v skip="$2" '
	/^kernel_name/ { k++ }
	k > skip && /^gpu_sim_cycle/ { c += $3; if ($3 > cmax) { cmax = $3; long = 1 } else long = 0 }
	k > skip && /^gpu_sim_insn/ { i += $3 }
	k > skip && /^gpu_occupancy/ { if (long) occ = $3 }
	k > skip && /^Stall:/ {
		for (f = 1; f <= NF; f++) { split($f, kv, ":"); tot += kv[2]; if (kv[1] == "W0_Scoreboard") dep += kv[2] }
	}
	k > skip && /^gpgpu_stall_shd_mem\[s_mem\]\[bk_conf\]/ { bank = $NF }
	END { printf "%d %d %.1f %s %.0f%% %s\n", c, i, (c ? i / c : 0), occ, (tot ? 100 * dep / tot : 0), bank }' "$1"
}

printf '%-4s %-22s %10s %12s %7s %10s %9s %10s %9s\n' N run cycles thread-insn IPC occupancy dep-wait bank-stall ours/peer
for n in $ns; do
	ours=$(
		# shellcheck source=/dev/null
		. "$ours_env"
		GPGPUSIM_STDOUT="$run/ours-$n.log" "$bin" -n "$n" -device 0 -require-gpu -json >"ours-$n.json"
		stats "ours-$n.log" 1
	)
	best=""
	peerlines=""
	for r in $rows; do
		[ "$r" -lt "$n" ] || continue
		(
			# shellcheck source=/dev/null
			. "$shared_cache/env.sh"
			./peer/n_queens "$n" "$r" >"peer-$n-$r.log" 2>&1
		) || { log "peer N=$n rows=$r failed: $run/peer-$n-$r.log"; continue; }
		s=$(stats "peer-$n-$r.log" 0)
		c=${s%% *}
		if [ -z "$best" ] || [ "$c" -lt "$best" ]; then best=$c; fi
		peerlines+="$n ygch ./n_queens $n $r|$s"$'\n'
	done
	read -r c i ipc occ dep bank <<<"$ours"
	ratio=$(awk -v a="$c" -v b="$best" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }')
	printf '%-4s %-22s %10s %12s %7s %10s %9s %10s %9s\n' "$n" "ours (nq_eightfold)" "$c" "$i" "$ipc" "$occ" "$dep" "${bank:--}" "$ratio"
	while IFS='|' read -r label s; do
		[ -n "$label" ] || continue
		read -r c i ipc occ dep bank <<<"$s"
		printf '%-4s %-22s %10s %12s %7s %10s %9s %10s %9s\n' "$n" "${label#"$n "}" "$c" "$i" "$ipc" "$occ" "$dep" "${bank:--}" ""
	done <<<"$peerlines"
done
log "a simulation (GPGPU-Sim SM7_QV100, $sms SMs, cycle-level), not a measurement; logs in $run"
