package report

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Markers delimit the generated part of a Markdown file; everything
// outside them is kept as written.
const (
	BeginMarker = "<!-- BEGIN GENERATED BENCHMARKS: written by scripts/benchdoc from bench JSON files; edit those, not this part -->"
	EndMarker   = "<!-- END GENERATED BENCHMARKS -->"
)

// Named is a document with the name it is shown under (its file name).
type Named struct {
	Name string
	Doc  *Document
}

// Markdown renders the documents: a summary of median times per N across
// every series when there is more than one, then for each document its
// environment and one table per series. plot, if not empty, is the path of
// an image to show (relative to the Markdown file).
func Markdown(docs []Named, plot string) string {
	var b strings.Builder
	total := 0
	for _, d := range docs {
		total += len(d.Doc.Series)
	}
	if plot != "" {
		fmt.Fprintf(&b, "![median time per count against N](%s)\n\n", plot)
	}
	if total > 1 {
		b.WriteString("### Median time per count\n\n")
		summaryTable(&b, docs)
		b.WriteString("\n")
	}
	for _, d := range docs {
		fmt.Fprintf(&b, "### %s\n\n", d.Name)
		envTable(&b, d.Doc)
		for _, s := range d.Doc.Series {
			b.WriteString("\n")
			seriesTable(&b, &s)
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

func summaryTable(b *strings.Builder, docs []Named) {
	type col struct {
		head string
		s    *Series
	}
	var cols []col
	ns := map[int]bool{}
	for _, d := range docs {
		for i := range d.Doc.Series {
			s := &d.Doc.Series[i]
			cols = append(cols, col{d.Name + ": " + s.Label, s})
			for _, r := range s.Results {
				ns[r.N] = true
			}
		}
	}
	var order []int
	for n := range ns {
		order = append(order, n)
	}
	sort.Ints(order)
	b.WriteString("| N |")
	for _, c := range cols {
		fmt.Fprintf(b, " %s |", escape(c.head))
	}
	b.WriteString("\n|---:|")
	for range cols {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, n := range order {
		fmt.Fprintf(b, "| %d |", n)
		for _, c := range cols {
			if r, ok := c.s.Result(n); ok {
				fmt.Fprintf(b, " %s |", FormatSeconds(r.Stats.Median))
			} else {
				b.WriteString(" |")
			}
		}
		b.WriteString("\n")
	}
}

func envTable(b *strings.Builder, d *Document) {
	e := &d.Env
	row := func(k, v string) { fmt.Fprintf(b, "| %s | %s |\n", k, escape(v)) }
	b.WriteString("| | |\n|---|---|\n")
	row("recorded", d.Created.UTC().Format("2006-01-02 15:04 UTC"))
	if e.Version != "" {
		row("version", e.Version)
	}
	commit := e.Commit
	switch {
	case commit == "":
		commit = "unknown (not built from a git checkout)"
	case len(commit) > 12:
		commit = commit[:12]
	}
	if e.Modified {
		commit += " with uncommitted changes"
	}
	row("commit", commit)
	row("CPU", fmt.Sprintf("%s, %d logical CPUs, GOMAXPROCS %d", orUnknown(e.CPUModel), e.CPUCores, e.GOMAXPROCS))
	row("Go", fmt.Sprintf("%s %s/%s", e.GoVersion, e.OS, e.Arch))
	if e.CUDABuild {
		row("build", "CUDA ("+orUnknown(oneLine(e.PTXBuild))+")")
	} else {
		row("build", "CPU only (no cuda tag)")
	}
	if len(e.GPUs) == 0 {
		row("GPU", "none"+paren(e.GPUNote))
	}
	for _, g := range e.GPUs {
		row(fmt.Sprintf("GPU %d", g.Ordinal), fmt.Sprintf("%s, compute capability %s, %d SMs, %s", g.Name, g.ComputeCapability, g.SMs, formatBytes(g.MemBytes)))
	}
	if e.NVIDIADriver != "" || e.CUDADriver != "" {
		row("NVIDIA driver", fmt.Sprintf("%s, CUDA %s", orUnknown(e.NVIDIADriver), orUnknown(e.CUDADriver)))
	}
	row("runs", fmt.Sprintf("%d timed per N after %d warm-up", d.Runs, d.Warmup))
	row("command", strings.Join(d.Command, " "))
}

func seriesTable(b *strings.Builder, s *Series) {
	fmt.Fprintf(b, "**%s**: backend %s, device %s", escape(s.Label), s.Backend, s.Device)
	if s.DeviceName != "" {
		fmt.Fprintf(b, " (%s)", escape(s.DeviceName))
	}
	fmt.Fprintf(b, ", algorithm %s", s.Algo)
	if s.Workers > 0 {
		fmt.Fprintf(b, ", %d workers", s.Workers)
	}
	fmt.Fprintf(b, "; %s", StartupText(s))
	if s.Fallback != "" {
		fmt.Fprintf(b, "; **asked for device %s, ran on the CPU**: %s", escape(s.Requested), escape(s.Fallback))
	}
	b.WriteString("\n\n")
	b.WriteString("| N | Total | Unique | mean | geometric mean | 95% CI of geometric mean | median | std dev | min | max | checked against |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|\n")
	for _, r := range s.Results {
		st := r.Stats
		fmt.Fprintf(b, "| %d | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			r.N, r.Total, r.Unique, FormatSeconds(st.Mean), FormatSeconds(st.GeoMean), ciText(st.CILow, st.CIHigh, st.Runs),
			FormatSeconds(st.Median), FormatSeconds(st.StdDev), FormatSeconds(st.Min), FormatSeconds(st.Max),
			verifiedText(r.Verified))
	}
}

// StartupText says what the series' start-up took.
func StartupText(s *Series) string {
	if s.StartupWith != "" {
		return "start-up counted with " + s.StartupWith
	}
	return "start-up " + FormatSeconds(s.StartupSeconds)
}

func ciText(lo, hi float64, runs int) string {
	if runs < 2 {
		return "n/a (1 run)"
	}
	return FormatSeconds(lo) + " – " + FormatSeconds(hi)
}

func verifiedText(v string) string {
	switch v {
	case "classes":
		return "published Total, Unique, C2/C4/C8"
	case "total":
		return "published Total, Unique"
	case "":
		return "nothing published"
	}
	return v
}

func formatBytes(n uint64) string {
	if n == 0 {
		return "memory unknown"
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// escape keeps a value from breaking a table row.
func escape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}

// Splice puts generated between the markers of doc, replacing what was
// there and keeping the rest. A doc without markers gets them, with
// generated inside, at its end.
func Splice(doc, generated string) (string, error) {
	block := BeginMarker + "\n\n" + strings.TrimRight(generated, "\n") + "\n\n" + EndMarker + "\n"
	i := strings.Index(doc, BeginMarker)
	j := strings.Index(doc, EndMarker)
	switch {
	case i < 0 && j < 0:
		if doc != "" && !strings.HasSuffix(doc, "\n") {
			doc += "\n"
		}
		if doc != "" {
			doc += "\n"
		}
		return doc + block, nil
	case i < 0 || j < 0 || j < i:
		return "", errors.New("the begin and end markers of the generated part are missing or out of order")
	case strings.Count(doc, BeginMarker) > 1 || strings.Count(doc, EndMarker) > 1:
		return "", errors.New("the markers of the generated part appear more than once")
	}
	rest := doc[j+len(EndMarker):]
	rest = strings.TrimPrefix(rest, "\n")
	return doc[:i] + block + rest, nil
}
