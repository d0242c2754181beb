package main

import (
	"context"
	"io"
)

// runMerge runs `nqueens-gpu merge`. Not written yet: it says so and fails.
func runMerge(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	printError(stderr, "the merge subcommand is not available yet")
	return exitRuntime
}
