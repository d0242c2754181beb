package main

import (
	"errors"
)

// errVersion is what parseArgs returns for -version: the count prints
// the version line instead of counting.
var errVersion = errors.New("-version")

// parseVersionArgs parses the command line of version: no flags.
func parseVersionArgs(args []string) (struct{}, error) {
	_, err := parseFlags(newFlagSet(progName+" version"), args)
	return struct{}{}, err
}
