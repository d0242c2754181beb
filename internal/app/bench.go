package app

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
	"github.com/nqueens-gpu/nqueens-gpu/internal/fsutil"
	"github.com/nqueens-gpu/nqueens-gpu/internal/gpuinfo"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
)

// Sweep is what bench and check count: the sizes Lo..Hi on each device
// set of Devices, opened on its own, with each algorithm of Algos (nil:
// the command's default), and the choices every count shares.
type Sweep struct {
	Lo, Hi     int
	Devices    []device.Set
	Algos      []nq.Algo
	Workers    int
	Depth      int
	Tune       gpuinfo.Tuning
	RequireGPU bool
}

// BenchOptions are the parsed and checked command line of bench; its
// algorithms default to each device set's.
type BenchOptions struct {
	Sweep
	Runs     int
	Warmup   int
	JSON     bool
	Out      string   // also write the JSON document here
	Baseline string   // compare with this earlier document
	Plot     string   // a plot of time against N (.png or .svg)
	From     []string // report on these documents instead of measuring
	Args     []string // the command line without the program's name
}

// Bench times the counts of opt (or reports on earlier documents, From)
// and writes the table or the JSON document, a comparison and a plot.
func Bench(ctx context.Context, opt BenchOptions, stdout, stderr io.Writer, h Hooks) error {
	if err := checkOutputFiles("-o", opt.Out, "-plot", opt.Plot); err != nil {
		return err
	}
	// Every file is read and checked before any work.
	var base *report.Document
	if opt.Baseline != "" {
		var err error
		if base, err = report.ReadFile(opt.Baseline); err != nil {
			return fmt.Errorf("-baseline: %w", err)
		}
	}
	if len(opt.From) > 0 {
		return benchFromFiles(opt, base, stdout)
	}
	h = h.WithDefaults()
	doc := &report.Document{Header: header(report.Schema, "bench", opt.Args), Runs: opt.Runs, Warmup: opt.Warmup}
	doc.Env = envOf(h, opt.Tune)
	text := io.Discard
	if !opt.JSON {
		text = stdout
		fmt.Fprintf(text, "%s bench: N=%s, %d timed run%s per N after %d warm-up\n\n", Program, report.RangeText(opt.Lo, opt.Hi), opt.Runs, report.Plural(opt.Runs), opt.Warmup)
		report.WriteEnvText(text, &doc.Env)
		if err := outputErr(stdout); err != nil {
			return &OutputError{err} // before any work
		}
	}
	for _, set := range opt.Devices {
		if err := measureDevices(ctx, opt, set, h, doc, text, stderr); err != nil {
			return err
		}
	}
	return writeBench(opt, doc, base, stdout, stderr)
}

// writeBench writes what bench measured: its notes or its JSON document,
// the -o file, the comparison with the baseline and the plot.
func writeBench(opt BenchOptions, doc, base *report.Document, stdout, stderr io.Writer) error {
	if !opt.JSON {
		report.WriteBenchNotes(stdout)
	} else if err := report.Write(stdout, doc); err != nil {
		return &OutputError{err}
	}
	if opt.Out != "" {
		if err := report.WriteFile(opt.Out, doc); err != nil {
			return fmt.Errorf("writing -o: %w", err)
		}
	}
	if base != nil {
		// With -json, stdout holds the document alone.
		w := stdout
		if opt.JSON {
			w = stderr
		}
		report.WriteComparison(w, doc, base, opt.Baseline)
	}
	if opt.Plot != "" {
		title := fmt.Sprintf("%s bench, %s", Program, doc.Created.Format("2006-01-02"))
		if err := report.SavePlot(opt.Plot, title, report.PlotSeriesOf([]*report.Document{doc}, nil)); err != nil {
			return fmt.Errorf("writing -plot: %w", err)
		}
	}
	return nil
}

// benchFromFiles reports on earlier bench documents instead of measuring.
func benchFromFiles(opt BenchOptions, base *report.Document, stdout io.Writer) error {
	docs := make([]*report.Document, len(opt.From))
	names := make([]string, len(opt.From))
	for i, f := range opt.From {
		d, err := report.ReadFile(f)
		if err != nil {
			return fmt.Errorf("-from: %w", err)
		}
		docs[i], names[i] = d, filepath.Base(f)
	}
	if base != nil {
		report.WriteComparison(stdout, docs[0], base, opt.Baseline)
	}
	if opt.Plot != "" {
		title := fmt.Sprintf("%s bench: %s", Program, strings.Join(names, ", "))
		if err := report.SavePlot(opt.Plot, title, report.PlotSeriesOf(docs, names)); err != nil {
			return fmt.Errorf("writing -plot: %w", err)
		}
	}
	if base == nil && opt.Plot == "" {
		for i, d := range docs {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			report.WriteDocumentText(stdout, d, names[i])
		}
	}
	return nil
}

