package main

import (
	"flag"
	"io"
	"strconv"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/cpu"
	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// Limits of the command line.
const (
	// maxPrintN is the largest N whose boards -print shows; N=12 already
	// has 14200 of them.
	maxPrintN = 12
	// defaultMaxBoards is the default of -max-boards.
	defaultMaxBoards = 100
	// maxWorkers guards against a typo such as -workers 1600000000 starting
	// more goroutines than the machine can hold.
	maxWorkers = 1 << 16
)

// deviceKind says where the user asked to count.
type deviceKind int

const (
	deviceCPU     deviceKind = iota // -device cpu
	deviceOrdinal                   // -device K
	deviceAll                       // -device all
)

// deviceSpec is the parsed -device flag.
type deviceSpec struct {
	kind    deviceKind
	ordinal int // for deviceOrdinal
}

func (d deviceSpec) String() string {
	switch d.kind {
	case deviceOrdinal:
		return strconv.Itoa(d.ordinal)
	case deviceAll:
		return "all"
	}
	return "cpu"
}

// config is the parsed and checked command line.
type config struct {
	lo, hi    int     // the sizes to count, lo <= hi
	algo      nq.Algo // "" picks the fastest algorithm of the backend
	device    deviceSpec
	workers   int // CPU goroutines, 0 = one per core
	verbose   bool
	json      bool
	print     bool
	unique    bool
	maxBoards int // boards shown per N with -print, 0 = all
}

// rawArgs holds the flag values that parseArgs checks and converts.
type rawArgs struct {
	n, algo, device string
}

// newFlagSet defines the program's flags, storing into cfg and raw. It
// neither prints nor exits: errors come back from Parse.
func newFlagSet(cfg *config, raw *rawArgs) *flag.FlagSet {
	fs := flag.NewFlagSet(progName, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported as one line by the caller
	fs.Usage = func() {}     // -h is answered by writeUsage
	fs.StringVar(&raw.n, "n", "", "board size N or range A-B")
	fs.StringVar(&raw.device, "device", "cpu", "cpu, a GPU ordinal, or all")
	fs.StringVar(&raw.algo, "algo", "", "counting algorithm")
	fs.IntVar(&cfg.workers, "workers", 0, "CPU worker goroutines, 0 = all cores")
	fs.BoolVar(&cfg.verbose, "v", false, "add the columns C2, C4, C8")
	fs.BoolVar(&cfg.json, "json", false, "one JSON object per N")
	fs.BoolVar(&cfg.print, "print", false, "print the boards")
	fs.BoolVar(&cfg.unique, "unique", false, "with -print: one board per symmetry class")
	fs.IntVar(&cfg.maxBoards, "max-boards", defaultMaxBoards, "with -print: boards per N, 0 = all")
	return fs
}

// parseArgs parses and checks the command line (without the program name).
// It returns flag.ErrHelp for -h and -help, a *usageError for anything else
// that is wrong, and never prints.
func parseArgs(args []string) (config, error) {
	var cfg config
	var raw rawArgs
	fs := newFlagSet(&cfg, &raw)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return config{}, err
		}
		return config{}, &usageError{msg: err.Error()}
	}
	if fs.NArg() > 0 {
		extra := fs.Arg(0)
		if _, err := strconv.Atoi(extra); err == nil && raw.n == "" {
			return config{}, usageErrorf("unexpected argument %q: give the size with -n, as in -n %s", extra, extra)
		}
		return config{}, usageErrorf("unexpected argument %q: every option is a flag such as -n 8", extra)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	if !set["n"] {
		return config{}, usageErrorf("missing -n: give a board size such as -n 8 or a range such as -n 4-16")
	}
	var err error
	if cfg.lo, cfg.hi, err = parseRange(raw.n); err != nil {
		return config{}, err
	}
	if set["algo"] {
		if cfg.algo, err = nq.ParseAlgo(raw.algo); err != nil {
			return config{}, usageErrorf("invalid -algo: %v", err)
		}
	}
	if cfg.device, err = parseDevice(raw.device); err != nil {
		return config{}, err
	}
	if cfg.workers < 0 || cfg.workers > maxWorkers {
		return config{}, usageErrorf("invalid -workers %d: want 0 (one per core) up to %d", cfg.workers, maxWorkers)
	}
	if cfg.maxBoards < 0 {
		return config{}, usageErrorf("invalid -max-boards %d: want 0 (no limit) or more", cfg.maxBoards)
	}
	if cfg.unique && !cfg.print {
		return config{}, usageErrorf("-unique only applies to -print: use -print -unique")
	}
	if set["max-boards"] && !cfg.print {
		return config{}, usageErrorf("-max-boards only applies to -print")
	}
	if cfg.print && cfg.json {
		return config{}, usageErrorf("-print and -json cannot be combined")
	}
	if cfg.print && cfg.hi > maxPrintN {
		return config{}, usageErrorf("-print is limited to N <= %d so as not to flood the terminal (got N=%d); count larger N without -print", maxPrintN, cfg.hi)
	}
	return cfg, nil
}

// parseRange parses -n: a size "N" or an inclusive range "A-B".
func parseRange(s string) (lo, hi int, err error) {
	if s == "" {
		return 0, 0, usageErrorf("-n is empty: give a board size such as -n 8 or a range such as -n 4-16")
	}
	a, b, isRange := strings.Cut(s, "-")
	if !isRange {
		n, err := parseSize(s, s)
		return n, n, err
	}
	if a == "" {
		return 0, 0, usageErrorf("invalid -n %q: sizes are positive; a range is written A-B, as in 4-16", s)
	}
	if b == "" {
		return 0, 0, usageErrorf("invalid -n %q: the range has no upper end; write A-B, as in 4-16", s)
	}
	if lo, err = parseSize(a, s); err != nil {
		return 0, 0, err
	}
	if hi, err = parseSize(b, s); err != nil {
		return 0, 0, err
	}
	if lo > hi {
		return 0, 0, usageErrorf("invalid -n %q: the range is empty because %d > %d; write it as %d-%d", s, lo, hi, hi, lo)
	}
	return lo, hi, nil
}

// parseSize parses one board size, the part s of the whole -n value arg.
// Only plain decimal digits are accepted.
func parseSize(s, arg string) (int, error) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, usageErrorf("invalid -n %q: want a size N or a range A-B with %d <= A <= B <= %d", arg, nq.MinN, nq.MaxN)
	}
	n, err := strconv.Atoi(s)
	if err != nil { // too many digits for an int
		return 0, usageErrorf("invalid -n %q: N must be between %d and %d", arg, nq.MinN, nq.MaxN)
	}
	if err := nq.CheckN(n); err != nil {
		return 0, usageErrorf("invalid -n %q: %v", arg, err)
	}
	return n, nil
}

