package report

// Text renderings of bench and check results, as the command prints them.

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteEnvText writes the environment block of a bench report.
func WriteEnvText(w io.Writer, e *Env) {
	row := func(k, v string) { fmt.Fprintf(w, "  %-10s %s\n", k, v) }
	fmt.Fprintln(w, "environment")
	row("CPU", fmt.Sprintf("%s, %d logical CPUs, GOMAXPROCS %d", orUnknown(e.CPUModel), e.CPUCores, e.GOMAXPROCS))
	if e.CPUSearch != "" {
		row("CPU search", e.CPUSearch)
	}
	row("Go", fmt.Sprintf("%s %s/%s", e.GoVersion, e.OS, e.Arch))
	if e.Version != "" {
		row("version", e.Version)
	}
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
			note = ": " + strings.Join(strings.Fields(e.GPUNote), " ")
		}
		row("GPU", "none"+note)
	}
	for _, g := range e.GPUs {
		row(fmt.Sprintf("GPU %d", g.Ordinal), fmt.Sprintf("%s, compute capability %s, %d SMs, %.1f GiB", g.Name, g.ComputeCapability, g.SMs, float64(g.MemBytes)/(1<<30)))
	}
	if e.CUDABuild {
		row("driver", driverText(e))
	}
}

// driverText describes the NVIDIA driver of e without contradicting its
// GPU row: the kernel module's version and the driver library's CUDA
// version, or which of the two is missing.
func driverText(e *Env) string {
	switch {
	case e.NVIDIADriver != "":
		return fmt.Sprintf("NVIDIA %s, CUDA %s", e.NVIDIADriver, orUnknown(e.CUDADriver))
	case len(e.GPUs) > 0: // a driver without /proc/driver/nvidia (WSL)
		return "NVIDIA, CUDA " + orUnknown(e.CUDADriver)
	case e.CUDADriver != "":
		return "the library only (libcuda.so.1, CUDA " + e.CUDADriver + "), no kernel module loaded"
	}
	return "none"
}

// WriteDocumentText writes the document d, recorded as name, as bench
// prints it when it measures: when it was recorded, its environment and
// its series' tables.
func WriteDocumentText(w io.Writer, d *Document, name string) {
	fmt.Fprintf(w, "%s: recorded %s, %d timed run%s per N after %d warm-up\n\n", name, d.Created.UTC().Format("2006-01-02 15:04 UTC"), d.Runs, Plural(d.Runs), d.Warmup)
	WriteEnvText(w, &d.Env)
	for j := range d.Series {
		s := &d.Series[j]
		WriteSeriesHeader(w, s)
		for _, r := range s.Results {
			WriteResultRow(w, &r)
		}
	}
}

// WriteSeriesHeader writes the heading and the column titles of one
// series of a bench report.
func WriteSeriesHeader(w io.Writer, s *Series) {
	fmt.Fprintf(w, "\n%s: backend %s, device %s", s.Label, s.Backend, s.Device)
	if s.DeviceName != "" {
		fmt.Fprintf(w, " (%s)", s.DeviceName)
	}
	if s.Workers > 0 {
		fmt.Fprintf(w, ", %d worker%s", s.Workers, Plural(s.Workers))
	}
	fmt.Fprintf(w, "; %s\n", StartupText(s))
	fmt.Fprintf(w, "%3s %20s %4s %10s %10s %23s %10s %10s %10s %10s %8s\n",
		"N", "Total", "runs", "mean", "geomean", "95% CI of geomean", "median", "stddev", "min", "max", "nodes/s")
}

// WriteResultRow writes the row of one N of a bench series: the mean,
// the geometric mean and its 95 % interval, the median, the spread.
func WriteResultRow(w io.Writer, r *Result) {
	st := r.Stats
	ci := "n/a (1 run)"
	if st.Runs > 1 {
		ci = FormatSeconds(st.CILow) + " .. " + FormatSeconds(st.CIHigh)
	}
	nps := "n/a"
	if r.NodesPerSecond != nil {
		nps = fmt.Sprintf("%.3g", *r.NodesPerSecond)
	}
	fmt.Fprintf(w, "%3d %20d %4d %10s %10s %23s %10s %10s %10s %10s %8s\n",
		r.N, r.Total, st.Runs, FormatSeconds(st.Mean), FormatSeconds(st.GeoMean), ci, FormatSeconds(st.Median),
		FormatSeconds(st.StdDev), FormatSeconds(st.Min), FormatSeconds(st.Max), nps)
}

