package estimate

import (
	"fmt"
	"math"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// refSeconds is the measured one-worker time of the symmetry algorithm,
// by N (see the package comment).
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
// n with algo on workers CPU workers (fewer than 1 counts as 1), as the
// package comment says.
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
