package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// boardHeader matches the line above each board.
var boardHeader = regexp.MustCompile(`(?m)^N=\d+ (board|class) \d+ of \d+: \[[0-9 ]+\]`)

// gridStart matches the end of such a line and the top rule of its grid.
var gridStart = regexp.MustCompile(`\]( \(\d+ boards? in its class\))?\n\+-`)

func TestPrintCounts(t *testing.T) {
	tests := []struct {
		args   []string
		boards int
	}{
		{[]string{"-n", "4", "-print"}, 2},
		{[]string{"-n", "4", "-print", "-unique"}, 1},
		{[]string{"-n", "8", "-print", "-unique"}, 12},
		{[]string{"-n", "8", "-print"}, 92}, // under the default cap of 100
		{[]string{"-n", "8", "-print", "-max-boards", "5"}, 5},
		{[]string{"-n", "10", "-print"}, 100},
		{[]string{"-n", "10", "-print", "-max-boards", "0"}, 724},
		{[]string{"-n", "1-6", "-print"}, 1 + 2 + 10 + 4},
		{[]string{"-n", "1-7", "-print", "-unique", "-v"}, 1 + 1 + 2 + 1 + 6},
		{[]string{"-n", "2-3", "-print"}, 0},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := runFake(noCUDA(), tt.args...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			if got := len(boardHeader.FindAllString(r.stdout, -1)); got != tt.boards {
				t.Errorf("%d boards, want %d:\n%s", got, tt.boards, r.stdout)
			}
			if got := len(gridStart.FindAllString(r.stdout, -1)); got != tt.boards {
				t.Errorf("%d grids drawn, want %d", got, tt.boards)
			}
		})
	}
}

func TestPrintCap(t *testing.T) {
	r := runFake(noCUDA(), "-n", "8", "-print", "-max-boards", "5")
	if !strings.Contains(r.stdout, "N=8 board 5 of 92:") || strings.Contains(r.stdout, "board 6 of") {
		t.Errorf("the cap of 5 boards is not respected:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "\n... and 87 more (use -max-boards 0 to print them all)\n") {
		t.Errorf("no note about the 87 boards left out:\n%s", r.stdout)
	}
	// The table row still shows the solver's counts.
	if !regexp.MustCompile(`(?m)^ 8: +92 +12 +00:00:01\.500$`).MatchString(r.stdout) {
		t.Errorf("the row of N=8 is wrong:\n%s", r.stdout)
	}
	r = runFake(noCUDA(), "-n", "2", "-print")
	if !strings.Contains(r.stdout, "\nN=2: no solutions\n") {
		t.Errorf("N=2:\n%s", r.stdout)
	}
}

// TestPrintOrientation checks the drawing of one board: row 0 at the top,
// column 0 at the left, and the column list in row order.
func TestPrintOrientation(t *testing.T) {
	r := runFake(noCUDA(), "-n", "4", "-print")
	want := `N=4 board 1 of 2: [1 3 0 2]
+-+-+-+-+
| |Q| | |
+-+-+-+-+
| | | |Q|
+-+-+-+-+
|Q| | | |
+-+-+-+-+
| | |Q| |
+-+-+-+-+
`
	if !strings.Contains(r.stdout, want) {
		t.Errorf("output lacks\n%s\ngot\n%s", want, r.stdout)
	}
	r = runFake(noCUDA(), "-n", "1", "-print", "-unique")
	if !strings.Contains(r.stdout, "N=1 class 1 of 1: [0] (1 board in its class)\n+-+\n|Q|\n+-+\n") {
		t.Errorf("N=1:\n%s", r.stdout)
	}
}

// TestPrintUniqueRepresentatives checks that -unique shows the smallest
// column list of each class and its class size.
func TestPrintUniqueRepresentatives(t *testing.T) {
	r := runFake(noCUDA(), "-n", "6", "-print", "-unique")
	if !strings.Contains(r.stdout, "N=6 class 1 of 1: [1 3 5 0 2 4] (4 boards in its class)\n") {
		t.Errorf("N=6:\n%s", r.stdout)
	}
	r = runFake(noCUDA(), "-n", "8", "-print", "-unique")
	reps := boardHeader.FindAllString(r.stdout, -1)
	if len(reps) != 12 || !strings.HasSuffix(reps[0], "[0 4 7 5 2 6 1 3]") {
		t.Fatalf("N=8 representatives %q", reps)
	}
	if n := strings.Count(r.stdout, "(8 boards in its class)"); n != 11 {
		t.Errorf("%d classes of 8, want 11", n)
	}
	if n := strings.Count(r.stdout, "(4 boards in its class)"); n != 1 {
		t.Errorf("%d classes of 4, want 1", n)
	}
}

// TestPrintMismatch checks that boards that disagree with the solver are
// reported as an error rather than shown as if all were well.
func TestPrintMismatch(t *testing.T) {
	env := noCUDA()
	env.cpuCount = func(ctx context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) error {
		done([]int{0}, nq.Partial{0, 0, 0, 1})
		return nil
	}
	h := env.hooks()
	var out, errOut bytes.Buffer
	code := runWith(context.Background(), []string{"-n", "4", "-algo", "symmetry", "-print"}, &out, &errOut, h)
	if code != exitRuntime || strings.Count(errOut.String(), "\n") != 1 ||
		!strings.Contains(errOut.String(), "N=4: the solver counted") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
	if strings.Contains(out.String(), "|Q|") {
		t.Errorf("boards printed despite the mismatch:\n%s", out.String())
	}
}
