package progress

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
)

// syncBuffer is a bytes.Buffer safe for the reporter's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestLine(t *testing.T) {
	r := &Reporter{o: Options{Prefix: "nqueens-gpu", Label: "N=18 symmetry"}}
	st := job.Status{DoneBatches: 250, TotalBatches: 1000, DoneTasks: 64000, TotalTasks: 256000,
		ResumedTasks: 32000, Elapsed: 80 * time.Second}
	want := "nqueens-gpu: N=18 symmetry: 25.0% (250 of 1000 batches, 64000 of 256000 tasks), 400 tasks/s, elapsed 00:01:20, ETA 00:08:00"
	if got := r.line(st); got != want {
		t.Errorf("line\n%q, want\n%q", got, want)
	}
	st.Workers = []job.WorkerStatus{{Name: "gpu0", Batches: 200}, {Name: "cpu", Batches: 50}}
	if got := r.line(st); !strings.HasSuffix(got, " [batches: gpu0 200, cpu 50]") {
		t.Errorf("line with workers %q", got)
	}
	if got := r.line(job.Status{DoneBatches: 3}); got != "nqueens-gpu: N=18 symmetry: 3 batches done" {
		t.Errorf("line before the plan %q", got)
	}
	if got := clock(49*time.Hour + 61*time.Second); got != "2d 01:01:01" {
		t.Errorf("clock %q", got)
	}
}

func TestLinesEveryInterval(t *testing.T) {
	var out syncBuffer
	var mu sync.Mutex
	done := 0
	status := func() job.Status {
		mu.Lock()
		defer mu.Unlock()
		done++
		return job.Status{DoneBatches: done, TotalBatches: 100, DoneTasks: int64(done), TotalTasks: 100, Elapsed: time.Second}
	}
	r := Start(Options{W: &out, Prefix: "p", Label: "N=9", Interval: 20 * time.Millisecond, Status: status})
	time.Sleep(110 * time.Millisecond)
	r.Warn("p: a warning")
	r.Stop()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "p: N=9: 1.0% (1 of 100 batches") {
		t.Errorf("output %q", out.String())
	}
	if !strings.Contains(out.String(), "p: a warning\n") {
		t.Errorf("no warning in %q", out.String())
	}
	n := len(out.String())
	time.Sleep(50 * time.Millisecond)
	if len(out.String()) != n {
		t.Error("lines after Stop")
	}
}

func TestBar(t *testing.T) {
	var out syncBuffer
	var mu sync.Mutex
	var tasks int64
	status := func() job.Status {
		mu.Lock()
		defer mu.Unlock()
		tasks += 100
		if tasks > 1000 {
			tasks = 1000
		}
		return job.Status{DoneTasks: tasks, TotalTasks: 1000, ResumedTasks: 0}
	}
	r := Start(Options{W: &out, Label: "N=17", Bar: true, Delay: time.Millisecond, Status: status})
	time.Sleep(3 * barTick)
	r.Stop()
	s := out.String()
	if !strings.Contains(s, "N=17") || !strings.Contains(s, "/1000") || !strings.Contains(s, "tasks") {
		t.Errorf("bar output %q", s)
	}
	if !strings.HasSuffix(s, "\r") {
		t.Errorf("the bar was not cleared: %q", s[max(0, len(s)-40):])
	}

	// A count shorter than the delay draws nothing.
	var quiet syncBuffer
	r = Start(Options{W: &quiet, Label: "N=8", Bar: true, Delay: time.Hour, Status: status})
	time.Sleep(2 * barTick)
	r.Stop()
	if quiet.String() != "" {
		t.Errorf("short count drew %q", quiet.String())
	}
}
