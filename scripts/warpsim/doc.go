//go:build cgo

// Command warpsim is the speed model of nqueens-gpu's kernels without a
// GPU: a lockstep warp simulator on the host and the model built on it.
//
//	go run ./scripts/warpsim sim   [flags]   simulate N=16..18, write docs/model/sim.tsv
//	go run ./scripts/warpsim model [flags]   calibrate on the peer, print the model table
//	go run ./scripts/warpsim latency [flags] nq_eightfold's latency-aware model, against the simulator (latency.go),
//	                                         and its H100 model calibrated on a measured baseline (calib.go)
//
// scripts/model.sh runs both (and scripts/kernel-report.sh first). The
// simulator is C through cgo: without cgo the package does not build (its
// files need the cgo build tag) and ./... passes over it.
//
// # The simulator
//
// Each kernel's per-task search runs on the host as the C that nvcc
// builds for the GPU (kernels/nqsearch.h; the peer model's peer.h) and
// records one byte per step-loop iteration: the path class it took (push,
// dead, leaf, sol, pop, end; the carry chain also orbit and popc). 32 such
// traces are then replayed in lockstep, as the 32 threads of a warp run
// them: a warp step costs the SASS instructions of the union of the paths
// its active lanes took (scripts/kernelreport: the basic blocks of each
// path; divergent paths run one after the other, shared blocks once).
// The task hand-out follows the kernel:
//
//   - rounds (nq_symmetry_boards, nq_carry_frames: one task per thread;
//     the peer: each thread fetches its next task after the warp has
//     reconverged at the end of the step loop, so a warp's 32 lanes take
//     32 consecutive tasks together): a unit is 32 consecutive tasks of the
//     launch order, run to the end of the longest.
//   - refill (nq_symmetry_boards_dyn, _smem: a lane takes its next task
//     from the shared counter inside the step loop): a unit is one
//     resident warp's whole run. Approximation: all resident warps fetch
//     at the same rate, so after the first 32 tasks each, warp w of R gets
//     every R-th task (32R + w, 32R + w + R, ...), its lanes taking them in
//     the order they finish.
//
// Sampling (-samples K): K units drawn at random (seed -seed) out of all;
// totals are units × mean, ratios are ratio estimators, each with its
// standard error.
//
// # The model
//
// time(N) = nodes(N) × warp instructions per node / issue rate × factor,
// with the issue rate of an H100 SXM (132 SMs × 4 schedulers × 1 warp
// instruction per cycle × 1.755 GHz) and one factor, calibrated so that
// the peer model reproduces the peer's published H800 times.
//
// # The H100 model of nq_eightfold (latency -h100)
//
// The iterations of N come from its nodes (docs/model/sim.tsv) and a
// sampled replay's lanes' waste; an iteration costs a scheduler its SASS
// issue and pipe cycles (docs/model/kernels.tsv), max(issue, 2 × ALU, 2 ×
// IMAD). Calibrated on a baseline that an H100 measured (-base-tsv, the
// measured clock, ALU share and seconds): pipe-aware, the binding pipe
// busy the baseline's ALU share of the cycles; latency-aware, mva with the
// think time that gives the baseline its ALU share; each way's seconds =
// k × steady + c through the measured N.
package main
