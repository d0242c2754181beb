// Package taskstest makes task lists for tests: random samples of the
// partial boards and eightfold tasks of an N too large to enumerate in a
// test, and plain reference searches to check faster searches against.
package taskstest

import (
	"fmt"
	"math/rand/v2"

	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// RandomSymmetryBoards returns count symmetry boards of n (4 <= n <= 28)
// with depth rows placed (2 <= depth <= n-1), each drawn by a random
// descent that follows tasks.Rules from a random first row: half of them
// corner boards, half non-corner ones. Every board is one that
// tasks.EnumerateBoards lists for the same n and depth (a valid path
// whose row depth has a free column); a board may come twice. The same
// seed gives the same boards.
func RandomSymmetryBoards(n, depth, count int, seed uint64) *tasks.Boards {
	rng := rand.New(rand.NewPCG(seed, uint64(n)<<8|uint64(depth)))
	b := &tasks.Boards{N: n, Kind: tasks.Symmetry, Depth: depth}
	rows := make([]uint32, depth)
	for b.Len() < count {
		corner := b.Len()%2 == 0
		var c0, c1 int
		if corner {
			c1 = 2 + rng.IntN(n-3) // 2..n-2
		} else {
			c0 = 1 + rng.IntN((n-1)/2) // c0 < n-1-c0
			if c0 >= n-1-c0 {
				continue
			}
			c1 = rng.IntN(n)
		}
		b0, b1 := uint32(1)<<c0, uint32(1)<<c1
		ru := tasks.RulesFor(n, b0, b1)
		if ru.Free(1, b0<<1, b0, b0>>1)&b1 == 0 {
			continue
		}
		rows[0], rows[1] = b0, b1
		l, d, r := (b0<<1|b1)<<1, b0|b1, (b0>>1|b1)>>1
		ok := true
		for row := 2; row < depth && ok; row++ {
			f := ru.Free(row, l, d, r)
			if f == 0 {
				ok = false
				break
			}
			bit := nth(f, rng.IntN(popcount(f)))
			rows[row] = bit
			l, d, r = (l|bit)<<1, d|bit, (r|bit)>>1
		}
		if !ok || ru.Free(depth, l, d, r) == 0 {
			continue
		}
		b.Rows = append(b.Rows, rows...)
		b.Left = append(b.Left, l)
		b.Down = append(b.Down, d)
		b.Right = append(b.Right, r)
	}
	return b
}

func popcount(x uint32) int {
	c := 0
	for ; x != 0; x &= x - 1 {
		c++
	}
	return c
}

// nth returns the k-th lowest set bit of x (k from 0).
func nth(x uint32, k int) uint32 {
	for ; k > 0; k-- {
		x &= x - 1
	}
	return x & -x
}

// SearchBoard is a plain recursive search below one symmetry board, from
// row on, written from tasks.Rules alone, to check faster searches
// against: c[k] counts the canonical solutions of orbit k (2, 4 or 8) and
// c[0] the nodes, the queens placed in the rows below N-1. board holds the
// rows placed so far (at least N words); the search writes the rows from
// row on. l, d and r are the attack words that row sees.
func SearchBoard(ru *tasks.Rules, board []uint32, row int, l, d, r uint32, c *[9]uint64) {
	for f := ru.Free(row, l, d, r); f != 0; f &= f - 1 {
		bit := f & -f
		board[row] = bit
		if row < ru.N-1 {
			c[0]++
			SearchBoard(ru, board, row+1, (l|bit)<<1, d|bit, (r|bit)>>1, c)
			continue
		}
		if ru.Corner {
			c[8]++
		} else if o, ok := ru.Canonical(board); ok {
			c[o]++
		}
	}
}

// Single returns board i of b as a batch of its own.
func Single(b *tasks.Boards, i int) *tasks.Boards {
	return &tasks.Boards{N: b.N, Kind: b.Kind, Depth: b.Depth,
		Rows: b.Board(i), Left: b.Left[i : i+1], Down: b.Down[i : i+1], Right: b.Right[i : i+1]}
}

// Reference counts below board i of b, a symmetry batch, with
// SearchBoard: canonical solutions by orbit size in [2], [4] and [8],
// nodes in [0].
func Reference(b *tasks.Boards, i int) [9]uint64 {
	pre := b.Board(i)
	ru := tasks.RulesFor(b.N, pre[0], pre[1])
	board := make([]uint32, b.N)
	copy(board, pre)
	var c [9]uint64
	SearchBoard(&ru, board, b.Depth, b.Left[i], b.Down[i], b.Right[i], &c)
	return c
}

// SearchEightfold counts the completions of an eightfold task from its
// placed queens alone (cols: the column of each row's queen, or
// tasks.NoQueen for a row to fill), by a plain recursive search over the
// empty rows, top down, that checks columns and diagonals directly and
// shares no code or attack words with the searches it checks. nodes counts
// the queens it places in the empty rows but the last one (a completion's
// last queen is not a node), the definition of cpu.EightfoldTask and the C
// search.
func SearchEightfold(cols []uint8) (completions, nodes uint64) {
	n := len(cols)
	var colTaken, diag, anti uint64 // column c, r+c, r-c+n-1
	var empty []int
	for r, c := range cols {
		if c == tasks.NoQueen {
			empty = append(empty, r)
			continue
		}
		colTaken |= 1 << c
		diag |= 1 << (r + int(c))
		anti |= 1 << (r - int(c) + n - 1)
	}
	var place func(i int)
	place = func(i int) {
		r := empty[i]
		for c := 0; c < n; c++ {
			if colTaken>>c&1 != 0 || diag>>(r+c)&1 != 0 || anti>>(r-c+n-1)&1 != 0 {
				continue
			}
			if i == len(empty)-1 {
				completions++
				continue
			}
			nodes++
			colTaken |= 1 << c
			diag |= 1 << (r + c)
			anti |= 1 << (r - c + n - 1)
			place(i + 1)
			colTaken &^= 1 << c
			diag &^= 1 << (r + c)
			anti &^= 1 << (r - c + n - 1)
		}
	}
	if len(empty) > 0 {
		place(0)
	}
	return completions, nodes
}

// RandomEightfold returns count eightfold tasks of n (5 <= n <= 28) with
// split rows of prefix, each the canonical border (tasks.OrbitBorder) of
// a random valid border whose prefix rows are filled by a random descent
// through free columns: every task is one that tasks.EnumerateEightfold
// lists for the same n and split (built by tasks.AppendEightfoldTask); a
// task may come twice. The same seed gives the same tasks.
func RandomEightfold(n, split, count int, seed uint64) (*tasks.Eightfold, error) {
	if n < 5 || n > 28 || split < 0 {
		return nil, fmt.Errorf("taskstest: no eightfold tasks of N=%d split %d", n, split)
	}
	rng := rand.New(rand.NewPCG(seed, uint64(n)<<8|uint64(split)))
	e := &tasks.Eightfold{N: n, Split: split}
	for tries := 0; e.Len() < count; tries++ {
		if tries > 1000*count {
			return nil, fmt.Errorf("taskstest: N=%d split=%d: no task found in %d tries", n, split, tries)
		}
		b, err := tasks.OrbitBorder(n, randomBorder(n, rng))
		if err != nil {
			continue // queens that attack each other
		}
		pre, _ := tasks.EightfoldRows(n, split, b)
		queens := [][2]int{{0, b.Top}, {n - 1, b.Bottom}, {b.Left, 0}, {b.Right, n - 1}}
		prefix := make([]int, 0, len(pre))
		for _, r := range pre {
			var free []int
			for c := 0; c < n; c++ {
				ok := true
				for _, q := range queens {
					dr, dc := r-q[0], c-q[1]
					if dr == 0 || dc == 0 || dr == dc || dr == -dc {
						ok = false
						break
					}
				}
				if ok {
					free = append(free, c)
				}
			}
			if len(free) == 0 {
				break
			}
			c := free[rng.IntN(len(free))]
			prefix = append(prefix, c)
			queens = append(queens, [2]int{r, c})
		}
		if len(prefix) == len(pre) {
			tasks.AppendEightfoldTask(e, b, prefix)
		}
	}
	return e, nil
}

// randomBorder returns a random border pattern of n: one queen on each
// border line, a corner queen on both of its lines. Its queens may attack
// each other.
func randomBorder(n int, rng *rand.Rand) tasks.Border {
	b := tasks.Border{Top: rng.IntN(n), Bottom: rng.IntN(n)}
	// A queen in a corner is on two lines.
	switch b.Top {
	case 0:
		b.Left = 0
	case n - 1:
		b.Right = 0
	}
	switch b.Bottom {
	case 0:
		b.Left = n - 1
	case n - 1:
		b.Right = n - 1
	}
	if b.Top != 0 && b.Bottom != 0 {
		b.Left = 1 + rng.IntN(n-2)
	}
	if b.Top != n-1 && b.Bottom != n-1 {
		b.Right = 1 + rng.IntN(n-2)
	}
	return b
}