// WriteBenchNotes writes what the times of a bench report mean.
func WriteBenchNotes(w io.Writer) {
	fmt.Fprint(w, `
Times are wall times of one count each. Task enumeration runs alongside the
search and is included; opening the backend (start-up: for a GPU the context
and the module load with its JIT compilation) is not. The 95% CI is that of
the geometric mean: Student's t interval of the mean log time, turned back
into times, so never below zero. Every run counted the same, and the counts
match the published ones where there are some. nodes/s: n/a, the solvers do
not count search nodes.
`)
}

// WriteComparison compares doc with the baseline base read from path:
// per N and series the means, their ratio, Hedges' g and Welch's t-test.
func WriteComparison(w io.Writer, doc, base *Document, path string) {
	cs, notes := Compare(doc, base)
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
			c.N, width, c.Series, FormatSeconds(c.Now.Mean), FormatSeconds(c.Before.Mean), change,
			c.Ratio(), g, t, df, c.Verdict())
	}
	for _, n := range notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

func signed(s float64) string {
	if s > 0 {
		return "+" + FormatSeconds(s)
	}
	return FormatSeconds(s)
}

// Plural is "s" unless k is 1.
func Plural(k int) string {
	if k == 1 {
		return ""
	}
	return "s"
}

// RangeText writes the sizes lo..hi as "N" or "A-B".
func RangeText(lo, hi int) string {
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

// CheckTable writes the agreement table of `nqueens-gpu check`: one row per N with each column's
// Total, a star on every count that disagrees, and OK or MISMATCH.
type CheckTable struct {
	w      io.Writer
	cols   []CheckColumn
	widths []int
}

// NewCheckTable starts the agreement table of cols on w.
func NewCheckTable(w io.Writer, cols []CheckColumn) *CheckTable {
	t := &CheckTable{w: w, cols: cols}
	for _, c := range cols {
		t.widths = append(t.widths, max(len(c.Label), 20))
	}
	return t
}

// Header writes the table's column titles.
func (t *CheckTable) Header() {
	fmt.Fprintf(t.w, "%3s  %20s", "N", "published Total")
	for i, c := range t.cols {
		fmt.Fprintf(t.w, "  %*s", t.widths[i], c.Label)
	}
	fmt.Fprintf(t.w, "  %s\n", "verdict")
}

// Row writes the row of one N.
func (t *CheckTable) Row(r *CheckRow) {
	pub := "-"
	if r.Known != nil {
		pub = strconv.FormatUint(r.Known.Total, 10)
	}
	fmt.Fprintf(t.w, "%3d  %20s", r.N, pub)
	for i, c := range r.Cells {
		v := "-"
		switch {
		case !c.Ran:
		case c.Error != "":
			v = "ERROR"
		default:
			v = strconv.FormatUint(c.Got.Total(), 10)
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

// Summary explains every failed row of the sizes lo..hi and ends with
// one line.
func (t *CheckTable) Summary(lo, hi int, bad []CheckRow) {
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
			case !c.Ran:
			case c.Error != "":
				fmt.Fprintf(t.w, "  %-*s  error: %s\n", t.labelWidth(), c.Label, c.Error)
			default:
				mark := ""
				if !c.Agrees {
					mark = "  <- differs"
				}
				fmt.Fprintf(t.w, "  %-*s  %v%s\n", t.labelWidth(), c.Label, c.Got, mark)
			}
		}
	}
	fmt.Fprintln(t.w)
	if len(bad) == 0 {
		fmt.Fprintf(t.w, "check passed: N=%s, %d column%s, all agree\n", RangeText(lo, hi), len(t.cols), Plural(len(t.cols)))
	} else {
		fmt.Fprintf(t.w, "check FAILED: %d of %d sizes disagree\n", len(bad), hi-lo+1)
	}
}

func (t *CheckTable) labelWidth() int {
	w := len("published")
	for _, c := range t.cols {
		w = max(w, len(c.Label))
	}
	return w
}
