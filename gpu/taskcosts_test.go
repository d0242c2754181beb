package gpu

import (
	"bufio"
	_ "embed"
	"flag"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/cpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
	"github.com/nqueens-gpu/nqueens-gpu/kernels/host"
)

// The per-task costs that TestLaunchPlanReplay replays: for each N from 17
// to 28 and each of the eightfold and symmetry task lists of a count on
// 132 SMs, the number of tasks, the mean nodes of a task and the
// quantiles of a task's nodes relative to that mean. They are made by
//
//	go test ./gpu -run TestTaskCostsUpdate -update -timeout 30m
//
// from a uniform random sample of each list (fixed seed), measured by the
// CPU's node-counting searches ("search") or, where those cost too much,
// by Knuth's unbiased estimate of each task's tree ("knuth"), whose noise
// lengthens the tails, so the replay errs on the safe side. A node is a
// queen the search loop places. docs/performance.md has the comparison.

var (
	updateCosts = flag.Bool("update", false, "rewrite gpu/testdata/taskcosts.tsv (TestTaskCostsUpdate: minutes)")
	costsMaxN   = flag.Int("costs.maxn", 28, "TestTaskCostsUpdate: the largest N (a smaller one writes a partial file, for trials)")
)

const taskCostsFile = "testdata/taskcosts.tsv"

// costQuantiles are the probabilities of the stored quantiles of a task's
// cost over the mean; the last is the sample's largest.
var costQuantiles = []float64{0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5,
	0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99, 0.995, 0.998, 0.999,
	0.9995, 0.9998, 0.9999, 0.99995, 0.99999, 1}

// taskCosts is one row of the file: the cost distribution of one task list.
type taskCosts struct {
	algo   nq.Algo
	n      int
	depth  int     // symmetry depth or eightfold split
	tasks  int64   // the tasks of the list
	sample int     // the tasks measured
	source string  // "search" or "knuth"
	mean   float64 // mean nodes per task
	q      []float64
}

// taskCostsData is the file as this test binary was built with it, so
// that the binary runs anywhere (the GPU bundle runs it away from the
// sources).
//
//go:embed testdata/taskcosts.tsv
var taskCostsData string

