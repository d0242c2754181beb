package app

import (
	"context"
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

// CheckOptions are the parsed and checked command line of check; its
// algorithms default to a pair on each device set.
type CheckOptions struct {
	Sweep
	JSON bool
	Out  string   // also write the JSON document here
	Args []string // the command line without the program's name
}

// checkColumn is one column of the table and the devices that count it.
type checkColumn struct {
	report.CheckColumn
	devs *device.Devices
}

// Check counts every N of opt with every device set and algorithm and
// compares the counts with each other and with the published ones; a
// disagreement is an error after the whole table.
func Check(ctx context.Context, opt CheckOptions, stdout, stderr io.Writer, h Hooks) error {
	if err := checkOutputFiles("-o", opt.Out); err != nil {
		return err
	}
	h = h.WithDefaults()
	cols, closeAll, err := openCheckColumns(opt, h, stderr)
	if err != nil {
		return err
	}
	defer closeAll()
	doc := report.CheckDocument{Header: header(report.CheckSchema, "check", opt.Args), OK: true}
	for _, c := range cols {
		doc.Columns = append(doc.Columns, c.CheckColumn)
	}
	if opt.JSON || opt.Out != "" {
		doc.Env = envOf(h, opt.Tune)
	}
	text := io.Discard
	if !opt.JSON {
		text = stdout
	}
	t := report.NewCheckTable(text, doc.Columns)
	t.Header()
	if err := outputErr(stdout); err != nil {
		return &OutputError{err} // before any work
	}
	var bad []report.CheckRow
	for n := opt.Lo; n <= opt.Hi; n++ {
		row, err := checkRow(ctx, opt, h, cols, n)
		if err != nil {
			return err
		}
		t.Row(&row)
		if err := outputErr(stdout); err != nil {
			return &OutputError{err}
		}
		doc.Rows = append(doc.Rows, row)
		if !row.OK {
			doc.OK = false
			bad = append(bad, row)
		}
	}
	return writeCheck(opt, &doc, t, bad, stdout)
}

// checkRow counts n in every column that goes that far.
func checkRow(ctx context.Context, opt CheckOptions, h Hooks, cols []checkColumn, n int) (report.CheckRow, error) {
	row := report.CheckRow{N: n}
	for _, c := range cols {
		cell := report.CheckCell{Label: c.Label}
		if c.MaxN == 0 || n <= c.MaxN {
			if ctx.Err() != nil {
				return row, interrupted(ctx, "interrupted%s before N=%d", n)
			}
			start := time.Now()
			cnt, err := job.Count(ctx, jobFor(c.devs, c.devs.Spec(n, nq.Algo(c.Algo), opt.Depth), h.jobConfig()))
			cell.Seconds = h.Since(start).Seconds()
			cell.Ran = true
			switch {
			case err != nil && ctx.Err() != nil:
				return row, interrupted(ctx, "interrupted%s while counting N=%d", n)
			case err != nil:
				cell.Error = OneLine(err.Error())
			default:
				cell.SetCounts(cnt)
			}
		}
		row.Cells = append(row.Cells, cell)
	}
	row.Judge()
	return row, nil
}

// writeCheck writes the end of a check: the document or the summary, the
// -o file, and the error that names the N where the counts disagree.
func writeCheck(opt CheckOptions, doc *report.CheckDocument, t *report.CheckTable, bad []report.CheckRow, stdout io.Writer) error {
	if opt.JSON {
		if err := report.WriteJSON(stdout, doc); err != nil {
			return &OutputError{err}
		}
	} else {
		t.Summary(opt.Lo, opt.Hi, bad)
	}
	if opt.Out != "" {
		if err := report.WriteJSONFile(opt.Out, doc); err != nil {
			return fmt.Errorf("writing -o: %w", err)
		}
	}
	if doc.OK {
		return nil
	}
	ns := make([]string, len(bad))
	for i, r := range bad {
		ns[i] = strconv.Itoa(r.N)
	}
	return fmt.Errorf("check failed: the counts disagree at N=%s", strings.Join(ns, ","))
}

// openCheckColumns opens every device set opt asks for and lists its
// columns. A GPU that cannot be used falls back to the CPU with one line on
// stderr, as the counting command does; its columns say so.
func openCheckColumns(opt CheckOptions, h Hooks, stderr io.Writer) (cols []checkColumn, closeAll func(), err error) {
	var opened []*device.Devices
	closeAll = func() {
		for _, d := range opened {
			d.Close()
		}
	}
	drivers := h.Drivers(opt.Tune)
	seen := map[string]bool{}
	add := func(set device.Set, algos []nq.Algo, maxN int) error {
		devs, err := device.Open(set, device.Options{Workers: opt.Workers, RequireGPU: opt.RequireGPU}, drivers)
		if err != nil {
			return err
		}
		opened = append(opened, devs)
		reportOpen(stderr, devs, "", false)
		for _, a := range algos {
			if err := devs.Check(a); err != nil {
				return err
			}
			c := report.CheckColumn{Backend: devs.Kind, Device: devs.Device, DeviceName: devs.DeviceName,
				Requested: set.String(), Fallback: devs.Fallback, Algo: string(a), MaxN: maxN}
			c.Label = report.SeriesLabel(report.Series{Backend: c.Backend, Device: c.Device, Requested: c.Requested, Fallback: c.Fallback, Algo: c.Algo})
			if seen[c.Label] {
				return Usagef("%s is asked for twice; list each device and algorithm once", c.Label)
			}
			seen[c.Label] = true
			cols = append(cols, checkColumn{c, devs})
		}
		return nil
	}
	for _, set := range opt.Devices {
		algos := opt.Algos
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
	if opt.Algos == nil && opt.Lo <= plainMaxN && !seen["cpu "+string(nq.Bitmap)] {
		if err := add(device.Set{CPU: true}, []nq.Algo{nq.Bitmap}, plainMaxN); err != nil {
			closeAll()
			return nil, nil, err
		}
	}
	return cols, closeAll, nil
}
