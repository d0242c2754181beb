package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestShardCount(t *testing.T) {
	tests := []struct {
		algo       string
		n, workers int
		seconds    float64
		want       int
	}{
		// 16 cores, 40 s: 17 * 7^(N-17) / 480 shards, rounded up.
		{"symmetry", 21, 16, 40, 86},
		{"carrychain", 21, 16, 40, 341},
		{"eightfold", 22, 16, 40, 596},
		{"carrychain", 22, 16, 40, 2381},
		{"symmetry", 23, 16, 40, 4167},
		{"carrychain", 23, 16, 40, 16667},
		{"symmetry", 18, 16, 40, 4}, // at least 4
		{"eightfold", 12, 2, 40, 4},
		{"symmetry", 20, 2, 40, 98},
	}
	for _, tt := range tests {
		if got := shardCount(tt.algo, tt.n, tt.workers, tt.seconds); got != tt.want {
			t.Errorf("shardCount(%s, %d, %d, %g) = %d, want %d", tt.algo, tt.n, tt.workers, tt.seconds, got, tt.want)
		}
	}
}

func TestSharedBytes(t *testing.T) {
	tests := []struct {
		s    shape
		want int
	}{
		{shape{"eightfold", 20, 3, 256}, 49152}, // 12 frames
		{shape{"eightfold-static", 20, 4, 256}, 45056},
		{shape{"eightfold", 21, 3, 256}, 53248},
		{shape{"eightfold", 8, 4, 128}, 2048}, // one frame at least
		{shape{"smem", 21, 6, 256}, 35840},    // 35 words
		{shape{"smem", 20, 8, 128}, 15872},
		{shape{"static", 20, 6, 256}, 0},
		{shape{"dynamic", 21, 6, 256}, 0},
	}
	for _, tt := range tests {
		if got := tt.s.sharedBytes(); got != tt.want {
			t.Errorf("%s: %d bytes, want %d", tt.s.name(), got, tt.want)
		}
	}
}

func TestTunePlan(t *testing.T) {
	plan := tunePlan(20, 48<<10)
	if len(plan) != 45 {
		t.Errorf("%d shapes at N=20, want 45", len(plan))
	}
	for _, want := range []string{
		"run tune-eightfold-n20-d3-t64 -n 20 -algo eightfold -depth 3 -gpu-threads 64",
		"run tune-eightfold-n20-d3-t256 -n 20 -algo eightfold -depth 3 -gpu-threads 256",
		"run tune-eightfold-static-n20-d3-t256 -n 20 -algo eightfold -depth 3 -gpu-threads 256 -gpu-variant static",
		"run tune-static-n20-d8-t64 -n 20 -algo symmetry -depth 8 -gpu-threads 64",
		"run tune-dynamic-n21-d6-t128 -n 21 -algo symmetry -depth 6 -gpu-threads 128 -gpu-dynamic",
		"run tune-smem-n21-d8-t256 -n 21 -algo symmetry -depth 8 -gpu-threads 256 -gpu-smem",
	} {
		if !slices.Contains(plan, want) {
			t.Errorf("N=20: no %q", want)
		}
	}
	for _, l := range plan {
		if !strings.HasPrefix(l, "run ") {
			t.Errorf("N=20 at 48 KiB: %q", l)
		}
	}
	// At N=21 the 256-thread eightfold blocks of split 3 need 52 KiB.
	skips := 0
	for _, l := range tunePlan(21, 48<<10) {
		if strings.HasPrefix(l, "skip ") {
			skips++
			if !strings.HasPrefix(l, "skip tune-eightfold") || !strings.Contains(l, "-d3-t256 its stacks need 53248 B of shared memory per block, over MAX_SHARED=49152") {
				t.Errorf("N=21: %q", l)
			}
		}
	}
	if skips != 2 {
		t.Errorf("N=21: %d shapes skipped, want 2", skips)
	}
}

