package main

import (
	"context"
	"errors"
	"io"

	"github.com/nqueens-gpu/nqueens-gpu/internal/app"
)

// errVersion is what parseArgs returns for -version: the count prints
// the version line instead of counting.
var errVersion = errors.New("-version")

// runVersion runs `nqueens-gpu version`.
func runVersion(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runVersionWith(args, stdout, stderr, defaultHooks())
}

// runVersionWith prints the version line (app.VersionLine): the module
// version, the commit, Go and the CUDA build.
func runVersionWith(args []string, stdout, stderr io.Writer, h hooks) int {
	out := checkedOutput(stdout)
	_, err := parseFlags(newFlagSet(progName+" version"), args)
	if err == nil {
		io.WriteString(out, app.VersionLine(h)+"\n") // a failed write is out's error
	}
	return done(err, "version", out, stderr)
}
