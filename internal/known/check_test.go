package known

import (
	"strings"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		n        int
		c        nq.Counts
		verified string
		msg      string // "" for no error
	}{
		{8, nq.Counts{C4: 1, C8: 11}, VerifiedClasses, ""},
		{8, nq.Counts{C4: 2, C8: 11}, VerifiedClasses, "N=8: total 96, published 92; unique 13, published 12; C2/C4/C8 0/2/11, published 0/1/11"},
		{8, nq.Counts{C2: 2, C4: 0, C8: 11}, VerifiedClasses, "C2/C4/C8 2/0/11"},
		{20, nq.Counts{C8: 1}, VerifiedTotal, "total 8, published 39029188884"},
		{28, nq.Counts{C8: 1}, VerifiedNone, ""},
	}
	for _, tt := range tests {
		v, err := Check(tt.n, tt.c)
		if v != tt.verified || (err == nil) != (tt.msg == "") || err != nil && !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Check(%d, %v) = %q, %v; want %q and %q", tt.n, tt.c, v, err, tt.verified, tt.msg)
		}
	}
}