// measureDevices opens the device set and times every series of it,
// adding each to doc and writing each row to text as soon as its N is
// done.
func measureDevices(ctx context.Context, opt BenchOptions, set device.Set, h Hooks, doc *report.Document, text, stderr io.Writer) error {
	start := time.Now()
	devs, err := device.Open(set, device.Options{Workers: opt.Workers, RequireGPU: opt.RequireGPU}, h.Drivers(opt.Tune))
	startup := h.Since(start)
	if err != nil {
		return err
	}
	if err := measureSeries(ctx, opt, set, devs, startup, h, doc, text, stderr); err != nil {
		devs.Close()
		return err
	}
	if err := devs.Close(); err != nil {
		return fmt.Errorf("closing the devices: %w", err)
	}
	return nil
}

// measureSeries times every series of the opened devices devs.
func measureSeries(ctx context.Context, opt BenchOptions, set device.Set, devs *device.Devices, startup time.Duration, h Hooks,
	doc *report.Document, text, stderr io.Writer) error {
	reportOpen(stderr, devs, "", false)
	series, err := benchSeries(opt, set, devs, doc, startup)
	if err != nil {
		return err
	}
	for i := range series {
		s := &series[i]
		report.WriteSeriesHeader(text, s)
		for n := opt.Lo; n <= opt.Hi; n++ {
			spec := devs.Spec(n, nq.Algo(s.Algo), opt.Depth)
			r, err := report.Measure(ctx, n, opt.Warmup, opt.Runs, func(ctx context.Context) (nq.Counts, error) {
				return job.Count(ctx, jobFor(devs, spec, h.jobConfig()))
			}, h.Since)
			if err != nil {
				if ctx.Err() != nil {
					return interrupted(ctx, "interrupted%s while timing N=%d", n)
				}
				return fmt.Errorf("%s: %w", s.Label, err)
			}
			s.Results = append(s.Results, r)
			report.WriteResultRow(text, &r)
			if err := outputErr(text); err != nil {
				return &OutputError{err}
			}
		}
		doc.Series = append(doc.Series, *s)
	}
	return nil
}

// benchSeries checks and lists the series of one device set before any is
// timed: one per algorithm, each asked for once in doc; the devices'
// start-up is charged to the first, the others start warm.
func benchSeries(opt BenchOptions, set device.Set, devs *device.Devices, doc *report.Document, startup time.Duration) ([]report.Series, error) {
	algos := opt.Algos
	if algos == nil {
		algos = []nq.Algo{devs.Algo}
	}
	series := make([]report.Series, len(algos))
	for i, algo := range algos {
		if err := devs.Check(algo); err != nil {
			return nil, err
		}
		s := report.Series{Backend: devs.Kind, Device: devs.Device, DeviceName: devs.DeviceName, Requested: set.String(),
			Fallback: devs.Fallback, Algo: string(algo), Workers: devs.CPUWorkers}
		s.Label = report.SeriesLabel(s)
		for _, seen := range doc.Series {
			if seen.Label == s.Label {
				return nil, Usagef("series %s is asked for twice; list each device and algorithm once", clip.Quote(s.Label, clip.Max))
			}
		}
		for _, seen := range series[:i] {
			if seen.Label == s.Label {
				return nil, Usagef("series %s is asked for twice; list each device and algorithm once", clip.Quote(s.Label, clip.Max))
			}
		}
		if i == 0 {
			s.StartupSeconds = startup.Seconds()
		} else {
			s.StartupWith = series[0].Label
		}
		series[i] = s
	}
	return series, nil
}

// checkOutputFiles checks, before any work, that each output file a flag
// names can be written the way it will be (fsutil.WriteAtomic): a missing
// directory, a read-only file, a directory or a FIFO in its place fails
// now, not after hours of work. flagFiles holds pairs of a flag's name
// and its file ("" for none).
func checkOutputFiles(flagFiles ...string) error {
	for i := 0; i+1 < len(flagFiles); i += 2 {
		name, path := flagFiles[i], flagFiles[i+1]
		if path == "" {
			continue
		}
		if err := fsutil.CheckWritable(path); err != nil {
			return fmt.Errorf("%s: %v; stopped before any work", name, err)
		}
	}
	return nil
}

// header is the opening of a document of schema written by the command
// sub with args, now.
func header(schema, sub string, args []string) report.Header {
	return report.Header{Schema: schema, Created: time.Now().UTC().Truncate(time.Second),
		Command: append([]string{Program, sub}, args...)}
}
