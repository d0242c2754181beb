package shard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/fsutil/fsutiltest"
	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
)

// shardLines returns the records of the m shards of a fake job of N=n
// (symmetry, nb batches) as shard runs write them, one JSON line each.
// Their sums split the published classes of n among the shards, so that
// they merge to the published counts.
func shardLines(t *testing.T, n, m, nb int) []string {
	t.Helper()
	p, _ := fakePlan(nb)(plan.Normalize(nq.Spec{N: n, Algo: nq.Symmetry}))
	cl := known.ClassTable[n]
	var lines []string
	for i := 0; i < m; i++ {
		sh := plan.Shard{Index: i, Count: m}
		// Shard i gets a share of each class; the last one the rest.
		share := func(c uint64) uint64 {
			if i == m-1 {
				return c - uint64(m-1)*(c/uint64(m))
			}
			return c / uint64(m)
		}
		r := NewResult(p, sh, sh.Batches(nb), nq.Partial{0, share(cl.C2), share(cl.C4), share(cl.C8)})
		r.Version, r.Backend, r.Device, r.Seconds = "test", "cpu", "cpu", 0.25
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(data))
	}
	return lines
}

// reseal gives a record a correct checksum again after an edit, as a
// program with a bug, or a deliberate edit, could: only the plan, the
// overflow checks and the published counts can catch what it says then.
func reseal(t *testing.T, line string) string {
	t.Helper()
	var r Result
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(r)
	return string(data)
}

// edit changes one field of a record line through a generic map, so that
// the test edits the JSON text as a user could.
func edit(t *testing.T, line, field string, value any) string {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	if value == nil {
		delete(m, field)
	} else {
		m[field] = value
	}
	data, _ := json.Marshal(m)
	return string(data)
}

