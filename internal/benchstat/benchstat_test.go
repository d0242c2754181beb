package benchstat

import (
	"errors"
	"math"
	"testing"
)

// The "sleep" data of Student (1908), as shipped with R: extra hours of
// sleep of 10 patients under two drugs. R's documented outputs are
//
//	t.test(extra ~ group, data = sleep)
//	  t = -1.8608, df = 17.776, p-value = 0.07939
//	  95 percent confidence interval: -3.3654832  0.2054832
//	  sample estimates: mean in group 1 0.75, mean in group 2 2.33
var (
	sleep1 = []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0}
	sleep2 = []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4}
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func TestWelchSleep(t *testing.T) {
	w, err := WelchTest(sleep1, sleep2)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"mean A", w.MeanA, 0.75, 1e-12},
		{"mean B", w.MeanB, 2.33, 1e-12},
		{"diff", w.Diff, -1.58, 1e-12},
		{"t", w.T, -1.8608, 5e-5},
		{"df", w.DF, 17.776, 5e-4},
		{"p", w.P, 0.07939, 5e-6},
		{"CI low", w.CILow, -3.3654832, 5e-7},
		{"CI high", w.CIHigh, 0.2054832, 5e-7},
		// Pooled s = sqrt((1.789010² + 2.002249²)/2) = 1.898625;
		// d = -1.58/1.898625 = -0.832181; g = d·(1 - 3/71) = -0.797019.
		{"Hedges g", w.HedgesG, -0.797019, 5e-6},
		{"ratio", w.Ratio, 0.75 / 2.33, 1e-12},
	}
	for _, c := range checks {
		if !near(c.got, c.want, c.tol) {
			t.Errorf("%s = %.7f, want %.7f", c.name, c.got, c.want)
		}
	}
	if w.Significant {
		t.Errorf("p = %.5f reported significant at 5%%", w.P)
	}
	// The test is antisymmetric.
	r, _ := WelchTest(sleep2, sleep1)
	if !near(r.T, -w.T, 1e-12) || !near(r.P, w.P, 1e-12) || !near(r.HedgesG, -w.HedgesG, 1e-12) {
		t.Errorf("swapped samples: t=%v p=%v g=%v, want %v %v %v", r.T, r.P, r.HedgesG, -w.T, w.P, -w.HedgesG)
	}
}

func TestWelchCases(t *testing.T) {
	tests := []struct {
		name    string
		a, b    []float64
		err     error
		signif  bool
		t, p    float64
		checkTP bool
	}{
		{name: "too few a", a: []float64{1}, b: []float64{1, 2}, err: ErrTooFew},
		{name: "too few b", a: []float64{1, 2}, b: nil, err: ErrTooFew},
		{name: "identical constants", a: []float64{2, 2, 2}, b: []float64{2, 2}, t: 0, p: 1, checkTP: true},
		{name: "different constants", a: []float64{3, 3}, b: []float64{2, 2, 2}, signif: true, t: math.Inf(1), p: 0, checkTP: true},
		{name: "clearly faster", a: []float64{1.00, 1.01, 0.99, 1.00, 1.02}, b: []float64{2.00, 2.02, 1.98, 2.01, 1.99}, signif: true},
		{name: "same distribution", a: []float64{1, 2, 3, 4, 5}, b: []float64{1.1, 2.1, 2.9, 3.9, 5.1}, signif: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := WelchTest(tc.a, tc.b)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if w.Significant != tc.signif {
				t.Errorf("significant = %v (p=%v), want %v", w.Significant, w.P, tc.signif)
			}
			if tc.checkTP && (w.T != tc.t || w.P != tc.p) {
				t.Errorf("t=%v p=%v, want t=%v p=%v", w.T, w.P, tc.t, tc.p)
			}
			if w.P < 0 || w.P > 1 {
				t.Errorf("p = %v outside [0, 1]", w.P)
			}
		})
	}
}

