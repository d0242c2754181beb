package shard

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/internal/checkpoint"
	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// Kind is the "kind" of a shard result record.
const Kind = "nqueens-gpu shard"

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

// Result is what a shard run prints with -json, one object on one
// line, and what merge reads.
//
// Its JSON form always carries "sha256", a checksum over the rest of the
// record (MarshalJSON computes it), so that a record edited or damaged
// after it was written is refused. Depth and Batch, with N and Algo,
// determine the job's plan: Merge makes the plan again from them
// and refuses a record whose fingerprint does not match it.
type Result struct {
	Kind        string  `json:"kind"` // the constant Kind
	N           int     `json:"n"`
	Algo        nq.Algo `json:"algo"`
	Depth       int     `json:"depth"`       // of the job's plan: 0 for frames and whole boards
	Batch       int     `json:"batch"`       // tasks per batch of the job's plan
	Shard       int     `json:"shard"`       // i of i/m
	Shards      int     `json:"shards"`      // m
	Batches     int     `json:"batches"`     // batches of this shard, all counted
	JobBatches  int     `json:"job_batches"` // batches of the whole job
	Fingerprint string  `json:"fingerprint"` // of the job (Plan.Fingerprint)
	Sums        Sums    `json:"sums"`
	Version     string  `json:"version"`          // the program's (buildinfo.Info.Short)
	Commit      string  `json:"commit,omitempty"` // the program's git commit, when known
	Backend     string  `json:"backend"`
	Device      string  `json:"device"`
	DeviceName  string  `json:"device_name,omitempty"`
	Seconds     float64 `json:"seconds"`
	// SHA256 is the checksum of the record as read; MarshalJSON writes
	// a fresh one whatever it holds.
	SHA256 string `json:"sha256,omitempty"`
}

// NewResult is the record of the shard sh of the job p whose run counted
// batches batches with the summed partials sum. The caller fills in
// Version, Commit, Backend, Device, DeviceName and Seconds.
func NewResult(p plan.Plan, sh plan.Shard, batches int, sum nq.Partial) Result {
	return Result{
		Kind:        Kind,
		N:           p.N,
		Algo:        p.Algo,
		Depth:       p.Depth,
		Batch:       p.Batch,
		Shard:       sh.Index,
		Shards:      max(sh.Count, 1),
		Batches:     batches,
		JobBatches:  p.Batches,
		Fingerprint: p.Fingerprint(),
		Sums:        SumsOf(sum),
	}
}

// shardRecord is Result without its methods, for encoding/json.
type shardRecord Result

// checksum is the hex SHA-256 of r's JSON without the sha256 field. The
// JSON of a struct is canonical (fields in their order, numbers in their
// shortest exact form), so it covers r's content, not its spelling.
func (r Result) checksum() (string, error) {
	rec := shardRecord(r)
	rec.SHA256 = ""
	body, err := json.Marshal(rec)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:]), nil
}

// MarshalJSON writes r with its checksum.
func (r Result) MarshalJSON() ([]byte, error) {
	sum, err := r.checksum()
	if err != nil {
		return nil, err
	}
	rec := shardRecord(r)
	rec.SHA256 = sum
	return json.Marshal(rec)
}

// Check checks a record on its own: the checksum, and every field within
// its range. It does not make the plan (see Merge).
func (r Result) Check() error {
	if r.Kind != Kind {
		return fmt.Errorf("is not a shard result (kind %s; shard runs need -json)", clip.Quote(r.Kind, clip.Max))
	}
	if r.SHA256 == "" {
		return fmt.Errorf("has no checksum: it was written by a version of nqueens-gpu before shard results had one; count the shard again")
	}
	if sum, err := r.checksum(); err != nil || sum != r.SHA256 {
		return fmt.Errorf("does not match its checksum, so it was changed after the shard run wrote it")
	}
	if err := nq.CheckN(r.N); err != nil {
		return fmt.Errorf("claims N=%d: %v", r.N, err)
	}
	if _, err := nq.ParseAlgo(string(r.Algo)); err != nil {
		return fmt.Errorf("claims an unknown algorithm %s", clip.Quote(string(r.Algo), 40))
	}
	switch {
	case r.Shards < 1 || r.Shards > plan.MaxShards:
		return fmt.Errorf("claims %d shards, out of range 1..%d", r.Shards, plan.MaxShards)
	case r.Shard < 0 || r.Shard >= r.Shards:
		return fmt.Errorf("claims shard %d of %d, out of range 0..%d", r.Shard, r.Shards, r.Shards-1)
	case r.Batch < 0 || r.Batch > 0 && (nq.Spec{N: r.N, Algo: r.Algo, Depth: r.Depth, Batch: r.Batch}).Validate() != nil:
		// A batch of 0 is an old record: Merge says so.
		return fmt.Errorf("claims depth %d and batches of %d tasks, out of range for N=%d -algo %s", r.Depth, r.Batch, r.N, r.Algo)
	case r.JobBatches < 1 || r.JobBatches > checkpoint.MaxBatches:
		return fmt.Errorf("claims a job of %d batches, out of range 1..%d", r.JobBatches, checkpoint.MaxBatches)
	case r.Batches < 0 || r.Batches > r.JobBatches:
		return fmt.Errorf("claims %d batches of a job of %d", r.Batches, r.JobBatches)
	case len(r.Fingerprint) != 64 || strings.Trim(r.Fingerprint, "0123456789abcdef") != "":
		return fmt.Errorf("has a fingerprint that is not 64 hexadecimal digits: %s", clip.Quote(r.Fingerprint, 70))
	case math.IsNaN(r.Seconds) || math.IsInf(r.Seconds, 0) || r.Seconds < 0:
		return fmt.Errorf("claims %v seconds", r.Seconds)
	}
	return nil
}

