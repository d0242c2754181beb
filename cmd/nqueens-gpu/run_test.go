package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

func TestSolverError(t *testing.T) {
	env := noCUDA()
	env.solveErr = errors.New("worker failed\nbadly")
	r := runFake(env, "-n", "5-7")
	if r.code != exitRuntime {
		t.Errorf("exit %d, want %d", r.code, exitRuntime)
	}
	if r.stderr != `nqueens-gpu: N=5: worker failed\nbadly`+"\n" {
		t.Errorf("stderr %q", r.stderr)
	}
	if len(env.cpuCalls) != 1 {
		t.Errorf("%d solver calls after the error, want 1", len(env.cpuCalls))
	}
}

func TestInterrupt(t *testing.T) {
	// Cancelled while N=6 is being counted.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := noCUDA()
	var calls []int
	env.cpuCount = func(ctx context.Context, spec nq.Spec, sel func(int) bool, done func([]int, nq.Partial)) error {
		calls = append(calls, spec.N)
		if spec.N == 6 {
			cancel()
			return ctx.Err()
		}
		fakeBatch(spec.N, spec.Algo, sel, done)
		return nil
	}
	h := env.hooks()
	var out, errOut bytes.Buffer
	code := runWith(ctx, []string{"-n", "4-8", "-algo", "symmetry"}, &out, &errOut, h)
	if code != exitInterrupted {
		t.Errorf("exit %d, want %d", code, exitInterrupted)
	}
	if errOut.String() != "nqueens-gpu: interrupted while counting N=6\n"+
		"nqueens-gpu: nothing was saved; a count of one N with -checkpoint can be resumed (-n 6 -checkpoint n6.ckpt)\n" {
		t.Errorf("stderr %q", errOut.String())
	}
	if got := lines(out.String()); len(got) != 3 || !strings.HasPrefix(got[2], " 5:") {
		t.Errorf("stdout %q, want the header and the rows of N=4 and 5", out.String())
	}
	if len(calls) != 3 {
		t.Errorf("solver called for %v", calls)
	}

	// Cancelled before the first count.
	r := runCtx(ctx, noCUDA(), "-n", "4-8", "-json")
	if r.code != exitInterrupted || r.stdout != "" || r.stderr != "nqueens-gpu: interrupted before N=4\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteError(t *testing.T) {
	for _, args := range [][]string{{"-n", "4"}, {"-n", "4", "-json"}, {"-n", "4", "-print"}} {
		var errOut bytes.Buffer
		code := runWith(context.Background(), args, failWriter{}, &errOut, noCUDA().hooks())
		if code != exitRuntime || errOut.String() != "nqueens-gpu: writing output: disk full\n" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut.String())
		}
	}
}
