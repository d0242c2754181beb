package tasks

import (
	"context"
	"sort"
	"sync"
)

// EightfoldList is the eightfold task list of one N and split with the
// number of tasks of each border, so that any range of its batches can be
// listed on its own: several goroutines list one count's batches at once
// (the gpu package's producer), each from where its range starts.
type EightfoldList struct {
	n, split int
	borders  []Border
	// start[k] is the index of border k's first task in the list, and
	// start[len(borders)] the number of tasks.
	start []int64
}

// lists caches the lists by N and split, as orbits caches the borders:
// a count asks for its list when the program starts (PrepareEightfold)
// and again when it lists its tasks.
var lists struct {
	sync.Mutex
	m map[[2]int]*listEntry
}

type listEntry struct {
	mu sync.Mutex
	l  *EightfoldList
}

// NewEightfoldList returns the list of n (5 <= n <= 28) and split, found
// once per process: the borders (EightfoldBorders) and their tasks,
// counted on every core. Once ctx is cancelled it returns ctx's error and
// keeps nothing.
func NewEightfoldList(ctx context.Context, n, split int) (*EightfoldList, error) {
	lists.Lock()
	if lists.m == nil {
		lists.m = map[[2]int]*listEntry{}
	}
	e := lists.m[[2]int{n, split}]
	if e == nil {
		e = &listEntry{}
		lists.m[[2]int{n, split}] = e
	}
	lists.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.l == nil {
		l, err := makeEightfoldList(ctx, n, split)
		if err != nil {
			return nil, err
		}
		e.l = l
	}
	return e.l, nil
}

// PrepareEightfold makes the list of n and split (NewEightfoldList) so
// that a count finds it ready: the program calls it as it starts, while
// the GPUs open. It returns the list's error.
func PrepareEightfold(ctx context.Context, n, split int) error {
	_, err := NewEightfoldList(ctx, n, split)
	return err
}

// makeEightfoldList finds the borders and counts each one's tasks, on
// every core.
func makeEightfoldList(ctx context.Context, n, split int) (*EightfoldList, error) {
	borders, err := eightfoldBorders(ctx, n, split)
	if err != nil {
		return nil, err
	}
	counts := make([]int64, len(borders))
	onCores(ctx, len(borders), func() func(int) {
		e := newEfEnum(n, split, 1, false, nil)
		return func(k int) {
			e.skip = 1 << 62 // pass over every task: count them
			e.border(borders[k])
			counts[k] = 1<<62 - e.skip
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l := &EightfoldList{n: n, split: split, borders: borders, start: make([]int64, len(borders)+1)}
	for k, c := range counts {
		l.start[k+1] = l.start[k] + c
	}
	return l, nil
}

// Tasks is the number of tasks of the list.
func (l *EightfoldList) Tasks() int64 { return l.start[len(l.borders)] }

// Batches is the number of batches of batch tasks the list makes.
func (l *EightfoldList) Batches(batch int) int {
	return int((l.Tasks() + int64(batch) - 1) / int64(batch))
}

// Range lists the batches first to last-1 of the list cut into batches of
// batch tasks: the tasks EnumerateEightfold lists in those batches, in its
// order, calling emit with each batch and its index. With cols false the
// batches have no Cols. The batch's arrays are reused after emit returns.
// An error from emit, or ctx's once it is cancelled, stops it and is
// returned.
func (l *EightfoldList) Range(ctx context.Context, batch, first, last int, cols bool, emit func(i int, e *Eightfold) error) error {
	batch = max(1, batch)
	from := int64(first) * int64(batch)
	to := min(int64(last)*int64(batch), l.Tasks())
	if from >= to {
		return nil
	}
	i := first
	e := newEfEnum(l.n, l.split, batch, cols, func(b *Eightfold) error {
		i++
		return emit(i-1, b)
	})
	// The border that holds task from: the last one starting at or
	// before it (borders without tasks start where the next one does).
	k := sort.Search(len(l.borders), func(k int) bool { return l.start[k+1] > from })
	e.skip, e.left = from-l.start[k], to-from
	for ; k < len(l.borders); k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := e.border(l.borders[k]); err != nil {
			if err == errListed {
				break
			}
			return err
		}
	}
	return e.flush()
}
