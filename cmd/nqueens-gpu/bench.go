package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/benchstat"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
)

// Limits of the bench command line.
const (
	defaultBenchRuns   = 5
	defaultBenchWarmup = 1
	maxBenchRuns       = 10000
)

// benchConfig is the parsed bench command line.
type benchConfig struct {
	lo, hi   int
	runs     int
	warmup   int
	devices  []benchDevice
	algos    []nq.Algo // nil: each backend's default
	workers  int
	json     bool
	out      string   // -o: also write the JSON document here
	baseline string   // -baseline FILE
	plot     string   // -plot FILE.png|FILE.svg
	from     []string // -from: report on these files instead of measuring
}

// runBench runs `nqueens-gpu bench`.
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runBenchWith(ctx, args, stdout, stderr, defaultHooks())
}

func runBenchWith(ctx context.Context, args []string, stdout, stderr io.Writer, h hooks) int {
	cfg, err := parseBenchArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		io.WriteString(stdout, benchUsage)
		return exitOK
	}
	if err != nil {
		printBenchUsageError(stderr, err)
		return exitUsage
	}
	var base *report.Document
	if cfg.baseline != "" {
		if base, err = report.ReadFile(cfg.baseline); err != nil {
			printBenchUsageError(stderr, usageErrorf("-baseline: %v", err))
			return exitUsage
		}
	}
	if len(cfg.from) > 0 {
		return benchFromFiles(cfg, base, stdout, stderr)
	}

	doc := &report.Document{
		Schema:  report.Schema,
		Created: time.Now().UTC().Truncate(time.Second),
		Command: append([]string{progName, "bench"}, args...),
		Env:     gatherEnv(h),
		Runs:    cfg.runs,
		Warmup:  cfg.warmup,
	}
	text := io.Discard
	if !cfg.json {
		text = stdout
		fmt.Fprintf(text, "%s bench: N=%s, %d timed run%s per N after %d warm-up\n\n", progName, rangeText(cfg.lo, cfg.hi), cfg.runs, plural(cfg.runs), cfg.warmup)
		writeEnvText(text, &doc.Env)
	}
	code := measureAll(ctx, cfg, h, doc, text, stderr)
	if code != exitOK {
		return code
	}
	if !cfg.json {
		writeBenchNotes(text)
	}
	if cfg.json {
		if err := report.Write(stdout, doc); err != nil {
			printError(stderr, "writing output: "+err.Error())
			return exitRuntime
		}
	}
	if cfg.out != "" {
		if err := report.WriteFile(cfg.out, doc); err != nil {
			printError(stderr, "writing -o: "+err.Error())
			return exitRuntime
		}
	}
	if base != nil {
		// With -json, stdout holds the document alone.
		w := stdout
		if cfg.json {
			w = stderr
		}
		writeComparison(w, doc, base, cfg.baseline)
	}
	if cfg.plot != "" {
		title := fmt.Sprintf("%s bench, %s", progName, doc.Created.Format("2006-01-02"))
		if err := report.SavePlot(cfg.plot, title, report.PlotSeriesOf([]*report.Document{doc}, nil)); err != nil {
			printError(stderr, "writing -plot: "+err.Error())
			return exitRuntime
		}
	}
	return exitOK
}

// benchFromFiles reports on earlier bench JSON files instead of measuring.
func benchFromFiles(cfg benchConfig, base *report.Document, stdout, stderr io.Writer) int {
	docs := make([]*report.Document, len(cfg.from))
	names := make([]string, len(cfg.from))
	for i, f := range cfg.from {
		d, err := report.ReadFile(f)
		if err != nil {
			printBenchUsageError(stderr, usageErrorf("-from: %v", err))
			return exitUsage
		}
		docs[i], names[i] = d, filepath.Base(f)
	}
	if base != nil {
		writeComparison(stdout, docs[0], base, cfg.baseline)
	}
	if cfg.plot != "" {
		title := fmt.Sprintf("%s bench: %s", progName, strings.Join(names, ", "))
		if err := report.SavePlot(cfg.plot, title, report.PlotSeriesOf(docs, names)); err != nil {
			printError(stderr, "writing -plot: "+err.Error())
			return exitRuntime
		}
	}
	if base == nil && cfg.plot == "" {
		for i, d := range docs {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintf(stdout, "%s: recorded %s, %d timed run%s per N after %d warm-up\n\n", names[i], d.Created.UTC().Format("2006-01-02 15:04 UTC"), d.Runs, plural(d.Runs), d.Warmup)
			writeEnvText(stdout, &d.Env)
			for j := range d.Series {
				s := &d.Series[j]
				writeSeriesHeader(stdout, s)
				for _, r := range s.Results {
					writeResultRow(stdout, &r)
				}
			}
		}
	}
	return exitOK
}

