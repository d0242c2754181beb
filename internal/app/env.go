package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/internal/gpuinfo"
	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
)

// VersionLine is what -version and `nqueens-gpu version` print: the
// program's name and its build (buildinfo.Info.String).
func VersionLine(h Hooks) string { return Program + " " + h.WithDefaults().Build.String() }

// Version writes VersionLine to stdout; it takes no options.
func Version(_ context.Context, _ struct{}, stdout, _ io.Writer, h Hooks) error {
	if _, err := io.WriteString(stdout, VersionLine(h)+"\n"); err != nil {
		return &OutputError{err}
	}
	return nil
}

// Env describes the machine, the build and the GPUs for bench, check and
// devices; its error is the GPU list's.
func Env(h Hooks, tune gpuinfo.Tuning) (report.Env, error) {
	h = h.WithDefaults()
	d := h.Drivers(tune)
	p := report.Probe{Build: h.Build}
	if d.CPUSearch != nil {
		p.CPUSearch = d.CPUSearch()
	}
	p.CUDABuild, p.PTXBuild = d.Build()
	if d.Driver != nil {
		if di, err := d.Driver(); err == nil {
			p.NVIDIADriver, p.CUDADriver = di.Version, di.CUDAVersion()
		}
	}
	gpus, err := d.GPUs()
	switch {
	case err != nil:
		p.GPUNote = err.Error()
	case len(gpus) == 0:
		p.GPUNote = "the driver sees no GPU"
	}
	for _, g := range gpus {
		p.GPUs = append(p.GPUs, report.GPU{Ordinal: g.Ordinal, Name: g.Name,
			ComputeCapability: fmt.Sprintf("%d.%d", g.Major, g.Minor), SMs: g.SMs, MemBytes: g.MemBytes})
	}
	return report.GatherEnv(p), err
}

// envOf is the environment of a bench or check report.
func envOf(h Hooks, tune gpuinfo.Tuning) report.Env {
	e, _ := Env(h, tune) // a GPU list's error is in e.GPUNote
	return e
}

// DevicesOptions are the parsed command line of devices.
type DevicesOptions struct {
	JSON bool
}

// Devices writes the description of the machine (Env) as text, or JSON
// with opt.JSON; without a GPU to count on it says why in its error.
func Devices(_ context.Context, opt DevicesOptions, stdout, _ io.Writer, h Hooks) error {
	h = h.WithDefaults()
	env, err := Env(h, gpuinfo.Tuning{})
	if opt.JSON {
		if err2 := report.WriteJSON(stdout, &env); err2 != nil {
			return &OutputError{err2}
		}
	} else {
		var b strings.Builder
		report.WriteEnvText(&b, &env)
		if _, err2 := io.WriteString(stdout, b.String()); err2 != nil {
			return &OutputError{err2}
		}
	}
	if len(env.GPUs) > 0 {
		return nil
	}
	msg := "no GPU to count on: " + env.GPUNote
	if err != nil {
		// The few words of the fallback line; the details are in the
		// GPU row above.
		cause, fix := h.Drivers(gpuinfo.Tuning{}).Explain(err)
		msg = "no GPU to count on: " + cause
		if fix != "" {
			msg += "; to use a GPU, " + fix
		}
	}
	return errors.New(msg)
}
