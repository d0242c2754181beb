package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/report"
)

var fixtures = []string{"testdata/cpu-two-algos.json", "testdata/cpu-small.json"}

func benchdoc(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "benchmarks.md")
	plot := filepath.Join(dir, "bench", "time.svg")
	os.Mkdir(filepath.Dir(plot), 0o755)
	hand := "# Benchmarks\n\nWritten by hand.\n\n" + report.BeginMarker + "\nstale tables\n" + report.EndMarker + "\n\n## Recorded by hand\n\nkept as is\n"
	if err := os.WriteFile(doc, []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-doc", doc, "-plot", plot}, fixtures...)
	if code, _, errs := benchdoc(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(doc)
	got := string(b)
	for _, want := range []string{
		"# Benchmarks\n\nWritten by hand.\n\n" + report.BeginMarker + "\n",
		report.EndMarker + "\n\n## Recorded by hand\n\nkept as is\n",
		"![median time per count against N](bench/time.svg)",
		"### Median time per count\n",
		"| N | cpu-small.json: cpu symmetry | cpu-two-algos.json: cpu carrychain | cpu-two-algos.json: cpu symmetry |",
		"### cpu-small.json\n",
		"**cpu carrychain**: backend cpu, device cpu, algorithm carrychain",
		"| 10 | 724 | 92 |",
		"published Total, Unique, C2/C4/C8",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("document lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "stale tables") {
		t.Errorf("the old generated part is still there")
	}
	// The files are read in name order whatever the command line says.
	if strings.Index(got, "### cpu-small.json") > strings.Index(got, "### cpu-two-algos.json") {
		t.Errorf("files not in name order")
	}
	svg, err := os.ReadFile(plot)
	if err != nil {
		t.Fatal(err)
	}
	paths := 0
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the plot is not XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "path" {
			paths++
		}
	}
	if paths < 10 {
		t.Errorf("the plot has %d paths", paths)
	}

	// Up to date now, and a second run changes nothing.
	if code, _, errs := benchdoc(t, append([]string{"-check"}, args...)...); code != 0 {
		t.Errorf("-check right after generating: exit %d: %s", code, errs)
	}
	code, out, _ := benchdoc(t, args...)
	if b2, _ := os.ReadFile(doc); code != 0 || string(b2) != got || !strings.Contains(out, "is up to date") {
		t.Errorf("second run: exit %d, output %q, document changed: %v", code, out, string(b2) != got)
	}

	// A hand edit inside the markers, or a stale plot, is caught by -check.
	os.WriteFile(doc, []byte(strings.Replace(got, "| 10 | 724 |", "| 10 | 725 |", 1)), 0o644)
	if code, _, errs := benchdoc(t, append([]string{"-check"}, args...)...); code != 1 || !strings.Contains(errs, "out of date") {
		t.Errorf("-check after a hand edit: exit %d, %q", code, errs)
	}
	benchdoc(t, args...)
	os.WriteFile(plot, []byte("<svg/>"), 0o644)
	if code, _, _ := benchdoc(t, append([]string{"-check"}, args...)...); code != 1 {
		t.Errorf("-check with a stale plot: exit %d", code)
	}
}

func TestNewDocument(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "new.md")
	if code, _, errs := benchdoc(t, "-doc", doc, fixtures[1]); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(doc)
	if !strings.HasPrefix(string(b), report.BeginMarker+"\n") || strings.Contains(string(b), "![") {
		t.Errorf("new document:\n%s", b)
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"schema":"nqueens-gpu-bench/v9.0","series":[]}`), 0o644)
	broken := filepath.Join(dir, "broken.md")
	os.WriteFile(broken, []byte(report.EndMarker+"\n"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{nil, 2, "no bench JSON files"},
		{[]string{"-doc", filepath.Join(dir, "d.md"), bad}, 1, "not supported"},
		{[]string{"-doc", filepath.Join(dir, "d.md"), filepath.Join(dir, "none.json")}, 1, "none.json"},
		{[]string{"-doc", broken, fixtures[0]}, 1, "markers"},
		{[]string{"-doc", filepath.Join(dir, "d.md"), "-plot", filepath.Join(dir, "p.gif"), fixtures[0]}, 1, ".png or .svg"},
	} {
		code, _, errs := benchdoc(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.msg)
		}
	}
}
