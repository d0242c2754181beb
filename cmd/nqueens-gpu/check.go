package main

import (
	"context"
	"flag"
	"io"

	"github.com/nqueens-gpu/nqueens-gpu/internal/app"
	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
)

// checkConfig is the parsed check command line: the shared flags as typed
// and the options of app.Check.
type checkConfig struct {
	countFlags
	app.CheckOptions
}

// runCheck runs `nqueens-gpu check`.
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runCheckWith(ctx, args, stdout, stderr, defaultHooks())
}

func runCheckWith(ctx context.Context, args []string, stdout, stderr io.Writer, h hooks) int {
	out := checkedOutput(stdout)
	cfg, err := parseCheckArgs(args)
	if err == nil {
		cfg.Args = args
		err = app.Check(ctx, cfg.CheckOptions, out, stderr, h)
	}
	return done(err, "check", out, stderr)
}

func parseCheckArgs(args []string) (checkConfig, error) {
	var cfg checkConfig
	set, err := parseFlags(checkFlagSet(&cfg), args)
	if err != nil {
		return cfg, err
	}
	if cfg.Lo, cfg.Hi, err = cfg.sizes(set, "missing -n: give a range such as -n 4-16"); err != nil {
		return cfg, err
	}
	cfg.Workers, cfg.Depth, cfg.Tune, cfg.RequireGPU = cfg.workers, cfg.depth, cfg.tune, cfg.requireGPU
	if cfg.Devices, err = device.ParseList(cfg.device); err != nil {
		return cfg, usageErrorf("%s", err.Error())
	}
	if set["algo"] {
		if cfg.Algos, err = parseAlgoList(cfg.algo); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// checkFlagSet defines the flags of check, storing into cfg.
func checkFlagSet(cfg *checkConfig) *flag.FlagSet {
	fs := newFlagSet(progName + " check")
	cfg.register(fs)
	fs.BoolVar(&cfg.JSON, "json", false, "write a JSON document instead of the table")
	fs.StringVar(&cfg.Out, "o", "", "also write the JSON document to this file")
	return fs
}
