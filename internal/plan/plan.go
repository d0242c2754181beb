package plan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// Plan describes the task list of a job, found by one enumeration pass
// without search. Two runs with equal plans number the same tasks the same
// way, whatever backend or program build runs them.
type Plan struct {
	N     int     `json:"n"`
	Algo  nq.Algo `json:"algo"`
	Tasks string  `json:"tasks"` // what a task is: see taskKind
	Depth int     `json:"depth"` // rows placed by a board task; 0 for frames and whole boards
	Batch int     `json:"batch"` // tasks per batch (the last one may have fewer)
	// Batches is the number of batches, TaskCount the number of tasks.
	Batches   int   `json:"batches"`
	TaskCount int64 `json:"task_count"`
	// TaskSHA256 is the hex SHA-256 of the task list (see tasks.Digest).
	TaskSHA256 string `json:"task_sha256"`
}

// taskKind tells how the backends split the search of s: the kind of
// partial board, "frames" for carry-chain frames, or "" for a board too
// small to split (nq.Spec.Whole), which the job counts whole as the single
// batch 0.
func taskKind(s nq.Spec) (kind string, k tasks.Kind) {
	if s.Whole() {
		return "", 0
	}
	switch s.Algo {
	case nq.Backtrack, nq.Bitmap:
		return "plain boards", tasks.Plain
	case nq.Mirror:
		return "half boards", tasks.Half
	case nq.Symmetry:
		return "symmetry boards", tasks.Symmetry
	case nq.Eightfold:
		return eightfoldTasks, 0
	}
	return "frames", 0
}

// Make enumerates the tasks of s (normalized) and describes them. Its
// cost is that of enumerating the tasks, a small fraction of the search
// for boards (about 0.5 s for the 14 million symmetry boards of N=20 on
// one core) and about a tenth of a CPU count for carry-chain frames.
func Make(s nq.Spec) (Plan, error) {
	return MakeContext(context.Background(), s)
}

// MakeContext is Make until ctx is cancelled: then it returns
// ctx's error within milliseconds (the eightfold tasks of N=28 take more
// than a minute to list).
func MakeContext(ctx context.Context, s nq.Spec) (Plan, error) {
	if err := s.Validate(); err != nil {
		return Plan{}, err
	}
	p := Plan{N: s.N, Algo: s.Algo, Batch: s.Batch}
	kind, k := taskKind(s)
	var d tasks.Digest
	var err error
	switch kind {
	case "":
		p.Tasks = wholeBoard
		d = tasks.Digest{Tasks: 1, Batches: 1, SHA256: sha256.Sum256(nil)}
	case "frames":
		p.Tasks = kind
		d, err = tasks.DigestFramesContext(ctx, s.N, s.Batch)
	case eightfoldTasks:
		p.Tasks, p.Depth = kind, s.Depth
		d, err = tasks.DigestEightfoldContext(ctx, s.N, s.Depth, s.Batch)
		// The host batch, last: the symmetric solutions (Spec.HostBatch).
		d.Batches++
		d.Tasks++
	default:
		p.Tasks, p.Depth = kind, s.Depth
		d, err = tasks.DigestBoardsContext(ctx, s.N, k, s.Depth, s.Batch)
	}
	if err != nil {
		return Plan{}, err
	}
	p.Batches, p.TaskCount, p.TaskSHA256 = d.Batches, d.Tasks, hex.EncodeToString(d.SHA256[:])
	return p, nil
}

// The Tasks of a plan whose board is searched whole, and of an eightfold
// plan: its worker batches of eightfold tasks, then its host batch of one
// task, the solutions fixed by the half and the quarter turn.
const (
	wholeBoard     = "whole board"
	eightfoldTasks = "eightfold tasks and the symmetric solutions"
)

// HostBatch is the index of the batch the job counts itself (the whole
// board, or an eightfold plan's symmetric solutions), or -1.
func (p Plan) HostBatch() int {
	switch {
	case p.Tasks == wholeBoard:
		return 0
	case (nq.Spec{N: p.N, Algo: p.Algo}).HostBatch():
		return p.Batches - 1
	}
	return -1
}

// Fingerprint identifies the job: a hex SHA-256 over every field of the
// plan. Checkpoints and shard results carry it; batches of two runs may be
// combined only when their fingerprints are equal.
func (p Plan) Fingerprint() string {
	h := sha256.Sum256([]byte(fmt.Sprintf("nqueens-gpu job 1\nn=%d\nalgo=%s\ntasks=%s\ndepth=%d\nbatch=%d\nbatches=%d\ntask_count=%d\ntask_sha256=%s\n",
		p.N, p.Algo, p.Tasks, p.Depth, p.Batch, p.Batches, p.TaskCount, p.TaskSHA256)))
	return hex.EncodeToString(h[:])
}

// BatchTasks is the number of tasks in batch i: Batch, but for the last
// batch of the workers (the rest) and a host batch (one).
func (p Plan) BatchTasks(i int) int64 {
	last, count := p.Batches-1, p.TaskCount
	if h := p.HostBatch(); h == i {
		return 1
	} else if h == last && h > 0 {
		last, count = last-1, count-1
	}
	if i == last {
		return count - int64(last)*int64(p.Batch)
	}
	return int64(p.Batch)
}

// Mismatch describes the first difference between the job p and the job q
// in words, or returns "" when they are the same job.
func (p Plan) Mismatch(q Plan) string {
	switch {
	case p.N != q.N:
		return fmt.Sprintf("N=%d, not N=%d", p.N, q.N)
	case p.Algo != q.Algo:
		return fmt.Sprintf("-algo %s, not -algo %s", p.Algo, q.Algo)
	case p.Tasks == q.Tasks && p.Batch == q.Batch && p.Depth != q.Depth && p.Depth > 0:
		// Without -depth the depth follows N and the GPUs that count,
		// so another machine may pick another one.
		return fmt.Sprintf("%s of depth %d, not of depth %d; pass -depth %d to resume it",
			p.Tasks, p.Depth, q.Depth, p.Depth)
	case p.Tasks != q.Tasks || p.Depth != q.Depth || p.Batch != q.Batch:
		return fmt.Sprintf("%s of depth %d in batches of %d, not %s of depth %d in batches of %d",
			p.Tasks, p.Depth, p.Batch, q.Tasks, q.Depth, q.Batch)
	case p.Batches != q.Batches || p.TaskCount != q.TaskCount || p.TaskSHA256 != q.TaskSHA256:
		return fmt.Sprintf("another task list (%d tasks in %d batches, not %d in %d; task hashes %s)",
			p.TaskCount, p.Batches, q.TaskCount, q.Batches, ShowDiff(p.TaskSHA256, q.TaskSHA256))
	}
	return ""
}
