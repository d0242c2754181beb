// Package boards lists every solution of a small board as column lists
// and sorts them into symmetry classes. It is the plainest search of the
// program: the counts of boards too small to split into tasks come from
// it, and so do the boards that -print draws.
package boards

import (
	"slices"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/symmetry"
)

// Enumerate returns every solution of the n-queens problem as column lists
// (entry r is the column of the queen in row r), in lexicographic order.
// It is a plain backtracking search, meant for small n.
func Enumerate(n int) [][]int {
	if n < 1 {
		return nil
	}
	var (
		sols  [][]int
		cols  = make([]int, n)
		used  = make([]bool, n)     // column taken
		diag  = make([]bool, 2*n-1) // r+c taken
		anti  = make([]bool, 2*n-1) // r-c+n-1 taken
		place func(r int)
	)
	place = func(r int) {
		if r == n {
			sols = append(sols, slices.Clone(cols))
			return
		}
		for c := 0; c < n; c++ {
			if used[c] || diag[r+c] || anti[r-c+n-1] {
				continue
			}
			used[c], diag[r+c], anti[r-c+n-1] = true, true, true
			cols[r] = c
			place(r + 1)
			used[c], diag[r+c], anti[r-c+n-1] = false, false, false
		}
	}
	place(0)
	return sols
}

// Class is one symmetry class of solutions: its representative, the
// lexicographically smallest column list among its images, and its size.
type Class struct {
	Rep   []int
	Orbit int
}

// Classes returns one Class per symmetry class of sols (which must hold
// every member of each class), in the order of sols.
func Classes(sols [][]int) []Class {
	var cs []Class
	for _, p := range sols {
		orbit, canonical := symmetry.Classify(p, make([]int, len(p)))
		if canonical {
			cs = append(cs, Class{Rep: p, Orbit: orbit})
		}
	}
	return cs
}

// Count sorts sols (every solution of one n) into classes and counts them
// by size.
func Count(sols [][]int) nq.Counts {
	var c nq.Counts
	for _, k := range Classes(sols) {
		switch k.Orbit {
		case 1:
			c.C1++
		case 2:
			c.C2++
		case 4:
			c.C4++
		default:
			c.C8++
		}
	}
	return c
}

// Counts counts the solutions of n by class with the plain search: the
// answer for boards too small to split (nq.Spec.Whole).
func Counts(n int) nq.Counts { return Count(Enumerate(n)) }
