// Package layers holds the order of the module's packages, from the
// bottom up, that docs/architecture.md draws; its test keeps the import
// graph to it: spec → tasks → backend → partial sums → counts → report.
// Its tests also keep the house rules of the source: no comment over 15
// lines (a package's doc.go aside) and no function of internal/job or gpu
// over 60 lines.
//
// A package imports only packages of lower layers, and the backends (cpu,
// gpu) none of the packages that run them. A test may also import any
// package below the commands, to check its package with the others.
// Every package of the module has its layer here: a new one fails the
// test until it is placed (and docs/architecture.md, which the test
// compares with this order, says where).
package layers

// Order lists the module's packages by layer, the lowest first.
var Order = [][]string{
	{"internal/clip", "internal/symmetry", "internal/batchset", "internal/benchstat", "internal/buildinfo", "internal/fsutil", "internal/fakecuda", "internal/gpuinfo", "kernels"},
	{"internal/nq", "internal/tasks", "internal/fsutil/fsutiltest", "internal/layers", "kernels/internal/ptxgen"},
	{"internal/known", "internal/boards", "internal/burnside", "internal/estimate", "internal/tasks/taskstest", "internal/eflanes", "kernels/host", "gpu/internal/kernelgen"},
	{"internal/plan"},
	{"internal/checkpoint", "internal/device"},
	{"internal/job", "internal/shard"},
	{"internal/job/jobtest", "internal/progress", "internal/report"},
	{"internal/app"},
	{"cpu", "gpu"},
	{"cmd/nqueens-gpu", "scripts/benchdoc", "scripts/cpubench", "scripts/gpuchecks", "scripts/kernelreport", "scripts/warpsim"},
}
