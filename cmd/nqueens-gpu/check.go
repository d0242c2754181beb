package main

import (
	"context"
	"io"
)

// runCheck runs `nqueens-gpu check`. Not written yet: it says so and fails.
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	printError(stderr, "the check subcommand is not available yet")
	return exitRuntime
}