func sourcesOf(t *testing.T, lines []string) []Source {
	t.Helper()
	srcs, err := ReadResults(strings.NewReader(strings.Join(lines, "\n")+"\n"), "shards.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return srcs
}

// Merge trusts nothing it reads: edited, damaged, out-of-range and
// inconsistent records are refused with one line that names them.
func TestMergeShards(t *testing.T) {
	const nb = 10
	good := shardLines(t, 11, 4, nb)
	srcs := sourcesOf(t, good)
	m, err := Merge(srcs, fakePlan(nb))
	want, _ := known.Lookup(11)
	if err != nil || m.Counts.Total() != want.Total || m.Counts.Unique() != want.Unique || m.N != 11 || m.Shards != 4 || m.Seconds != 1 {
		t.Fatalf("merge of good shards: %+v, %v", m, err)
	}
	// change returns the lines with line i replaced by f(line i).
	change := func(i int, f func(string) string) []string {
		c := append([]string(nil), good...)
		c[i] = f(c[i])
		return c
	}
	all := func(f func(string) string) []string {
		c := make([]string, len(good))
		for i := range good {
			c[i] = f(good[i])
		}
		return c
	}
	sumsOf := func(line string) Sums {
		var r Result
		json.Unmarshal([]byte(line), &r)
		return r.Sums
	}
	huge := strings.Repeat("k", 10000)
	var r0 Result
	json.Unmarshal([]byte(good[0]), &r0)
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"sums edited", change(1, func(l string) string {
			s := sumsOf(l)
			s.Orbit8++
			return edit(t, l, "sums", s)
		}), "shards.jsonl:2 does not match its checksum, so it was changed after the shard run wrote it"},
		{"sums edited and resealed", change(1, func(l string) string {
			s := sumsOf(l)
			s.Orbit8 += 8
			return reseal(t, edit(t, l, "sums", s))
		}), "merged counts disagree with the published value: N=11 merged to total 2744, unique 349; published: total 2680, unique 341 (a shard result is wrong)"},
		{"sums that wrap around 2^64", change(2, func(l string) string {
			s := sumsOf(l)
			s.Orbit8 = math.MaxUint64 - 5
			return reseal(t, edit(t, l, "sums", s))
		}), "shards.jsonl:3: its sums overflow 64 bits when added to those before it"},
		{"N=99", change(0, func(l string) string { return reseal(t, edit(t, l, "n", 99)) }),
			"shards.jsonl:1 claims N=99: N=99 is out of range: N must be between 1 and 28"},
		{"N that does not match the fingerprint", all(func(l string) string { return reseal(t, edit(t, l, "n", 10)) }),
			"shards.jsonl:1: its fingerprint is not that of its own job (N=10 -algo symmetry, depth 3, batches of 256): fingerprints "},
		{"unknown algorithm", change(3, func(l string) string { return reseal(t, edit(t, l, "algo", "quantum")) }),
			`shards.jsonl:4 claims an unknown algorithm "quantum"`},
		{"another depth", all(func(l string) string { return reseal(t, edit(t, l, "depth", 4)) }),
			"shards.jsonl:1 states N=11 -algo symmetry, depth 4, batches of 256, but that job has depth 3 and batches of 256"},
		{"another job size", all(func(l string) string { return reseal(t, edit(t, edit(t, l, "job_batches", 4), "batches", 1)) }),
			fmt.Sprintf("shards.jsonl:1 states a job of 4 batches, but N=11 -algo symmetry, depth 3, batches of 256 has %d", nb)},
		{"no checksum", change(0, func(l string) string { return edit(t, l, "sha256", nil) }),
			"shards.jsonl:1 has no checksum: it was written by a version of nqueens-gpu before shard results had one; count the shard again"},
		{"no batch size", all(func(l string) string { return reseal(t, edit(t, l, "batch", 0)) }),
			"shards.jsonl:1 has no batch size: it was written by a version of nqueens-gpu before shard results recorded their job"},
		{"fingerprint edited in one", change(2, func(l string) string {
			var r Result
			json.Unmarshal([]byte(l), &r)
			fp := []byte(r.Fingerprint)
			fp[40] = "01"[fp[40]&1] // the same first 12 digits
			return reseal(t, edit(t, l, "fingerprint", string(fp)))
		}), "shards.jsonl:3 and shards.jsonl:1 are shards of different jobs (fingerprints …"},
		{"missing", good[:3], "shard 3/4 is missing: the files hold 3 of the job's 4 shards"},
		{"two missing", []string{good[1], good[3]}, "shards 0/4, 2/4 are missing: the files hold 2 of the job's 4 shards"},
		{"duplicated", append(append([]string(nil), good...), good[1]), "shard 1/4 is there twice: shards.jsonl:2 and shards.jsonl:5"},
		{"incomplete", change(0, func(l string) string { return reseal(t, edit(t, l, "batches", r0.Batches-1)) }),
			fmt.Sprintf("shards.jsonl:1: shard 0/4 counted %d of its %d batches", r0.Batches-1, r0.Batches)},
		{"a count, not a shard", change(0, func(string) string {
			return `{"n":11,"total":2680,"unique":341,"count1":0,"count2":0,"count4":12,"count8":329,"seconds":1,"backend":"cpu","algo":"symmetry","device":"cpu"}`
		}), ""}, // refused by the reader: unknown fields
		{"a 10 KB kind", change(0, func(l string) string { return edit(t, l, "kind", huge) }),
			`shards.jsonl:1 is not a shard result (kind "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"... (10000 bytes); shard runs need -json)`},
		{"a 100 KB line", change(0, func(l string) string { return edit(t, l, "kind", huge+huge+huge+huge+huge+huge+huge+huge+huge+huge) }),
			""}, // refused by the reader: too long
		{"negative seconds", change(0, func(l string) string { return reseal(t, edit(t, l, "seconds", -1)) }), "shards.jsonl:1 claims -1 seconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srcs, rerr := ReadResults(strings.NewReader(strings.Join(tt.lines, "\n")), "shards.jsonl")
			if tt.want == "" {
				if rerr == nil || !(strings.Contains(rerr.Error(), "shards.jsonl:1 is not a shard result (json: unknown field") ||
					strings.Contains(rerr.Error(), "shards.jsonl:1 is longer than 16.0 KiB")) || len(rerr.Error()) > 200 {
					t.Errorf("reader: %.300v", rerr)
				}
				return
			}
			if rerr != nil {
				t.Fatal(rerr)
			}
			_, err := Merge(srcs, fakePlan(nb))
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") || len(err.Error()) > 400 {
				t.Errorf("error %.500v\nwant %q", err, tt.want)
			}
		})
	}
	// The published table is a cross-check: its error wraps ErrPublished.
	srcs = sourcesOf(t, change(1, func(l string) string {
		s := sumsOf(l)
		s.Orbit8 += 8
		return reseal(t, edit(t, l, "sums", s))
	}))
	if _, err := Merge(srcs, fakePlan(nb)); !errors.Is(err, ErrPublished) {
		t.Errorf("not ErrPublished: %v", err)
	}
}