// Source is a shard result and where it was read, for messages.
type Source struct {
	Name   string // file name and line
	Result Result
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

// ErrPublished is wrapped by the error of a merge whose counts differ
// from the published ones.
var ErrPublished = fmt.Errorf("merged counts disagree with the published value")

// Merge checks that srcs are exactly the shards 0..m-1 of one job,
// each complete, each record whole (its checksum) and within range, and
// combines them. It makes the job's plan again with makePlan (plan.Make in the
// program) from the N, algorithm, depth and batch size the records state,
// and refuses records whose fingerprint or batch count do not match it.
// The sums are added with overflow checks. For an N whose counts are
// published (internal/known), counts that differ are an error wrapping
// ErrPublished: the table is a cross-check, never the answer. A missing,
// repeated, incomplete, damaged or foreign shard is an error that names
// it.
func Merge(srcs []Source, makePlan func(nq.Spec) (plan.Plan, error)) (Merged, error) {
	if makePlan == nil {
		return Merged{}, fmt.Errorf("merge: no plan function")
	}
	if len(srcs) == 0 {
		return Merged{}, fmt.Errorf("no shard results")
	}
	for _, src := range srcs {
		if err := src.Result.Check(); err != nil {
			return Merged{}, fmt.Errorf("%s %w", clip.String(src.Name, 200), err)
		}
	}
	first := srcs[0]
	r0 := first.Result
	m := Merged{N: r0.N, Algo: r0.Algo, Shards: r0.Shards, Fingerprint: r0.Fingerprint}
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
		case r.N != r0.N || r.Algo != r0.Algo:
			return Merged{}, fmt.Errorf("%s is for N=%d -algo %s, but %s is for N=%d -algo %s", src.Name, r.N, r.Algo, first.Name, r0.N, r0.Algo)
		case r.Shards != r0.Shards:
			return Merged{}, fmt.Errorf("%s is shard %d/%d, but %s is one of %d shards", src.Name, r.Shard, r.Shards, first.Name, r0.Shards)
		case r.Fingerprint != r0.Fingerprint || r.JobBatches != r0.JobBatches || r.Depth != r0.Depth || r.Batch != r0.Batch:
			return Merged{}, fmt.Errorf("%s and %s are shards of different jobs (fingerprints %s): a different task list, depth or batch size",
				src.Name, first.Name, plan.ShowDiff(r.Fingerprint, r0.Fingerprint))
		}
		if prev, dup := seen[r.Shard]; dup {
			return Merged{}, fmt.Errorf("shard %d/%d is there twice: %s and %s", r.Shard, r.Shards, prev, src.Name)
		}
		seen[r.Shard] = src.Name
		sh := plan.Shard{Index: r.Shard, Count: r.Shards}
		if want := sh.Batches(r.JobBatches); r.Batches != want {
			return Merged{}, fmt.Errorf("%s: shard %d/%d counted %d of its %d batches", src.Name, r.Shard, r.Shards, r.Batches, want)
		}
		if !addChecked(&sum, r.Sums.Partial()) {
			return Merged{}, fmt.Errorf("%s: its sums overflow 64 bits when added to those before it, which no count up to N=28 does: a record was changed", src.Name)
		}
		m.Seconds += r.Seconds
		distinct(&m.Backends, r.Backend)
		distinct(&m.Devices, r.Device)
		distinct(&m.Versions, r.Version)
	}
	if len(seen) != r0.Shards {
		// Shards are named i/m, as -shard takes them.
		var missing []string
		for i := 0; i < r0.Shards; i++ {
			if _, ok := seen[i]; !ok {
				missing = append(missing, fmt.Sprintf("%d/%d", i, r0.Shards))
				if len(missing) == 10 {
					missing = append(missing, "...")
					break
				}
			}
		}
		gone := "shard " + missing[0] + " is missing"
		if len(missing) > 1 {
			gone = "shards " + strings.Join(missing, ", ") + " are missing"
		}
		return Merged{}, fmt.Errorf("%s: the files hold %d of the job's %d shards", gone, len(seen), r0.Shards)
	}
	if err := checkPlan(first, makePlan); err != nil {
		return Merged{}, err
	}
	sort.Strings(m.Versions)
	c, err := nq.Reduce(r0.Algo, sum)
	if err != nil {
		return Merged{}, err
	}
	if _, _, ok := checkedTotals(c); !ok {
		return Merged{}, fmt.Errorf("the merged counts overflow 64 bits, which no count up to N=28 does: a record was changed")
	}
	if err := crossCheck(r0.N, c); err != nil {
		return Merged{}, err
	}
	m.Counts = c
	return m, nil
}

