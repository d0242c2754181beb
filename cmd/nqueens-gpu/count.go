package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/boards"
	"github.com/nqueens-gpu/nqueens-gpu/internal/checkpoint"
	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
	"github.com/nqueens-gpu/nqueens-gpu/internal/estimate"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/progress"
	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
)

// runWith is run with the context and the solver hooks supplied by the
// caller, so that tests can use fake backends and a fixed clock.
func runWith(ctx context.Context, args []string, stdout, stderr io.Writer, h hooks) (code int) {
	out := checkedOutput(stdout)
	defer func() { code = outputDone(code, out, stderr) }()
	stdout = out
	cfg, err := parseArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		return helpDone(stdout, stderr, "count")
	}
	if err != nil {
		printUsageError(stderr, err)
		return exitUsage
	}
	if cfg.checkpoint != "" {
		// A checkpoint that cannot be replaced (read-only, a FIFO, a
		// directory, no such directory) is refused before the devices
		// are opened, which takes seconds on GPUs. The job checks it
		// again under the checkpoint's lock.
		if err := checkpoint.CheckFile(cfg.checkpoint); err != nil {
			printError(stderr, err.Error())
			return exitRuntime
		}
	}
	h = h.withDefaults()
	tune := cfg.tune
	if cfg.gpuTrace {
		tune.Trace = traceLaunches(stderr)
	}
	devs, err := device.Open(cfg.devices, device.Options{Workers: cfg.workers, Algo: cfg.algo, RequireGPU: cfg.requireGPU}, h.drivers(tune))
	if err != nil {
		return openFailed(stderr, err, printUsageError)
	}
	defer devs.Close()
	reportOpen(stderr, devs, cpuEstimate(cfg.lo, cfg.hi, devs))
	return count(ctx, cfg, devs, h, args, stdout, stderr)
}

// openFailed reports an error of device.Open: a wrong request is a usage
// error (printed by usage), anything else a runtime error.
func openFailed(stderr io.Writer, err error, usage func(io.Writer, error)) int {
	var ue *device.UsageError
	if errors.As(err, &ue) {
		usage(stderr, err)
		return exitUsage
	}
	printError(stderr, err.Error())
	return exitRuntime
}

// reportOpen writes the one line of a fallback to the CPU (with estimate,
// when not ""), or one line per GPU left out of several.
func reportOpen(stderr io.Writer, devs *device.Devices, estimate string) {
	if line := devs.FallbackLine(estimate); line != "" {
		printError(stderr, line)
	}
	for _, l := range devs.LeftOut {
		printError(stderr, l)
	}
}

// count solves every N of the configured range in turn and writes one
// result per N as soon as it is known.
func count(ctx context.Context, cfg config, devs *device.Devices, h hooks, args []string, stdout, stderr io.Writer) int {
	var out report.ResultWriter
	o := report.Origin{Backend: devs.Kind, Device: devs.Device, DeviceName: devs.DeviceName, Algo: devs.Algo}
	switch {
	case cfg.sharded:
		out = &report.Shard{W: stdout, JSON: cfg.json, Origin: o, Shard: cfg.shard, Version: programVersion(), Program: progName}
	case cfg.json:
		out = report.NewJSON(stdout, o)
	default:
		out = report.NewTable(stdout, cfg.verbose)
	}
	for n := cfg.lo; n <= cfg.hi; n++ {
		if ctx.Err() != nil {
			code, by := interruption(ctx)
			printError(stderr, fmt.Sprintf("interrupted%s before N=%d", by, n))
			return code
		}
		if code := countOne(ctx, cfg, devs, h, args, n, out, stdout, stderr); code != exitOK {
			return code
		}
	}
	return exitOK
}

