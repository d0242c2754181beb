// Package benchstat summarises repeated timings and compares two sets of
// them. It is what `nqueens-gpu bench` reports: mean, standard deviation,
// median, min, max, and the geometric mean with its confidence interval,
// and for a comparison with a baseline Welch's t-test with an effect size.
//
// The interval is Student's t interval of the mean of the log times,
// back-transformed: exp(m ± t·s/√n). A time is positive and its noise
// multiplies (a slower core, a busy neighbour, a page fault stretch a
// run by a factor), so the interval is taken where the noise adds, and
// it lies above zero however few or scattered the runs are, where the t
// interval of the times themselves can reach below zero.
//
// The statistics come from gonum.org/v1/gonum/stat and the t distribution
// from gonum.org/v1/gonum/stat/distuv.
package benchstat

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Level is the confidence level of the intervals and the complement of the
// significance level of the tests: 95 %, tests at 5 %.
const Level = 0.95

// Summary describes one sample of timings (seconds).
type Summary struct {
	Runs   int     `json:"runs"`
	Mean   float64 `json:"mean"`
	StdDev float64 `json:"stddev"` // sample standard deviation (n-1); 0 for one run
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	// GeoMean is the geometric mean, exp(m), m the mean of the log
	// times.
	GeoMean float64 `json:"geomean"`
	// CILow and CIHigh bound the 95 % confidence interval of the
	// geometric mean, exp(m ± t(0.975, n-1)·s/√n), s the standard
	// deviation of the log times: both positive. With a single run there
	// is no interval and both equal the time.
	CILow  float64 `json:"ci95_low"`
	CIHigh float64 `json:"ci95_high"`
}

// ErrEmpty is returned for a sample without values.
var ErrEmpty = errors.New("benchstat: no values")

// Summarize computes the summary of the times xs, which it does not
// modify; each must be positive and finite.
func Summarize(xs []float64) (Summary, error) {
	if len(xs) == 0 {
		return Summary{}, ErrEmpty
	}
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
			return Summary{}, fmt.Errorf("benchstat: value %v is not a time (positive and finite)", x)
		}
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	sum := Summary{
		Runs:   n,
		Mean:   stat.Mean(s, nil),
		Median: median(s),
		Min:    s[0],
		Max:    s[n-1],
	}
	logs := make([]float64, n)
	for i, x := range s {
		logs[i] = math.Log(x)
	}
	m := stat.Mean(logs, nil)
	sum.GeoMean = math.Exp(m)
	if n == 1 {
		sum.GeoMean = s[0] // exactly, not through a rounded log
	}
	sum.CILow, sum.CIHigh = sum.GeoMean, sum.GeoMean
	if n > 1 {
		sum.StdDev = stat.StdDev(s, nil)
		half := tQuantile(1-(1-Level)/2, float64(n-1)) * stat.StdDev(logs, nil) / math.Sqrt(float64(n))
		sum.CILow, sum.CIHigh = math.Exp(m-half), math.Exp(m+half)
	}
	return sum, nil
}

// median of sorted values: the middle one, or the mean of the two middle
// ones. stat.Quantile with stat.Empirical gives the lower middle value for
// an even count; the upper one is its quantile just above one half.
func median(sorted []float64) float64 {
	n := len(sorted)
	lo := stat.Quantile(0.5, stat.Empirical, sorted, nil)
	if n%2 == 1 {
		return lo
	}
	hi := stat.Quantile(0.5+0.5/float64(n), stat.Empirical, sorted, nil)
	return (lo + hi) / 2
}

// tQuantile is the p-quantile of Student's t distribution with df degrees
// of freedom.
func tQuantile(p, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}

// Welch is the outcome of Welch's unequal-variances t-test of sample A
// (the new one) against sample B (the baseline).
type Welch struct {
	MeanA, MeanB float64
	Diff         float64 // MeanA - MeanB
	Ratio        float64 // MeanA / MeanB; +Inf or NaN when MeanB is 0
	T            float64 // (MeanA - MeanB) / sqrt(varA/nA + varB/nB)
	DF           float64 // Welch–Satterthwaite degrees of freedom
	P            float64 // two-sided p-value
	// CILow and CIHigh bound the 95 % confidence interval of Diff.
	CILow, CIHigh float64
	// HedgesG is the standardised mean difference (MeanA - MeanB) divided
	// by the pooled standard deviation (Cohen's d) times the small-sample
	// correction 1 - 3/(4(nA+nB)-9).
	HedgesG float64
	// Significant says whether P < 1 - Level (5 %).
	Significant bool
}

// ErrTooFew is returned when a sample has fewer than 2 values: there is no
// variance to test with.
var ErrTooFew = errors.New("benchstat: a t-test needs at least 2 runs in each sample")

// WelchTest runs Welch's t-test of a against b.
//
// Two samples whose values are all equal (zero variance on both sides) have
// no t statistic: if their means differ, T is ±Inf, P is 0 and the
// difference is significant; if they are the same, T is 0 and P is 1.
func WelchTest(a, b []float64) (Welch, error) {
	if len(a) < 2 || len(b) < 2 {
		return Welch{}, ErrTooFew
	}
	na, nb := float64(len(a)), float64(len(b))
	ma, va := stat.MeanVariance(a, nil)
	mb, vb := stat.MeanVariance(b, nil)
	w := Welch{MeanA: ma, MeanB: mb, Diff: ma - mb, Ratio: ma / mb}
	qa, qb := va/na, vb/nb
	se := math.Sqrt(qa + qb)
	if se == 0 {
		w.DF = na + nb - 2
		switch {
		case w.Diff == 0:
			w.T, w.P = 0, 1
		default:
			w.T, w.P = math.Copysign(math.Inf(1), w.Diff), 0
			w.HedgesG = math.Copysign(math.Inf(1), w.Diff)
		}
		w.CILow, w.CIHigh = w.Diff, w.Diff
		w.Significant = w.P < 1-Level
		return w, nil
	}
	w.T = w.Diff / se
	w.DF = (qa + qb) * (qa + qb) / (qa*qa/(na-1) + qb*qb/(nb-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: w.DF}
	w.P = 2 * t.CDF(-math.Abs(w.T))
	half := t.Quantile(1-(1-Level)/2) * se
	w.CILow, w.CIHigh = w.Diff-half, w.Diff+half
	pooled := math.Sqrt(((na-1)*va + (nb-1)*vb) / (na + nb - 2))
	w.HedgesG = w.Diff / pooled * (1 - 3/(4*(na+nb)-9))
	w.Significant = w.P < 1-Level
	return w, nil
}

// EffectWord names the size of a standardised effect |g| by Cohen's rule
// of thumb: negligible below 0.2, small, medium from 0.5, large from 0.8.
func EffectWord(g float64) string {
	switch a := math.Abs(g); {
	case math.IsNaN(a):
		return "unknown"
	case a < 0.2:
		return "negligible"
	case a < 0.5:
		return "small"
	case a < 0.8:
		return "medium"
	}
	return "large"
}
