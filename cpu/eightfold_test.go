package cpu

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/eflanes"
	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks/taskstest"
)

// Σ weight × completions is the published Total, for every split and
// batching, with one worker and two, on the scalar search and (where the
// CPU has them) the vector lanes.
func TestEightfoldTotal(t *testing.T) {
	ctx := context.Background()
	defer func(v bool) { efLanes = v }(efLanes)
	for _, lanes := range lanePaths() {
		efLanes = lanes
		for n := 5; n <= 16; n++ {
			if n > 14 && testing.Short() {
				break
			}
			want, _ := known.Lookup(n)
			type run struct{ split, batch, workers int }
			runs := []run{{-1, 256, 2}}
			if n <= 12 {
				runs = append(runs, run{0, 1, 1}, run{1, 7, 2}, run{3, 1000, 2}, run{n, 64, 1})
			}
			for _, r := range runs {
				got, err := solveEightfoldTotal(ctx, n, r.split, r.batch, r.workers)
				if err != nil {
					t.Fatal(err)
				}
				if got != want.Total {
					t.Errorf("N=%d %+v, lanes %v: %d, published %d", n, r, lanes, got, want.Total)
				}
			}
		}
	}
}

// lanePaths lists the values of efLanes this machine can run: false (the
// scalar search) always, true where the CPU runs the vector lanes.
func lanePaths() []bool {
	if eflanes.Available() {
		return []bool{false, true}
	}
	return []bool{false}
}

// EightfoldPath names the search efLanes selects: the lanes, or the scalar
// search with the reason the lanes are not used.
func TestEightfoldPath(t *testing.T) {
	defer func(v bool) { efLanes = v }(efLanes)
	for _, c := range []struct {
		lanes bool
		want  string
	}{{false, "scalar, "}, {true, "32 boards"}} {
		if c.lanes && !eflanes.Available() {
			continue
		}
		efLanes = c.lanes
		if got := EightfoldPath(); !strings.Contains(got, c.want) {
			t.Errorf("efLanes %v: EightfoldPath %q, want it to say %q", c.lanes, got, c.want)
		}
	}
}

// checkTasks compares EightfoldTask with taskstest.SearchEightfold on each
// task of e: completions and nodes; and the search that counts
// (eightfoldTask, without a node counter) with EightfoldTask's. It
// returns how many tasks have a completion.
func checkEightfoldTasks(t *testing.T, e *tasks.Eightfold) (nonzero int) {
	t.Helper()
	var sc efScratch
	for i := 0; i < e.Len(); i++ {
		c, nodes := EightfoldTask(e, i)
		if fast := eightfoldTask(e.Left[i], e.Right[i], e.Down[i], e.Meta[i], &sc, new(atomic.Bool)); fast != c {
			t.Fatalf("N=%d task %d %v (meta %x): %d completions, %d with the node counter",
				e.N, i, e.Task(i), e.Meta[i], fast, c)
		}
		wc, wn := taskstest.SearchEightfold(e.Task(i))
		if c != wc || nodes != wn {
			t.Fatalf("N=%d task %d %v (meta %x): search %d completions, %d nodes; reference %d, %d",
				e.N, i, e.Task(i), e.Meta[i], c, nodes, wc, wn)
		}
		if c > 0 {
			nonzero++
		}
	}
	return nonzero
}

