package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/benchstat"
	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// result builds a result for n with the published counts and the given
// times.
func result(n int, secs ...float64) Result {
	cls := known.ClassTable[n]
	r := Result{N: n, Verified: "classes", WarmupSeconds: []float64{secs[0] * 1.5}, Seconds: secs}
	r.SetCounts(nq.Counts{C2: cls.C2, C4: cls.C4, C8: cls.C8})
	r.Stats, _ = benchstat.Summarize(secs)
	return r
}

// fixture is a document as bench writes it, with one CPU and one GPU
// series.
func fixture() *Document {
	return &Document{Header: Header{
		Schema:  Schema,
		Created: time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC),
		Command: []string{"nqueens-gpu", "bench", "-n", "12-14", "-runs", "3", "-device", "cpu,0"},
		Env: Env{
			Version:   "v0.0.0-20250304050607-0123456789ab+dirty",
			GoVersion: "go1.26.8", OS: "linux", Arch: "amd64",
			Commit: "0123456789abcdef0123456789abcdef01234567", Modified: true,
			CPUModel: "Fake CPU @ 3.0GHz", CPUCores: 16, GOMAXPROCS: 16,
			CUDABuild: true, PTXBuild: "nvcc: Build cuda_11.8\nflags: -ptx -arch=compute_70",
			NVIDIADriver: "550.54.15", CUDADriver: "12.4",
			GPUs: []GPU{{Ordinal: 0, Name: "Fake H100", ComputeCapability: "9.0", SMs: 132, MemBytes: 80 << 30}},
		}},
		Runs: 3, Warmup: 1,
		Series: []Series{
			{
				Label: "cpu symmetry", Backend: "cpu", Device: "cpu", Requested: "cpu", Algo: "symmetry", Workers: 16,
				Results: []Result{result(12, 0.0011, 0.0012, 0.0013), result(13, 0.0051, 0.0050, 0.0052), result(14, 0.031, 0.030, 0.032)},
			},
			{
				Label: "gpu0 symmetry", Backend: "gpu", Device: "0", DeviceName: "Fake H100", Requested: "0", Algo: "symmetry",
				StartupSeconds: 0.25,
				Results:        []Result{result(12, 0.0021, 0.0020, 0.0022), result(13, 0.0025, 0.0024, 0.0026), result(14, 0.004, 0.0041, 0.0039)},
			},
		},
	}
}

func TestRoundTrip(t *testing.T) {
	d := fixture()
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("Read: %v\n%s", err, buf.String())
	}
	if !reflect.DeepEqual(got, d) {
		t.Errorf("round trip changed the document:\n got %+v\nwant %+v", got, d)
	}
	// The raw runs, the statistics and the nodes field as documented.
	var raw map[string]any
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	r0 := raw["series"].([]any)[0].(map[string]any)["results"].([]any)[0].(map[string]any)
	for _, k := range []string{"n", "total", "unique", "count2", "count4", "count8", "seconds", "warmup_seconds", "stats", "verified"} {
		if _, ok := r0[k]; !ok {
			t.Errorf("result has no %q field: %v", k, r0)
		}
	}
	if _, ok := r0["nodes_per_second"]; ok {
		t.Errorf("nodes_per_second written although no solver counts nodes")
	}
	if raw["schema"] != Schema {
		t.Errorf("schema %v, want %q", raw["schema"], Schema)
	}
}

