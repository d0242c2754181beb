package main

import (
	"flag"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/cpu"
	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
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
	// The defaults of -checkpoint-interval and -progress-interval.
	defaultCheckpointInterval = time.Minute
	defaultProgressInterval   = 30 * time.Second
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

// deviceSet is the -device flag of a count: the CPU, GPUs by ordinal or
// all of them, or GPUs and the CPU side by side ("all,cpu", "0,2,cpu").
type deviceSet struct {
	cpu      bool  // the CPU counts (alone, or next to the GPUs)
	all      bool  // every GPU
	ordinals []int // the GPUs named, in the order given
}

// gpus reports whether the set asks for any GPU.
func (d deviceSet) gpus() bool { return d.all || len(d.ordinals) > 0 }

func (d deviceSet) String() string {
	var parts []string
	if d.all {
		parts = append(parts, "all")
	}
	for _, o := range d.ordinals {
		parts = append(parts, strconv.Itoa(o))
	}
	if d.cpu {
		parts = append(parts, "cpu")
	}
	return strings.Join(parts, ",")
}

// config is the parsed and checked command line.
type config struct {
	lo, hi    int     // the sizes to count, lo <= hi
	algo      nq.Algo // "" picks the fastest algorithm of the backend
	devices   deviceSet
	workers   int // CPU goroutines, 0 = one per core
	verbose   bool
	json      bool
	print     bool
	unique    bool
	maxBoards int // boards shown per N with -print, 0 = all

	// Long runs.
	checkpoint         string        // checkpoint file, "" for none
	checkpointInterval time.Duration // between checkpoint writes
	progressInterval   time.Duration // between status lines without a terminal
	quiet              bool          // no progress reports
	sharded            bool          // -shard was given: write a shard result
	shard              job.Shard     // the share of the batches to count

	// Tuning.
	depth      int           // rows of the partial boards, 0 = chosen from N and the GPUs (chooseDepth)
	gpuThreads int           // GPU block size, 0 = the backend's default
	gpuLaunch  time.Duration // kernel time per GPU launch, 0 = the default
	gpuDynamic bool          // the symmetry kernel with dynamic fetching
	gpuSmem    bool          // the dynamic symmetry kernel with its stacks in shared memory
	gpuNodes   bool          // the kernels that count nodes; report them
}

// rawArgs holds the flag values that parseArgs checks and converts.
type rawArgs struct {
	n, algo, device, shard string
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
	fs.StringVar(&cfg.checkpoint, "checkpoint", "", "checkpoint file to resume from and save to")
	fs.DurationVar(&cfg.checkpointInterval, "checkpoint-interval", defaultCheckpointInterval, "time between checkpoint writes")
	fs.DurationVar(&cfg.progressInterval, "progress-interval", defaultProgressInterval, "time between status lines without a terminal")
	fs.BoolVar(&cfg.quiet, "quiet", false, "no progress bar or status lines")
	fs.StringVar(&raw.shard, "shard", "", "count only shard i of m, as i/m")
	fs.IntVar(&cfg.depth, "depth", 0, "rows of the partial boards, 0 = chosen from N and the GPUs")
	fs.IntVar(&cfg.gpuThreads, "gpu-threads", 0, "GPU threads per block, 0 = default")
	fs.DurationVar(&cfg.gpuLaunch, "gpu-launch", 0, "kernel time per GPU launch, 0 = default")
	fs.BoolVar(&cfg.gpuDynamic, "gpu-dynamic", false, "symmetry kernel with dynamic fetching")
	fs.BoolVar(&cfg.gpuSmem, "gpu-smem", false, "dynamic symmetry kernel, stacks in shared memory")
	fs.BoolVar(&cfg.gpuNodes, "gpu-nodes", false, "count search nodes on the GPU and report them")
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
	if cfg.devices, err = parseDevices(raw.device); err != nil {
		return config{}, err
	}
	if cfg.workers < 0 || cfg.workers > maxWorkers {
		return config{}, usageErrorf("invalid -workers %d: want 0 (one per core) up to %d", cfg.workers, maxWorkers)
	}
	if cfg.maxBoards < 0 {
		return config{}, usageErrorf("invalid -max-boards %d: want 0 (no limit) or more", cfg.maxBoards)
	}
	// Boards under 4 rows are never split, so the smallest N the depth
	// must fit is the range's first N of 4 or more.
	if first := max(cfg.lo, 4); cfg.depth != 0 && cfg.hi >= 4 && (cfg.depth < 2 || cfg.depth > first-1) {
		return config{}, usageErrorf("invalid -depth %d: want 0 (chosen from N and the GPUs) or 2 to N-1 = %d for N=%d", cfg.depth, first-1, first)
	}
	if err := gpu.CheckTuning(cfg.gpuThreads, cfg.gpuLaunch); err != nil {
		return config{}, usageErrorf("invalid -gpu-threads or -gpu-launch: %v", err)
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
	if set["checkpoint"] && cfg.checkpoint == "" {
		return config{}, usageErrorf("-checkpoint is empty: give a file name such as -checkpoint n%d.ckpt", cfg.lo)
	}
	if cfg.checkpoint != "" && cfg.lo != cfg.hi {
		return config{}, usageErrorf("-checkpoint needs a single N, not the range %d-%d: a checkpoint holds one count", cfg.lo, cfg.hi)
	}
	if set["checkpoint-interval"] && cfg.checkpoint == "" {
		return config{}, usageErrorf("-checkpoint-interval only applies with -checkpoint FILE")
	}
	if cfg.checkpointInterval <= 0 {
		return config{}, usageErrorf("invalid -checkpoint-interval %v: want a positive duration such as 5m", cfg.checkpointInterval)
	}
	if cfg.progressInterval <= 0 {
		return config{}, usageErrorf("invalid -progress-interval %v: want a positive duration such as 30s", cfg.progressInterval)
	}
	if set["shard"] {
		if cfg.shard, err = job.ParseShard(raw.shard); err != nil {
			return config{}, usageErrorf("invalid -shard %q: %v", raw.shard, err)
		}
		cfg.sharded = true
		if cfg.lo != cfg.hi {
			return config{}, usageErrorf("-shard needs a single N, not the range %d-%d", cfg.lo, cfg.hi)
		}
		if cfg.print {
			return config{}, usageErrorf("-shard and -print cannot be combined: a shard counts only part of the boards")
		}
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

// parseDevices parses the -device of a count: a comma-separated list of
// "cpu", "all" and GPU ordinals, each at most once.
func parseDevices(s string) (deviceSet, error) {
	var d deviceSet
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		spec, err := parseDevice(item)
		if err != nil {
			if strings.Contains(s, ",") {
				return deviceSet{}, usageErrorf("invalid -device %q: %q is not cpu, a GPU ordinal such as 0, or all", s, item)
			}
			return deviceSet{}, usageErrorf("invalid -device %q: want cpu, a GPU ordinal such as 0, all, or a list such as 0,2 or all,cpu", s)
		}
		if seen[spec.String()] {
			return deviceSet{}, usageErrorf("invalid -device %q: %s is listed twice", s, spec)
		}
		seen[spec.String()] = true
		switch spec.kind {
		case deviceCPU:
			d.cpu = true
		case deviceAll:
			d.all = true
		default:
			d.ordinals = append(d.ordinals, spec.ordinal)
		}
	}
	if d.all && len(d.ordinals) > 0 {
		return deviceSet{}, usageErrorf("invalid -device %q: all already takes every GPU", s)
	}
	return d, nil
}

// parseDevice parses one device: "cpu", "all" or a GPU ordinal.
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
		"{CKINTERVAL}", defaultCheckpointInterval.String(),
		"{PROGINTERVAL}", defaultProgressInterval.String(),
	).Replace(usageText))
}

