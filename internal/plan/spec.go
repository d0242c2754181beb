package plan

import (
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// The parts of MinTasks. A GPU runs one task per thread; the task list of
// a count should hold TasksPerThread tasks for every thread the GPUs keep
// resident, so that the uneven cost of the tasks evens out and no launch
// ends with most of its threads idle.
const (
	// ResidentThreadsPerSM is the threads one streaming multiprocessor
	// keeps resident on Volta, the A100 and Hopper; GPUs that keep fewer
	// get more, smaller tasks than they need.
	ResidentThreadsPerSM = 2048
	// TasksPerThread is the tasks the list holds per resident thread.
	TasksPerThread = 8
)

// MinTasks is the number of tasks a count on GPUs with sms streaming
// multiprocessors should supply: TasksPerThread × ResidentThreadsPerSM ×
// their sum (2,162,688 for 132 SMs), or 0 for no GPU.
func MinTasks(sms []int) int {
	total := 0
	for _, s := range sms {
		if s > 0 {
			total += s
		}
	}
	return TasksPerThread * ResidentThreadsPerSM * total
}

// DefaultAlgo is the algorithm a count runs when none is asked for, on the
// CPU and on GPUs alike (docs/performance.md compares them).
const DefaultAlgo = nq.Eightfold

// Algo is the algorithm a count asked to run a runs: a, or DefaultAlgo
// for "".
func Algo(a nq.Algo) nq.Algo {
	if a == "" {
		return DefaultAlgo
	}
	return a
}

// Normalize returns s with its defaults filled in: the algorithm
// (DefaultAlgo), the batch size (DefaultBatch) and the depth. It is the
// one place where a count's defaults are decided; the layers below take
// the spec whole.
//
// The depth of a board algorithm is tasks.DefaultDepth(N), that of
// eightfold tasks.DefaultSplit(N), except on GPUs, where symmetry boards
// and eightfold tasks take the smallest depth from there on that gives the
// GPUs MinTasks tasks (tasks.DepthFor, tasks.SplitFor). It depends only on
// N and the SM counts, so the same command on the same machine finds the
// same task list and resumes its checkpoint. Normalize does not check s:
// call Validate on the result.
func Normalize(s nq.Spec) nq.Spec {
	s.Algo = Algo(s.Algo)
	if s.Batch == 0 {
		s.Batch = DefaultBatch(s.N)
	}
	gpus := len(s.SMs) > 0 && s.N <= nq.MaxN
	switch {
	case !s.HasDepth():
		s.Depth = 0
	case s.Depth != 0:
	case s.Algo == nq.Symmetry && gpus:
		s.Depth = tasks.DepthFor(s.N, MinTasks(s.SMs))
	case s.Algo == nq.Eightfold && gpus:
		s.Depth = tasks.SplitFor(s.N, MinTasks(s.SMs))
	case s.Algo == nq.Eightfold:
		s.Depth = tasks.DefaultSplit(s.N)
	default:
		s.Depth = tasks.DefaultDepth(s.N)
	}
	return s
}
