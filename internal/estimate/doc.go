// Package estimate says how long a count takes on the CPU, and writes a
// time the way a person reads it. It is the one estimate of a count's
// time: the line a GPU run prints when it falls back to the CPU
// (RangeSeconds, Text) and the progress reports' time left (package
// progress, from CPUSeconds before a rate is measured) say the same.
//
// The figures are wall times of `nqueens-gpu -n N -workers 1 -quiet -json`
// (the "seconds" field) on this project's reference machine: a 2-vCPU VM
// reporting "AMD EPYC", Go 1.26, 2026-11-23, the fastest of 2 to 4 runs on
// a shared host. One worker, the symmetry algorithm (the CPU default):
//
//	N=14   0.068 s     N=16   1.69 s
//	N=15   0.264 s     N=17  12.99 s
//
// Above N=17 each N costs r(N) = 7.0 + 0.15·(N−18) times the one before:
// 7.0 from N=17 to 18 (7.4 s to 52 s on two workers, ../shared/NOTES.md),
// rising as slowly as the ratios of successive solution counts do (6.8 at
// N=18, 7.5 at N=22, 7.9 at N=25). Below N=14 each N costs a fifth of the
// next. So one worker needs about 1.5 min for N=18, 11 min for N=19, 1.3
// h for N=20, 3 days for N=22 and 4 years for N=25; 16 workers 5.5 min
// for N=20 and 5 hours for N=22.
//
// K workers take 1/(0.9·K) of one worker's time for K >= 2: the measured
// 2-worker speed-up is 1.8 to 2.0, and the batches stay small enough to
// keep every core busy to the end. Other algorithms cost a fixed multiple
// of symmetry's, measured with one worker at N=14 to 16: carrychain 4.5,
// mirror 1.9, bitmap 6, backtrack 42; eightfold 0.6 (N=16: 0.66, N=17:
// 0.60, two workers, docs/performance.md). An algorithm not in that list
// is taken as symmetry.
//
// The estimate is for the reference machine; a current server core is
// about as fast or up to twice as fast, so read it as "about", within a
// factor of two.
package estimate
