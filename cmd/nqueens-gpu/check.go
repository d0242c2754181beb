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

	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
)

// checkSchema versions the -json document of check.
const checkSchema = "nqueens-gpu-check/v1.0"

// plainMaxN is the largest N that check also counts with the plain bitmap
// search on the CPU, the simplest algorithm, as a reference.
const plainMaxN = 13

// checkConfig is the parsed check command line.
type checkConfig struct {
	lo, hi  int
	devices []benchDevice
	algos   []nq.Algo // nil: the default pair of each backend
	workers int
	json    bool
	out     string // -o: also write the JSON document here
}

// checkColumn is one backend and algorithm of the agreement table.
type checkColumn struct {
	Label      string `json:"label"`
	Backend    string `json:"backend"`
	Device     string `json:"device"`
	DeviceName string `json:"device_name,omitempty"`
	Requested  string `json:"requested_device"`
	Fallback   string `json:"fallback,omitempty"`
	Algo       string `json:"algo"`
	// MaxN is the largest N it runs for; 0 means every N.
	MaxN int `json:"max_n,omitempty"`

	solve func(ctx context.Context, n int, algo nq.Algo) (nq.Counts, error)
}

// checkCounts is a count as the JSON document writes it.
type checkCounts = nq.CountsJSON

func toCheckCounts(c nq.Counts) checkCounts { return c.JSON() }

// checkCell is one column's result for one N.
type checkCell struct {
	Label   string       `json:"label"`
	Counts  *checkCounts `json:"counts,omitempty"`
	Seconds float64      `json:"seconds"`
	Error   string       `json:"error,omitempty"`
	// Agrees says whether the counts equal the row's reference (see
	// checkRow.judge).
	Agrees bool `json:"agrees"`

	counts nq.Counts
	ran    bool
}

// checkRow is one N.
type checkRow struct {
	N int `json:"n"`
	// Known is the published Total and Unique; KnownClasses adds C2/C4/C8
	// where they are published.
	Known  *knownCounts `json:"known,omitempty"`
	Cells  []checkCell  `json:"results"`
	OK     bool         `json:"ok"`
	Reason string       `json:"reason,omitempty"`
}

// knownCounts is the published row of an N.
type knownCounts struct {
	Total   uint64        `json:"total"`
	Unique  uint64        `json:"unique"`
	Classes *knownClasses `json:"classes,omitempty"`
}

// knownClasses is the published C2/C4/C8 split (N=4..17).
type knownClasses struct {
	Count2 uint64 `json:"count2"`
	Count4 uint64 `json:"count4"`
	Count8 uint64 `json:"count8"`
}

// checkDocument is what check -json writes.
type checkDocument struct {
	Schema  string        `json:"schema"`
	Created time.Time     `json:"created"`
	Command []string      `json:"command"`
	Env     report.Env    `json:"env"`
	Columns []checkColumn `json:"columns"`
	Rows    []checkRow    `json:"rows"`
	OK      bool          `json:"ok"`
}

// runCheck runs `nqueens-gpu check`.
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runCheckWith(ctx, args, stdout, stderr, defaultHooks())
}

