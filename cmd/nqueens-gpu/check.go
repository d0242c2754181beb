package main

import (
	"flag"

	"github.com/nqueens-gpu/nqueens-gpu/internal/app"
)

// checkConfig is the parsed check command line: the shared flags as typed
// and the options of app.Check.
type checkConfig struct {
	countFlags
	app.CheckOptions
}

// parseCheckArgs parses and checks the command line of check.
func parseCheckArgs(args []string) (app.CheckOptions, error) {
	var cfg checkConfig
	set, err := parseFlags(checkFlagSet(&cfg), args)
	if err == nil {
		cfg.Sweep, err = cfg.sweep(set, "missing -n: give a range such as -n 4-16")
	}
	cfg.Args = args
	return cfg.CheckOptions, err
}

// checkFlagSet defines the flags of check, storing into cfg.
func checkFlagSet(cfg *checkConfig) *flag.FlagSet {
	fs := newFlagSet(progName + " check")
	cfg.register(fs)
	fs.BoolVar(&cfg.JSON, "json", false, "write a JSON document instead of the table")
	fs.StringVar(&cfg.Out, "o", "", "also write the JSON document to this file")
	return fs
}
