package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/app"
	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/progress"
)

// Limits of the command line.
const (
	// maxPrintN is the largest N whose boards -print shows; N=12 already
	// has 14200 of them.
	maxPrintN = 12
	// defaultMaxBoards is the default of -max-boards.
	defaultMaxBoards = 100
	// The defaults of -checkpoint-interval and -progress-interval.
	defaultCheckpointInterval = job.DefaultCheckpointInterval
	defaultProgressInterval   = progress.DefaultInterval
)

// minProgressInterval is the shortest -progress-interval accepted
// (progress.MinInterval); the tests lower it to see several status lines
// in a short count.
var minProgressInterval = progress.MinInterval

// checkpointFloor is the shortest -checkpoint-interval accepted, as
// time.ParseDuration reads it: the checkpoint of a large count is tens of
// MiB. A build may lower it (-ldflags "-X main.checkpointFloor=50ms"), as
// scripts/soak-kill9.sh does to land its kills among many checkpoints.
var checkpointFloor = "1s"

// minCheckpointInterval is checkpointFloor as a duration (1 s if it does
// not read as one); the tests lower it.
var minCheckpointInterval = func() time.Duration {
	if d, err := time.ParseDuration(checkpointFloor); err == nil && d > 0 {
		return d
	}
	return time.Second
}()

// config is the parsed and checked command line of a count.
type config = app.CountOptions

// parseArgs parses and checks the command line of a count (without the
// program name). It returns flag.ErrHelp for -h and -help, errVersion for
// -version, a *usageError for anything else that is wrong, and never
// prints.
func parseArgs(args []string) (config, error) {
	var cfg config
	var common countFlags
	var shard string
	fs := countFlagSet(&cfg, &common, &shard)
	set, err := parseFlags(fs, args)
	if err != nil {
		return config{}, err
	}
	if set["version"] {
		return config{}, errVersion
	}
	if cfg.Lo, cfg.Hi, err = common.sizes(set, "missing -n: give a board size such as -n 8 or a range such as -n 4-16"); err != nil {
		return config{}, err
	}
	return checkCount(cfg, set, common, shard)
}

// countFlagSet defines the flags of a count, storing into cfg, common and
// shard.
func countFlagSet(cfg *config, common *countFlags, shard *string) *flag.FlagSet {
	fs := newFlagSet(progName)
	common.register(fs)
	fs.BoolVar(&cfg.Verbose, "v", false, "add the columns C2, C4, C8")
	fs.BoolVar(&cfg.JSON, "json", false, "one JSON object per N")
	fs.BoolVar(&cfg.Print, "print", false, "print the boards")
	fs.BoolVar(&cfg.Unique, "unique", false, "with -print: one board per symmetry class")
	fs.IntVar(&cfg.MaxBoards, "max-boards", defaultMaxBoards, "with -print: boards per N, 0 = all")
	fs.StringVar(&cfg.Checkpoint, "checkpoint", "", "checkpoint file to resume from and save to")
	fs.DurationVar(&cfg.CheckpointInterval, "checkpoint-interval", defaultCheckpointInterval, "time between checkpoint writes")
	fs.DurationVar(&cfg.ProgressInterval, "progress-interval", defaultProgressInterval, "time between status lines without a terminal")
	fs.BoolVar(&cfg.Quiet, "quiet", false, "no progress bar or status lines")
	fs.StringVar(shard, "shard", "", "count only shard i of m, as i/m")
	fs.BoolVar(&cfg.GPUTrace, "gpu-trace", false, "a line per GPU launch on stderr")
	fs.Bool("version", false, "print the version and exit")
	return fs
}

// checkCount converts and checks what parseArgs parsed into cfg: the flags
// set, the shared ones in common, and -shard.
func checkCount(cfg config, set map[string]bool, common countFlags, shard string) (config, error) {
	var err error
	cfg.Workers, cfg.Depth, cfg.Tune, cfg.RequireGPU = common.workers, common.depth, common.tune, common.requireGPU
	if set["algo"] {
		if cfg.Algo, err = nq.ParseAlgo(common.algo); err != nil {
			return config{}, usageErrorf("invalid -algo: %v", err)
		}
	}
	if cfg.Devices, err = device.Parse(common.device); err != nil {
		return config{}, usageErrorf("%s", err.Error())
	}
	if cfg.MaxBoards < 0 {
		return config{}, usageErrorf("invalid -max-boards %d: want 0 (no limit) or more", cfg.MaxBoards)
	}
	if cfg.Unique && !cfg.Print {
		return config{}, usageErrorf("-unique only applies to -print: use -print -unique")
	}
	if set["max-boards"] && !cfg.Print {
		return config{}, usageErrorf("-max-boards only applies to -print")
	}
	if cfg.Print && cfg.JSON {
		return config{}, usageErrorf("-print and -json cannot be combined")
	}
	if cfg.Print && cfg.Hi > maxPrintN {
		return config{}, usageErrorf("-print is limited to N <= %d so as not to flood the terminal (got N=%d); count larger N without -print", maxPrintN, cfg.Hi)
	}
	if set["checkpoint"] && cfg.Checkpoint == "" {
		return config{}, usageErrorf("-checkpoint is empty: give a file name such as -checkpoint n%d.ckpt", cfg.Lo)
	}
	if cfg.Checkpoint != "" && cfg.Lo != cfg.Hi {
		return config{}, usageErrorf("-checkpoint needs a single N, not the range %d-%d: a checkpoint holds one count", cfg.Lo, cfg.Hi)
	}
	if set["checkpoint-interval"] && cfg.Checkpoint == "" {
		return config{}, usageErrorf("-checkpoint-interval only applies with -checkpoint FILE")
	}
	if cfg.CheckpointInterval < minCheckpointInterval {
		return config{}, usageErrorf("invalid -checkpoint-interval %v: want %v or more, such as 5m (a large count's checkpoint is tens of MiB)", cfg.CheckpointInterval, minCheckpointInterval)
	}
	if cfg.ProgressInterval < minProgressInterval {
		return config{}, usageErrorf("invalid -progress-interval %v: want %v or more, such as 30s (shorter intervals flood a log)", cfg.ProgressInterval, minProgressInterval)
	}
	if set["shard"] {
		if cfg.Shard, err = plan.ParseShard(shard); err != nil {
			return config{}, usageErrorf("invalid -shard %s: %v", clip.Quote(shard, clip.Max), err)
		}
		cfg.Sharded = true
		if cfg.Lo != cfg.Hi {
			return config{}, usageErrorf("-shard needs a single N, not the range %d-%d", cfg.Lo, cfg.Hi)
		}
		if cfg.Print {
			return config{}, usageErrorf("-shard and -print cannot be combined: a shard counts only part of the boards")
		}
	}
	return cfg, nil
}

// runWith is run with the context and the hooks supplied by the caller,
// so that tests can use fake backends and a fixed clock; the program's
// name is progName.
func runWith(ctx context.Context, args []string, stdout, stderr io.Writer, h hooks) int {
	return runAs(ctx, progName, args, stdout, stderr, h)
}

// runAs counts (or prints the version) as the program started as name.
func runAs(ctx context.Context, name string, args []string, stdout, stderr io.Writer, h hooks) int {
	h = withBackends(h)
	out := checkedOutput(stdout)
	cfg, err := parseArgs(args)
	switch {
	case errors.Is(err, errVersion):
		io.WriteString(out, app.VersionLine(h)+"\n") // a failed write is out's error
		err = nil
	case err == nil:
		cfg.Args, cfg.Name = args, name
		err = app.Count(ctx, cfg, out, stderr, h)
	}
	return done(err, "", out, stderr)
}