// Task by task, the search agrees with the plain reference, for every
// task list of N=5..12 at several splits (levels from 1 up).
func TestEightfoldTaskMatchesReference(t *testing.T) {
	for n := 5; n <= 12; n++ {
		for _, split := range []int{0, 1, tasks.DefaultSplit(n), n - 6, n} {
			if split < 0 {
				continue
			}
			nonzero := 0
			err := tasks.EnumerateEightfold(n, split, 500, func(e *tasks.Eightfold) error {
				nonzero += checkEightfoldTasks(t, e)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if nonzero == 0 {
				t.Errorf("N=%d split %d: no task has a completion", n, split)
			}
		}
	}
}

// Random tasks of N=22..28 with 12 to 14 levels left agree with the
// reference: the only check of the largest N, whose counts no test can
// run in full.
func TestEightfoldLargeN(t *testing.T) {
	if testing.Short() {
		t.Skip("large-N tasks: not in -short")
	}
	for _, n := range []int{22, 23, 25, 28} {
		e, err := taskstest.RandomEightfold(n, n-17, 6, 11)
		if err != nil {
			t.Fatal(err)
		}
		if nonzero := checkEightfoldTasks(t, e); nonzero < 2 {
			t.Errorf("N=%d: %d of %d tasks have a completion", n, nonzero, e.Len())
		}
	}
}

// The assembly loop (where the CPU runs it) counts what the Go loop
// counts, task by task, whatever its budget of pops per call: it saves
// and resumes its state between calls.
func TestEightfoldLoops(t *testing.T) {
	if !efAsm {
		t.Skip("no assembly search on this CPU or architecture")
	}
	var batches []*tasks.Eightfold
	for _, c := range []struct{ n, split int }{{8, 0}, {11, 1}, {12, 2}} {
		batches = append(batches, collectEightfold(t, c.n, c.split)...)
	}
	for _, c := range []struct {
		n, split int
		seed     uint64
	}{{17, 1, 5}, {22, 6, 6}, {28, 11, 7}} {
		e, err := taskstest.RandomEightfold(c.n, c.split, 8, c.seed)
		if err != nil {
			t.Fatal(err)
		}
		batches = append(batches, e)
	}
	var sc efScratch
	for _, pops := range []uint64{1, 2, 7, efBudget} {
		tasksRun, withPops := 0, 0
		for _, e := range batches {
			for i := 0; i < e.Len(); i++ {
				levels, f := efTable(e.Left[i], e.Right[i], e.Down[i], e.Meta[i], &sc)
				if levels < 3 {
					continue
				}
				d0 := uint64(e.Down[i])<<efCol | efLow | ^(uint64(1)<<(32+efCol) - 1)
				sc.tab[uint8(levels-3)] |= 1 << 63
				want := efSearchGo(&sc, f, d0, new(atomic.Bool))
				sc.st = efState{f: f, d: d0}
				calls := 0
				for !efLoop(&sc, pops) {
					calls++
				}
				if sc.st.count != want {
					t.Fatalf("N=%d task %d, %d pops a call: %d completions, Go loop %d", e.N, i, pops, sc.st.count, want)
				}
				tasksRun++
				if calls > 0 {
					withPops++
				}
			}
		}
		if tasksRun == 0 || pops < 8 && withPops == 0 {
			t.Errorf("%d pops a call: %d tasks, %d of them resumed", pops, tasksRun, withPops)
		}
	}
}

// copyEightfoldWords copies the words and Meta of a batch into a batch
// of any earlier size, and the copy counts what the original counts.
func TestCopyEightfoldWords(t *testing.T) {
	big, err := taskstest.RandomEightfold(13, 2, 300, 3)
	if err != nil {
		t.Fatal(err)
	}
	small, err := taskstest.RandomEightfold(11, 1, 20, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		into, of *tasks.Eightfold
	}{
		{"fresh", nil, small},
		{"grow", small.Clone(), big},
		{"shrink", big.Clone(), small},
	} {
		got := copyEightfoldWords(c.into, c.of)
		if got.N != c.of.N || got.Split != c.of.Split || got.Cols != nil || got.Len() != c.of.Len() {
			t.Fatalf("%s: N=%d split %d, %d tasks, cols %v; want N=%d split %d, %d tasks, no cols",
				c.name, got.N, got.Split, got.Len(), got.Cols != nil, c.of.N, c.of.Split, c.of.Len())
		}
		for i := 0; i < got.Len(); i++ {
			if got.Left[i] != c.of.Left[i] || got.Right[i] != c.of.Right[i] || got.Down[i] != c.of.Down[i] || got.Meta[i] != c.of.Meta[i] {
				t.Fatalf("%s: task %d differs", c.name, i)
			}
		}
		var a, b tally
		eightfoldBatch(got, &a, new(atomic.Bool))
		eightfoldBatch(c.of, &b, new(atomic.Bool))
		if a != b || a.orbit[8] == 0 {
			t.Fatalf("%s: copy counts %d, original %d", c.name, a.orbit[8], b.orbit[8])
		}
	}
}

func TestEightfoldCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := solveEightfoldTotal(ctx, 14, -1, 16, 2); err == nil {
		t.Error("cancelled count: no error")
	}
	if _, err := solveEightfoldTotal(context.Background(), 4, -1, 16, 2); err == nil {
		t.Error("N=4: no error")
	}
}

// BenchmarkEightfold times the search alone over all tasks of N (go test
// -run '^$' -bench Eightfold ./cpu).
func BenchmarkEightfold(b *testing.B) {
	for _, n := range []int{14, 15, 16} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			bs := collectEightfold(b, n, tasks.DefaultSplit(n))
			want, _ := known.Lookup(n)
			b.ResetTimer()
			for range b.N {
				var tl tally
				for _, e := range bs {
					eightfoldBatch(e, &tl, new(atomic.Bool))
				}
				if tl.orbit[8] != want.Total {
					b.Fatalf("N=%d: %d", n, tl.orbit[8])
				}
			}
		})
	}
}

