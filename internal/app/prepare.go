package app

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
	"github.com/nqueens-gpu/nqueens-gpu/internal/gpuinfo"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// processStart is about when the program started: the times of -gpu-trace's
// start lines are since then.
var processStart = time.Now()

// taskLists prepares the eightfold task lists of a command's counts
// (tasks.PrepareEightfold: the borders oriented and the tasks of each
// counted, on every core) in the background: the first one while the
// devices open, with its first launch packed (the drivers' PrepareHead),
// each next one while the count before it runs. A count waits for its
// own before it starts, so that its first GPU launch goes out at once.
type taskLists struct {
	split   int // the split asked for (-depth), or 0 for the default
	lo, hi  int // the command's first and last N: no list is prepared past hi
	prepare func(ctx context.Context, spec nq.Spec, head bool) error
	mu      sync.Mutex
	ready   map[int]chan struct{}
}

// prepareLists starts the list of lo, if opt's counts are eightfold on
// GPUs: only their producer reads the lists, and on the CPU alone the
// preparation would take cores from the count.
func prepareLists(ctx context.Context, opt CountOptions, h Hooks) *taskLists {
	if !opt.Devices.GPUs() || device.GuessSpec(opt.Lo, opt.Algo, 0).Algo != nq.Eightfold {
		return nil
	}
	l := &taskLists{split: opt.Depth, lo: opt.Lo, hi: opt.Hi, prepare: h.PrepareList, ready: map[int]chan struct{}{}}
	l.start(ctx, opt.Lo)
	return l
}

// start prepares the list of n in the background, once.
func (l *taskLists) start(ctx context.Context, n int) {
	if l == nil || n < 5 || n > min(l.hi, nq.MaxN) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.ready[n]; ok {
		return
	}
	done := make(chan struct{})
	l.ready[n] = done
	spec := device.GuessSpec(n, nq.Eightfold, l.split)
	go func() {
		defer close(done)
		// An error shows when the count lists its tasks. Only the first
		// count's launch is packed ahead: the next ones' packing would
		// take cores from the count before them.
		l.prepare(ctx, spec, n == l.lo)
	}()
}

// prepareList is Hooks.PrepareList's default, with the drivers'
// PrepareHead (nil packs no head).
func prepareList(prepareHead func(context.Context, nq.Spec) error) func(context.Context, nq.Spec, bool) error {
	return func(ctx context.Context, spec nq.Spec, head bool) error {
		if head && prepareHead != nil {
			return prepareHead(ctx, spec)
		}
		return tasks.PrepareEightfold(ctx, spec.N, spec.Depth)
	}
}

// opened drops the head packed ahead (forget) unless a GPU opened and
// the first count's spec on devs is the one it was packed for: the split
// depends on the GPUs' SMs.
func (l *taskLists) opened(devs *device.Devices, forget func()) {
	if l == nil {
		return
	}
	spec, guess := devs.Spec(l.lo, "", l.split), device.GuessSpec(l.lo, nq.Eightfold, l.split)
	if len(devs.GPUs) == 0 || spec.Algo != nq.Eightfold || spec.Depth != guess.Depth || spec.Batch != guess.Batch {
		forget()
	}
}

// wait waits until the list of n is prepared (or ctx is cancelled), and
// starts the next one.
func (l *taskLists) wait(ctx context.Context, n int) {
	if l == nil {
		return
	}
	l.start(ctx, n)
	l.mu.Lock()
	done, ok := l.ready[n]
	l.mu.Unlock()
	if ok { // N outside 5..MaxN has none
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
	l.start(ctx, n+1)
}

// TraceOpen returns a gpuinfo.Tuning.OpenTrace that writes the steps of
// opening each GPU to w as one tab-separated line: "gpu-open", the GPU's
// ordinal, and the seconds of loading the driver, creating the context,
// loading the module and the self-test launch.
func TraceOpen(w io.Writer) func(gpuinfo.OpenTrace) {
	var mu sync.Mutex
	return func(o gpuinfo.OpenTrace) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "gpu-open\t%d\t%.6f\t%.6f\t%.6f\t%.6f\n", o.Device, o.Driver.Seconds(), o.Context.Seconds(),
			o.Module.Seconds(), o.SelfTest.Seconds())
	}
}

// traceStart writes the start of the count of n to w as one tab-separated
// line: "gpu-start", N, and the seconds since the program started at
// which the devices were open, the count's task list was ready and the
// count started.
func traceStart(w io.Writer, n int, opened, listed time.Time) {
	fmt.Fprintf(w, "gpu-start\t%d\t%.6f\t%.6f\t%.6f\n", n, opened.Sub(processStart).Seconds(),
		listed.Sub(processStart).Seconds(), time.Since(processStart).Seconds())
}
