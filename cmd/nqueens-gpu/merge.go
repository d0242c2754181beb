package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
	"github.com/nqueens-gpu/nqueens-gpu/internal/shard"
)

// runMerge runs `nqueens-gpu merge`.
func runMerge(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runMergeWith(ctx, args, stdout, stderr, defaultHooks())
}

// runMergeWith reads the shard results in the files of args, checks that
// they are every shard of one job, whole and unchanged, makes the job's
// plan again with h.plan to check their fingerprint, and prints the
// combined counts. Every error about the files or what they hold is a
// runtime error (exit 1) that names the file and line.
func runMergeWith(ctx context.Context, args []string, stdout, stderr io.Writer, h hooks) (code int) {
	out := checkedOutput(stdout)
	defer func() { code = outputDone(code, out, stderr) }()
	stdout = out
	fs := newFlagSet(progName + " merge")
	asJSON := fs.Bool("json", false, "one JSON object")
	verbose := fs.Bool("v", false, "add C2, C4, C8")
	// Flags may come before, between or after the files.
	var files []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return helpDone(stdout, stderr, "merge")
			}
			printMergeUsageError(stderr, err.Error())
			return exitUsage
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(files) == 0 {
		printMergeUsageError(stderr, "no files: give the shard results to merge, as in merge shard-*.json")
		return exitUsage
	}
	h = h.withDefaults()
	var srcs []shard.Source
	for _, name := range files {
		// Regular files only, of bounded size and line length: a FIFO
		// or a device would hang the merge or never end.
		s, err := shard.ReadFile(name)
		if err != nil {
			printError(stderr, "merge: "+err.Error())
			return exitRuntime
		}
		srcs = append(srcs, s...)
	}
	makePlan := h.plan
	if makePlan == nil {
		makePlan = plan.Make
	}
	m, err := shard.Merge(srcs, makePlan)
	if err != nil {
		printError(stderr, "merge: "+err.Error())
		return exitRuntime
	}
	if len(m.Versions) > 1 {
		printError(stderr, fmt.Sprintf("merge: the shards were counted by different versions (%s); their task lists are the same",
			clip.String(strings.Join(m.Versions, ", "), 200)))
	}
	elapsed := time.Duration(m.Seconds * float64(time.Second))
	o := report.Origin{Backend: strings.Join(m.Backends, "+"), Device: strings.Join(m.Devices, ","), Algo: m.Algo}
	if *asJSON {
		err = report.NewJSON(stdout, o).Row(m.N, m.Counts, elapsed)
	} else {
		t := report.NewTable(stdout, *verbose)
		if err = t.Header(); err == nil {
			err = t.Row(m.N, m.Counts, elapsed)
		}
	}
	if err != nil {
		return outputFailed(stderr, err)
	}
	return exitOK
}

func printMergeUsageError(w io.Writer, msg string) {
	printError(w, "merge: "+msg+" (run '"+progName+" merge -h' for help)")
}
