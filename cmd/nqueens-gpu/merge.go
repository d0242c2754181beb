package main

import (
	"context"
	"errors"
	"flag"
	"io"

	"github.com/nqueens-gpu/nqueens-gpu/internal/app"
)

// runMerge runs `nqueens-gpu merge`.
func runMerge(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runMergeWith(ctx, args, stdout, stderr, defaultHooks())
}

// runMergeWith merges the shard results in the files of args (app.Merge).
func runMergeWith(ctx context.Context, args []string, stdout, stderr io.Writer, h hooks) int {
	out := checkedOutput(stdout)
	opt, err := parseMergeArgs(args)
	if err == nil {
		err = app.Merge(opt, out, stderr, h)
	}
	return done(err, "merge", out, stderr)
}

// parseMergeArgs parses the command line of merge: its flags may come
// before, between or after the files.
func parseMergeArgs(args []string) (app.MergeOptions, error) {
	var opt app.MergeOptions
	fs := newFlagSet(progName + " merge")
	fs.BoolVar(&opt.JSON, "json", false, "one JSON object")
	fs.BoolVar(&opt.Verbose, "v", false, "add C2, C4, C8")
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return opt, err
			}
			return opt, usageErrorf("%s", err.Error())
		}
		if fs.NArg() == 0 {
			break
		}
		opt.Files = append(opt.Files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(opt.Files) == 0 {
		return opt, usageErrorf("no files: give the shard results to merge, as in merge shard-*.json")
	}
	return opt, nil
}
