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
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/nqueens-gpu/nqueens-gpu/internal/app"
	"github.com/nqueens-gpu/nqueens-gpu/internal/fsutil"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
)

const progName = app.Program

// Exit statuses (app.ExitCode decides them).
const (
	exitOK          = app.ExitOK
	exitRuntime     = app.ExitRuntime
	exitUsage       = app.ExitUsage
	exitInterrupted = 128 + int(syscall.SIGINT)
	exitTerminated  = 128 + int(syscall.SIGTERM)
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

// run is the whole program: it parses args, counts, writes the results to
// stdout and diagnostics to stderr, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return runHooks(args, stdout, stderr, defaultHooks())
}

// runHooks is run with the counts' ties to the devices h (tests of the
// whole program replace some).
func runHooks(args []string, stdout, stderr io.Writer, h hooks) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		select {
		case sig := <-sigs:
			// The first signal stops the count in order. Each gets its
			// default action back, so that a second one ends the
			// process at once even if a solver is slow to notice (a
			// checkpoint being written then stays the one before:
			// files are replaced atomically).
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			cancel(app.SignalCause{Signal: sig})
		case <-ctx.Done():
		}
	}()
	if len(args) > 0 {
		if sub, ok := subcommands[args[0]]; ok {
			return sub(ctx, args[1:], stdout, stderr)
		}
	}
	return runWith(ctx, args, stdout, stderr, h)
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

// buildCommit and buildModified are set by the Makefile (-ldflags -X) to
// the git commit the binary was built from and "true" if the tree had
// uncommitted changes to tracked files.
var buildCommit, buildModified string

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

// hooks are the program's ties to the devices and the clock; tests
// replace them.
type hooks = app.Hooks

// defaultHooks are the real devices and clock, and this build's version.
func defaultHooks() hooks {
	return hooks{Version: programVersion(), Build: app.Build{Commit: buildCommit, Modified: buildModified == "true"}}
}

// done ends a command: it prints err (one line, and its hint), pointing a
// usage error to the help of sub ("" for the count), and returns the exit
// status of err (app.ExitCode). A command that succeeded fails when a
// write to out failed.
func done(err error, sub string, out *fsutil.ErrWriter, stderr io.Writer) int {
	if err == nil && out != nil && out.Err() != nil {
		err = &app.OutputError{Err: out.Err()}
	}
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		if werr := writeHelp(out, helpName(sub)); werr != nil {
			return done(&app.OutputError{Err: werr}, sub, nil, stderr)
		}
		return exitOK
	}
	code := app.ExitCode(err)
	if code == exitUsage {
		printUsageError(stderr, sub, err)
		return code
	}
	printError(stderr, err.Error())
	if h := app.Hint(err); h != "" {
		printError(stderr, h)
	}
	return code
}

// helpName is the help text of sub: "count" for the count.
func helpName(sub string) string {
	if sub == "" {
		return "count"
	}
	return sub
}

// printError writes msg as one line on w (app.PrintError).
func printError(w io.Writer, msg string) { app.PrintError(w, msg) }

// printUsageError writes a usage error as one line with a pointer to the
// help of sub ("" for the count).
func printUsageError(w io.Writer, sub string, err error) {
	cmd := progName
	if sub != "" {
		cmd += " " + sub
	}
	msg := err.Error()
	if sub == "merge" {
		msg = "merge: " + msg
	}
	printError(w, msg+" (run '"+cmd+" -h' for help)")
}

// usageErrorf returns a usage error of the command line.
func usageErrorf(format string, a ...any) error { return app.Usagef(format, a...) }
