package taskstest_test

import (
	"fmt"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks/taskstest"
)

// Every random board is one that EnumerateBoards lists, with the same
// attack words, and both kinds of board come up.
func TestRandomBoardsAreEnumerated(t *testing.T) {
	for _, c := range []struct{ n, depth int }{{8, 3}, {10, 4}, {11, 2}, {12, 6}, {12, 11}} {
		all := map[string][3]uint32{}
		err := tasks.EnumerateBoards(c.n, tasks.Symmetry, c.depth, 512, func(b *tasks.Boards) error {
			for i := 0; i < b.Len(); i++ {
				all[fmt.Sprint(b.Board(i))] = [3]uint32{b.Left[i], b.Down[i], b.Right[i]}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		b := taskstest.RandomSymmetryBoards(c.n, c.depth, 200, 1)
		if b.Len() != 200 || len(b.Rows) != 200*c.depth {
			t.Fatalf("N=%d depth=%d: %d boards, %d row words", c.n, c.depth, b.Len(), len(b.Rows))
		}
		corner := 0
		for i := 0; i < b.Len(); i++ {
			key := fmt.Sprint(b.Board(i))
			words, ok := all[key]
			if !ok {
				t.Fatalf("N=%d depth=%d: board %s is not enumerated", c.n, c.depth, key)
			}
			if words != [3]uint32{b.Left[i], b.Down[i], b.Right[i]} {
				t.Fatalf("N=%d depth=%d: board %s has words %x, enumerated %x", c.n, c.depth, key,
					[3]uint32{b.Left[i], b.Down[i], b.Right[i]}, words)
			}
			if b.Board(i)[0] == 1 {
				corner++
			}
		}
		if corner != 100 {
			t.Errorf("N=%d depth=%d: %d corner boards of 200", c.n, c.depth, corner)
		}
	}
}
