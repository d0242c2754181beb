package gpu

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/cpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job/jobtest"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
	"github.com/nqueens-gpu/nqueens-gpu/kernels/host"
)

// The launch groups a GPU solve builds, each run through the kernels'
// per-task search on the host (the same C code the device runs), add up to
// the CPU backend's counts, and every selected batch lands in exactly one
// group.
func TestGroupsCoverSelectedBatches(t *testing.T) {
	if !host.Enabled {
		t.Skip("kernels/host needs cgo")
	}
	for _, algo := range Algos() {
		for _, n := range []int{5, 8, 11, 12} {
			for _, sel := range []func(int) bool{nil, func(i int) bool { return i%3 != 1 }} {
				name := fmt.Sprintf("%s/N=%d/select=%v", algo, n, sel != nil)
				t.Run(name, func(t *testing.T) {
					depth, batch := tasks.DefaultDepth(n), 4
					words, capTasks := depth, 50
					switch algo {
					case nq.CarryChain:
						words = n
					case nq.Eightfold:
						words = 0
					}
					var target atomic.Int64
					target.Store(9) // small groups: many of them
					out := make(chan *group, 100000)
					if err := produce(context.Background(), n, algo, depth, batch, capTasks, &target, sel, out); err != nil {
						t.Fatal(err)
					}
					close(out)
					var sum nq.Partial
					seen := map[int]bool{}
					for g := range out {
						if g.count == 0 || g.count > capTasks || len(g.rows) != g.count*words {
							t.Fatalf("group of %d tasks with %d row words", g.count, len(g.rows))
						}
						for _, b := range g.batches {
							if seen[b] {
								t.Fatalf("batch %d in two groups", b)
							}
							seen[b] = true
						}
						var p nq.Partial
						switch algo {
						case nq.Eightfold:
							if len(g.left64) != g.count || len(g.right64) != g.count || len(g.down) != g.count || len(g.meta) != g.count {
								t.Fatalf("eightfold group of %d tasks with %d, %d, %d, %d words", g.count, len(g.left64), len(g.right64), len(g.down), len(g.meta))
							}
							e := &tasks.Eightfold{N: n, Cols: make([]uint8, g.count*n), Left: g.left64, Right: g.right64, Down: g.down, Meta: g.meta} // Cols stays on the host
							p[3] = host.Eightfold(e).Total
						case nq.CarryChain:
							f := &tasks.Frames{N: n, Rows: g.rows, Weight: g.weight, Sym180: g.sym180}
							c := host.Frames(f)
							p[1], p[2], p[3] = c.C2, c.C4, c.C8
						default:
							b := &tasks.Boards{N: n, Kind: tasks.Symmetry, Depth: depth, Rows: g.rows, Left: g.left, Down: g.down, Right: g.right}
							c := host.Boards(b)
							p[1], p[2], p[3] = c.C2, c.C4, c.C8
						}
						sum.Add(p)
					}
					want, err := jobtest.Partial(context.Background(), cpu.New(0), nq.Spec{N: n, Algo: algo, Depth: depth, Batch: batch}, sel)
					if err != nil {
						t.Fatal(err)
					}
					if sum != want {
						t.Errorf("groups sum to %v, the CPU backend to %v", sum, want)
					}
					for b := range seen {
						if sel != nil && !sel(b) {
							t.Errorf("batch %d was not selected", b)
						}
					}
				})
			}
		}
	}
}

func TestProduceStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var target atomic.Int64
	target.Store(1)
	out := make(chan *group) // nobody reads: the producer must give up
	cancel()
	err := produce(ctx, 12, nq.Symmetry, 5, 4, 100, &target, nil, out)
	if err != context.Canceled {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// At N=28 the eightfold listing orients its borders for seconds before
// the first batch: a cancelled producer does not wait for that.
func TestProduceStopsWhileListing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var target atomic.Int64
	target.Store(1)
	cancel()
	start := time.Now()
	err := produce(ctx, 28, nq.Eightfold, 4, 32, 100, &target, nil, make(chan *group))
	if err != context.Canceled || time.Since(start) > time.Second {
		t.Errorf("got %v after %v, want context.Canceled at once", err, time.Since(start))
	}
}

