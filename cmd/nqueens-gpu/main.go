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
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"

	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
	"github.com/nqueens-gpu/nqueens-gpu/internal/fsutil"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
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

func main() {
	// A standard output closed when the program started would swallow
	// the results without an error: refuse it before any work.
	if err := fsutil.CheckStdout(os.Stdout); err != nil {
		printError(os.Stderr, err.Error())
		os.Exit(exitRuntime)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

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
	"merge":   runMerge,
	"bench":   runBench,
	"check":   runCheck,
	"devices": runDevices,
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

// maxErrorLine bounds an error line: whatever the user typed or a file
// held, a message is one line of at most this many bytes.
const maxErrorLine = 1000

// printError writes msg as one line on w, prefixed with the program name
// and cut to maxErrorLine bytes (clip.Line keeps its head and its tail).
func printError(w io.Writer, msg string) {
	fmt.Fprintf(w, "%s\n", clip.Line(progName+": "+oneLine(msg), maxErrorLine))
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