// measureAll runs every series of cfg and adds it to doc, writing each
// table row to text as soon as its N is done.
func measureAll(ctx context.Context, cfg benchConfig, h hooks, doc *report.Document, text, stderr io.Writer) int {
	seen := map[string]bool{}
	for _, dev := range cfg.devices {
		algos := cfg.algos
		start := time.Now()
		b, fallback, err := openBenchBackend(dev, h, cfg.workers)
		startup := h.since(start)
		if err != nil {
			return reportOpenError(stderr, err)
		}
		if fallback != "" {
			printError(stderr, fmt.Sprintf("%s; running on the CPU with %d worker%s", fallback, benchWorkers(cfg, h), plural(benchWorkers(cfg, h))))
		}
		if algos == nil {
			algos = []nq.Algo{b.defaultAlgo}
		}
		// Check every series of this device before timing any.
		series := make([]report.Series, len(algos))
		for i, algo := range algos {
			if b.kind == "gpu" && !gpu.Supports(algo) {
				b.close()
				return reportOpenError(stderr, usageErrorf("-algo %s has no GPU kernel; GPUs run %s", algo, algoNames(gpu.Algos())))
			}
			s := report.Series{
				Backend:    b.kind,
				Device:     b.device,
				DeviceName: b.deviceName,
				Requested:  dev.String(),
				Fallback:   fallback,
				Algo:       string(algo),
			}
			s.Label = seriesLabel(s)
			if seen[s.Label] {
				b.close()
				return reportOpenError(stderr, usageErrorf("series %q is asked for twice; list each device and algorithm once", s.Label))
			}
			seen[s.Label] = true
			if b.kind == "cpu" {
				s.Workers = benchWorkers(cfg, h)
			}
			// The backend is opened once per device; its start-up is
			// charged to the first algorithm, the others start warm.
			if i == 0 {
				s.StartupSeconds = startup.Seconds()
			} else {
				s.StartupWith = series[0].Label
			}
			series[i] = s
		}
		for i, algo := range algos {
			s := series[i]
			writeSeriesHeader(text, &s)
			for n := cfg.lo; n <= cfg.hi; n++ {
				r, err := measureN(ctx, cfg, b, algo, h, n)
				if err != nil {
					b.close()
					if ctx.Err() != nil {
						printError(stderr, fmt.Sprintf("interrupted while timing N=%d", n))
						return exitInterrupted
					}
					printError(stderr, fmt.Sprintf("%s: %v", s.Label, err))
					return exitRuntime
				}
				s.Results = append(s.Results, r)
				writeResultRow(text, &r)
			}
			doc.Series = append(doc.Series, s)
		}
		if err := b.close(); err != nil {
			printError(stderr, "closing the backend: "+err.Error())
			return exitRuntime
		}
	}
	return exitOK
}

func reportOpenError(stderr io.Writer, err error) int {
	var ue *usageError
	if errors.As(err, &ue) {
		printBenchUsageError(stderr, err)
		return exitUsage
	}
	printError(stderr, err.Error())
	return exitRuntime
}

func benchWorkers(cfg benchConfig, h hooks) int {
	if cfg.workers > 0 {
		return cfg.workers
	}
	return h.procs()
}

// seriesLabel names a series: "cpu symmetry", "gpu0 carrychain", or for a
// GPU request that ran on the CPU "cpu symmetry (gpu0 fallback)" ("gpus"
// for -device all).
func seriesLabel(s report.Series) string {
	dev := "cpu"
	if s.Backend == "gpu" {
		dev = "gpu" + s.Device
	}
	l := dev + " " + s.Algo
	if s.Fallback != "" {
		asked := "gpu" + s.Requested
		if s.Requested == "all" {
			asked = "gpus"
		}
		l += " (" + asked + " fallback)"
	}
	return l
}

