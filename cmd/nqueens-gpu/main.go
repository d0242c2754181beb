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
// is 0 on success, 1 on a runtime error, 2 on a usage error, and 128 plus
// the signal's number when a signal stopped the run: 129 for SIGHUP, 130
// for SIGINT, 143 for SIGTERM.
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
)

const progName = app.Program

func main() {
	// A standard output closed when the program started would swallow
	// the results without an error: refuse it before any work.
	if err := fsutil.CheckStdout(os.Stdout); err != nil {
		os.Exit(done(err, "", nil, os.Stderr))
	}
	os.Exit(run(os.Args[0], os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole program, started as name (os.Args[0], for the resume
// hint): it parses args, counts, writes the results to stdout and
// diagnostics to stderr, and returns the exit status.
func run(name string, args []string, stdout, stderr io.Writer) int {
	return runHooks(name, args, stdout, stderr, defaultHooks())
}

// runHooks is run with the ties to the devices h (tests of the whole
// program replace some).
func runHooks(name string, args []string, stdout, stderr io.Writer, h hooks) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stops := stopSignals()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stops...)
	defer signal.Stop(sigs)
	go func() {
		select {
		case sig := <-sigs:
			// The first signal stops the count in order. Each gets its
			// default action back, so that a second one ends the
			// process at once even if a solver is slow to notice (a
			// checkpoint being written then stays the one before:
			// files are replaced atomically).
			signal.Reset(stops...)
			cancel(app.SignalCause{Signal: sig})
		case <-ctx.Done():
		}
	}()
	if len(args) > 0 {
		if sub, ok := subcommands[args[0]]; ok {
			return sub(ctx, args[1:], stdout, stderr, h)
		}
	}
	return runAs(ctx, name, args, stdout, stderr, h)
}

// stopSignals are the signals that stop a run in order (the checkpoint
// saved, its lock released, exit 128 + the signal's number): SIGINT,
// SIGTERM and SIGHUP, which a closed terminal or a dropped SSH session
// sends. A SIGHUP ignored when the program started (nohup) stays ignored:
// Notify would catch it again.
func stopSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

// subcommands maps the first argument of `nqueens-gpu NAME ...` to the
// code that runs it; without a subcommand the program counts. Each one
// lives in a file of its own named after it.
var subcommands = map[string]runner{
	"merge":   command("merge", parseMergeArgs, app.Merge),
	"bench":   command("bench", parseBenchArgs, app.Bench),
	"check":   command("check", parseCheckArgs, app.Check),
	"devices": command("devices", parseDevicesArgs, app.Devices),
	"version": command("version", parseVersionArgs, app.Version),
}

// runner runs a command with args and returns its exit status.
type runner func(ctx context.Context, args []string, stdout, stderr io.Writer, h hooks) int

// command is the runner of the subcommand sub: its arguments parsed by
// parse, its work done by do (a function of package app), its error
// printed and turned into the exit status (done).
func command[O any](sub string, parse func([]string) (O, error), do func(context.Context, O, io.Writer, io.Writer, hooks) error) runner {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer, h hooks) int {
		h = withBackends(h)
		out := checkedOutput(stdout)
		opt, err := parse(args)
		if err == nil {
			err = do(ctx, opt, out, stderr, h)
		}
		return done(err, sub, out, stderr)
	}
}

// hooks are the program's ties to the devices and the clock; tests
// replace them.
type hooks = app.Hooks

// defaultHooks are the real devices and clock, and this binary's build.
func defaultHooks() hooks { return hooks{} }

// done ends a command: it prints err (one line, and its hint), pointing a
// usage error to the help of sub ("" for the count), and returns the exit
// status of err (app.ExitCode). A command that succeeded fails when a
// write to out failed.
func done(err error, sub string, out *fsutil.ErrWriter, stderr io.Writer) int {
	if err == nil && out != nil && out.Err() != nil {
		err = &app.OutputError{Err: out.Err()}
	}
	if err == nil {
		return app.ExitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		if werr := writeHelp(out, helpName(sub)); werr != nil {
			return done(&app.OutputError{Err: werr}, sub, nil, stderr)
		}
		return app.ExitOK
	}
	code := app.ExitCode(err)
	if code == app.ExitUsage {
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
