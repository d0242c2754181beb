package tasks_test

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/symmetry"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks/taskstest"
)

// borderOf returns the border of a solution given by its columns.
func borderOf(q []int) tasks.Border {
	n := len(q)
	b := tasks.Border{Top: q[0], Bottom: q[n-1]}
	for r, c := range q {
		if c == 0 {
			b.Left = r
		}
		if c == n-1 {
			b.Right = r
		}
	}
	return b
}

// forOrientations runs f twice: with the borders as EightfoldBorders
// orients them below N=17 (the member rank prefers) and as it does from
// N=17 on (orient's estimate), here for every N.
func forOrientations(t *testing.T, f func(t *testing.T)) {
	for _, m := range []struct {
		name string
		minN int
	}{{"rank", 29}, {"estimate", 5}} {
		t.Run(m.name, func(t *testing.T) {
			defer tasks.SetOrientMinN(m.minN)()
			f(t)
		})
	}
}

// oriented reports whether t is forOrientations' run by estimate.
func oriented(t *testing.T) bool { return strings.HasSuffix(t.Name(), "/estimate") }

// rawBorders lists every border pattern of n whose queens do not attack
// each other, written from the definition: one queen per border line, a
// corner queen on two of them.
func rawBorders(n int) []tasks.Border {
	var out []tasks.Border
	for top := 0; top < n; top++ {
		for bottom := 0; bottom < n; bottom++ {
			for left := 0; left < n; left++ {
				for right := 0; right < n; right++ {
					qs := map[[2]int]bool{{0, top}: true, {n - 1, bottom}: true, {left, 0}: true, {right, n - 1}: true}
					var list [][2]int
					for q := range qs {
						list = append(list, q)
					}
					ok := true
					for i := range list {
						for j := i + 1; j < len(list); j++ {
							dr, dc := list[i][0]-list[j][0], list[i][1]-list[j][1]
							if dr == 0 || dc == 0 || dr == dc || dr == -dc {
								ok = false
							}
						}
					}
					if ok {
						out = append(out, tasks.Border{Top: top, Bottom: bottom, Left: left, Right: right})
					}
				}
			}
		}
	}
	return out
}

// imageOf maps a border through a symmetry, by mapping its queens.
func imageOf(n int, b tasks.Border, op symmetry.Op) tasks.Border {
	var out tasks.Border
	for _, q := range [][2]int{{0, b.Top}, {n - 1, b.Bottom}, {b.Left, 0}, {b.Right, n - 1}} {
		r, c := op.Point(n, q[0], q[1])
		if r == 0 {
			out.Top = c
		}
		if r == n-1 {
			out.Bottom = c
		}
		if c == 0 {
			out.Left = r
		}
		if c == n-1 {
			out.Right = r
		}
	}
	return out
}

// The canonical borders are one per orbit of the valid border patterns,
// with weight 8/|stabiliser|, so that the weights add up to the number of
// patterns (orbit-stabiliser).
func TestEightfoldBordersOnePerOrbit(t *testing.T) {
	forOrientations(t, func(t *testing.T) {
		for n := 5; n <= 14; n++ {
			canon, err := tasks.EightfoldBorders(n, tasks.DefaultSplit(n))
			if err != nil {
				t.Fatal(err)
			}
			raw := rawBorders(n)
			index := map[tasks.Border]int{} // border (weight 0) -> its canonical's index
			for i, b := range canon {
				key := b
				key.Weight = 0
				if _, dup := index[key]; dup {
					t.Fatalf("N=%d: border %+v listed twice", n, b)
				}
				index[key] = i
			}
			weights := 0
			for i, b := range canon {
				key := b
				key.Weight = 0
				stab := 0
				for _, op := range symmetry.Ops {
					img := imageOf(n, key, op)
					if img == key {
						stab++
					} else if j, ok := index[img]; ok {
						t.Fatalf("N=%d: borders %d %+v and %d %+v are images of each other", n, i, b, j, canon[j])
					}
				}
				if b.Weight != 8/stab || b.Weight < 2 {
					t.Fatalf("N=%d: border %+v has weight %d, stabiliser of %d", n, b, b.Weight, stab)
				}
				weights += b.Weight
			}
			for _, b := range raw {
				found := 0
				for _, op := range symmetry.Ops {
					if _, ok := index[imageOf(n, b, op)]; ok {
						found++
					}
				}
				if found == 0 {
					t.Fatalf("N=%d: border %+v has no canonical image", n, b)
				}
			}
			if weights != len(raw) {
				t.Errorf("N=%d: weights add up to %d, %d border patterns", n, weights, len(raw))
			}
		}
	})
}