// measureN times cfg.warmup and then cfg.runs counts of n. Every run must
// give the same counts, and they must match the published ones where
// there are some.
func measureN(ctx context.Context, cfg benchConfig, b *benchBackend, algo nq.Algo, h hooks, n int) (report.Result, error) {
	r := report.Result{N: n, WarmupSeconds: []float64{}, Seconds: []float64{}}
	var first nq.Counts
	for i := 0; i < cfg.warmup+cfg.runs; i++ {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		start := time.Now()
		c, err := b.solve(ctx, n, algo)
		elapsed := h.since(start).Seconds()
		if err != nil {
			return r, fmt.Errorf("N=%d: %w", n, err)
		}
		if i == 0 {
			first = c
		} else if c != first {
			return r, fmt.Errorf("N=%d: run %d counted %v, run 1 counted %v", n, i+1, c, first)
		}
		if i < cfg.warmup {
			r.WarmupSeconds = append(r.WarmupSeconds, elapsed)
		} else {
			r.Seconds = append(r.Seconds, elapsed)
		}
	}
	verified, err := checkKnown(n, first)
	if err != nil {
		return r, fmt.Errorf("wrong counts: %w", err)
	}
	r.Verified = verified
	r.SetCounts(first)
	st, err := benchstat.Summarize(r.Seconds)
	if err != nil {
		return r, fmt.Errorf("N=%d: %w", n, err)
	}
	r.Stats = st
	return r, nil
}

// Text output.

func writeEnvText(w io.Writer, e *report.Env) {
	row := func(k, v string) { fmt.Fprintf(w, "  %-8s %s\n", k, v) }
	fmt.Fprintln(w, "environment")
	row("CPU", fmt.Sprintf("%s, %d logical CPUs, GOMAXPROCS %d", orUnknown(e.CPUModel), e.CPUCores, e.GOMAXPROCS))
	row("Go", fmt.Sprintf("%s %s/%s", e.GoVersion, e.OS, e.Arch))
	commit := e.Commit
	if commit == "" {
		commit = "unknown (not built from a git checkout)"
	} else if e.Modified {
		commit += " (with uncommitted changes)"
	}
	row("commit", commit)
	if e.CUDABuild {
		row("build", "CUDA; PTX "+orUnknown(strings.Join(strings.Fields(e.PTXBuild), " ")))
	} else {
		row("build", "CPU only (no cuda tag)")
	}
	if len(e.GPUs) == 0 {
		note := ""
		if e.GPUNote != "" {
			note = " (" + oneLine(e.GPUNote) + ")"
		}
		row("GPU", "none"+note)
	}
	for _, g := range e.GPUs {
		row(fmt.Sprintf("GPU %d", g.Ordinal), fmt.Sprintf("%s, compute capability %s, %d SMs, %.1f GiB", g.Name, g.ComputeCapability, g.SMs, float64(g.MemBytes)/(1<<30)))
	}
	if e.CUDABuild {
		row("driver", fmt.Sprintf("NVIDIA %s, CUDA %s", orUnknown(e.NVIDIADriver), orUnknown(e.CUDADriver)))
	}
}

func writeSeriesHeader(w io.Writer, s *report.Series) {
	fmt.Fprintf(w, "\n%s: backend %s, device %s", s.Label, s.Backend, s.Device)
	if s.DeviceName != "" {
		fmt.Fprintf(w, " (%s)", s.DeviceName)
	}
	if s.Workers > 0 {
		fmt.Fprintf(w, ", %d worker%s", s.Workers, plural(s.Workers))
	}
	fmt.Fprintf(w, "; %s\n", report.StartupText(s))
	fmt.Fprintf(w, "%3s %20s %4s %10s %23s %10s %10s %10s %10s %8s\n",
		"N", "Total", "runs", "mean", "95% CI of mean", "median", "stddev", "min", "max", "nodes/s")
}

func writeResultRow(w io.Writer, r *report.Result) {
	st := r.Stats
	ci := "n/a (1 run)"
	if st.Runs > 1 {
		ci = report.FormatSeconds(st.CILow) + " .. " + report.FormatSeconds(st.CIHigh)
	}
	nps := "n/a"
	if r.NodesPerSecond != nil {
		nps = fmt.Sprintf("%.3g", *r.NodesPerSecond)
	}
	fmt.Fprintf(w, "%3d %20d %4d %10s %23s %10s %10s %10s %10s %8s\n",
		r.N, r.Total, st.Runs, report.FormatSeconds(st.Mean), ci, report.FormatSeconds(st.Median),
		report.FormatSeconds(st.StdDev), report.FormatSeconds(st.Min), report.FormatSeconds(st.Max), nps)
}

func writeBenchNotes(w io.Writer) {
	fmt.Fprint(w, `
Times are wall times of one count each. Task enumeration runs alongside the
search and is included; opening the backend (start-up: for a GPU the context
and the module load with its JIT compilation) is not. Every run counted the
same, and the counts match the published ones where there are some. nodes/s:
n/a, the solvers do not count search nodes.
`)
}

