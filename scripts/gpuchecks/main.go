package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
)

func main() { os.Exit(gpuchecks(os.Args[1:], os.Stdout, os.Stderr)) }

// usageError is a bad command line: exit 2.
type usageError struct{ error }

// commands are the subcommands: each defines its flags on fs, parses
// args with it and writes its answer on w.
var commands = map[string]func(fs *flag.FlagSet, args []string, w io.Writer) error{
	"preflight": judge(func(fs *flag.FlagSet) func(r run) error {
		return func(r run) error {
			if err := checkCounts(r, 1, 1); err != nil {
				if f, ok := err.(fallbackError); ok {
					return skipError{f.cause}
				}
				return err
			}
			return nil
		}
	}),
	"count": judge(func(fs *flag.FlagSet) func(r run) error {
		ns := fs.String("n", "", "the `N` or range A-B that the run counted (absent: every record)")
		withNodes := fs.Bool("nodes", false, "the run must print a 'nodes: K' line")
		return func(r run) error {
			lo, hi, err := parseRange(*ns)
			if err != nil {
				return err
			}
			if err := checkCounts(r, lo, hi); err != nil || !*withNodes {
				return err
			}
			return checkNodes(r)
		}
	}),
	"sanitizer": judge(func(fs *flag.FlagSet) func(r run) error {
		probe := fs.Bool("probe", false, "only whether the tool ran (exit 3: refused)")
		n := fs.Int("n", 0, "the `N` the run counted, with -json")
		return func(r run) error { return checkSanitizer(r, *probe, *n) }
	}),
	"ncu": judge(func(fs *flag.FlagSet) func(r run) error {
		first := fs.Bool("first", false, "the first ncu run: its own error means refused (exit 3)")
		return func(r run) error { return checkNcu(r, *first) }
	}),
	"shard": judge(func(fs *flag.FlagSet) func(r run) error {
		cpu := fs.String("cpu", "", "the `BASE` of the CPU's run of the same shard to compare with")
		return func(r run) error {
			if *cpu == "" {
				return checkShard(r)
			}
			return sameShard(r, readRun(*cpu, 0, ""))
		}
	}),
	"same-nodes": func(fs *flag.FlagSet, args []string, w io.Writer) error {
		a, err := parseArgs(fs, args, 2)
		if err != nil {
			return err
		}
		return sameNodes(readRun(a[0], 0, ""), readRun(a[1], 0, ""))
	},
	"same-classes": func(fs *flag.FlagSet, args []string, w io.Writer) error {
		maxN := fs.Int("max", 0, "compare the counts of N <= `N`")
		cpu := fs.String("cpu", "", "the `BASE` of the CPU's count")
		a, err := parseArgs(fs, args, 1)
		if err != nil {
			return err
		}
		return sameClasses(readRun(a[0], 0, ""), readRun(*cpu, 0, ""), *maxN)
	},
	"gpu-flags": func(fs *flag.FlagSet, args []string, w io.Writer) error {
		a, err := parseArgs(fs, args, 1)
		if err == nil {
			fmt.Fprintln(w, strings.Join(gpuFlags(readRun(a[0], 0, "")), " "))
		}
		return err
	},
	"driver": func(fs *flag.FlagSet, args []string, w io.Writer) error {
		devices := fs.String("devices", "", "the `file` of the binary's devices -json")
		a, err := parseArgs(fs, args, 1)
		if err != nil {
			return err
		}
		smi, smiErr := os.ReadFile(a[0])
		devicesJSON, _ := os.ReadFile(*devices)
		v, err := checkDriver(string(smi), smiErr == nil, string(devicesJSON))
		if err != nil && v != "" {
			return fmt.Errorf("driver-%s\t%w", v, err)
		}
		if err == nil {
			fmt.Fprintln(w, "driver-"+v)
		}
		return err
	},
	"shards": func(fs *flag.FlagSet, args []string, w io.Writer) error {
		algo := fs.String("algo", "", "the `algorithm`")
		n := fs.Int("n", 0, "the board size `N`")
		workers := fs.Int("workers", 0, "the CPU's `workers`")
		secs := fs.Float64("seconds", 0, "the `seconds` a CPU shard should take")
		if _, err := parseArgs(fs, args, 0); err != nil {
			return err
		}
		if *n < 1 || *workers < 1 || *secs <= 0 {
			return usageError{errors.New("shards: want -n, -workers and -seconds over 0")}
		}
		fmt.Fprintln(w, shardCount(*algo, *n, *workers, *secs))
		return nil
	},
	"tune": func(fs *flag.FlagSet, args []string, w io.Writer) error {
		n := fs.Int("n", 20, "the sweep's `N`")
		maxShared := fs.Int("max-shared", 48<<10, "the most shared memory a block may ask for, in `bytes`")
		if _, err := parseArgs(fs, args, 0); err != nil {
			return err
		}
		for _, l := range tunePlan(*n, *maxShared) {
			fmt.Fprintln(w, l)
		}
		return nil
	},
	"nodes-row": row(nodesHeader, 4, 0, func(a []string, n int) string {
		return nodesRow(n, a[1], readRun(a[2], 0, ""), readRun(a[3], 0, ""))
	}),
	"timing-row": row(timingHeader, 4, 1, func(a []string, n int) string {
		return timingRow(a[0], n, a[2], readRun(a[3], 0, ""))
	}),
	"seeds-rows": func(fs *flag.FlagSet, args []string, w io.Writer) error {
		from := fs.Int("from", 18, "the smallest `N` to report")
		a, err := parseArgs(fs, args, 1)
		if err != nil {
			return err
		}
		out, err := os.ReadFile(a[0])
		for _, r := range seedsRows(string(out), *from) {
			fmt.Fprintln(w, r)
		}
		return err
	},
}

