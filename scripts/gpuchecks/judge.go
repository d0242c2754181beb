package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// A run is what one command of run-gpu-checks.sh left: how it ended and
// its stdout and stderr.
type run struct {
	name     string // the command's name in the logs (NAME.out, NAME.err)
	rc       int    // exit status
	ended    string // how it ended, for a reason: "exit 1", "timed out after 2 s (STEP_TIMEOUT)"
	out, err string
}

// readRun reads BASE.out and BASE.err; a missing file reads as empty (a
// command the budget left out).
func readRun(base string, rc int, ended string) run {
	r := run{name: filepath.Base(base), rc: rc, ended: ended}
	if r.ended == "" {
		r.ended = "exit " + strconv.Itoa(rc)
	}
	out, _ := os.ReadFile(base + ".out")
	errText, _ := os.ReadFile(base + ".err")
	r.out, r.err = string(out), string(errText)
	return r
}

// failed is the reason for a run that did not exit 0: how it ended and
// the start of its stderr.
func (r run) failed() error {
	return fmt.Errorf("%s: %s", r.ended, oneLine(r.err, 500))
}

// oneLine is s cut to max bytes with its line breaks as " / ", for a
// reason on one line.
func oneLine(s string, max int) string {
	return strings.ReplaceAll(strings.TrimSpace(clip.String(s, max)), "\n", " / ")
}

// skipError is an outcome that is neither a pass nor a failure: the
// binary fell back to the CPU in the preflight, or a tool was refused.
type skipError struct{ why string }

func (e skipError) Error() string { return e.why }

// fallbackError says that a count ran on the CPU instead of the GPU.
type fallbackError struct{ cause string }

func (e fallbackError) Error() string { return "ran on the CPU: " + e.cause }

// A record is what the checks read of a line of a count's -json output
// (report.Record, whose other fields they do not need); a shard record
// has a Kind.
type record struct {
	Kind string `json:"kind"`
	N    int    `json:"n"`
	nq.CountsJSON
	Backend string `json:"backend"`
}

// records are the -json count records of out, by N; other lines (a
// tool's, or a shard record) are passed over.
func records(out string) map[int]record {
	recs := map[int]record{}
	for _, line := range strings.Split(out, "\n") {
		var r record
		if strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &r) == nil && r.Backend != "" && r.Kind == "" {
			recs[r.N] = r
		}
	}
	return recs
}

// fallbackCause is why the binary ran on the CPU, from its line on
// stderr ("nqueens-gpu: counting on the CPU (K workers[, about T for
// N=R]): CAUSE[; to use a GPU, FIX]").
func fallbackCause(stderr string) string {
	for _, line := range strings.Split(stderr, "\n") {
		rest, ok := strings.CutPrefix(line, "nqueens-gpu: counting on the CPU (")
		if !ok {
			continue
		}
		_, cause, _ := strings.Cut(rest, "): ")
		cause, _, _ = strings.Cut(cause, "; to use a GPU, ")
		if cause != "" {
			return clip.String(cause, 400)
		}
	}
	return "the binary fell back to the CPU"
}