func collectEightfold(tb testing.TB, n, split int) []*tasks.Eightfold {
	var out []*tasks.Eightfold
	err := tasks.EnumerateEightfold(n, split, 4096, func(e *tasks.Eightfold) error {
		out = append(out, e.Clone())
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestEightfoldVsRefcount is a measurement, not a check: with
// NQ_REFCOUNT=path/to/refcount (gcc -O3 -march=native
// ../shared/bench/refcount.c) and NQ_N=n it runs, alternately and
// NQ_ROUNDS times, refcount n; the eightfold search alone on one thread
// over pre-enumerated tasks, with the vector lanes (where the CPU has
// them) and with the scalar search; and solveEightfoldTotal (enumeration
// included) with 1 and NQ_WORKERS (2) workers, lanes and scalar. With
// NQ_SYMMETRY=1 it runs Solve with the symmetry algorithm too. It logs each
// one's fastest and median run and their ratio to refcount's. The fastest
// of several runs is what the machine gives when other processes leave it
// alone.
func TestEightfoldVsRefcount(t *testing.T) {
	ref, nstr := os.Getenv("NQ_REFCOUNT"), os.Getenv("NQ_N")
	if ref == "" || nstr == "" {
		t.Skip("set NQ_REFCOUNT and NQ_N to measure")
	}
	n, err := strconv.Atoi(nstr)
	if err != nil {
		t.Fatal(err)
	}
	rounds, workers := 5, 2
	if s := os.Getenv("NQ_ROUNDS"); s != "" {
		rounds, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("NQ_WORKERS"); s != "" {
		workers, _ = strconv.Atoi(s)
	}
	defaultPath := EightfoldPath()
	defer func(v bool) { efLanes = v }(efLanes)
	paths := []bool{false}
	if eflanes.Available() {
		paths = []bool{true, false}
	}
	pathName := map[bool]string{true: "lanes", false: "scalar"}
	bs := collectEightfold(t, n, tasks.DefaultSplit(n))
	want, _ := known.Lookup(n)
	runs := map[string][]time.Duration{}
	names := []string{"refcount"}
	keep := func(k string, d time.Duration) {
		if runs[k] == nil {
			names = append(names, k)
		}
		runs[k] = append(runs[k], d)
	}
	for r := 0; r < rounds; r++ {
		t0 := time.Now()
		if out, err := exec.Command(ref, nstr).CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", ref, nstr, err, out)
		}
		runs["refcount"] = append(runs["refcount"], time.Since(t0))
		for _, lanes := range paths {
			efLanes = lanes
			t0 = time.Now()
			var tl tally
			for _, e := range bs {
				eightfoldBatch(e, &tl, new(atomic.Bool))
			}
			keep("search "+pathName[lanes]+", 1 thread", time.Since(t0))
			if tl.orbit[8] != want.Total {
				t.Fatalf("N=%d %s: %d, published %d", n, pathName[lanes], tl.orbit[8], want.Total)
			}
			for _, w := range []int{1, workers} {
				t0 = time.Now()
				total, err := solveEightfoldTotal(context.Background(), n, -1, 256, w)
				keep(fmt.Sprintf("eightfold %s, %d workers", pathName[lanes], w), time.Since(t0))
				if err != nil || total != want.Total {
					t.Fatalf("N=%d %s, %d workers: %d (%v), published %d", n, pathName[lanes], w, total, err, want.Total)
				}
			}
		}
		if os.Getenv("NQ_SYMMETRY") == "1" {
			t0 = time.Now()
			c, err := Solve(context.Background(), n, nq.Symmetry, Options{Workers: workers})
			keep(fmt.Sprintf("symmetry, %d workers", workers), time.Since(t0))
			if err != nil || c.Total() != want.Total {
				t.Fatalf("N=%d symmetry: %v (%v)", n, c, err)
			}
		}
	}
	stat := func(k string) (fastest, median float64) {
		d := append([]time.Duration(nil), runs[k]...)
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[0].Seconds(), d[len(d)/2].Seconds()
	}
	rf, rm := stat(names[0])
	t.Logf("CPU path by default: %s", defaultPath)
	for _, k := range names {
		f, m := stat(k)
		t.Logf("N=%d %-28s %d runs: fastest %7.3f s (ratio %.3f), median %7.3f s (ratio %.3f)",
			n, k, rounds, f, f/rf, m, m/rm)
	}
}

// The per-level table holds, for every level of a task, the columns its
// placed queens attack there and the rows to the next level, up to the
// deepest levels of N=28 (row offsets to 25), which no search in a test
// reaches.
func TestEightfoldTable(t *testing.T) {
	for _, c := range []struct{ n, split int }{{9, 0}, {16, 2}, {23, 1}, {28, 0}, {28, 3}} {
		e, err := taskstest.RandomEightfold(c.n, c.split, 40, 5)
		if err != nil {
			t.Fatal(err)
		}
		var sc efScratch
		for i := 0; i < e.Len(); i++ {
			cols := e.Task(i)
			var search []int
			for r, q := range cols {
				if q == tasks.NoQueen {
					search = append(search, r)
				}
			}
			levels, f0 := efTable(e.Left[i], e.Right[i], e.Down[i], e.Meta[i], &sc)
			if levels != len(search) {
				t.Fatalf("N=%d task %v: %d levels, %d empty rows", c.n, cols, levels, len(search))
			}
			if want := uint64(attackFree(cols, search[0])) << efCol; f0 != want {
				t.Fatalf("N=%d task %v: level 0 free %b, want %b", c.n, cols, f0>>efCol, want>>efCol)
			}
			for j := 0; j+1 < levels; j++ {
				w := sc.tab[j]
				fixed := uint32(w >> efCol)
				want := ^attackFree(cols, search[j+1]) & (1<<c.n - 1)
				// Columns the placed queens take are in Down, not
				// necessarily in the table: compare the other columns,
				// which only diagonals attack.
				if open := ^e.Down[i]; fixed&open&^want != 0 || want&open&^fixed != 0 {
					t.Fatalf("N=%d task %v level %d (row %d): table attacks %b, want %b", c.n, cols, j+1, search[j+1], fixed, want)
				}
				if s := int(w & efLow); s != search[j+1]-search[j] {
					t.Fatalf("N=%d task %v level %d: shift %d, rows %d to %d", c.n, cols, j, s, search[j], search[j+1])
				}
			}
		}
	}
}

// attackFree returns the columns of row that no placed queen attacks.
func attackFree(cols []uint8, row int) uint32 {
	var free uint32
	for c := range cols {
		ok := true
		for r, q := range cols {
			if q == tasks.NoQueen {
				continue
			}
			dr, dc := row-r, c-int(q)
			if dc == 0 || dr == dc || dr == -dc {
				ok = false
			}
		}
		if ok {
			free |= 1 << c
		}
	}
	return free
}
