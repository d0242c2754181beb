package tasks

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/nqueens-gpu/nqueens-gpu/internal/symmetry"
)

// Eightfold tasks count Total alone, with all 8 symmetries of the square.
// Every solution has exactly one queen on each border line (the first and
// last rows and columns); those queens are its border, and a symmetry maps
// a solution with border B to one with border g(B), one to one. So
//
//	Total = Σ over one border B per orbit of |orbit(B)| × completions(B),
//
// with |orbit(B)| = 8/|stabiliser of B|, the task's weight (8, 4 or 2). A
// task is a border and a prefix (the first Split empty rows, filled on the
// host); the search fills the rest and knows no symmetry rules
// (docs/algorithms.md, "Eightfold tasks").

// NoQueen marks, in Eightfold.Cols, a row that the task leaves to the
// search.
const NoQueen = 0xff

// Border is the queens of a solution on the border lines: the column of
// the queen in row 0 (Top) and row N-1 (Bottom), and the row of the queen
// in column 0 (Left) and column N-1 (Right). A corner queen appears twice:
// Top == 0 means Left == 0, and so on. Weight is the size of the border's
// orbit under the 8 symmetries (2, 4 or 8), set by EightfoldBorders.
type Border struct {
	Top, Bottom, Left, Right int
	Weight                   int
}

// queens returns the border's distinct queens as (row, column), 3 or 4.
func (b Border) queens(n int) (q [4][2]int, k int) {
	for _, s := range [4][2]int{{0, b.Top}, {n - 1, b.Bottom}, {b.Left, 0}, {b.Right, n - 1}} {
		dup := false
		for i := 0; i < k; i++ {
			dup = dup || q[i] == s
		}
		if !dup {
			q[k] = s
			k++
		}
	}
	return q, k
}

// valid reports whether no two of the border's queens attack each other.
// It also means that each border line holds exactly one queen.
func (b Border) valid(n int) bool {
	q, k := b.queens(n)
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			dr, dc := q[i][0]-q[j][0], q[i][1]-q[j][1]
			if dr == 0 || dc == 0 || dr == dc || dr == -dc {
				return false
			}
		}
	}
	return true
}

