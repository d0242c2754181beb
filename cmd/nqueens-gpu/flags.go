package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/app"
	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// maxWorkers guards against a typo such as -workers 1600000000 starting
// more goroutines than the machine can hold.
const maxWorkers = 1 << 16

// countFlags are the flags that every subcommand that counts shares: the
// counting command itself, bench and check. Each reads -device and -algo
// its own way (one device set and algorithm for a count, lists for bench
// and check); the rest means the same everywhere.
type countFlags struct {
	n, device, algo string
	workers, depth  int
	tune            gpu.Tuning
	requireGPU      bool
}

// register defines the shared flags on fs.
func (c *countFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.n, "n", "", "board size N or range A-B")
	fs.StringVar(&c.device, "device", "cpu", "cpu, a GPU ordinal, or all")
	fs.StringVar(&c.algo, "algo", "", "counting algorithm")
	fs.IntVar(&c.workers, "workers", 0, "CPU worker goroutines, 0 = all cores")
	fs.IntVar(&c.depth, "depth", 0, "rows of the partial boards; absent: chosen from N and the GPUs")
	fs.IntVar(&c.tune.Threads, "gpu-threads", 0, "GPU threads per block; absent: the default")
	fs.DurationVar(&c.tune.LaunchTime, "gpu-launch", 0, "kernel time per GPU launch; absent: the default")
	fs.IntVar(&c.tune.MaxTasks, "gpu-max-tasks", 0, "at most this many tasks per GPU launch (for tests); absent: what a launch buffer holds")
	fs.BoolVar(&c.tune.Dynamic, "gpu-dynamic", false, "symmetry kernel with dynamic fetching")
	fs.BoolVar(&c.tune.SharedStack, "gpu-smem", false, "dynamic symmetry kernel, stacks in shared memory")
	fs.Func("gpu-variant", "the GPU kernel variant: static, dynamic or smem", func(s string) error {
		v := gpu.Variant(s)
		if !slices.Contains([]gpu.Variant{gpu.Static, gpu.Dynamic, gpu.SharedStacks}, v) {
			return fmt.Errorf("want static, dynamic or smem")
		}
		c.tune.Variant = v
		return nil
	})
	fs.BoolVar(&c.tune.Nodes, "gpu-nodes", false, "count search nodes on the GPU and report them")
	fs.BoolVar(&c.requireGPU, "require-gpu", false, "exit 1 instead of counting on the CPU when no GPU can be used")
}

// sizes checks the shared flags once parsed (set holds the names of those
// given) and returns the range of -n. missingN is the message when -n is
// not there.
func (c *countFlags) sizes(set map[string]bool, missingN string) (lo, hi int, err error) {
	if !set["n"] {
		return 0, 0, usageErrorf("%s", missingN)
	}
	if lo, hi, err = parseRange(c.n); err != nil {
		return 0, 0, err
	}
	if c.workers < 0 || c.workers > maxWorkers {
		return 0, 0, usageErrorf("invalid -workers %d: want 0 (one per core) up to %d", c.workers, maxWorkers)
	}
	if err := nq.CheckDepth(c.depth, lo, hi); err != nil {
		return 0, 0, usageErrorf("invalid -depth %d: %v", c.depth, err)
	}
	// 0 is the default when the flag is absent; given, it is a mistake
	// (a variable left empty in a script, say), not a request for the
	// default.
	if set["gpu-threads"] && c.tune.Threads == 0 {
		return 0, 0, usageErrorf("invalid -gpu-threads 0: give a multiple of 32 from 32 to 1024, or leave the flag out for the default")
	}
	if set["gpu-launch"] && c.tune.LaunchTime == 0 {
		return 0, 0, usageErrorf("invalid -gpu-launch 0s: give a time from 1ms to 10s, or leave the flag out for the default")
	}
	if set["gpu-max-tasks"] && c.tune.MaxTasks <= 0 {
		return 0, 0, usageErrorf("invalid -gpu-max-tasks %d: give a positive number of tasks, or leave the flag out", c.tune.MaxTasks)
	}
	if err := gpu.CheckTuning(c.tune.Threads, c.tune.LaunchTime); err != nil {
		return 0, 0, usageErrorf("invalid -gpu-threads or -gpu-launch: %v", err)
	}
	return lo, hi, nil
}

// newFlagSet makes a flag set that neither prints nor exits: errors come
// back from parseFlags, and -h is answered by the caller.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args with fs and returns the names of the flags
// given. It returns flag.ErrHelp for -h and -help, a *usageError for
// anything else that is wrong, including an argument that is not a flag.
func parseFlags(fs *flag.FlagSet, args []string) (map[string]bool, error) {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil, err
		}
		return nil, usageErrorf("%s", err.Error())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if fs.NArg() > 0 {
		extra := fs.Arg(0)
		if _, err := strconv.Atoi(extra); err == nil && !set["n"] && fs.Lookup("n") != nil {
			return nil, usageErrorf("unexpected argument %s: give the size with -n, as in -n %s", clip.Quote(extra, clip.Max), extra)
		}
		return nil, usageErrorf("unexpected argument %s: every option is a flag such as -n 8", clip.Quote(extra, clip.Max))
	}
	return set, nil
}

// parseRange parses -n: a size "N" or an inclusive range "A-B".
func parseRange(s string) (lo, hi int, err error) {
	if s == "" {
		return 0, 0, usageErrorf("-n is empty: give a board size such as -n 8 or a range such as -n 4-16")
	}
	if lo, hi, err = nq.ParseSizes(s); err != nil {
		return 0, 0, usageErrorf("invalid -n %s: %v", clip.Quote(s, clip.Max), err)
	}
	return lo, hi, nil
}

// parseAlgoList parses an -algo list such as "eightfold,symmetry".
func parseAlgoList(s string) ([]nq.Algo, error) {
	algos, err := nq.ParseAlgos(s)
	if err != nil {
		return nil, usageErrorf("invalid -algo %s: %v", clip.Quote(s, clip.Max), err)
	}
	return algos, nil
}

// algoNames joins the algorithm names for messages.
func algoNames(algos []nq.Algo) string {
	s := make([]string, len(algos))
	for i, a := range algos {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

// sweep checks the shared flags of bench and check once parsed (set holds
// the names of those given) and returns what they sweep: -device and
// -algo are lists there, each entry measured on its own.
func (c *countFlags) sweep(set map[string]bool, missingN string) (app.Sweep, error) {
	var sw app.Sweep
	var err error
	if sw.Lo, sw.Hi, err = c.sizes(set, missingN); err != nil {
		return sw, err
	}
	sw.Workers, sw.Depth, sw.Tune, sw.RequireGPU = c.workers, c.depth, c.tune, c.requireGPU
	if sw.Devices, err = device.ParseList(c.device); err != nil {
		return sw, usageErrorf("%s", err.Error())
	}
	if set["algo"] {
		if sw.Algos, err = parseAlgoList(c.algo); err != nil {
			return sw, err
		}
	}
	return sw, nil
}
