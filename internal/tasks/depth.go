package tasks

import (
	"context"
	"errors"
)

// DepthFor picks the depth of the symmetry boards of a count at n that
// must supply at least minTasks tasks: the smallest depth from
// DefaultDepth(n) up to n-3 whose board count is at least minTasks, or,
// where no depth has that many, the depth before the first row that does
// not at least double the boards. minTasks <= 0 gives DefaultDepth(n).
// The result depends only on n and minTasks, so the same devices give the
// same task list and a checkpoint resumes. The boards are counted by
// enumerating them, stopping at minTasks. docs/algorithms.md ("Tasks and
// batches") says why GPUs need the tasks and what the scan costs.
func DepthFor(n, minTasks int) int {
	if minTasks <= 0 || n < 4 || n > 28 {
		return DefaultDepth(n)
	}
	return deepEnough(DefaultDepth(n), n-3, minTasks, func(d int, limit int64) int64 {
		return countTasks(limit, func(emit func(int) error) error {
			return EnumerateBoards(n, Symmetry, d, 1024, func(b *Boards) error { return emit(b.Len()) })
		})
	})
}

// SplitFor is DepthFor for eightfold tasks: the smallest split from
// DefaultSplit(n) up to n-5 whose tasks number at least minTasks, with
// the same rule for small N (stop at the first split that does not at
// least double the tasks). minTasks <= 0 gives DefaultSplit(n).
func SplitFor(n, minTasks int) int {
	if minTasks <= 0 || n < 5 || n > 28 {
		return DefaultSplit(n)
	}
	return deepEnough(DefaultSplit(n), n-5, minTasks, func(split int, limit int64) int64 {
		// The list of a split is counted on every core once per
		// process, and kept: the count that asks for this split lists
		// its tasks from it (the program prepares the default split's
		// list as it starts).
		l, err := NewEightfoldList(context.Background(), n, split)
		if err != nil {
			return 0
		}
		return l.Tasks()
	})
}

// deepEnough returns the smallest depth d from def to max with count(d)
// >= minTasks; when there is none, the depth before the first one that
// does not at least double the count, or max. count(d, limit) may stop
// counting at limit.
func deepEnough(def, max, minTasks int, count func(d int, limit int64) int64) int {
	best, prev := def, int64(0)
	for d := def; d <= max; d++ {
		c := count(d, int64(minTasks))
		if c >= int64(minTasks) {
			return d
		}
		if d > def && c < 2*prev {
			break
		}
		best, prev = d, c
	}
	return best
}

// errEnough stops a counting enumeration that has reached its limit.
var errEnough = errors.New("tasks: enough boards")

// countTasks counts the tasks an enumeration emits (each batch's length),
// stopping once the count reaches limit (limit <= 0: no limit). The count
// returned is then at least limit, not the full count. It returns 0 when
// the enumeration refuses its arguments.
func countTasks(limit int64, enumerate func(emit func(int) error) error) int64 {
	var c int64
	err := enumerate(func(k int) error {
		c += int64(k)
		if limit > 0 && c >= limit {
			return errEnough
		}
		return nil
	})
	if err != nil && err != errEnough {
		return 0
	}
	return c
}
