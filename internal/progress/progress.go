// Package progress reports how far a count has got, on stderr: a progress
// bar (schollz/progressbar) when stderr is a terminal, otherwise one status
// line per interval, fit for batch logs.
//
// It reads a job.Status snapshot on a timer of its own, so the counting
// itself only updates the job's counters, which it does anyway.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
)

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Options configure a Reporter.
type Options struct {
	W      io.Writer
	Prefix string // the program name that starts each status line
	Label  string // what is counted, such as "N=18 symmetry"
	// Bar selects the progress bar; otherwise status lines are written
	// every Interval.
	Bar      bool
	Interval time.Duration
	// Delay is how long a count runs before the bar appears, so that
	// short counts draw none; 0 means one second.
	Delay  time.Duration
	Status func() job.Status
	Now    func() time.Time // nil: time.Now
}

// Reporter shows the progress of one count until Stop.
type Reporter struct {
	o     Options
	mu    sync.Mutex // serialises writes to W
	bar   *progressbar.ProgressBar
	gate  *gate
	start time.Time
	quit  chan struct{}
	done  chan struct{}
}

// barTick is how often the bar is redrawn.
const barTick = 200 * time.Millisecond

// Start starts reporting.
func Start(o Options) *Reporter {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Delay <= 0 {
		o.Delay = time.Second
	}
	if o.Interval <= 0 {
		o.Interval = 30 * time.Second
	}
	r := &Reporter{o: o, start: o.Now(), quit: make(chan struct{}), done: make(chan struct{})}
	go r.loop()
	return r
}

func (r *Reporter) loop() {
	defer close(r.done)
	tick := r.o.Interval
	if r.o.Bar {
		// Until the bar exists (the plan is known), look often: the
		// bar should start from the beginning of the count.
		tick = barTick / 10
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-r.quit:
			return
		case <-t.C:
			r.mu.Lock()
			if r.o.Bar {
				if r.drawBar() {
					t.Reset(barTick)
				}
			} else {
				fmt.Fprintln(r.o.W, r.line(r.o.Status()))
			}
			r.mu.Unlock()
		}
	}
}

// gate passes writes to w once open: the bar is fed from the start of a
// count, so that its rate and ETA are right when it appears, but shows
// only after the delay.
type gate struct {
	w    io.Writer
	open bool
}

func (g *gate) Write(p []byte) (int, error) {
	if !g.open {
		return len(p), nil
	}
	return g.w.Write(p)
}

// drawBar updates the bar, creating it when the plan is known. It reports
// whether the bar was created.
func (r *Reporter) drawBar() (created bool) {
	s := r.o.Status()
	if r.bar == nil {
		if s.TotalTasks == 0 {
			return false // the plan is not known yet
		}
		desc := r.o.Label
		if s.ResumedTasks > 0 {
			desc += fmt.Sprintf(" (resumed at %.1f%%)", 100*float64(s.ResumedTasks)/float64(s.TotalTasks))
		}
		// The bar covers the work of this run, so that its rate and
		// ETA are this run's.
		max := s.TotalTasks - s.ResumedTasks
		if max <= 0 {
			return false
		}
		created = true
		r.gate = &gate{w: r.o.W}
		r.bar = progressbar.NewOptions64(max,
			progressbar.OptionSetWriter(r.gate),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("tasks"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
		)
	}
	r.gate.open = r.o.Now().Sub(r.start) >= r.o.Delay
	r.bar.Set64(s.DoneTasks - s.ResumedTasks)
	return created
}

// line formats a status line.
func (r *Reporter) line(s job.Status) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s: ", r.o.Prefix, r.o.Label)
	if s.TotalTasks > 0 {
		fmt.Fprintf(&b, "%.1f%% (%d of %d batches, %d of %d tasks)", 100*float64(s.DoneTasks)/float64(s.TotalTasks),
			s.DoneBatches, s.TotalBatches, s.DoneTasks, s.TotalTasks)
	} else {
		fmt.Fprintf(&b, "%d batches done", s.DoneBatches)
	}
	run := s.DoneTasks - s.ResumedTasks
	if secs := s.Elapsed.Seconds(); secs > 0 {
		rate := float64(run) / secs
		fmt.Fprintf(&b, ", %.0f tasks/s, elapsed %s", rate, clock(s.Elapsed))
		if s.TotalTasks > 0 && rate > 0 {
			left := time.Duration(float64(s.TotalTasks-s.DoneTasks) / rate * float64(time.Second))
			fmt.Fprintf(&b, ", ETA %s", clock(left))
		}
	}
	if len(s.Workers) > 1 {
		parts := make([]string, len(s.Workers))
		for i, w := range s.Workers {
			parts[i] = fmt.Sprintf("%s %d", w.Name, w.Batches)
		}
		fmt.Fprintf(&b, " [batches: %s]", strings.Join(parts, ", "))
	}
	return b.String()
}

// clock writes d as [Nd ]hh:mm:ss.
func clock(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	sec := int64(d / time.Second)
	s := fmt.Sprintf("%02d:%02d:%02d", sec/3600%24, sec/60%60, sec%60)
	if days := sec / 86400; days > 0 {
		s = fmt.Sprintf("%dd %s", days, s)
	}
	return s
}

// Warn writes msg as a line of its own, moving the bar out of the way.
func (r *Reporter) Warn(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bar != nil && r.gate.open {
		r.bar.Clear()
	}
	fmt.Fprintln(r.o.W, msg)
}

// Stop ends the reports and removes the bar.
func (r *Reporter) Stop() {
	close(r.quit)
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bar != nil && r.gate.open {
		r.bar.Clear()
	}
	r.bar = nil
}
