// Package report defines the bench JSON document that `nqueens-gpu bench
// -json` writes, and what is made from such documents: the comparison with
// a baseline, time-against-N plots and the Markdown tables of
// docs/benchmarks.md.
//
// The document is versioned by its "schema" field. Readers accept every
// document of the same major version (the part before the first dot after
// "nqueens-gpu-bench/v"): a new minor version may add fields, never change
// or remove one.
package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/benchstat"
	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
	"github.com/nqueens-gpu/nqueens-gpu/internal/fsutil"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// Schema is the version this package writes. v1.1 added the program's
// version (env.version) and the geometric mean (stats.geomean), and made
// ci95_low and ci95_high bound the geometric mean.
const Schema = "nqueens-gpu-bench/v1.1"

// schemaMajor is the prefix every readable version has.
const schemaMajor = "nqueens-gpu-bench/v1."

// Header opens the JSON documents of bench and check: what they are,
// when and by which command line they were made, and on which machine.
type Header struct {
	Schema string `json:"schema"`
	// Created is when the run started, in UTC.
	Created time.Time `json:"created"`
	// Command is the command line, program name first.
	Command []string `json:"command"`
	Env     Env      `json:"env"`
}

// Document is one bench run: the machine it ran on and one series of
// timings per backend and algorithm.
type Document struct {
	Header
	// Runs is the number of timed runs per N, Warmup the untimed runs
	// before them.
	Runs   int      `json:"runs"`
	Warmup int      `json:"warmup"`
	Series []Series `json:"series"`
}

// Env describes the machine and the build.
type Env struct {
	// Version is the program's module version (buildinfo.Info.Version).
	Version    string `json:"version,omitempty"`
	GoVersion  string `json:"go_version"` // runtime.Version()
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	Commit     string `json:"commit,omitempty"`      // vcs.revision of the build
	CommitTime string `json:"commit_time,omitempty"` // vcs.time
	Modified   bool   `json:"modified,omitempty"`    // built from a tree with uncommitted changes
	CPUModel   string `json:"cpu_model"`
	CPUCores   int    `json:"cpu_cores"` // logical CPUs (runtime.NumCPU)
	GOMAXPROCS int    `json:"gomaxprocs"`
	// CPUSearch is the search the CPU counts eightfold tasks with
	// (cpu.EightfoldPath): the vector lanes or the scalar search, and why.
	CPUSearch string `json:"cpu_search,omitempty"`
	// CUDABuild says whether the binary was built with the cuda tag.
	CUDABuild bool `json:"cuda_build"`
	// PTXBuild is how the embedded kernels were compiled (nvcc version and
	// flags), for the cuda build.
	PTXBuild string `json:"ptx_build,omitempty"`
	// NVIDIADriver is the kernel module's version, such as "550.54.15".
	NVIDIADriver string `json:"nvidia_driver,omitempty"`
	// CUDADriver is the CUDA version the driver supports, such as "12.4"
	// (cuDriverGetVersion).
	CUDADriver string `json:"cuda_driver,omitempty"`
	GPUs       []GPU  `json:"gpus,omitempty"`
	// GPUNote says why no GPU is listed, or what failed while asking.
	GPUNote string `json:"gpu_note,omitempty"`
}

// GPU describes one device.
type GPU struct {
	Ordinal           int    `json:"ordinal"`
	Name              string `json:"name"`
	ComputeCapability string `json:"compute_capability"` // "9.0"
	SMs               int    `json:"sms"`
	MemBytes          uint64 `json:"mem_bytes"`
}

// Series is the timings of one backend and algorithm over a range of N.
type Series struct {
	// Label names the series in tables and plot legends, such as
	// "cpu symmetry" or "gpu0 carrychain".
	Label   string `json:"label"`
	Backend string `json:"backend"` // "cpu" or "gpu"
	// Device is "cpu" or the GPU ordinal; DeviceName the GPU's name.
	Device     string `json:"device"`
	DeviceName string `json:"device_name,omitempty"`
	// Requested is the -device value this series was asked for; Fallback
	// says why a GPU request ran on the CPU instead.
	Requested string `json:"requested_device"`
	Fallback  string `json:"fallback,omitempty"`
	Algo      string `json:"algo"`
	Workers   int    `json:"workers,omitempty"` // CPU worker goroutines
	// StartupSeconds is the time to open the backend: for a GPU the
	// context creation and the module load with its JIT compilation;
	// for the CPU nothing worth measuring. Task enumeration overlaps the
	// search on both backends and is part of every run's time.
	StartupSeconds float64 `json:"startup_seconds"`
	// StartupWith, when set, names the series of the same backend that
	// was timed first and whose StartupSeconds covers this one too.
	StartupWith string   `json:"startup_with,omitempty"`
	Results     []Result `json:"results"`
}

// Result is the timings of one N.
type Result struct {
	N int `json:"n"`
	nq.CountsJSON
	// Verified says what the counts were checked against: "classes" (the
	// published Total, Unique and C2/C4/C8), "total" (Total and Unique),
	// or "" (nothing published, N=28). Every run's counts were equal.
	Verified string `json:"verified"`
	// WarmupSeconds and Seconds are the wall times of every untimed and
	// timed run of Solve, in order.
	WarmupSeconds []float64 `json:"warmup_seconds"`
	Seconds       []float64 `json:"seconds"`
	// Stats summarises Seconds; Read recomputes it.
	Stats benchstat.Summary `json:"stats"`
	// Nodes and NodesPerSecond are set only by solvers that count search
	// nodes; none does yet.
	Nodes          *uint64  `json:"nodes,omitempty"`
	NodesPerSecond *float64 `json:"nodes_per_second,omitempty"`
}

