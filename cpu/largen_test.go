package cpu

import (
	"sync/atomic"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks/taskstest"
)

// TestSymmetryBoardsLargeN compares the symmetry search with
// taskstest.SearchBoard board by board for N=22..28, where no full count
// runs in a test, on random boards (half corner, half non-corner) with 15
// rows left, so that the stack's pops run back up through many rows:
// undoing the left shift there once lost board columns (the stack now
// saves the left word).
func TestSymmetryBoardsLargeN(t *testing.T) {
	if testing.Short() {
		t.Skip("large-N boards: not in -short")
	}
	for _, n := range []int{22, 23, 25, 28} {
		depth := n - 15
		b := taskstest.RandomSymmetryBoards(n, depth, 60, 7)
		nonzero := 0
		for i := 0; i < b.Len(); i++ {
			var got tally
			symmetryBoards(taskstest.Single(b, i), &got, new(atomic.Bool))
			want := taskstest.Reference(b, i)
			if got.orbit[2] != want[2] || got.orbit[4] != want[4] || got.orbit[8] != want[8] {
				t.Fatalf("N=%d depth=%d board %x: search %d/%d/%d, reference %d/%d/%d",
					n, depth, b.Board(i), got.orbit[2], got.orbit[4], got.orbit[8], want[2], want[4], want[8])
			}
			if want[2]+want[4]+want[8] > 0 {
				nonzero++
			}
		}
		if nonzero < 10 {
			t.Errorf("N=%d depth=%d: %d of %d boards have a solution", n, depth, nonzero, b.Len())
		}
	}
}
