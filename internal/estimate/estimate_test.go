package estimate

import (
	"math"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

var algos = []nq.Algo{nq.Symmetry, nq.CarryChain, nq.Mirror, nq.Bitmap, nq.Backtrack}

// The measured figures come back as they are for one worker.
func TestReference(t *testing.T) {
	for n, want := range map[int]float64{14: 0.068, 15: 0.264, 16: 1.69, 17: 12.99} {
		if got := CPUSeconds(n, nq.Symmetry, 1); got != want {
			t.Errorf("N=%d: %g s, want the measured %g s", n, got, want)
		}
	}
	// 7.0 from 17 to 18, as measured on two workers (7.4 s, 52 s).
	if got := CPUSeconds(18, nq.Symmetry, 1) / CPUSeconds(17, nq.Symmetry, 1); math.Abs(got-7.0) > 1e-9 {
		t.Errorf("growth 17 -> 18: %g, want 7.0", got)
	}
}

// Each N costs more than the one before, by a factor between 2 and 9.
func TestMonotoneInN(t *testing.T) {
	for _, a := range algos {
		for _, w := range []int{1, 2, 16} {
			prev := CPUSeconds(1, a, w)
			if prev <= 0 {
				t.Errorf("%s, %d workers, N=1: %g", a, w, prev)
			}
			for n := 2; n <= 28; n++ {
				cur := CPUSeconds(n, a, w)
				if r := cur / prev; !(r > 2 && r < 9) {
					t.Errorf("%s, %d workers: N=%d costs %g times N=%d", a, w, n, r, n-1)
				}
				prev = cur
			}
		}
	}
}

// More workers take less time, nearly in proportion; fewer than one count
// as one.
func TestScalesWithWorkers(t *testing.T) {
	tests := []struct {
		workers int
		ratio   float64 // one worker's time over theirs
	}{
		{-1, 1}, {0, 1}, {1, 1}, {2, 1.8}, {4, 3.6}, {16, 14.4}, {192, 172.8},
	}
	for _, a := range algos {
		for _, n := range []int{12, 18, 25} {
			one := CPUSeconds(n, a, 1)
			for _, tt := range tests {
				if got := one / CPUSeconds(n, a, tt.workers); math.Abs(got-tt.ratio) > 1e-9*tt.ratio {
					t.Errorf("%s N=%d: %d workers are %g times as fast as one, want %g", a, n, tt.workers, got, tt.ratio)
				}
			}
		}
	}
}

func TestAlgorithms(t *testing.T) {
	sym := CPUSeconds(20, nq.Symmetry, 8)
	for _, a := range []nq.Algo{nq.CarryChain, nq.Mirror, nq.Bitmap, nq.Backtrack} {
		if CPUSeconds(20, a, 8) <= sym {
			t.Errorf("%s is estimated no slower than symmetry", a)
		}
	}
	if got := CPUSeconds(20, nq.Algo("unknown"), 8); got != sym {
		t.Errorf("an unknown algorithm: %g, want symmetry's %g", got, sym)
	}
	if got := CPUSeconds(0, nq.Symmetry, 1); got != 0 {
		t.Errorf("N=0: %g", got)
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		seconds float64
		want    string
	}{
		{math.NaN(), "under a second"},
		{-5, "under a second"},
		{0, "under a second"},
		{0.7, "under a second"},
		{1, "1 second"},
		{1.69, "1.7 seconds"},
		{12.99, "13 seconds"},
		{90.93, "91 seconds"},
		{650, "11 minutes"},
		{4746, "79 minutes"},
		{3600, "60 minutes"},
		{7200, "2 hours"},
		{35358, "9.8 hours"},
		{40 * 3600, "40 hours"},
		{86400 * 2, "2 days"},
		{268724, "3.1 days"},
		{1.6452e7, "190 days"},
		{365.25 * 86400, "1 year"},
		{1.3244e8, "4.2 years"},
		{7.708e10, "2400 years"},
		// N=28 on two workers: beyond what a time.Duration holds (292
		// years).
		{CPUSeconds(28, nq.Eightfold, 2), "810 years"},
	}
	for _, tt := range tests {
		if got := Text(tt.seconds); got != tt.want {
			t.Errorf("Text(%g) = %q, want %q", tt.seconds, got, tt.want)
		}
	}
}

// A range costs the sum of its sizes; an empty one nothing.
func TestRangeSeconds(t *testing.T) {
	want := CPUSeconds(20, nq.Eightfold, 4) + CPUSeconds(21, nq.Eightfold, 4) + CPUSeconds(22, nq.Eightfold, 4)
	if got := RangeSeconds(20, 22, nq.Eightfold, 4); math.Abs(got-want) > 1e-9*want {
		t.Errorf("RangeSeconds(20, 22) = %g, want %g", got, want)
	}
	if got := RangeSeconds(16, 16, nq.Symmetry, 1); got != 1.69 {
		t.Errorf("RangeSeconds(16, 16) = %g, want the measured 1.69", got)
	}
	if got := RangeSeconds(9, 8, nq.Symmetry, 1); got != 0 {
		t.Errorf("an empty range: %g", got)
	}
}