// parseDevice parses -device: "cpu", "all" or a GPU ordinal.
func parseDevice(s string) (deviceSpec, error) {
	switch strings.ToLower(s) {
	case "cpu":
		return deviceSpec{kind: deviceCPU}, nil
	case "all":
		return deviceSpec{kind: deviceAll}, nil
	}
	if s != "" && strings.Trim(s, "0123456789") == "" {
		if k, err := strconv.Atoi(s); err == nil {
			return deviceSpec{kind: deviceOrdinal, ordinal: k}, nil
		}
	}
	return deviceSpec{}, usageErrorf("invalid -device %q: want cpu, a GPU ordinal such as 0, or all", s)
}

// writeUsage writes the -h text.
func writeUsage(w io.Writer) {
	io.WriteString(w, strings.NewReplacer(
		"{ALGOS}", algoNames(nq.Algos()),
		"{GPUALGOS}", algoNames(gpu.Algos()),
		"{CPUDEFAULT}", string(cpu.DefaultAlgo),
		"{GPUDEFAULT}", string(gpu.DefaultAlgo),
		"{MAXBOARDS}", strconv.Itoa(defaultMaxBoards),
		"{MAXPRINTN}", strconv.Itoa(maxPrintN),
		"{MINN}", strconv.Itoa(nq.MinN),
		"{MAXN}", strconv.Itoa(nq.MaxN),
	).Replace(usageText))
}

