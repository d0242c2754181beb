package main

import (
	"flag"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
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
	defaultCheckpointInterval = time.Minute
	defaultProgressInterval   = 30 * time.Second
)

// minProgressInterval is the shortest -progress-interval accepted
// (progress.MinInterval); the tests lower it to see several status lines
// in a short count.
var minProgressInterval = progress.MinInterval

// config is the parsed and checked command line of a count.
type config struct {
	lo, hi    int     // the sizes to count, lo <= hi
	algo      nq.Algo // "" picks the fastest algorithm of the devices
	devices   device.Set
	workers   int // CPU goroutines, 0 = one per core
	verbose   bool
	json      bool
	print     bool
	unique    bool
	maxBoards int // boards shown per N with -print, 0 = all

	// Long runs.
	checkpoint         string        // checkpoint file, "" for none
	checkpointInterval time.Duration // between checkpoint writes
	progressInterval   time.Duration // between status lines without a terminal
	quiet              bool          // no progress reports
	sharded            bool          // -shard was given: write a shard result
	shard              plan.Shard    // the share of the batches to count

	// Tuning.
	depth      int        // rows of the partial boards, 0 = chosen from N and the GPUs (nq.Spec)
	tune       gpu.Tuning // the GPU kernels' variant and launch shape
	requireGPU bool       // exit 1 rather than fall back to the CPU
	gpuTrace   bool       // a line per GPU launch on stderr (traceLaunches)
}

// parseArgs parses and checks the command line of a count (without the
// program name). It returns flag.ErrHelp for -h and -help, a *usageError
// for anything else that is wrong, and never prints.
func parseArgs(args []string) (config, error) {
	var cfg config
	var common countFlags
	var shard string
	fs := countFlagSet(&cfg, &common, &shard)
	set, err := parseFlags(fs, args)
	if err != nil {
		return config{}, err
	}
	if cfg.lo, cfg.hi, err = common.sizes(set, "missing -n: give a board size such as -n 8 or a range such as -n 4-16"); err != nil {
		return config{}, err
	}
	return cfg.check(set, common, shard)
}

// countFlagSet defines the flags of a count, storing into cfg, common and
// shard.
func countFlagSet(cfg *config, common *countFlags, shard *string) *flag.FlagSet {
	fs := newFlagSet(progName)
	common.register(fs)
	fs.BoolVar(&cfg.verbose, "v", false, "add the columns C2, C4, C8")
	fs.BoolVar(&cfg.json, "json", false, "one JSON object per N")
	fs.BoolVar(&cfg.print, "print", false, "print the boards")
	fs.BoolVar(&cfg.unique, "unique", false, "with -print: one board per symmetry class")
	fs.IntVar(&cfg.maxBoards, "max-boards", defaultMaxBoards, "with -print: boards per N, 0 = all")
	fs.StringVar(&cfg.checkpoint, "checkpoint", "", "checkpoint file to resume from and save to")
	fs.DurationVar(&cfg.checkpointInterval, "checkpoint-interval", defaultCheckpointInterval, "time between checkpoint writes")
	fs.DurationVar(&cfg.progressInterval, "progress-interval", defaultProgressInterval, "time between status lines without a terminal")
	fs.BoolVar(&cfg.quiet, "quiet", false, "no progress bar or status lines")
	fs.StringVar(shard, "shard", "", "count only shard i of m, as i/m")
	fs.BoolVar(&cfg.gpuTrace, "gpu-trace", false, "a line per GPU launch on stderr")
	return fs
}

// check converts and checks what parseArgs parsed into cfg: the flags
// set, the shared ones in common, and -shard.
func (cfg config) check(set map[string]bool, common countFlags, shard string) (config, error) {
	var err error
	cfg.workers, cfg.depth, cfg.tune, cfg.requireGPU = common.workers, common.depth, common.tune, common.requireGPU
	if set["algo"] {
		if cfg.algo, err = nq.ParseAlgo(common.algo); err != nil {
			return config{}, usageErrorf("invalid -algo: %v", err)
		}
	}
	if cfg.devices, err = device.Parse(common.device); err != nil {
		return config{}, &usageError{msg: err.Error()}
	}
	if cfg.maxBoards < 0 {
		return config{}, usageErrorf("invalid -max-boards %d: want 0 (no limit) or more", cfg.maxBoards)
	}
	if cfg.unique && !cfg.print {
		return config{}, usageErrorf("-unique only applies to -print: use -print -unique")
	}
	if set["max-boards"] && !cfg.print {
		return config{}, usageErrorf("-max-boards only applies to -print")
	}
	if cfg.print && cfg.json {
		return config{}, usageErrorf("-print and -json cannot be combined")
	}
	if cfg.print && cfg.hi > maxPrintN {
		return config{}, usageErrorf("-print is limited to N <= %d so as not to flood the terminal (got N=%d); count larger N without -print", maxPrintN, cfg.hi)
	}
	if set["checkpoint"] && cfg.checkpoint == "" {
		return config{}, usageErrorf("-checkpoint is empty: give a file name such as -checkpoint n%d.ckpt", cfg.lo)
	}
	if cfg.checkpoint != "" && cfg.lo != cfg.hi {
		return config{}, usageErrorf("-checkpoint needs a single N, not the range %d-%d: a checkpoint holds one count", cfg.lo, cfg.hi)
	}
	if set["checkpoint-interval"] && cfg.checkpoint == "" {
		return config{}, usageErrorf("-checkpoint-interval only applies with -checkpoint FILE")
	}
	if cfg.checkpointInterval <= 0 {
		return config{}, usageErrorf("invalid -checkpoint-interval %v: want a positive duration such as 5m", cfg.checkpointInterval)
	}
	if cfg.progressInterval < minProgressInterval {
		return config{}, usageErrorf("invalid -progress-interval %v: want %v or more, such as 30s (shorter intervals flood a log)", cfg.progressInterval, minProgressInterval)
	}
	if set["shard"] {
		if cfg.shard, err = plan.ParseShard(shard); err != nil {
			return config{}, usageErrorf("invalid -shard %s: %v", clip.Quote(shard, clip.Max), err)
		}
		cfg.sharded = true
		if cfg.lo != cfg.hi {
			return config{}, usageErrorf("-shard needs a single N, not the range %d-%d", cfg.lo, cfg.hi)
		}
		if cfg.print {
			return config{}, usageErrorf("-shard and -print cannot be combined: a shard counts only part of the boards")
		}
	}
	return cfg, nil
}
