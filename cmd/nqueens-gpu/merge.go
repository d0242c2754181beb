package main

import (
	"errors"
	"flag"

	"github.com/nqueens-gpu/nqueens-gpu/internal/app"
)

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