// Merge inputs that are not regular files, or too long, are refused at
// once and left as they are.
func TestReadShardFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	lines := shardLines(t, 8, 2, 5)
	os.WriteFile(good, []byte(lines[0]+"\n\n"+lines[1]+"\n"), 0o644)
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o644)
	big := filepath.Join(dir, "big")
	f, _ := os.Create(big)
	f.Truncate(MaxFileBytes + 1)
	f.Close()
	long := filepath.Join(dir, "long")
	os.WriteFile(long, []byte(strings.Repeat(" ", MaxLine+10)+"\n"), 0o644)
	zero := filepath.Join(dir, "zero")
	os.Symlink("/dev/zero", zero)
	tests := []struct{ path, want string }{
		{fifo, fifo + " is a named pipe (FIFO), not a regular file"},
		{zero, zero + " is a character device, not a regular file"},
		{dir, dir + " is a directory, not a regular file"},
		{big, big + " is larger than 1.0 GiB, more than the results of 1048576 shards: not a file of shard results"},
		{long, long + ":1 is longer than 16.0 KiB: not a shard result"},
		{filepath.Join(dir, "none"), "no such file or directory"},
	}
	before := map[string]fsutiltest.File{}
	for _, p := range []string{fifo, big, long, zero, good} {
		before[p] = fsutiltest.StateOf(t, p)
	}
	for _, tt := range tests {
		start := time.Now()
		_, err := ReadFile(tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) || time.Since(start) > 5*time.Second {
			t.Errorf("%s: %v, want %q", tt.path, err, tt.want)
		}
	}
	srcs, err := ReadFile(good)
	if err != nil || len(srcs) != 2 || srcs[0].Name != good+":1" || srcs[1].Name != good+":3" {
		t.Fatalf("good file: %+v, %v", srcs, err)
	}
	if _, err := Merge(srcs, fakePlan(5)); err != nil {
		t.Error(err)
	}
	for p, b := range before {
		if a := fsutiltest.StateOf(t, p); a != b {
			t.Errorf("%s changed", p)
		}
	}
}

