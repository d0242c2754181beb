package gpu

import "github.com/nqueens-gpu/nqueens-gpu/internal/tasks"

// efSplit is batch b as the producer sends it at most efLevels(n, split)
// levels deep (splitTo), in scratch.
func efSplit(b *tasks.Eightfold, n, split int, scratch *tasks.Eightfold) *tasks.Eightfold {
	return splitTo(b, efLevels(n, split), scratch)
}
