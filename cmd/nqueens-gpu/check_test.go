package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
)

func runCheckFake(f *solverFake, args ...string) cmdResult {
	var out, errb bytes.Buffer
	code := runCheckWith(context.Background(), args, &out, &errb, f.hooks())
	return cmdResult{code, out.String(), errb.String()}
}

// tableRow returns the output line of the agreement table for n, split
// into fields.
func tableRow(t *testing.T, out string, n int) []string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && f[0] == strconv.Itoa(n) {
			return f
		}
	}
	t.Fatalf("no table row for N=%d in:\n%s", n, out)
	return nil
}

// sameTotalsOtherClasses keeps Total and Unique but moves solutions
// between the classes: +2 C2, -3 C4, +1 C8.
func sameTotalsOtherClasses(c nq.Counts) nq.Counts {
	c.C2 += 2
	c.C4 -= 3
	c.C8++
	return c
}

// synthetic18 has the published Total and Unique of N=18 with C2 = 0;
// the split of N=18 is not in the table, so check must go by the vote.
func synthetic18() nq.Counts {
	e, _ := known.Lookup(18)
	c4 := (8*e.Unique - e.Total) / 4
	return nq.Counts{C4: c4, C8: e.Unique - c4}
}

func TestCheckAllAgree(t *testing.T) {
	f := &solverFake{}
	r := runCheckFake(f, "-n", "1-14")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
	head := strings.Fields(strings.SplitN(r.stdout, "\n", 2)[0])
	if strings.Join(head, " ") != "N published Total cpu eightfold cpu symmetry cpu bitmap verdict" {
		t.Errorf("header %q", head)
	}
	if got := tableRow(t, r.stdout, 13); strings.Join(got, " ") != "13 73712 73712 73712 73712 OK" {
		t.Errorf("N=13 row %q", got)
	}
	if got := tableRow(t, r.stdout, 14); strings.Join(got, " ") != "14 365596 365596 365596 - OK" {
		t.Errorf("N=14 row %q (bitmap runs only up to N=13)", got)
	}
	if !strings.Contains(r.stdout, "check passed: N=1-14, 3 columns, all agree") {
		t.Errorf("no pass line:\n%s", r.stdout)
	}
	// 14 N x eightfold and symmetry, 13 N x bitmap, less the boards too
	// small to split, which the job counts itself: N=1..3, and N=4 for
	// eightfold.
	if len(f.calls) != 14*2+13-3*3-1 {
		t.Errorf("%d counts: %v", len(f.calls), f.calls)
	}
}

func TestCheckMismatch(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		wrong  func(backend string, algo nq.Algo, n, call int) (nq.Counts, bool)
		fail   func(backend string, algo nq.Algo, n int) error
		badN   int
		row    string // the fields of the failing row
		detail string
	}{
		{
			name: "total off the table",
			args: []string{"-n", "8-10"},
			wrong: func(b string, a nq.Algo, n, _ int) (nq.Counts, bool) {
				if a == nq.Symmetry && n == 9 {
					c := publishedCounts(9)
					c.C8++
					return c, true
				}
				return nq.Counts{}, false
			},
			badN:   9,
			row:    "9 352 352 360* 352 MISMATCH",
			detail: "cpu symmetry   total=360 unique=47 c2=0 c4=4 c8=43  <- differs",
		},
		{
			name: "same Total and Unique, other classes",
			args: []string{"-n", "12"},
			wrong: func(b string, a nq.Algo, n, _ int) (nq.Counts, bool) {
				if a == nq.Eightfold {
					return sameTotalsOtherClasses(publishedCounts(n)), true
				}
				return nq.Counts{}, false
			},
			badN:   12,
			row:    "12 14200 14200* 14200 14200 MISMATCH",
			detail: "cpu eightfold  total=14200 unique=1787 c2=6 c4=15 c8=1766  <- differs",
		},
		{
			name: "every algorithm agrees, the table does not",
			args: []string{"-n", "11", "-algo", "symmetry"},
			wrong: func(string, nq.Algo, int, int) (nq.Counts, bool) {
				return nq.Counts{C8: 1}, true
			},
			badN:   11,
			row:    "11 2680 8* MISMATCH",
			detail: "published     total=2680 unique=341 c2=0 c4=12 c8=329",
		},
		{
			name: "no published classes: the odd one out",
			args: []string{"-n", "18", "-algo", "symmetry,carrychain,mirror"},
			wrong: func(b string, a nq.Algo, n, _ int) (nq.Counts, bool) {
				if a == nq.Mirror {
					return sameTotalsOtherClasses(synthetic18()), true
				}
				return synthetic18(), true
			},
			badN:   18,
			row:    "18 666090624 666090624 666090624 666090624* MISMATCH",
			detail: "cpu mirror      total=666090624 unique=83263591 c2=2 c4=4523 c8=83259066  <- differs",
		},
		{
			name: "a count fails",
			args: []string{"-n", "6-7"},
			fail: func(b string, a nq.Algo, n int) error {
				if a == nq.Bitmap && n == 7 {
					return errors.New("fake: out of memory")
				}
				return nil
			},
			badN:   7,
			row:    "7 40 40 40 ERROR MISMATCH",
			detail: "cpu bitmap     error: fake: out of memory",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &solverFake{wrong: tc.wrong, fail: tc.fail}
			r := runCheckFake(f, tc.args...)
			bad := strconv.Itoa(tc.badN)
			wantFailure(t, r, exitRuntime, "check failed: the counts disagree at N="+bad)
			if got := strings.Join(tableRow(t, r.stdout, tc.badN), " "); got != tc.row {
				t.Errorf("row %q, want %q", got, tc.row)
			}
			if !strings.Contains(r.stdout, "MISMATCH at N="+bad+":") || !strings.Contains(r.stdout, tc.detail) {
				t.Errorf("the explanation lacks %q:\n%s", tc.detail, r.stdout)
			}
			if !strings.Contains(r.stdout, "check FAILED") {
				t.Errorf("no failure line:\n%s", r.stdout)
			}
		})
	}
}

