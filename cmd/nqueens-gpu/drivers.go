package main

import (
	"runtime"

	"github.com/nqueens-gpu/nqueens-gpu/cpu"
	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// realDrivers are the cpu and gpu packages' devices, GPUs opened with
// tune: the program's app.Hooks.Drivers (app sits below the backends and
// is given them here), the rest filled by withBuild.
func realDrivers(tune gpu.Tuning) device.Drivers {
	return device.Drivers{
		CPU:   func(workers int) nq.Backend { return cpu.New(workers) },
		Procs: func() int { return runtime.GOMAXPROCS(0) },
		GPUs:  gpu.Devices,
		OpenGPU: func(ordinal int) (nq.Backend, error) {
			b, err := gpu.OpenWith(ordinal, tune)
			if err != nil {
				return nil, err // not a typed nil in an interface
			}
			return b, nil
		},
		GPUAlgos: gpu.Algos(),
		Cause:    gpu.Cause,
		Fix:      gpu.Fix,
	}
}

// withBackends is h with the cpu and gpu packages wired in: realDrivers
// where h has no Drivers, and withBuild's parts where they have none.
func withBackends(h hooks) hooks {
	if h.Drivers == nil {
		h.Drivers = realDrivers
	}
	h.Drivers = withBuild(h.Drivers)
	return h
}

// withBuild is drivers with what describes this binary and host (the
// driver, the CUDA build, the CPU search) and the head packed ahead taken
// from the cpu and gpu packages where drivers leave them nil, as fakes
// that stand in for the devices only do.
func withBuild(drivers func(gpu.Tuning) device.Drivers) func(gpu.Tuning) device.Drivers {
	return func(tune gpu.Tuning) device.Drivers {
		d := drivers(tune)
		if d.Driver == nil {
			d.Driver = gpu.Driver
		}
		if d.CUDABuild == nil {
			d.CUDABuild = gpu.CUDABuild
		}
		if d.CPUSearch == nil {
			d.CPUSearch = cpu.EightfoldPath
		}
		if d.PrepareHead == nil {
			d.PrepareHead = gpu.PrepareEightfold
		}
		if d.ForgetPrepared == nil {
			d.ForgetPrepared = gpu.ForgetPrepared
		}
		return d
	}
}