// image returns the border of the image of a board with border b under
// the symmetry op (symmetry.Op: 0..3 rotations by op quarter turns
// clockwise, 4..7 a left-right mirror followed by rotation op-4), whose
// weight is b's.
func (b Border) image(n, op int) Border {
	q, k := b.queens(n)
	out := Border{Weight: b.Weight}
	for i := 0; i < k; i++ {
		r, c := symmetry.Op(op).Point(n, q[i][0], q[i][1])
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

// rank orders the borders of one orbit. Below orientMinN the smallest is
// the orbit's representative, and so the orientation in which the search
// runs (top down); from orientMinN on, orient estimates the turns rank
// puts first and keeps the smallest tree. The order is a heuristic for a
// small search tree (nodes at N=14: 5.04 million, against 7.9 million for
// side queens high up and 8.3 million for plain (Top, Bottom, Left,
// Right) order): first the bottom
// queen close to a corner, then the lower of the side queens (columns 0
// and N-1) low, then the top queen far from the corners, then the higher
// side queen low. The raw fields break ties, so the order is total.
func (b Border) rank(n int) int {
	corner := func(x int) int { return min(x, n-1-x) }
	k := 0
	for _, v := range []int{
		corner(b.Bottom), n - 1 - max(b.Left, b.Right), n - corner(b.Top), n - 1 - min(b.Left, b.Right),
		b.Top, b.Bottom, b.Left, b.Right,
	} {
		k = k<<5 | v
	}
	return k
}

// prefilled returns the rows 1..N-2 that the border fills (the rows of the
// queens in columns 0 and N-1 that are not corners) as a bit set.
func (b Border) prefilled(n int) uint32 {
	var m uint32
	for _, r := range []int{b.Left, b.Right} {
		if r >= 1 && r <= n-2 {
			m |= 1 << r
		}
	}
	return m
}

// EightfoldBorders lists the canonical borders of n (5 <= n <= 28), one
// per orbit of the 8 symmetries, with their weights, in the order in which
// EnumerateEightfold takes them for the given split: grouped by the shape
// of the search they leave (see Eightfold.Meta), each group in rank order.
// Which member of an orbit is its canonical border, and so the orientation
// in which the search runs, is orient's choice.
func EightfoldBorders(n, split int) ([]Border, error) {
	return eightfoldBorders(context.Background(), n, split)
}

// eightfoldBorders is EightfoldBorders; it returns ctx's error once ctx
// is cancelled (orienting the borders takes seconds from N=26 on).
func eightfoldBorders(ctx context.Context, n, split int) ([]Border, error) {
	if n < 5 || n > 28 {
		return nil, fmt.Errorf("tasks: no eightfold borders for N=%d", n)
	}
	if split < 0 {
		return nil, fmt.Errorf("tasks: eightfold split %d is negative", split)
	}
	ob, err := orbitBorders(ctx, n)
	if err != nil {
		return nil, err
	}
	out := append([]Border(nil), ob...)
	plans := make([]borderPlan, len(out))
	for i, b := range out {
		plans[i] = planBorder(n, split, b)
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		pa, pb := &plans[idx[a]], &plans[idx[b]]
		if pa.shape != pb.shape {
			return pa.shape < pb.shape
		}
		return pa.b.rank(n) < pb.b.rank(n)
	})
	sorted := make([]Border, len(out))
	for i, j := range idx {
		sorted[i] = out[j]
	}
	return sorted, nil
}

// orbits caches orbitBorders: a count asks for them more than once (its
// plan's digest, the enumeration of its tasks, a split's task count), and
// from N=17 on choosing the orientations costs a few percent of the
// count's search.
var orbits struct {
	sync.Mutex
	m map[int]*orbitList
}

// orbitList is the orbits of one N: b once found; mu is held while they
// are being found, so that they are found once.
type orbitList struct {
	mu sync.Mutex
	b  []Border
}

// orbitBorders returns one border per orbit of n's valid border patterns,
// oriented by orient, with its weight, in a fixed order. The slice is
// shared: callers copy it before changing it. Once ctx is cancelled it
// returns ctx's error (within one border's orientation) and keeps
// nothing: the next call starts again.
func orbitBorders(ctx context.Context, n int) ([]Border, error) {
	orbits.Lock()
	if orbits.m == nil {
		orbits.m = map[int]*orbitList{}
	}
	e := orbits.m[n]
	if e == nil {
		e = &orbitList{}
		orbits.m[n] = e
	}
	orbits.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.b == nil {
		b, err := findOrbits(ctx, n)
		if err != nil {
			return nil, err
		}
		e.b = b
	}
	return e.b, nil
}

// OrbitBorder returns the canonical border of the orbit of border b (any
// valid border of n, 5 <= n <= 28; its Weight is ignored) with its
// weight: the member of the orbit that EightfoldBorders lists. It costs
// one orbit's share of EightfoldBorders, so tests use it to pick borders
// of large N at random without listing them all.
func OrbitBorder(n int, b Border) (Border, error) {
	b.Weight = 0
	if n < 5 || n > 28 || !b.inside(n) || !b.valid(n) {
		return Border{}, fmt.Errorf("tasks: %+v is not a border of N=%d", b, n)
	}
	best, stab := b, 0
	for op := 0; op < 8; op++ {
		img := b.image(n, op)
		if img == b {
			stab++
		}
		if img.rank(n) < best.rank(n) {
			best = img
		}
	}
	best.Weight = 8 / stab
	if n >= orientMinN {
		best = orient(n, best)
	}
	return best, nil
}

// inside reports whether b's queens are on an n×n board, one on each
// border line: a corner queen recorded on both of its lines.
func (b Border) inside(n int) bool {
	for _, v := range []int{b.Top, b.Bottom, b.Left, b.Right} {
		if v < 0 || v >= n {
			return false
		}
	}
	return (b.Left == 0) == (b.Top == 0) && (b.Left == n-1) == (b.Bottom == 0) &&
		(b.Right == 0) == (b.Top == n-1) && (b.Right == n-1) == (b.Bottom == n-1)
}

// findOrbits lists the orbits of n's valid border patterns: each by its
// member that rank prefers, with its weight, in the loops' order, and then
// oriented by orient (on all cores: they are independent), or returns
// ctx's error once ctx is cancelled.
func findOrbits(ctx context.Context, n int) ([]Border, error) {
	var out []Border
	// The loops skip at once what valid would reject: two queens in one
	// column or row, and a corner queen that only one of its two lines
	// records.
	for top := 0; top < n; top++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for bottom := 0; bottom < n; bottom++ {
			if bottom == top {
				continue
			}
			for left := 0; left < n; left++ {
				if (left == 0) != (top == 0) || (left == n-1) != (bottom == 0) {
					continue
				}
				for right := 0; right < n; right++ {
					if right == left || (right == 0) != (top == n-1) || (right == n-1) != (bottom == n-1) {
						continue
					}
					b := Border{Top: top, Bottom: bottom, Left: left, Right: right}
					if !b.valid(n) {
						continue
					}
					// Keep b if no image ranks lower; its weight is 8
					// divided by the number of images equal to b.
					own, stab, keep := b.rank(n), 0, true
					for op := 0; op < 8 && keep; op++ {
						img := b.image(n, op)
						if img == b {
							stab++
						} else if img.rank(n) < own {
							keep = false
						}
					}
					if keep {
						b.Weight = 8 / stab
						out = append(out, b)
					}
				}
			}
		}
	}
	if n < orientMinN {
		return out, nil
	}
	onCores(ctx, len(out), func() func(int) {
		return func(i int) { out[i] = orient(n, out[i]) }
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// onCores runs the items 0 to n-1 on GOMAXPROCS goroutines, each running
// the function its call of worker returns (its own state), until they are
// through or ctx is cancelled.
func onCores(ctx context.Context, n int, worker func() func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := runtime.GOMAXPROCS(0); w > 0; w-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			do := worker()
			for i := int(next.Add(1) - 1); i < n && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				do(i)
			}
		}()
	}
	wg.Wait()
}