func runCheckWith(ctx context.Context, args []string, stdout, stderr io.Writer, h hooks) int {
	cfg, err := parseCheckArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		io.WriteString(stdout, checkUsage)
		return exitOK
	}
	if err != nil {
		printCheckUsageError(stderr, err)
		return exitUsage
	}
	cols, closeAll, err := openCheckColumns(cfg, h, stderr)
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			printCheckUsageError(stderr, err)
			return exitUsage
		}
		printError(stderr, err.Error())
		return exitRuntime
	}
	defer closeAll()

	doc := checkDocument{
		Schema:  checkSchema,
		Created: time.Now().UTC().Truncate(time.Second),
		Command: append([]string{progName, "check"}, args...),
		Columns: cols,
		OK:      true,
	}
	if cfg.json || cfg.out != "" {
		doc.Env = gatherEnv(h)
	}
	text := io.Discard
	if !cfg.json {
		text = stdout
	}
	t := newCheckTable(text, cols)
	t.header()
	var bad []checkRow
	for n := cfg.lo; n <= cfg.hi; n++ {
		row := checkRow{N: n}
		for _, c := range cols {
			cell := checkCell{Label: c.Label}
			if c.MaxN == 0 || n <= c.MaxN {
				if err := ctx.Err(); err != nil {
					printError(stderr, fmt.Sprintf("interrupted before N=%d", n))
					return exitInterrupted
				}
				start := time.Now()
				cnt, err := c.solve(ctx, n, nq.Algo(c.Algo))
				cell.Seconds = h.since(start).Seconds()
				cell.ran = true
				if err != nil {
					if ctx.Err() != nil {
						printError(stderr, fmt.Sprintf("interrupted while counting N=%d", n))
						return exitInterrupted
					}
					cell.Error = oneLine(err.Error())
				} else {
					cell.counts = cnt
					cc := toCheckCounts(cnt)
					cell.Counts = &cc
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		row.judge()
		t.row(&row)
		doc.Rows = append(doc.Rows, row)
		if !row.OK {
			doc.OK = false
			bad = append(bad, row)
		}
	}
	if cfg.json {
		if err := writeCheckJSON(stdout, &doc); err != nil {
			printError(stderr, "writing output: "+err.Error())
			return exitRuntime
		}
	} else {
		t.summary(cfg, bad)
	}
	if cfg.out != "" {
		if err := writeCheckFile(cfg.out, &doc); err != nil {
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

func writeCheckJSON(w io.Writer, doc *checkDocument) error { return report.WriteJSON(w, doc) }

func writeCheckFile(path string, doc *checkDocument) error { return report.WriteJSONFile(path, doc) }

// judge decides whether a row agrees. The reference is the published
// counts where all five numbers are published; otherwise the counts most
// columns report (the first column's among equals), which must also match
// the published Total and Unique where there are some. Every column that
// ran must equal the reference; a column that failed fails the row.
func (r *checkRow) judge() {
	var ref *nq.Counts
	if e, ok := known.Lookup(r.N); ok {
		r.Known = &knownCounts{Total: e.Total, Unique: e.Unique}
		if cls, ok := known.ClassTable[r.N]; ok {
			r.Known.Classes = &knownClasses{cls.C2, cls.C4, cls.C8}
			ref = &nq.Counts{C2: cls.C2, C4: cls.C4, C8: cls.C8}
		}
	}
	if ref == nil {
		votes := map[nq.Counts]int{}
		best := -1
		for i, c := range r.Cells {
			if c.ran && c.Error == "" {
				votes[c.counts]++
				if best < 0 || votes[c.counts] > votes[r.Cells[best].counts] {
					best = i
				}
			}
		}
		if best >= 0 {
			c := r.Cells[best].counts
			ref = &c
		}
	}
	r.OK = true
	var reasons []string
	if ref != nil && r.Known != nil && (ref.Total() != r.Known.Total || ref.Unique() != r.Known.Unique) {
		r.OK = false
		reasons = append(reasons, fmt.Sprintf("published total=%d unique=%d", r.Known.Total, r.Known.Unique))
	}
	ran := 0
	for i := range r.Cells {
		c := &r.Cells[i]
		if !c.ran {
			continue
		}
		ran++
		switch {
		case c.Error != "":
			r.OK = false
			reasons = append(reasons, c.Label+" failed")
		case ref != nil && c.counts == *ref && (r.Known == nil || (c.counts.Total() == r.Known.Total && c.counts.Unique() == r.Known.Unique)):
			c.Agrees = true
		default:
			r.OK = false
			reasons = append(reasons, c.Label+" differs")
		}
	}
	if ran == 0 {
		r.OK = false
		reasons = append(reasons, "nothing ran")
	}
	r.Reason = strings.Join(reasons, "; ")
}

// openCheckColumns opens every backend cfg asks for and lists its
// columns. A GPU that cannot be used falls back to the CPU with one line on
// stderr, as the counting command does; its columns say so.
func openCheckColumns(cfg checkConfig, h hooks, stderr io.Writer) (cols []checkColumn, closeAll func(), err error) {
	var closers []func() error
	closeAll = func() {
		for _, c := range closers {
			c()
		}
	}
	seen := map[string]bool{}
	for _, dev := range cfg.devices {
		b, fallback, err := openBenchBackend(dev, h, cfg.workers)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		closers = append(closers, b.close)
		if fallback != "" {
			w := benchWorkers(benchConfig{workers: cfg.workers}, h)
			printError(stderr, fmt.Sprintf("%s; running on the CPU with %d worker%s", fallback, w, plural(w)))
		}
		algos := cfg.algos
		if algos == nil {
			// The fastest algorithm and an independent second one: they
			// share no task enumeration and no search code.
			algos = []nq.Algo{nq.Symmetry, nq.CarryChain}
		}
		for _, a := range algos {
			if b.kind == "gpu" && !gpu.Supports(a) {
				closeAll()
				return nil, nil, usageErrorf("-algo %s has no GPU kernel; GPUs run %s", a, algoNames(gpu.Algos()))
			}
			s := report.Series{Backend: b.kind, Device: b.device, Requested: dev.String(), Fallback: fallback, Algo: string(a)}
			col := checkColumn{
				Label: seriesLabel(s), Backend: b.kind, Device: b.device, DeviceName: b.deviceName,
				Requested: dev.String(), Fallback: fallback, Algo: string(a), solve: b.solve,
			}
			if seen[col.Label] {
				closeAll()
				return nil, nil, usageErrorf("%s is asked for twice; list each device and algorithm once", col.Label)
			}
			seen[col.Label] = true
			cols = append(cols, col)
		}
	}
	// The plainest search as a third opinion where it is quick.
	if cfg.algos == nil && cfg.lo <= plainMaxN && !seen["cpu "+string(nq.Bitmap)] {
		b, _, _ := openBenchBackend(benchDevice{}, h, cfg.workers)
		cols = append(cols, checkColumn{
			Label: "cpu " + string(nq.Bitmap), Backend: "cpu", Device: "cpu", Requested: "cpu",
			Algo: string(nq.Bitmap), MaxN: plainMaxN, solve: b.solve,
		})
	}
	return cols, closeAll, nil
}

// checkTable writes the agreement table: one row per N with each column's
// Total, a star on every count that disagrees, and OK or MISMATCH.
type checkTable struct {
	w      io.Writer
	cols   []checkColumn
	widths []int
}

func newCheckTable(w io.Writer, cols []checkColumn) *checkTable {
	t := &checkTable{w: w, cols: cols}
	for _, c := range cols {
		t.widths = append(t.widths, max(len(c.Label), 20))
	}
	return t
}

func (t *checkTable) header() {
	fmt.Fprintf(t.w, "%3s  %20s", "N", "published Total")
	for i, c := range t.cols {
		fmt.Fprintf(t.w, "  %*s", t.widths[i], c.Label)
	}
	fmt.Fprintf(t.w, "  %s\n", "verdict")
}

func (t *checkTable) row(r *checkRow) {
	pub := "-"
	if r.Known != nil {
		pub = strconv.FormatUint(r.Known.Total, 10)
	}
	fmt.Fprintf(t.w, "%3d  %20s", r.N, pub)
	for i, c := range r.Cells {
		v := "-"
		switch {
		case !c.ran:
		case c.Error != "":
			v = "ERROR"
		default:
			v = strconv.FormatUint(c.counts.Total(), 10)
			if !c.Agrees {
				v += "*"
			}
		}
		fmt.Fprintf(t.w, "  %*s", t.widths[i], v)
	}
	verdict := "OK"
	if !r.OK {
		verdict = "MISMATCH"
	}
	fmt.Fprintf(t.w, "  %s\n", verdict)
}

// summary explains every failed row and ends with one line.
func (t *checkTable) summary(cfg checkConfig, bad []checkRow) {
	fmt.Fprintf(t.w, "\nEach column counts Total, Unique, C2, C4 and C8; a row is OK when every column\n")
	fmt.Fprintf(t.w, "agrees on all of them and with the published Total and Unique (and C2/C4/C8\n")
	fmt.Fprintf(t.w, "for N=4..17). \"-\": not run for this N; \"*\": differs.\n")
	noted := map[string]bool{}
	for _, c := range t.cols {
		if c.Fallback != "" && !noted[c.Requested] {
			noted[c.Requested] = true
			fmt.Fprintf(t.w, "Note: -device %s ran on the CPU, not on a GPU: %s\n", c.Requested, c.Fallback)
		}
	}
	for _, r := range bad {
		fmt.Fprintf(t.w, "\nMISMATCH at N=%d: %s\n", r.N, r.Reason)
		if r.Known != nil {
			line := fmt.Sprintf("total=%d unique=%d", r.Known.Total, r.Known.Unique)
			if r.Known.Classes != nil {
				line += fmt.Sprintf(" c2=%d c4=%d c8=%d", r.Known.Classes.Count2, r.Known.Classes.Count4, r.Known.Classes.Count8)
			}
			fmt.Fprintf(t.w, "  %-*s  %s\n", t.labelWidth(), "published", line)
		}
		for _, c := range r.Cells {
			switch {
			case !c.ran:
			case c.Error != "":
				fmt.Fprintf(t.w, "  %-*s  error: %s\n", t.labelWidth(), c.Label, c.Error)
			default:
				mark := ""
				if !c.Agrees {
					mark = "  <- differs"
				}
				fmt.Fprintf(t.w, "  %-*s  %v%s\n", t.labelWidth(), c.Label, c.counts, mark)
			}
		}
	}
	fmt.Fprintln(t.w)
	if len(bad) == 0 {
		fmt.Fprintf(t.w, "check passed: N=%s, %d column%s, all agree\n", rangeText(cfg.lo, cfg.hi), len(t.cols), plural(len(t.cols)))
	} else {
		fmt.Fprintf(t.w, "check FAILED: %d of %d sizes disagree\n", len(bad), cfg.hi-cfg.lo+1)
	}
}

func (t *checkTable) labelWidth() int {
	w := len("published")
	for _, c := range t.cols {
		w = max(w, len(c.Label))
	}
	return w
}

func printCheckUsageError(w io.Writer, err error) { printSubcommandUsageError(w, "check", err) }

func parseCheckArgs(args []string) (checkConfig, error) {
	var cfg checkConfig
	var n, devices, algos string
	fs := flag.NewFlagSet(progName+" check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&n, "n", "", "board size N or range A-B")
	fs.StringVar(&devices, "device", "cpu", "cpu, a GPU ordinal or all; several separated by commas")
	fs.StringVar(&algos, "algo", "", "algorithms; several separated by commas")
	fs.IntVar(&cfg.workers, "workers", 0, "CPU worker goroutines, 0 = all cores")
	fs.BoolVar(&cfg.json, "json", false, "write a JSON document instead of the table")
	fs.StringVar(&cfg.out, "o", "", "also write the JSON document to this file")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return cfg, err
		}
		return cfg, &usageError{msg: err.Error()}
	}
	if fs.NArg() > 0 {
		return cfg, usageErrorf("unexpected argument %q: every option is a flag such as -n 4-16", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["n"] {
		return cfg, usageErrorf("missing -n: give a range such as -n 4-16")
	}
	var err error
	if cfg.lo, cfg.hi, err = parseRange(n); err != nil {
		return cfg, err
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
	return cfg, nil
}

const checkUsage = `nqueens-gpu check cross-checks the counts: for each N it runs every selected
backend with two independent algorithms (and, for N <= 13, the plain bitmap
search on the CPU), compares Total, Unique, C2, C4 and C8 between all of them
and with the published table, prints an agreement table and exits with
status 1 on any disagreement. Run it on every new GPU.

Usage:
  nqueens-gpu check -n N|A-B [-device LIST] [-algo LIST] [-workers K] [-json]
                    [-o FILE]

Flags:
  -n N, -n A-B   the sizes to check
  -device LIST   cpu (default), a GPU ordinal, or all (GPU 0 for now);
                 several separated by commas, e.g. cpu,0. A GPU that cannot
                 be used falls back to the CPU and says so.
  -algo LIST     the algorithms of each backend (default symmetry and
                 carrychain, plus the CPU's bitmap for N <= 13)
  -workers K     CPU worker goroutines (default: one per core)
  -json          write a JSON document (schema "nqueens-gpu-check/v1.x": the
                 environment, the columns, and per N every column's counts,
                 time and verdict) instead of the table
  -o FILE        also write that JSON document to FILE (written also when
                 the check fails)

Table:
  One row per N: the published Total, each column's Total (a "*" marks a
  column whose counts differ, "-" one that does not run for this N) and OK or
  MISMATCH. Each mismatch is then explained with all the numbers.

Examples:
  nqueens-gpu check -n 1-16
  nqueens-gpu check -n 4-20 -device 0
  nqueens-gpu check -n 12-18 -device cpu,0 -algo symmetry,carrychain

Exit status: 0 when everything agrees, 1 on a disagreement or a failed
count, 2 on a usage error, 130 when interrupted.
`
