// Package job runs one count (one N and algorithm) as numbered batches of
// tasks spread over one or more workers (the CPU, GPUs), and keeps what long
// runs need: a record of the finished batches and their summed partials,
// checkpoints that a later run resumes from, shards that split a job across
// machines, and a progress snapshot.
//
// The unit of work is the batch: the task list of a job (nq.Spec) is
// enumerated in a fixed order and cut into batches of Batch tasks numbered
// 0, 1, 2, ... Every backend numbers them the same way,
// so a batch index means the same tasks on the CPU, on any GPU, in a
// checkpoint and in a shard. Partial sums of disjoint sets of batches add
// up, and nq.Reduce turns the sum over all batches into exact counts.
package job

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"

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

// MakePlan enumerates the tasks of s, normalized, and describes them. Its
// cost is that of enumerating the tasks, a small fraction of the search
// for boards (about 0.5 s for the 14 million symmetry boards of N=20 on
// one core) and about a tenth of a CPU count for carry-chain frames.
func MakePlan(s nq.Spec) (Plan, error) {
	return MakePlanContext(context.Background(), s)
}

// MakePlanContext is MakePlan until ctx is cancelled: then it returns
// ctx's error within milliseconds (the eightfold tasks of N=28 take more
// than a minute to list).
func MakePlanContext(ctx context.Context, s nq.Spec) (Plan, error) {
	s = s.Normalize()
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

// hostBatch is the index of the batch the job counts itself (the whole
// board, or an eightfold plan's symmetric solutions), or -1.
func (p Plan) hostBatch() int {
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
	if h := p.hostBatch(); h == i {
		return 1
	} else if h == last && h > 0 {
		last, count = last-1, count-1
	}
	if i == last {
		return count - int64(last)*int64(p.Batch)
	}
	return int64(p.Batch)
}

// mismatch describes the first difference between the job p and the job q
// in words, or returns "" when they are the same job.
func (p Plan) mismatch(q Plan) string {
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

// Shard is the share i of m of a job: the batches whose index is i modulo m.
// Batches are small (256 tasks) and numbered in enumeration order, so
// dealing them out in turn gives every shard a near-equal slice of every
// part of the task list, and with it a near-equal cost. The zero Shard and
// 0/1 are the whole job.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Whole reports whether s covers the whole job.
func (s Shard) Whole() bool { return s.Count <= 1 }

// Has reports whether batch belongs to s.
func (s Shard) Has(batch int) bool { return s.Count <= 1 || batch%s.Count == s.Index }

// Batches is the number of batches of s among total.
func (s Shard) Batches(total int) int {
	if s.Whole() {
		return total
	}
	if total <= s.Index {
		return 0
	}
	return (total-1-s.Index)/s.Count + 1
}

// String writes s as i/m.
func (s Shard) String() string {
	if s.Whole() {
		return "0/1"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// MaxShards bounds the number of shards of a job.
const MaxShards = 1 << 20

// ParseShard parses "i/m" with 0 <= i < m <= MaxShards.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	digits := func(x string) bool { return x != "" && len(x) <= 9 && strings.Trim(x, "0123456789") == "" }
	if !ok || !digits(a) || !digits(b) {
		return Shard{}, fmt.Errorf("want i/m, the shard i of m counted from 0, as in 0/4")
	}
	i, _ := strconv.Atoi(a)
	m, _ := strconv.Atoi(b)
	if m < 1 || m > MaxShards {
		return Shard{}, fmt.Errorf("the number of shards must be between 1 and %d", MaxShards)
	}
	if i >= m {
		return Shard{}, fmt.Errorf("shards are numbered 0 to %d", m-1)
	}
	return Shard{Index: i, Count: m}, nil
}

// Version is the program's version as checkpoints and shard results record
// it: the VCS revision the binary was built from (with "+dirty" when the
// tree had changes), the module version, or "devel".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "+dirty"
		}
		return rev
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	return "devel"
}