// borderPlan is how the search of a border's tasks runs.
type borderPlan struct {
	b     Border
	rows  [32]int // the rows the border leaves empty, top down
	m     int     // how many
	p     int     // the prefix: rows[0..p-1] are filled on the host
	shape uint32  // Meta without the weight
	// The attack words that rows[0] sees from the border's queens, as in
	// Eightfold.Left, Right and Down (without the bits from n up).
	l, r uint64
	d    uint32
}

// planBorder works out the rows and the shape of border b's tasks.
func planBorder(n, split int, b Border) borderPlan {
	pl := borderPlan{b: b}
	pre := b.prefilled(n)
	for row := 1; row <= n-2; row++ {
		if pre>>row&1 == 0 {
			pl.rows[pl.m] = row
			pl.m++
		}
	}
	pl.p = min(split, pl.m-1)
	levels := pl.m - pl.p
	skipA, skipB := uint32(noSkip), uint32(noSkip)
	for j := 0; j < levels-1; j++ {
		for gap := pl.rows[pl.p+j+1] - pl.rows[pl.p+j] - 1; gap > 0; gap-- {
			if skipA == noSkip {
				skipA = uint32(j)
			} else {
				skipB = uint32(j)
			}
		}
	}
	pl.shape = uint32(levels) | skipA<<8 | skipB<<16
	q, k := b.queens(n)
	for i := 0; i < k; i++ {
		pl.l, pl.r, pl.d = lineWords(q[i][0], q[i][1], pl.rows[0], pl.l, pl.r, pl.d)
	}
	return pl
}

// EightfoldRows returns the rows that border b leaves empty on an n×n
// board, top down, split into those a task's prefix fills (the first
// split of them, or all but one if there are fewer) and those its search
// fills. Tests use it to build tasks of large N (AppendEightfoldTask).
func EightfoldRows(n, split int, b Border) (prefix, search []int) {
	pl := planBorder(n, split, b)
	rows := append([]int(nil), pl.rows[:pl.m]...)
	return rows[:pl.p], rows[pl.p:]
}

// noSkip is the skip level of Meta for none.
const noSkip = 0xff

// lineWords adds a queen at (qr, qc) to the attack words that row sees:
// its column to d, its diagonals to l and r (see Eightfold.Left, Right).
// Diagonals that cannot reach the board in the rows left are dropped.
func lineWords(qr, qc, row int, l, r uint64, d uint32) (uint64, uint64, uint32) {
	d |= 1 << qc
	if c := qc + row - qr + 32; c >= 0 && c < 64 {
		l |= 1 << c
	}
	if c := qc - row + qr; c >= 0 && c < 64 {
		r |= 1 << c
	}
	return l, r, d
}

// EightfoldLevels is J, the levels the search of a task fills, from its
// Meta word (see Eightfold).
func EightfoldLevels(meta uint32) int { return int(meta & 0xff) }

