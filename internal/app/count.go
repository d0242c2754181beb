package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/boards"
	"github.com/nqueens-gpu/nqueens-gpu/internal/checkpoint"
	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
	"github.com/nqueens-gpu/nqueens-gpu/internal/estimate"
	"github.com/nqueens-gpu/nqueens-gpu/internal/fsutil"
	"github.com/nqueens-gpu/nqueens-gpu/internal/gpuinfo"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/progress"
	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
)

// CountOptions are the parsed and checked command line of a count.
type CountOptions struct {
	Lo, Hi    int     // the sizes to count, Lo <= Hi
	Algo      nq.Algo // "" picks the devices' default
	Devices   device.Set
	Workers   int // CPU goroutines, 0 = one per core
	Verbose   bool
	JSON      bool
	Print     bool
	Unique    bool
	MaxBoards int // boards shown per N with Print, 0 = all

	// Long runs.
	Checkpoint         string        // checkpoint file, "" for none
	CheckpointInterval time.Duration // between checkpoint writes
	ProgressInterval   time.Duration // between status lines without a terminal
	Quiet              bool          // no progress reports
	Sharded            bool          // -shard was given: write a shard result
	Shard              plan.Shard    // the share of the batches to count

	// Tuning.
	Depth      int            // rows of the partial boards, 0 = plan.Normalize's
	Tune       gpuinfo.Tuning // the GPU kernels' variant and launch shape
	RequireGPU bool           // fail rather than fall back to the CPU
	GPUTrace   bool           // a line per GPU launch on stderr (TraceLaunches)

	// Args is the command line without the program's name, for the
	// checkpoint and the resume hint.
	Args []string
	// Name is the program as the user typed it (os.Args[0], such as
	// ./bin/nqueens-gpu), for the resume hint; "" means Program.
	Name string
}

