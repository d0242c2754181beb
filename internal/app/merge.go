package app

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
	"github.com/nqueens-gpu/nqueens-gpu/internal/shard"
)

// MergeOptions are the parsed command line of merge.
type MergeOptions struct {
	Files   []string // the files of shard results
	JSON    bool
	Verbose bool
}

// Merge reads the shard results in opt's files, checks that they are every
// shard of one job, whole and unchanged, makes the job's plan again
// (Hooks.Plan) to check their fingerprint, and prints the combined counts.
// Every error about the files or what they hold names the file and line.
func Merge(_ context.Context, opt MergeOptions, stdout, stderr io.Writer, h Hooks) error {
	var srcs []shard.Source
	for _, name := range opt.Files {
		// Regular files only, of bounded size and line length: a FIFO
		// or a device would hang the merge or never end.
		s, err := shard.ReadFile(name)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		srcs = append(srcs, s...)
	}
	makePlan := h.Plan
	if makePlan == nil {
		makePlan = plan.Make
	}
	m, err := shard.Merge(srcs, makePlan)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	if len(m.Versions) > 1 {
		PrintError(stderr, fmt.Sprintf("merge: the shards were counted by different versions (%s); their task lists are the same",
			clip.String(strings.Join(m.Versions, ", "), 200)))
	}
	elapsed := time.Duration(m.Seconds * float64(time.Second))
	// The merged record's build is merge's; the shards' are in their files.
	o := report.Origin{Backend: strings.Join(m.Backends, "+"), Device: strings.Join(m.Devices, ","), Algo: m.Algo, Build: h.WithDefaults().Build}
	if opt.JSON {
		err = report.NewJSON(stdout, o).Row(m.N, m.Counts, elapsed)
	} else {
		t := report.NewTable(stdout, opt.Verbose)
		if err = t.Header(); err == nil {
			err = t.Row(m.N, m.Counts, elapsed)
		}
	}
	if err != nil {
		return &OutputError{err}
	}
	return nil
}
