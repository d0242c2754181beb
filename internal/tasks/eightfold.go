package tasks

import (
	"fmt"
	"math/bits"
	"sort"

	"github.com/nqueens-gpu/nqueens-gpu/internal/symmetry"
)

// Eightfold tasks count Total alone, with all 8 symmetries of the square.
//
// Every solution has exactly one queen on each border line: the first and
// last rows and the first and last columns (a queen in a corner is on two
// of them). Those queens form the solution's Border. A symmetry g maps a
// solution S with border B to g(S) with border g(B), one to one, so the
// solutions whose border is any member of B's orbit number |orbit(B)| times
// the completions of B itself, and
//
//	Total = Σ over one border B per orbit of |orbit(B)| × completions(B).
//
// |orbit(B)| = 8/|stabiliser of B| is 8, 4 or 2 (no border is fixed by all
// 8 symmetries), the task's Weight. No completion is checked against its
// images and the search has no symmetry rules: the border's queens and
// their attacks are all it knows.
//
// The search fills the rows 1..N-2 that the border leaves empty: all of
// them but the rows of the queens in columns 0 and N-1 (the pre-filled
// rows), top down. To cut the work into many small tasks, the first Split
// of those rows are filled on the host as well (the prefix); a task is a
// border plus a prefix, and the device or CPU searches the rest.

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

// rank orders the borders of one orbit; the smallest is the orbit's
// representative, and so the orientation in which the search runs (top
// down). The order is a heuristic for a small search tree (nodes at N=14:
// 5.04 million, against 7.9 million for side queens high up and 8.3
// million for plain (Top, Bottom, Left, Right) order): first the bottom
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
func EightfoldBorders(n, split int) ([]Border, error) {
	if n < 5 || n > 28 {
		return nil, fmt.Errorf("tasks: no eightfold borders for N=%d", n)
	}
	if split < 0 {
		return nil, fmt.Errorf("tasks: eightfold split %d is negative", split)
	}
	var out []Border
	// The loops skip at once what valid would reject: two queens in one
	// column or row, and a corner queen that only one of its two lines
	// records.
	for top := 0; top < n; top++ {
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

// Eightfold is a batch of eightfold tasks of one N as flat arrays, the
// layout the kernels read (kernels/eightfold.cu). Task i is a canonical
// border (see EightfoldBorders) with the first rows it leaves empty filled
// (the prefix, Split rows or fewer); its search fills the rest.
//
// Rows and levels. The search of task i fills J = Meta[i]&0xff rows, its
// levels 0..J-1 from the top (level 0 is the first row left empty below
// the prefix, the start row; level J-1 is the last empty row, counted by a
// test instead of searched). Consecutive levels are one row apart except
// where a pre-filled row (a border queen in column 0 or N-1) lies between
// them: the step from level j to j+1 crosses one row for each of
// SkipA == j and SkipB == j, with SkipA = Meta[i]>>8&0xff and SkipB =
// Meta[i]>>16&0xff (0xff: none). So the search skips those rows by a
// shift of 1 + (j == SkipA) + (j == SkipB), with no branch.
//
// Attack words. Every queen placed before the search (border and prefix)
// is in the task's words, as seen from the start row. Bit c of Down[i] is
// set for each column c taken, and for every c from N to 31, so that the
// free columns of a row are the zero bits of Down[i] | (attacks). A
// diagonal that moves one column right per row down (its column grows with
// the row) is bit c+32 of Left[i] when it crosses the start row in column c
// (c from -32 to 31: diagonals of queens below the start row come in from
// negative columns); one that moves left is bit c of Right[i] (c from 0 to
// 63: diagonals of queens below come in from columns N and up). So at the
// row k rows below the start row, the border and prefix queens attack the
// columns of uint32((Left[i] << k) >> 32) | uint32(Right[i] >> k) (k < 32).
//
// Meta[i] bits 24..31 hold the weight: 8/|stabiliser| of the border, 2, 4
// or 8. Σ weight × completions over every task of N is Total.
//
// Cols[i*N : (i+1)*N] gives the queen of each row the task has placed
// (border and prefix) as its column, NoQueen for the rows of the search.
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

func (e *Eightfold) reset() {
	e.Cols, e.Left, e.Right, e.Down, e.Meta = e.Cols[:0], e.Left[:0], e.Right[:0], e.Down[:0], e.Meta[:0]
}

// DefaultSplit is the prefix (rows filled on the host below the border)
// of the eightfold tasks for n. Every backend uses it, so that batch
// numbers mean the same tasks everywhere. It gives about 11 thousand tasks
// at N=12, 860 thousand at N=16, 9.7 million at N=20 and 25 million at
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
	borders, err := EightfoldBorders(n, split)
	if err != nil {
		return err
	}
	if batch < 1 {
		batch = 1
	}
	e := efEnum{n: n, batch: batch, emit: emit, out: &Eightfold{N: n, Split: split}}
	e.high = ^uint32(0) << n
	for _, b := range borders {
		e.pl = planBorder(n, split, b)
		for r := range e.cols[:n] {
			e.cols[r] = NoQueen
		}
		q, k := b.queens(n)
		for i := 0; i < k; i++ {
			e.cols[q[i][0]] = uint8(q[i][1])
		}
		e.meta = e.pl.shape | uint32(b.Weight)<<24
		if err := e.prefix(0, e.pl.l, e.pl.r, e.pl.d); err != nil {
			return err
		}
	}
	if e.out.Len() > 0 {
		return emit(e.out)
	}
	return nil
}

type efEnum struct {
	n, batch int
	emit     func(*Eightfold) error
	out      *Eightfold
	pl       borderPlan
	high     uint32 // the bits from n up
	meta     uint32
	cols     [32]uint8
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
		o := e.out
		o.Cols = append(o.Cols, e.cols[:e.n]...)
		o.Left = append(o.Left, l)
		o.Right = append(o.Right, r)
		o.Down = append(o.Down, d|e.high)
		o.Meta = append(o.Meta, e.meta)
		if o.Len() == e.batch {
			if err := e.emit(o); err != nil {
				return err
			}
			o.reset()
		}
		return nil
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