// EightfoldShift is the rows from level j to level j+1 of a task with Meta
// word meta: 1, plus one for each pre-filled row between them (SkipA == j,
// SkipB == j; see Eightfold).
func EightfoldShift(meta uint32, j int) uint {
	s := uint(1)
	if j == int(meta>>8&0xff) {
		s++
	}
	if j == int(meta>>16&0xff) {
		s++
	}
	return s
}

// Eightfold is a batch of eightfold tasks of one N as flat arrays, the
// layout the kernels read. Task i is a canonical border (EightfoldBorders)
// with its first empty rows filled (the prefix, at most Split rows); its
// search fills the other J = Meta[i]&0xff rows, levels 0..J-1 from the
// start row down, the last counted by a test. The step from level j
// crosses one more row for each of SkipA = Meta[i]>>8&0xff and SkipB =
// Meta[i]>>16&0xff equal to j (0xff: none); Meta[i]>>24 is the weight.
// Down[i] has bit c set for each column taken and each c >= N; Left[i]
// bit c+32 and Right[i] bit c stand for the diagonals that cross the start
// row in column c, so the queens placed before the search attack the
// columns uint32((Left[i]<<k)>>32) | uint32(Right[i]>>k) of the row k
// below it. Cols holds each row's queen, NoQueen for the search's rows.
// docs/algorithms.md ("Eightfold tasks") derives the layout.
type Eightfold struct {
	N     int
	Split int
	Cols  []uint8
	Left  []uint64
	Right []uint64
	Down  []uint32
	Meta  []uint32
}

// Len is the number of tasks in the batch.
func (e *Eightfold) Len() int { return len(e.Meta) }

// Clone returns a copy of the batch that shares no array with e (the
// enumeration reuses its batch's arrays).
func (e *Eightfold) Clone() *Eightfold {
	c := *e
	c.Cols = append([]uint8(nil), e.Cols...)
	c.Left = append([]uint64(nil), e.Left...)
	c.Right = append([]uint64(nil), e.Right...)
	c.Down = append([]uint32(nil), e.Down...)
	c.Meta = append([]uint32(nil), e.Meta...)
	return &c
}

// Task returns the columns of task i's placed queens by row (NoQueen for
// the rows of the search).
func (e *Eightfold) Task(i int) []uint8 { return e.Cols[i*e.N : (i+1)*e.N] }

// Weight returns task i's weight (2, 4 or 8).
func (e *Eightfold) Weight(i int) uint64 { return uint64(e.Meta[i] >> 24) }

// Levels returns the number of rows task i's search fills.
func (e *Eightfold) Levels(i int) int { return int(e.Meta[i] & 0xff) }

// SplitLevels appends to out, in e's order, the tasks of e with every
// task of more than levels levels (levels >= 1) replaced by its children:
// the tasks one row further down (the start row's queen in each of its
// free columns, a child whose own start row has none left out), which
// are the tasks a split one deeper lists for the same border and prefix;
// children are split again until none has more than levels levels.
// Σ weight × completions is unchanged. A GPU whose stack holds
// NQ_EF_FRAMES(levels) frames runs the result (gpu: one frame fewer than
// a border's deepest tasks need). out takes e's N and Split if it has no
// N; the children's prefixes are longer than out.Split says. A batch
// listed without Cols (EightfoldList.Range) gives children without. It
// returns out.
func (e *Eightfold) SplitLevels(levels int, out *Eightfold) *Eightfold {
	if out.N == 0 {
		out.N, out.Split = e.N, e.Split
	}
	for i := 0; i < e.Len(); i++ {
		var cols []uint8
		if len(e.Cols) > 0 {
			cols = e.Task(i)
		}
		out.splitTask(cols, e.Left[i], e.Right[i], e.Down[i], e.Meta[i], levels)
	}
	return out
}