// The expected figures below were computed apart from gonum, from the
// log times with R's qt(0.975, df): 12.7062047 (df 1), 4.3026527 (2),
// 3.1824463 (3), 2.7764451 (4).
func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want Summary
		tol  float64 // relative
	}{
		{
			name: "one run",
			xs:   []float64{2.5},
			want: Summary{Runs: 1, Mean: 2.5, Median: 2.5, Min: 2.5, Max: 2.5, GeoMean: 2.5, CILow: 2.5, CIHigh: 2.5},
		},
		{
			name: "two runs",
			xs:   []float64{3, 1},
			// logs 0 and ln 3: m = ln √3, s = ln 3/√2; half = 12.7062047·ln 3/2.
			want: Summary{Runs: 2, Mean: 2, StdDev: math.Sqrt2, Median: 2, Min: 1, Max: 3,
				GeoMean: math.Sqrt(3), CILow: 0.00161198299, CIHigh: 1861.06182},
			tol: 1e-6,
		},
		{
			name: "1, e, e²",
			xs:   []float64{math.E * math.E, 1, math.E},
			// logs 0, 1, 2: m = 1, s = 1; half = 4.3026527/√3 = 2.4841377.
			want: Summary{Runs: 3, Mean: (1 + math.E + math.E*math.E) / 3, StdDev: 3.3062734, Median: math.E, Min: 1, Max: math.E * math.E,
				GeoMean: math.E, CILow: math.Exp(1 - 2.4841377), CIHigh: math.Exp(1 + 2.4841377)},
			tol: 1e-6,
		},
		{
			// Three runs of N=12 with one slow outlier, as bench
			// printed them with an interval of -2.22ms .. 8.54ms: the
			// t interval of the times was -2.249 ms .. 8.57 ms.
			name: "an outlier of three",
			xs:   []float64{0.00178, 0.00203, 0.00567},
			want: Summary{Runs: 3, Mean: 0.0031600, StdDev: 0.00217731486, Median: 0.00203, Min: 0.00178, Max: 0.00567,
				GeoMean: 0.00273631673, CILow: 0.000565938508, CIHigh: 0.0132301110},
			tol: 1e-6,
		},
		{
			// N=12 of docs/bench/cpu-2core-xeon.json (5 runs, 2
			// workers, symmetry).
			name: "docs/bench N=12",
			xs:   []float64{0.002667963, 0.002674886, 0.002622126, 0.001644913, 0.001584705},
			want: Summary{Runs: 5, Mean: 0.0022389186, StdDev: 0.000570489410, Median: 0.002622126, Min: 0.001584705, Max: 0.002674886,
				GeoMean: 0.00217593541, CILow: 0.00155066097, CIHigh: 0.00305333983},
			tol: 1e-6,
		},
		{
			name: "even count median",
			xs:   []float64{4, 1, 3, 2},
			// logs of 1..4: m = ln 24/4, s = 0.6011676; half = 3.1824463·s/2.
			want: Summary{Runs: 4, Mean: 2.5, StdDev: math.Sqrt(5.0 / 3), Median: 2.5, Min: 1, Max: 4,
				GeoMean: math.Pow(24, 0.25), CILow: math.Pow(24, 0.25) * math.Exp(-3.1824463*0.6011676/2), CIHigh: math.Pow(24, 0.25) * math.Exp(3.1824463*0.6011676/2)},
			tol: 1e-6,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]float64(nil), tc.xs...)
			got, err := Summarize(tc.xs)
			if err != nil {
				t.Fatal(err)
			}
			for i := range in {
				if in[i] != tc.xs[i] {
					t.Fatalf("Summarize modified its input: %v, was %v", tc.xs, in)
				}
			}
			w := tc.want
			rel := func(a, b float64) bool { return near(a, b, tc.tol*math.Abs(b)) }
			if got.Runs != w.Runs || !rel(got.Mean, w.Mean) || !rel(got.StdDev, w.StdDev) ||
				!rel(got.Median, w.Median) || got.Min != w.Min || got.Max != w.Max ||
				!rel(got.GeoMean, w.GeoMean) || !rel(got.CILow, w.CILow) || !rel(got.CIHigh, w.CIHigh) {
				t.Errorf("Summarize(%v) =\n %+v\nwant\n %+v", tc.xs, got, w)
			}
			if !(0 < got.CILow && got.CILow <= got.GeoMean && got.GeoMean <= got.CIHigh) {
				t.Errorf("interval %g .. %g around %g", got.CILow, got.CIHigh, got.GeoMean)
			}
		})
	}
}

// However scattered, the interval of positive times is positive.
func TestSummarizePositive(t *testing.T) {
	for _, xs := range [][]float64{
		{1e-9, 1e7},
		{1e-6, 1e-6, 1},
		{0.001, 0.0011, 0.5, 0.0012, 0.0009},
	} {
		s, err := Summarize(xs)
		if err != nil {
			t.Fatal(err)
		}
		if !(s.CILow > 0) || math.IsInf(s.CIHigh, 0) {
			t.Errorf("Summarize(%v): interval %g .. %g", xs, s.CILow, s.CIHigh)
		}
	}
}

func TestSummarizeErrors(t *testing.T) {
	if _, err := Summarize(nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("Summarize(nil): %v, want ErrEmpty", err)
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), 0, -0.001} {
		if _, err := Summarize([]float64{1, x}); err == nil {
			t.Errorf("Summarize with %v: no error", x)
		}
	}
}

func TestEffectWord(t *testing.T) {
	for _, c := range []struct {
		g    float64
		want string
	}{{0, "negligible"}, {-0.19, "negligible"}, {0.3, "small"}, {-0.6, "medium"}, {0.8, "large"}, {math.Inf(-1), "large"}, {math.NaN(), "unknown"}} {
		if got := EffectWord(c.g); got != c.want {
			t.Errorf("EffectWord(%v) = %q, want %q", c.g, got, c.want)
		}
	}
}
