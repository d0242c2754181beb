package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
)

// plainMaxN is the largest N that check also counts with the plain bitmap
// search on the CPU, the simplest algorithm, as a reference.
const plainMaxN = 13

// checkConfig is the parsed check command line.
type checkConfig struct {
	countFlags
	lo, hi  int
	devices []device.Set
	algos   []nq.Algo // nil: the default pair of each backend
	json    bool
	out     string // -o: also write the JSON document here
}

// checkColumn is one column of the table and the devices that count it.
type checkColumn struct {
	report.CheckColumn
	devs *device.Devices
}

// runCheck runs `nqueens-gpu check`.
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runCheckWith(ctx, args, stdout, stderr, defaultHooks())
}

func runCheckWith(ctx context.Context, args []string, stdout, stderr io.Writer, h hooks) (code int) {
	out := checkedOutput(stdout)
	defer func() { code = outputDone(code, out, stderr) }()
	stdout = out
	cfg, err := parseCheckArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		return helpDone(stdout, stderr, "check")
	}
	if err != nil {
		printCheckUsageError(stderr, err)
		return exitUsage
	}
	if code := checkOutputFiles(stderr, "-o", cfg.out); code != exitOK {
		return code
	}
	h = h.withDefaults()
	cols, closeAll, err := openCheckColumns(cfg, h, stderr)
	if err != nil {
		return openFailed(stderr, err, printCheckUsageError)
	}
	defer closeAll()

	doc := report.CheckDocument{
		Schema:  report.CheckSchema,
		Created: time.Now().UTC().Truncate(time.Second),
		Command: append([]string{progName, "check"}, args...),
		OK:      true,
	}
	for _, c := range cols {
		doc.Columns = append(doc.Columns, c.CheckColumn)
	}
	if cfg.json || cfg.out != "" {
		doc.Env = envOf(h, cfg.tune)
	}
	text := io.Discard
	if !cfg.json {
		text = stdout
	}
	t := report.NewCheckTable(text, doc.Columns)
	t.Header()
	if err := out.Err(); err != nil {
		return outputFailed(stderr, err) // before any work
	}
	var bad []report.CheckRow
	for n := cfg.lo; n <= cfg.hi; n++ {
		row := report.CheckRow{N: n}
		for _, c := range cols {
			cell := report.CheckCell{Label: c.Label}
			if c.MaxN == 0 || n <= c.MaxN {
				if err := ctx.Err(); err != nil {
					printError(stderr, fmt.Sprintf("interrupted before N=%d", n))
					return exitInterrupted
				}
				start := time.Now()
				cnt, err := job.Count(ctx, c.devs.Job(c.devs.Spec(n, nq.Algo(c.Algo), cfg.depth), h.jobConfig()))
				cell.Seconds = h.since(start).Seconds()
				cell.Ran = true
				if err != nil {
					if ctx.Err() != nil {
						printError(stderr, fmt.Sprintf("interrupted while counting N=%d", n))
						return exitInterrupted
					}
					cell.Error = oneLine(err.Error())
				} else {
					cell.SetCounts(cnt)
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		row.Judge()
		t.Row(&row)
		if err := out.Err(); err != nil {
			return outputFailed(stderr, err)
		}
		doc.Rows = append(doc.Rows, row)
		if !row.OK {
			doc.OK = false
			bad = append(bad, row)
		}
	}
	if cfg.json {
		if err := report.WriteJSON(stdout, &doc); err != nil {
			return outputFailed(stderr, err)
		}
	} else {
		t.Summary(cfg.lo, cfg.hi, bad)
	}
	if cfg.out != "" {
		if err := report.WriteJSONFile(cfg.out, &doc); err != nil {
			printError(stderr, "writing -o: "+err.Error())
			return exitRuntime
		}
	}
	if !doc.OK {
		ns := make([]string, len(bad))
		for i, r := range bad {
			ns[i] = strconv.Itoa(r.N)
		}
		printError(stderr, fmt.Sprintf("check failed: the counts disagree at N=%s", strings.Join(ns, ",")))
		return exitRuntime
	}
	return exitOK
}

// openCheckColumns opens every device set cfg asks for and lists its
// columns. A GPU that cannot be used falls back to the CPU with one line on
// stderr, as the counting command does; its columns say so.
func openCheckColumns(cfg checkConfig, h hooks, stderr io.Writer) (cols []checkColumn, closeAll func(), err error) {
	var opened []*device.Devices
	closeAll = func() {
		for _, d := range opened {
			d.Close()
		}
	}
	drivers := h.drivers(cfg.tune)
	seen := map[string]bool{}
	add := func(set device.Set, algos []nq.Algo, maxN int) error {
		devs, err := device.Open(set, device.Options{Workers: cfg.workers, RequireGPU: cfg.requireGPU}, drivers)
		if err != nil {
			return err
		}
		opened = append(opened, devs)
		reportOpen(stderr, devs, "")
		for _, a := range algos {
			if err := devs.Check(a); err != nil {
				return err
			}
			c := report.CheckColumn{Backend: devs.Kind, Device: devs.Device, DeviceName: devs.DeviceName,
				Requested: set.String(), Fallback: devs.Fallback, Algo: string(a), MaxN: maxN}
			c.Label = report.SeriesLabel(report.Series{Backend: c.Backend, Device: c.Device, Requested: c.Requested, Fallback: c.Fallback, Algo: c.Algo})
			if seen[c.Label] {
				return usageErrorf("%s is asked for twice; list each device and algorithm once", c.Label)
			}
			seen[c.Label] = true
			cols = append(cols, checkColumn{c, devs})
		}
		return nil
	}
	for _, set := range cfg.devices {
		algos := cfg.algos
		if algos == nil {
			// The fastest algorithm and an independent second one: they
			// share no task enumeration and no search code, and one finds
			// the classes by Burnside's lemma, the other solution by
			// solution.
			algos = []nq.Algo{nq.Eightfold, nq.Symmetry}
		}
		if err := add(set, algos, 0); err != nil {
			closeAll()
			return nil, nil, err
		}
	}
	// The plainest search as a third opinion where it is quick.
	if cfg.algos == nil && cfg.lo <= plainMaxN && !seen["cpu "+string(nq.Bitmap)] {
		if err := add(device.Set{CPU: true}, []nq.Algo{nq.Bitmap}, plainMaxN); err != nil {
			closeAll()
			return nil, nil, err
		}
	}
	return cols, closeAll, nil
}

func printCheckUsageError(w io.Writer, err error) { printSubcommandUsageError(w, "check", err) }

func parseCheckArgs(args []string) (checkConfig, error) {
	var cfg checkConfig
	set, err := parseFlags(checkFlagSet(&cfg), args)
	if err != nil {
		return cfg, err
	}
	if cfg.lo, cfg.hi, err = cfg.sizes(set, "missing -n: give a range such as -n 4-16"); err != nil {
		return cfg, err
	}
	if cfg.devices, err = device.ParseList(cfg.device); err != nil {
		return cfg, &usageError{msg: err.Error()}
	}
	if set["algo"] {
		if cfg.algos, err = parseAlgoList(cfg.algo); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// checkFlagSet defines the flags of check, storing into cfg.
func checkFlagSet(cfg *checkConfig) *flag.FlagSet {
	fs := newFlagSet(progName + " check")
	cfg.register(fs)
	fs.BoolVar(&cfg.json, "json", false, "write a JSON document instead of the table")
	fs.StringVar(&cfg.out, "o", "", "also write the JSON document to this file")
	return fs
}
