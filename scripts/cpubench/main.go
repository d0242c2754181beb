// Command cpubench times the CPU path of nqueens-gpu next to the classic C
// counter refcount (../shared/bench/refcount.c) in one run, alternating the
// two, and prints each one's wall time, peak memory and the ratio
// ours/refcount. Both programs' counts are compared; a mismatch is an error.
//
//	go run ./scripts/cpubench -ours bin/nqueens-gpu -refcount /tmp/refcount -n 16,17 -runs 3
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gonum.org/v1/gonum/stat"
)

type sample struct {
	wall   float64 // seconds
	maxRSS int64   // KiB
	total  uint64
	unique uint64
}

func main() {
	ours := flag.String("ours", "bin/nqueens-gpu", "the nqueens-gpu binary")
	ref := flag.String("refcount", "", "the compiled refcount binary")
	ns := flag.String("n", "16,17", "comma-separated board sizes")
	runs := flag.Int("runs", 3, "runs of each program per N")
	args := flag.String("args", "-device cpu", "extra arguments for nqueens-gpu")
	flag.Parse()
	if *ref == "" {
		fmt.Fprintln(os.Stderr, "cpubench: -refcount is required")
		os.Exit(2)
	}
	if err := run(*ours, *ref, *ns, *runs, strings.Fields(*args)); err != nil {
		fmt.Fprintln(os.Stderr, "cpubench:", err)
		os.Exit(1)
	}
}

func run(ours, ref, ns string, runs int, extra []string) error {
	fmt.Printf("machine: %d cores, %s, GOMAXPROCS=%d, %s\n", runtime.NumCPU(), cpuModel(), runtime.GOMAXPROCS(0), runtime.Version())
	fmt.Printf("%3s  %-9s %9s %9s %9s %11s  %s\n", "N", "program", "median s", "min s", "stddev", "peak MiB", "counts")
	for _, f := range strings.Split(ns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return fmt.Errorf("bad N %q", f)
		}
		var a, b []sample
		for i := 0; i < runs; i++ {
			s, err := measure(ref, []string{strconv.Itoa(n)}, parseRef)
			if err != nil {
				return fmt.Errorf("refcount N=%d: %w", n, err)
			}
			b = append(b, s)
			s, err = measure(ours, append([]string{"-n", strconv.Itoa(n), "-json"}, extra...), parseOurs)
			if err != nil {
				return fmt.Errorf("nqueens-gpu N=%d: %w", n, err)
			}
			a = append(a, s)
		}
		if a[0].total != b[0].total || a[0].unique != b[0].unique {
			return fmt.Errorf("N=%d: counts differ: ours %d/%d, refcount %d/%d", n, a[0].total, a[0].unique, b[0].total, b[0].unique)
		}
		ma, mb := report(n, "ours", a), report(n, "refcount", b)
		fmt.Printf("%3d  ratio ours/refcount (medians): %.3f\n", n, ma/mb)
	}
	return nil
}

// report prints one program's line and returns its median wall time.
func report(n int, name string, ss []sample) float64 {
	walls := make([]float64, len(ss))
	var rss int64
	for i, s := range ss {
		walls[i] = s.wall
		if s.maxRSS > rss {
			rss = s.maxRSS
		}
	}
	sort.Float64s(walls)
	med := stat.Quantile(0.5, stat.Empirical, walls, nil)
	sd := 0.0
	if len(walls) > 1 {
		sd = stat.StdDev(walls, nil)
	}
	fmt.Printf("%3d  %-9s %9.3f %9.3f %9.3f %11.1f  total=%d unique=%d\n", n, name, med, walls[0], sd, float64(rss)/1024, ss[0].total, ss[0].unique)
	return med
}

func measure(bin string, args []string, parse func([]byte, *sample) error) (sample, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
	}
	s := sample{wall: time.Since(start).Seconds()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.maxRSS = ru.Maxrss // KiB on Linux
	}
	return s, parse(out.Bytes(), &s)
}

var refLine = regexp.MustCompile(`total=(\d+) unique=(\d+)`)

func parseRef(out []byte, s *sample) error {
	m := refLine.FindSubmatch(out)
	if m == nil {
		return errors.New("no counts in refcount output")
	}
	s.total, _ = strconv.ParseUint(string(m[1]), 10, 64)
	s.unique, _ = strconv.ParseUint(string(m[2]), 10, 64)
	return nil
}

func parseOurs(out []byte, s *sample) error {
	var r struct {
		Total  uint64 `json:"total"`
		Unique uint64 `json:"unique"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &r); err != nil {
		return fmt.Errorf("reading -json output: %w", err)
	}
	s.total, s.unique = r.Total, r.Unique
	return nil
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "model name") {
			if i := strings.IndexByte(line, ':'); i >= 0 {
				return strings.TrimSpace(line[i+1:])
			}
		}
	}
	return "unknown CPU"
}