const usageText = `nqueens-gpu counts the solutions of the N-Queens problem: the ways to place
N queens on an N x N chessboard so that no two attack each other. For every N
it prints the total number of solutions and the number of unique ones
(solutions that differ by more than a rotation or reflection of the board).
It counts on all CPU cores or on an NVIDIA GPU.

Usage:
  nqueens-gpu -n N|A-B [-device cpu|K|all] [-algo NAME] [-workers K] [-v]
  nqueens-gpu -n N|A-B -json [...]
  nqueens-gpu -n N|A-B -print [-unique] [-max-boards K] [...]

Flags:
  -n N, -n A-B
        the board size, or the inclusive range of sizes A to B; every size
        must lie between {MINN} and {MAXN}. Required.
  -device cpu|K|all
        where to count (default cpu): the CPU, the GPU with ordinal K
        (0, 1, ...), or all GPUs (for now: GPU 0). If no GPU can be used,
        the program says so in one line on stderr and counts on the CPU.
  -algo NAME
        the counting algorithm, one of
          {ALGOS}.
        The default is the fastest one of the backend that runs:
        {CPUDEFAULT} on the CPU, {GPUDEFAULT} on a GPU. GPUs run only
        {GPUALGOS}.
  -workers K
        CPU worker goroutines; 0 (the default) means one per core.
  -v    verbose: add the columns C2, C4 and C8 to the table.
  -json
        write one JSON object per N and line instead of the table.
  -print
        after the counts of each N, also print its solutions as boards
        (only for N <= {MAXPRINTN}). Each one is written as its column list, such
        as [1 3 0 2], whose i-th entry is the column of the queen in row i,
        and drawn as a grid with row 0 at the top and column 0 at the left.
  -unique
        with -print: print one board per symmetry class, the one whose
        column list is lexicographically smallest among its rotations and
        reflections.
  -max-boards K
        with -print: print at most K boards per N (default {MAXBOARDS});
        0 prints them all.
  -h    print this help.

Table output:
  A header line, then one line per N as soon as it is counted:
     N:  Total  Unique  Elapsed            (with -v: Total Unique C2 C4 C8)
  Total is the number of solutions and Unique the number of symmetry
  classes. C2, C4 and C8 count the classes of 2, 4 and 8 boards (boards
  that a quarter turn leaves unchanged, boards that only a half turn leaves
  unchanged, and all others), so Total = 2*C2 + 4*C4 + 8*C8 and
  Unique = C2 + C4 + C8. The single solution of N=1 is a class of its own
  and shows as Total 1, Unique 1 with C2 = C4 = C8 = 0. Elapsed is the
  wall-clock time of the count as hh:mm:ss.mmm, with a "Nd " prefix for
  whole days.

JSON output:
  One object per N and line, for example
    {"n":8,"total":92,"unique":12,"count1":0,"count2":0,"count4":1,"count8":11,
     "seconds":0.0012,"backend":"cpu","algo":"symmetry","device":"cpu"}
  (on a single line). The counts are exact integers; count1 is 1 only for
  N=1. seconds is the elapsed time. backend is "cpu" or "gpu"; device is
  "cpu" or the GPU's ordinal as a string such as "0", and GPU rows add
  "device_name", the GPU's name. A GPU request that fell back to the CPU
  reports backend "cpu", device "cpu".

Examples:
  nqueens-gpu -n 20 -device 0       count N=20 on GPU 0
  nqueens-gpu -n 4-16 -v            count N=4 to 16 with the class columns
  nqueens-gpu -n 8 -print -unique   draw the 12 unique solutions of N=8
  nqueens-gpu -n 1-12 -json         JSON lines for N=1 to 12
  nqueens-gpu -n 18 -algo carrychain -workers 8

Exit status: 0 on success, 1 on a runtime error, 2 on a usage error, 130 when
interrupted (Ctrl-C stops the count; a second Ctrl-C ends the program at once).
`