const usageText = `nqueens-gpu counts the solutions of the N-Queens problem: the ways to place
N queens on an N x N chessboard so that no two attack each other. For every N
it prints the total number of solutions and the number of unique ones
(solutions that differ by more than a rotation or reflection of the board).
It counts on all CPU cores or on an NVIDIA GPU.

Usage:
  nqueens-gpu -n N|A-B [-device LIST] [-algo NAME] [-workers K] [-v]
  nqueens-gpu -n N|A-B -json [...]
  nqueens-gpu -n N|A-B -print [-unique] [-max-boards K] [...]
  nqueens-gpu -n N -checkpoint FILE [-checkpoint-interval D] [...]
  nqueens-gpu -n N -shard I/M -json [...] > shard-I.json
  nqueens-gpu merge [-json] [-v] FILE...

Flags:
  -n N, -n A-B
        the board size, or the inclusive range of sizes A to B; every size
        must lie between {MINN} and {MAXN}. Required.
  -device LIST
        where to count (default cpu): cpu, the GPU with ordinal K (0, 1,
        ...), all (every GPU), or a comma-separated list such as 0,2 or
        all,cpu. Several devices share one queue of task batches, each
        taking the next batch when it is free; the counts are those of a
        single device. With cpu in a list next to GPUs the CPU counts too,
        with -workers goroutines (default: one per core, less one per GPU
        to feed it). If no GPU can be used, the program says so in one
        line on stderr and counts on the CPU.
  -algo NAME
        the counting algorithm, one of
          {ALGOS}.
        The default is the fastest one of the backend that runs:
        {CPUDEFAULT} on the CPU, {GPUDEFAULT} on a GPU. GPUs run only
        {GPUALGOS}.
  -workers K
        CPU worker goroutines; 0 (the default) means one per core.
  -depth D
        tuning: the rows placed in each partial board that the search
        starts from (2 to N-1; 0, the default, picks it from N and, when
        GPUs count with -algo symmetry, their SM count, so that they get
        enough boards). It changes the numbering of batches, so a
        checkpoint and its resumption, and the shards of one job, must use
        the same value: pass the same -depth to shards run on different
        kinds of device.
  -gpu-threads T
        tuning: GPU threads per block, a multiple of 32 from 32 to 1024
        (default 128).
  -gpu-launch D
        tuning: the kernel time each GPU launch aims at, 1ms to 10s
        (default 200ms); the launch size adapts to the measured speed.
  -gpu-dynamic
        tuning: run the symmetry kernel whose threads take boards from a
        shared counter until none is left, so that no thread idles while
        its warp finishes a long board (default: one board per thread).
  -gpu-smem
        tuning: as -gpu-dynamic, with each thread's search stack in shared
        memory (conflict-free) instead of thread-local memory.
  -gpu-nodes
        measurement: run the GPU kernels that also count their search
        nodes (a little slower) and print "nodes: K (R nodes/s)" on
        stderr after each N. Only GPUs count nodes.
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
  -quiet
        no progress bar and no status lines (see Long runs).
  -h    print this help.

Long runs:
  A count is split into numbered batches of tasks. On a terminal a progress
  bar on stderr shows the tasks done, the rate and the time left once a
  count has run for a second; without a terminal (batch logs) one status
  line is written every -progress-interval.
  -checkpoint FILE
        save the finished batches and their sums to FILE every
        -checkpoint-interval and when the program stops, and resume from
        FILE when it exists: the same command run again goes on where the
        last run stopped, and the final counts are exact. FILE is replaced
        atomically. A checkpoint that is damaged, or was made for another
        N, algorithm, task list or shard, is refused (exit 1) and left as
        it is. A finished count marks FILE complete; running again prints
        the result without counting. Elapsed and seconds then add up every
        run of the count. Needs a single N.
  -checkpoint-interval D
        time between checkpoint writes (default {CKINTERVAL}), such as 10m.
  -progress-interval D
        time between status lines without a terminal (default {PROGINTERVAL}).
  -shard I/M
        count only shard I of M (0 <= I < M): the batches whose number is I
        modulo M, a near-equal share of the work. With -json it prints a
        shard result (partial sums, N, algorithm, shard, task fingerprint,
        version, device, seconds) for "nqueens-gpu merge". Needs a single N.
  SIGINT (Ctrl-C) and SIGTERM stop handing out batches, let those in hand
  finish, write the checkpoint, print the command that resumes and exit
  with status 130 (SIGINT) or 143 (SIGTERM). A second signal ends the
  program at once; the checkpoint on disk is then the last one written.

Merging shards:
  nqueens-gpu merge [-json] [-v] FILE...
        reads the shard results in the files (one JSON object per line),
        checks that they are exactly the shards 0 to M-1 of one job (same
        N, algorithm and task fingerprint, each complete, none twice) and
        prints the combined counts as a table or, with -json, as one JSON
        object like a count's. A missing, repeated or foreign shard is an
        error (exit 1).

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
  "device_name", the GPU's name. With several devices backend is "gpu" or
  "gpu+cpu", device lists them ("0,1" or "0,1,cpu") and device_name the
  GPUs' names. A GPU request that fell back to the CPU reports backend
  "cpu", device "cpu". A -shard run with -json writes a shard result
  instead, with "kind":"nqueens-gpu shard".

Examples:
  nqueens-gpu -n 20 -device 0       count N=20 on GPU 0
  nqueens-gpu -n 4-16 -v            count N=4 to 16 with the class columns
  nqueens-gpu -n 8 -print -unique   draw the 12 unique solutions of N=8
  nqueens-gpu -n 1-12 -json         JSON lines for N=1 to 12
  nqueens-gpu -n 18 -algo carrychain -workers 8
  nqueens-gpu -n 22 -device all -checkpoint n22.ckpt
                                    count on every GPU; run it again to resume
  nqueens-gpu -n 20 -shard 3/8 -json > shard-3.json
  nqueens-gpu merge shard-*.json    combine the 8 shards

Exit status: 0 on success, 1 on a runtime error, 2 on a usage error, 130
when interrupted by SIGINT (Ctrl-C), 143 by SIGTERM.
`