// countOne counts one N as a job of numbered batches on the backend's
// devices, with progress reports, checkpoints and shards as cfg asks.
func countOne(ctx context.Context, cfg config, devs *device.Devices, h hooks, args []string, n int,
	out report.ResultWriter, stdout, stderr io.Writer) int {
	start := time.Now()
	var rep *progress.Reporter
	warn := func(msg string) {
		if rep != nil {
			rep.Warn(progName + ": " + oneLine(msg))
		} else {
			printError(stderr, msg)
		}
	}
	// Choosing the depth on GPUs counts boards, and with a checkpoint
	// New enumerates the tasks to check the file against them (unless
	// the plan is a recorded one, plan.Known), which takes seconds
	// to minutes for large N: a signal must not wait for either (and
	// NewContext stops listing).
	type made struct {
		j   *job.Job
		err error
	}
	ready := make(chan made, 1)
	go func() {
		spec := devs.Spec(n, "", cfg.depth)
		j, err := job.NewContext(ctx, job.Config{
			Spec:               spec,
			Shard:              cfg.shard,
			Backends:           devs.Backends,
			Plan:               h.plan,
			NeedPlan:           !cfg.quiet || cfg.sharded,
			Checkpoint:         cfg.checkpoint,
			CheckpointInterval: cfg.checkpointInterval,
			Args:               append([]string{progName}, args...),
			Version:            programVersion(),
			Warn:               warn,
			StopWait:           h.stopWait,
			Symmetric:          h.symmetric,
		})
		ready <- made{j, err}
	}()
	var m made
	select {
	case m = <-ready:
	case <-ctx.Done():
		// A job made after all must let go of its checkpoint's lock.
		go func() {
			if m := <-ready; m.err == nil {
				m.j.Close()
			}
		}()
		code, by := interruption(ctx)
		printError(stderr, fmt.Sprintf("interrupted%s while preparing N=%d; nothing was counted or written", by, n))
		return code
	}
	if m.err != nil {
		var ce *checkpoint.Error
		if errors.As(m.err, &ce) {
			printError(stderr, m.err.Error())
		} else {
			printError(stderr, fmt.Sprintf("N=%d: %v", n, m.err))
		}
		return exitRuntime
	}
	// The job holds the checkpoint's lock from New on; Run lets go of it
	// as it returns, Close on every other way out.
	defer m.j.Close()
	if !cfg.quiet {
		label := fmt.Sprintf("N=%d %s", n, devs.Algo)
		if cfg.sharded {
			label += " shard " + cfg.shard.String()
		}
		rep = progress.Start(progress.Options{W: stderr, Prefix: progName, Label: label,
			Bar: h.isTerminal(stderr), Interval: cfg.progressInterval, Status: m.j.Status,
			Estimate: countEstimate(devs, n, cfg.shard)})
	}
	res, err := m.j.Run(ctx)
	if rep != nil {
		rep.Stop()
	}
	elapsed := h.since(start)
	if cfg.checkpoint != "" {
		// The time of every run of this count.
		elapsed = time.Duration(res.Seconds * float64(time.Second))
	}
	if err != nil {
		if ctx.Err() != nil {
			return interrupted(ctx, cfg, args, n, res, stderr)
		}
		printError(stderr, fmt.Sprintf("N=%d: %v", n, err))
		if res.Saved && res.Batches > 0 {
			printError(stderr, fmt.Sprintf("%d batches done are saved in %s; resume with: %s", res.Batches, cfg.checkpoint, commandLine(args)))
		}
		return exitRuntime
	}
	if cfg.tune.Nodes {
		reportNodes(stderr, devs, n, elapsed)
	}
	if res.AlreadyComplete && !cfg.quiet {
		printError(stderr, fmt.Sprintf("checkpoint %s holds the finished count of N=%d; nothing left to count", cfg.checkpoint, n))
	}
	if err := out.Write(n, res, elapsed); err != nil {
		return outputFailed(stderr, err)
	}
	if cfg.print {
		if err := boards.Print(stdout, n, res.Counts, cfg.unique, cfg.maxBoards); err != nil {
			if werr := outputErr(stdout); werr != nil {
				return outputFailed(stderr, werr)
			}
			printError(stderr, err.Error())
			return exitRuntime
		}
	}
	return exitOK
}

