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
// is 0 on success, 1 on a runtime error, 2 on a usage error and 130 when the
// run was interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

const progName = "nqueens-gpu"

// Exit statuses.
const (
	exitOK          = 0
	exitRuntime     = 1
	exitUsage       = 2
	exitInterrupted = 130 // 128 + SIGINT, as a shell reports it
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the whole program: it parses args, counts, writes the results to
// stdout and diagnostics to stderr, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// After the first interrupt, give SIGINT its default action back so that
	// a second Ctrl-C ends the process even if a solver is slow to notice
	// the cancellation. stop also ends this goroutine when run returns.
	go func() {
		<-ctx.Done()
		stop()
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
	return count(ctx, cfg, b, h, stdout, stderr)
}

// count solves every N of the configured range in turn and writes one
// result per N as soon as it is known.
func count(ctx context.Context, cfg config, b *backend, h hooks, stdout, stderr io.Writer) int {
	var out resultWriter
	if cfg.json {
		out = newJSONWriter(stdout, b)
	} else {
		out = newTableWriter(stdout, cfg.verbose)
	}
	if err := out.header(); err != nil {
		printError(stderr, "writing output: "+err.Error())
		return exitRuntime
	}
	for n := cfg.lo; n <= cfg.hi; n++ {
		if ctx.Err() != nil {
			printError(stderr, fmt.Sprintf("interrupted before N=%d", n))
			return exitInterrupted
		}
		start := time.Now()
		c, err := b.solve(ctx, n)
		elapsed := h.since(start)
		if err != nil {
			if ctx.Err() != nil {
				printError(stderr, fmt.Sprintf("interrupted while counting N=%d", n))
				return exitInterrupted
			}
			printError(stderr, fmt.Sprintf("N=%d: %v", n, err))
			return exitRuntime
		}
		if err := out.row(n, c, elapsed); err != nil {
			printError(stderr, "writing output: "+err.Error())
			return exitRuntime
		}
		if cfg.print {
			if err := printBoards(stdout, n, c, cfg.unique, cfg.maxBoards); err != nil {
				printError(stderr, err.Error())
				return exitRuntime
			}
		}
	}
	return exitOK
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