// checkPlan makes the plan of the job that src states and compares it
// with what src records.
func checkPlan(src Source, makePlan func(nq.Spec) (plan.Plan, error)) error {
	r := src.Result
	if r.Batch < 1 {
		return fmt.Errorf("%s has no batch size: it was written by a version of nqueens-gpu before shard results recorded their job; count the shard again", src.Name)
	}
	p, err := makePlan(nq.Spec{N: r.N, Algo: r.Algo, Depth: r.Depth, Batch: r.Batch})
	if err != nil {
		return fmt.Errorf("%s: cannot make the plan of its job (N=%d -algo %s, depth %d, batches of %d) again: %v", src.Name, r.N, r.Algo, r.Depth, r.Batch, err)
	}
	job := fmt.Sprintf("N=%d -algo %s, depth %d, batches of %d", r.N, r.Algo, r.Depth, r.Batch)
	switch {
	case p.Depth != r.Depth || p.Batch != r.Batch:
		return fmt.Errorf("%s states %s, but that job has depth %d and batches of %d", src.Name, job, p.Depth, p.Batch)
	case p.Fingerprint() != r.Fingerprint:
		return fmt.Errorf("%s: its fingerprint is not that of its own job (%s): fingerprints %s; the record was changed, or written by a program with another task list",
			src.Name, job, plan.ShowDiff(r.Fingerprint, p.Fingerprint()))
	case p.Batches != r.JobBatches:
		return fmt.Errorf("%s states a job of %d batches, but %s has %d", src.Name, r.JobBatches, job, p.Batches)
	}
	return nil
}

// addChecked adds q to p and reports false, leaving p as it may be, when
// a sum passes 2^64-1.
func addChecked(p *nq.Partial, q nq.Partial) bool {
	for i := range p {
		var carry uint64
		p[i], carry = bits.Add64(p[i], q[i], 0)
		if carry != 0 {
			return false
		}
	}
	return true
}

// checkedTotals computes Total and Unique of c and reports whether they
// fit in 64 bits (nq.Counts.Total wraps silently).
func checkedTotals(c nq.Counts) (total, unique uint64, ok bool) {
	terms := []struct{ k, v uint64 }{{1, c.C1}, {2, c.C2}, {4, c.C4}, {8, c.C8}}
	for _, t := range terms {
		hi, lo := bits.Mul64(t.k, t.v)
		var c1, c2 uint64
		total, c1 = bits.Add64(total, lo, 0)
		unique, c2 = bits.Add64(unique, t.v, 0)
		if hi != 0 || c1 != 0 || c2 != 0 {
			return 0, 0, false
		}
	}
	return total, unique, true
}

// crossCheck compares the merged counts of n with the published ones, if
// there are any: a difference is an error. The table is never the answer.
func crossCheck(n int, c nq.Counts) error {
	e, ok := known.Lookup(n)
	if !ok {
		return nil
	}
	if c.Total() != e.Total || c.Unique() != e.Unique {
		return fmt.Errorf("%w: N=%d merged to total %d, unique %d; published: total %d, unique %d (a shard result is wrong)",
			ErrPublished, n, c.Total(), c.Unique(), e.Total, e.Unique)
	}
	if cl, ok := known.ClassTable[n]; ok && (c.C2 != cl.C2 || c.C4 != cl.C4 || c.C8 != cl.C8) {
		return fmt.Errorf("%w: N=%d merged to C2 %d, C4 %d, C8 %d; published: C2 %d, C4 %d, C8 %d (a shard result is wrong)",
			ErrPublished, n, c.C2, c.C4, c.C8, cl.C2, cl.C4, cl.C8)
	}
	return nil
}
