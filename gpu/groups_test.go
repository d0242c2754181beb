package gpu

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
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
					out := make(chan *group, 100000)
					// Small groups: many of them.
					if err := produce(context.Background(), n, algo, depth, batch, capTasks, targetOf(9), sel, out); err != nil {
						t.Fatal(err)
					}
					close(out)
					var sum nq.Partial
					seen := map[int]bool{}
					for gr := range out {
						g := gr.flat()
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
	out := make(chan *group) // nobody reads: the producer must give up
	cancel()
	err := produce(ctx, 12, nq.Symmetry, 5, 4, 100, targetOf(1), nil, out)
	if err != context.Canceled {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// At N=28 the eightfold listing orients its borders for seconds before
// the first batch: a cancelled producer does not wait for that.
func TestProduceStopsWhileListing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	err := produce(ctx, 28, nq.Eightfold, 4, 32, 100, targetOf(1), nil, make(chan *group))
	if err != context.Canceled || time.Since(start) > time.Second {
		t.Errorf("got %v after %v, want context.Canceled at once", err, time.Since(start))
	}
}

// Groups follow the launch planner's size (the shared plan): a group is
// sent at the first part that brings it to the target, so it holds at
// least the target (the list's last group aside) and less than the target
// plus its last part, and never more than capTasks.
func TestProduceGroupSizes(t *testing.T) {
	for _, algo := range []nq.Algo{nq.Eightfold, nq.Symmetry} {
		for _, tc := range []struct{ target, capTasks int }{{1000, 1 << 20}, {1000, 1100}, {5000, 3000}} {
			n, batch := 14, 64
			depth := tasks.DefaultDepth(n)
			if algo == nq.Eightfold {
				depth = tasks.DefaultSplit(n)
			}
			out := make(chan *group, 100000)
			if err := produce(context.Background(), n, algo, depth, batch, tc.capTasks, targetOf(tc.target), nil, out); err != nil {
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
				last := g.parts[len(g.parts)-1].count
				if algo != nq.Eightfold {
					last = batch // one part a group: its last batch
				}
				if g.count > tc.capTasks && len(g.parts) > 1 {
					t.Errorf("%s %+v: group %d of %d tasks, more than the slot's %d", algo, tc, i, g.count, tc.capTasks)
				}
				if g.count-last >= min(tc.target, tc.capTasks) {
					t.Errorf("%s %+v: group %d of %d tasks was full before its last part", algo, tc, i, g.count)
				}
				if i < len(gs)-1 && g.count < tc.target && g.count+gs[i+1].parts[0].count <= tc.capTasks {
					t.Errorf("%s %+v: group %d of %d tasks, short of the target with room for more", algo, tc, i, g.count)
				}
			}
		}
	}
}

// BenchmarkProduceEightfold packs the eightfold tasks of N=18 and 20
// into launch groups as a GPU solve does (3.8 and 11.4 million tasks after
// the split), in groups of the floor of an H100 (128 tasks for each of
// 84,480 threads), with one worker and with one per core: the host's share
// of a count, and how it grows with the cores. Besides the time it
// reports the CPU time per task (cpu-ns/task, the process's user and
// system time): on a machine shared with other work the wall time says
// little, and 16 cores pack about 16e9 / cpu-ns/task tasks a second
// (docs/performance.md).
func BenchmarkProduceEightfold(b *testing.B) {
	for _, n := range []int{18, 20} {
		for _, w := range []int{1, runtime.GOMAXPROCS(0)} {
			b.Run(fmt.Sprintf("N=%d/workers=%d", n, w), func(b *testing.B) {
				capTasks := slotBytes / (8 + 8 + 4 + 4)
				if _, err := tasks.NewEightfoldList(context.Background(), n, tasks.DefaultSplit(n)); err != nil {
					b.Fatal(err) // the list is made as the program starts, not per count
				}
				cpu0, packed := cpuTime(), 0
				for b.Loop() {
					out := make(chan *group, 4)
					p := producer{spec: nq.Spec{N: n, Algo: nq.Eightfold, Depth: tasks.DefaultSplit(n), Batch: plan.DefaultBatch(n)},
						capTasks: capTasks, plan: planOf(84480 * minTasksPerThread), workers: w}
					go func() {
						defer close(out)
						if err := p.run(context.Background(), out); err != nil {
							b.Error(err)
						}
					}()
					for g := range out {
						packed += g.count
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(packed), "cpu-ns/task")
			})
		}
	}
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// The producer sends eightfold tasks of at most the default levels
// (efLevels) at the planner's first levels, also where those are fewer
// than 2 (N=5): so a count's tasks, and the nodes the _nodes kernels
// count, are those of the spec however the planner splits.
func TestProduceFirstLevels(t *testing.T) {
	for n := 5; n <= 9; n++ {
		split := tasks.DefaultSplit(n)
		def := efLevels(n, split)
		plan := newGroupPlan(newLaunchPlanner(64, 1<<20, 0).splits(def, def, 4).next())
		plan.observed()
		p := producer{spec: nq.Spec{N: n, Algo: nq.Eightfold, Depth: split, Batch: 4}, capTasks: 1 << 20, plan: plan}
		out := make(chan *group, 1<<12)
		if err := p.run(context.Background(), out); err != nil {
			t.Fatal(err)
		}
		close(out)
		want := 0
		err := tasks.EnumerateEightfold(n, split, 4, func(e *tasks.Eightfold) error {
			want += efSplit(e, n, split, &tasks.Eightfold{}).Len()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for g := range out {
			for _, m := range g.flat().meta {
				if int(m&0xff) > max(def, 1) {
					t.Fatalf("N=%d: a task of %d levels, more than %d", n, m&0xff, def)
				}
			}
			got += g.count
		}
		if got != want {
			t.Errorf("N=%d: %d tasks sent, efSplit makes %d", n, got, want)
		}
	}
}