// splitTask appends the task (cols, l, r, d, meta) to o, or its children
// while it has more than levels levels (see SplitLevels).
func (o *Eightfold) splitTask(cols []uint8, l, r uint64, d, meta uint32, levels int) {
	j := int(meta & 0xff)
	if j <= levels || j < 2 {
		o.Cols = append(o.Cols, cols...)
		o.Left = append(o.Left, l)
		o.Right = append(o.Right, r)
		o.Down = append(o.Down, d)
		o.Meta = append(o.Meta, meta)
		return
	}
	row := 0
	for row < len(cols) && cols[row] != NoQueen {
		row++
	}
	// The rows to the next level, and the skips left below it (level j
	// of the parent is level j-1 of the child; the first stays first).
	s := uint(1)
	skips, kept := [2]uint32{noSkip, noSkip}, 0
	for _, k := range [2]uint32{meta >> 8 & 0xff, meta >> 16 & 0xff} {
		switch {
		case k == 0:
			s++
		case k != noSkip:
			skips[kept] = k - 1
			kept++
		}
	}
	child := uint32(j-1) | skips[0]<<8 | skips[1]<<16 | meta&0xff000000
	var buf [32]uint8
	c := buf[:len(cols)]
	copy(c, cols)
	for free := ^(uint32(l>>32) | uint32(r) | d); free != 0; free &= free - 1 {
		bit := free & -free
		cl, cr, cd := (l|uint64(bit)<<32)<<s, (r|uint64(bit))>>s, d|bit
		if ^(uint32(cl>>32) | uint32(cr) | cd) == 0 {
			continue // the child's start row has no free column
		}
		if len(c) > 0 {
			c[row] = uint8(bits.TrailingZeros32(bit))
		}
		o.splitTask(c, cl, cr, cd, child, levels)
	}
}

// SplitLevelsFor is the most levels of the eightfold tasks of n and split
// once those of the most levels are split into their children
// (SplitLevels): the enumeration's tasks have at most n-3-split (a border
// leaves at most n-3 rows empty: rows 0 and n-1 hold queens, and so does a
// side row unless a queen stands in a corner, which at most one can; split
// of them are the prefix), their children one fewer. The gpu package sends
// its tasks so: a stack frame fewer for every thread, for a few more tasks.
func SplitLevelsFor(n, split int) int { return max(1, n-4-split) }

// Reset empties the batch, keeping its arrays' memory (and N and Split)
// for the next tasks appended to it.
func (e *Eightfold) Reset() {
	e.Cols, e.Left, e.Right, e.Down, e.Meta = e.Cols[:0], e.Left[:0], e.Right[:0], e.Down[:0], e.Meta[:0]
}

// DefaultSplit is the prefix (rows filled on the host below the border)
// of the eightfold tasks for n. Every backend uses it, so that batch
// numbers mean the same tasks everywhere. It gives about 11 thousand tasks
// at N=12, 860 thousand at N=16, 9.9 million at N=20 and 26 million at
// N=22: millions of small tasks for a GPU from N=19 on, and for the CPU
// batches of a few hundred thousand nodes at N=16 to 18.
func DefaultSplit(n int) int {
	switch {
	case n < 10:
		return 0
	case n < 12:
		return 1
	case n < 16:
		return 2
	case n < 24:
		return 3
	}
	return 4
}

// EnumerateEightfold lists the eightfold tasks of n (5 <= n <= 28) with
// split rows of prefix (split >= 0; fewer for a border that leaves fewer
// than split+1 rows empty) in batches of at most batch tasks: border by
// border in the order of EightfoldBorders, and for each border its
// prefixes in depth-first order, lowest column first. A prefix whose start
// row has no free column is left out. The batch's arrays are reused after
// emit returns, so emit must copy what it keeps. An error from emit stops
// the enumeration and is returned.
func EnumerateEightfold(n, split, batch int, emit func(*Eightfold) error) error {
	return enumerateEightfold(context.Background(), n, split, batch, nil, emit)
}

// EnumerateEightfoldContext is EnumerateEightfold until ctx is cancelled:
// then it returns ctx's error within milliseconds (it looks at ctx while
// it orients the borders and before each border's tasks, about 50
// thousand at N=26).
func EnumerateEightfoldContext(ctx context.Context, n, split, batch int, emit func(*Eightfold) error) error {
	return enumerateEightfold(ctx, n, split, batch, nil, emit)
}

// enumerateEightfold is EnumerateEightfoldContext, feeding dig (if not
// nil) with each border and task as they come.
func enumerateEightfold(ctx context.Context, n, split, batch int, dig *eightfoldDigester, emit func(*Eightfold) error) error {
	borders, err := eightfoldBorders(ctx, n, split)
	if err != nil {
		return err
	}
	e := newEfEnum(n, split, batch, true, emit)
	e.dig = dig
	for _, b := range borders {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := e.border(b); err != nil {
			return err
		}
	}
	return e.flush()
}

