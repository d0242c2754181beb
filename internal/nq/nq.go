// Package nq holds the types shared by every part of nqueens-gpu: the
// per-class solution counts, the supported board sizes and the algorithm
// names.
package nq

import (
	"fmt"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
)

// MinN and MaxN bound the board sizes the program accepts. N=28 is the first
// open case; every word and counter is sized for it.
const (
	MinN = 1
	MaxN = 28
)

// Counts holds the exact number of solutions of one N split by the size of
// their orbit under the 8 symmetries of the square. Only N=1 has an orbit of
// size 1; for N >= 4 every orbit has 2, 4 or 8 members.
type Counts struct {
	C1 uint64 // orbits of 1 (the single solution of N=1)
	C2 uint64 // COUNT2: invariant under a quarter turn
	C4 uint64 // COUNT4: invariant under a half turn but not a quarter turn
	C8 uint64 // COUNT8: no rotational symmetry
}

// Total is the number of all solutions.
func (c Counts) Total() uint64 { return c.C1 + 2*c.C2 + 4*c.C4 + 8*c.C8 }

// Unique is the number of solutions up to rotation and reflection.
func (c Counts) Unique() uint64 { return c.C1 + c.C2 + c.C4 + c.C8 }

// Add adds o to c.
func (c *Counts) Add(o Counts) {
	c.C1 += o.C1
	c.C2 += o.C2
	c.C4 += o.C4
	c.C8 += o.C8
}

// String formats the counts for test failures and logs.
func (c Counts) String() string {
	return fmt.Sprintf("total=%d unique=%d c2=%d c4=%d c8=%d", c.Total(), c.Unique(), c.C2, c.C4, c.C8)
}

// CountsJSON is the counts as the program's JSON documents write them:
// Total and Unique, then the orbit classes. Documents embed it, so that its
// fields appear in their place.
type CountsJSON struct {
	Total  uint64 `json:"total"`
	Unique uint64 `json:"unique"`
	Count1 uint64 `json:"count1"`
	Count2 uint64 `json:"count2"`
	Count4 uint64 `json:"count4"`
	Count8 uint64 `json:"count8"`
}

// JSON returns c as the JSON documents write it.
func (c Counts) JSON() CountsJSON {
	return CountsJSON{c.Total(), c.Unique(), c.C1, c.C2, c.C4, c.C8}
}

// Counts returns the classes of j; Total and Unique follow from them.
func (j CountsJSON) Counts() Counts {
	return Counts{C1: j.Count1, C2: j.Count2, C4: j.Count4, C8: j.Count8}
}

// CheckN returns an error unless MinN <= n <= MaxN.
func CheckN(n int) error {
	if n < MinN || n > MaxN {
		return fmt.Errorf("N=%d is out of range: N must be between %d and %d", n, MinN, MaxN)
	}
	return nil
}

// Algo names a counting algorithm.
type Algo string

// The algorithms, from the plainest to the fastest on a CPU.
const (
	Backtrack  Algo = "backtrack"  // placement flags, one queen per row
	Bitmap     Algo = "bitmap"     // bitmap backtracking, canonical-form check per solution
	Mirror     Algo = "mirror"     // bitmap with the row-0 mirror halving
	Symmetry   Algo = "symmetry"   // corner / non-corner symmetry elimination on partial boards
	CarryChain Algo = "carrychain" // outer frame pre-placed, inner bitmap search
	// Eightfold counts Total over canonical border pre-placements
	// weighted by their orbit size, and the classes by Burnside's lemma
	// from the solutions fixed by the half and the quarter turn.
	Eightfold Algo = "eightfold"
)

// Algos lists every algorithm in a stable order.
func Algos() []Algo { return []Algo{Backtrack, Bitmap, Mirror, Symmetry, CarryChain, Eightfold} }

// ParseAlgo returns the algorithm named s.
func ParseAlgo(s string) (Algo, error) {
	for _, a := range Algos() {
		if string(a) == s {
			return a, nil
		}
	}
	names := make([]string, 0, len(Algos()))
	for _, a := range Algos() {
		names = append(names, string(a))
	}
	return "", fmt.Errorf("unknown algorithm %s: want one of %s", clip.Quote(s, clip.Max), strings.Join(names, ", "))
}

// Partial holds the raw per-class sums that an algorithm's batches report,
// indexed by orbit size: [0] for 1, [1] for 2, [2] for 4, [3] for 8. What a
// sum means depends on the algorithm (see Reduce), but it is the same on
// every backend, so partial sums from different batches, runs, backends or
// shards of one job can be added and reduced once.
type Partial [4]uint64

// Add adds o to p.
func (p *Partial) Add(o Partial) {
	for i := range p {
		p[i] += o[i]
	}
}

// Reduce turns the summed partials of every batch of one N into counts.
//
//   - backtrack, bitmap, symmetry: each canonical solution adds 1 to its
//     class, so the sums are the counts.
//   - mirror: each solution in the half board adds 1 to its class, and an
//     orbit of k has k/2 members there: COUNT4 = sum/2, COUNT8 = sum/4.
//   - carrychain: each completion of a frame adds the frame's weight
//     8/|stabiliser| to its class: COUNTk = sum/k.
//   - eightfold: [3] is Total (each completion of a border pre-placement
//     adds its weight), [2] and [1] the solutions fixed by the half and
//     the quarter turn (the job's host batch), and FromBurnside gives the
//     classes; [0] is the single solution of N=1.
//
// A sum that does not divide exactly (batches missing or repeated) is an
// error.
func Reduce(algo Algo, p Partial) (Counts, error) {
	if algo == Eightfold {
		c, err := FromBurnside(p[3], p[2], p[1])
		if err != nil {
			return Counts{}, fmt.Errorf("%s: %w: batches missing or repeated", algo, err)
		}
		c.C1 = p[0]
		return c, nil
	}
	div := divisors(algo)
	var q [4]uint64
	for i := range p {
		if p[i]%div[i] != 0 {
			return Counts{}, fmt.Errorf("%s: partial sum %d of orbit class %d is not a multiple of %d: batches missing or repeated", algo, p[i], 1<<i, div[i])
		}
		q[i] = p[i] / div[i]
	}
	return Counts{C1: q[0], C2: q[1], C4: q[2], C8: q[3]}, nil
}

// divisors are what Reduce divides each partial sum of algo by.
func divisors(algo Algo) [4]uint64 {
	switch algo {
	case Mirror:
		return [4]uint64{1, 1, 2, 4}
	case CarryChain:
		return [4]uint64{1, 2, 4, 8}
	}
	return [4]uint64{1, 1, 1, 1}
}

// PartialOf turns counts into the partial sums that algo's batches would
// report for them, the inverse of Reduce: what a count found by another
// search (a whole board) adds to a job of algo.
func PartialOf(algo Algo, c Counts) Partial {
	if algo == Eightfold {
		s90 := 2 * c.C2
		s180 := s90 + 4*c.C4
		return Partial{c.C1, s90, s180, s180 + 8*c.C8}
	}
	div := divisors(algo)
	return Partial{c.C1 * div[0], c.C2 * div[1], c.C4 * div[2], c.C8 * div[3]}
}