// checkCounts returns nil when r exited 0 and printed, for every N from lo
// to hi, a -json record of a count on the GPU with the published numbers
// (Total and Unique, and C2, C4 and C8 where published: known.Check).
// With lo = 0 every record is checked, and there must be one. A count on
// the CPU is a fallbackError.
func checkCounts(r run, lo, hi int) error {
	if r.rc != 0 {
		return r.failed()
	}
	recs := records(r.out)
	var ns []int
	for n := lo; n > 0 && n <= hi; n++ {
		ns = append(ns, n)
	}
	if lo == 0 {
		if ns = slices.Sorted(maps.Keys(recs)); len(ns) == 0 {
			return errors.New("no -json count record on stdout")
		}
	}
	var bad []string
	for _, n := range ns {
		rec, ok := recs[n]
		if !ok {
			bad = append(bad, fmt.Sprintf("N=%d: no result", n))
			continue
		}
		if rec.Backend != "gpu" {
			return fallbackError{fallbackCause(r.err)}
		}
		c := rec.Counts()
		if rec.Total != c.Total() || rec.Unique != c.Unique() {
			bad = append(bad, fmt.Sprintf("N=%d: total %d and unique %d disagree with the classes (%v)", n, rec.Total, rec.Unique, c))
		} else if _, ok := known.Lookup(n); !ok {
			bad = append(bad, fmt.Sprintf("N=%d: nothing published to compare with", n))
		} else if _, err := known.Check(n, c); err != nil {
			bad = append(bad, err.Error())
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("wrong counts: %s", strings.Join(bad, "; "))
	}
	return nil
}

// nodesRe matches the binary's -gpu-nodes line, "nodes: K (R nodes/s)".
var nodesRe = regexp.MustCompile(`(?m)^nodes: ([0-9]+)`)

// nodes are the K of each "nodes: K" line of stderr, in order.
func nodes(stderr string) []string {
	var ks []string
	for _, m := range nodesRe.FindAllStringSubmatch(stderr, -1) {
		ks = append(ks, m[1])
	}
	return ks
}

// checkNodes returns nil when r's stderr has a "nodes: K" line.
func checkNodes(r run) error {
	if len(nodes(r.err)) == 0 {
		return fmt.Errorf("no 'nodes: K' line on stderr: %s", oneLine(r.err, 300))
	}
	return nil
}

// sameNodes returns nil when the "nodes: K" lines of a and b agree one by
// one: the node count of a search depends only on N, the algorithm and
// the depth, not on the kernel that walks it.
func sameNodes(a, b run) error {
	ka, kb := nodes(a.err), nodes(b.err)
	for i := range max(len(ka), len(kb)) {
		if i >= len(ka) || i >= len(kb) || ka[i] != kb[i] {
			return fmt.Errorf("their 'nodes: K' lines differ: %s has %d (%s), %s %d (%s)",
				a.name, len(ka), strings.Join(ka, " "), b.name, len(kb), strings.Join(kb, " "))
		}
	}
	return nil
}

// sameClasses returns nil when every count of gpu with N <= maxN has the
// same Total, Unique and classes as cpu's count of that N.
func sameClasses(gpu, cpu run, maxN int) error {
	g, c := records(gpu.out), records(cpu.out)
	var bad []string
	compared := 0
	for n := 1; n <= maxN; n++ {
		gr, ok := g[n]
		if !ok {
			continue
		}
		cr, ok := c[n]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("N=%d: no CPU count (%s)", n, cpu.name))
		case gr.Counts() != cr.Counts():
			bad = append(bad, fmt.Sprintf("N=%d: GPU %v, CPU %v", n, gr.Counts(), cr.Counts()))
		}
		compared++
	}
	if compared == 0 {
		return fmt.Errorf("no count of N <= %d to compare", maxN)
	}
	if len(bad) > 0 {
		return fmt.Errorf("GPU and CPU classes differ: %s", strings.Join(bad, "; "))
	}
	return nil
}

// shardKeys are the fields of a -shard -json record that a GPU and a CPU
// run of the same shard must agree on.
var shardKeys = []string{"n", "algo", "shard", "shards", "batches", "job_batches", "fingerprint", "sums"}

// shardRecord is the first shard record of out, its fields raw, or nil
// when there is none or it lacks one of shardKeys.
func shardRecord(out string) map[string]json.RawMessage {
	for _, line := range strings.Split(out, "\n") {
		var rec map[string]json.RawMessage
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &rec) != nil || rec["fingerprint"] == nil {
			continue
		}
		for _, k := range shardKeys {
			if rec[k] == nil {
				return nil
			}
		}
		return rec
	}
	return nil
}

// checkShard returns nil when r exited 0 with a complete shard record.
func checkShard(r run) error {
	if r.rc != 0 {
		return r.failed()
	}
	if shardRecord(r.out) == nil {
		return fmt.Errorf("no shard result in %s.out", r.name)
	}
	return nil
}

// sameShard returns nil when gpu, a shard counted on the GPU, agrees with
// cpu, the same shard of the same job counted on the CPU, in every field
// of shardKeys, and the shard holds solutions (else nothing was compared).
func sameShard(gpu, cpu run) error {
	if err := checkShard(gpu); err != nil {
		return err
	}
	g := shardRecord(gpu.out)
	if string(g["backend"]) != `"gpu"` {
		return fallbackError{fallbackCause(gpu.err)}
	}
	c := shardRecord(cpu.out)
	if c == nil {
		return fmt.Errorf("no CPU result to compare with (%s)", cpu.name)
	}
	for _, k := range shardKeys {
		if !bytes.Equal(g[k], c[k]) {
			return fmt.Errorf("GPU and CPU shard results differ: %s %s on the GPU, %s on the CPU", k, g[k], c[k])
		}
	}
	var sums struct{ Orbit2, Orbit4, Orbit8 uint64 }
	if err := json.Unmarshal(g["sums"], &sums); err != nil {
		return fmt.Errorf("sums %s: %v", g["sums"], err)
	}
	if sums.Orbit2 == 0 && sums.Orbit4 == 0 && sums.Orbit8 == 0 {
		return errors.New("the shard holds no solution on either side: nothing was compared")
	}
	return nil
}

