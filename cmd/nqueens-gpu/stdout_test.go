package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// programClosedStdout runs the program with args and its standard output
// closed, as "nqueens-gpu ... >&-" in a shell does.
func programClosedStdout(args ...string) *exec.Cmd {
	cmd := exec.Command("sh", append([]string{"-c", `exec "$0" "$@" >&-`, os.Args[0]}, args...)...)
	cmd.Env = append(os.Environ(), beMain+"=1")
	return cmd
}

// Output that cannot be written (a full disk, a closed standard output)
// is exit status 1 with one line that says so, for every command and its
// help, never a silent success.
func TestStdoutFails(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh here")
	}
	dir := t.TempDir()
	shard := filepath.Join(dir, "shard.json")
	if r := runReal("-n", "8", "-json", "-shard", "0/1"); r.code != 0 {
		t.Fatalf("shard run: exit %d, stderr %q", r.code, r.stderr)
	} else {
		os.WriteFile(shard, []byte(r.stdout), 0o644)
	}
	commands := [][]string{
		{"-h"}, {"bench", "-h"}, {"check", "-h"}, {"merge", "-h"}, {"devices", "-h"},
		{"-n", "5"}, {"-n", "5", "-json"}, {"-n", "4", "-print"},
		{"check", "-n", "4-5"}, {"check", "-n", "4-5", "-json"},
		{"bench", "-n", "4", "-runs", "1", "-warmup", "0"}, {"bench", "-n", "4", "-runs", "1", "-warmup", "0", "-json"},
		{"merge", shard}, {"devices", "-json"}, {"version"}, {"-version"},
	}
	for _, args := range commands {
		for _, how := range []string{"/dev/full", "closed"} {
			t.Run(how+" "+strings.Join(args, " "), func(t *testing.T) {
				var cmd *exec.Cmd
				want := "standard output is closed; the results would be lost"
				if how == "closed" {
					cmd = programClosedStdout(args...)
				} else {
					full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					defer full.Close()
					cmd = program(args...)
					cmd.Stdout = full
					want = "writing output: write /dev/stdout: no space left on device"
				}
				var errOut bytes.Buffer
				cmd.Stderr = &errOut
				cmd.Run()
				code := cmd.ProcessState.ExitCode()
				lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
				// devices without a GPU may add its fallback line first;
				// the last line is the verdict.
				last := lines[len(lines)-1]
				if code != exitRuntime || last != progName+": "+want && !strings.HasPrefix(last, progName+": "+want) {
					t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut.String(), want)
				}
				if len(lines) > 1 && args[0] != "devices" {
					t.Errorf("stderr %q, want one line", errOut.String())
				}
			})
		}
	}
}

// A command that writes as it goes stops its work at the first failed
// write: no bench or check count after a header that could not be
// written, no further N of a count.
func TestWriteErrorStopsWork(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(f *solverFake, stderr *bytes.Buffer) int
	}{
		{"bench", func(f *solverFake, stderr *bytes.Buffer) int {
			return runBenchWith(context.Background(), []string{"-n", "8-9", "-runs", "1"}, failWriter{}, stderr, f.hooks())
		}},
		{"check", func(f *solverFake, stderr *bytes.Buffer) int {
			return runCheckWith(context.Background(), []string{"-n", "8-9"}, failWriter{}, stderr, f.hooks())
		}},
	} {
		f := &solverFake{}
		var errOut bytes.Buffer
		code := tc.run(f, &errOut)
		if code != exitRuntime || errOut.String() != "nqueens-gpu: writing output: disk full\n" || len(f.calls) != 0 {
			t.Errorf("%s: exit %d, stderr %q, counts %v", tc.name, code, errOut.String(), f.calls)
		}
	}
	env := noCUDA()
	var errOut bytes.Buffer
	code := runWith(context.Background(), []string{"-n", "5-9", "-json"}, failWriter{}, &errOut, env.hooks())
	if code != exitRuntime || errOut.String() != "nqueens-gpu: writing output: disk full\n" || len(env.cpuCalls) != 1 {
		t.Errorf("count: exit %d, stderr %q, %d counts (want 1: the first N, whose row failed)", code, errOut.String(), len(env.cpuCalls))
	}
}
