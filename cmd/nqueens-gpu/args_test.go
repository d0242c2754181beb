package main

import (
	"errors"
	"flag"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/app"
	"github.com/nqueens-gpu/nqueens-gpu/internal/clip"
	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

func TestParseArgsGood(t *testing.T) {
	def := config{Lo: 8, Hi: 8, MaxBoards: defaultMaxBoards, Devices: device.Set{CPU: true},
		CheckpointInterval: defaultCheckpointInterval, ProgressInterval: defaultProgressInterval}
	with := func(f func(*config)) config {
		c := def
		f(&c)
		return c
	}
	tests := []struct {
		args []string
		want config
	}{
		{[]string{"-n", "8"}, def},
		{[]string{"-n=8"}, def},
		{[]string{"--n", "8"}, def},
		{[]string{"-n", "08"}, def},
		{[]string{"-n", "1"}, with(func(c *config) { c.Lo, c.Hi = 1, 1 })},
		{[]string{"-n", "28"}, with(func(c *config) { c.Lo, c.Hi = 28, 28 })},
		{[]string{"-n", "4-16"}, with(func(c *config) { c.Lo, c.Hi = 4, 16 })},
		{[]string{"-n", "1-28"}, with(func(c *config) { c.Lo, c.Hi = 1, 28 })},
		{[]string{"-n", "5-5"}, with(func(c *config) { c.Lo, c.Hi = 5, 5 })},
		{[]string{"-n", "20", "-device", "0"}, with(func(c *config) {
			c.Lo, c.Hi = 20, 20
			c.Devices = device.Set{Ordinals: []int{0}}
		})},
		{[]string{"-n", "8", "-device", "3"}, with(func(c *config) { c.Devices = device.Set{Ordinals: []int{3}} })},
		{[]string{"-n", "8", "-device", "all"}, with(func(c *config) { c.Devices = device.Set{All: true} })},
		{[]string{"-n", "8", "-device", "0,2"}, with(func(c *config) { c.Devices = device.Set{Ordinals: []int{0, 2}} })},
		{[]string{"-n", "8", "-device", "all,cpu"}, with(func(c *config) { c.Devices = device.Set{All: true, CPU: true} })},
		{[]string{"-n", "8", "-device", "CPU,1"}, with(func(c *config) { c.Devices = device.Set{CPU: true, Ordinals: []int{1}} })},
		{[]string{"-n", "8", "-device", "CPU"}, def},
		{[]string{"-n", "8", "-device", "cpu"}, def},
		{[]string{"-device", "all", "-n", "8"}, with(func(c *config) { c.Devices = device.Set{All: true} })},
		{[]string{"-n", "8", "-algo", "backtrack"}, with(func(c *config) { c.Algo = nq.Backtrack })},
		{[]string{"-n", "8", "-algo", "bitmap"}, with(func(c *config) { c.Algo = nq.Bitmap })},
		{[]string{"-n", "8", "-algo", "mirror"}, with(func(c *config) { c.Algo = nq.Mirror })},
		{[]string{"-n", "8", "-algo", "symmetry"}, with(func(c *config) { c.Algo = nq.Symmetry })},
		{[]string{"-n", "8", "-algo=carrychain"}, with(func(c *config) { c.Algo = nq.CarryChain })},
		{[]string{"-n", "8", "-workers", "4"}, with(func(c *config) { c.Workers = 4 })},
		{[]string{"-n", "8", "-workers", "0"}, def},
		{[]string{"-n", "8", "-v"}, with(func(c *config) { c.Verbose = true })},
		{[]string{"-n", "8", "-v=true", "-v=false"}, def},
		{[]string{"-n", "8", "-json"}, with(func(c *config) { c.JSON = true })},
		{[]string{"-n", "8", "-json", "-v"}, with(func(c *config) { c.JSON, c.Verbose = true, true })},
		{[]string{"-n", "8", "-print"}, with(func(c *config) { c.Print = true })},
		{[]string{"-n", "1-12", "-print"}, with(func(c *config) { c.Lo, c.Hi, c.Print = 1, 12, true })},
		{[]string{"-n", "8", "-print", "-unique"}, with(func(c *config) { c.Print, c.Unique = true, true })},
		{[]string{"-n", "8", "-print", "-max-boards", "5"}, with(func(c *config) { c.Print, c.MaxBoards = true, 5 })},
		{[]string{"-n", "8", "-print", "-max-boards", "0"}, with(func(c *config) { c.Print, c.MaxBoards = true, 0 })},
		{[]string{"-n", "8", "-depth", "5"}, with(func(c *config) { c.Depth = 5 })},
		{[]string{"-n", "2-4", "-depth", "3"}, with(func(c *config) { c.Lo, c.Hi, c.Depth = 2, 4, 3 })},
		{[]string{"-n", "8", "-progress-interval", "1s"}, with(func(c *config) { c.ProgressInterval = time.Second })},
		{[]string{"-n", "8", "-gpu-threads", "256", "-gpu-launch", "50ms"}, with(func(c *config) { c.Tune.Threads, c.Tune.LaunchTime = 256, 50*time.Millisecond })},
		{[]string{"-n", "8", "-gpu-max-tasks", "100"}, with(func(c *config) { c.Tune.MaxTasks = 100 })},
		{[]string{"-n", "8", "-gpu-dynamic"}, with(func(c *config) { c.Tune.Dynamic = true })},
		{[]string{"-n", "8", "-gpu-smem"}, with(func(c *config) { c.Tune.SharedStack = true })},
		{[]string{"-n", "8", "-gpu-nodes"}, with(func(c *config) { c.Tune.Nodes = true })},
		{[]string{"-n", "8", "-gpu-trace"}, with(func(c *config) { c.GPUTrace = true })},
		{[]string{"-n", "8", "-gpu-variant", "static"}, with(func(c *config) { c.Tune.Variant = gpu.Static })},
		{[]string{"-n", "8", "-gpu-variant=smem"}, with(func(c *config) { c.Tune.Variant = gpu.SharedStacks })},
		{[]string{"-n", "8", "--"}, def},
		{[]string{"-n", "20", "-checkpoint", "n20.ckpt"}, with(func(c *config) { c.Lo, c.Hi, c.Checkpoint = 20, 20, "n20.ckpt" })},
		{[]string{"-n", "20", "-checkpoint", "c", "-checkpoint-interval", "10s"}, with(func(c *config) {
			c.Lo, c.Hi, c.Checkpoint, c.CheckpointInterval = 20, 20, "c", 10*time.Second
		})},
		{[]string{"-n", "8", "-progress-interval", "2m", "-quiet"}, with(func(c *config) { c.ProgressInterval, c.Quiet = 2*time.Minute, true })},
		{[]string{"-n", "8", "-shard", "3/4"}, with(func(c *config) { c.Shard, c.Sharded = plan.Shard{Index: 3, Count: 4}, true })},
		{[]string{"-n", "8", "-shard", "0/1", "-json"}, with(func(c *config) { c.Shard, c.Sharded, c.JSON = plan.Shard{Index: 0, Count: 1}, true, true })},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, err := parseArgs(tt.args)
			if err != nil {
				t.Fatalf("parseArgs: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseArgs = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// badArgs are command lines that must fail with a usage error, each with a
// piece of the message the user should see.
var badArgs = []struct {
	args []string
	msg  string
}{
	{nil, "missing -n"},
	{[]string{}, "missing -n"},
	{[]string{"-v"}, "missing -n"},
	{[]string{"-n", ""}, "-n is empty"},
	{[]string{"-n="}, "-n is empty"},
	{[]string{"-n"}, "flag needs an argument: -n"},
	{[]string{"-n", "0"}, "out of range"},
	{[]string{"-n", "29"}, "out of range"},
	{[]string{"-n", "100"}, "out of range"},
	{[]string{"-n", "99999999999999999999999"}, "between 1 and 28"},
	{[]string{"-n", "-5"}, "sizes are positive"},
	{[]string{"-n", "-1-5"}, "invalid -n"},
	{[]string{"-n", "abc"}, `invalid -n "abc"`},
	{[]string{"-n", "8.0"}, "invalid -n"},
	{[]string{"-n", "+8"}, "invalid -n"},
	{[]string{"-n", " 8"}, "invalid -n"},
	{[]string{"-n", "0x8"}, "invalid -n"},
	{[]string{"-n", "٨"}, "invalid -n"},
	{[]string{"-n", "10-5"}, "the range is empty"},
	{[]string{"-n", "8", "-gpu-variant", "fast"}, "want static, dynamic or smem"},
	{[]string{"-n", "5-"}, "no upper end"},
	{[]string{"-n", "-"}, "invalid -n"},
	{[]string{"-n", "4--8"}, "invalid -n"},
	{[]string{"-n", "4-8-12"}, "invalid -n"},
	{[]string{"-n", "4-29"}, "out of range"},
	{[]string{"-n", "0-4"}, "out of range"},
	{[]string{"-n", "4..8"}, "invalid -n"},
	{[]string{"-n", "4,8"}, "invalid -n"},
	{[]string{"-n", "8", "-algo", "fast"}, "unknown algorithm"},
	{[]string{"-n", "8", "-algo", ""}, "unknown algorithm"},
	{[]string{"-n", "8", "-algo", "Symmetry"}, "unknown algorithm"},
	{[]string{"-n", "8", "-device", "gpu"}, "invalid -device"},
	{[]string{"-n", "8", "-device", "-1"}, "invalid -device"},
	{[]string{"-n", "8", "-device", ""}, "invalid -device"},
	{[]string{"-n", "8", "-device", "0,0"}, "0 is listed twice"},
	{[]string{"-n", "8", "-device", "all,1"}, "all already takes every GPU"},
	{[]string{"-n", "8", "-device", "0,"}, `"" is not cpu`},
	{[]string{"-n", "8", "-device", "0,gpu"}, `"gpu" is not cpu`},
	{[]string{"-n", "8", "-device", "cpu,cpu"}, "cpu is listed twice"},
	{[]string{"-n", "8", "-device", "0, 1"}, `" 1" is not cpu`},
	{[]string{"-n", "4-8", "-checkpoint", "c"}, "-checkpoint needs a single N"},
	{[]string{"-n", "8", "-checkpoint", ""}, "-checkpoint is empty"},
	{[]string{"-n", "8", "-checkpoint-interval", "1m"}, "only applies with -checkpoint"},
	{[]string{"-n", "8", "-checkpoint", "c", "-checkpoint-interval", "0s"}, "invalid -checkpoint-interval"},
	{[]string{"-n", "8", "-checkpoint", "c", "-checkpoint-interval", "5"}, "-checkpoint-interval"},
	{[]string{"-n", "8", "-checkpoint", "c", "-checkpoint-interval", "1ms"}, "invalid -checkpoint-interval 1ms: want 1s or more"},
	{[]string{"-n", "8", "-checkpoint", "c", "-checkpoint-interval", "999ms"}, "invalid -checkpoint-interval 999ms"},
	{[]string{"-n", "8", "-progress-interval", "-1s"}, "invalid -progress-interval"},
	{[]string{"-n", "8", "-progress-interval", "1ns"}, "invalid -progress-interval 1ns: want 1s or more"},
	{[]string{"-n", "8", "-progress-interval", "999ms", "-quiet"}, "invalid -progress-interval 999ms"},
	{[]string{"-n", "8", "-progress-interval", "0"}, "invalid -progress-interval 0s"},
	{[]string{"-n", "8", "-shard", "4/4"}, "shards are numbered 0 to 3"},
	{[]string{"-n", "8", "-shard", "1"}, "want i/m"},
	{[]string{"-n", "8", "-shard", "0/0"}, "between 1 and"},
	{[]string{"-n", "8", "-shard", ""}, "invalid -shard"},
	{[]string{"-n", "4-8", "-shard", "0/2"}, "-shard needs a single N"},
	{[]string{"-n", "8", "-shard", "0/2", "-print"}, "-shard and -print cannot be combined"},
	{[]string{"-n", "8", "-device", "99999999999999999999999"}, "invalid -device"},
	{[]string{"-n", "8", "-workers", "-1"}, "invalid -workers"},
	{[]string{"-n", "8", "-workers", "many"}, "-workers"},
	{[]string{"-n", "8", "-workers", "100000000"}, "invalid -workers"},
	{[]string{"-n", "8", "-max-boards", "5"}, "only applies to -print"},
	{[]string{"-n", "8", "-print", "-max-boards", "-1"}, "invalid -max-boards"},
	{[]string{"-n", "8", "-depth", "8"}, "invalid -depth 8"},
	{[]string{"-n", "8", "-depth", "1"}, "invalid -depth 1"},
	{[]string{"-n", "3-9", "-depth", "4"}, "2 to N-1 = 3 for N=4"},
	{[]string{"-n", "8", "-depth", "x"}, "invalid value"},
	{[]string{"-n", "8", "-gpu-threads", "100"}, "multiple of 32"},
	{[]string{"-n", "8", "-gpu-threads", "2048"}, "multiple of 32"},
	{[]string{"-n", "8", "-gpu-launch", "0.5ms"}, "1ms to 10s"},
	{[]string{"-n", "8", "-gpu-launch", "fast"}, "invalid value"},
	{[]string{"-n", "8", "-gpu-threads", "0"}, "invalid -gpu-threads 0: give a multiple of 32 from 32 to 1024, or leave the flag out"},
	{[]string{"-n", "8", "-gpu-launch", "0"}, "invalid -gpu-launch 0s: give a time from 1ms to 10s, or leave the flag out"},
	{[]string{"-n", "8", "-gpu-max-tasks", "0"}, "invalid -gpu-max-tasks 0: give a positive number of tasks"},
	{[]string{"-n", "8", "-gpu-max-tasks", "-5"}, "invalid -gpu-max-tasks -5"},
	{[]string{"-n", "8", "-gpu-launch", "0s", "-gpu-threads", "64"}, "invalid -gpu-launch 0s"},
	{[]string{"-n", "2-3", "-depth", "9"}, "invalid -depth 9: boards up to N=3 are searched whole, so no depth applies to N=2-3"},
	{[]string{"-n", "1", "-depth", "2"}, "no depth applies to N=1"},
	{[]string{"-n", "8", "-algo", strings.Repeat("x", 100000)}, `unknown algorithm "xxxxxxxx`},
	{[]string{"-n", strings.Repeat("9", 100000)}, `... (100000 bytes)`},
	{[]string{"-n", "8", strings.Repeat("y", 100000)}, `unexpected argument "yyy`},
	{[]string{"-n", "8", "-device", strings.Repeat("0,", 50000)}, `invalid -device "0,0,0,`},
	{[]string{"-n", "8", "-shard", strings.Repeat("1", 100000) + "/2"}, `invalid -shard "111`},
	{[]string{"-n", "8", "-depth", strings.Repeat("x", 100000)}, `invalid value "xxx`},
	{[]string{"-n", "8", "-" + strings.Repeat("z", 100000)}, "flag provided but not defined"},
	{[]string{"-n", "8", "-unique"}, "only applies to -print"},
	{[]string{"-n", "8", "-print", "-json"}, "cannot be combined"},
	{[]string{"-n", "13", "-print"}, "limited to N <= 12"},
	{[]string{"-n", "4-20", "-print"}, "limited to N <= 12"},
	{[]string{"-n", "8", "-v=maybe"}, "invalid boolean value"},
	{[]string{"-n", "8", "-x"}, "flag provided but not defined: -x"},
	{[]string{"-n", "8", "-verbose"}, "flag provided but not defined"},
	{[]string{"-n", "8", "---v"}, "bad flag syntax"},
	{[]string{"-n", "8", "-"}, "unexpected argument"},
	{[]string{"-n", "8", "extra"}, `unexpected argument "extra"`},
	{[]string{"8"}, "as in -n 8"},
	{[]string{"-n", "8", "--", "-v"}, `unexpected argument "-v"`},
	{[]string{"-n", "8\n9"}, "invalid -n"},
	{[]string{"-n", "8", "-bad\nflag"}, "flag provided but not defined"},
}

func TestParseArgsBad(t *testing.T) {
	for _, tt := range badArgs {
		t.Run(clip.String(strings.Join(tt.args, " "), 60), func(t *testing.T) {
			_, err := parseArgs(tt.args)
			if err == nil {
				t.Fatal("parseArgs succeeded, want an error")
			}
			var ue *app.UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("error %v is a %T, want a *app.UsageError", err, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not mention %q", err, tt.msg)
			}
		})
	}
}

// TestRunBadArgs checks the whole program on bad command lines: exit status
// 2, nothing on stdout, one line on stderr, and no solver call.
func TestRunBadArgs(t *testing.T) {
	for _, tt := range badArgs {
		t.Run(clip.String(strings.Join(tt.args, " "), 60), func(t *testing.T) {
			env := noCUDA()
			r := runFake(env, tt.args...)
			wantOneErrorLine(t, r, exitUsage)
			if !strings.Contains(r.stderr, "-h") {
				t.Errorf("stderr %q does not point to -h", r.stderr)
			}
			if len(r.stderr) > 1000+1 { // app.PrintError cuts a line at 1000 bytes
				t.Errorf("an error line of %d bytes, want at most %d", len(r.stderr), 1000+1)
			}
			if len(env.cpuCalls) != 0 {
				t.Errorf("the solver ran %d times", len(env.cpuCalls))
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"-help"}, {"--help"}, {"-n", "8", "-h"}, {"-h", "-n", "bad"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			_, err := parseArgs(args)
			if !errors.Is(err, flag.ErrHelp) {
				t.Errorf("parseArgs: %v, want flag.ErrHelp", err)
			}
			r := runFake(noCUDA(), args...)
			if r.code != exitOK || r.stderr != "" {
				t.Errorf("exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
			}
			if !strings.HasPrefix(r.stdout, "nqueens-gpu counts") {
				t.Errorf("stdout does not start with the help text: %.80q", r.stdout)
			}
		})
	}
}

// TestHelpDocumentsEveryFlag makes sure the hand-written help text keeps up
// with the flags.
func TestHelpDocumentsEveryFlag(t *testing.T) {
	var s string
	sets := map[string]*flag.FlagSet{
		"count":   countFlagSet(&config{}, &countFlags{}, &s),
		"bench":   benchFlagSet(&benchConfig{}, &s),
		"check":   checkFlagSet(&checkConfig{}),
		"devices": devicesFlagSet(new(app.DevicesOptions)),
	}
	for name, fs := range sets {
		text := helpText(name)
		fs.VisitAll(func(f *flag.Flag) {
			// On a line that documents flags: "  -name ..." or a list
			// of them, "  -a A, -name B, ...".
			if !regexp.MustCompile(`\n  (-[^\n]*, )?-` + f.Name + `[ \n,]`).MatchString(text) {
				t.Errorf("the help text of %s does not document -%s", name, f.Name)
			}
		})
		if regexp.MustCompile(`\{[A-Z]+\}`).MatchString(text) {
			t.Errorf("the help text of %s has an unfilled field", name)
		}
	}
	help := helpText("count")
	for _, s := range []string{
		"nqueens-gpu -n 20 -device 0", "nqueens-gpu -n 4-16 -v",
		"nqueens-gpu -n 8 -print -unique", "nqueens-gpu -n 1-12 -json",
		"row 0 at the top and column 0 at the left", "hh:mm:ss.mmm",
		"backtrack, bitmap, mirror, symmetry, carrychain", "(default 100)",
		"between 1 and 28", "(only for N <= 12)", "eightfold on the CPU",
		"nqueens-gpu merge [-json] [-v] FILE...", "143 by SIGTERM", "(default 1m0s)", "(default 30s)",
		"resume", "all,cpu",
	} {
		if !strings.Contains(help, s) {
			t.Errorf("the help text lacks %q", s)
		}
	}
	if regexp.MustCompile(`\{[A-Z]+\}|%`).MatchString(help) {
		t.Errorf("the help text has a formatting error:\n%s", help)
	}
}
