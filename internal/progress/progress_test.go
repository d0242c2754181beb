package progress

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/estimate"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
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

// The status line says every word at every stage of a count: before the
// task list is known, before the first batch, before the time left can
// be estimated, and after; the widest bar says the same but the
// percentage, which the bar draws.
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
			"25.0% (250 of 1000 batches, 64000 of 256000 tasks), 12.5% from earlier runs, 400 tasks/s, elapsed 00:01:20, left 8 minutes"},
		{"slow", job.Status{DoneBatches: 3, TotalBatches: 5000000, DoneTasks: 3, TotalTasks: 5000000, Elapsed: 10 * time.Second},
			"0.0% (3 of 5000000 batches, 3 of 5000000 tasks), 0.3 tasks/s, elapsed 00:00:10, left 190 days"},
		{"almost done", job.Status{DoneBatches: 9996, TotalBatches: 10000, DoneTasks: 9996, TotalTasks: 10000, Elapsed: 9996 * time.Second},
			"99.9% (9996 of 10000 batches, 9996 of 10000 tasks), 1.00 tasks/s, elapsed 02:46:36, left 4 seconds"},
		{"done", job.Status{DoneBatches: 10, TotalBatches: 10, DoneTasks: 10, TotalTasks: 10, Elapsed: 10 * time.Second},
			"100.0% (10 of 10 batches, 10 of 10 tasks), 1.00 tasks/s, elapsed 00:00:10, left under a second"},
		{"several devices", job.Status{DoneBatches: 250, TotalBatches: 1000, DoneTasks: 250, TotalTasks: 1000, Elapsed: 10 * time.Second,
			Workers: []job.WorkerStatus{{Name: "gpu0", Batches: 200}, {Name: "cpu", Batches: 50}}},
			"25.0% (250 of 1000 batches, 250 of 1000 tasks), 25.0 tasks/s, elapsed 00:00:10, left 30 seconds [batches: gpu0 200, cpu 50]"},
		// N=28 at one task in 6 s: 656 years, more than a Duration holds.
		{"longer than a Duration", job.Status{DoneBatches: 1, TotalBatches: 108145970, DoneTasks: 1, TotalTasks: 3460670980, Elapsed: 6 * time.Second},
			"0.0% (1 of 108145970 batches, 1 of 3460670980 tasks), 0.167 tasks/s, elapsed 00:00:06, left 660 years"},
	}
	for _, tt := range tests {
		if got := r.line(tt.st); got != "nqueens-gpu: N=24 symmetry: "+tt.want {
			t.Errorf("%s: line\n%q, want\n%q", tt.name, got, "nqueens-gpu: N=24 symmetry: "+tt.want)
		}
		// The widest bar: the words without the percentage.
		p := r.parts(tt.st)
		want := "N=24 symmetry: " + tt.want
		if p.percent != "" {
			want = strings.Replace(strings.Replace(want, p.percent+" (", "", 1), "), ", ", ", 1)
		}
		if got := r.barText(tt.st, barShape{total: tt.st.TotalTasks, cells: 20}, 1000); got != want {
			t.Errorf("%s: bar\n%q, want\n%q", tt.name, got, want)
		}
		// The fewest words: the time left alone.
		if got := p.join(barDetails[len(barDetails)-1]); got != strings.TrimSuffix(p.left, " (estimate)") {
			t.Errorf("%s: the shortest bar says %q", tt.name, got)
		}
	}
	if got := clock(49*time.Hour + 61*time.Second); got != "2d 01:01:01" {
		t.Errorf("clock %q", got)
	}
}

// The percentage is rounded down: 100.0% only when all is done, as the
// bar's whole percentage is.
func TestPercent(t *testing.T) {
	for _, tt := range []struct {
		done, total int64
		want        string
	}{
		{0, 22719, "0.0%"}, {189, 22719, "0.8%"}, {1, 3, "33.3%"}, {2, 3, "66.6%"},
		{9999, 10000, "99.9%"}, {22718, 22719, "99.9%"}, {22719, 22719, "100.0%"},
	} {
		if got := percent(tt.done, tt.total); got != tt.want {
			t.Errorf("percent(%d, %d) = %q, want %q", tt.done, tt.total, got, tt.want)
		}
	}
}

// With an expected time of the count, the time left is said from the
// start of a count whose task list is known, as an estimate, until a rate
// is measured; a resumed count's estimate is its share of the tasks left.
func TestWordsEstimate(t *testing.T) {
	r := &Reporter{o: Options{Prefix: "nqueens-gpu", Label: "N=26 eightfold", Expected: 1000 * 3600}}
	tests := []struct {
		name string
		st   job.Status
		want string
	}{
		{"at the start", job.Status{TotalBatches: 94846244, TotalTasks: 1517539883, Elapsed: 2 * time.Second},
			"0.0% (0 of 94846244 batches, 0 of 1517539883 tasks), no batch finished yet, elapsed 00:00:02, left about 42 days (estimate)"},
		{"resumed, half done", job.Status{DoneBatches: 500, ResumedBatches: 500, TotalBatches: 1000, DoneTasks: 500, ResumedTasks: 500, TotalTasks: 1000, Elapsed: time.Hour},
			"50.0% (500 of 1000 batches, 500 of 1000 tasks), 50.0% from earlier runs, no batch finished yet, elapsed 01:00:00, left about 21 days (estimate)"},
		{"the host batch alone", job.Status{DoneBatches: 1, TotalBatches: 94846244, DoneTasks: 1, TotalTasks: 1517539883, Elapsed: 6 * time.Second},
			"0.0% (1 of 94846244 batches, 1 of 1517539883 tasks), 0.167 tasks/s, elapsed 00:00:06, left about 42 days (estimate)"},
		{"too few batches", job.Status{DoneBatches: 3, TotalBatches: 5000000, DoneTasks: 3, TotalTasks: 5000000, Elapsed: 10 * time.Second},
			"0.0% (3 of 5000000 batches, 3 of 5000000 tasks), 0.3 tasks/s, elapsed 00:00:10, left about 42 days (estimate)"},
		{"measured", job.Status{DoneBatches: 4, TotalBatches: 5000000, DoneTasks: 4, TotalTasks: 5000000, Elapsed: 10 * time.Second},
			"0.0% (4 of 5000000 batches, 4 of 5000000 tasks), 0.4 tasks/s, elapsed 00:00:10, left 140 days"},
		{"listing the tasks", job.Status{Elapsed: 3 * time.Second},
			"listing the tasks, 0 batches done, no batch finished yet, elapsed 00:00:03"},
	}
	for _, tt := range tests {
		if got := r.line(tt.st); got != "nqueens-gpu: N=26 eightfold: "+tt.want {
			t.Errorf("%s: line\n%q, want\n%q", tt.name, got, "nqueens-gpu: N=26 eightfold: "+tt.want)
		}
	}
}

