package main

import (
	"flag"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/internal/app"
	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
)

// Limits of the bench command line.
const (
	defaultBenchRuns   = 5
	defaultBenchWarmup = 1
	maxBenchRuns       = 10000
)

// benchConfig is the parsed bench command line: the shared flags as typed
// and the options of app.Bench.
type benchConfig struct {
	countFlags
	app.BenchOptions
}

// parseBenchArgs parses and checks the command line of bench.
func parseBenchArgs(args []string) (app.BenchOptions, error) {
	cfg := benchConfig{}
	var from string
	set, err := parseFlags(benchFlagSet(&cfg, &from), args)
	if err == nil {
		cfg, err = cfg.check(set, from)
	}
	cfg.Args = args
	return cfg.BenchOptions, err
}

// benchFlagSet defines the flags of bench, storing into cfg and from.
func benchFlagSet(cfg *benchConfig, from *string) *flag.FlagSet {
	fs := newFlagSet(progName + " bench")
	cfg.register(fs)
	fs.IntVar(&cfg.Runs, "runs", defaultBenchRuns, "timed runs per N")
	fs.IntVar(&cfg.Warmup, "warmup", defaultBenchWarmup, "untimed runs per N before the timed ones")
	fs.BoolVar(&cfg.JSON, "json", false, "write the bench JSON document to stdout")
	fs.StringVar(&cfg.Out, "o", "", "also write the bench JSON document to this file")
	fs.StringVar(&cfg.Baseline, "baseline", "", "compare with this earlier bench JSON file")
	fs.StringVar(&cfg.Plot, "plot", "", "write a plot of time against N (.png or .svg)")
	fs.StringVar(from, "from", "", "comma-separated bench JSON files to report on instead of measuring")
	return fs
}

// check converts and checks what parseBenchArgs parsed into cfg: the flags
// set and -from.
func (cfg benchConfig) check(set map[string]bool, from string) (benchConfig, error) {
	var err error
	if cfg.Plot != "" {
		if _, err := report.PlotFormat(cfg.Plot); err != nil {
			return cfg, usageErrorf("invalid -plot: %v", err)
		}
	}
	if set["from"] {
		for _, f := range strings.Split(from, ",") {
			if f = strings.TrimSpace(f); f == "" {
				return cfg, usageErrorf("invalid -from %s: want file names separated by commas", clip.Quote(from, clip.Max))
			}
			cfg.From = append(cfg.From, strings.TrimSpace(f))
		}
		for name := range set {
			switch name {
			case "from", "baseline", "plot":
			default:
				return cfg, usageErrorf("-%s does not apply to -from, which reports on files without measuring", name)
			}
		}
		if cfg.Baseline != "" && len(cfg.From) != 1 {
			return cfg, usageErrorf("-baseline with -from compares one file: give -from a single file")
		}
		return cfg, nil
	}
	if cfg.Sweep, err = cfg.sweep(set, "missing -n: give a board size such as -n 16 or a range such as -n 12-16"); err != nil {
		return cfg, err
	}
	if cfg.Runs < 1 || cfg.Runs > maxBenchRuns {
		return cfg, usageErrorf("invalid -runs %d: want 1 to %d", cfg.Runs, maxBenchRuns)
	}
	if cfg.Warmup < 0 || cfg.Warmup > maxBenchRuns {
		return cfg, usageErrorf("invalid -warmup %d: want 0 to %d", cfg.Warmup, maxBenchRuns)
	}
	if cfg.Out != "" && cfg.Out == cfg.Plot {
		return cfg, usageErrorf("-o and -plot name the same file %s: one would overwrite the other", clip.Quote(cfg.Out, clip.Max))
	}
	if cfg.Out != "" && cfg.Out == cfg.Baseline {
		return cfg, usageErrorf("-o and -baseline name the same file %s: the baseline would be overwritten", clip.Quote(cfg.Out, clip.Max))
	}
	return cfg, nil
}
