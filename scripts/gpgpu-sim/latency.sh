#!/usr/bin/env bash
# latency.sh: run latency.cu on GPGPU-Sim (QV100 config cut to SMS SMs,
# default 4; cycle-level) and print the latencies and rates that
# scripts/warpsim's latency model takes for the simulator (SimQV100 in
# scripts/warpsim/latency.go). A SIMULATION: what GPGPU-Sim does, not a GPU.
#
#   scripts/gpgpu-sim/latency.sh      (about a minute; needs nvcc)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tools=${GPGPUSIM_TOOLS:-$repo/../shared/tools/gpgpu-sim}
shared_cache=${GPGPUSIM_SHARED_CACHE:-$HOME/.cache/gpgpu-sim}
[ -f "$shared_cache/env.sh" ] || bash "$tools/build.sh" "$shared_cache" >&2
run=$(mktemp -d "${TMPDIR:-/tmp}/gpusim-latency.XXXXXX")
trap 'rm -rf "$run"' EXIT
cd "$run"
# shellcheck source=/dev/null
. "$shared_cache/env.sh"
cp "$GPGPUSIM_CONFIGS/SM7_QV100/gpgpusim.config" "$GPGPUSIM_CONFIGS/SM7_QV100/config_volta_islip.icnt" .
sed -i "s/^-gpgpu_n_clusters .*/-gpgpu_n_clusters ${SMS:-4}/" gpgpusim.config
nvcc -O3 -arch=sm_70 -cudart shared -o latency "$here/latency.cu"
./latency > sim.log 2>&1 || { tail -20 sim.log >&2; exit 1; }
awk '
	/^kernel_name/ { k = $3; sub(/^_Z[0-9]+/, "", k); sub(/P.*$/, "", k); n[k]++ }
	/^gpu_sim_cycle/ { c[k "#" n[k]] = $3 }
	END {
		e = c["empty#1"]; big = c["empty#2"]
		printf "SIMULATION (GPGPU-Sim QV100, cycle-level): cycles per operation\n"
		printf "empty launch                 %8d cycles\n", e
		printf "logic op (xor), dependent    %8.1f\n", (c["chain_xor#1"] - e) / 1024
		printf "integer add, dependent       %8.1f\n", (c["chain_add#1"] - e) / 1024
		add = (c["chain_add#1"] - e) / 1024; xor = (c["chain_xor#1"] - e) / 1024
		printf "shared load v4, dependent    %8.1f\n", (c["chain_lds#1"] - e) / 256 - add
		printf "  predicate off              %8.1f\n", (c["chain_ldsoff#1"] - e) / 256 - xor
		printf "global atomic, dependent     %8.1f\n", (c["chain_atom#1"] - e) / 64 - 2 * xor - add
		printf "global load (L1 miss)        %8.1f\n", (c["chain_ldg#1"] - e) / 64 - xor - 2 * add
		printf "xor, 8 warps a scheduler     %8.2f cycles per warp instruction\n", (c["rate_xor#1"] - e) / 8192
		printf "add, 8 warps a scheduler     %8.2f\n", (c["rate_add#1"] - e) / 8192
		printf "same-address atomics         %8.2f cycles each (32,768)\n", (c["rate_atom#1"] - big) / 32768
	}' sim.log
