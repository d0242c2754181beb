package main

import (
	"embed"
	"io"
	"strconv"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/progress"
)

// The -h texts of the command and its subcommands, one file each in help/.
//
//go:embed help/*.txt
var helpFS embed.FS

// helpText returns the -h text of name ("count", "bench", "check",
// "merge") with the program's defaults filled in.
func helpText(name string) string {
	b, err := helpFS.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("no help text " + name) // the files are embedded: a bug
	}
	return strings.NewReplacer(
		"{ALGOS}", algoNames(nq.Algos()),
		"{GPUALGOS}", algoNames(gpu.Algos()),
		"{CPUDEFAULT}", string(plan.DefaultAlgo),
		"{GPUDEFAULT}", string(plan.DefaultAlgo),
		"{MAXBOARDS}", strconv.Itoa(defaultMaxBoards),
		"{MAXPRINTN}", strconv.Itoa(maxPrintN),
		"{MINN}", strconv.Itoa(nq.MinN),
		"{MAXN}", strconv.Itoa(nq.MaxN),
		"{CKINTERVAL}", defaultCheckpointInterval.String(),
		"{PROGINTERVAL}", defaultProgressInterval.String(),
		"{MINPROGINTERVAL}", progress.MinInterval.String(),
		"{STOPWAIT}", job.DefaultStopWait.String(),
	).Replace(string(b))
}

// writeHelp writes the -h text of name to w.
func writeHelp(w io.Writer, name string) error {
	_, err := io.WriteString(w, helpText(name))
	return err
}
