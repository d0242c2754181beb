package main

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// shardCount is the M of the shard 0/M that the largen step counts at n
// with algo on workers CPU cores in about seconds: one core does N=17 in
// about 17 s, each N costs about 7 times the one before, the cores give
// 3/4 of their nominal speed-up, and the carry chain's CPU search costs
// about 4 times the others'. At least 4.
func shardCount(algo string, n, workers int, seconds float64) int {
	f := 1.0
	if algo == "carrychain" {
		f = 4
	}
	m := math.Ceil(f * 17 * math.Pow(7, float64(n-17)) / (0.75 * float64(workers) * seconds))
	return max(4, int(m))
}

// A shape is one run of the tune step: a kernel, N, the depth (the split
// of the eightfold kernels) and the threads of a block.
type shape struct {
	kernel            string // eightfold, eightfold-static, static, dynamic or smem
	n, depth, threads int
}

// tuneShapes is the tune step's sweep at N=n: the eightfold kernels for
// splits 3 and 4, and the static symmetry kernel for depths 6, 7 and 8,
// with blocks of 64, 128 and 256 threads; then -gpu-dynamic and -gpu-smem
// at n and n+1 for depths 6, 7 and 8 and blocks of 128 and 256.
func tuneShapes(n int) []shape {
	var s []shape
	for _, split := range []int{3, 4} {
		for _, t := range []int{64, 128, 256} {
			s = append(s, shape{"eightfold", n, split, t}, shape{"eightfold-static", n, split, t})
		}
	}
	for _, d := range []int{6, 7, 8} {
		for _, t := range []int{64, 128, 256} {
			s = append(s, shape{"static", n, d, t})
		}
	}
	for _, k := range []string{"dynamic", "smem"} {
		for _, m := range []int{n, n + 1} {
			for _, d := range []int{6, 7, 8} {
				for _, t := range []int{128, 256} {
					s = append(s, shape{k, m, d, t})
				}
			}
		}
	}
	return s
}

func (s shape) name() string {
	return fmt.Sprintf("tune-%s-n%d-d%d-t%d", s.kernel, s.n, s.depth, s.threads)
}

// args are the binary's flags for s, without the device and the output's.
func (s shape) args() []string {
	a := []string{"-n", strconv.Itoa(s.n), "-algo", "symmetry", "-depth", strconv.Itoa(s.depth), "-gpu-threads", strconv.Itoa(s.threads)}
	switch s.kernel {
	case "eightfold":
		a[3] = "eightfold"
	case "eightfold-static":
		a[3] = "eightfold"
		a = append(a, "-gpu-variant", "static")
	case "dynamic", "smem":
		a = append(a, "-gpu-"+s.kernel)
	}
	return a
}

// sharedBytes is the dynamic shared memory of a block of s, as the gpu
// package sizes the stacks: the eightfold kernels 16 bytes per frame and
// thread, one frame fewer than the levels of a split task (at least one);
// -gpu-smem 4 bytes per word of gpu.SymWords and thread; 0 for a kernel
// with its stack elsewhere.
func (s shape) sharedBytes() int {
	switch s.kernel {
	case "eightfold", "eightfold-static":
		return 16 * max(1, tasks.SplitLevelsFor(s.n, s.depth)-1) * s.threads
	case "smem":
		return 4 * gpu.SymWords(s.n, s.depth) * s.threads
	}
	return 0
}

// tunePlan is the tune step as lines for the script: "run NAME FLAGS..."
// for each shape of tuneShapes(n), or "skip NAME REASON" for a shape
// whose stacks need more than maxShared bytes of shared memory per block.
func tunePlan(n, maxShared int) []string {
	var lines []string
	for _, s := range tuneShapes(n) {
		if b := s.sharedBytes(); b > maxShared {
			lines = append(lines, fmt.Sprintf("skip %s its stacks need %d B of shared memory per block, over MAX_SHARED=%d (48 KiB without the opt-in)", s.name(), b, maxShared))
		} else {
			lines = append(lines, "run "+s.name()+" "+strings.Join(s.args(), " "))
		}
	}
	return lines
}

// field is the value of key in the first JSON object of out that has it
// (a string without its quotes), or "".
func field(out, key string) string {
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var rec map[string]json.RawMessage
		if err := dec.Decode(&rec); err != nil {
			return ""
		}
		if rec[key] == nil {
			continue
		}
		var s string
		if json.Unmarshal(rec[key], &s) == nil {
			return s
		}
		return string(rec[key])
	}
}

// orNA is s, or "NA" for "".
func orNA(s string) string {
	if s == "" {
		return "NA"
	}
	return s
}

// The columns of nodes.tsv and timing.tsv.
const (
	nodesHeader  = "N\tkernel\tnodes\twall_s\tnodes_per_s\tnodes_run_s"
	timingHeader = "variant\tN\tseconds\tprocess_s"
)

// nodesRow is the row of nodes.tsv for kernel at n: the nodes that the
// -gpu-nodes run counted (its last "nodes: K" line), the plain run's
// "seconds" (the count's wall time, without the process's start-up),
// nodes per second of it, and the -gpu-nodes run's "seconds"; NA for
// what a run did not give.
func nodesRow(n int, kernel string, counted, plain run) string {
	k := "NA"
	if ks := nodes(counted.err); len(ks) > 0 {
		k = ks[len(ks)-1]
	}
	wall := orNA(field(plain.out, "seconds"))
	rate := "NA"
	kf, err1 := strconv.ParseFloat(k, 64)
	wf, err2 := strconv.ParseFloat(wall, 64)
	if err1 == nil && err2 == nil && kf > 0 && wf > 0 {
		rate = strconv.FormatFloat(kf/wf, 'g', 4, 64)
	}
	return strings.Join([]string{strconv.Itoa(n), kernel, k, wall, rate, orNA(field(counted.out, "seconds"))}, "\t")
}

// timingRow is the row of timing.tsv for variant at n: the count's
// "seconds" and processSeconds, the whole process's.
func timingRow(variant string, n int, processSeconds string, r run) string {
	return strings.Join([]string{variant, strconv.Itoa(n), orNA(field(r.out, "seconds")), processSeconds}, "\t")
}

// seedsRowRe matches a row of the seeds' CUDA program, "N: Total Unique
// D:HH:MM:SS.ss", at the end of a line (its progress shares the line).
var seedsRowRe = regexp.MustCompile(`([0-9]+): +([0-9]+) +[0-9]+ +([0-9]+):([0-9]+):([0-9]+):([0-9.]+)$`)

// seedsRows are the rows of peers.tsv for the seeds' program's output out,
// N >= from: "seeds", N, NA, its seconds, its Total, and 1 when the Total
// is the published one, else 0.
func seedsRows(out string, from int) []string {
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		m := seedsRowRe.FindStringSubmatch(strings.TrimRight(line, "\r "))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if n < from {
			continue
		}
		var secs float64
		for i, unit := range []float64{86400, 3600, 60, 1} {
			v, _ := strconv.ParseFloat(m[3+i], 64)
			secs += v * unit
		}
		ok := "0"
		if e, found := known.Lookup(n); found && strconv.FormatUint(e.Total, 10) == m[2] {
			ok = "1"
		}
		rows = append(rows, fmt.Sprintf("seeds\t%d\tNA\t%.3f\t%s\t%s", n, secs, m[2], ok))
	}
	return rows
}
