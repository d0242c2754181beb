package main

// This file draws boards for -print. It enumerates the solutions itself with
// a plain backtracking search, which is fine for the small N that -print
// allows. The counts in the table always come from the solver; the boards
// found here are only checked against them.

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// enumerate returns every solution for an n x n board as column lists
// (entry r is the column of the queen in row r), in lexicographic order.
func enumerate(n int) [][]int {
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

// symmetries returns the images of the column list p under the 8 symmetries
// of the square: the identity, the turns by 90, 180 and 270 degrees
// clockwise, and the reflections in the vertical axis, the horizontal axis,
// the main diagonal and the anti-diagonal. p must be a permutation of
// 0..len(p)-1, as every solution is.
func symmetries(p []int) [8][]int {
	n := len(p)
	m := n - 1
	// Each symmetry maps the square (row r, column c) to (row, column).
	maps := [8]func(r, c int) (int, int){
		func(r, c int) (int, int) { return r, c },         // identity
		func(r, c int) (int, int) { return c, m - r },     // quarter turn clockwise
		func(r, c int) (int, int) { return m - r, m - c }, // half turn
		func(r, c int) (int, int) { return m - c, r },     // quarter turn anticlockwise
		func(r, c int) (int, int) { return r, m - c },     // mirror left-right
		func(r, c int) (int, int) { return m - r, c },     // mirror top-bottom
		func(r, c int) (int, int) { return c, r },         // main diagonal
		func(r, c int) (int, int) { return m - c, m - r }, // anti-diagonal
	}
	var out [8][]int
	for i, f := range maps {
		q := make([]int, n)
		for r, c := range p {
			r2, c2 := f(r, c)
			q[r2] = c2
		}
		out[i] = q
	}
	return out
}

// canonical returns the lexicographically smallest image of p under the 8
// symmetries and the size of p's orbit (the number of distinct images).
func canonical(p []int) (rep []int, orbit int) {
	imgs := symmetries(p)
	sorted := imgs[:]
	slices.SortFunc(sorted, slices.Compare)
	orbit = 1
	for i := 1; i < len(sorted); i++ {
		if !slices.Equal(sorted[i], sorted[i-1]) {
			orbit++
		}
	}
	return sorted[0], orbit
}

// class is one symmetry class: its representative and its size.
type class struct {
	rep   []int
	orbit int
}

// uniqueClasses returns one representative per symmetry class of sols, the
// smallest column list of each orbit, in lexicographic order.
func uniqueClasses(sols [][]int) []class {
	var cs []class
	for _, p := range sols {
		if rep, orbit := canonical(p); slices.Equal(rep, p) {
			cs = append(cs, class{rep: p, orbit: orbit})
		}
	}
	return cs
}

// classify counts sols by orbit size.
func classify(sols [][]int) nq.Counts {
	var c nq.Counts
	for _, k := range uniqueClasses(sols) {
		switch k.orbit {
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

// drawBoard writes p as a grid with row 0 at the top and column 0 at the
// left:
//
//	+-+-+-+-+
//	| |Q| | |
//	+-+-+-+-+
func drawBoard(w io.Writer, p []int) {
	n := len(p)
	rule := strings.Repeat("+-", n) + "+\n"
	io.WriteString(w, rule)
	for _, c := range p {
		var b strings.Builder
		for col := 0; col < n; col++ {
			if col == c {
				b.WriteString("|Q")
			} else {
				b.WriteString("| ")
			}
		}
		b.WriteString("|\n")
		io.WriteString(w, b.String())
		io.WriteString(w, rule)
	}
}

// printBoards writes the boards of n after its row of the table: all
// solutions, or one per symmetry class with unique, at most maxBoards of them
// (0 = all). It returns an error if the boards it found disagree with the
// solver's counts c, which would mean a bug in one of the two.
func printBoards(out io.Writer, n int, c nq.Counts, unique bool, maxBoards int) error {
	sols := enumerate(n)
	if got := classify(sols); got != c {
		return fmt.Errorf("N=%d: the solver counted %v but the boards drawn for -print give %v", n, c, got)
	}
	w := bufio.NewWriter(out)
	fmt.Fprintln(w)
	if len(sols) == 0 {
		fmt.Fprintf(w, "N=%d: no solutions\n\n", n)
		return flush(w)
	}
	var boards [][]int
	var orbits []int
	what := "board"
	if unique {
		what = "class"
		for _, k := range uniqueClasses(sols) {
			boards = append(boards, k.rep)
			orbits = append(orbits, k.orbit)
		}
	} else {
		boards = sols
	}
	shown := len(boards)
	if maxBoards > 0 && shown > maxBoards {
		shown = maxBoards
	}
	for i, p := range boards[:shown] {
		fmt.Fprintf(w, "N=%d %s %d of %d: %v", n, what, i+1, len(boards), p)
		if unique {
			plural := "s"
			if orbits[i] == 1 {
				plural = ""
			}
			fmt.Fprintf(w, " (%d board%s in its class)", orbits[i], plural)
		}
		fmt.Fprintln(w)
		drawBoard(w, p)
		fmt.Fprintln(w)
	}
	if rest := len(boards) - shown; rest > 0 {
		fmt.Fprintf(w, "... and %d more (use -max-boards 0 to print them all)\n\n", rest)
	}
	return flush(w)
}

func flush(w *bufio.Writer) error {
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}