type efEnum struct {
	n, split, batch int
	emit            func(*Eightfold) error
	dig             *eightfoldDigester
	out             *Eightfold
	noCols          bool // leave out.Cols empty
	// skip is the number of tasks to pass over before the first one
	// listed; left, if positive, the number still to list, after which
	// prefix returns errListed.
	skip, left int64
	pl         borderPlan
	high       uint32 // the bits from n up
	meta       uint32
	cols       [32]uint8
}

// errListed ends a listing that has listed the tasks it was asked for.
var errListed = errors.New("tasks: listed")

func newEfEnum(n, split, batch int, cols bool, emit func(*Eightfold) error) *efEnum {
	e := &efEnum{n: n, split: split, batch: max(1, batch), emit: emit, out: &Eightfold{N: n, Split: split}, noCols: !cols}
	e.high = ^uint32(0) << n
	return e
}

// border lists the tasks of border b.
func (e *efEnum) border(b Border) error {
	e.pl = planBorder(e.n, e.split, b)
	for r := range e.cols[:e.n] {
		e.cols[r] = NoQueen
	}
	q, k := b.queens(e.n)
	for i := 0; i < k; i++ {
		e.cols[q[i][0]] = uint8(q[i][1])
	}
	e.meta = e.pl.shape | uint32(b.Weight)<<24
	if e.dig != nil {
		e.dig.border(e.cols[:e.n], byte(b.Weight))
	}
	return e.prefix(0, e.pl.l, e.pl.r, e.pl.d)
}

// flush emits the batch in hand, if it has tasks.
func (e *efEnum) flush() error {
	if e.out.Len() == 0 {
		return nil
	}
	err := e.emit(e.out)
	e.out.Reset()
	return err
}

// prefix fills prefix row i (rows[i]) in every way and emits a task at the
// start row; l, r, d are the words row rows[i] sees.
func (e *efEnum) prefix(i int, l, r uint64, d uint32) error {
	free := ^(uint32(l>>32) | uint32(r) | d | e.high)
	if free == 0 {
		return nil
	}
	pl := &e.pl
	if i == pl.p {
		return e.task(l, r, d)
	}
	row := pl.rows[i]
	s := uint(pl.rows[i+1] - row)
	for ; free != 0; free &= free - 1 {
		bit := free & -free
		e.cols[row] = uint8(bits.TrailingZeros32(bit))
		if err := e.prefix(i+1, (l|uint64(bit)<<32)<<s, (r|uint64(bit))>>s, d|bit); err != nil {
			return err
		}
	}
	e.cols[row] = NoQueen
	return nil
}

// task lists the task at the start row, whose words are l, r, d, unless
// it is one to pass over.
func (e *efEnum) task(l, r uint64, d uint32) error {
	if e.skip > 0 {
		e.skip--
		return nil
	}
	pl := &e.pl
	if e.dig != nil {
		var pre [32]uint8
		for j, r := range pl.rows[:pl.p] {
			pre[j] = e.cols[r]
		}
		e.dig.task(pre[:pl.p])
	}
	o := e.out
	if !e.noCols {
		o.Cols = append(o.Cols, e.cols[:e.n]...)
	}
	o.Left = append(o.Left, l)
	o.Right = append(o.Right, r)
	o.Down = append(o.Down, d|e.high)
	o.Meta = append(o.Meta, e.meta)
	if o.Len() == e.batch {
		if err := e.flush(); err != nil {
			return err
		}
	}
	if e.left > 0 {
		if e.left--; e.left == 0 {
			return errListed
		}
	}
	return nil
}