func TestRows(t *testing.T) {
	counted := run{out: `{"n":20,"total":39029188884,"seconds":2.5,"backend":"gpu"}` + "\n", err: "nodes: 900 (1e+09 nodes/s)\nnodes: 1000000 (2e+09 nodes/s)\n"}
	plain := run{out: `{"n":20,"total":39029188884,"seconds":0.125,"backend":"gpu"}` + "\n"}
	tests := []struct{ got, want string }{
		{nodesRow(20, "static", counted, plain), "20\tstatic\t1000000\t0.125\t8e+06\t2.5"},
		{nodesRow(21, "smem", counted, run{}), "21\tsmem\t1000000\tNA\tNA\t2.5"},
		{nodesRow(22, "smem", run{}, run{}), "22\tsmem\tNA\tNA\tNA\tNA"},
		{timingRow("eightfold", 20, "3", plain), "eightfold\t20\t0.125\t3"},
		{timingRow("smem", 21, "0", run{}), "smem\t21\tNA\t0"},
		{field(`{"kind":"x","algo":"symmetry"}`, "algo"), "symmetry"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestSeedsRows(t *testing.T) {
	out := "  BOUND1(3/17)\r 17:    95815104    11977939  0:00:00:01.50\n" +
		"\r  BOUND2(8/9)\r 18:   666090624    83263591  0:00:00:09.25\r\n" +
		" 19:  4968057849   621012754  0:00:01:02.01\n" +
		"There is no device.\n"
	want := []string{"seeds\t18\tNA\t9.250\t666090624\t1", "seeds\t19\tNA\t62.010\t4968057849\t0"}
	if got := seedsRows(out, 18); !slices.Equal(got, want) {
		t.Errorf("seedsRows = %q, want %q", got, want)
	}
}

// TestCommand runs subcommands as the scripts do: the exit status and
// what they print.
func TestCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, strings.TrimSuffix(strings.TrimSuffix(name, ".out"), ".err"))
	}
	eight := countLine(t, 8, published(8), "gpu")
	good := write("count-eightfold-1-8.out", eight)
	write("count-eightfold-1-8.err", "nodes: 5 (1 nodes/s)\n")
	cpu := write("preflight.out", countLine(t, 1, published(1), "cpu"))
	write("preflight.err", fallbackNotice)
	smi := write("smi.txt", "470.1\n")
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"count", "-n", "8", "-nodes", good}, 0, ""},
		{[]string{"count", "-n", "1-8", good}, 1, "wrong counts: N=1: no result"},
		{[]string{"count", "-rc", "124", "-ended", "timed out after 5 s (STEP_TIMEOUT)", good}, 1, "timed out after 5 s (STEP_TIMEOUT): nodes: 5 (1 nodes/s)\n"},
		{[]string{"preflight", cpu}, 3, "the NVIDIA driver sees no GPU\n"},
		{[]string{"count", "-n", "1", cpu}, 1, "ran on the CPU: the NVIDIA driver sees no GPU\n"},
		{[]string{"driver", "-devices", filepath.Join(dir, "none"), smi}, 1, "driver-470.1\tdriver 470.1 (from nvidia-smi) is older than R520, which the PTX (ISA 7.8) needs\n"},
		{[]string{"shards", "-algo", "carrychain", "-n", "21", "-workers", "16", "-seconds", "40"}, 0, "341\n"},
		{[]string{"timing-row", "-header"}, 0, timingHeader + "\n"},
		{[]string{"timing-row", "eightfold", "8", "1", good}, 0, "eightfold\t8\t0.5\t1\n"},
		{[]string{"nodes-row", "8", "static", good, good}, 0, "8\tstatic\t5\t0.5\t10\t0.5\n"},
		{[]string{"nodes-row", "static", "8", good, good}, 2, ""},
		{[]string{"count", "-n", "8-1", good}, 2, ""},
		{[]string{"count"}, 2, ""},
		{[]string{"timing-row", "eightfold", "x", "1", good}, 2, ""},
		{[]string{"nosuch"}, 2, ""},
		{nil, 2, ""},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := gpuchecks(tt.args, &stdout, &stderr)
		if code != tt.code || !strings.HasPrefix(stdout.String(), tt.out) || tt.out == "" && stdout.Len() > 0 {
			t.Errorf("gpuchecks %q: exit %d, %q (stderr %q); want exit %d, %q", tt.args, code, stdout.String(), stderr.String(), tt.code, tt.out)
		}
	}
}
