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

import (
	"fmt"
	"math"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// refSeconds is the measured one-worker time of the symmetry algorithm,
// by N, on the reference machine.
var refSeconds = map[int]float64{14: 0.068, 15: 0.264, 16: 1.69, 17: 12.99}

// algoFactor is an algorithm's time over symmetry's.
var algoFactor = map[nq.Algo]float64{
	nq.Eightfold:  0.6,
	nq.Symmetry:   1,
	nq.CarryChain: 4.5,
	nq.Mirror:     1.9,
	nq.Bitmap:     6,
	nq.Backtrack:  42,
}

// Growth is the factor by which one N costs more than N-1, for N >= 18.
func Growth(n int) float64 { return 7.0 + 0.15*float64(n-18) }

// efficiency is the share of each worker's nominal speed that K >= 2
// workers keep.
const efficiency = 0.9

// symmetryOneWorker is the reference time of N on one worker.
func symmetryOneWorker(n int) float64 {
	if t, ok := refSeconds[n]; ok {
		return t
	}
	if n < 14 {
		return refSeconds[14] / math.Pow(5, float64(14-n))
	}
	t := refSeconds[17]
	for k := 18; k <= n; k++ {
		t *= Growth(k)
	}
	return t
}

// CPUSeconds estimates the wall time, in seconds, of counting the board of
// n with algo on workers CPU workers (fewer than 1 counts as 1) on the
// reference machine of the package comment.
func CPUSeconds(n int, algo nq.Algo, workers int) float64 {
	if n < 1 {
		return 0
	}
	f, ok := algoFactor[algo]
	if !ok {
		f = 1
	}
	speed := 1.0
	if workers >= 2 {
		speed = efficiency * float64(workers)
	}
	return symmetryOneWorker(n) * f / speed
}

// RangeSeconds is the sum of CPUSeconds over the sizes lo..hi: the
// expected time of a count of that range.
func RangeSeconds(lo, hi int, algo nq.Algo, workers int) float64 {
	var sec float64
	for n := lo; n <= hi; n++ {
		sec += CPUSeconds(n, algo, workers)
	}
	return sec
}

// Text writes a time in seconds, any number however large, the way the
// program says a time to come (the fallback line's expected time, the
// progress reports' time left): two significant digits at most, in
// seconds, minutes, hours, days or years: "under a second", "40
// seconds", "12 minutes", "3.5 hours", "9 days", "1 year", "2.3 years".
func Text(seconds float64) string {
	const (
		minute = 60
		hour   = 60 * minute
		day    = 24 * hour
		year   = 365.25 * day
	)
	units := []struct {
		below, size float64
		name        string
	}{
		{100, 1, "second"},
		{100 * minute, minute, "minute"},
		{48 * hour, hour, "hour"},
		{year, day, "day"},
		{math.Inf(1), year, "year"},
	}
	if !(seconds >= 1) { // NaN too
		return "under a second"
	}
	u := units[len(units)-1]
	for _, c := range units {
		if seconds < c.below {
			u = c
			break
		}
	}
	v := round2(seconds / u.size)
	if v == "1" {
		return v + " " + u.name
	}
	return v + " " + u.name + "s"
}

// round2 writes x with two significant digits, without exponent.
func round2(x float64) string {
	if x >= 10 {
		p := math.Pow(10, math.Floor(math.Log10(x))-1)
		return fmt.Sprintf("%.0f", math.Round(x/p)*p)
	}
	s := fmt.Sprintf("%.1f", x)
	if s[len(s)-2:] == ".0" {
		s = s[:len(s)-2]
	}
	return s
}