// AppendEightfoldTask appends to e (whose N and Split say which tasks) the
// task of border b (canonical, with its weight, as EightfoldBorders gives
// it) whose prefix rows hold the queens in columns prefix (one per prefix
// row, top down), computing its words from scratch. It reports false, and
// appends nothing, if the prefix has the wrong length, a queen is attacked,
// or the start row has no free column: then EnumerateEightfold does not
// list the task. Tests use it to build tasks of large N without
// enumerating them.
func AppendEightfoldTask(e *Eightfold, b Border, prefix []int) bool {
	n := e.N
	pl := planBorder(n, e.Split, b)
	if len(prefix) != pl.p {
		return false
	}
	cols := make([]uint8, n)
	for r := range cols {
		cols[r] = NoQueen
	}
	type queen struct{ r, c int }
	var qs []queen
	q, k := b.queens(n)
	for i := 0; i < k; i++ {
		qs = append(qs, queen{q[i][0], q[i][1]})
	}
	for i, c := range prefix {
		qs = append(qs, queen{pl.rows[i], c})
	}
	for i, a := range qs {
		if a.c < 0 || a.c >= n {
			return false
		}
		for _, o := range qs[:i] {
			dr, dc := a.r-o.r, a.c-o.c
			if dr == 0 || dc == 0 || dr == dc || dr == -dc {
				return false
			}
		}
		cols[a.r] = uint8(a.c)
	}
	start := pl.rows[pl.p]
	var l, r uint64
	var d uint32
	for _, a := range qs {
		l, r, d = lineWords(a.r, a.c, start, l, r, d)
	}
	high := ^uint32(0) << n
	if ^(uint32(l>>32) | uint32(r) | d | high) == 0 {
		return false
	}
	e.Cols = append(e.Cols, cols...)
	e.Left = append(e.Left, l)
	e.Right = append(e.Right, r)
	e.Down = append(e.Down, d|high)
	e.Meta = append(e.Meta, pl.shape|uint32(b.Weight)<<24)
	return true
}

// Orientation. Every member of an orbit of borders is a valid choice of
// its canonical border, and the search runs top down from it: the members
// are the same problem turned and mirrored, with the same completions but
// search trees of different sizes (at N=14 to 17 the smallest of an
// orbit's trees add up to 0.93 of the trees rank picks, the largest to
// 1.9). A left-right mirror keeps the tree's size (the same rows, top
// down, columns reversed), so an orbit has at most 4 sizes, one per turn.
// orient estimates them and keeps the smallest.

// orientMinN is the smallest N whose borders orient chooses by estimate;
// below it, the member rank prefers is kept: there the estimates cost
// about as much time as they save (one core: N=16, 64 ms of estimates for
// 5.4% fewer nodes, about 50 ms of search; N=17, 116 ms for 5.9%, about
// 370 ms).
var orientMinN = 17

// orientCands is how many turns of a border orient estimates, in rank
// order: the last of the four is the smallest in few orbits (N=14 to 17:
// choosing among the first three by exact node counts gives within 0.1% of
// choosing among all four).
const orientCands = 3

// orientRounds and orientClose: where the estimates of other turns come
// within orientClose of the smallest, orient walks again below those turns
// (each round new walks, added up), at most orientRounds more times. At
// N=17 that brings the nodes from 0.953 of rank's to 0.941 (the best
// choice gives 0.933) for 40% more time estimating.
const (
	orientRounds = 2
	orientClose  = 1.2
)

// orient returns the member of b's orbit (b is the member rank prefers)
// with the smallest estimated search tree (treeEstimate) among the
// orientCands turns that rank prefers, each turn as its mirror pair's
// member that rank prefers; among equal estimates, the one rank prefers.
func orient(n int, b Border) Border {
	var cand [8]Border
	k := 0
	for op := 0; op < 8; op++ {
		img := b.image(n, op)
		if m := img.mirror(n); m.rank(n) < img.rank(n) {
			img = m
		}
		dup := false
		for _, c := range cand[:k] {
			dup = dup || c == img
		}
		if !dup {
			cand[k] = img
			k++
		}
	}
	c := cand[:k]
	sort.Slice(c, func(i, j int) bool { return c[i].rank(n) < c[j].rank(n) })
	c = c[:min(k, orientCands)]
	// est[i] sums turn i's estimates; a turn left behind gets 2^64-1.
	var est [8]uint64
	for i, x := range c {
		est[i] = treeEstimate(n, x, 0)
	}
	best := smallest(est[:len(c)])
	for round := 1; round <= orientRounds; round++ {
		close := 0
		limit := orientClose * float64(est[best])
		for i := range c {
			if float64(est[i]) <= limit {
				close++
			} else {
				est[i] = ^uint64(0)
			}
		}
		if close < 2 {
			break
		}
		for i, x := range c {
			if est[i] != ^uint64(0) {
				est[i] = satAdd(est[i], treeEstimate(n, x, round))
			}
		}
		best = smallest(est[:len(c)])
	}
	return c[best]
}

// smallest returns the index of the first smallest of x.
func smallest(x []uint64) int {
	k := 0
	for i, v := range x {
		if v < x[k] {
			k = i
		}
	}
	return k
}

