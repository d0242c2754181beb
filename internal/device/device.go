// Package device decides where a count runs. It parses a -device value
// once (Parse, ParseList), opens the CPU and GPU backends behind one
// interface (Open), falls back to the CPU with the reason when no GPU can
// be used, and says what it opened: the backends of a job and those that
// count beside the GPUs (Devices.Beside). The counting command, bench and check all go through
// it, so that "-device all" means every GPU everywhere.
//
// It reaches the backends only through Drivers, which the command fills
// with the cpu and gpu packages and tests fill with fakes: package device
// imports neither.
package device

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
	"github.com/nqueens-gpu/nqueens-gpu/internal/gpuinfo"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// Set is one parsed -device value: the CPU, GPUs by ordinal or all of
// them, or GPUs and the CPU side by side ("all,cpu", "0,2,cpu").
type Set struct {
	CPU      bool  // the CPU counts (alone, or next to the GPUs)
	All      bool  // every GPU
	Ordinals []int // the GPUs named, in the order given
}

// GPUs reports whether the set asks for any GPU.
func (s Set) GPUs() bool { return s.All || len(s.Ordinals) > 0 }

// String writes the set as Parse reads it.
func (s Set) String() string {
	var parts []string
	if s.All {
		parts = append(parts, "all")
	}
	for _, o := range s.Ordinals {
		parts = append(parts, strconv.Itoa(o))
	}
	if s.CPU || len(parts) == 0 {
		parts = append(parts, "cpu")
	}
	return strings.Join(parts, ",")
}

// UsageError is a -device request that is wrong as written: a malformed
// value, a GPU ordinal that does not exist, an algorithm without a GPU
// kernel. The command exits with its usage status.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

// item parses one entry of a -device list: "cpu", "all" or an ordinal.
func item(s string) (cpu, all bool, ordinal int, ok bool) {
	switch strings.ToLower(s) {
	case "cpu":
		return true, false, 0, true
	case "all":
		return false, true, 0, true
	}
	if s != "" && strings.Trim(s, "0123456789") == "" {
		if k, err := strconv.Atoi(s); err == nil {
			return false, false, k, true
		}
	}
	return false, false, 0, false
}

// Parse parses the -device of a count: a comma-separated list of "cpu",
// "all" and GPU ordinals, each at most once; the devices of the list count
// together.
func Parse(s string) (Set, error) {
	var d Set
	seen := map[string]bool{}
	for _, it := range strings.Split(s, ",") {
		cpu, all, ordinal, ok := item(it)
		if !ok {
			if strings.Contains(s, ",") {
				return Set{}, usagef("invalid -device %s: %s is not cpu, a GPU ordinal such as 0, or all", clip.Quote(s, clip.Max), clip.Quote(it, clip.Max))
			}
			return Set{}, usagef("invalid -device %s: want cpu, a GPU ordinal such as 0, all, or a list such as 0,2 or all,cpu", clip.Quote(s, clip.Max))
		}
		key := strings.ToLower(it)
		if !cpu && !all {
			key = strconv.Itoa(ordinal)
		}
		if seen[key] {
			return Set{}, usagef("invalid -device %s: %s is listed twice", clip.Quote(s, clip.Max), key)
		}
		seen[key] = true
		switch {
		case cpu:
			d.CPU = true
		case all:
			d.All = true
		default:
			d.Ordinals = append(d.Ordinals, ordinal)
		}
	}
	if d.All && len(d.Ordinals) > 0 {
		return Set{}, usagef("invalid -device %s: all already takes every GPU", clip.Quote(s, clip.Max))
	}
	return d, nil
}