// The estimate of a count, the fallback line's and the progress line's,
// is one: at N=28 on two CPU workers both say 810 years, which is more
// than a Duration holds.
func TestOneEstimate(t *testing.T) {
	sec := estimate.CPUSeconds(28, nq.Eightfold, 2)
	fallback := "expect about " + estimate.Text(sec)
	r := &Reporter{o: Options{Label: "N=28 eightfold", Expected: sec}}
	st := job.Status{TotalBatches: 108145970, TotalTasks: 3460670980, Elapsed: time.Second}
	if fallback != "expect about 810 years" || !strings.HasSuffix(r.line(st), ", left about 810 years (estimate)") {
		t.Errorf("the fallback line says %q, the progress line %q", fallback, r.line(st))
	}
}

// The bar's line fits the terminal, with its time left, at 80 and at 40
// columns, and it shows one percentage: the bar's.
func TestBarWidth(t *testing.T) {
	st := job.Status{DoneBatches: 189, TotalBatches: 22719, DoneTasks: 189 * 16, TotalTasks: 22719 * 16, Elapsed: 40 * time.Second}
	sec := estimate.CPUSeconds(19, nq.Eightfold, 2)
	tests := []struct {
		name     string
		expected float64
		st       job.Status
		width    int
		want     string
	}{
		{"80, measured", 0, st, 80, "   0% |          |  N=19 eightfold: 189 of 22719 batches, left 79 minutes"},
		{"40, measured", 0, st, 40, "   0% |     |  left 79 minutes"},
		{"80, estimate", sec, job.Status{TotalBatches: 22719, TotalTasks: 22719 * 16, Elapsed: time.Second}, 80,
			"   0% |          |  0 of 22719 batches, left about 3.6 minutes (estimate)"},
		{"40, estimate", sec, job.Status{TotalBatches: 22719, TotalTasks: 22719 * 16, Elapsed: time.Second}, 40,
			"   0% |     |  left about 3.6 minutes"},
		{"80, almost done", 0, job.Status{DoneBatches: 22718, TotalBatches: 22719, DoneTasks: 22718 * 16, TotalTasks: 22719 * 16, Elapsed: time.Hour}, 80,
			"  99% |█████████ |  22718 of 22719 batches, left under a second"},
		{"200, almost done", 0, job.Status{DoneBatches: 22718, TotalBatches: 22719, DoneTasks: 22718 * 16, TotalTasks: 22719 * 16, Elapsed: time.Hour}, 200,
			"  99% |███████████████████ |  N=19 eightfold: 22718 of 22719 batches, 363488 of 363504 tasks, 101 tasks/s, elapsed 01:00:00, left under a second"},
		{"40, listing", 0, job.Status{DoneBatches: 3, DoneTasks: 3, Elapsed: 2 * time.Second}, 40,
			"|  listing the tasks, 3 batches done"},
	}
	for _, tt := range tests {
		var out syncBuffer
		width := tt.width
		r := Start(Options{W: &out, Label: "N=19 eightfold", Bar: true, Delay: time.Millisecond, Expected: tt.expected,
			Status: func() job.Status { return tt.st }, Width: func() int { return width }})
		time.Sleep(barTick + barTick/2)
		r.Stop()
		d := draws(out.String())
		if len(d) == 0 || d[0] != tt.want {
			t.Errorf("%s: drew %q, want %q", tt.name, d, tt.want)
		}
		for _, l := range d {
			if n := len([]rune(l)); n >= tt.width {
				t.Errorf("%s: a line of %d columns on %d: %q", tt.name, n, tt.width, l)
			}
			if strings.Count(l, "%") > 1 {
				t.Errorf("%s: two percentages in %q", tt.name, l)
			}
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
		"  10% |█         |  N=17 symmetry: 1 of 10 batches, elapsed 00:00:01",
	}
	for _, w := range want {
		if !containsLine(d, w) {
			t.Errorf("no line %q in\n%q", w, d)
		}
	}
	// 200 columns: a graph of 20 cells and every word
	wide := regexp.MustCompile(`^ +\d+% \|█+ *\|  N=17 symmetry: \d+ of 10 batches, \d+ of 1000 tasks, \d+ tasks/s, elapsed 00:00:01$`)
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
		if n := len([]rune(l)); n > 199 || n > 79 && strings.Contains(l, " 1 of 10 batches") {
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
