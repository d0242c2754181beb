package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
)

// runMerge runs `nqueens-gpu merge`.
func runMerge(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	out := checkedOutput(stdout)
	defer func() { code = outputDone(code, out, stderr) }()
	stdout = out
	fs := flag.NewFlagSet(progName+" merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
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
	var srcs []job.Source
	for _, name := range files {
		s, err := readShardResults(name)
		if err != nil {
			printError(stderr, err.Error())
			return exitRuntime
		}
		srcs = append(srcs, s...)
	}
	m, err := job.Merge(srcs)
	if err != nil {
		printError(stderr, "merge: "+err.Error())
		return exitRuntime
	}
	if len(m.Versions) > 1 {
		printError(stderr, fmt.Sprintf("merge: the shards were counted by different versions (%s); their task lists are the same",
			strings.Join(m.Versions, ", ")))
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

// readShardResults reads the shard results of one file, one per line;
// blank lines are skipped.
func readShardResults(name string) ([]job.Source, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("merge: %v", err)
	}
	defer f.Close()
	var out []job.Source
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var r job.ShardResult
		if err := json.Unmarshal([]byte(text), &r); err != nil {
			return nil, fmt.Errorf("merge: %s:%d is not a shard result (%v)", name, line, err)
		}
		out = append(out, job.Source{Name: fmt.Sprintf("%s:%d", name, line), Result: r})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("merge: reading %s: %v", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("merge: %s holds no shard result", name)
	}
	if len(out) == 1 {
		out[0].Name = name
	}
	return out, nil
}

func printMergeUsageError(w io.Writer, msg string) {
	printError(w, "merge: "+msg+" (run '"+progName+" merge -h' for help)")
}
