package report

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

func TestMeasure(t *testing.T) {
	n8 := nq.Counts{C4: 1, C8: 11}
	step := time.Duration(0)
	clock := func(time.Time) time.Duration { step += time.Millisecond; return step }
	calls := 0
	good := func(context.Context) (nq.Counts, error) { calls++; return n8, nil }
	r, err := Measure(context.Background(), 8, 1, 3, good, clock)
	if err != nil || calls != 4 || len(r.WarmupSeconds) != 1 || len(r.Seconds) != 3 || r.Total != 92 || r.Verified != known.VerifiedClasses || r.Stats.Runs != 3 {
		t.Fatalf("Measure = %+v, %v after %d calls", r, err, calls)
	}
	if r.Seconds[0] != 0.002 || math.Abs(r.Stats.Mean-0.003) > 1e-12 {
		t.Errorf("times %v, mean %v; want 2, 3, 4 ms", r.Seconds, r.Stats.Mean)
	}
	tests := []struct {
		name  string
		count func(context.Context) (nq.Counts, error)
		msg   string
	}{
		{"wrong counts", func(context.Context) (nq.Counts, error) { return nq.Counts{C8: 12}, nil }, "wrong counts: N=8: total 96"},
		{"runs differ", func() func(context.Context) (nq.Counts, error) {
			k := 0
			return func(context.Context) (nq.Counts, error) {
				k++
				if k == 2 {
					return nq.Counts{C8: 1}, nil
				}
				return n8, nil
			}
		}(), "run 2 counted"},
		{"failure", func(context.Context) (nq.Counts, error) { return nq.Counts{}, errors.New("lost") }, "N=8: lost"},
	}
	for _, tt := range tests {
		if _, err := Measure(context.Background(), 8, 1, 3, tt.count, clock); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.msg)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Measure(ctx, 8, 1, 3, good, clock); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestSeriesLabel(t *testing.T) {
	tests := []struct {
		s    Series
		want string
	}{
		{Series{Backend: "cpu", Device: "cpu", Algo: "symmetry"}, "cpu symmetry"},
		{Series{Backend: "gpu", Device: "0", Algo: "carrychain"}, "gpu0 carrychain"},
		{Series{Backend: "gpu", Device: "0,1", Algo: "symmetry"}, "gpus symmetry"},
		{Series{Backend: "cpu", Device: "cpu", Requested: "0", Fallback: "no GPU", Algo: "symmetry"}, "cpu symmetry (gpu0 fallback)"},
		{Series{Backend: "cpu", Device: "cpu", Requested: "all", Fallback: "no GPU", Algo: "symmetry"}, "cpu symmetry (gpus fallback)"},
	}
	for _, tt := range tests {
		if got := SeriesLabel(tt.s); got != tt.want {
			t.Errorf("SeriesLabel(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}