func TestReadRecomputesStats(t *testing.T) {
	d := fixture()
	d.Series[0].Results[0].Stats = benchstat.Summary{Mean: 99}
	var buf bytes.Buffer
	Write(&buf, d)
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if m := got.Series[0].Results[0].Stats.Mean; math.Abs(m-0.0012) > 1e-12 {
		t.Errorf("mean %v after Read, want 0.0012 recomputed from seconds", m)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(d *Document)
		raw  string
		want string
	}{
		{name: "not JSON", raw: "total=1", want: "not a bench JSON document"},
		{name: "no schema", raw: `{"series":[]}`, want: "no schema field"},
		{name: "next major version", edit: func(d *Document) { d.Schema = "nqueens-gpu-bench/v2.0" }, want: "not supported"},
		{name: "no series", edit: func(d *Document) { d.Series = nil }, want: "no series"},
		{name: "no runs", edit: func(d *Document) { d.Series[1].Results[2].Seconds = nil }, want: "no values"},
		{name: "bad N", edit: func(d *Document) { d.Series[0].Results[0].N = 40 }, want: "out of range"},
		{name: "inconsistent counts", edit: func(d *Document) { d.Series[0].Results[1].Total++ }, want: "do not match"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.raw)
			if tc.edit != nil {
				d := fixture()
				tc.edit(d)
				var buf bytes.Buffer
				Write(&buf, d)
				data = buf.Bytes()
			}
			_, err := Read(bytes.NewReader(data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestReadMinorVersion(t *testing.T) {
	d := fixture()
	d.Schema = "nqueens-gpu-bench/v1.7"
	var buf bytes.Buffer
	Write(&buf, d)
	// A later minor version may add fields.
	data := strings.Replace(buf.String(), `"runs": 3,`, `"runs": 3, "future_field": [1, 2],`, 1)
	if _, err := Read(strings.NewReader(data)); err != nil {
		t.Errorf("v1.7 with an extra field: %v", err)
	}
}

func TestCompare(t *testing.T) {
	base := fixture()
	cur := fixture()
	// The CPU got twice as fast at N=14; N=13 is unchanged; the GPU
	// series has N=15, which the baseline lacks, and one run at N=12.
	cur.Series[0].Results[2] = result(14, 0.015, 0.016, 0.0155)
	cur.Series[1].Results[0] = result(12, 0.0021)
	cur.Series[1].Results = append(cur.Series[1].Results, result(15, 0.01, 0.011))
	cs, notes := Compare(cur, base)
	if len(cs) != 6 {
		t.Fatalf("%d comparisons, want 6: %+v", len(cs), cs)
	}
	byKey := map[string]Comparison{}
	for _, c := range cs {
		byKey[c.Series+"/"+string(rune('0'+c.N-10))] = c
		if c.Series != c.BaseSeries {
			t.Errorf("%s compared with %s", c.Series, c.BaseSeries)
		}
	}
	c14 := byKey["cpu symmetry/4"]
	if c14.Welch == nil || !c14.Welch.Significant || c14.Welch.Diff >= 0 || !strings.HasPrefix(c14.Verdict(), "faster, significant") {
		t.Errorf("N=14: %+v, verdict %q; want significantly faster", c14.Welch, c14.Verdict())
	}
	if r := c14.Ratio(); math.Abs(r-0.5) > 0.01 {
		t.Errorf("N=14 ratio %v, want 0.5", r)
	}
	c13 := byKey["cpu symmetry/3"]
	if c13.Welch == nil || c13.Welch.Significant || !strings.HasPrefix(c13.Verdict(), "no significant difference") {
		t.Errorf("N=13: %+v verdict %q, want no significant difference", c13.Welch, c13.Verdict())
	}
	g12 := byKey["gpu0 symmetry/2"]
	if g12.Welch != nil || !strings.Contains(g12.Verdict(), "cannot test") || !strings.Contains(g12.Note, "1 now, 3 before") {
		t.Errorf("GPU N=12 with one run: %+v, verdict %q", g12.Welch, g12.Verdict())
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "N=15: not in the baseline") {
		t.Errorf("notes %q, want one about N=15", notes)
	}
}

func TestComparePairing(t *testing.T) {
	base := fixture()
	base.Series = base.Series[:1] // CPU only
	cur := fixture()
	cur.Series = cur.Series[1:] // GPU only
	cs, notes := Compare(cur, base)
	if len(cs) != 3 || cs[0].BaseSeries != "cpu symmetry" || len(notes) != 1 || !strings.Contains(notes[0], "only series") {
		t.Errorf("one series each: %d comparisons, notes %q", len(cs), notes)
	}
	cur = fixture()
	cs, notes = Compare(cur, base)
	if len(cs) != 3 || len(notes) != 1 || !strings.Contains(notes[0], `"gpu0 symmetry": no baseline series`) {
		t.Errorf("GPU series without a counterpart: %d comparisons, notes %q", len(cs), notes)
	}
}

func TestFormatSeconds(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{
		{0, "0s"}, {5e-10, "0.5ns"}, {8.123e-4, "812.3µs"}, {1.2345e-3, "1.234ms"}, {0.25, "250ms"},
		{2.2789, "2.279s"}, {1234.4, "1234s"}, {98765.4, "98765s"}, {-0.002, "-2ms"},
	} {
		if got := FormatSeconds(c.s); got != c.want {
			t.Errorf("FormatSeconds(%v) = %q, want %q", c.s, got, c.want)
		}
	}
}

// TestMarkdownGolden checks the generated Markdown of the fixture against
// testdata/fixture.md (go test -run Markdown -update rewrites it).
func TestMarkdownGolden(t *testing.T) {
	cpuOnly := fixture()
	cpuOnly.Series = cpuOnly.Series[:1]
	cpuOnly.Env.CUDABuild, cpuOnly.Env.PTXBuild = false, ""
	cpuOnly.Env.GPUs, cpuOnly.Env.NVIDIADriver, cpuOnly.Env.CUDADriver = nil, "", ""
	cpuOnly.Env.GPUNote = "built without CUDA"
	cpuOnly.Env.Commit, cpuOnly.Env.Modified = "", false
	cpuOnly.Series[0].Results[0] = result(12, 0.0011)
	got := Markdown([]Named{{"h100.json", fixture()}, {"cpu.json", cpuOnly}}, "bench/time.svg")
	golden := filepath.Join("testdata", "fixture.md")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("Markdown differs from %s (run go test ./internal/report -run Markdown -update and review the diff):\n%s", golden, got)
	}
}

func TestSplice(t *testing.T) {
	gen := "| N |\n|---|\n| 8 |\n"
	block := BeginMarker + "\n\n" + strings.TrimRight(gen, "\n") + "\n\n" + EndMarker + "\n"
	tests := []struct {
		name, doc, want, err string
	}{
		{name: "empty file", doc: "", want: block},
		{name: "no markers", doc: "# Benchmarks\n\nby hand", want: "# Benchmarks\n\nby hand\n\n" + block},
		{
			name: "replace, keep both sides",
			doc:  "# B\n\nintro\n\n" + BeginMarker + "\nold\n" + EndMarker + "\n\n## Hand-written\n\nkept\n",
			want: "# B\n\nintro\n\n" + block + "\n## Hand-written\n\nkept\n",
		},
		{name: "end before begin", doc: EndMarker + "\n" + BeginMarker + "\n", err: "out of order"},
		{name: "only begin", doc: "x\n" + BeginMarker + "\n", err: "missing"},
		{name: "twice", doc: BeginMarker + EndMarker + BeginMarker + EndMarker, err: "more than once"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Splice(tc.doc, gen)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Splice =\n%q\nwant\n%q", got, tc.want)
			}
			// Splicing again changes nothing.
			again, err := Splice(got, gen)
			if err != nil || again != got {
				t.Errorf("second Splice changed the document or failed (%v):\n%q", err, again)
			}
		})
	}
}

// A bench row never shows a negative time: three runs of N=12 with one
// slow outlier, whose t interval of the times reached -2.249 ms.
func TestResultRowPositive(t *testing.T) {
	r := result(12, 0.00178, 0.00203, 0.00567)
	var b bytes.Buffer
	WriteResultRow(&b, &r)
	if !strings.Contains(b.String(), " 565.9µs .. 13.23ms ") || strings.Contains(b.String(), "-") {
		t.Errorf("row %q, want the interval 565.9µs .. 13.23ms", b.String())
	}
	var md strings.Builder
	seriesTable(&md, &Series{Label: "cpu", Results: []Result{r}})
	if !strings.Contains(md.String(), "| 3.16ms | 2.736ms | 565.9µs – 13.23ms |") {
		t.Errorf("Markdown %q", md.String())
	}
}
