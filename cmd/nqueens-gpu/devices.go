package main

import (
	"flag"

	"github.com/nqueens-gpu/nqueens-gpu/internal/app"
)

// parseDevicesArgs parses the command line of devices: -json alone.
func parseDevicesArgs(args []string) (app.DevicesOptions, error) {
	var opt app.DevicesOptions
	_, err := parseFlags(devicesFlagSet(&opt), args)
	return opt, err
}

// devicesFlagSet defines the flags of devices, storing into opt.
func devicesFlagSet(opt *app.DevicesOptions) *flag.FlagSet {
	fs := newFlagSet(progName + " devices")
	fs.BoolVar(&opt.JSON, "json", false, "write the description as a JSON object")
	return fs
}
