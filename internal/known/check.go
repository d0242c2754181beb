package known

import (
	"fmt"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// What Check could compare a count with (report.Result.Verified).
const (
	VerifiedClasses = "classes" // published Total, Unique and C2/C4/C8
	VerifiedTotal   = "total"   // published Total and Unique
	VerifiedNone    = ""        // nothing published (N=28)
)

// Check compares c, the counts of n, with the published table, after the
// fact: the solvers never read the table. It returns what it could compare
// and an error naming every number that differs.
func Check(n int, c nq.Counts) (verified string, err error) {
	e, ok := Lookup(n)
	if !ok {
		return VerifiedNone, nil
	}
	var bad []string
	if c.Total() != e.Total {
		bad = append(bad, fmt.Sprintf("total %d, published %d", c.Total(), e.Total))
	}
	if c.Unique() != e.Unique {
		bad = append(bad, fmt.Sprintf("unique %d, published %d", c.Unique(), e.Unique))
	}
	verified = VerifiedTotal
	if cls, ok := ClassTable[n]; ok {
		verified = VerifiedClasses
		if c.C2 != cls.C2 || c.C4 != cls.C4 || c.C8 != cls.C8 {
			bad = append(bad, fmt.Sprintf("C2/C4/C8 %d/%d/%d, published %d/%d/%d", c.C2, c.C4, c.C8, cls.C2, cls.C4, cls.C8))
		}
	}
	if len(bad) > 0 {
		return verified, fmt.Errorf("N=%d: %s", n, strings.Join(bad, "; "))
	}
	return verified, nil
}
