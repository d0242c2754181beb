package tasks_test

import (
	"fmt"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// The digest counts what the enumeration emits, is the same on every call,
// and changes with anything that changes the task list or its batching.
func TestDigest(t *testing.T) {
	count := func(n int, k tasks.Kind, depth, batch int) (tasks int64, batches int) {
		t.Helper()
		err := tasksEnumerate(n, k, depth, batch, func(l int) { tasks += int64(l); batches++ })
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	seen := map[[32]byte]string{}
	for n := 6; n <= 12; n++ {
		for _, k := range []tasks.Kind{tasks.Plain, tasks.Half, tasks.Symmetry} {
			for _, batch := range []int{7, 256} {
				depth := tasks.DefaultDepth(n)
				d, err := tasks.DigestBoards(n, k, depth, batch)
				if err != nil {
					t.Fatal(err)
				}
				again, _ := tasks.DigestBoards(n, k, depth, batch)
				if again != d {
					t.Fatalf("N=%d %v: digest differs between calls", n, k)
				}
				wt, wb := count(n, k, depth, batch)
				if d.Tasks != wt || d.Batches != wb {
					t.Errorf("N=%d %v batch %d: digest counts %d tasks in %d batches, enumeration %d in %d",
						n, k, batch, d.Tasks, d.Batches, wt, wb)
				}
				name := fmt.Sprintf("N=%d %v batch %d", n, k, batch)
				if batch == 256 {
					// The hash covers the tasks; the batching is in Batches.
					if other, dup := seen[d.SHA256]; dup {
						t.Errorf("%s and %s have the same hash", name, other)
					}
					seen[d.SHA256] = name
				}
			}
		}
		f, err := tasks.DigestFrames(n, 256)
		if err != nil {
			t.Fatal(err)
		}
		var ft int64
		var fb int
		tasks.EnumerateFrames(n, 256, func(fr *tasks.Frames) error { ft += int64(fr.Len()); fb++; return nil })
		if f.Tasks != ft || f.Batches != fb {
			t.Errorf("N=%d frames: digest %d/%d, enumeration %d/%d", n, f.Tasks, f.Batches, ft, fb)
		}
		if other, dup := seen[f.SHA256]; dup {
			t.Errorf("N=%d frames and %s have the same hash", n, other)
		}
		seen[f.SHA256] = fmt.Sprintf("N=%d frames", n)
	}
	if _, err := tasks.DigestBoards(3, tasks.Symmetry, 2, 256); err == nil {
		t.Error("DigestBoards accepted N=3 symmetry boards")
	}
	if _, err := tasks.DigestFrames(4, 256); err == nil {
		t.Error("DigestFrames accepted N=4")
	}
}

func tasksEnumerate(n int, k tasks.Kind, depth, batch int, f func(l int)) error {
	return tasks.EnumerateBoards(n, k, depth, batch, func(b *tasks.Boards) error { f(b.Len()); return nil })
}

// BenchmarkDigest measures the cost of the enumeration pass that a job makes
// to number its batches and fingerprint its task list:
//
//	go test -run '^$' -bench Digest -benchtime 1x ./internal/tasks
func BenchmarkDigest(b *testing.B) {
	for n := 16; n <= 20; n++ {
		depth := tasks.DefaultDepth(n)
		b.Run(fmt.Sprintf("symmetry/N=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				d, err := tasks.DigestBoards(n, tasks.Symmetry, depth, 256)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(d.Tasks), "tasks")
			}
		})
		b.Run(fmt.Sprintf("carrychain/N=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				d, err := tasks.DigestFrames(n, 256)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(d.Tasks), "tasks")
			}
		})
	}
}