// ParseList parses the -device of bench and check: a comma-separated list
// of "cpu", "all" and GPU ordinals, each at most once, each entry a device
// set of its own that is measured on its own ("all": every GPU together,
// as in a count).
func ParseList(s string) ([]Set, error) {
	var out []Set
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		cpu, all, ordinal, ok := item(f)
		if !ok {
			return nil, usagef("invalid -device %s: want cpu, a GPU ordinal such as 0, or all, several separated by commas", clip.Quote(s, clip.Max))
		}
		d := Set{CPU: cpu, All: all}
		if !cpu && !all {
			d.Ordinals = []int{ordinal}
		}
		if seen[d.String()] {
			return nil, usagef("invalid -device %s: %s is listed twice", clip.Quote(s, clip.Max), d)
		}
		seen[d.String()] = true
		out = append(out, d)
	}
	return out, nil
}

// NodeCounter is a backend that counts search nodes (the GPU kernels'
// -gpu-nodes variants). TakeNodes returns the nodes counted since the last
// call and starts again from zero.
type NodeCounter interface {
	TakeNodes() uint64
}

// Drivers are the ways to the devices: the command fills them with the cpu
// and gpu packages, tests with fakes.
type Drivers struct {
	// CPU returns the CPU backend with workers goroutines.
	CPU func(workers int) nq.Backend
	// Procs is the number of goroutines the CPU runs at once
	// (GOMAXPROCS): the CPU's workers when none are asked for.
	Procs func() int
	// GPUs lists the GPUs; its error says why none can be used (a build
	// without CUDA, no driver, no device).
	GPUs func() ([]gpuinfo.DeviceInfo, error)
	// OpenGPU opens the GPU with the ordinal.
	OpenGPU func(ordinal int) (nq.Backend, error)
	// GPUAlgos lists the algorithms that have a GPU kernel.
	GPUAlgos []nq.Algo
	// Cause says in a few words why an error of GPUs or OpenGPU keeps
	// the GPUs from counting, without the error's details ("" when it
	// knows no cause: the error's text is said instead); nil knows none.
	Cause func(error) string
	// Fix says in one clause what the user can do about an error of GPUs
	// or OpenGPU ("" when it knows nothing to say); nil says nothing.
	Fix func(error) string
	// Driver describes the NVIDIA driver; nil knows none.
	Driver func() (gpuinfo.DriverInfo, error)
	// CUDABuild says whether the binary was built with the CUDA path, and
	// its kernels' PTX build; nil means without.
	CUDABuild func() (cuda bool, ptx string)
	// CPUSearch names the CPU path's search; nil names none.
	CPUSearch func() string
	// PrepareHead packs the first launch of a GPU count of spec while
	// the GPUs open; nil packs nothing.
	PrepareHead func(ctx context.Context, spec nq.Spec) error
	// ForgetPrepared drops what PrepareHead packed and no count took;
	// nil has nothing to drop.
	ForgetPrepared func()
}

// Build is CUDABuild's answer, or none.
func (d Drivers) Build() (cuda bool, ptx string) {
	if d.CUDABuild == nil {
		return false, ""
	}
	return d.CUDABuild()
}

// Forget calls ForgetPrepared, if d has one.
func (d Drivers) Forget() {
	if d.ForgetPrepared != nil {
		d.ForgetPrepared()
	}
}

// Explain is why err keeps the GPUs from counting, in a few words (Cause,
// else err's text), and what to do about it (Fix, or "").
func (d Drivers) Explain(err error) (cause, fix string) {
	if d.Cause != nil {
		cause = d.Cause(err)
	}
	if cause == "" {
		cause = err.Error()
	}
	if d.Fix != nil {
		fix = d.Fix(err)
	}
	return cause, fix
}

// Options are the choices of a count that opening devices depends on.
type Options struct {
	// Workers is the number of CPU goroutines; 0 means one per core, less
	// one per GPU that counts next to the CPU.
	Workers int
	// Algo is the algorithm asked for; "" means the default of the
	// devices that open (plan.Algo).
	Algo nq.Algo
	// RequireGPU refuses the fallback to the CPU: Open returns a
	// *FallbackError instead.
	RequireGPU bool
}

