package burnside

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/symmetry"
)

// bruteSymmetric enumerates every solution of n with a plain row-by-row
// backtracking search and counts those that the quarter turn and the half
// turn map onto themselves, by applying the turns to the column list.
func bruteSymmetric(n int) (s90, s180 uint64) {
	q := make([]int, n)
	img := make([]int, n)
	colUsed := make([]bool, n)
	sumUsed := make([]bool, 2*n)
	diffUsed := make([]bool, 2*n)
	same := func(a, b []int) bool {
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	var place func(r int)
	place = func(r int) {
		if r == n {
			if same(symmetry.Apply(symmetry.Rot180, q, img), q) {
				s180++
			}
			if same(symmetry.Apply(symmetry.Rot90, q, img), q) {
				s90++
			}
			return
		}
		for c := 0; c < n; c++ {
			if colUsed[c] || sumUsed[r+c] || diffUsed[c-r+n] {
				continue
			}
			colUsed[c], sumUsed[r+c], diffUsed[c-r+n] = true, true, true
			q[r] = c
			place(r + 1)
			colUsed[c], sumUsed[r+c], diffUsed[c-r+n] = false, false, false
		}
	}
	place(0)
	return s90, s180
}

func TestSymmetricAgainstBruteForce(t *testing.T) {
	for n := 1; n <= 12; n++ {
		want90, want180 := bruteSymmetric(n)
		got90, got180, err := Symmetric(context.Background(), n)
		if err != nil || got90 != want90 || got180 != want180 {
			t.Errorf("Symmetric(%d) = %d, %d, %v; brute force gives S90=%d S180=%d", n, got90, got180, err, want90, want180)
		}
	}
}

// TestClassesFromPublishedTotals checks S90 and S180 through the classes
// they give with the published Total: Unique must be the published one, and
// COUNT2/4/8 the published split where there is one.
//
// N = 4..23 always (0.1 s); N = 24 and 25 (0.4 s more on two cores)
// unless -short. BenchmarkSymmetric logs the classes up to N = 27.
func TestClassesFromPublishedTotals(t *testing.T) {
	maxN := 25
	if testing.Short() {
		maxN = 23
	}
	for n := 4; n <= maxN; n++ {
		e, ok := known.Lookup(n)
		if !ok {
			t.Fatalf("no published entry for N=%d", n)
		}
		start := time.Now()
		s90, s180, err := Symmetric(context.Background(), n)
		if err != nil {
			t.Fatalf("Symmetric(%d): %v", n, err)
		}
		elapsed := time.Since(start)
		c, err := nq.FromBurnside(e.Total, s180, s90)
		if err != nil {
			t.Errorf("N=%d: %v", n, err)
			continue
		}
		if c.Unique() != e.Unique {
			t.Errorf("N=%d: S90=%d S180=%d Total=%d give Unique=%d, published %d", n, s90, s180, e.Total, c.Unique(), e.Unique)
		}
		if k, ok := known.ClassTable[n]; ok && (c.C2 != k.C2 || c.C4 != k.C4 || c.C8 != k.C8) {
			t.Errorf("N=%d: classes %v, published C2=%d C4=%d C8=%d", n, c, k.C2, k.C4, k.C8)
		}
		if n >= 20 {
			t.Logf("N=%d: S90=%d S180=%d in %v", n, s90, s180, elapsed.Round(time.Millisecond))
		}
	}
}

func TestSymmetricRejectsN(t *testing.T) {
	for _, n := range []int{-1, 0, nq.MaxN + 1, 64} {
		if s90, s180, err := Symmetric(context.Background(), n); err == nil {
			t.Errorf("Symmetric(%d) = %d, %d, nil; want an error", n, s90, s180)
		}
	}
}

func TestSymmetricHonoursContext(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		after time.Duration // cancel after this long; 0: before the call
	}{
		{"cancelled before, small N", 8, 0},
		{"cancelled before, N=28", 28, 0},
		{"cancelled during, N=28", 28, 50 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.after == 0 {
				cancel()
			} else {
				time.AfterFunc(tt.after, cancel)
			}
			start := time.Now()
			s90, s180, err := Symmetric(ctx, tt.n)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Symmetric(%d) = %d, %d, %v; want context.Canceled", tt.n, s90, s180, err)
			}
			// One task of N=28 takes milliseconds; allow for a slow, shared machine.
			if late := time.Since(start) - tt.after; late > 2*time.Second {
				t.Errorf("Symmetric(%d) returned %v after the cancel", tt.n, late)
			}
		})
	}
}

// The half-turn search of a task stops within milliseconds once its stop
// is set, wherever it is: at N=28 a task runs for seconds to minutes,
// longer than a stopped count may wait for it. With the stop set from the
// start, each of a sample of the tasks returns after stopEvery
// backtracks, about a millisecond.
func TestHalfTurnStopsInsideTask(t *testing.T) {
	hs := newHalfSearch(28)
	tasks := hs.tasks(2)
	var stop atomic.Bool
	stop.Store(true)
	start := time.Now()
	sampled := 0
	for i := 0; i < len(tasks); i += 1000 {
		hs.count(&tasks[i], &stop)
		sampled++
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("%d stopped N=28 tasks took %v", sampled, took)
	}
}
