package plan

import (
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

func TestDefaultBatch(t *testing.T) {
	// The symmetry boards at the default depth, as tasks.EnumerateBoards
	// lists them (see the table of DefaultBatch).
	boards := map[int]int64{23: 57765474, 24: 834462428, 25: 1329247680, 26: 2168130075, 27: 3293466812, 28: 5147588551}
	prev := 256
	for n := nq.MinN; n <= nq.MaxN; n++ {
		b := DefaultBatch(n)
		switch {
		case n <= 22 && b != 256:
			t.Errorf("N=%d: batch %d; counts up to N=22 keep their batches of 256", n, b)
		case b < 1 || b > 256 || b&(b-1) != 0:
			t.Errorf("N=%d: batch %d is not a power of two up to 256", n, b)
		case n > 22 && b >= 256:
			t.Errorf("N=%d: batch %d, not smaller than at N=22", n, b)
		}
		if c, ok := boards[n]; ok {
			if batches := (c + int64(b) - 1) / int64(b); batches > 1<<28 {
				t.Errorf("N=%d: %d batches, more than 2^28", n, batches)
			}
			// Half the batch would pass 2^28 batches where the batch
			// grows again: the floor, not a choice.
			if b > prev && (c+int64(b/2)-1)/int64(b/2) <= 1<<28 {
				t.Errorf("N=%d: batch %d grows from %d although %d keeps under 2^28 batches", n, b, prev, b/2)
			}
		}
		prev = b
	}
}