// FallbackError is the error of Open when GPUs were asked for, none can be
// used and Options.RequireGPU refuses the CPU. It is a run-time error, not
// a usage error.
type FallbackError struct {
	Cause, Fix string
}

func (e *FallbackError) Error() string {
	s := e.Cause
	if e.Fix != "" {
		s += "; to use a GPU, " + e.Fix
	}
	return s + "; -require-gpu refuses to count on the CPU instead"
}

// Devices is what Open opened: the backends that count, and what the
// output says about them.
type Devices struct {
	// Backends are the GPUs that opened, in the order asked, then the
	// CPU when it counts.
	Backends []nq.Backend
	// GPUs describes the GPUs that opened; empty on the CPU alone.
	GPUs []gpuinfo.DeviceInfo
	// Kind is "cpu", "gpu" or "gpu+cpu"; Device is "cpu", the GPU
	// ordinals ("0", "0,1") and ",cpu" when the CPU counts next to them;
	// DeviceName joins the GPUs' names.
	Kind, Device, DeviceName string
	// Algo is the algorithm the count runs.
	Algo nq.Algo
	// CPUWorkers is the CPU's goroutines; 0 when the CPU does not count.
	CPUWorkers int
	// Fallback says in a few words why a GPU request runs on the CPU; ""
	// when it does not. FallbackFix says what to do about it, when
	// something can be said, and FallbackDetail what the driver said
	// beyond Fallback (the library's file, its status), or "".
	Fallback, FallbackFix, FallbackDetail string
	// LeftOut lists, one line each, the GPUs of several that did not open
	// while others did.
	LeftOut []string

	gpuAlgos []nq.Algo // the algorithms the GPUs run
}

// Check returns a *UsageError when the GPUs that count have no kernel for
// algo; the CPU runs every algorithm.
func (d *Devices) Check(algo nq.Algo) error {
	if len(d.GPUs) == 0 || supports(d.gpuAlgos, algo) {
		return nil
	}
	var alts []string
	for _, a := range d.gpuAlgos {
		alts = append(alts, "-algo "+string(a))
	}
	return usagef("-algo %s has no GPU kernel; use %s, or -device cpu", algo, strings.Join(alts, " or "))
}

// Open opens the devices of set. A GPU request that cannot be met because
// no GPU is usable (none found, none that opens, or an ordinal that does
// not exist) falls back to the CPU (Fallback says why, FallbackFix what to
// do), or with Options.RequireGPU returns a *FallbackError; of several
// GPUs, one that does not exist or does not open is left out (LeftOut).
// It returns a *UsageError for an explicit algorithm without a GPU kernel
// on GPUs that opened.
func Open(set Set, opt Options, d Drivers) (*Devices, error) {
	if !set.GPUs() {
		return cpuOnly(opt, d, noGPU{}), nil
	}
	gs, infos, no, leftOut := openGPUs(set, d)
	if len(gs) == 0 {
		if opt.RequireGPU {
			return nil, &FallbackError{Cause: no.why, Fix: no.fix}
		}
		return cpuOnly(opt, d, no), nil
	}
	closeAll := func() {
		for _, g := range gs {
			g.Close()
		}
	}
	algo := plan.Algo(opt.Algo)
	var ordinals, names []string
	for _, g := range infos {
		ordinals = append(ordinals, strconv.Itoa(g.Ordinal))
		names = append(names, g.Name)
	}
	devs := &Devices{
		Backends:   gs,
		GPUs:       infos,
		Kind:       "gpu",
		Device:     strings.Join(ordinals, ","),
		DeviceName: strings.Join(names, ", "),
		Algo:       algo,
		LeftOut:    leftOut,
		gpuAlgos:   d.GPUAlgos,
	}
	if err := devs.Check(algo); err != nil {
		closeAll()
		return nil, err
	}
	if set.CPU {
		// Each GPU needs a core to enumerate its tasks and drive it.
		w := opt.Workers
		if w == 0 {
			w = max(1, d.Procs()-len(gs))
		}
		devs.Backends = append(devs.Backends, d.CPU(w))
		devs.CPUWorkers = w
		devs.Kind, devs.Device = "gpu+cpu", devs.Device+",cpu"
	}
	return devs, nil
}

