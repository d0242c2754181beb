// Package progress reports how far a count has got, on stderr: a progress
// bar when stderr is a terminal, otherwise one status line per interval,
// fit for batch logs. Both say the same words:
//
//	N=24 symmetry: 12.5% (3259619 of 26076951 batches, 104307808 of 834462428 tasks), 2110 tasks/s, elapsed 13:43:50, left 4d 00:06:25
//
// the status line with the program's name in front; the bar
// (github.com/schollz/progressbar) draws its percentage and bar graph and
// then these words as its description, leaving out details until the
// line fits the terminal. Before the task list is known they say how many
// batches are done and how long it has run (the bar is then a spinner);
// the rate appears once a batch of this run has finished, the time left
// once the rate has been measured for a while (MinEstimate). With the task
// list known and an estimate of the count's time (Options.Estimate), the
// time left is said from the start, until the run has finished
// MinBatches batches, as that estimate's share of the tasks left:
//
//	N=26 eightfold: 0.0% (0 of 94846244 batches, 0 of 1517539883 tasks), no batch finished yet, elapsed 00:00:01, left about 4189d 22:56:58 (estimate)
//
// It reads a job.Status snapshot on a timer of its own, so the counting
// itself only updates the job's counters, which it does anyway.
package progress

import (
	"fmt"
	"io"
	"math"
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

// MinInterval is the shortest interval between status lines that a
// program should accept (-progress-interval): shorter ones flood a log
// without saying more.
const MinInterval = time.Second

// MinEstimate is how long a run must have counted before the time left
// is estimated from its rate.
const MinEstimate = 5 * time.Second

// MinBatches is how many batches a run must have finished before its
// rate replaces Options.Estimate for the time left: the first one may be
// an eightfold count's host batch, one task that says nothing of the
// others' speed.
const MinBatches = 4

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
	// Width is the width of the terminal in columns, to which the bar's
	// line is cut; nil asks the terminal W is, else 80.
	Width func() int
	// Estimate is the expected time of the whole count, if known (such
	// as estimate.CPUSeconds): the time left before a rate is measured.
	Estimate time.Duration
}

// Reporter shows the progress of one count until Stop.
type Reporter struct {
	o     Options
	mu    sync.Mutex // serialises writes to W
	bar   *progressbar.ProgressBar
	shape barShape // what bar was made for
	shown bool     // the bar is on the screen
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
	if o.Width == nil {
		o.Width = func() int {
			if f, ok := o.W.(*os.File); ok {
				if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
					return w
				}
			}
			return 80
		}
	}
	r := &Reporter{o: o, start: o.Now(), quit: make(chan struct{}), done: make(chan struct{})}
	go r.loop()
	return r
}

func (r *Reporter) loop() {
	defer close(r.done)
	tick := r.o.Interval
	if r.o.Bar {
		tick = barTick
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
				r.drawBar()
			} else {
				fmt.Fprintln(r.o.W, r.line(r.o.Status()))
			}
			r.mu.Unlock()
		}
	}
}

// barShape is what a progressbar.ProgressBar is made for: the tasks of
// the count (0 while they are listed: a spinner) and the cells of its
// bar graph. A new bar is made when either changes.
type barShape struct {
	total int64
	cells int
}

// The columns that schollz/progressbar adds to the description (its
// layout with the options of newBar): with a known total
// "\r  12% |" + cells + "|  " + description + " ", without one
// "\r| " + " " + description + " ".
const (
	barOverhead     = 11 // plus the cells
	spinnerOverhead = 4
)

// barCells is the width of the bar graph on a terminal of w columns: an
// eighth of it, 5 to 20 cells, so that the words keep most of the line.
func barCells(w int) int { return min(max(w/8, 5), 20) }

// writerOnly hides every method of a writer but Write (progressbar syncs
// an *os.File after each draw, which a terminal does not need).
type writerOnly struct{ w io.Writer }

func (w writerOnly) Write(p []byte) (int, error) { return w.w.Write(p) }

// newBar makes the bar for shape with the words text: only the percentage, the bar graph and
// the description, which holds the words; the library's own counts,
// rates and times are off, so that it shows what the status lines say.
func (r *Reporter) newBar(shape barShape, text string) *progressbar.ProgressBar {
	max := shape.total
	if max <= 0 {
		max = -1 // a spinner until the tasks are known
	}
	return progressbar.NewOptions64(max,
		progressbar.OptionSetWriter(writerOnly{r.o.W}),
		progressbar.OptionSetWidth(shape.cells),
		progressbar.OptionSetDescription(text),
		progressbar.OptionShowDescriptionAtLineEnd(),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionSetElapsedTime(false),
		// No timer of its own: it draws when drawBar asks.
		progressbar.OptionSetSpinnerChangeInterval(0),
	)
}