// Groups follow the launch planner's size (the shared target): a group is
// flushed at the first whole batch that brings it to the target, so it
// holds at least target tasks (the last group of the list aside) and less
// than target plus one batch, and never more than capTasks.
func TestProduceGroupSizes(t *testing.T) {
	for _, algo := range []nq.Algo{nq.Eightfold, nq.Symmetry} {
		for _, tc := range []struct{ target, capTasks int }{{1000, 1 << 20}, {1000, 1100}, {5000, 3000}} {
			n, batch := 14, 64
			depth := tasks.DefaultDepth(n)
			if algo == nq.Eightfold {
				depth = tasks.DefaultSplit(n)
			}
			// A batch of eightfold tasks grows where its longest tasks
			// are split (efLevels): the slack is the largest batch sent.
			most := batch
			if algo == nq.Eightfold {
				err := tasks.EnumerateEightfold(n, depth, batch, func(e *tasks.Eightfold) error {
					most = max(most, efSplit(e, n, depth, &tasks.Eightfold{}).Len())
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			var target atomic.Int64
			target.Store(int64(tc.target))
			out := make(chan *group, 100000)
			if err := produce(context.Background(), n, algo, depth, batch, tc.capTasks, &target, nil, out); err != nil {
				t.Fatal(err)
			}
			close(out)
			var gs []*group
			for g := range out {
				gs = append(gs, g)
			}
			if len(gs) < 3 {
				t.Fatalf("%s: %d groups, want several", algo, len(gs))
			}
			for i, g := range gs {
				if g.count > tc.capTasks {
					t.Errorf("%s %+v: group %d of %d tasks, more than the slot's %d", algo, tc, i, g.count, tc.capTasks)
				}
				if g.count >= tc.target+most {
					t.Errorf("%s %+v: group %d of %d tasks, a batch or more over the target", algo, tc, i, g.count)
				}
				if i < len(gs)-1 && g.count < min(tc.target, tc.capTasks-most+1) {
					t.Errorf("%s %+v: group %d of %d tasks, short of the target", algo, tc, i, g.count)
				}
			}
		}
	}
}

// grow keeps the elements, leaves room for the ones asked, and allocates
// smallGroup first, then the group's full size (or what one append asks
// beyond it), then doubles.
func TestGrow(t *testing.T) {
	for _, tc := range []struct {
		full, step, steps int
		wantCaps          []int // the distinct capacities, in order
	}{
		{full: 3 << 20, step: 1000, steps: 3000, wantCaps: []int{smallGroup, 3 << 20}},
		{full: 1000, step: 100, steps: 10, wantCaps: []int{1000}},
		{full: 1000, step: 100, steps: 25, wantCaps: []int{1000, 2000, 4000}}, // past full: doubling
		{full: 3 << 20, step: 2 << 20, steps: 1, wantCaps: []int{2 << 20}},
	} {
		var s []uint32
		var caps []int
		for i := 0; i < tc.steps; i++ {
			s = grow(s, tc.step, tc.full)
			if cap(s)-len(s) < tc.step {
				t.Fatalf("%+v: room for %d, want %d", tc, cap(s)-len(s), tc.step)
			}
			if len(caps) == 0 || caps[len(caps)-1] != cap(s) {
				caps = append(caps, cap(s))
			}
			for j := 0; j < tc.step; j++ {
				s = append(s, uint32(len(s)))
			}
		}
		for i, v := range s {
			if v != uint32(i) {
				t.Fatalf("%+v: element %d is %d after growing", tc, i, v)
			}
		}
		if fmt.Sprint(caps) != fmt.Sprint(tc.wantCaps) {
			t.Errorf("%+v: capacities %v, want %v", tc, caps, tc.wantCaps)
		}
	}
}

// BenchmarkProduceEightfold packs the eightfold tasks of N=18 and 20
// into launch groups as a GPU solve does (3.8 and 11.4 million tasks after
// the split; one group of them all, and 11.2 million and the rest): the
// host's share of a count, nearly all of it before the first launch.
func BenchmarkProduceEightfold(b *testing.B) {
	for _, n := range []int{18, 20} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			capTasks := slotBytes / (8 + 8 + 4 + 4)
			for b.Loop() {
				var target atomic.Int64
				target.Store(int64(firstGroupTasks(132, capTasks)))
				out := make(chan *group, 4)
				go func() {
					defer close(out)
					if err := produce(context.Background(), n, nq.Eightfold, tasks.DefaultSplit(n), plan.DefaultBatch(n), capTasks, &target, nil, out); err != nil {
						b.Error(err)
					}
				}()
				for range out {
				}
			}
		})
	}
}
