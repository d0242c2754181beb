package tasks_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// The eightfold task listing stops soon after its context is cancelled:
// inside the borders' orientation (seconds at N=28, before the first
// task) and, once the tasks come, before the next border's.
func TestEightfoldListingStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	t0 := time.Now()
	_, err := tasks.DigestEightfoldContext(ctx, 28, tasks.DefaultSplit(28), 32)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("N=28 digest: %v, want context.Canceled", err)
	}
	if d := time.Since(t0); d > time.Second {
		t.Errorf("N=28 digest returned %v after its start, cancelled at 100 ms", d)
	}

	n, split := 20, tasks.DefaultSplit(20)
	all, err := tasks.DigestEightfold(n, split, 16)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	var after int64
	err = tasks.EnumerateEightfoldContext(ctx, n, split, 16, func(e *tasks.Eightfold) error {
		if ctx.Err() != nil {
			after += int64(e.Len())
		}
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("N=%d listing: %v, want context.Canceled", n, err)
	}
	// One border has at most a few thousand tasks at N=20.
	if after > all.Tasks/100 {
		t.Errorf("N=%d listing: %d of %d tasks listed after the cancellation", n, after, all.Tasks)
	}
}

// The boards' and frames' digests stop within a batch.
func TestBoardDigestsStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tasks.DigestBoardsContext(ctx, 20, tasks.Symmetry, 8, 256); !errors.Is(err, context.Canceled) {
		t.Errorf("boards digest: %v, want context.Canceled", err)
	}
	if _, err := tasks.DigestFramesContext(ctx, 20, 256); !errors.Is(err, context.Canceled) {
		t.Errorf("frames digest: %v, want context.Canceled", err)
	}
}
