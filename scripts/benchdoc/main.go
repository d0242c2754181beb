// Command benchdoc writes the generated part of docs/benchmarks.md from
// bench JSON files (the output of `nqueens-gpu bench -o FILE`), and a plot
// of all of them: median time against N, one line per file and series.
//
//	go run ./scripts/benchdoc -doc docs/benchmarks.md -plot docs/bench/time.svg docs/bench/*.json
//
// Only the part between the markers of internal/report is rewritten (the
// markers are added at the end of a file that has none); everything else
// in the file is kept as written. With -check nothing is written: the exit
// status is 1 if the file is not what the JSON files give.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// errStale is the outcome of -check on a file that needs regenerating.
var errStale = errors.New("out of date")

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchdoc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	doc := fs.String("doc", "docs/benchmarks.md", "the Markdown file to update")
	plot := fs.String("plot", "", "also draw all files into this .svg or .png (shown in the document)")
	check := fs.Bool("check", false, "change nothing; exit 1 if the document is out of date")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: benchdoc [-doc FILE.md] [-plot FILE.svg] [-check] BENCH.json...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "benchdoc: no bench JSON files given")
		return 2
	}
	err := update(*doc, *plot, *check, fs.Args(), stdout)
	switch {
	case errors.Is(err, errStale):
		fmt.Fprintf(stderr, "benchdoc: %s is out of date: run make bench-doc\n", *doc)
		return 1
	case err != nil:
		fmt.Fprintf(stderr, "benchdoc: %v\n", err)
		return 1
	}
	return 0
}

// update regenerates doc (and the plot) from the bench files.
func update(doc, plot string, check bool, files []string, stdout io.Writer) error {
	files = append([]string(nil), files...)
	sort.Strings(files)
	var named []report.Named
	var docs []*report.Document
	var names []string
	for _, f := range files {
		d, err := report.ReadFile(f)
		if err != nil {
			return err
		}
		named = append(named, report.Named{Name: filepath.Base(f), Doc: d})
		docs = append(docs, d)
		names = append(names, filepath.Base(f))
	}
	link := ""
	if plot != "" {
		rel, err := filepath.Rel(filepath.Dir(doc), plot)
		if err != nil {
			return err
		}
		link = filepath.ToSlash(rel)
	}
	old, err := os.ReadFile(doc)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	text, err := report.Splice(string(old), report.Markdown(named, link))
	if err != nil {
		return fmt.Errorf("%s: %w", doc, err)
	}
	// The plot depends only on the files: the same files draw the same
	// bytes, so -check can compare it too.
	var img []byte
	if plot != "" {
		format, err := report.PlotFormat(plot)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := report.WritePlot(&buf, format, "nqueens-gpu bench: median time per count", report.PlotSeriesOf(docs, names)); err != nil {
			return err
		}
		img = buf.Bytes()
	}
	if check {
		if text != string(old) {
			return errStale
		}
		if plot != "" {
			if have, err := os.ReadFile(plot); err != nil || !bytes.Equal(have, img) {
				return errStale
			}
		}
		return nil
	}
	if err := writeIfChanged(plot, img, stdout); err != nil {
		return err
	}
	return writeIfChanged(doc, []byte(text), stdout)
}

// writeIfChanged writes data to path unless path already holds it.
func writeIfChanged(path string, data []byte, stdout io.Writer) error {
	if path == "" {
		return nil
	}
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, data) {
		fmt.Fprintf(stdout, "%s is up to date\n", path)
		return nil
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", path)
	return nil
}
