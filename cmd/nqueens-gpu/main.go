// Command nqueens-gpu counts the solutions of the N-Queens problem on the CPU
// or on an NVIDIA GPU.
//
// Typical calls:
//
//	nqueens-gpu -n 20 -device 0
//	nqueens-gpu -n 4-16 -v
//	nqueens-gpu -n 8 -print -unique
//	nqueens-gpu -n 1-12 -json
//
// Run "nqueens-gpu -h" for every flag and the output formats. The exit status
// is 0 on success, 1 on a runtime error, 2 on a usage error, 130 when the
// run was interrupted by SIGINT and 143 when by SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/progress"
)

const progName = "nqueens-gpu"

// Exit statuses.
const (
	exitOK          = 0
	exitRuntime     = 1
	exitUsage       = 2
	exitInterrupted = 130 // 128 + SIGINT, as a shell reports it
	exitTerminated  = 143 // 128 + SIGTERM
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// signalCause is the cause of the cancellation of a run's context when a
// signal stopped it.
type signalCause struct{ sig os.Signal }

func (s signalCause) Error() string { return "interrupted by " + signalName(s.sig) }

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// run is the whole program: it parses args, counts, writes the results to
// stdout and diagnostics to stderr, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		select {
		case sig := <-sigs:
			// The first SIGINT or SIGTERM stops the count in order.
			// Both get their default action back, so that a second
			// one ends the process at once even if a solver is slow
			// to notice (a checkpoint being written then stays the
			// one before: files are replaced atomically).
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			cancel(signalCause{sig})
		case <-ctx.Done():
		}
	}()
	if len(args) > 0 {
		if sub, ok := subcommands[args[0]]; ok {
			return sub(ctx, args[1:], stdout, stderr)
		}
	}
	return runWith(ctx, args, stdout, stderr, defaultHooks())
}

// subcommands maps the first argument of `nqueens-gpu NAME ...` to the
// code that runs it; without a subcommand the program counts. Each one
// lives in a file of its own named after it.
var subcommands = map[string]func(ctx context.Context, args []string, stdout, stderr io.Writer) int{
	"merge": runMerge,
	"bench": runBench,
	"check": runCheck,
}

// runWith is run with the context and the solver hooks supplied by the
// caller, so that tests can use fake backends and a fixed clock.
func runWith(ctx context.Context, args []string, stdout, stderr io.Writer, h hooks) int {
	cfg, err := parseArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		writeUsage(stdout)
		return exitOK
	}
	if err != nil {
		printUsageError(stderr, err)
		return exitUsage
	}
	h = h.withDefaults()
	b, err := openBackend(cfg, h, stderr)
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			printUsageError(stderr, err)
			return exitUsage
		}
		printError(stderr, err.Error())
		return exitRuntime
	}
	defer b.close()
	return count(ctx, cfg, b, h, args, stdout, stderr)
}

// count solves every N of the configured range in turn and writes one
// result per N as soon as it is known.
func count(ctx context.Context, cfg config, b *backend, h hooks, args []string, stdout, stderr io.Writer) int {
	var out resultWriter
	switch {
	case cfg.sharded:
		out = &shardWriter{w: stdout, json: cfg.json, b: b, shard: cfg.shard}
	case cfg.json:
		out = newJSONWriter(stdout, b)
	default:
		out = newTableWriter(stdout, cfg.verbose)
	}
	for n := cfg.lo; n <= cfg.hi; n++ {
		if ctx.Err() != nil {
			code, by := interruption(ctx)
			printError(stderr, fmt.Sprintf("interrupted%s before N=%d", by, n))
			return code
		}
		if code := countOne(ctx, cfg, b, h, args, n, out, stdout, stderr); code != exitOK {
			return code
		}
	}
	return exitOK
}

