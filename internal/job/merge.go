package job

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// ShardKind is the "kind" of a shard result record.
const ShardKind = "nqueens-gpu shard"

// Sums are the partial sums of a shard by orbit size (see nq.Partial).
// They are not counts on their own: only the sums of all shards of a job
// reduce to counts.
type Sums struct {
	Orbit1 uint64 `json:"orbit1"`
	Orbit2 uint64 `json:"orbit2"`
	Orbit4 uint64 `json:"orbit4"`
	Orbit8 uint64 `json:"orbit8"`
}

// SumsOf converts a partial.
func SumsOf(p nq.Partial) Sums { return Sums{p[0], p[1], p[2], p[3]} }

// Partial converts back.
func (s Sums) Partial() nq.Partial { return nq.Partial{s.Orbit1, s.Orbit2, s.Orbit4, s.Orbit8} }

// ShardResult is what a shard run prints with -json, one object on one
// line, and what merge reads.
type ShardResult struct {
	Kind        string  `json:"kind"` // ShardKind
	N           int     `json:"n"`
	Algo        nq.Algo `json:"algo"`
	Shard       int     `json:"shard"`       // i of i/m
	Shards      int     `json:"shards"`      // m
	Batches     int     `json:"batches"`     // batches of this shard, all counted
	JobBatches  int     `json:"job_batches"` // batches of the whole job
	Fingerprint string  `json:"fingerprint"` // of the job (Plan.Fingerprint)
	Sums        Sums    `json:"sums"`
	Version     string  `json:"version"`
	Backend     string  `json:"backend"`
	Device      string  `json:"device"`
	DeviceName  string  `json:"device_name,omitempty"`
	Seconds     float64 `json:"seconds"`
}

// Source is a shard result and where it was read, for messages.
type Source struct {
	Name   string // file name and line
	Result ShardResult
}

// Merged is the combined result of every shard of a job.
type Merged struct {
	N           int
	Algo        nq.Algo
	Shards      int
	Fingerprint string
	Counts      nq.Counts
	// Seconds adds up the shards' times: the compute time, not the
	// wall-clock time of a cluster that ran them side by side.
	Seconds  float64
	Backends []string // distinct backends, in order of first appearance
	Devices  []string // distinct devices, likewise
	Versions []string // distinct program versions, likewise
}

// Merge checks that srcs are exactly the shards 0..m-1 of one job, each
// complete, and combines them. A missing, repeated, incomplete or foreign
// shard is an error that names it.
func Merge(srcs []Source) (Merged, error) {
	if len(srcs) == 0 {
		return Merged{}, fmt.Errorf("no shard results")
	}
	first := srcs[0]
	r0 := first.Result
	m := Merged{N: r0.N, Algo: r0.Algo, Shards: r0.Shards, Fingerprint: r0.Fingerprint}
	if r0.Shards < 1 || r0.Shards > MaxShards {
		return Merged{}, fmt.Errorf("%s: shard count %d out of range", first.Name, r0.Shards)
	}
	seen := make(map[int]string)
	var sum nq.Partial
	distinct := func(list *[]string, s string) {
		for _, x := range *list {
			if x == s {
				return
			}
		}
		*list = append(*list, s)
	}
	for _, src := range srcs {
		r := src.Result
		switch {
		case r.Kind != ShardKind:
			return Merged{}, fmt.Errorf("%s is not a shard result (kind %q; shard runs need -json)", src.Name, r.Kind)
		case r.N != r0.N || r.Algo != r0.Algo:
			return Merged{}, fmt.Errorf("%s is for N=%d -algo %s, but %s is for N=%d -algo %s", src.Name, r.N, r.Algo, first.Name, r0.N, r0.Algo)
		case r.Shards != r0.Shards:
			return Merged{}, fmt.Errorf("%s is shard %d/%d, but %s is one of %d shards", src.Name, r.Shard, r.Shards, first.Name, r0.Shards)
		case r.Fingerprint != r0.Fingerprint || r.JobBatches != r0.JobBatches:
			return Merged{}, fmt.Errorf("%s and %s are shards of different jobs (fingerprints %.12s and %.12s): a different task list, depth or batch size", src.Name, first.Name, r.Fingerprint, r0.Fingerprint)
		case r.Shard < 0 || r.Shard >= r.Shards:
			return Merged{}, fmt.Errorf("%s: shard %d out of range 0..%d", src.Name, r.Shard, r.Shards-1)
		}
		if prev, dup := seen[r.Shard]; dup {
			return Merged{}, fmt.Errorf("shard %d/%d is there twice: %s and %s", r.Shard, r.Shards, prev, src.Name)
		}
		seen[r.Shard] = src.Name
		sh := Shard{Index: r.Shard, Count: r.Shards}
		if want := sh.Batches(r.JobBatches); r.Batches != want {
			return Merged{}, fmt.Errorf("%s: shard %d/%d counted %d of its %d batches", src.Name, r.Shard, r.Shards, r.Batches, want)
		}
		sum.Add(r.Sums.Partial())
		m.Seconds += r.Seconds
		distinct(&m.Backends, r.Backend)
		distinct(&m.Devices, r.Device)
		distinct(&m.Versions, r.Version)
	}
	if len(seen) != r0.Shards {
		var missing []string
		for i := 0; i < r0.Shards; i++ {
			if _, ok := seen[i]; !ok {
				missing = append(missing, fmt.Sprint(i))
				if len(missing) == 10 {
					missing = append(missing, "...")
					break
				}
			}
		}
		word := "shard"
		if len(missing) > 1 {
			word = "shards"
		}
		return Merged{}, fmt.Errorf("%s %s of %d missing (have %d of %d)", word, strings.Join(missing, ", "), r0.Shards, len(seen), r0.Shards)
	}
	sort.Strings(m.Versions)
	c, err := nq.Reduce(r0.Algo, sum)
	if err != nil {
		return Merged{}, err
	}
	m.Counts = c
	return m, nil
}