// noGPU is why a GPU request counts on the CPU: why, in a few words, what
// to do about it, and the driver's details beyond why ("" for none).
type noGPU struct{ why, fix, detail string }

// cpuOnly is the CPU with opt's workers; no says why a GPU request ended
// up there (zero: it did not).
func cpuOnly(opt Options, d Drivers, no noGPU) *Devices {
	w := opt.Workers
	if w == 0 {
		w = d.Procs()
	}
	return &Devices{
		Backends:       []nq.Backend{d.CPU(w)},
		Kind:           "cpu",
		Device:         "cpu",
		Algo:           plan.Algo(opt.Algo),
		CPUWorkers:     w,
		Fallback:       no.why,
		FallbackFix:    no.fix,
		FallbackDetail: no.detail,
	}
}

func supports(algos []nq.Algo, a nq.Algo) bool {
	for _, x := range algos {
		if x == a {
			return true
		}
	}
	return false
}

// openGPUs opens the GPUs of set. It returns them and their
// descriptions, or none and the reason to fall back to the CPU. Of
// several GPUs, one that does not exist or does not open is left out with
// a line in leftOut.
func openGPUs(set Set, d Drivers) (gs []nq.Backend, infos []gpuinfo.DeviceInfo, no noGPU, leftOut []string) {
	devs, err := d.GPUs()
	if err != nil {
		why, fix := d.Explain(err)
		if detail := err.Error(); detail != why {
			no.detail = detail
		}
		no.why, no.fix = why, fix
		return nil, nil, no, nil
	}
	if len(devs) == 0 {
		return nil, nil, noGPU{why: "the driver sees no GPU", fix: "check nvidia-smi"}, nil
	}
	var want []gpuinfo.DeviceInfo
	var failed, fixes, details []string
	if set.All {
		want = devs
	}
	for _, o := range set.Ordinals {
		found := false
		for _, g := range devs {
			if g.Ordinal == o {
				want, found = append(want, g), true
			}
		}
		if !found {
			failed = append(failed, fmt.Sprintf("no GPU %d (the driver sees %s)", o, ordinals(devs)))
			fixes = append(fixes, "nqueens-gpu devices lists them")
		}
	}
	opened, errs := openAll(want, d)
	for i, g := range want {
		if err := errs[i]; err != nil {
			why, fix := d.Explain(err)
			failed = append(failed, fmt.Sprintf("GPU %d did not open: %s", g.Ordinal, why))
			if detail := err.Error(); detail != why {
				details = append(details, fmt.Sprintf("GPU %d: %s", g.Ordinal, detail))
			}
			if fix != "" {
				fixes = append(fixes, fix)
			}
			continue
		}
		gs, infos = append(gs, opened[i]), append(infos, g)
	}
	if len(gs) == 0 {
		return nil, nil, noGPU{strings.Join(failed, "; "), strings.Join(dedupe(fixes), "; "), strings.Join(details, "; ")}, nil
	}
	for _, f := range failed {
		leftOut = append(leftOut, f+"; counting without it")
	}
	return gs, infos, noGPU{}, leftOut
}

// ordinals writes the ordinals of devs for a message: "GPU 0", "GPUs 0
// to 7", "GPUs 0, 2".
func ordinals(devs []gpuinfo.DeviceInfo) string {
	if len(devs) == 1 {
		return "GPU " + strconv.Itoa(devs[0].Ordinal)
	}
	s := make([]string, len(devs))
	contiguous := true
	for i, g := range devs {
		s[i] = strconv.Itoa(g.Ordinal)
		contiguous = contiguous && g.Ordinal == devs[0].Ordinal+i
	}
	if contiguous {
		return fmt.Sprintf("GPUs %s to %s", s[0], s[len(s)-1])
	}
	return "GPUs " + strings.Join(s, ", ")
}