// Count counts every N of opt in turn on the devices opt asks for and
// writes one result per N to stdout as soon as it is known.
func Count(ctx context.Context, opt CountOptions, stdout, stderr io.Writer, h Hooks) error {
	if opt.Checkpoint != "" {
		// A checkpoint that cannot be replaced is refused before the
		// devices are opened, which takes seconds on GPUs. The job
		// checks it again under the checkpoint's lock.
		if err := checkpoint.CheckFile(opt.Checkpoint); err != nil {
			return err
		}
	}
	h = h.WithDefaults()
	if opt.GPUTrace {
		opt.Tune.Trace, opt.Tune.OpenTrace = TraceLaunches(stderr), TraceOpen(stderr)
	}
	lists := prepareLists(ctx, opt, h) // while the devices open
	drivers := h.Drivers(opt.Tune)
	devs, err := device.Open(opt.Devices, device.Options{Workers: opt.Workers, Algo: opt.Algo, RequireGPU: opt.RequireGPU}, drivers)
	if err != nil {
		drivers.Forget()
		return err
	}
	defer devs.Close()
	lists.opened(devs, drivers.Forget)
	reportOpen(stderr, devs, cpuEstimate(opt.Lo, opt.Hi, devs), opt.Verbose)
	c := counter{opt: opt, devs: devs, h: h, forget: drivers.Forget, stdout: stdout, stderr: stderr, out: resultWriter(opt, devs, h, stdout),
		lists: lists, opened: time.Now()}
	for n := opt.Lo; n <= opt.Hi; n++ {
		if ctx.Err() != nil {
			return interrupted(ctx, "interrupted%s before N=%d", n)
		}
		if err := c.one(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

// resultWriter is the writer of opt's results: shard records, JSON or
// the table. Records carry the build and, JSON records, when each N ended.
func resultWriter(opt CountOptions, devs *device.Devices, h Hooks, stdout io.Writer) report.ResultWriter {
	o := report.Origin{Backend: devs.Kind, Device: devs.Device, DeviceName: devs.DeviceName, Algo: devs.Algo,
		Workers: devs.CPUWorkers, Build: h.Build}
	switch {
	case opt.Sharded:
		return &report.Shard{W: stdout, JSON: opt.JSON, Origin: o, Shard: opt.Shard, Program: Program}
	case opt.JSON:
		j := report.NewJSON(stdout, o)
		j.Now = h.Now
		return j
	}
	return report.NewTable(stdout, opt.Verbose)
}

// reportOpen writes the one line of a fallback to the CPU (with estimate,
// when not ""), and with verbose a second with the driver's details, or
// one line per GPU left out of several.
func reportOpen(stderr io.Writer, devs *device.Devices, estimate string, verbose bool) {
	if line := devs.FallbackLine(estimate); line != "" {
		PrintError(stderr, line)
		if verbose && devs.FallbackDetail != "" {
			PrintError(stderr, "the driver said: "+devs.FallbackDetail)
		}
	}
	for _, l := range devs.LeftOut {
		PrintError(stderr, l)
	}
}

// counter counts the sizes of one command line.
type counter struct {
	opt            CountOptions
	devs           *device.Devices
	h              Hooks
	stdout, stderr io.Writer
	out            report.ResultWriter
	lists          *taskLists // the eightfold task lists, prepared ahead
	forget         func()     // drops a first launch packed ahead
	opened         time.Time  // when the devices were open
}

// one counts one N as a job of numbered batches on the devices, with
// progress reports, checkpoints and shards as the options ask.
func (c *counter) one(ctx context.Context, n int) error {
	c.lists.wait(ctx, n)
	defer c.forget() // a first launch packed ahead and not taken
	if c.opt.GPUTrace && len(c.devs.GPUs) > 0 {
		traceStart(c.stderr, n, c.opened, time.Now())
	}
	start := time.Now()
	var rep *progress.Reporter
	warn := func(msg string) {
		if rep != nil {
			rep.Warn(Program + ": " + OneLine(msg))
		} else {
			PrintError(c.stderr, msg)
		}
	}
	j, err := c.start(ctx, n, warn)
	if err != nil {
		return err
	}
	// The job holds the checkpoint's lock from New on; Run lets go of it
	// as it returns, Close on every other way out.
	defer j.Close()
	if !c.opt.Quiet {
		rep = c.progress(n, j)
	}
	res, err := j.Run(ctx)
	if rep != nil {
		rep.Stop()
	}
	elapsed := c.h.Since(start)
	if c.opt.Checkpoint != "" {
		// The time of every run of this count.
		elapsed = time.Duration(res.Seconds * float64(time.Second))
	}
	if err != nil {
		return c.failed(ctx, n, res, err)
	}
	return c.write(n, res, elapsed)
}

// start makes the job of n. Choosing the depth on GPUs counts boards, and
// with a checkpoint the job enumerates the tasks to check the file against
// them, which takes seconds to minutes at large N: a signal does not wait
// for either.
func (c *counter) start(ctx context.Context, n int, warn func(string)) (*job.Job, error) {
	type made struct {
		j   *job.Job
		err error
	}
	ready := make(chan made, 1)
	go func() {
		spec := c.devs.Spec(n, "", c.opt.Depth)
		cfg := jobFor(c.devs, spec, c.h.jobConfig())
		cfg.Shard, cfg.NeedPlan = c.opt.Shard, !c.opt.Quiet || c.opt.Sharded
		cfg.Checkpoint, cfg.CheckpointInterval = c.opt.Checkpoint, c.opt.CheckpointInterval
		cfg.Args, cfg.Warn = append([]string{Program}, c.opt.Args...), warn
		j, err := job.NewContext(ctx, cfg)
		ready <- made{j, err}
	}()
	select {
	case m := <-ready:
		var ce *checkpoint.Error
		if m.err != nil && !errors.As(m.err, &ce) {
			m.err = fmt.Errorf("N=%d: %w", n, m.err)
		}
		return m.j, m.err
	case <-ctx.Done():
		// A job made after all must let go of its checkpoint's lock.
		go func() {
			if m := <-ready; m.err == nil {
				m.j.Close()
			}
		}()
		return nil, interrupted(ctx, "interrupted%s while preparing N=%d; nothing was counted or written", n)
	}
}

// progress starts the progress reports of the count of n.
func (c *counter) progress(n int, j *job.Job) *progress.Reporter {
	label := fmt.Sprintf("N=%d %s", n, c.devs.Algo)
	if c.opt.Sharded {
		label += " shard " + c.opt.Shard.String()
	}
	return progress.Start(progress.Options{W: c.stderr, Prefix: Program, Label: label,
		Bar: c.h.IsTerminal(c.stderr), Interval: c.opt.ProgressInterval, Status: j.Status,
		Expected: expectedSeconds(c.devs, n, c.opt.Shard)})
}

// failed is the error of a count of n that Run ended with err: an
// interruption with what was saved, or a failure with where the batches
// done are.
func (c *counter) failed(ctx context.Context, n int, res job.Result, err error) error {
	if ctx.Err() != nil {
		return c.interrupted(ctx, n, res)
	}
	err = fmt.Errorf("N=%d: %w", n, err)
	if res.Saved && res.Batches > 0 {
		return &hinted{err, fmt.Sprintf("%d batches done are saved in %s; resume with: %s", res.Batches, c.opt.Checkpoint, CommandLine(c.opt.Name, c.opt.Args))}
	}
	return err
}

// interrupted is the error of a count of n stopped by ctx: what was saved
// and how to resume.
func (c *counter) interrupted(ctx context.Context, n int, res job.Result) error {
	switch {
	case c.opt.Checkpoint == "":
		e := interrupted(ctx, "interrupted%s while counting N=%d", n)
		e.Hint = c.checkpointHint(n)
		return e
	case res.Saved:
		total := c.opt.Shard.Batches(res.Plan.Batches)
		e := interrupted(ctx, "interrupted%s while counting N=%d: %d of %d batches done, saved in %s%s",
			n, res.Batches, total, c.opt.Checkpoint, droppedText(res.Dropped))
		e.Hint = "resume with: " + CommandLine(c.opt.Name, c.opt.Args)
		return e
	}
	return interrupted(ctx, "interrupted%s while counting N=%d; the checkpoint %s could not be written", n, c.opt.Checkpoint)
}

// checkpointHint suggests a checkpoint to a count of n stopped without
// one: the command again with -checkpoint, for a single N, or the count
// of n alone with one.
func (c *counter) checkpointHint(n int) string {
	file := fmt.Sprintf("n%d.ckpt", n)
	if c.opt.Sharded {
		file = fmt.Sprintf("n%d-shard%d.ckpt", n, c.opt.Shard.Index)
	}
	if c.opt.Lo != c.opt.Hi {
		return fmt.Sprintf("nothing was saved; a count of one N with -checkpoint can be resumed (-n %d -checkpoint %s)", n, file)
	}
	args := append(slices.Clone(c.opt.Args), "-checkpoint", file)
	return "nothing was saved; a count with -checkpoint can be resumed: " + CommandLine(c.opt.Name, args)
}

// write reports the result of n: the nodes with -gpu-nodes, a note on a
// checkpoint that was complete already, the row and the boards.
func (c *counter) write(n int, res job.Result, elapsed time.Duration) error {
	if c.opt.Tune.Nodes {
		reportNodes(c.stderr, c.devs, n, elapsed)
	}
	if res.AlreadyComplete && !c.opt.Quiet {
		PrintError(c.stderr, fmt.Sprintf("checkpoint %s holds the finished count of N=%d; nothing left to count", c.opt.Checkpoint, n))
	}
	if err := c.out.Write(n, res, elapsed); err != nil {
		return &OutputError{err}
	}
	if !c.opt.Print {
		return nil
	}
	if err := boards.Print(c.stdout, n, res.Counts, c.opt.Unique, c.opt.MaxBoards); err != nil {
		if werr := outputErr(c.stdout); werr != nil {
			return &OutputError{werr}
		}
		return err
	}
	return nil
}

// outputErr returns the first failed write to w when w remembers it (an
// *fsutil.ErrWriter), else nil.
func outputErr(w io.Writer) error {
	if e, ok := w.(*fsutil.ErrWriter); ok {
		return e.Err()
	}
	return nil
}

// reportNodes prints the search nodes the GPUs counted for n (-gpu-nodes)
// and their rate over elapsed; the sum starts again for the next N.
func reportNodes(w io.Writer, devs *device.Devices, n int, elapsed time.Duration) {
	nodes, ok := devs.TakeNodes()
	if !ok {
		PrintError(w, fmt.Sprintf("N=%d: -gpu-nodes: no GPU counted, so no nodes were counted", n))
		return
	}
	rate := "n/a"
	if s := elapsed.Seconds(); s > 0 {
		rate = fmt.Sprintf("%.4g", float64(nodes)/s)
	}
	note := ""
	if devs.Kind == "gpu+cpu" {
		note = ", GPUs only"
	}
	fmt.Fprintf(w, "nodes: %d (%s nodes/s%s)\n", nodes, rate, note)
}

// droppedText says how many batches in hand a stopped run dropped (see
// job.Result.Dropped), for the interrupted message; "" for none.
func droppedText(dropped int) string {
	switch dropped {
	case 0:
		return ""
	case 1:
		return "; 1 batch in hand was dropped and is counted again on resume"
	}
	return fmt.Sprintf("; %d batches in hand were dropped and are counted again on resume", dropped)
}

// expectedSeconds is the expected time of a count of n on devs, in
// seconds, for the progress reports' time left before a rate is measured:
// the CPU's estimate (package estimate, as the fallback line says it) for
// a count on the CPU alone, its share for a shard; 0, none, with GPUs.
func expectedSeconds(devs *device.Devices, n int, shard plan.Shard) float64 {
	if devs.Kind != "cpu" {
		return 0
	}
	sec := estimate.CPUSeconds(n, devs.Algo, devs.CPUWorkers)
	if !shard.Whole() {
		sec /= float64(shard.Count)
	}
	return sec
}

// longOnCPU is the estimated CPU time, in seconds, from which a fallback
// line says how long the count will take.
const longOnCPU = 60

// cpuEstimate says how long the CPU of devs will take for the sizes lo..hi
// after a fallback ("about 3.5 hours for N=20"), or "" when that is
// under longOnCPU or there was no fallback.
func cpuEstimate(lo, hi int, devs *device.Devices) string {
	if devs.Fallback == "" {
		return ""
	}
	sec := estimate.RangeSeconds(lo, hi, devs.Algo, devs.CPUWorkers)
	if sec < longOnCPU {
		return ""
	}
	return fmt.Sprintf("about %s for N=%s", estimate.Text(sec), report.RangeText(lo, hi))
}

// TraceLaunches returns a gpuinfo.Tuning.Trace that writes each launch to w as
// one tab-separated line: "gpu-trace", N, the GPU's ordinal, the launch's
// number, its tasks and batches, the seconds since the solve began at
// which its tasks were packed, it was queued and it ended, and the most
// levels of its eightfold tasks (0 for other tasks). Lines of several GPUs
// do not interleave.
func TraceLaunches(w io.Writer) func(gpuinfo.LaunchTrace) {
	var mu sync.Mutex
	return func(l gpuinfo.LaunchTrace) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "gpu-trace\t%d\t%d\t%d\t%d\t%d\t%.6f\t%.6f\t%.6f\t%d\n", l.N, l.Device, l.Launch, l.Tasks, l.Batches,
			l.Packed.Seconds(), l.Queued.Seconds(), l.Done.Seconds(), l.Levels)
	}
}