func TestCheckGPU(t *testing.T) {
	f := oneFakeGPU()
	r := runCheckFake(f, "-n", "9-10", "-device", "cpu,0")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	head := strings.Fields(strings.SplitN(r.stdout, "\n", 2)[0])
	if strings.Join(head, " ") != "N published Total cpu eightfold cpu symmetry gpu0 eightfold gpu0 symmetry cpu bitmap verdict" {
		t.Errorf("header %q", head)
	}
	if f.closed != 1 {
		t.Errorf("GPU closed %d times", f.closed)
	}

	f = oneFakeGPU()
	f.wrong = func(b string, a nq.Algo, n, _ int) (nq.Counts, bool) {
		if b == "gpu0" && a == nq.Symmetry && n == 13 {
			return sameTotalsOtherClasses(publishedCounts(13)), true
		}
		return nq.Counts{}, false
	}
	r = runCheckFake(f, "-n", "13", "-device", "0", "-json")
	if r.code != exitRuntime {
		t.Fatalf("exit %d, want 1", r.code)
	}
	var doc report.CheckDocument
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("-json: %v\n%s", err, r.stdout)
	}
	if doc.OK || len(doc.Rows) != 1 || doc.Rows[0].OK || doc.Schema != report.CheckSchema {
		t.Fatalf("document %+v", doc)
	}
	cells := doc.Rows[0].Cells
	if len(cells) != 3 || cells[0].Label != "gpu0 eightfold" || !cells[0].Agrees || cells[1].Label != "gpu0 symmetry" || cells[1].Agrees || cells[2].Label != "cpu bitmap" || !cells[2].Agrees {
		t.Errorf("cells %+v", cells)
	}
	if cells[1].Counts == nil || cells[1].Counts.Count2 != 6 || doc.Rows[0].Known == nil || doc.Rows[0].Known.Classes.Count2 != 4 {
		t.Errorf("counts in the document: %+v, known %+v", cells[1].Counts, doc.Rows[0].Known)
	}
	if len(doc.Env.GPUs) != 1 || doc.Env.GPUs[0].Name != "Fake H100" {
		t.Errorf("env %+v", doc.Env)
	}

	wantFailure(t, runCheckFake(oneFakeGPU(), "-n", "8", "-device", "0", "-algo", "bitmap"), exitUsage, "no GPU kernel")
}

func TestCheckOutputFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "check.json")
	f := &solverFake{wrong: func(b string, a nq.Algo, n, _ int) (nq.Counts, bool) {
		if a == nq.Bitmap && n == 5 {
			return nq.Counts{C2: 1, C8: 2}, true
		}
		return nq.Counts{}, false
	}}
	r := runCheckFake(f, "-n", "4-6", "-o", out)
	if r.code != exitRuntime || !strings.Contains(r.stdout, "MISMATCH at N=5") {
		t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc report.CheckDocument
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OK || len(doc.Rows) != 3 || !doc.Rows[0].OK || doc.Rows[1].OK || doc.Env.GoVersion == "" {
		t.Errorf("document %+v", doc)
	}
}

func TestCheckFallback(t *testing.T) {
	r := runCheckFake(noGPUFake(), "-n", "8", "-device", "0")
	if r.code != 0 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "counting on the CPU") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "cpu symmetry (gpu0 fallback)") || !strings.Contains(r.stdout, "Note: -device 0 ran on the CPU, not on a GPU") {
		t.Errorf("the fallback is not visible in the table:\n%s", r.stdout)
	}
}

func TestCheckUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{nil, "missing -n"},
		{[]string{"-n", "29"}, "invalid -n"},
		{[]string{"-n", "4-x"}, "invalid -n"},
		{[]string{"-n", "8", "-device", "cpu,0,cpu"}, "listed twice"},
		{[]string{"-n", "8", "-algo", "nope"}, "unknown algorithm"},
		{[]string{"-n", "8", "-workers", "-2"}, "invalid -workers"},
		{[]string{"-n", "8", "9"}, "unexpected argument"},
		{[]string{"-n", "8", "-gpu-threads", "0"}, "invalid -gpu-threads 0"},
		{[]string{"-n", "3", "-depth", "2"}, "no depth applies to N=3"},
	} {
		f := &solverFake{}
		r := runCheckFake(f, tc.args...)
		wantFailure(t, r, exitUsage, tc.msg)
		if len(f.calls) != 0 || r.stdout != "" {
			t.Errorf("%v: counted %v, stdout %q", tc.args, f.calls, r.stdout)
		}
	}
	if r := runCheckFake(&solverFake{}, "-h"); r.code != 0 || !strings.Contains(r.stdout, "nqueens-gpu check -n N|A-B") {
		t.Errorf("-h: %d %q", r.code, r.stdout)
	}
}

func TestCheckInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := runCheckWith(ctx, []string{"-n", "8"}, &out, &errb, (&solverFake{}).hooks())
	if code != exitInterrupted {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}