// A file of records pretty-printed over several lines (jq ., an editor's
// formatter) reads as the same records, each named by its first line; a
// file that ends inside a record says so.
func TestReadPrettyPrinted(t *testing.T) {
	const nb = 10
	good := shardLines(t, 11, 2, nb)
	var pretty []string
	for _, l := range good {
		var b bytes.Buffer
		if err := json.Indent(&b, []byte(l), "", "  "); err != nil {
			t.Fatal(err)
		}
		pretty = append(pretty, b.String())
	}
	text := pretty[0] + "\n\n" + pretty[1] + "\n"
	srcs, err := ReadResults(strings.NewReader(text), "pretty.json")
	if err != nil || len(srcs) != 2 || srcs[1].Name != fmt.Sprintf("pretty.json:%d", strings.Count(pretty[0], "\n")+3) {
		t.Fatalf("%v, %+v", err, srcs)
	}
	m, err := Merge(srcs, fakePlan(nb))
	if want, _ := known.Lookup(11); err != nil || m.Counts.Total() != want.Total {
		t.Errorf("merge of pretty-printed shards: %+v, %v", m, err)
	}
	cut := text[:len(text)-20]
	if _, err := ReadResults(strings.NewReader(cut), "cut.json"); err == nil ||
		err.Error() != fmt.Sprintf("cut.json:%d is not a whole shard result: the file ends inside it", strings.Count(pretty[0], "\n")+3) {
		t.Errorf("a file cut inside a record: %v", err)
	}
	if _, err := ReadResults(strings.NewReader(pretty[0][:30]+"\n"+good[1]+"\n"), "bad.json"); err == nil ||
		err.Error() != `bad.json:1 is not a shard result (invalid character '\n' in string literal)` {
		t.Errorf("a record cut short before another: %v", err)
	}
}

// FuzzReadShardResults feeds the shard record reader and merge with any
// bytes: no panic, every error is one short line, and a record that
// passes its checks reads back the same after it is written again.
func FuzzReadShardResults(f *testing.F) {
	r := Result{Kind: Kind, N: 12, Algo: nq.Symmetry, Depth: 5, Batch: 256, Shard: 1, Shards: 2, Batches: 1, JobBatches: 2,
		Fingerprint: strings.Repeat("ab", 32), Sums: Sums{Orbit8: 42}, Version: "v", Backend: "cpu", Device: "cpu", Seconds: 1.5}
	rec, _ := json.Marshal(r)
	f.Add(string(rec))
	f.Add(string(rec) + "\n" + string(rec))
	f.Add(string(rec[:len(rec)/2]))
	f.Add(`{"kind":"nqueens-gpu shard","n":99}`)
	f.Add(`{"kind":"nqueens-gpu shard","sums":{"orbit8":18446744073709551615}}`)
	f.Add("\n\n   \n")
	f.Add(`{"n":1}{"n":2}`)
	f.Add(`{"n":1,"n":2,"kind":""}`)
	f.Add(strings.Repeat("[", 5000))
	f.Fuzz(func(t *testing.T, data string) {
		srcs, err := ReadResults(strings.NewReader(data), "f")
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || len(msg) > 400 {
				t.Fatalf("error message of %d bytes: %.200q", len(msg), msg)
			}
			return
		}
		for _, s := range srcs {
			if err := s.Result.Check(); err != nil {
				if msg := err.Error(); strings.Contains(msg, "\n") || len(msg) > 400 {
					t.Fatalf("check message of %d bytes: %.200q", len(msg), msg)
				}
				continue
			}
			again, err := json.Marshal(s.Result)
			if err != nil {
				t.Fatal(err)
			}
			back, err := ReadResults(strings.NewReader(string(again)), "g")
			if err != nil || len(back) != 1 || back[0].Result != s.Result {
				t.Fatalf("round trip: %+v, %v", back, err)
			}
		}
		if _, err := Merge(srcs, func(s nq.Spec) (plan.Plan, error) { return plan.Plan{}, fmt.Errorf("no plan") }); err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || len(msg) > 600 {
				t.Fatalf("merge message of %d bytes: %.200q", len(msg), msg)
			}
		}
	})
}

// fakePlan is the plan of a job of nb batches of fake tasks at the
// default depth of its N, whatever depth a record states.
func fakePlan(nb int) func(nq.Spec) (plan.Plan, error) {
	return func(s nq.Spec) (plan.Plan, error) {
		depth := plan.Normalize(nq.Spec{N: s.N, Algo: s.Algo}).Depth
		return plan.Plan{N: s.N, Algo: s.Algo, Tasks: "fake", Depth: depth, Batch: s.Batch, Batches: nb,
			TaskCount: int64(nb)*int64(s.Batch) - 3, TaskSHA256: "fake"}, nil
	}
}