// gpuFlags are the flags that make a GPU run count the job of cpu's
// shard record: its depth, chosen by the CPU's rule (none for a job of
// frames, depth 0).
func gpuFlags(cpu run) []string {
	rec := shardRecord(cpu.out)
	var depth int
	if rec == nil || json.Unmarshal(rec["depth"], &depth) != nil || depth <= 0 {
		return nil
	}
	return []string{"-depth", strconv.Itoa(depth)}
}

// checkSanitizer judges a compute-sanitizer run. With probe, only whether
// the tool ran at all: a run without its "ERROR SUMMARY" line was refused
// (gVisor does not let it attach), a skipError. Otherwise it passes when
// r exited 0 with the tool's clean summary ("ERROR SUMMARY: 0 errors" or
// "RACECHECK SUMMARY: 0 hazards") and, when n > 0, the count of n as
// checkCounts wants it.
func checkSanitizer(r run, probe bool, n int) error {
	all := r.err + "\n" + r.out
	if probe {
		if strings.Contains(all, "ERROR SUMMARY:") {
			return nil
		}
		why := "no ERROR SUMMARY line"
		for _, line := range strings.Split(all, "\n") {
			if s := strings.TrimSpace(line); s != "" && !strings.HasSuffix(s, "COMPUTE-SANITIZER") {
				why = clip.String(s, 300)
				break
			}
		}
		return skipError{fmt.Sprintf("compute-sanitizer refused: %s: %s", r.ended, why)}
	}
	if r.rc != 0 || !strings.Contains(all, "ERROR SUMMARY: 0 errors") && !strings.Contains(all, "RACECHECK SUMMARY: 0 hazards") {
		return fmt.Errorf("%s; see %s.err in logs.tar.gz", r.ended, r.name)
	}
	if n > 0 {
		return checkCounts(r, n, n)
	}
	return nil
}

// checkNcu judges an ncu run: it passes when r exited 0 with a report
// (its Occupancy section). When first, ncu's own error (==ERROR==: no
// access to the counters, a sandbox) is a skipError: ncu was refused.
func checkNcu(r run, first bool) error {
	if r.rc == 0 && strings.Contains(r.out, "Occupancy") {
		return nil
	}
	if first {
		for _, line := range strings.Split(r.out+"\n"+r.err, "\n") {
			if strings.Contains(line, "==ERROR==") {
				return skipError{"ncu refused: " + clip.String(strings.TrimSpace(line), 300)}
			}
		}
	}
	return fmt.Errorf("%s; see %s.err in logs.tar.gz", r.ended, r.name)
}

// minDriver is the oldest driver branch that loads the committed PTX (ISA
// 7.8, nvcc 11.8).
const minDriver = 520

// checkDriver finds the driver's version in nvidia-smi's answer (smi;
// smiFound false when there is no nvidia-smi), else in the binary's
// `devices -json` (its "nvidia_driver", read from
// /proc/driver/nvidia/version), and returns it with nil when it is R520
// or newer. Without a version it returns a skipError.
func checkDriver(smi string, smiFound bool, devices string) (version string, err error) {
	source := "nvidia-smi"
	version, _, _ = strings.Cut(strings.TrimSpace(smi), "\n")
	version = strings.ReplaceAll(version, " ", "")
	if version == "" || version[0] < '0' || version[0] > '9' {
		version, source = field(devices, "nvidia_driver"), "/proc/driver/nvidia/version"
	}
	if version == "" {
		why := "nvidia-smi gave no version"
		if !smiFound {
			why = "nvidia-smi not found"
		}
		return "", skipError{why + " and /proc/driver/nvidia/version is missing or has none (a sandbox such as gVisor)"}
	}
	major, _, _ := strings.Cut(version, ".")
	if m, err := strconv.Atoi(major); err != nil || m < minDriver {
		return version, fmt.Errorf("driver %s (from %s) is older than R%d, which the PTX (ISA 7.8) needs", version, source, minDriver)
	}
	return version, nil
}