// collect enumerates every task of n and split as one batch.
func collect(t testing.TB, n, split, batch int) *tasks.Eightfold {
	all := &tasks.Eightfold{N: n, Split: split}
	err := tasks.EnumerateEightfold(n, split, batch, func(e *tasks.Eightfold) error {
		if e.N != n || e.Split != split {
			return fmt.Errorf("batch of N=%d split %d", e.N, e.Split)
		}
		all.Cols = append(all.Cols, e.Cols...)
		all.Left = append(all.Left, e.Left...)
		all.Right = append(all.Right, e.Right...)
		all.Down = append(all.Down, e.Down...)
		all.Meta = append(all.Meta, e.Meta...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// Σ weight × completions over the tasks, each completed by the plain
// reference search from its placed queens, is the published Total. (N=16
// and up take the reference too long here: the cpu and kernels/host tests
// check them with the fast searches, which they check against this
// reference task by task.)
func TestEightfoldTotals(t *testing.T) {
	forOrientations(t, func(t *testing.T) {
		for n := 5; n <= 15; n++ {
			if n > 13 && testing.Short() || n > 12 && oriented(t) {
				break
			}
			splits := []int{tasks.DefaultSplit(n)}
			if n <= 10 {
				splits = append(splits, 0, 2, n)
			}
			want, _ := known.Lookup(n)
			for _, split := range splits {
				e := collect(t, n, split, 1000)
				var total uint64
				for i := 0; i < e.Len(); i++ {
					c, _ := taskstest.SearchEightfold(e.Task(i))
					total += e.Weight(i) * c
				}
				if total != want.Total {
					t.Errorf("N=%d split %d: Σ weight × completions = %d, Total %d", n, split, total, want.Total)
				}
			}
		}
	})
}

// solutions lists every solution of n by plain backtracking.
func solutions(n int) [][]int {
	return completions(n, nil)
}

// Every solution has exactly one canonical border in its orbit's borders,
// and the tasks of that border complete exactly the solutions with that
// border, each once: within each orbit of solutions, the weights of the
// members whose border is canonical add up to the orbit's size.
func TestEightfoldEachSolutionOnce(t *testing.T) {
	forOrientations(t, func(t *testing.T) {
		for n := 5; n <= 10; n++ {
			canon, err := tasks.EightfoldBorders(n, 0)
			if err != nil {
				t.Fatal(err)
			}
			weight := map[tasks.Border]int{}
			for _, b := range canon {
				w := b.Weight
				b.Weight = 0
				weight[b] = w
			}
			for _, split := range []int{0, 1, 3} {
				// The solutions the tasks complete, and from which task.
				below := map[string]int{}
				e := collect(t, n, split, 7)
				for i := 0; i < e.Len(); i++ {
					rows := make([]uint32, n)
					for r, c := range e.Task(i) {
						if c != tasks.NoQueen {
							rows[r] = 1 << c
						}
					}
					for _, q := range completions(n, rows) {
						if j, dup := below[key(q)]; dup {
							t.Fatalf("N=%d split %d: solution %v below tasks %d and %d", n, split, q, j, i)
						}
						below[key(q)] = i
						if b := borderOf(q); weight[b] == 0 {
							t.Fatalf("N=%d split %d: task %d completes %v, whose border %+v is not canonical", n, split, i, q, b)
						}
					}
				}
				orbitWeight := map[string]int{}
				orbitSize := map[string]int{}
				canonical := 0
				for _, q := range solutions(n) {
					orbit := map[string]bool{}
					img := make([]int, n)
					least := ""
					for _, op := range symmetry.Ops {
						k := key(symmetry.Apply(op, q, img))
						orbit[k] = true
						if least == "" || k < least {
							least = k
						}
					}
					orbitSize[least] = len(orbit)
					w := weight[borderOf(q)]
					if w == 0 {
						if _, ok := below[key(q)]; ok {
							t.Fatalf("N=%d split %d: %v completed though its border is not canonical", n, split, q)
						}
						continue
					}
					if _, ok := below[key(q)]; !ok {
						t.Fatalf("N=%d split %d: %v has a canonical border but no task completes it", n, split, q)
					}
					canonical++
					orbitWeight[least] += w
				}
				if canonical != len(below) {
					t.Errorf("N=%d split %d: tasks complete %d solutions, %d have a canonical border", n, split, len(below), canonical)
				}
				for o, size := range orbitSize {
					if orbitWeight[o] != size {
						t.Errorf("N=%d split %d: orbit %s of %d solutions has canonical weight %d", n, split, o, size, orbitWeight[o])
					}
				}
			}
		}
	})
}

// Each task's words and Meta are those AppendEightfoldTask computes from
// its border and prefix, and its start row has a free column; tasks come
// border by border, grouped by the shape of their search.
func TestEightfoldWords(t *testing.T) {
	forOrientations(t, func(t *testing.T) {
		for _, c := range []struct{ n, split int }{{5, 0}, {8, 1}, {9, 0}, {11, 2}, {12, 3}, {13, 9}, {14, 2}} {
			canon, err := tasks.EightfoldBorders(c.n, c.split)
			if err != nil {
				t.Fatal(err)
			}
			e := collect(t, c.n, c.split, 100)
			var lastShape uint32
			next := 0 // index into canon
			for i := 0; i < e.Len(); i++ {
				cols := e.Task(i)
				// Find the task's border among the canonical ones, in order.
				var b tasks.Border
				for ; next < len(canon); next++ {
					b = canon[next]
					if int(cols[0]) == b.Top && int(cols[c.n-1]) == b.Bottom &&
						(b.Left == 0 || int(cols[b.Left]) == 0) && (b.Right == 0 || int(cols[b.Right]) == c.n-1) {
						break
					}
				}
				if next == len(canon) {
					t.Fatalf("N=%d split %d: task %d %v has no border in order", c.n, c.split, i, cols)
				}
				pre, search := tasks.EightfoldRows(c.n, c.split, b)
				var prefix []int
				for _, r := range pre {
					prefix = append(prefix, int(cols[r]))
				}
				for _, r := range search {
					if cols[r] != tasks.NoQueen {
						t.Fatalf("N=%d: task %d fills row %d of its search", c.n, i, r)
					}
				}
				one := &tasks.Eightfold{N: c.n, Split: c.split}
				if !tasks.AppendEightfoldTask(one, b, prefix) {
					t.Fatalf("N=%d: task %d %v: AppendEightfoldTask refuses it", c.n, i, cols)
				}
				if fmt.Sprint(one.Cols) != fmt.Sprint(cols) || one.Left[0] != e.Left[i] || one.Right[0] != e.Right[i] ||
					one.Down[0] != e.Down[i] || one.Meta[0] != e.Meta[i] {
					t.Fatalf("N=%d task %d: enumerated %v %x %x %x %x, recomputed %v %x %x %x %x", c.n, i,
						cols, e.Left[i], e.Right[i], e.Down[i], e.Meta[i],
						one.Cols, one.Left[0], one.Right[0], one.Down[0], one.Meta[0])
				}
				if e.Levels(i) != len(search) || e.Weight(i) != uint64(b.Weight) {
					t.Fatalf("N=%d task %d: %d levels, weight %d; border leaves %d rows, weight %d",
						c.n, i, e.Levels(i), e.Weight(i), len(search), b.Weight)
				}
				start := search[0]
				if free := startFree(c.n, cols, start); free == 0 || free != ^(e.Down[i]|uint32(e.Left[i]>>32)|uint32(e.Right[i])) {
					t.Fatalf("N=%d task %d: start row %d free %b, words give %b", c.n, i, start, free,
						^(e.Down[i] | uint32(e.Left[i]>>32) | uint32(e.Right[i])))
				}
				if shape := e.Meta[i] & 0xffffff; shape < lastShape {
					t.Fatalf("N=%d task %d: shape %x after %x", c.n, i, shape, lastShape)
				} else {
					lastShape = shape
				}
			}
		}
	})
}

// startFree computes the free columns of row from the placed queens.
func startFree(n int, cols []uint8, row int) uint32 {
	var free uint32
	for c := 0; c < n; c++ {
		ok := true
		for r, qc := range cols {
			if qc == tasks.NoQueen {
				continue
			}
			dr, dc := row-r, c-int(qc)
			if dr == 0 || dc == 0 || dr == dc || dr == -dc {
				ok = false
			}
		}
		if ok {
			free |= 1 << c
		}
	}
	return free
}

// The Meta skips follow the rows: the rows between two consecutive levels
// are exactly the border's pre-filled rows, one per skip naming the level.
func TestEightfoldSkips(t *testing.T) {
	for _, c := range []struct{ n, split int }{{7, 0}, {10, 1}, {12, 2}, {15, 3}} {
		canon, _ := tasks.EightfoldBorders(c.n, c.split)
		for _, b := range canon {
			one := &tasks.Eightfold{N: c.n, Split: c.split}
			pre, search := tasks.EightfoldRows(c.n, c.split, b)
			// Any valid prefix will do: find one by the reference.
			prefix := firstPrefix(c.n, b, pre)
			if prefix == nil || !tasks.AppendEightfoldTask(one, b, prefix) {
				continue
			}
			m := one.Meta[0]
			skipA, skipB := int(m>>8&0xff), int(m>>16&0xff)
			for j := 0; j+1 < len(search); j++ {
				gap := search[j+1] - search[j] - 1
				got := 0
				if j == skipA {
					got++
				}
				if j == skipB {
					got++
				}
				if gap != got {
					t.Fatalf("N=%d border %+v: level %d to %d crosses %d rows, skips say %d (meta %x)",
						c.n, b, j, j+1, gap, got, m)
				}
			}
		}
	}
}

// firstPrefix fills rows by the lowest free column, or returns nil.
func firstPrefix(n int, b tasks.Border, rows []int) []int {
	cols := make([]uint8, n)
	for i := range cols {
		cols[i] = tasks.NoQueen
	}
	cols[0], cols[n-1] = uint8(b.Top), uint8(b.Bottom)
	cols[b.Left], cols[b.Right] = 0, uint8(n-1)
	prefix := []int{}
	for _, r := range rows {
		free := startFree(n, cols, r)
		if free == 0 {
			return nil
		}
		c := bits.TrailingZeros32(free)
		cols[r] = uint8(c)
		prefix = append(prefix, c)
	}
	return prefix
}

// Batching cuts one task sequence: every batch but the last is full, and
// the digest counts the tasks and batches and depends on the split.
func TestEightfoldBatchesAndDigest(t *testing.T) {
	for _, n := range []int{5, 9, 12} {
		split := tasks.DefaultSplit(n)
		ref := collect(t, n, split, 1<<30)
		for _, batch := range []int{1, 7, 1000} {
			got := &tasks.Eightfold{N: n}
			batches, short := 0, 0
			err := tasks.EnumerateEightfold(n, split, batch, func(e *tasks.Eightfold) error {
				if e.Len() > batch || e.Len() == 0 {
					return fmt.Errorf("batch of %d tasks", e.Len())
				}
				if e.Len() < batch {
					short++
				}
				batches++
				got.Cols = append(got.Cols, e.Cols...)
				got.Meta = append(got.Meta, e.Meta...)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if short > 1 || fmt.Sprint(got.Cols) != fmt.Sprint(ref.Cols) || fmt.Sprint(got.Meta) != fmt.Sprint(ref.Meta) {
				t.Errorf("N=%d batch %d: %d short batches or a different task sequence", n, batch, short)
			}
			d, err := tasks.DigestEightfold(n, split, batch)
			if err != nil {
				t.Fatal(err)
			}
			if d.Tasks != int64(ref.Len()) || d.Batches != batches {
				t.Errorf("N=%d batch %d: digest %d tasks in %d batches, enumeration %d in %d", n, batch, d.Tasks, d.Batches, ref.Len(), batches)
			}
			again, _ := tasks.DigestEightfold(n, split, batch)
			if again != d {
				t.Errorf("N=%d: digest differs between calls", n)
			}
			other, _ := tasks.DigestEightfold(n, split+1, batch)
			if other.SHA256 == d.SHA256 {
				t.Errorf("N=%d: splits %d and %d have the same hash", n, split, split+1)
			}
		}
	}
}

func TestEightfoldRejects(t *testing.T) {
	for _, c := range []struct{ n, split int }{{4, 0}, {29, 3}, {10, -1}} {
		if err := tasks.EnumerateEightfold(c.n, c.split, 10, func(*tasks.Eightfold) error { return nil }); err == nil {
			t.Errorf("N=%d split %d: no error", c.n, c.split)
		}
		if _, err := tasks.DigestEightfold(c.n, c.split, 10); err == nil {
			t.Errorf("N=%d split %d: digest gives no error", c.n, c.split)
		}
	}
	stop := fmt.Errorf("stop")
	if err := tasks.EnumerateEightfold(12, 2, 10, func(*tasks.Eightfold) error { return stop }); err != stop {
		t.Errorf("emit's error: got %v", err)
	}
}

// The default split gives enough tasks for a GPU from N=19 on, and grows
// with N; a split of at least the rows left gives one level per task.
func TestDefaultSplit(t *testing.T) {
	prev := 0
	for n := 5; n <= 28; n++ {
		s := tasks.DefaultSplit(n)
		if s < prev || s > n-5 && s > 0 {
			t.Errorf("DefaultSplit(%d) = %d after %d", n, s, prev)
		}
		prev = s
	}
	if testing.Short() {
		return
	}
	d, err := tasks.DigestEightfold(19, tasks.DefaultSplit(19), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if d.Tasks < 4_000_000 {
		t.Errorf("N=19: %d tasks", d.Tasks)
	}
	e := collect(t, 9, 20, 1000)
	for i := 0; i < e.Len(); i++ {
		if e.Levels(i) != 1 {
			t.Fatalf("N=9 split 20: task %d has %d levels", i, e.Levels(i))
		}
	}
}

// The random tasks of taskstest are enumerated tasks.
func TestRandomEightfoldAreEnumerated(t *testing.T) {
	forOrientations(t, func(t *testing.T) {
		for _, c := range []struct{ n, split int }{{9, 1}, {12, 3}, {13, 6}} {
			e := collect(t, c.n, c.split, 1000)
			all := map[string]int{}
			for i := 0; i < e.Len(); i++ {
				all[fmt.Sprint(e.Task(i))] = i
			}
			r, err := taskstest.RandomEightfold(c.n, c.split, 50, 3)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for i := 0; i < r.Len(); i++ {
				k := fmt.Sprint(r.Task(i))
				j, ok := all[k]
				if !ok {
					t.Fatalf("N=%d split %d: random task %s is not enumerated", c.n, c.split, k)
				}
				if r.Left[i] != e.Left[j] || r.Right[i] != e.Right[j] || r.Down[i] != e.Down[j] || r.Meta[i] != e.Meta[j] {
					t.Fatalf("N=%d: random task %s has other words than the enumerated one", c.n, k)
				}
				keys = append(keys, k)
			}
			sort.Strings(keys)
			distinct := 1
			for i := 1; i < len(keys); i++ {
				if keys[i] != keys[i-1] {
					distinct++
				}
			}
			if distinct < 10 {
				t.Errorf("N=%d: only %d distinct random tasks of 50", c.n, distinct)
			}
		}
	})
}

// TestEightfoldTaskCounts is a measurement, not a check: with
// NQ_MEASURE=1 it logs, for N=16..22, the borders, the tasks and the
// largest number of levels at the default split, and how long
// EnumerateEightfold takes to list them in batches of 65536 (the emit
// function only counts).
func TestEightfoldTaskCounts(t *testing.T) {
	if os.Getenv("NQ_MEASURE") == "" {
		t.Skip("set NQ_MEASURE=1 to measure")
	}
	for n := 16; n <= 22; n++ {
		split := tasks.DefaultSplit(n)
		t0 := time.Now()
		var count int64
		levels := 0
		err := tasks.EnumerateEightfold(n, split, 1<<16, func(e *tasks.Eightfold) error {
			count += int64(e.Len())
			for i := 0; i < e.Len(); i++ {
				levels = max(levels, e.Levels(i))
			}
			return nil
		})
		el := time.Since(t0)
		if err != nil {
			t.Fatal(err)
		}
		bs, _ := tasks.EightfoldBorders(n, split)
		t.Logf("N=%d split %d: %6d borders, %11d tasks, up to %2d levels, enumerated in %.3f s (%.1f M tasks/s)",
			n, split, len(bs), count, levels, el.Seconds(), float64(count)/el.Seconds()/1e6)
	}
}

// Orientation by estimate: every valid border's OrbitBorder is the
// canonical border EightfoldBorders lists for its orbit, the lists are
// the same whatever the number of cores that orient them, and the search
// trees of the oriented borders are smaller than those of the borders
// rank picks (reference search at split 0: 0.79 of the nodes at N=8, 0.95
// at N=13).
func TestEightfoldOrientation(t *testing.T) {
	defer tasks.SetOrientMinN(5)()
	for n := 5; n <= 13; n++ {
		canon, err := tasks.EightfoldBorders(n, 0)
		if err != nil {
			t.Fatal(err)
		}
		index := map[tasks.Border]bool{}
		for _, b := range canon {
			index[b] = true
		}
		for _, b := range rawBorders(n) {
			o, err := tasks.OrbitBorder(n, b)
			if err != nil {
				t.Fatalf("N=%d %+v: %v", n, b, err)
			}
			if !index[o] {
				t.Fatalf("N=%d: OrbitBorder(%+v) = %+v, not listed", n, b, o)
			}
		}
		if _, err := tasks.OrbitBorder(n, tasks.Border{Top: 1, Bottom: 1, Left: 2, Right: 3}); err == nil {
			t.Errorf("N=%d: two queens in column 1 make a border", n)
		}
	}
	// Large N, at the default threshold: the canonical border of a
	// random valid border is one of its images, with the orbit's weight.
	restoreDefault := tasks.SetOrientMinN(17)
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{17, 20, 24, 28} {
		for found := 0; found < 20; {
			b := tasks.Border{Top: rng.IntN(n), Bottom: rng.IntN(n), Left: 1 + rng.IntN(n-2), Right: 1 + rng.IntN(n-2)}
			o, err := tasks.OrbitBorder(n, b)
			if err != nil {
				continue
			}
			found++
			stab, image := 0, false
			for _, op := range symmetry.Ops {
				img := imageOf(n, b, op)
				stab += btoi(img == b)
				key := o
				key.Weight = 0
				image = image || img == key
			}
			if !image || o.Weight != 8/stab {
				t.Fatalf("N=%d: OrbitBorder(%+v) = %+v: an image %v, stabiliser %d", n, b, o, image, stab)
			}
		}
	}
	restoreDefault()
	procs := runtime.GOMAXPROCS(1)
	one, _ := tasks.EightfoldBorders(12, 2)
	runtime.GOMAXPROCS(3)
	restore := tasks.SetOrientMinN(5) // forget the borders of one core
	three, _ := tasks.EightfoldBorders(12, 2)
	restore()
	runtime.GOMAXPROCS(procs)
	if fmt.Sprint(one) != fmt.Sprint(three) {
		t.Errorf("N=12: the borders differ between 1 and 3 cores")
	}
	for n := 8; n <= 13; n++ {
		var nodes [2]uint64
		for k, minN := range []int{29, 5} {
			restore := tasks.SetOrientMinN(minN)
			e := collect(t, n, 0, 1000)
			restore()
			for i := 0; i < e.Len(); i++ {
				_, k0 := taskstest.SearchEightfold(e.Task(i))
				nodes[k] += k0
			}
		}
		if nodes[1] >= nodes[0] {
			t.Errorf("N=%d: %d nodes below the oriented borders, %d below rank's", n, nodes[1], nodes[0])
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// SplitLevels keeps Total, leaves no task above the levels asked for, and
// makes only tasks that a split one deeper lists too.
func TestEightfoldSplitLevels(t *testing.T) {
	key := func(e *tasks.Eightfold, i int) string {
		return fmt.Sprintf("%x/%x/%x/%x/%x", e.Left[i], e.Right[i], e.Down[i], e.Meta[i], e.Task(i))
	}
	for n := 5; n <= 14; n++ {
		if n > 12 && testing.Short() {
			break
		}
		want, _ := known.Lookup(n)
		for split := 0; split <= 3; split++ {
			e := collect(t, n, split, 1000)
			deeper := map[string]bool{}
			d := collect(t, n, split+1, 1000)
			for i := 0; i < d.Len(); i++ {
				deeper[key(d, i)] = true
			}
			before := map[string]bool{}
			longest := 0
			for i := 0; i < e.Len(); i++ {
				before[key(e, i)] = true
				longest = max(longest, e.Levels(i))
			}
			levels := max(1, n-4-split)
			out := e.SplitLevels(levels, &tasks.Eightfold{})
			if out.N != n || out.Split != split {
				t.Fatalf("N=%d split %d: out has N=%d split %d", n, split, out.N, out.Split)
			}
			var total uint64
			made := 0
			for i := 0; i < out.Len(); i++ {
				if l := out.Levels(i); l > levels {
					t.Fatalf("N=%d split %d: a task of %d levels, want at most %d", n, split, l, levels)
				}
				c, _ := taskstest.SearchEightfold(out.Task(i))
				total += out.Weight(i) * c
				if k := key(out, i); !before[k] {
					made++
					if !deeper[k] {
						t.Fatalf("N=%d split %d: task %s is not one of split %d's", n, split, k, split+1)
					}
				}
			}
			if total != want.Total {
				t.Errorf("N=%d split %d: Σ weight × completions = %d, Total %d", n, split, total, want.Total)
			}
			// Tasks are made only where one was too long (all of a
			// task's children may have a dead start row, as at N=6).
			if made > 0 && longest <= levels || longest > levels && n >= 8 && made == 0 {
				t.Errorf("N=%d split %d: longest task %d levels (limit %d), %d tasks made", n, split, longest, levels, made)
			}
		}
	}
}
