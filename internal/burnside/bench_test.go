package burnside

import (
	"context"
	"fmt"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// BenchmarkSymmetric times Symmetric for N = 20..28 and logs the counts,
// with the classes that the published Total gives where there is one. One
// run of N=28 takes about 15 s on two cores: pick the sizes with -bench,
// e.g.
//
//	go test ./internal/burnside -run '^$' -bench 'Symmetric/N=2[0-7]$' -benchtime 1x -v
func BenchmarkSymmetric(b *testing.B) {
	for n := 20; n <= nq.MaxN; n++ {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			var s90, s180 uint64
			for b.Loop() {
				var err error
				s90, s180, err = Symmetric(context.Background(), n)
				if err != nil {
					b.Fatal(err)
				}
			}
			msg := fmt.Sprintf("N=%d: S90=%d S180=%d", n, s90, s180)
			if e, ok := known.Lookup(n); ok {
				c, err := nq.FromBurnside(e.Total, s180, s90)
				if err != nil {
					b.Fatalf("%s: %v", msg, err)
				}
				msg += fmt.Sprintf("; with the published Total: %v (published Unique %d)", c, e.Unique)
			}
			b.Log(msg)
		})
	}
}