// mirror returns the border of the left-right mirror image.
func (b Border) mirror(n int) Border {
	return Border{Top: n - 1 - b.Top, Bottom: n - 1 - b.Bottom, Left: b.Right, Right: b.Left, Weight: b.Weight}
}

// estimateWalks is the most random walks treeEstimate makes.
const estimateWalks = 128

// treeEstimate estimates the nodes of the search below border b (split 0:
// a queen on each row b leaves empty, the last row excepted) by Knuth's
// method: the first two levels are counted exactly, and random walks go
// down from the second, each adding, level by level, the product of the
// numbers of free columns seen since (which saturates at 2^64-1, as does
// the sum). A walk starts from each node of the second level (about 100
// at N=17), or, where there are more than estimateWalks, from every k-th
// of them, weighted k (about 500 at N=28: every 4th). The walks' choices
// come from a generator seeded with n, b and round (a round's walks are
// new ones), so the estimate is a function of them alone: every run, on
// every machine, orients the borders alike.
func treeEstimate(n int, b Border, round int) uint64 {
	pl := planBorder(n, 0, b)
	m := pl.m - 1 // the levels with nodes
	// The levels' shifts.
	var sh [32]uint8
	for i := 0; i < m; i++ {
		sh[i] = uint8(pl.rows[i+1] - pl.rows[i])
	}
	high := ^uint32(0) << n
	// The nodes of the first two levels, counted; the words that the
	// third sees below each node of the second, kept.
	type words struct {
		l, r uint64
		d    uint32
	}
	var below [32 * 32]words
	var sum uint64
	k := 0
	f0 := ^(uint32(pl.l>>32) | uint32(pl.r) | pl.d | high)
	for ; m > 0 && f0 != 0; f0 &= f0 - 1 {
		sum++
		b0 := f0 & -f0
		l1, r1, d1 := (pl.l|uint64(b0)<<32)<<sh[0], (pl.r|uint64(b0))>>sh[0], pl.d|b0
		f1 := ^(uint32(l1>>32) | uint32(r1) | d1 | high)
		for ; m > 1 && f1 != 0; f1 &= f1 - 1 {
			sum++
			b1 := f1 & -f1
			below[k] = words{(l1 | uint64(b1)<<32) << sh[1], (r1 | uint64(b1)) >> sh[1], d1 | b1}
			k++
		}
	}
	g := splitmix{uint64(round)<<50 | uint64(n)<<40 | uint64(b.Top)<<30 | uint64(b.Bottom)<<20 | uint64(b.Left)<<10 | uint64(b.Right)}
	stride := (k + estimateWalks - 1) / estimateWalks
	for i := 0; i < k; i += stride {
		w := walk(2, m, &sh, high, below[i].l, below[i].r, below[i].d, &g)
		if hi, lo := bits.Mul64(w, uint64(stride)); hi == 0 {
			sum = satAdd(sum, lo)
		} else {
			sum = ^uint64(0)
		}
	}
	return sum
}

// walk goes down from level i to level m-1, choosing a free column at
// random on each, and returns the sum of the products of the numbers of
// free columns seen (saturating at 2^64-1).
func walk(i, m int, sh *[32]uint8, high uint32, l, r uint64, d uint32, g *splitmix) uint64 {
	prod, sum := uint64(1), uint64(0)
	for ; i < m; i++ {
		free := ^(uint32(l>>32) | uint32(r) | d | high)
		k := uint64(bits.OnesCount32(free))
		if k == 0 {
			break
		}
		if hi, lo := bits.Mul64(prod, k); hi == 0 {
			prod = lo
		} else {
			prod = ^uint64(0)
		}
		sum = satAdd(sum, prod)
		for j := uint64(uint32(g.next())) * k >> 32; j > 0; j-- {
			free &= free - 1
		}
		bit := free & -free
		s := sh[i&31]
		l, r, d = (l|uint64(bit)<<32)<<s, (r|uint64(bit))>>s, d|bit
	}
	return sum
}

// satAdd returns a+b, or 2^64-1 if that overflows.
func satAdd(a, b uint64) uint64 {
	if s, c := bits.Add64(a, b, 0); c == 0 {
		return s
	}
	return ^uint64(0)
}

// splitmix is the SplitMix64 generator.
type splitmix struct{ s uint64 }

func (g *splitmix) next() uint64 {
	g.s += 0x9e3779b97f4a7c15
	z := g.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
