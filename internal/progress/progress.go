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

	"github.com/nqueens-gpu/nqueens-gpu/internal/estimate"
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

// DefaultInterval is the interval between status lines unless one is
// asked for.
const DefaultInterval = 30 * time.Second

// MinEstimate is how long a run must have counted before the time left
// is estimated from its rate.
const MinEstimate = 5 * time.Second

// MinBatches is how many batches a run must have finished before its
// rate replaces Options.Expected for the time left: the first one may be
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
	// Width is the width of the terminal in columns, which the bar's
	// line fits; nil asks the terminal W is, else 80.
	Width func() int
	// Expected is the expected time of the whole count in seconds, if
	// known (estimate.CPUSeconds, a shard's share of it): the time left
	// before a rate is measured. It holds any time, unlike a Duration.
	Expected float64
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
		o.Interval = DefaultInterval
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
	text := r.barText(st, shape, w)
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

// barText is the bar's words for st on a terminal of w columns with a
// bar of shape. A line longer than the terminal would wrap, and the next
// redraw would start a new line instead of replacing it: it leaves out
// what matters least until the line fits, and cuts it if need be.
func (r *Reporter) barText(st job.Status, shape barShape, w int) string {
	room := w - 1 - spinnerOverhead
	if shape.total > 0 {
		room = w - 1 - barOverhead - shape.cells
	}
	p := r.parts(st)
	var text string
	for _, d := range barDetails {
		if text = p.join(d); len([]rune(text)) <= room {
			return text
		}
	}
	return string([]rune(text)[:max(room, 0)])
}

// parts are the pieces of the words about one status, each "" where it
// has nothing to say.
type parts struct {
	label    string // Options.Label
	percent  string // "25.0%"
	batches  string // "250 of 1000 batches", "listing the tasks, 2 batches done"
	tasks    string // "64000 of 256000 tasks"
	resumed  string // "12.5% from earlier runs"
	rate     string // "400 tasks/s", "no batch finished yet"
	elapsed  string // "elapsed 00:01:20"
	left     string // "left 8 minutes", "left about 41 days"
	estimate bool   // left is Options.Expected's, not measured
	workers  string // "[batches: gpu0 200, cpu 50]"
}

// detail says which parts to write; the time left is always written.
type detail struct {
	label, percent, batches bool
	tasks                   bool // the tasks, the share of earlier runs, each device's batches
	rate, elapsed           bool
	note                    bool // "(estimate)" after an estimated time left
}

// all is every detail: the status lines.
var all = detail{label: true, percent: true, batches: true, tasks: true, rate: true, elapsed: true, note: true}

// barDetails are the details of the bar's words in the order they are
// tried, the first that fits the terminal drawn: the tasks, the rate,
// the elapsed time, the batches, the label and the note go before the
// time left. Never the percentage, which the bar draws.
var barDetails = []detail{
	{label: true, batches: true, tasks: true, rate: true, elapsed: true, note: true},
	{label: true, batches: true, rate: true, elapsed: true, note: true},
	{label: true, batches: true, elapsed: true, note: true},
	{label: true, batches: true, note: true},
	{batches: true, note: true},
	{label: true, note: true},
	{label: true},
	{},
}

// line formats a status line.
func (r *Reporter) line(s job.Status) string {
	return r.o.Prefix + ": " + r.parts(s).join(all)
}

// percent writes the share done/total with one decimal, rounded down, so
// that it says 100.0% only when all is done, and agrees with the bar's
// whole percentage, also rounded down.
func percent(done, total int64) string {
	return fmt.Sprintf("%.1f%%", math.Floor(1000*float64(done)/float64(total))/10)
}

// parts says how far s has got, for the bar and the status lines alike.
func (r *Reporter) parts(s job.Status) parts {
	p := parts{label: r.o.Label}
	if s.TotalTasks <= 0 {
		p.batches = fmt.Sprintf("listing the tasks, %d batches done", s.DoneBatches)
	} else {
		p.percent = percent(s.DoneTasks, s.TotalTasks)
		p.batches = fmt.Sprintf("%d of %d batches", s.DoneBatches, s.TotalBatches)
		p.tasks = fmt.Sprintf("%d of %d tasks", s.DoneTasks, s.TotalTasks)
		if s.ResumedTasks > 0 {
			p.resumed = percent(s.ResumedTasks, s.TotalTasks) + " from earlier runs"
		}
	}
	run := s.DoneTasks - s.ResumedTasks
	secs := s.Elapsed.Seconds()
	if run > 0 && secs > 0 {
		p.rate = rate(float64(run)/secs) + " tasks/s"
	} else {
		p.rate = "no batch finished yet"
	}
	p.elapsed = "elapsed " + clock(s.Elapsed)
	est := r.o.Expected
	measured := run > 0 && s.Elapsed >= MinEstimate
	if est > 0 && s.DoneBatches-s.ResumedBatches < MinBatches {
		measured = false
	}
	switch {
	case s.TotalTasks > 0 && measured:
		left := float64(s.TotalTasks-s.DoneTasks) / (float64(run) / secs)
		p.left = "left " + estimate.Text(left)
	case s.TotalTasks > 0 && est > 0:
		// Nothing measured yet: the estimate's share of the tasks
		// left, less what this run has spent on them.
		left := est*float64(s.TotalTasks-s.DoneTasks)/float64(s.TotalTasks) - secs
		p.left, p.estimate = "left about "+estimate.Text(left), true
	}
	if len(s.Workers) > 1 {
		ws := make([]string, len(s.Workers))
		for i, w := range s.Workers {
			ws[i] = fmt.Sprintf("%s %d", w.Name, w.Batches)
		}
		p.workers = "[batches: " + strings.Join(ws, ", ") + "]"
	}
	return p
}

// join writes the parts that d asks for:
//
//	LABEL: PERCENT (BATCHES, TASKS), RESUMED, RATE, ELAPSED, LEFT (estimate) WORKERS
func (p parts) join(d detail) string {
	head := ""
	if d.percent && p.percent != "" {
		head = p.percent
	}
	if d.batches {
		in := []string{p.batches}
		if d.tasks && p.tasks != "" {
			in = append(in, p.tasks)
		}
		if head != "" {
			head += " (" + strings.Join(in, ", ") + ")"
		} else {
			head = strings.Join(in, ", ")
		}
	}
	items := []string{head}
	if d.tasks {
		items = append(items, p.resumed)
	}
	if d.rate {
		items = append(items, p.rate)
	}
	if d.elapsed {
		items = append(items, p.elapsed)
	}
	left := p.left
	if left != "" && p.estimate && d.note {
		left += " (estimate)"
	}
	items = append(items, left)
	var kept []string
	for _, it := range items {
		if it != "" {
			kept = append(kept, it)
		}
	}
	text := strings.Join(kept, ", ")
	if d.label && p.label != "" {
		if text != "" {
			text = ": " + text
		}
		text = p.label + text
	}
	if d.tasks && p.workers != "" {
		text += " " + p.workers
	}
	return text
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
