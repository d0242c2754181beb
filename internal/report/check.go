package report

import (
	"fmt"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// CheckSchema versions the JSON document of `nqueens-gpu check`. v1.1
// added the program's version (env.version).
const CheckSchema = "nqueens-gpu-check/v1.1"

// CheckDocument is what `nqueens-gpu check -json` writes: the columns
// (backend and algorithm pairs) and, per N, every column's counts and the
// verdict.
type CheckDocument struct {
	Header
	Columns []CheckColumn `json:"columns"`
	Rows    []CheckRow    `json:"rows"`
	OK      bool          `json:"ok"`
}

// CheckColumn is one backend and algorithm of the agreement table.
type CheckColumn struct {
	Label      string `json:"label"`
	Backend    string `json:"backend"`
	Device     string `json:"device"`
	DeviceName string `json:"device_name,omitempty"`
	Requested  string `json:"requested_device"`
	Fallback   string `json:"fallback,omitempty"`
	Algo       string `json:"algo"`
	// MaxN is the largest N it runs for; 0 means every N.
	MaxN int `json:"max_n,omitempty"`
}

// CheckCell is one column's result for one N.
type CheckCell struct {
	Label   string         `json:"label"`
	Counts  *nq.CountsJSON `json:"counts,omitempty"`
	Seconds float64        `json:"seconds"`
	Error   string         `json:"error,omitempty"`
	// Agrees says whether the counts equal the row's reference (see
	// CheckRow.Judge).
	Agrees bool `json:"agrees"`
	// Ran says whether the column ran for this N, Got what it counted.
	Ran bool      `json:"-"`
	Got nq.Counts `json:"-"`
}

// SetCounts records what the cell's column counted.
func (c *CheckCell) SetCounts(got nq.Counts) {
	c.Got = got
	j := got.JSON()
	c.Counts = &j
}

// CheckRow is one N of the agreement table.
type CheckRow struct {
	N int `json:"n"`
	// Known is the published Total and Unique, with C2/C4/C8 where they
	// are published.
	Known  *KnownCounts `json:"known,omitempty"`
	Cells  []CheckCell  `json:"results"`
	OK     bool         `json:"ok"`
	Reason string       `json:"reason,omitempty"`
}

// KnownCounts is the published row of an N.
type KnownCounts struct {
	Total   uint64        `json:"total"`
	Unique  uint64        `json:"unique"`
	Classes *KnownClasses `json:"classes,omitempty"`
}

// KnownClasses is the published C2/C4/C8 split (N=4..17).
type KnownClasses struct {
	Count2 uint64 `json:"count2"`
	Count4 uint64 `json:"count4"`
	Count8 uint64 `json:"count8"`
}

// Judge decides whether the row agrees. The reference is the published
// counts where all five numbers are published; otherwise the counts most
// columns report (the first column's among equals), which must also match
// the published Total and Unique where there are some. Every column that
// ran must equal the reference; a column that failed fails the row.
func (r *CheckRow) Judge() {
	var ref *nq.Counts
	if e, ok := known.Lookup(r.N); ok {
		r.Known = &KnownCounts{Total: e.Total, Unique: e.Unique}
		if cls, ok := known.ClassTable[r.N]; ok {
			r.Known.Classes = &KnownClasses{cls.C2, cls.C4, cls.C8}
			ref = &nq.Counts{C2: cls.C2, C4: cls.C4, C8: cls.C8}
		}
	}
	if ref == nil {
		votes := map[nq.Counts]int{}
		best := -1
		for i, c := range r.Cells {
			if c.Ran && c.Error == "" {
				votes[c.Got]++
				if best < 0 || votes[c.Got] > votes[r.Cells[best].Got] {
					best = i
				}
			}
		}
		if best >= 0 {
			c := r.Cells[best].Got
			ref = &c
		}
	}
	r.OK = true
	var reasons []string
	if ref != nil && r.Known != nil && (ref.Total() != r.Known.Total || ref.Unique() != r.Known.Unique) {
		r.OK = false
		reasons = append(reasons, fmt.Sprintf("published total=%d unique=%d", r.Known.Total, r.Known.Unique))
	}
	ran := 0
	for i := range r.Cells {
		c := &r.Cells[i]
		if !c.Ran {
			continue
		}
		ran++
		switch {
		case c.Error != "":
			r.OK = false
			reasons = append(reasons, c.Label+" failed")
		case ref != nil && c.Got == *ref && (r.Known == nil || (c.Got.Total() == r.Known.Total && c.Got.Unique() == r.Known.Unique)):
			c.Agrees = true
		default:
			r.OK = false
			reasons = append(reasons, c.Label+" differs")
		}
	}
	if ran == 0 {
		r.OK = false
		reasons = append(reasons, "nothing ran")
	}
	r.Reason = strings.Join(reasons, "; ")
}