// writeComparison compares doc with the baseline base read from path.
func writeComparison(w io.Writer, doc, base *report.Document, path string) {
	cs, notes := report.Compare(doc, base)
	fmt.Fprintf(w, "\ncompared with %s (recorded %s", path, base.Created.UTC().Format("2006-01-02 15:04 UTC"))
	if base.Env.Commit != "" {
		fmt.Fprintf(w, ", commit %.12s", base.Env.Commit)
	}
	fmt.Fprintf(w, "): Welch's t-test on the run times, 5%% level\n")
	width := len("series")
	for _, c := range cs {
		width = max(width, len(c.Series))
	}
	if len(cs) > 0 {
		fmt.Fprintf(w, "%3s  %-*s %10s %10s %10s %7s %9s %8s %7s  %s\n",
			"N", width, "series", "now", "before", "change", "ratio", "Hedges g", "t", "df", "verdict")
	}
	for _, c := range cs {
		change, g, t, df := "", "", "", ""
		if c.Welch != nil {
			change = signed(c.Welch.Diff)
			g = fmt.Sprintf("%.2f", c.Welch.HedgesG)
			t = fmt.Sprintf("%.2f", c.Welch.T)
			df = fmt.Sprintf("%.1f", c.Welch.DF)
		} else {
			change = signed(c.Now.Mean - c.Before.Mean)
		}
		fmt.Fprintf(w, "%3d  %-*s %10s %10s %10s %7.3f %9s %8s %7s  %s\n",
			c.N, width, c.Series, report.FormatSeconds(c.Now.Mean), report.FormatSeconds(c.Before.Mean), change,
			c.Ratio(), g, t, df, c.Verdict())
	}
	for _, n := range notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

func signed(s float64) string {
	if s > 0 {
		return "+" + report.FormatSeconds(s)
	}
	return report.FormatSeconds(s)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func plural(k int) string {
	if k == 1 {
		return ""
	}
	return "s"
}

func rangeText(lo, hi int) string {
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

// printBenchUsageError is printUsageError with a pointer to the bench help.
func printBenchUsageError(w io.Writer, err error) { printSubcommandUsageError(w, "bench", err) }

// Parsing.

func parseBenchArgs(args []string) (benchConfig, error) {
	cfg := benchConfig{}
	var n, devices, algos, from string
	fs := flag.NewFlagSet(progName+" bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&n, "n", "", "board size N or range A-B")
	fs.IntVar(&cfg.runs, "runs", defaultBenchRuns, "timed runs per N")
	fs.IntVar(&cfg.warmup, "warmup", defaultBenchWarmup, "untimed runs per N before the timed ones")
	fs.StringVar(&devices, "device", "cpu", "cpu, a GPU ordinal or all; several separated by commas")
	fs.StringVar(&algos, "algo", "", "algorithm; several separated by commas")
	fs.IntVar(&cfg.workers, "workers", 0, "CPU worker goroutines, 0 = all cores")
	fs.BoolVar(&cfg.json, "json", false, "write the bench JSON document to stdout")
	fs.StringVar(&cfg.out, "o", "", "also write the bench JSON document to this file")
	fs.StringVar(&cfg.baseline, "baseline", "", "compare with this earlier bench JSON file")
	fs.StringVar(&cfg.plot, "plot", "", "write a plot of time against N (.png or .svg)")
	fs.StringVar(&from, "from", "", "comma-separated bench JSON files to report on instead of measuring")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return cfg, err
		}
		return cfg, &usageError{msg: err.Error()}
	}
	if fs.NArg() > 0 {
		return cfg, usageErrorf("unexpected argument %q: every option is a flag such as -n 8", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if cfg.plot != "" {
		if _, err := report.PlotFormat(cfg.plot); err != nil {
			return cfg, usageErrorf("invalid -plot: %v", err)
		}
	}
	if set["from"] {
		for _, f := range strings.Split(from, ",") {
			if f = strings.TrimSpace(f); f == "" {
				return cfg, usageErrorf("invalid -from %q: want file names separated by commas", from)
			}
			cfg.from = append(cfg.from, strings.TrimSpace(f))
		}
		for _, name := range []string{"n", "runs", "warmup", "device", "algo", "workers", "json", "o"} {
			if set[name] {
				return cfg, usageErrorf("-%s does not apply to -from, which reports on files without measuring", name)
			}
		}
		if cfg.baseline != "" && len(cfg.from) != 1 {
			return cfg, usageErrorf("-baseline with -from compares one file: give -from a single file")
		}
		return cfg, nil
	}
	if !set["n"] {
		return cfg, usageErrorf("missing -n: give a board size such as -n 16 or a range such as -n 12-16")
	}
	var err error
	if cfg.lo, cfg.hi, err = parseRange(n); err != nil {
		return cfg, err
	}
	if cfg.runs < 1 || cfg.runs > maxBenchRuns {
		return cfg, usageErrorf("invalid -runs %d: want 1 to %d", cfg.runs, maxBenchRuns)
	}
	if cfg.warmup < 0 || cfg.warmup > maxBenchRuns {
		return cfg, usageErrorf("invalid -warmup %d: want 0 to %d", cfg.warmup, maxBenchRuns)
	}
	if cfg.workers < 0 || cfg.workers > maxWorkers {
		return cfg, usageErrorf("invalid -workers %d: want 0 (one per core) up to %d", cfg.workers, maxWorkers)
	}
	if cfg.devices, err = parseDeviceList(devices); err != nil {
		return cfg, err
	}
	if set["algo"] {
		if cfg.algos, err = parseAlgoList(algos); err != nil {
			return cfg, err
		}
	}
	if cfg.out != "" && cfg.out == cfg.baseline {
		return cfg, usageErrorf("-o and -baseline name the same file %q: the baseline would be overwritten", cfg.out)
	}
	return cfg, nil
}

// parseAlgoList parses an -algo list such as "symmetry,carrychain".
func parseAlgoList(s string) ([]nq.Algo, error) {
	var out []nq.Algo
	seen := map[nq.Algo]bool{}
	for _, a := range strings.Split(s, ",") {
		algo, err := nq.ParseAlgo(strings.TrimSpace(a))
		if err != nil {
			return nil, usageErrorf("invalid -algo: %v", err)
		}
		if seen[algo] {
			return nil, usageErrorf("invalid -algo %q: %s is listed twice", s, algo)
		}
		seen[algo] = true
		out = append(out, algo)
	}
	return out, nil
}

const benchUsage = `nqueens-gpu bench times the counts of one or more board sizes: repeated
runs per N, with their mean, standard deviation, median, min, max and a 95%
confidence interval of the mean (Student's t), the start-up of the backend
apart from the search, and a description of the machine. Every run's counts
must be equal and match the published ones (exit status 1 otherwise).

Usage:
  nqueens-gpu bench -n N|A-B [-runs R] [-warmup W] [-device LIST] [-algo LIST]
                    [-workers K] [-json] [-o FILE] [-baseline FILE] [-plot FILE]
  nqueens-gpu bench -from A.json[,B.json...] [-baseline FILE] [-plot FILE]

Flags:
  -n N, -n A-B     the size, or the inclusive range of sizes; one result per N
  -runs R          timed runs per N (default 5)
  -warmup W        untimed runs per N before them (default 1); the first run
                   of a GPU pays for loading its kernels
  -device LIST     cpu (default), a GPU ordinal, or all (GPU 0 for now);
                   several separated by commas, e.g. cpu,0. A GPU that cannot
                   be used falls back to the CPU, says so on stderr, and the
                   series is labelled as a fallback.
  -algo LIST       the algorithm(s) (default: the fastest of each backend);
                   GPUs run only symmetry and carrychain
  -workers K       CPU worker goroutines (default: one per core)
  -json            write the bench JSON document to stdout instead of tables
  -o FILE          also write the bench JSON document to FILE
  -baseline FILE   compare each N with the same N of an earlier bench JSON
                   file: mean difference, ratio, Hedges' g and Welch's t-test
                   with its verdict at the 5% level (2 runs or more on each
                   side). With -json the comparison goes to stderr.
  -plot FILE       write median time against N, log scale, one line per
                   series, as PNG or SVG (by the file's extension)
  -from FILES      read bench JSON files instead of measuring: print their
                   tables, or with -plot draw them (one line per file and
                   series), or with -baseline compare the one file

The bench JSON document (schema "nqueens-gpu-bench/v1.x") holds the command
line, the environment (CPU, cores, Go, commit, GPUs, driver and CUDA
versions), and for each series (backend, device, algorithm) its start-up
time and per N the counts, every warm-up and timed run time in seconds, and
their statistics. scripts/benchdoc turns such files into docs/benchmarks.md.

Times are wall times of one count each; task enumeration overlaps the search
and is included. nodes/s is n/a: the solvers do not count search nodes.

Examples:
  nqueens-gpu bench -n 12-16 -runs 5 -o cpu.json
  nqueens-gpu bench -n 18-22 -device 0 -algo symmetry,carrychain -plot gpu.svg
  nqueens-gpu bench -n 16 -baseline cpu.json
  nqueens-gpu bench -from h100.json,a100.json -plot gpus.png

Exit status: 0 on success, 1 on a runtime error or wrong counts, 2 on a usage
error, 130 when interrupted.
`
