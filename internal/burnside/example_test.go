package burnside_test

import (
	"context"
	"fmt"

	"github.com/nqueens-gpu/nqueens-gpu/internal/burnside"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// The classes of N=12 from its Total, which a full search counts, and the
// two symmetric counts.
func ExampleSymmetric() {
	const n, total = 12, 14200 // total: from a full search
	s90, s180, err := burnside.Symmetric(context.Background(), n)
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := nq.FromBurnside(total, s180, s90)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("S90=%d S180=%d\n", s90, s180)
	fmt.Printf("COUNT2=%d COUNT4=%d COUNT8=%d Unique=%d\n", c.C2, c.C4, c.C8, c.Unique())
	// Output:
	// S90=8 S180=80
	// COUNT2=4 COUNT4=18 COUNT8=1765 Unique=1787
}
