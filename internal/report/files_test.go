package report

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A baseline with times no run can take is refused with a message that
// names the series, N and run; a valid one is read.
func TestReadTimes(t *testing.T) {
	tests := []struct {
		name string
		edit func(d *Document)
		raw  func(string) string
		want string
	}{
		{name: "zero", edit: func(d *Document) { d.Series[0].Results[1].Seconds[2] = 0 },
			want: `series "cpu symmetry" N=13: run 3 is 0 s, not a time a run can take (between 1e-09 s and 1e+07 s)`},
		{name: "negative", edit: func(d *Document) { d.Series[1].Results[0].Seconds[0] = -0.5 },
			want: `series "gpu0 symmetry" N=12: run 1 is -0.5 s, not a time a run can take`},
		{name: "below a nanosecond", edit: func(d *Document) { d.Series[1].Results[0].Seconds[0] = 1e-12 }, want: "run 1 is 1e-12 s"},
		{name: "absurd", edit: func(d *Document) { d.Series[0].Results[0].Seconds[1] = 3e9 }, want: "run 2 is 3e+09 s"},
		{name: "absurd warm-up", edit: func(d *Document) { d.Series[0].Results[0].WarmupSeconds[0] = 1e300 }, want: "warm-up run 1 is 1e+300 s"},
		{name: "NaN", raw: func(s string) string { return strings.Replace(s, "0.0011,", "NaN,", 1) }, want: "not a bench JSON document: invalid character 'N'"},
		{name: "beyond float64", raw: func(s string) string { return strings.Replace(s, "0.0011,", "1e400,", 1) }, want: "not a bench JSON document: json: cannot unmarshal number 1e400"},
		{name: "a 100 KB label", edit: func(d *Document) {
			d.Series[0].Label = strings.Repeat("x", 100000)
			d.Series[0].Results[0].Seconds[0] = 0
		},
			want: `series "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"... (100000 bytes) N=12: run 1 is 0 s`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := fixture()
			if tc.edit != nil {
				tc.edit(d)
			}
			var buf bytes.Buffer
			Write(&buf, d)
			data := buf.String()
			if tc.raw != nil {
				data = tc.raw(data)
			}
			_, err := Read(strings.NewReader(data))
			if err == nil || !strings.Contains(err.Error(), tc.want) || len(err.Error()) > 300 {
				t.Errorf("error %.400v\nwant one containing %q", err, tc.want)
			}
		})
	}
}

// A verdict is never drawn from times that give no test statistic.
func TestCompareNoStatistic(t *testing.T) {
	cur, base := fixture(), fixture()
	cur.Series[0].Results[0] = result(12, 1e308, 1e308, 1e308)
	cs, _ := Compare(cur, base)
	if len(cs) == 0 || cs[0].Welch != nil || cs[0].Verdict() != "cannot test: the times give no test statistic" {
		t.Errorf("%+v: %q", cs[0], cs[0].Verdict())
	}
}

// ReadFile reads regular files only, of a bounded size, at once and
// without changing them.
func TestReadFileBounds(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := WriteFile(good, fixture()); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o644)
	zero := filepath.Join(dir, "zero")
	os.Symlink("/dev/zero", zero)
	big := filepath.Join(dir, "big.json")
	f, _ := os.Create(big)
	f.Truncate(MaxDocumentBytes + 1)
	f.Close()
	tests := []struct{ path, want string }{
		{fifo, fifo + " is a named pipe (FIFO), not a regular file"},
		{zero, zero + " is a character device, not a regular file"},
		{dir, dir + " is a directory, not a regular file"},
		{big, big + " is larger than 16.0 MiB, more than any bench JSON document: not one"},
		{filepath.Join(dir, "none"), "no such file or directory"},
	}
	for _, tt := range tests {
		start := time.Now()
		_, err := ReadFile(tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) || time.Since(start) > 5*time.Second {
			t.Errorf("%s: %v, want %q", tt.path, err, tt.want)
		}
	}
	if _, err := ReadFile(good); err != nil {
		t.Error(err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Error("the FIFO changed")
	}
}

// The files bench writes replace the old ones atomically, through links,
// keeping their mode; a plot that cannot be drawn leaves the old file.
func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	path := func(s string) string { return filepath.Join(dir, s) }
	os.WriteFile(path("real.json"), []byte("old"), 0o600)
	os.Chmod(path("real.json"), 0o640)
	os.Symlink("real.json", path("link.json"))
	if err := WriteFile(path("link.json"), fixture()); err != nil {
		t.Fatal(err)
	}
	if l, err := os.Readlink(path("link.json")); err != nil || l != "real.json" {
		t.Errorf("link: %q, %v", l, err)
	}
	if fi, _ := os.Stat(path("real.json")); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", fi.Mode())
	}
	if _, err := ReadFile(path("link.json")); err != nil {
		t.Error(err)
	}

	os.WriteFile(path("plot.svg"), []byte("old plot"), 0o644)
	d := fixture()
	for i := range d.Series {
		for j := range d.Series[i].Results {
			d.Series[i].Results[j].Stats.Median = 0
		}
	}
	err := SavePlot(path("plot.svg"), "t", PlotSeriesOf([]*Document{d}, []string{"x"}))
	if data, _ := os.ReadFile(path("plot.svg")); err == nil || string(data) != "old plot" {
		t.Errorf("failed plot: %v, file %q", err, data)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "link.json plot.svg real.json" {
		t.Errorf("directory: %s", got)
	}
}
