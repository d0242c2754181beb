package tasks_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// Range lists any run of batches exactly as EnumerateEightfold lists
// them: the same tasks, words and Meta, in the same batches, with or
// without Cols; and the list's counts are the enumeration's.
func TestEightfoldListRange(t *testing.T) {
	forOrientations(t, func(t *testing.T) {
		for _, c := range []struct{ n, split, batch int }{{5, 0, 3}, {9, 1, 7}, {12, 2, 64}, {13, 3, 5}} {
			var want []*tasks.Eightfold
			err := tasks.EnumerateEightfold(c.n, c.split, c.batch, func(e *tasks.Eightfold) error {
				want = append(want, e.Clone())
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			l, err := tasks.NewEightfoldList(context.Background(), c.n, c.split)
			if err != nil {
				t.Fatal(err)
			}
			var all int64
			for _, e := range want {
				all += int64(e.Len())
			}
			if l.Tasks() != all || l.Batches(c.batch) != len(want) {
				t.Fatalf("%+v: list of %d tasks in %d batches, the enumeration %d in %d", c, l.Tasks(), l.Batches(c.batch), all, len(want))
			}
			rng := rand.New(rand.NewPCG(uint64(c.n), 1))
			ranges := [][2]int{{0, len(want)}, {len(want) - 1, len(want) + 3}}
			for k := 0; k < 20; k++ {
				a := rng.IntN(len(want))
				ranges = append(ranges, [2]int{a, a + 1 + rng.IntN(len(want)-a)})
			}
			for _, r := range ranges {
				checkRange(t, l, c.batch, r, want)
			}
		}
	})
}

// checkRange lists batches r[0] to r[1]-1 of l, with and without Cols,
// and compares them with want, the enumeration's batches.
func checkRange(t *testing.T, l *tasks.EightfoldList, batch int, r [2]int, want []*tasks.Eightfold) {
	t.Helper()
	for _, cols := range []bool{true, false} {
		next := r[0]
		err := l.Range(context.Background(), batch, r[0], r[1], cols, func(i int, e *tasks.Eightfold) error {
			w := want[i]
			if !cols {
				w = w.Clone()
				w.Cols = nil
			}
			if i != next || fmt.Sprint(e.Left, e.Right, e.Down, e.Meta, e.Cols) != fmt.Sprint(w.Left, w.Right, w.Down, w.Meta, w.Cols) {
				t.Fatalf("range %v (cols %v): batch %d (want %d) differs from the enumeration's", r, cols, i, next)
			}
			next++
			return nil
		})
		if err != nil || next != min(r[1], len(want)) {
			t.Fatalf("range %v (cols %v): listed up to %d, %v", r, cols, next, err)
		}
	}
}

// A range listed without Cols splits as one with them (SplitLevels),
// but without Cols.
func TestEightfoldSplitLevelsWithoutCols(t *testing.T) {
	n, split := 13, 2
	l, err := tasks.NewEightfoldList(context.Background(), n, split)
	if err != nil {
		t.Fatal(err)
	}
	for _, levels := range []int{3, 5, tasks.SplitLevelsFor(n, split)} {
		err := l.Range(context.Background(), 50, 3, 9, true, func(i int, e *tasks.Eightfold) error {
			with := e.SplitLevels(levels, &tasks.Eightfold{})
			bare := e.Clone()
			bare.Cols = nil
			without := bare.SplitLevels(levels, &tasks.Eightfold{})
			if len(without.Cols) != 0 || fmt.Sprint(with.Left, with.Right, with.Down, with.Meta) != fmt.Sprint(without.Left, without.Right, without.Down, without.Meta) {
				t.Fatalf("levels %d, batch %d: the split without Cols differs", levels, i)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
