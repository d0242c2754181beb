// Package layers has no code: its test keeps the import graph of the
// module flowing one way, spec → tasks → backend → partial sums → counts →
// report. The layers, from the bottom:
//
//	internal/*    types, tasks, the job, the device layer, reports
//	kernels       the CUDA sources and their PTX
//	cpu, gpu      the backends (gpu does not import cpu)
//	cmd/...       flags, wiring and printing (nothing imports it)
package layers