// drawBar redraws the bar once the count has run for the delay.
func (r *Reporter) drawBar() {
	if r.o.Now().Sub(r.start) < r.o.Delay {
		return
	}
	st := r.o.Status()
	w := r.o.Width()
	shape := barShape{total: max(st.TotalTasks, 0), cells: barCells(w)}
	// A line longer than the terminal would wrap, and the next redraw
	// would start a new line instead of replacing it: leave out what
	// matters least until it fits, and cut it if need be.
	room := w - 1 - spinnerOverhead
	if shape.total > 0 {
		room = w - 1 - barOverhead - shape.cells
	}
	var text string
	for _, d := range barDetails {
		if text = r.barText(st, d); len([]rune(text)) <= room {
			break
		}
	}
	if rs := []rune(text); len(rs) > room {
		text = string(rs[:max(room, 0)])
	}
	done := min(st.DoneTasks, shape.total)
	if r.bar == nil || shape != r.shape {
		// A new bar starts with its words and its count, so that its
		// first line is whole.
		r.clearBar()
		r.bar, r.shape = r.newBar(shape, text), shape
		if shape.total > 0 {
			r.bar.Set64(done)
		}
		r.bar.Describe(text)
	} else {
		// Describe draws the new words; Set64 draws again, with the
		// new graph, when the whole percentage changed.
		r.bar.Describe(text)
		if shape.total > 0 {
			r.bar.Set64(done)
		}
	}
	r.shown = true
}

// detail says which parts of the words to write.
type detail struct {
	tasks   bool // the tasks, the share of earlier runs, each device's batches
	rate    bool
	elapsed bool
}

// all is every detail: the status lines and a wide terminal's bar.
var all = detail{tasks: true, rate: true, elapsed: true}

// barDetails are the details of the bar's words from the most to the
// fewest: the first that fits the terminal is drawn.
var barDetails = []detail{
	all,
	{rate: true, elapsed: true},
	{elapsed: true},
	{},
}

// barText is the bar's description: the label and the words.
func (r *Reporter) barText(s job.Status, d detail) string {
	return r.o.Label + ": " + words(s, d, r.o.Estimate)
}

// line formats a status line.
func (r *Reporter) line(s job.Status) string {
	return r.o.Prefix + ": " + r.o.Label + ": " + words(s, all, r.o.Estimate)
}

// words says how far s has got, in the same words for the bar and the
// status lines, with the details d; est is Options.Estimate.
func words(s job.Status, d detail, est time.Duration) string {
	var b strings.Builder
	if s.TotalTasks <= 0 {
		fmt.Fprintf(&b, "listing the tasks, %d batches done", s.DoneBatches)
	} else {
		if !d.tasks {
			fmt.Fprintf(&b, "%.1f%% (%d of %d batches)", 100*float64(s.DoneTasks)/float64(s.TotalTasks), s.DoneBatches, s.TotalBatches)
		} else {
			fmt.Fprintf(&b, "%.1f%% (%d of %d batches, %d of %d tasks)", 100*float64(s.DoneTasks)/float64(s.TotalTasks),
				s.DoneBatches, s.TotalBatches, s.DoneTasks, s.TotalTasks)
		}
		if s.ResumedTasks > 0 && d.tasks {
			fmt.Fprintf(&b, ", %.1f%% from earlier runs", 100*float64(s.ResumedTasks)/float64(s.TotalTasks))
		}
	}
	run := s.DoneTasks - s.ResumedTasks
	secs := s.Elapsed.Seconds()
	switch {
	case !d.rate:
	case run > 0 && secs > 0:
		fmt.Fprintf(&b, ", %s tasks/s", rate(float64(run)/secs))
	default:
		b.WriteString(", no batch finished yet")
	}
	if d.elapsed {
		fmt.Fprintf(&b, ", elapsed %s", clock(s.Elapsed))
	}
	measured := run > 0 && s.Elapsed >= MinEstimate
	if est > 0 && s.DoneBatches-s.ResumedBatches < MinBatches {
		measured = false
	}
	switch {
	case s.TotalTasks > 0 && measured:
		left := float64(s.TotalTasks-s.DoneTasks) / (float64(run) / secs)
		fmt.Fprintf(&b, ", left %s", clockSeconds(left))
	case s.TotalTasks > 0 && est > 0:
		// Nothing measured yet: the estimate's share of the tasks
		// left, less what this run has spent on them.
		left := est.Seconds()*float64(s.TotalTasks-s.DoneTasks)/float64(s.TotalTasks) - secs
		fmt.Fprintf(&b, ", left about %s (estimate)", clockSeconds(left))
	}
	if len(s.Workers) > 1 && d.tasks {
		parts := make([]string, len(s.Workers))
		for i, w := range s.Workers {
			parts[i] = fmt.Sprintf("%s %d", w.Name, w.Batches)
		}
		fmt.Fprintf(&b, " [batches: %s]", strings.Join(parts, ", "))
	}
	return b.String()
}

// rate writes a rate with three significant digits and no exponent:
// "2110", "12.5", "0.318".
func rate(r float64) string {
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f", r)
	case r >= 10:
		return fmt.Sprintf("%.1f", r)
	case r >= 1:
		return fmt.Sprintf("%.2f", r)
	}
	return fmt.Sprintf("%.3g", r)
}

// clockSeconds is clock for sec seconds, which may be more than a
// time.Duration holds (292 years): the time left of a large N.
func clockSeconds(sec float64) string {
	if sec >= float64(math.MaxInt64/int64(time.Second)) {
		return clock(math.MaxInt64)
	}
	return clock(time.Duration(sec * float64(time.Second)))
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

// clearBar removes the bar from the screen.
func (r *Reporter) clearBar() {
	if r.shown {
		r.bar.Clear()
		r.shown = false
	}
}

// Warn writes msg as a line of its own, moving the bar out of the way.
func (r *Reporter) Warn(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearBar()
	fmt.Fprintln(r.o.W, msg)
}

// Stop ends the reports and removes the bar.
func (r *Reporter) Stop() {
	close(r.quit)
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearBar()
}
