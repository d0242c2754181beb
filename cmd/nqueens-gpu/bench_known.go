package main

import (
	"fmt"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// What counts were checked against (report.Result.Verified).
const (
	verifiedClasses = "classes" // published Total, Unique and C2/C4/C8
	verifiedTotal   = "total"   // published Total and Unique
	verifiedNone    = ""        // nothing published (N=28)
)

// checkKnown compares c, the counts of n, with the published table. It
// returns what it could compare, and an error naming every number that
// differs. The solvers never read the table; bench and check do, after
// the fact.
func checkKnown(n int, c nq.Counts) (string, error) {
	e, ok := known.Lookup(n)
	if !ok {
		return verifiedNone, nil
	}
	var bad []string
	if c.Total() != e.Total {
		bad = append(bad, fmt.Sprintf("total %d, published %d", c.Total(), e.Total))
	}
	if c.Unique() != e.Unique {
		bad = append(bad, fmt.Sprintf("unique %d, published %d", c.Unique(), e.Unique))
	}
	verified := verifiedTotal
	if cls, ok := known.ClassTable[n]; ok {
		verified = verifiedClasses
		if c.C2 != cls.C2 || c.C4 != cls.C4 || c.C8 != cls.C8 {
			bad = append(bad, fmt.Sprintf("C2/C4/C8 %d/%d/%d, published %d/%d/%d", c.C2, c.C4, c.C8, cls.C2, cls.C4, cls.C8))
		}
	}
	if len(bad) > 0 {
		return verified, fmt.Errorf("N=%d: %s", n, strings.Join(bad, "; "))
	}
	return verified, nil
}
