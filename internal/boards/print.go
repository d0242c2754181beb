package boards

// This file draws boards for the command's -print. The boards come from
// the plain search of this package, fine for the small N that -print
// allows; the counts in the table always come from the solver, and the
// boards found here are only checked against them.

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// Draw writes p as a grid with row 0 at the top and column 0 at the
// left:
//
//	+-+-+-+-+
//	| |Q| | |
//	+-+-+-+-+
func Draw(w io.Writer, p []int) {
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

// Print writes the boards of n after its row of the table: all
// solutions, or one per symmetry class with unique, at most maxBoards of them
// (0 = all). It returns an error if the boards it found disagree with the
// solver's counts c, which would mean a bug in one of the two.
func Print(out io.Writer, n int, c nq.Counts, unique bool, maxBoards int) error {
	sols := Enumerate(n)
	if got := Count(sols); got != c {
		return fmt.Errorf("N=%d: the solver counted %v but the boards drawn for -print give %v", n, c, got)
	}
	w := bufio.NewWriter(out)
	fmt.Fprintln(w)
	if len(sols) == 0 {
		fmt.Fprintf(w, "N=%d: no solutions\n\n", n)
		return flush(w)
	}
	list, orbits, what := sols, []int(nil), "board"
	if unique {
		list, what = nil, "class"
		for _, k := range Classes(sols) {
			list = append(list, k.Rep)
			orbits = append(orbits, k.Orbit)
		}
	}
	shown := len(list)
	if maxBoards > 0 && shown > maxBoards {
		shown = maxBoards
	}
	for i, p := range list[:shown] {
		fmt.Fprintf(w, "N=%d %s %d of %d: %v", n, what, i+1, len(list), p)
		if unique {
			plural := "s"
			if orbits[i] == 1 {
				plural = ""
			}
			fmt.Fprintf(w, " (%d board%s in its class)", orbits[i], plural)
		}
		fmt.Fprintln(w)
		Draw(w, p)
		fmt.Fprintln(w)
	}
	if rest := len(list) - shown; rest > 0 {
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
