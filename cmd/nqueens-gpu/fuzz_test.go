package main

import (
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/gpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/app"
	"github.com/nqueens-gpu/nqueens-gpu/internal/device"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// splitArgs turns a fuzz string into arguments: it splits at single spaces,
// so that two spaces in a row make an empty argument.
func splitArgs(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, " ")
}

// FuzzParseArgs checks that no command line makes parseArgs panic, that
// every error is a usage error of one line (or the request for help), and
// that every accepted command line yields a consistent config.
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{
		"", "-n 8", "-n 20 -device 0", "-n 4-16 -v", "-n 8 -print -unique", "-n 1-12 -json",
		"-n 1-28", "-n 28", "-n 1", "-n=12", "--n 5", "-n 08-012", "-n 18 -algo carrychain -workers 8",
		"-n 8 -algo backtrack", "-n 8 -algo bitmap", "-n 8 -algo mirror", "-n 8 -algo symmetry",
		"-n 8 -device all", "-n 8 -device cpu", "-n 8 -device CPU", "-n 8 -device 15",
		"-n 8 -print -max-boards 0", "-n 1-12 -print -unique -max-boards 3 -v", "-n 8 -v=false -json=true",
		"-h", "-help", "--help", "-n 8 -h", "-n 8 --", "-n 8 -- -v",
		"-n", "-n ", "-n  -v", "-n 0", "-n 29", "-n -5", "-n 5-", "-n -", "-n 10-5", "-n 4--8",
		"-n 4-8-12", "-n abc", "-n 8.0", "-n +8", "-n 0x1c", "-n 1e1", "-n 99999999999999999999",
		"-n 4-99999999999999999999", "-n 8 -algo", "-n 8 -algo fast", "-n 8 -device gpu",
		"-n 8 -device -1", "-n 8 -device 99999999999999999999", "-n 8 -workers -3", "-n 8 -workers x",
		"-n 8 -workers 9999999999", "-n 8 -unique", "-n 8 -max-boards 4", "-n 13 -print", "-n 8 -print -json",
		"-n 8 -print -max-boards -1", "-x", "-n 8 ---v", "-n 8 -", "8", "-n 8 extra", "-v=maybe -n 8",
		"-n 8\n9", "-n\t8", "-n ٨", "-n 8 -device ０", "-=", "-n=", "--", "- -", "-n 1-2-", "-n -1-2",
		"-n 8 -device 0,2", "-n 8 -device all,cpu", "-n 8 -device 0,0", "-n 8 -device ,", "-n 8 -device all,3",
		"-n 20 -checkpoint c.JSON", "-n 4-8 -checkpoint c", "-n 9 -checkpoint c -checkpoint-interval 1s",
		"-n 9 -checkpoint-interval 0", "-n 9 -progress-interval 1h -quiet", "-n 9 -shard 1/4 -json",
		"-n 9 -shard 4/4", "-n 9 -shard /", "-n 9 -shard 0/1048577", "-n 4-9 -shard 0/2", "-n 9 -shard 0/2 -print",
		"-n 8 -gpu-threads 0", "-n 8 -gpu-launch 0s", "-n 8 -gpu-threads 64 -gpu-launch 20ms", "-n 2-3 -depth 2",
		"-n 3-5 -depth 3", "-n 9 -progress-interval 1ns", "-n 9 -progress-interval 1s",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := splitArgs(s)
		cfg, err := parseArgs(args)
		if err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return
			}
			var ue *app.UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("%q: error %v is a %T, not a usage error", args, err, err)
			}
			if msg := app.OneLine(err.Error()); strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("%q: message %q spans lines", args, msg)
			}
			return
		}
		if cfg.Lo < nq.MinN || cfg.Lo > cfg.Hi || cfg.Hi > nq.MaxN {
			t.Fatalf("%q: bad range %d-%d", args, cfg.Lo, cfg.Hi)
		}
		if cfg.Algo != "" {
			if _, err := nq.ParseAlgo(string(cfg.Algo)); err != nil {
				t.Fatalf("%q: bad algorithm %q", args, cfg.Algo)
			}
		}
		if cfg.Workers < 0 || cfg.Workers > maxWorkers || cfg.MaxBoards < 0 {
			t.Fatalf("%q: bad numbers in %+v", args, cfg)
		}
		for _, o := range cfg.Devices.Ordinals {
			if o < 0 {
				t.Fatalf("%q: negative ordinal", args)
			}
		}
		if cfg.Devices.All && len(cfg.Devices.Ordinals) > 0 || !cfg.Devices.CPU && !cfg.Devices.GPUs() {
			t.Fatalf("%q: inconsistent devices %+v", args, cfg.Devices)
		}
		if (cfg.Checkpoint != "" || cfg.Sharded) && cfg.Lo != cfg.Hi || cfg.CheckpointInterval <= 0 || cfg.ProgressInterval < minProgressInterval {
			t.Fatalf("%q: inconsistent long-run flags %+v", args, cfg)
		}
		if cfg.Sharded && (cfg.Shard.Index < 0 || cfg.Shard.Index >= cfg.Shard.Count) {
			t.Fatalf("%q: bad shard %+v", args, cfg.Shard)
		}
		if cfg.Print && (cfg.Hi > maxPrintN || cfg.JSON) || cfg.Unique && !cfg.Print {
			t.Fatalf("%q: inconsistent %+v", args, cfg)
		}
		if cfg.Depth != 0 && (cfg.Hi < 4 || cfg.Depth < 2 || cfg.Depth >= max(cfg.Lo, 4)) {
			t.Fatalf("%q: -depth %d accepted for N=%d-%d", args, cfg.Depth, cfg.Lo, cfg.Hi)
		}
		// Choosing the backend must not panic either (without a real GPU).
		env := &fakeEnv{devErr: gpu.ErrNoCUDA}
		var errOut strings.Builder
		if devs, err := device.Open(cfg.Devices, device.Options{Workers: cfg.Workers, Algo: cfg.Algo}, env.drivers(cfg.Tune)); err == nil {
			errOut.WriteString(devs.FallbackLine(""))
			devs.Close()
		}
	})
}
