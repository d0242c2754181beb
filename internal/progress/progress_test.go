package progress

import (
	"bytes"
	"regexp"
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

// The status line and the bar say the same words at every stage of a
// count: before the task list is known, before the first batch, before
// the time left can be estimated, and after.
func TestWords(t *testing.T) {
	r := &Reporter{o: Options{Prefix: "nqueens-gpu", Label: "N=24 symmetry"}}
	tests := []struct {
		name string
		st   job.Status
		want string
	}{
		{"listing the tasks", job.Status{DoneBatches: 2, DoneTasks: 64, Elapsed: 30 * time.Second},
			"listing the tasks, 2 batches done, 2.13 tasks/s, elapsed 00:00:30"},
		{"nothing yet", job.Status{TotalBatches: 26076951, TotalTasks: 834462428, Elapsed: 50 * time.Second},
			"0.0% (0 of 26076951 batches, 0 of 834462428 tasks), no batch finished yet, elapsed 00:00:50"},
		{"too early for the time left", job.Status{DoneBatches: 1, TotalBatches: 16, DoneTasks: 256, TotalTasks: 4096, Elapsed: 2 * time.Second},
			"6.2% (1 of 16 batches, 256 of 4096 tasks), 128 tasks/s, elapsed 00:00:02"},
		{"running", job.Status{DoneBatches: 250, TotalBatches: 1000, DoneTasks: 64000, TotalTasks: 256000, ResumedTasks: 32000, Elapsed: 80 * time.Second},
			"25.0% (250 of 1000 batches, 64000 of 256000 tasks), 12.5% from earlier runs, 400 tasks/s, elapsed 00:01:20, left 00:08:00"},
		{"slow", job.Status{DoneBatches: 3, TotalBatches: 5000000, DoneTasks: 3, TotalTasks: 5000000, Elapsed: 10 * time.Second},
			"0.0% (3 of 5000000 batches, 3 of 5000000 tasks), 0.3 tasks/s, elapsed 00:00:10, left 192d 21:37:36"},
		{"several devices", job.Status{DoneBatches: 250, TotalBatches: 1000, DoneTasks: 250, TotalTasks: 1000, Elapsed: 10 * time.Second,
			Workers: []job.WorkerStatus{{Name: "gpu0", Batches: 200}, {Name: "cpu", Batches: 50}}},
			"25.0% (250 of 1000 batches, 250 of 1000 tasks), 25.0 tasks/s, elapsed 00:00:10, left 00:00:30 [batches: gpu0 200, cpu 50]"},
	}
	for _, tt := range tests {
		if got := r.line(tt.st); got != "nqueens-gpu: N=24 symmetry: "+tt.want {
			t.Errorf("%s: line\n%q, want\n%q", tt.name, got, "nqueens-gpu: N=24 symmetry: "+tt.want)
		}
		bar := r.barText(tt.st, all)
		if !strings.HasPrefix(bar, "N=24 symmetry: ") || !strings.HasSuffix(bar, tt.want) {
			t.Errorf("%s: bar %q", tt.name, bar)
		}
		for i := 1; i < len(barDetails); i++ {
			if shorter := r.barText(tt.st, barDetails[i]); len(shorter) > len(r.barText(tt.st, barDetails[i-1])) {
				t.Errorf("%s: bar %d is longer than bar %d: %q", tt.name, i, i-1, shorter)
			}
		}
	}
	// A time left beyond what a time.Duration holds (N=28 at one task in
	// 6 s: 656 years) is not written as 00:00:00 but as the most it holds.
	slow := job.Status{DoneBatches: 1, TotalBatches: 108145970, DoneTasks: 1, TotalTasks: 3460670980, Elapsed: 6 * time.Second}
	if got := r.line(slow); !strings.HasSuffix(got, ", left 106751d 23:47:16") {
		t.Errorf("a time left of 656 years: %q", got)
	}
	if got := clock(49*time.Hour + 61*time.Second); got != "2d 01:01:01" {
		t.Errorf("clock %q", got)
	}
}

// With an estimate of the count's time, the time left is said from the
// start of a count whose task list is known, as an estimate, until a rate
// is measured; a resumed count's estimate is its share of the tasks left.
func TestWordsEstimate(t *testing.T) {
	r := &Reporter{o: Options{Prefix: "nqueens-gpu", Label: "N=26 eightfold", Estimate: 1000 * time.Hour}}
	tests := []struct {
		name string
		st   job.Status
		want string
	}{
		{"at the start", job.Status{TotalBatches: 94846244, TotalTasks: 1517539883, Elapsed: 2 * time.Second},
			"0.0% (0 of 94846244 batches, 0 of 1517539883 tasks), no batch finished yet, elapsed 00:00:02, left about 41d 15:59:58 (estimate)"},
		{"resumed, half done", job.Status{DoneBatches: 500, ResumedBatches: 500, TotalBatches: 1000, DoneTasks: 500, ResumedTasks: 500, TotalTasks: 1000, Elapsed: time.Hour},
			"50.0% (500 of 1000 batches, 500 of 1000 tasks), 50.0% from earlier runs, no batch finished yet, elapsed 01:00:00, left about 20d 19:00:00 (estimate)"},
		{"the host batch alone", job.Status{DoneBatches: 1, TotalBatches: 94846244, DoneTasks: 1, TotalTasks: 1517539883, Elapsed: 6 * time.Second},
			"0.0% (1 of 94846244 batches, 1 of 1517539883 tasks), 0.167 tasks/s, elapsed 00:00:06, left about 41d 15:59:53 (estimate)"},
		{"too few batches", job.Status{DoneBatches: 3, TotalBatches: 5000000, DoneTasks: 3, TotalTasks: 5000000, Elapsed: 10 * time.Second},
			"0.0% (3 of 5000000 batches, 3 of 5000000 tasks), 0.3 tasks/s, elapsed 00:00:10, left about 41d 15:59:47 (estimate)"},
		{"measured", job.Status{DoneBatches: 4, TotalBatches: 5000000, DoneTasks: 4, TotalTasks: 5000000, Elapsed: 10 * time.Second},
			"0.0% (4 of 5000000 batches, 4 of 5000000 tasks), 0.4 tasks/s, elapsed 00:00:10, left 144d 16:13:10"},
		{"listing the tasks", job.Status{Elapsed: 3 * time.Second},
			"listing the tasks, 0 batches done, no batch finished yet, elapsed 00:00:03"},
	}
	for _, tt := range tests {
		if got := r.line(tt.st); got != "nqueens-gpu: N=26 eightfold: "+tt.want {
			t.Errorf("%s: line\n%q, want\n%q", tt.name, got, "nqueens-gpu: N=26 eightfold: "+tt.want)
		}
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

// draws splits the bar's output into the lines drawn (from one carriage
// return to the next), each without the blanks that pad it.
func draws(s string) []string {
	var out []string
	for _, d := range strings.Split(s, "\r") {
		if d = strings.TrimRight(d, " "); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// The bar (schollz/progressbar) shows its percentage and bar graph and
// then the words of the status line, fewer of them on a narrow terminal;
// no line is wider than the terminal; a spinner stands in for the graph
// while the tasks are listed; warnings move it out of the way; Stop
// clears it.
func TestBar(t *testing.T) {
	var out syncBuffer
	var mu sync.Mutex
	var tasks int64 = -100 // the first snapshot: the tasks are not known yet
	status := func() job.Status {
		mu.Lock()
		defer mu.Unlock()
		if tasks < 0 {
			tasks = 0
			return job.Status{DoneBatches: 0, Elapsed: time.Second}
		}
		tasks += 100
		if tasks > 1000 {
			tasks = 1000
		}
		return job.Status{DoneBatches: int(tasks / 100), TotalBatches: 10, DoneTasks: tasks, TotalTasks: 1000, Elapsed: time.Second}
	}
	width := 80
	r := Start(Options{W: &out, Label: "N=17 symmetry", Bar: true, Delay: time.Millisecond, Status: status,
		Width: func() int { mu.Lock(); defer mu.Unlock(); return width }})
	time.Sleep(3*barTick + barTick/2)
	r.Warn("p: a warning")
	mu.Lock()
	width = 200
	mu.Unlock()
	time.Sleep(2 * barTick)
	r.Stop()
	s := out.String()
	d := draws(s)
	want := []string{
		// the spinner, before the tasks are known
		"|  N=17 symmetry: listing the tasks, 0 batches done, elapsed 00:00:01",
		// 80 columns: a graph of 10 cells and the words that fit
		"  10% |█         |  N=17 symmetry: 10.0% (1 of 10 batches), elapsed 00:00:01",
	}
	for _, w := range want {
		if !containsLine(d, w) {
			t.Errorf("no line %q in\n%q", w, d)
		}
	}
	// 200 columns: a graph of 20 cells and every word
	wide := regexp.MustCompile(`^ +\d+% \|█+ *\|  N=17 symmetry: \d+\.0% \(\d+ of 10 batches, \d+ of 1000 tasks\), \d+ tasks/s, elapsed 00:00:01$`)
	found := false
	for _, l := range d {
		if wide.MatchString(l) && strings.Count(l, "█")+strings.Count(l, " ") >= 20 {
			found = true
		}
	}
	if !found {
		t.Errorf("no wide line in %q", d)
	}
	if !strings.Contains(s, "p: a warning\n") {
		t.Errorf("no warning in %q", s)
	}
	for _, l := range strings.Split(strings.ReplaceAll(s, "\n", "\r"), "\r") {
		if n := len([]rune(l)); n > 199 || n > 79 && strings.Contains(l, "(1 of 10 batches)") {
			t.Errorf("a line of %d columns: %q", n, l)
		}
	}
	if !strings.HasSuffix(s, "\r") || strings.TrimSpace(s[strings.LastIndex(s[:len(s)-1], "\r"):]) != "" {
		t.Errorf("the bar was not cleared: %q", s[max(0, len(s)-60):])
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

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}