// reportNodes prints the search nodes the GPUs counted for n (-gpu-nodes)
// and their rate over elapsed; the sum starts again for the next N.
func reportNodes(w io.Writer, devs *device.Devices, n int, elapsed time.Duration) {
	nodes, ok := devs.TakeNodes()
	if !ok {
		printError(w, fmt.Sprintf("N=%d: -gpu-nodes: no GPU counted, so no nodes were counted", n))
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

// interruption returns the exit status for a cancelled ctx and, when a
// signal cancelled it, " by SIGNAME" for messages.
func interruption(ctx context.Context) (code int, by string) {
	var sc signalCause
	if errors.As(context.Cause(ctx), &sc) {
		if sc.sig == syscall.SIGTERM {
			return exitTerminated, " by SIGTERM"
		}
		return exitInterrupted, " by " + signalName(sc.sig)
	}
	return exitInterrupted, ""
}

// interrupted reports a count stopped by ctx: what was saved and how to
// resume.
func interrupted(ctx context.Context, cfg config, args []string, n int, res job.Result, stderr io.Writer) int {
	code, by := interruption(ctx)
	switch {
	case cfg.checkpoint == "":
		printError(stderr, fmt.Sprintf("interrupted%s while counting N=%d", by, n))
	case res.Saved:
		total := cfg.shard.Batches(res.Plan.Batches)
		printError(stderr, fmt.Sprintf("interrupted%s while counting N=%d: %d of %d batches done, saved in %s%s",
			by, n, res.Batches, total, cfg.checkpoint, droppedText(res.Dropped)))
		printError(stderr, "resume with: "+commandLine(args))
	default:
		printError(stderr, fmt.Sprintf("interrupted%s while counting N=%d; the checkpoint %s could not be written", by, n, cfg.checkpoint))
	}
	return code
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

// countEstimate is the expected time of a count of n on devs for the
// progress reports' time left before a rate is measured: the CPU's
// estimate (package estimate) for a count on the CPU alone, its share
// for a shard; 0, none, with GPUs.
func countEstimate(devs *device.Devices, n int, shard plan.Shard) time.Duration {
	if devs.Kind != "cpu" {
		return 0
	}
	sec := estimate.CPUSeconds(n, devs.Algo, devs.CPUWorkers)
	if !shard.Whole() {
		sec /= float64(shard.Count)
	}
	return time.Duration(min(sec, 9e9) * float64(time.Second)) // within a Duration: 285 years
}

// longOnCPU is the estimated CPU time from which a fallback line says how
// long the count will take.
const longOnCPU = time.Minute

// cpuEstimate says how long the CPU of devs will take for the sizes lo..hi
// after a fallback ("expect about 3.5 h on the CPU for N=20"), or "" when
// that is under longOnCPU or there was no fallback.
func cpuEstimate(lo, hi int, devs *device.Devices) string {
	if devs.Fallback == "" {
		return ""
	}
	var sec float64
	for n := lo; n <= hi; n++ {
		sec += estimate.CPUSeconds(n, devs.Algo, devs.CPUWorkers)
	}
	if sec < longOnCPU.Seconds() {
		return ""
	}
	return fmt.Sprintf("expect about %s for N=%s", estimate.Text(sec), report.RangeText(lo, hi))
}

// traceLaunches returns a gpu.Tuning.Trace that writes each launch to w as
// one tab-separated line: "gpu-trace", N, the GPU's ordinal, the launch's
// number, its tasks and batches, and the seconds since the solve began at
// which its tasks were packed, it was queued and it ended. Lines of
// several GPUs do not interleave.
func traceLaunches(w io.Writer) func(gpu.LaunchTrace) {
	var mu sync.Mutex
	return func(l gpu.LaunchTrace) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "gpu-trace\t%d\t%d\t%d\t%d\t%d\t%.6f\t%.6f\t%.6f\n", l.N, l.Device, l.Launch, l.Tasks, l.Batches,
			l.Packed.Seconds(), l.Queued.Seconds(), l.Done.Seconds())
	}
}
