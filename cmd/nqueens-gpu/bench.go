package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
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
	countFlags
	lo, hi   int
	runs     int
	warmup   int
	devices  []device.Set
	algos    []nq.Algo // nil: each backend's default
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

func runBenchWith(ctx context.Context, args []string, stdout, stderr io.Writer, h hooks) (code int) {
	out := checkedOutput(stdout)
	defer func() { code = outputDone(code, out, stderr) }()
	stdout = out
	cfg, err := parseBenchArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		return helpDone(stdout, stderr, "bench")
	}
	if err != nil {
		printBenchUsageError(stderr, err)
		return exitUsage
	}
	if code := checkOutputFiles(stderr, "-o", cfg.out, "-plot", cfg.plot); code != exitOK {
		return code
	}
	// Every file is read and checked before any work: an unreadable or
	// invalid one is a runtime error (exit 1), as for every command.
	var base *report.Document
	if cfg.baseline != "" {
		if base, err = report.ReadFile(cfg.baseline); err != nil {
			printError(stderr, "-baseline: "+err.Error())
			return exitRuntime
		}
	}
	if len(cfg.from) > 0 {
		return benchFromFiles(cfg, base, stdout, stderr)
	}
	h = h.withDefaults()

	doc := &report.Document{
		Schema:  report.Schema,
		Created: time.Now().UTC().Truncate(time.Second),
		Command: append([]string{progName, "bench"}, args...),
		Env:     envOf(h, cfg.tune),
		Runs:    cfg.runs,
		Warmup:  cfg.warmup,
	}
	text := io.Discard
	if !cfg.json {
		text = stdout
		fmt.Fprintf(text, "%s bench: N=%s, %d timed run%s per N after %d warm-up\n\n", progName, report.RangeText(cfg.lo, cfg.hi), cfg.runs, report.Plural(cfg.runs), cfg.warmup)
		report.WriteEnvText(text, &doc.Env)
		if err := out.Err(); err != nil {
			return outputFailed(stderr, err) // before any work
		}
	}
	if code := measureAll(ctx, cfg, h, doc, text, stderr); code != exitOK {
		return code
	}
	if !cfg.json {
		report.WriteBenchNotes(text)
	}
	if cfg.json {
		if err := report.Write(stdout, doc); err != nil {
			return outputFailed(stderr, err)
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
		report.WriteComparison(w, doc, base, cfg.baseline)
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
			printError(stderr, "-from: "+err.Error())
			return exitRuntime
		}
		docs[i], names[i] = d, filepath.Base(f)
	}
	if base != nil {
		report.WriteComparison(stdout, docs[0], base, cfg.baseline)
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
			fmt.Fprintf(stdout, "%s: recorded %s, %d timed run%s per N after %d warm-up\n\n", names[i], d.Created.UTC().Format("2006-01-02 15:04 UTC"), d.Runs, report.Plural(d.Runs), d.Warmup)
			report.WriteEnvText(stdout, &d.Env)
			for j := range d.Series {
				s := &d.Series[j]
				report.WriteSeriesHeader(stdout, s)
				for _, r := range s.Results {
					report.WriteResultRow(stdout, &r)
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
	drivers := h.drivers(cfg.tune)
	for _, set := range cfg.devices {
		start := time.Now()
		devs, err := device.Open(set, device.Options{Workers: cfg.workers, RequireGPU: cfg.requireGPU}, drivers)
		startup := h.since(start)
		if err != nil {
			return openFailed(stderr, err, printBenchUsageError)
		}
		reportOpen(stderr, devs, "")
		algos := cfg.algos
		if algos == nil {
			algos = []nq.Algo{devs.Algo}
		}
		// Check every series of this device before timing any.
		series := make([]report.Series, len(algos))
		for i, algo := range algos {
			if err := devs.Check(algo); err != nil {
				devs.Close()
				return openFailed(stderr, err, printBenchUsageError)
			}
			s := report.Series{
				Backend:    devs.Kind,
				Device:     devs.Device,
				DeviceName: devs.DeviceName,
				Requested:  set.String(),
				Fallback:   devs.Fallback,
				Algo:       string(algo),
				Workers:    devs.CPUWorkers,
			}
			s.Label = report.SeriesLabel(s)
			if seen[s.Label] {
				devs.Close()
				return openFailed(stderr, usageErrorf("series %s is asked for twice; list each device and algorithm once", clip.Quote(s.Label, clip.Max)), printBenchUsageError)
			}
			seen[s.Label] = true
			// The devices are opened once per entry; their start-up is
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
			report.WriteSeriesHeader(text, &s)
			for n := cfg.lo; n <= cfg.hi; n++ {
				spec := devs.Spec(n, algo, cfg.depth)
				r, err := report.Measure(ctx, n, cfg.warmup, cfg.runs, func(ctx context.Context) (nq.Counts, error) {
					return job.Count(ctx, devs.Job(spec, h.jobConfig()))
				}, h.since)
				if err != nil {
					devs.Close()
					if ctx.Err() != nil {
						printError(stderr, fmt.Sprintf("interrupted while timing N=%d", n))
						return exitInterrupted
					}
					printError(stderr, fmt.Sprintf("%s: %v", s.Label, err))
					return exitRuntime
				}
				s.Results = append(s.Results, r)
				report.WriteResultRow(text, &r)
				if err := outputErr(text); err != nil {
					devs.Close()
					return outputFailed(stderr, err)
				}
			}
			doc.Series = append(doc.Series, s)
		}
		if err := devs.Close(); err != nil {
			printError(stderr, "closing the devices: "+err.Error())
			return exitRuntime
		}
	}
	return exitOK
}

// buildCommit and buildModified are set by the Makefile (-ldflags -X) to
// the git commit the binary was built from and "true" if the tree had
// uncommitted changes to tracked files.
var buildCommit, buildModified string

// printBenchUsageError is printUsageError with a pointer to the bench help.
func printBenchUsageError(w io.Writer, err error) { printSubcommandUsageError(w, "bench", err) }

// Parsing.

func parseBenchArgs(args []string) (benchConfig, error) {
	cfg := benchConfig{}
	var from string
	fs := benchFlagSet(&cfg, &from)
	set, err := parseFlags(fs, args)
	if err != nil {
		return cfg, err
	}
	return cfg.check(set, from)
}

// benchFlagSet defines the flags of bench, storing into cfg and from.
func benchFlagSet(cfg *benchConfig, from *string) *flag.FlagSet {
	fs := newFlagSet(progName + " bench")
	cfg.register(fs)
	fs.IntVar(&cfg.runs, "runs", defaultBenchRuns, "timed runs per N")
	fs.IntVar(&cfg.warmup, "warmup", defaultBenchWarmup, "untimed runs per N before the timed ones")
	fs.BoolVar(&cfg.json, "json", false, "write the bench JSON document to stdout")
	fs.StringVar(&cfg.out, "o", "", "also write the bench JSON document to this file")
	fs.StringVar(&cfg.baseline, "baseline", "", "compare with this earlier bench JSON file")
	fs.StringVar(&cfg.plot, "plot", "", "write a plot of time against N (.png or .svg)")
	fs.StringVar(from, "from", "", "comma-separated bench JSON files to report on instead of measuring")
	return fs
}

// check converts and checks what parseBenchArgs parsed into cfg: the flags
// set and -from.
func (cfg benchConfig) check(set map[string]bool, from string) (benchConfig, error) {
	var err error
	if cfg.plot != "" {
		if _, err := report.PlotFormat(cfg.plot); err != nil {
			return cfg, usageErrorf("invalid -plot: %v", err)
		}
	}
	if set["from"] {
		for _, f := range strings.Split(from, ",") {
			if f = strings.TrimSpace(f); f == "" {
				return cfg, usageErrorf("invalid -from %s: want file names separated by commas", clip.Quote(from, clip.Max))
			}
			cfg.from = append(cfg.from, strings.TrimSpace(f))
		}
		for name := range set {
			switch name {
			case "from", "baseline", "plot":
			default:
				return cfg, usageErrorf("-%s does not apply to -from, which reports on files without measuring", name)
			}
		}
		if cfg.baseline != "" && len(cfg.from) != 1 {
			return cfg, usageErrorf("-baseline with -from compares one file: give -from a single file")
		}
		return cfg, nil
	}
	if cfg.lo, cfg.hi, err = cfg.sizes(set, "missing -n: give a board size such as -n 16 or a range such as -n 12-16"); err != nil {
		return cfg, err
	}
	if cfg.runs < 1 || cfg.runs > maxBenchRuns {
		return cfg, usageErrorf("invalid -runs %d: want 1 to %d", cfg.runs, maxBenchRuns)
	}
	if cfg.warmup < 0 || cfg.warmup > maxBenchRuns {
		return cfg, usageErrorf("invalid -warmup %d: want 0 to %d", cfg.warmup, maxBenchRuns)
	}
	if cfg.devices, err = device.ParseList(cfg.device); err != nil {
		return cfg, &usageError{msg: err.Error()}
	}
	if set["algo"] {
		if cfg.algos, err = parseAlgoList(cfg.algo); err != nil {
			return cfg, err
		}
	}
	if cfg.out != "" && cfg.out == cfg.plot {
		return cfg, usageErrorf("-o and -plot name the same file %s: one would overwrite the other", clip.Quote(cfg.out, clip.Max))
	}
	if cfg.out != "" && cfg.out == cfg.baseline {
		return cfg, usageErrorf("-o and -baseline name the same file %s: the baseline would be overwritten", clip.Quote(cfg.out, clip.Max))
	}
	return cfg, nil
}

// envOf is the environment of a bench or check report.
func envOf(h hooks, tune gpu.Tuning) report.Env {
	e, _ := gatherEnv(h, tune) // a GPU list's error is in e.GPUNote
	return e
}
