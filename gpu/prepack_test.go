package gpu

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// A producer that starts from the head PrepareEightfold packed sends the
// same tasks in the same order as one that packs them all, asks sel once
// for each batch, and takes the head (the next one packs everything).
func TestProduceFromHead(t *testing.T) {
	for _, c := range []struct{ n, headTasks int }{{8, 0}, {11, 0}, {13, 0}, {13, 5000}, {14, 20000}} {
		for _, sel := range []func(int) bool{nil, func(i int) bool { return i%3 != 1 }} {
			t.Run(fmt.Sprintf("N=%d/head=%d/select=%v", c.n, c.headTasks, sel != nil), func(t *testing.T) {
				spec := plan.Normalize(nq.Spec{N: c.n, Algo: nq.Eightfold})
				want, _ := produceHead(t, spec, sel, false)
				ForgetPrepared()
				var err error
				if c.headTasks == 0 { // a slot's: the whole list
					err = PrepareEightfold(context.Background(), spec)
				} else {
					err = prepareHead(context.Background(), spec, c.headTasks, heads.gen)
				}
				if err != nil {
					t.Fatal(err)
				}
				h := heads.m[[3]int{spec.N, spec.Depth, spec.Batch}]
				if h == nil || h.last == 0 {
					t.Fatalf("no head packed for %+v", spec)
				}
				l, err := tasks.NewEightfoldList(context.Background(), spec.N, spec.Depth)
				if err != nil {
					t.Fatal(err)
				}
				if total := l.Batches(spec.Batch); (h.last == total) != (c.headTasks == 0) {
					t.Fatalf("the head ends at batch %d of %d", h.last, total)
				}
				got, asked := produceHead(t, spec, sel, true)
				if len(heads.m) != 0 {
					t.Errorf("the producer left the head in heads")
				}
				if !slices.Equal(got.batches, want.batches) || !slices.Equal(got.left64, want.left64) || !slices.Equal(got.right64, want.right64) ||
					!slices.Equal(got.down, want.down) || !slices.Equal(got.meta, want.meta) {
					t.Errorf("from the head: %d tasks of %d batches, differing from the %d tasks of %d batches packed whole",
						len(got.meta), len(got.batches), len(want.meta), len(want.batches))
				}
				for b, k := range asked {
					if k != 1 {
						t.Errorf("sel asked %d times for batch %d", k, b)
					}
				}
			})
		}
	}
}

// produceHead runs an eightfold producer of spec that may start from a
// head, and returns its tasks and batches in order, and how many times
// it asked sel for each batch.
func produceHead(t *testing.T, spec nq.Spec, sel func(int) bool, head bool) (*part, map[int]int) {
	t.Helper()
	var mu sync.Mutex
	asked := map[int]int{}
	count := func(i int) bool {
		mu.Lock()
		asked[i]++
		mu.Unlock()
		return sel == nil || sel(i)
	}
	gp := newGroupPlan(5000, firstLevels(spec))
	gp.observed()
	p := producer{spec: spec, capTasks: slotBytes / taskBytes(eightfoldLayout, spec), plan: gp, sel: count, head: head}
	out := make(chan *group, 1<<16)
	if err := p.run(context.Background(), out); err != nil {
		t.Fatal(err)
	}
	close(out)
	all := &part{}
	for g := range out {
		f := g.flat()
		all.batches = append(all.batches, f.batches...)
		all.left64 = append(all.left64, f.left64...)
		all.right64 = append(all.right64, f.right64...)
		all.down = append(all.down, f.down...)
		all.meta = append(all.meta, f.meta...)
	}
	return all, asked
}

// A head split to other levels than the solve's, or with a part larger
// than the solve's launches, is dropped, not used.
func TestTakeHeadChecks(t *testing.T) {
	spec := plan.Normalize(nq.Spec{N: 11, Algo: nq.Eightfold})
	levels := firstLevels(spec)
	for _, c := range []struct {
		levels, capTasks int
		use              bool
	}{{levels, 1 << 20, true}, {levels - 1, 1 << 20, false}, {levels, 1, false}} {
		ForgetPrepared()
		if err := PrepareEightfold(context.Background(), spec); err != nil {
			t.Fatal(err)
		}
		if h := takeHead(spec, c.levels, c.capTasks); (h != nil) != c.use {
			t.Errorf("levels %d, %d tasks a launch: head taken %v, want %v", c.levels, c.capTasks, h != nil, c.use)
		}
		if takeHead(spec, levels, 1<<20) != nil {
			t.Errorf("a head was taken twice")
		}
	}
}

// A head whose packing began before ForgetPrepared is not kept.
func TestForgetPreparedDuringPacking(t *testing.T) {
	spec := plan.Normalize(nq.Spec{N: 11, Algo: nq.Eightfold})
	gen := heads.gen
	ForgetPrepared()
	if err := prepareHead(context.Background(), spec, 1<<20, gen); err != nil {
		t.Fatal(err)
	}
	if len(heads.m) != 0 {
		t.Errorf("a head packed across ForgetPrepared was kept")
	}
}
