package checkpoint

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// The checkpoint encoding that puts the done set in after the JSON
// encoding gives the bytes of the plain one, for a large job (N=26: 15
// MiB), for strings that JSON escapes, and for a command line that holds
// the done set's mark; and it is the faster.
func TestEncodeCheckpointSplice(t *testing.T) {
	p, _ := plan.Known(plan.Normalize(nq.Spec{N: 26}))
	small := plan.Plan{N: 16, Algo: nq.Symmetry, Tasks: "fake", Batch: 256, Batches: 70, TaskCount: 17900, TaskSHA256: "fake"}
	for _, tt := range []struct {
		name string
		pl   plan.Plan
		args []string
	}{
		{"N=26", p, []string{"nqueens-gpu", "-n", "26"}},
		{"escaped strings", small, []string{"nqueens-gpu", "-checkpoint", "<a & b>\n\"c\"\u2028"}},
		{"the mark", small, []string{"nqueens-gpu", doneMark}},
		{"the mark quoted", small, []string{`"` + doneMark + `"`}},
	} {
		c := &State{}
		for _, i := range []int{0, 5, 63, 64, tt.pl.Batches - 1} {
			c.Done.Add(i)
		}
		c.Body = Body{Program: "nqueens-gpu", Version: "v", Job: tt.pl, Fingerprint: tt.pl.Fingerprint(),
			DoneBatches: 5, Partial: nq.Partial{1, 2, 3, 4}, Runs: 1, Command: tt.args}
		t0 := time.Now()
		got, err := Encode(c)
		fast := time.Since(t0)
		if err != nil {
			t.Fatal(err)
		}
		t0 = time.Now()
		want, _ := encodePlain(c)
		plain := time.Since(t0)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the encodings differ (%d and %d bytes)", tt.name, len(got), len(want))
		}
		path := filepath.Join(t.TempDir(), "ck")
		if err := os.WriteFile(path, got, 0o666); err != nil {
			t.Fatal(err)
		}
		if back, err := Load(path); err != nil || back.Done.Count() != 5 || back.Body.DoneBatches != 5 {
			t.Errorf("%s: read back: %v", tt.name, err)
		}
		t.Logf("%s: %d bytes in %v, plain %v", tt.name, len(got), fast, plain)
	}
}
