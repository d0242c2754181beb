#!/usr/bin/env bash
# model.sh: the speed model without a GPU, end to end (docs/performance.md,
# "Speed model (no GPU)"):
#
#   1. scripts/kernel-report.sh: SASS path costs and resources of every
#      kernel for sm_90 -> docs/model/kernels.tsv (needs nvcc; skipped with
#      SKIP_REPORT=1, which keeps the committed TSV)
#   2. warpsim sim: the kernels' C search in lockstep warps -> docs/model/sim.tsv
#      N=16, 17 every task; N=18, 20, 21 sampled (fixed seed); N=22, 23
#      are extrapolated by the model step
#   3. warpsim model: calibrate on the peer, rewrite the generated block of
#      docs/performance.md
#
#   scripts/model.sh            (about 35 minutes of one CPU core)
#
# Environment: JOBS (parallel workers, default 1), SEED (default 1),
# STEPS (default "report sim model"; e.g. STEPS=model to redo only the
# table from docs/model/sim.tsv).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-1}
seed=${SEED:-1}
steps=" ${STEPS:-report sim model} "
sim() { go run ./scripts/warpsim sim -j "$jobs" -seed "$seed" -o docs/model/sim.tsv "$@"; }
if [[ $steps == *" report "* && -z ${SKIP_REPORT:-} ]]; then
	bash scripts/kernel-report.sh | tee docs/model/kernel-report.txt
fi
if [[ $steps == *" sim "* ]]; then
	sim -n 16,17
	sim -n 18 -samples 10000 -refill-samples 1000
	sim -n 20 -samples 1500 -refill-samples 40
	sim -n 21 -samples 300 -refill-samples 8
fi
if [[ $steps == *" model "* ]]; then
	go run ./scripts/warpsim model -doc docs/performance.md
fi
