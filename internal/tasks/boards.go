// Package tasks enumerates the work units that every backend runs: partial
// boards (the first rows placed) and carry-chain frames (the outer frame
// placed). A batch is a set of flat arrays, the layout a GPU kernel reads.
package tasks

import (
	"fmt"
	"math/bits"
)

// Kind selects the search a batch of partial boards belongs to.
type Kind uint8

// The kinds of partial board.
const (
	// Plain boards cover every placement of the first rows.
	Plain Kind = iota
	// Half boards keep the row-0 queen in the left half of the board; for
	// odd N a centre row-0 queen is kept with the row-1 queen in the left
	// half. Every solution has exactly one of itself and its mirror image
	// in this half.
	Half
	// Symmetry boards follow the corner / non-corner symmetry elimination:
	// see Rules.
	Symmetry
)

func (k Kind) String() string {
	switch k {
	case Plain:
		return "plain"
	case Half:
		return "half"
	case Symmetry:
		return "symmetry"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Boards is a batch of partial boards of one N, kind and depth, as parallel
// flat arrays. Board i has queens in rows 0..Depth-1, one set bit per row in
// Rows[i*Depth : (i+1)*Depth] (bit c is column c), and the attack words
// Left, Down and Right that row Depth sees: Left shifts towards higher
// columns from row to row, Right towards lower ones.
type Boards struct {
	N     int
	Kind  Kind
	Depth int
	Rows  []uint32
	Left  []uint32
	Down  []uint32
	Right []uint32
}

// Len is the number of boards in the batch.
func (b *Boards) Len() int { return len(b.Left) }

// Board returns the rows of board i.
func (b *Boards) Board(i int) []uint32 { return b.Rows[i*b.Depth : (i+1)*b.Depth] }

func (b *Boards) reset() {
	b.Rows, b.Left, b.Down, b.Right = b.Rows[:0], b.Left[:0], b.Down[:0], b.Right[:0]
}

// Rules are the constraints of the symmetry-elimination search for one
// board, derived from its first rows.
//
// Corner boards have the row-0 queen in column 0 and the row-1 queen in
// column B1 (2 <= B1 <= N-2); rows 2..B1-1 may not use column 1. Every
// solution found is the canonical member of an orbit of 8.
//
// Non-corner boards have the row-0 queen in column B1 with
// 1 <= B1 < B2 = N-1-B1. Rows 1..B1-1 may not use an edge column; at row B2
// an edge column must already be taken or be taken there; the last row may
// not use the outer B1 columns on either side (LastMask). Each solution is
// then checked against its rotations (Canonical).
type Rules struct {
	N        int
	Corner   bool
	B1, B2   int
	Mask     uint32 // the N columns
	SideMask uint32 // columns 0 and N-1
	LastMask uint32 // the B1 outer columns on each side
}

// RulesFor derives the rules of a symmetry board from its row-0 and row-1
// bits. row1 is ignored for non-corner boards.
func RulesFor(n int, row0, row1 uint32) Rules {
	mask := uint32(1)<<n - 1
	ru := Rules{N: n, Mask: mask, SideMask: 1 | 1<<(n-1)}
	if row0 == 1 {
		ru.Corner = true
		ru.B1 = bits.TrailingZeros32(row1)
		return ru
	}
	ru.B1 = bits.TrailingZeros32(row0)
	ru.B2 = n - 1 - ru.B1
	low := uint32(1)<<ru.B1 - 1
	ru.LastMask = low | bits.Reverse32(low)>>(32-n)
	return ru
}

// Free returns the columns a queen may take in row, given the attack words
// that row sees.
func (ru *Rules) Free(row int, l, d, r uint32) uint32 {
	f := ru.Mask &^ (l | d | r)
	if ru.Corner {
		if row < ru.B1 {
			f &^= 2
		}
		return f
	}
	if row < ru.B1 {
		f &^= ru.SideMask
	} else if row == ru.B2 {
		switch d & ru.SideMask {
		case 0:
			return 0
		case ru.SideMask:
		default:
			f &= ru.SideMask
		}
	}
	if row == ru.N-1 {
		f &^= ru.LastMask
	}
	return f
}

// Canonical checks a complete non-corner board (one bit per row) against
// its three rotations. It reports whether the board is the canonical member
// of its orbit and, if so, the orbit's size (2, 4 or 8). The search rules
// make reflections unnecessary; a rotation needs a full comparison only
// when it maps the row-0 queen onto itself, which the tell-tale squares
// show: (B2, 0) for 90°, (N-1, N-1-B1) for 180°, (B1, N-1) for 270°.
func (ru *Rules) Canonical(board []uint32) (orbit int, ok bool) {
	n := ru.N
	var inv [32]int // inv[c]: the row of the queen in column c
	haveInv := false
	rowOf := func() {
		if !haveInv {
			for r := 0; r < n; r++ {
				inv[bits.TrailingZeros32(board[r])] = r
			}
			haveInv = true
		}
	}
	col := func(r int) int { return bits.TrailingZeros32(board[r]) }
	// cmp compares the board with its image row by row from row 1; img(r)
	// is the image's column in row r. It returns -1, 0 or +1 as the board
	// is smaller, equal or larger.
	cmp := func(img func(r int) int) int {
		for r := 1; r < n; r++ {
			a, b := col(r), img(r)
			if a != b {
				if a < b {
					return -1
				}
				return 1
			}
		}
		return 0
	}
	if board[ru.B2] == 1 { // 90°: (r, c) -> (c, n-1-r)
		rowOf()
		switch cmp(func(r int) int { return n - 1 - inv[r] }) {
		case 1:
			return 0, false
		case 0:
			return 2, true
		}
	}
	fixed180 := false
	if board[n-1] == 1<<(n-1-ru.B1) { // 180°: (r, c) -> (n-1-r, n-1-c)
		switch cmp(func(r int) int { return n - 1 - col(n-1-r) }) {
		case 1:
			return 0, false
		case 0:
			fixed180 = true
		}
	}
	if board[ru.B1] == 1<<(n-1) { // 270°: (r, c) -> (n-1-c, r)
		rowOf()
		if cmp(func(r int) int { return inv[n-1-r] }) == 1 {
			return 0, false
		}
	}
	if fixed180 {
		return 4, true
	}
	return 8, true
}

// DefaultDepth picks how many rows to place for a given N. Every backend
// uses it, so that batch numbers mean the same tasks on the CPU and on a
// GPU (checkpoints and shards refer to them). It gives tens of thousands of
// symmetry boards at N=14, about 250 thousand at N=16 and 14 million at
// N=20: enough to keep a GPU's threads busy, cheap to enumerate next to the
// search, and fine-grained enough to balance CPU workers.
func DefaultDepth(n int) int {
	var d int
	switch {
	case n < 12:
		d = n / 3
	case n < 16:
		d = 5
	case n < 18:
		d = 6
	case n < 24:
		d = 7
	default:
		d = 8
	}
	if d < 2 {
		d = 2
	}
	if d > n-2 {
		d = n - 2
	}
	return d
}

// EnumerateBoards lists the partial boards of kind k for n (4 <= n <= 28
// for Symmetry, 2 <= n for the others) with depth rows placed
// (2 <= depth <= n-1), in batches of at most batch boards. Boards whose row
// Depth has no free column are left out. emit receives each batch; the
// batch's arrays are reused after emit returns, so emit must copy what it
// keeps. An error from emit stops the enumeration and is returned.
func EnumerateBoards(n int, k Kind, depth, batch int, emit func(*Boards) error) error {
	if n < 2 || n > 28 || (k == Symmetry && n < 4) {
		return fmt.Errorf("tasks: no %v boards for N=%d", k, n)
	}
	if depth < 2 || depth > n-1 {
		return fmt.Errorf("tasks: depth %d out of range 2..%d for N=%d", depth, n-1, n)
	}
	if batch < 1 {
		batch = 1
	}
	e := boardEnum{n: n, kind: k, depth: depth, batch: batch, emit: emit, mask: uint32(1)<<n - 1}
	e.out = &Boards{N: n, Kind: k, Depth: depth}
	if err := e.roots(); err != nil {
		return err
	}
	if e.out.Len() > 0 {
		return emit(e.out)
	}
	return nil
}

type boardEnum struct {
	n, depth, batch int
	kind            Kind
	mask            uint32
	emit            func(*Boards) error
	out             *Boards
	rows            [32]uint32
	ru              Rules
}

// roots places rows 0 and 1 as each kind requires and expands from there.
func (e *boardEnum) roots() error {
	n := e.n
	for c0 := 0; c0 < n; c0++ {
		b0 := uint32(1) << c0
		switch e.kind {
		case Half:
			if 2*c0 > n-1 {
				continue
			}
		case Symmetry:
			if c0 != 0 && !(c0 < n-1-c0) {
				continue
			}
		}
		for c1 := 0; c1 < n; c1++ {
			b1 := uint32(1) << c1
			if c1 == c0 || c1 == c0-1 || c1 == c0+1 {
				continue
			}
			switch e.kind {
			case Half:
				if 2*c0 == n-1 && 2*c1 > n-1 {
					continue
				}
			case Symmetry:
				if c0 == 0 {
					if c1 < 2 || c1 > n-2 {
						continue
					}
				}
			}
			e.rows[0], e.rows[1] = b0, b1
			if e.kind == Symmetry {
				e.ru = RulesFor(n, b0, b1)
				if !e.ru.Corner && e.ru.Free(1, b0<<1, b0, b0>>1)&b1 == 0 {
					continue
				}
			}
			if err := e.expand(2, (b0<<1|b1)<<1, b0|b1, (b0>>1|b1)>>1); err != nil {
				return err
			}
		}
	}
	return nil
}

func (e *boardEnum) free(row int, l, d, r uint32) uint32 {
	if e.kind == Symmetry {
		return e.ru.Free(row, l, d, r)
	}
	return e.mask &^ (l | d | r)
}

func (e *boardEnum) expand(row int, l, d, r uint32) error {
	f := e.free(row, l, d, r)
	if f == 0 {
		return nil
	}
	if row == e.depth {
		o := e.out
		o.Rows = append(o.Rows, e.rows[:row]...)
		o.Left = append(o.Left, l)
		o.Down = append(o.Down, d)
		o.Right = append(o.Right, r)
		if o.Len() == e.batch {
			if err := e.emit(o); err != nil {
				return err
			}
			o.reset()
		}
		return nil
	}
	for f != 0 {
		bit := f & -f
		f ^= bit
		e.rows[row] = bit
		if err := e.expand(row+1, (l|bit)<<1, d|bit, (r|bit)>>1); err != nil {
			return err
		}
	}
	return nil
}