// readTaskCosts reads the file.
func readTaskCosts(t testing.TB) []taskCosts {
	var rows []taskCosts
	sc := bufio.NewScanner(strings.NewReader(taskCostsData))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "algo\t") {
			continue
		}
		fs := strings.Split(line, "\t")
		if len(fs) != 7+len(costQuantiles) {
			t.Fatalf("%s: %d fields in %q", taskCostsFile, len(fs), line)
		}
		var c taskCosts
		var errs [6]error
		c.algo = nq.Algo(fs[0])
		c.n, errs[0] = strconv.Atoi(fs[1])
		c.depth, errs[1] = strconv.Atoi(fs[2])
		c.tasks, errs[2] = strconv.ParseInt(fs[3], 10, 64)
		c.sample, errs[3] = strconv.Atoi(fs[4])
		c.source = fs[5]
		c.mean, errs[4] = strconv.ParseFloat(fs[6], 64)
		for _, s := range fs[7:] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				errs[5] = err
			}
			c.q = append(c.q, v)
		}
		for _, err := range errs {
			if err != nil {
				t.Fatalf("%s: %q: %v", taskCostsFile, line, err)
			}
		}
		rows = append(rows, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// costSampleSize is the sample each list keeps; realNodes is the node
// budget of the real search of a sample beyond N=17, which takes the
// search's figures where it reaches minRealSample tasks.
const (
	costSampleSize = 100_000
	realNodes      = 1e9
	minRealSample  = 50_000
	knuthWalks     = 64
)

// reservoir keeps a uniform random sample of k items of a stream
// (Li's algorithm L: random skips, so that a long stream costs little).
type reservoir struct {
	k, seen, next int64
	w             float64
	rng           *rand.Rand
	keep          func(slot int64, src int) // copy item src of the current batch into slot
}

func newReservoir(k int64, seed uint64, keep func(slot int64, src int)) *reservoir {
	r := &reservoir{k: k, rng: rand.New(rand.NewPCG(seed, 0x5eed)), keep: keep}
	r.w = math.Exp(math.Log(r.rng.Float64()) / float64(k))
	r.next = k + r.skip()
	return r
}

func (r *reservoir) skip() int64 {
	return int64(math.Floor(math.Log(r.rng.Float64())/math.Log(1-r.w))) + 1
}

// batch offers the items 0..count-1 of the current batch.
func (r *reservoir) batch(count int) {
	base := r.seen
	end := base + int64(count)
	for ; r.seen < r.k && r.seen < end; r.seen++ {
		r.keep(r.seen, int(r.seen-base))
	}
	// Item next-1 (from 0) is the next one taken.
	for r.next-1 < end {
		r.keep(r.rng.Int64N(r.k), int(r.next-1-base))
		r.w *= math.Exp(math.Log(r.rng.Float64()) / float64(r.k))
		r.next += r.skip()
	}
	r.seen = end
}

// efKnuth estimates the nodes of an eightfold task's search (its words
// and Meta as tasks.Eightfold lays them out) from walks random walks.
func efKnuth(left, right uint64, down, meta uint32, walks int, rng *rand.Rand) float64 {
	levels := tasks.EightfoldLevels(meta)
	var fixed [32]uint32
	var shift [32]uint
	k := uint(0)
	for j := 0; j < levels-1; j++ {
		s := tasks.EightfoldShift(meta, j)
		k += s
		shift[j] = s
		fixed[j] = uint32(left<<k>>32) | uint32(right>>k) // the attacks on level j+1
	}
	f0 := ^(down | uint32(left>>32) | uint32(right))
	sum := 0.0
	for w := 0; w < walks; w++ {
		f, l, d, r := f0, uint32(0), down, uint32(0)
		prod := 1.0
		// The queens of levels 0..levels-2 are nodes; the last level is a test.
		for j := 0; j < levels-1 && f != 0; j++ {
			prod *= float64(bits.OnesCount32(f))
			sum += prod
			bit := pickBit(f, rng)
			l, d, r = (l|bit)<<shift[j], d|bit, (r|bit)>>shift[j]
			f = ^(l | d | r | fixed[j])
		}
	}
	return sum / float64(walks)
}

// symKnuth estimates the nodes of a symmetry board's search (rows
// depth..n-2 place queens; row n-1 is a test).
func symKnuth(n, depth int, row0, row1, left, down, right uint32, walks int, rng *rand.Rand) float64 {
	ru := tasks.RulesFor(n, row0, row1)
	sum := 0.0
	for w := 0; w < walks; w++ {
		l, d, r := left, down, right
		prod := 1.0
		for row := depth; row <= n-2; row++ {
			f := ru.Free(row, l, d, r)
			if f == 0 {
				break
			}
			prod *= float64(bits.OnesCount32(f))
			sum += prod
			bit := pickBit(f, rng)
			l, d, r = (l|bit)<<1, d|bit, (r|bit)>>1
		}
	}
	return sum / float64(walks)
}

// pickBit returns one of the set bits of f, uniformly.
func pickBit(f uint32, rng *rand.Rand) uint32 {
	for i := rng.IntN(bits.OnesCount32(f)); i > 0; i-- {
		f &= f - 1
	}
	return f & -f
}

// quantiles returns the costQuantiles of xs (sorted in place) over their
// mean, and the mean.
func quantiles(xs []float64) (q []float64, mean float64) {
	slices.Sort(xs)
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, p := range costQuantiles {
		i := int(math.Round(p * float64(len(xs)-1)))
		q = append(q, xs[i]/mean)
	}
	return q, mean
}

// One H100: the task lists its counts run.
var h100Tasks = plan.MinTasks([]int{132})

// TestTaskCostsUpdate rewrites gpu/testdata/taskcosts.tsv (with -update).
func TestTaskCostsUpdate(t *testing.T) {
	if !*updateCosts {
		t.Skip("-update rewrites " + taskCostsFile)
	}
	if !host.Enabled {
		t.Fatal("the symmetry boards' real search needs kernels/host (cgo)")
	}
	var out strings.Builder
	fmt.Fprintf(&out, "# Per-task costs of the task lists of one H100 (tasks.SplitFor, tasks.DepthFor with nq.MinTasks of 132 SMs).\n")
	fmt.Fprintf(&out, "# Made by: go test ./gpu -run TestTaskCostsUpdate -update -timeout 30m (gpu/taskcosts_test.go), %s.\n", time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(&out, "# A uniform sample (reservoir, fixed seed) of up to %d tasks of each list, measured by the CPU's node-counting search\n", costSampleSize)
	fmt.Fprintf(&out, "# (source search: cpu.EightfoldTask, kernels/host.Boards; at N=17 every eightfold task) where a sample of %d or more\n", minRealSample)
	fmt.Fprintf(&out, "# fits in %.0g nodes, else by Knuth's estimate (source knuth, %d random walks per task).\n", realNodes, knuthWalks)
	fmt.Fprintf(&out, "# q... are the quantiles of a task's nodes over the mean at p = %v (the last: the sample's largest).\n", costQuantiles)
	var cmp strings.Builder
	var rows strings.Builder
	fmt.Fprintf(&rows, "algo\tn\tdepth\ttasks\tsample\tsource\tmean")
	for _, p := range costQuantiles {
		fmt.Fprintf(&rows, "\tq%g", p)
	}
	rows.WriteString("\n")
	for _, algo := range []nq.Algo{nq.Eightfold, nq.Symmetry} {
		for n := 17; n <= *costsMaxN; n++ {
			start := time.Now()
			rng := rand.New(rand.NewPCG(uint64(n), 17))
			var total int64
			var knuth, real []float64
			var depth int
			sampleAll := n == 17 // every task: the real search of N=17 takes seconds
			switch algo {
			case nq.Eightfold:
				depth = tasks.SplitFor(n, h100Tasks)
				var l, r []uint64
				var d, m []uint32
				var cur *tasks.Eightfold
				size := int64(costSampleSize)
				res := newReservoir(size, uint64(n), func(slot int64, i int) {
					if slot == int64(len(l)) {
						l, r, d, m = append(l, 0), append(r, 0), append(d, 0), append(m, 0)
					}
					l[slot], r[slot], d[slot], m[slot] = cur.Left[i], cur.Right[i], cur.Down[i], cur.Meta[i]
				})
				one := &tasks.Eightfold{N: n, Split: depth, Cols: make([]uint8, n), Left: make([]uint64, 1), Right: make([]uint64, 1), Down: make([]uint32, 1), Meta: make([]uint32, 1)}
				err := tasks.EnumerateEightfold(n, depth, 4096, func(e *tasks.Eightfold) error {
					total += int64(e.Len())
					if sampleAll {
						for i := range e.Len() {
							one.Left[0], one.Right[0], one.Down[0], one.Meta[0] = e.Left[i], e.Right[i], e.Down[i], e.Meta[i]
							_, nodes := cpu.EightfoldTask(one, 0)
							real = append(real, float64(nodes))
						}
					}
					cur = e
					res.batch(e.Len())
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				for i := range l {
					knuth = append(knuth, efKnuth(l[i], r[i], d[i], m[i], knuthWalks, rng))
				}
				if !sampleAll {
					budget := realNodes
					for _, i := range rng.Perm(len(l)) {
						if budget <= 0 {
							break
						}
						one.Left[0], one.Right[0], one.Down[0], one.Meta[0] = l[i], r[i], d[i], m[i]
						_, nodes := cpu.EightfoldTask(one, 0)
						real = append(real, float64(nodes))
						budget -= float64(nodes)
					}
				}
			default:
				depth = tasks.DepthFor(n, h100Tasks)
				var rowsKept, lk, dk, rk []uint32
				var cur *tasks.Boards
				res := newReservoir(costSampleSize, uint64(n), func(slot int64, i int) {
					if slot == int64(len(lk)) {
						lk, dk, rk = append(lk, 0), append(dk, 0), append(rk, 0)
						rowsKept = append(rowsKept, make([]uint32, depth)...)
					}
					copy(rowsKept[slot*int64(depth):], cur.Board(i))
					lk[slot], dk[slot], rk[slot] = cur.Left[i], cur.Down[i], cur.Right[i]
				})
				err := tasks.EnumerateBoards(n, tasks.Symmetry, depth, 4096, func(b *tasks.Boards) error {
					total += int64(b.Len())
					if sampleAll {
						for i := range b.Len() {
							one := &tasks.Boards{N: n, Kind: tasks.Symmetry, Depth: depth, Rows: b.Board(i), Left: b.Left[i : i+1], Down: b.Down[i : i+1], Right: b.Right[i : i+1]}
							real = append(real, float64(host.Boards(one).Nodes))
						}
					}
					cur = b
					res.batch(b.Len())
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				budget := realNodes
				if sampleAll {
					budget = 0
				}
				for _, i := range rng.Perm(len(lk)) {
					rw := rowsKept[i*depth : (i+1)*depth]
					knuth = append(knuth, symKnuth(n, depth, rw[0], rw[1], lk[i], dk[i], rk[i], knuthWalks, rng))
					if budget > 0 {
						one := &tasks.Boards{N: n, Kind: tasks.Symmetry, Depth: depth, Rows: rw, Left: lk[i : i+1], Down: dk[i : i+1], Right: rk[i : i+1]}
						nodes := host.Boards(one).Nodes
						real = append(real, float64(nodes))
						budget -= float64(nodes)
					}
				}
			}
			kq, km := quantiles(knuth)
			source, q, mean, sample := "knuth", kq, km, len(knuth)
			if len(real) > 0 {
				rq, rm := quantiles(real)
				line := fmt.Sprintf("# %s N=%d: search of %d tasks: mean %.4g, q0.5 %.3f, q0.9 %.3f, q0.99 %.3f, q0.999 %.3f, max %.2f; knuth of %d: mean %.4g (%.3f of the search's), q0.5 %.3f, q0.9 %.3f, q0.99 %.3f, q0.999 %.3f, max %.2f\n",
					algo, n, len(real), rm, qAt(rq, 0.5), qAt(rq, 0.9), qAt(rq, 0.99), qAt(rq, 0.999), rq[len(rq)-1],
					len(knuth), km, km/rm, qAt(kq, 0.5), qAt(kq, 0.9), qAt(kq, 0.99), qAt(kq, 0.999), kq[len(kq)-1])
				cmp.WriteString(line)
				t.Log(strings.TrimSpace(line))
				if len(real) >= minRealSample {
					source, q, mean, sample = "search", rq, rm, len(real)
				}
			}
			fmt.Fprintf(&rows, "%s\t%d\t%d\t%d\t%d\t%s\t%.6g", algo, n, depth, total, sample, source, mean)
			for _, v := range q {
				fmt.Fprintf(&rows, "\t%.4g", v)
			}
			rows.WriteString("\n")
			t.Logf("%s N=%d: %d tasks (depth %d), %s sample %d, mean %.4g nodes, max/mean %.1f (%v)", algo, n, total, depth, source, sample, mean, q[len(q)-1], time.Since(start).Round(time.Millisecond))
		}
	}
	out.WriteString(cmp.String())
	out.WriteString(rows.String())
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(taskCostsFile, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// qAt is the stored quantile at p.
func qAt(q []float64, p float64) float64 {
	return q[slices.Index(costQuantiles, p)]
}