// judge is a judgement subcommand: check defines its flags on fs and
// returns the check of the run, which the common flags -rc and -ended
// and the one argument BASE give.
func judge(check func(fs *flag.FlagSet) func(r run) error) func(*flag.FlagSet, []string, io.Writer) error {
	return func(fs *flag.FlagSet, args []string, w io.Writer) error {
		rc := fs.Int("rc", 0, "the run's exit status")
		ended := fs.String("ended", "", "how the run ended, for a reason (default \"exit RC\")")
		c := check(fs)
		a, err := parseArgs(fs, args, 1)
		if err != nil {
			return err
		}
		return c(readRun(a[0], *rc, *ended))
	}
}

// row is a subcommand that prints header with -header, else the row that
// format makes of its nargs arguments, the one at index nAt N.
func row(header string, nargs, nAt int, format func(a []string, n int) string) func(*flag.FlagSet, []string, io.Writer) error {
	return func(fs *flag.FlagSet, args []string, w io.Writer) error {
		head := fs.Bool("header", false, "print the table's header")
		if err := fs.Parse(args); err != nil {
			return usageError{err}
		}
		a := fs.Args()
		switch {
		case *head && len(a) == 0:
			fmt.Fprintln(w, header)
			return nil
		case *head || len(a) != nargs:
			return usageError{fmt.Errorf("%s: want -header or %d arguments", fs.Name(), nargs)}
		}
		n, err := strconv.Atoi(a[nAt])
		if err != nil {
			return usageError{fmt.Errorf("N %q is not a number", a[nAt])}
		}
		fmt.Fprintln(w, format(a, n))
		return nil
	}
}

// parseArgs parses args with fs and returns its nargs arguments.
func parseArgs(fs *flag.FlagSet, args []string, nargs int) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		return nil, usageError{err}
	}
	if fs.NArg() != nargs {
		return nil, usageError{fmt.Errorf("%s: want %d arguments, got %d", fs.Name(), nargs, fs.NArg())}
	}
	return fs.Args(), nil
}

// parseRange parses "" (0, 0: every record), "N" or "A-B".
func parseRange(s string) (lo, hi int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, isRange := strings.Cut(s, "-")
	lo, err1 := strconv.Atoi(a)
	hi, err2 := lo, error(nil)
	if isRange {
		hi, err2 = strconv.Atoi(b)
	}
	if err1 != nil || err2 != nil || lo < 1 || hi < lo {
		return 0, 0, usageError{fmt.Errorf("-n %q: want N or A-B with 1 <= A <= B", s)}
	}
	return lo, hi, nil
}

// gpuchecks runs the subcommand of args and returns the exit status.
func gpuchecks(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || commands[args[0]] == nil {
		fmt.Fprintln(stderr, "gpuchecks: want one of", strings.Join(slices.Sorted(maps.Keys(commands)), ", "), "(scripts/gpuchecks/main.go says how to call each)")
		return 2
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	err := commands[args[0]](fs, args[1:], stdout)
	var skip skipError
	var usage usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &usage):
		fmt.Fprintln(stderr, "gpuchecks:", err)
		return 2
	case errors.As(err, &skip):
		fmt.Fprintln(stdout, err)
		return 3
	}
	fmt.Fprintln(stdout, err)
	return 1
}
