package main

import (
	"context"
	"flag"
	"io"

	"github.com/nqueens-gpu/nqueens-gpu/internal/app"
)

// runDevices runs `nqueens-gpu devices`.
func runDevices(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runDevicesWith(ctx, args, stdout, stderr, defaultHooks())
}

// runDevicesWith lists the GPUs the program can use, the NVIDIA driver
// and CUDA versions, the CPU and the build (app.Devices); without a GPU it
// says why on stderr and exits 1.
func runDevicesWith(ctx context.Context, args []string, stdout, stderr io.Writer, h hooks) int {
	out := checkedOutput(stdout)
	var asJSON bool
	_, err := parseFlags(devicesFlagSet(&asJSON), args)
	if err == nil {
		err = app.Devices(h, asJSON, out)
	}
	return done(err, "devices", out, stderr)
}

// devicesFlagSet defines the flags of devices, storing -json into asJSON.
func devicesFlagSet(asJSON *bool) *flag.FlagSet {
	fs := newFlagSet(progName + " devices")
	fs.BoolVar(asJSON, "json", false, "write the description as a JSON object")
	return fs
}
