package plan

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

func TestParseShard(t *testing.T) {
	good := map[string]Shard{"0/1": {0, 1}, "0/4": {0, 4}, "3/4": {3, 4}, "12/1000": {12, 1000}}
	for s, want := range good {
		if got, err := ParseShard(s); err != nil || got != want {
			t.Errorf("%q: %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "1", "4/4", "5/4", "-1/4", "0/0", "a/b", "1/", "/4", "0/4/5", "0x1/4", "+1/4", "0/9999999999", "0/2000000"} {
		if _, err := ParseShard(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
	for _, tt := range []struct{ sh, total, want int }{{0, 0, 0}, {0, 1, 1}, {1, 1, 0}, {3, 10, 2}, {1, 10, 3}, {0, 12, 3}} {
		if got := (Shard{tt.sh, 4}).Batches(tt.total); got != tt.want {
			t.Errorf("shard %d/4 of %d: %d, want %d", tt.sh, tt.total, got, tt.want)
		}
	}
}

func TestShowDiff(t *testing.T) {
	for _, tt := range []struct{ a, b, want string }{
		{"2353c709ab67", "2353c709ab99", "…09ab67 and …09ab99, which differ from character 11"},
		{"f2074387d7b0d08c6960df33ae5b", "f2074387d7b0d08c6960df33ae5c", "…3ae5b and …3ae5c, which differ from character 28"},
		{"abcdef0123456789", "bbcdef0123456789", "abcdef01… and bbcdef01…, which differ from character 1"},
		{"abc", "abcd", "abc and abcd, which differ from character 4"},
		{"", "x", `"" and x, which differ from character 1`},
	} {
		if got := ShowDiff(tt.a, tt.b); got != tt.want {
			t.Errorf("ShowDiff(%q, %q) = %q, want %q", tt.a, tt.b, got, tt.want)
		}
	}
}

// The recorded plans are Make's (N=20 to 22 here, in seconds; set
// NQ_KNOWN_PLANS=1 for all, about 4 minutes of one core), and a task list
// that differs from its record is refused.
func TestKnownPlansRecorded(t *testing.T) {
	maxN := 22
	if os.Getenv("NQ_KNOWN_PLANS") == "1" {
		maxN = 28
	} else if testing.Short() {
		maxN = 20
	}
	for _, p := range knownPlans {
		if p.N > maxN {
			continue
		}
		got, err := Make(nq.Spec{N: p.N, Algo: p.Algo, Depth: p.Depth, Batch: p.Batch})
		if err != nil || got != p {
			t.Errorf("N=%d: Make %+v, %v; recorded %+v", p.N, got, err, p)
		}
		if k, ok := Known(Normalize(nq.Spec{N: p.N, Algo: p.Algo})); !ok || k != p {
			t.Errorf("N=%d: Known of the default spec: %+v, %v", p.N, k, ok)
		}
	}
	p, _ := Known(Normalize(nq.Spec{N: 20}))
	p.TaskCount++
	if err := Verify(context.Background(), Normalize(nq.Spec{N: 20}), p); err == nil || !strings.Contains(err.Error(), "not the recorded one") {
		t.Errorf("a wrong record: %v", err)
	}
}