// countOne counts one N as a job of numbered batches on the backend's
// devices, with progress reports, checkpoints and shards as cfg asks.
func countOne(ctx context.Context, cfg config, b *backend, h hooks, args []string, n int,
	out resultWriter, stdout, stderr io.Writer) int {
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
	// New enumerates the tasks to check the file against them, which
	// takes seconds for large N: a signal must not wait for either.
	type made struct {
		j   *job.Job
		err error
	}
	ready := make(chan made, 1)
	go func() {
		spec := job.Spec{N: n, Algo: b.algo, Depth: chooseDepth(n, b.algo, cfg.depth, b.gpus)}
		j, err := job.New(job.Config{
			Spec:               spec,
			Shard:              cfg.shard,
			Workers:            b.workers(spec.Normalize()),
			Plan:               h.plan,
			NeedPlan:           !cfg.quiet || cfg.sharded,
			Checkpoint:         cfg.checkpoint,
			CheckpointInterval: cfg.checkpointInterval,
			Args:               append([]string{progName}, args...),
			Version:            programVersion(),
			Warn:               warn,
		})
		ready <- made{j, err}
	}()
	var m made
	select {
	case m = <-ready:
	case <-ctx.Done():
		code, by := interruption(ctx)
		printError(stderr, fmt.Sprintf("interrupted%s while preparing N=%d; nothing was counted or written", by, n))
		return code
	}
	if m.err != nil {
		var ce *job.CheckpointError
		if errors.As(m.err, &ce) {
			printError(stderr, m.err.Error())
		} else {
			printError(stderr, fmt.Sprintf("N=%d: %v", n, m.err))
		}
		return exitRuntime
	}
	if !cfg.quiet {
		label := fmt.Sprintf("N=%d %s", n, b.algo)
		if cfg.sharded {
			label += " shard " + cfg.shard.String()
		}
		rep = progress.Start(progress.Options{W: stderr, Prefix: progName, Label: label,
			Bar: h.isTerminal(stderr), Interval: cfg.progressInterval, Status: m.j.Status})
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
	if cfg.gpuNodes {
		reportNodes(stderr, b, n, elapsed)
	}
	if res.AlreadyComplete && !cfg.quiet {
		printError(stderr, fmt.Sprintf("checkpoint %s holds the finished count of N=%d; nothing left to count", cfg.checkpoint, n))
	}
	if err := out.write(n, res, elapsed); err != nil {
		printError(stderr, "writing output: "+err.Error())
		return exitRuntime
	}
	if cfg.print {
		if err := printBoards(stdout, n, res.Counts, cfg.unique, cfg.maxBoards); err != nil {
			printError(stderr, err.Error())
			return exitRuntime
		}
	}
	return exitOK
}

// reportNodes prints the search nodes the GPUs counted for n (-gpu-nodes)
// and their rate over elapsed, and resets the sum for the next N.
func reportNodes(w io.Writer, b *backend, n int, elapsed time.Duration) {
	nodes := b.nodes.Swap(0)
	if len(b.gpus) == 0 {
		printError(w, fmt.Sprintf("N=%d: -gpu-nodes: no GPU counted, so no nodes were counted", n))
		return
	}
	rate := "n/a"
	if s := elapsed.Seconds(); s > 0 {
		rate = fmt.Sprintf("%.4g", float64(nodes)/s)
	}
	note := ""
	if b.kind == "gpu+cpu" {
		note = ", GPUs only"
	}
	fmt.Fprintf(w, "nodes: %d (%s nodes/s%s)\n", nodes, rate, note)
}

// programVersion is the version that checkpoints and shard results
// record: the commit the Makefile stamps into the binary (buildCommit,
// with "+dirty" for uncommitted changes), else what the Go build info
// says (job.Version).
func programVersion() string {
	if c := buildCommit; c != "" {
		if len(c) > 12 {
			c = c[:12]
		}
		if buildModified == "true" {
			c += "+dirty"
		}
		return c
	}
	return job.Version()
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
		printError(stderr, fmt.Sprintf("interrupted%s while counting N=%d: %d of %d batches done, saved in %s",
			by, n, res.Batches, total, cfg.checkpoint))
		printError(stderr, "resume with: "+commandLine(args))
	default:
		printError(stderr, fmt.Sprintf("interrupted%s while counting N=%d; the checkpoint %s could not be written", by, n, cfg.checkpoint))
	}
	return code
}

// commandLine writes the command with args, quoted for a POSIX shell where
// needed.
func commandLine(args []string) string {
	plain := regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)
	parts := []string{progName}
	for _, a := range args {
		if !plain.MatchString(a) {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// usageError is a mistake in the command line; it makes the program exit
// with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...)}
}

// printError writes msg as one line on w, prefixed with the program name.
func printError(w io.Writer, msg string) {
	fmt.Fprintf(w, "%s: %s\n", progName, oneLine(msg))
}

// printUsageError writes a usage error as one line with a pointer to -h.
func printUsageError(w io.Writer, err error) {
	printError(w, err.Error()+" (run '"+progName+" -h' for help)")
}

// oneLine escapes line breaks so that a message never spans lines, whatever
// the user typed or a driver returned.
func oneLine(s string) string {
	return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(s)
}

// algoNames joins the algorithm names for messages.
func algoNames(algos []nq.Algo) string {
	s := make([]string, len(algos))
	for i, a := range algos {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

// printSubcommandUsageError writes a subcommand's usage error as one line
// that points to the subcommand's help.
func printSubcommandUsageError(w io.Writer, sub string, err error) {
	printError(w, err.Error()+" (run '"+progName+" "+sub+" -h' for help)")
}