// SetCounts stores c in the result.
func (r *Result) SetCounts(c nq.Counts) { r.CountsJSON = c.JSON() }

// Write writes d as indented JSON.
func Write(w io.Writer, d *Document) error { return WriteJSON(w, d) }

// WriteFile writes d to path.
func WriteFile(path string, d *Document) error { return WriteJSONFile(path, d) }

// WriteJSON writes any JSON document of the program's (bench, check) as
// indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteJSONFile writes v as indented JSON to path, replacing the file
// atomically (fsutil.WriteAtomic: through symbolic links, keeping its
// mode and owner): a write that fails leaves the old file as it was.
func WriteJSONFile(path string, v any) error {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, v); err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, buf.Bytes(), 0o666)
}

// MaxDocumentBytes bounds a bench JSON document that ReadFile reads. One
// holds a few kilobytes per series and N.
const MaxDocumentBytes = 16 << 20

// MinSeconds and MaxSeconds bound a timing that Read accepts: from a
// nanosecond (the clock's resolution) to 10^7 s, 116 days. A bench
// repeats every N at least twice, so a longer run is not a benchmark but
// a damaged or edited file; so are zero, negative and non-finite times.
const (
	MinSeconds = 1e-9
	MaxSeconds = 1e7
)

// checkSeconds checks the timings of one result.
func checkSeconds(what string, xs []float64) error {
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < MinSeconds || x > MaxSeconds {
			return fmt.Errorf("%s %d is %v s, not a time a run can take (between %g s and %g s)", what, i+1, x, MinSeconds, MaxSeconds)
		}
	}
	return nil
}

// Read decodes and checks one document: its schema version, the counts,
// and the timings, from which it recomputes every Stats.
func Read(r io.Reader) (*Document, error) {
	var d Document
	dec := json.NewDecoder(r)
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("not a bench JSON document: %w", err)
	}
	if !strings.HasPrefix(d.Schema, schemaMajor) {
		if d.Schema == "" {
			return nil, errors.New("not a bench JSON document: no schema field")
		}
		return nil, fmt.Errorf("bench JSON schema %q is not supported (want %s*)", d.Schema, schemaMajor)
	}
	if len(d.Series) == 0 {
		return nil, errors.New("bench JSON document has no series")
	}
	for i := range d.Series {
		s := &d.Series[i]
		if s.Label == "" {
			return nil, fmt.Errorf("series %d has no label", i)
		}
		label := clip.Quote(s.Label, clip.Max)
		for j := range s.Results {
			r := &s.Results[j]
			if err := nq.CheckN(r.N); err != nil {
				return nil, fmt.Errorf("series %s: %w", label, err)
			}
			c := r.Counts()
			if c.Total() != r.Total || c.Unique() != r.Unique {
				return nil, fmt.Errorf("series %s N=%d: total %d and unique %d do not match count1..count8 (%v)", label, r.N, r.Total, r.Unique, c)
			}
			if err := checkSeconds("run", r.Seconds); err != nil {
				return nil, fmt.Errorf("series %s N=%d: %w", label, r.N, err)
			}
			if err := checkSeconds("warm-up run", r.WarmupSeconds); err != nil {
				return nil, fmt.Errorf("series %s N=%d: %w", label, r.N, err)
			}
			st, err := benchstat.Summarize(r.Seconds)
			if err != nil {
				return nil, fmt.Errorf("series %s N=%d: seconds: %w", label, r.N, err)
			}
			r.Stats = st
		}
	}
	return &d, nil
}

// ReadFile reads the document at path, which must be a regular file of
// at most MaxDocumentBytes (never a FIFO or a device: they could hang or
// never end).
func ReadFile(path string) (*Document, error) {
	data, err := fsutil.ReadRegular(path, MaxDocumentBytes)
	var tl *fsutil.TooLargeError
	switch {
	case errors.As(err, &tl):
		return nil, fmt.Errorf("%s is larger than %s, more than any bench JSON document: not one", path, fsutil.FormatBytes(tl.Max))
	case err != nil:
		return nil, err
	}
	d, err := Read(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// Result returns the result for n and whether the series has one.
func (s *Series) Result(n int) (*Result, bool) {
	for i := range s.Results {
		if s.Results[i].N == n {
			return &s.Results[i], true
		}
	}
	return nil, false
}

// GPUByOrdinal returns the environment's GPU with ordinal k.
func (e *Env) GPUByOrdinal(k int) (GPU, bool) {
	for _, g := range e.GPUs {
		if g.Ordinal == k {
			return g, true
		}
	}
	return GPU{}, false
}

// FormatSeconds writes a duration given in seconds with 4 significant
// digits and a unit: "812.3µs", "1.234ms", "2.279s", "1234s".
func FormatSeconds(s float64) string {
	a := s
	if a < 0 {
		a = -a
	}
	switch {
	case a == 0:
		return "0s"
	case a < 1e-6:
		return fmt.Sprintf("%.4gns", s*1e9)
	case a < 1e-3:
		return fmt.Sprintf("%.4gµs", s*1e6)
	case a < 1:
		return fmt.Sprintf("%.4gms", s*1e3)
	case a < 1e4:
		return fmt.Sprintf("%.4gs", s)
	}
	return fmt.Sprintf("%.0fs", s)
}
