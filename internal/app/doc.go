// Package app runs the commands of nqueens-gpu once their flags are
// parsed: a count of a range of N (Count), bench (Bench), check (Check),
// merge (Merge) and the description of the machine (Env). Each writes its
// results to stdout and its diagnostics to stderr and returns an error;
// ExitCode turns that error into the program's exit status, in one place.
//
// The commands reach the devices, the clock and the job's plan through
// Hooks, so that the tests of the command run them on fakes.
package app
