package nq

import (
	"fmt"
	"strconv"
)

// Spec is one count: the board size, the algorithm, how the search is cut
// into numbered batches of tasks, and the GPUs that will count it (which
// only shape the defaults). plan.Normalize fills its defaults, once, where
// a count is set up; every layer below takes it whole and only validates
// it.
type Spec struct {
	N    int
	Algo Algo // "" until plan.Normalize picks one
	// Depth is the number of rows of the partial boards (the board
	// algorithms) or of the rows filled below an eightfold border; 0
	// until plan.Normalize picks one. Frames have none.
	Depth int
	// Batch is the number of tasks in a numbered batch; 0 until
	// plan.Normalize picks one.
	Batch int
	// SMs holds the streaming multiprocessors of each GPU that counts;
	// empty when only the CPU counts. The default depth of a GPU count
	// follows from it.
	SMs []int
}

// Whole reports whether the board of s is too small to split into tasks:
// below N=4 (no rows to split on) and, for the carry chain and eightfold,
// N=4 (a frame or a border is the whole board). Such a count is the single
// batch 0, searched whole by the job itself (boards.Counts); no backend
// sees it.
func (s Spec) Whole() bool {
	return s.N < 4 || ((s.Algo == CarryChain || s.Algo == Eightfold) && s.N < 5)
}

// HasDepth reports whether the tasks of s are cut at a depth: partial
// boards with that many rows, or eightfold borders with that many rows
// below them filled (their split). Carry-chain frames have none.
func (s Spec) HasDepth() bool {
	return !s.Whole() && s.Algo != CarryChain
}

// HostBatch reports whether the job of s has a batch that it counts
// itself rather than a worker: eightfold's solutions fixed by the half
// and the quarter turn (package burnside), its last batch.
func (s Spec) HostBatch() bool {
	return !s.Whole() && s.Algo == Eightfold
}

// MaxBatch bounds the tasks of a batch.
const MaxBatch = 1 << 20

// Validate returns an error unless s, normalized, describes a count the
// program can run: N in range, a known algorithm, a depth of 2..N-1 for
// the board algorithms, and a batch size of 1..MaxBatch.
func (s Spec) Validate() error {
	if err := CheckN(s.N); err != nil {
		return err
	}
	if _, err := ParseAlgo(string(s.Algo)); err != nil {
		return err
	}
	switch {
	case s.HasDepth() && s.Algo == Eightfold:
		// A border whose search has fewer rows fills only those.
		if s.Depth < 0 || s.Depth > s.N {
			return fmt.Errorf("depth %d (rows filled below an eightfold border) out of range 0..%d for N=%d", s.Depth, s.N, s.N)
		}
	case s.HasDepth() && (s.Depth < 2 || s.Depth > s.N-1):
		return fmt.Errorf("depth %d out of range 2..%d for N=%d", s.Depth, s.N-1, s.N)
	}
	if s.Batch < 1 || s.Batch > MaxBatch {
		return fmt.Errorf("batch size %d out of range 1..%d", s.Batch, MaxBatch)
	}
	return nil
}

// CheckDepth returns an error unless depth (0 for the default) suits every
// N from lo to hi that is split at a depth: a -depth flag given for a
// range of sizes must fit the smallest of them, and a depth given for a
// range in which nothing is split (every N below 4: such boards are
// searched whole) is refused, since it would be silently ignored.
func CheckDepth(depth, lo, hi int) error {
	if depth == 0 {
		return nil
	}
	first := max(lo, 4) // smaller boards are searched whole
	if hi < first {
		return fmt.Errorf("boards up to N=3 are searched whole, so no depth applies to N=%s; leave the flag out", rangeText(lo, hi))
	}
	if depth < 2 || depth > first-1 {
		return fmt.Errorf("want 0 (chosen from N and the GPUs) or 2 to N-1 = %d for N=%d", first-1, first)
	}
	return nil
}

// rangeText writes lo..hi as "5" or "2-3".
func rangeText(lo, hi int) string {
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return strconv.Itoa(lo) + "-" + strconv.Itoa(hi)
}
