package main

import (
	"context"
	"io"
)

// runBench runs `nqueens-gpu bench`. Not written yet: it says so and fails.
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	printError(stderr, "the bench subcommand is not available yet")
	return exitRuntime
}