// openAll opens the GPUs gs at once (each creates its context and loads
// its kernels, a fraction of a second), and returns their backends and
// errors in gs's order.
func openAll(gs []gpuinfo.DeviceInfo, d Drivers) ([]nq.Backend, []error) {
	bs, errs := make([]nq.Backend, len(gs)), make([]error, len(gs))
	var wg sync.WaitGroup
	for i, g := range gs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bs[i], errs[i] = d.OpenGPU(g.Ordinal)
		}()
	}
	wg.Wait()
	return bs, errs
}

// dedupe drops the repeats of list, keeping the order.
func dedupe(list []string) []string {
	var out []string
	for _, s := range list {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// FallbackLine is the one line that says a GPU request runs on the CPU,
// with how many workers and how long it will take when estimate says so
// ("about 3.5 hours for N=20"; "" to leave that out), why in a few words
// and what to do about it:
//
//	counting on the CPU (2 workers): NVIDIA kernel module not loaded; to use a GPU, run where nvidia-smi lists one
//
// It is "" when there is no fallback.
func (d *Devices) FallbackLine(estimate string) string {
	if d.Fallback == "" {
		return ""
	}
	how := Workers(d.CPUWorkers)
	if estimate != "" {
		how += ", " + estimate
	}
	s := "counting on the CPU (" + how + "): " + d.Fallback
	if d.FallbackFix != "" {
		s += "; to use a GPU, " + d.FallbackFix
	}
	return s
}

// Workers writes "1 worker" or "K workers".
func Workers(k int) string {
	if k == 1 {
		return "1 worker"
	}
	return strconv.Itoa(k) + " workers"
}

// Spec is the spec of a count of n with algo ("": the devices' Algo) at
// depth (0: the default) on these devices, normalized (plan.Normalize):
// the default depth is the one for the GPUs that count. Every count,
// bench and check run sets its spec up here.
func (d *Devices) Spec(n int, algo nq.Algo, depth int) nq.Spec {
	if algo == "" {
		algo = d.Algo
	}
	var sms []int
	for _, g := range d.GPUs {
		sms = append(sms, g.SMs)
	}
	return normalize(nq.Spec{N: n, Algo: algo, Depth: depth, SMs: sms})
}

// normalize is plan.Normalize: every spec of a count is set up here.
func normalize(s nq.Spec) nq.Spec { return plan.Normalize(s) }

// GuessSpec is the spec of a count of n with algo ("": the default) at
// depth before the devices are open: a count's on the CPU (plan.Normalize
// without GPUs). The program prepares the count's task list from it while
// the devices open; for the N whose lists take time (N=17 on) the GPUs'
// spec lists the same tasks.
func GuessSpec(n int, algo nq.Algo, depth int) nq.Spec {
	return normalize(nq.Spec{N: n, Algo: algo, Depth: depth})
}

// Beside is the number of backends, last in Backends, that count beside
// the GPUs and take batches only where that helps the count
// (job.Config.Beside): the CPU of "gpu+cpu", else none.
func (d *Devices) Beside() int {
	if d.Kind == "gpu+cpu" {
		return 1
	}
	return 0
}

// TakeNodes sums the nodes the backends that count them (NodeCounter)
// counted since the last call; ok is false when none does.
func (d *Devices) TakeNodes() (nodes uint64, ok bool) {
	for _, b := range d.Backends {
		if c, is := b.(NodeCounter); is {
			nodes += c.TakeNodes()
			ok = true
		}
	}
	return nodes, ok
}

// Close releases every device and returns the first error.
func (d *Devices) Close() error {
	var first error
	for _, b := range d.Backends {
		if err := b.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
