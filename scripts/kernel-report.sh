#!/usr/bin/env bash
# kernel-report.sh: compile every kernel for one GPU architecture and report
# what the speed model needs: per kernel entry the registers, spills, stack
# frame (local memory) and static shared memory (ptxas -v), and the SASS of
# each step loop: instructions and memory operations of one iteration per
# path (place a queen and push, pop, ...). See scripts/kernelreport.
#
#   scripts/kernel-report.sh            (or: make kernel-report)
#
# Environment: ARCH (default sm_90), TSV (the machine-readable report that
# scripts/warpsim reads, default docs/model/kernels.tsv; empty: none).
# Needs nvcc and nvdisasm (make cuda-deps), no GPU.
#
# Each kernels/NAME.cu is built as it is and, like make ptx, with
# -DNQ_NODES=1 (its *_nodes twins). Besides kernels/*.cu it builds
# scripts/warpsim/peer.cu, this project's model of the peer's kernel (never
# part of the product).
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in nvcc nvdisasm; do
	command -v "$tool" >/dev/null || { echo "kernel-report: $tool not found (make cuda-deps)" >&2; exit 1; }
done
tsv=${TSV-docs/model/kernels.tsv}
args=(-arch "${ARCH:-sm_90}" -I kernels -nodes)
if [ -n "$tsv" ]; then
	mkdir -p "$(dirname "$tsv")"
	args+=(-tsv "$tsv")
fi
exec go run ./scripts/kernelreport "${args[@]}" kernels/*.cu scripts/warpsim/peer.cu
