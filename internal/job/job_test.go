package job

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/checkpoint"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/shard"
)

// fakePlan is the plan of a job of nb batches of fake tasks.
func fakePlan(nb int) func(nq.Spec) (plan.Plan, error) {
	return func(s nq.Spec) (plan.Plan, error) {
		return plan.Plan{N: s.N, Algo: s.Algo, Tasks: "fake", Depth: s.Depth, Batch: s.Batch, Batches: nb,
			TaskCount: int64(nb)*int64(s.Batch) - 3, TaskSHA256: "fake"}, nil
	}
}

// fakePartial is what fake batch i adds up to: distinct for every batch, so
// that a batch counted twice or not at all changes the sum.
func fakePartial(i int) nq.Partial {
	return nq.Partial{0, uint64(i % 7), uint64(i*i + 1), uint64(1) << (i % 40)}
}

func fakeSum(nb int, sh plan.Shard) nq.Partial {
	var p nq.Partial
	for i := 0; i < nb; i++ {
		if sh.Has(i) {
			p.Add(fakePartial(i))
		}
	}
	return p
}

// fakeWorker goes through nb batches like a backend, searching the ones
// sel grants; it reports per batch, or per group of launch batches like a
// GPU. It sleeps a little now and then so that workers interleave.
type fakeWorker struct {
	nb, launch int
	seed       int64
	failAt     int           // fail on claiming this many batches (-1: never)
	startDelay time.Duration // wait before the first batch
	mu         sync.Mutex
	got        []int
}

func (f *fakeWorker) run(ctx context.Context, sel func(int) bool, done func([]int, nq.Partial)) error {
	rng := rand.New(rand.NewSource(f.seed))
	var group []int
	var gp nq.Partial
	flush := func() {
		if len(group) > 0 {
			done(group, gp)
			f.mu.Lock()
			f.got = append(f.got, group...)
			f.mu.Unlock()
			group, gp = nil, nq.Partial{}
		}
	}
	launch := f.launch
	if launch < 1 {
		launch = 1
	}
	time.Sleep(f.startDelay)
	claims := 0
	for i := 0; i < f.nb; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !sel(i) {
			continue
		}
		if claims++; claims == f.failAt {
			return errors.New("device lost")
		}
		if rng.Intn(8) == 0 {
			time.Sleep(time.Duration(rng.Intn(200)) * time.Microsecond)
		}
		group = append(group, i)
		gp.Add(fakePartial(i))
		if len(group) == launch {
			flush()
		}
	}
	flush()
	return nil
}

func workersOf(fs ...*fakeWorker) []Backend {
	ws := make([]Backend, len(fs))
	for i, f := range fs {
		ws[i] = funcBackend{name: fmt.Sprintf("fake%d", i), run: f.run}
	}
	return ws
}

// Several workers sharing the queue count every batch exactly once and give
// the single worker's sum, whatever their mix of report sizes.
func TestSharedQueue(t *testing.T) {
	const nb = 3000
	want := fakeSum(nb, plan.Shard{})
	for _, launches := range [][]int{{1}, {1, 1}, {1, 64}, {64, 64, 1}, {1, 1, 1, 1, 17}} {
		var fs []*fakeWorker
		for i, l := range launches {
			fs = append(fs, &fakeWorker{nb: nb, launch: l, seed: int64(i), failAt: -1})
		}
		j, err := New(Config{Spec: norm(nq.Spec{N: 16, Algo: nq.Symmetry}), Backends: workersOf(fs...), Plan: fakePlan(nb), NeedPlan: true})
		if err != nil {
			t.Fatal(err)
		}
		res, err := j.Run(context.Background())
		if err != nil {
			t.Fatalf("%v: %v", launches, err)
		}
		if res.Partial != want || res.Batches != nb || !res.Complete {
			t.Errorf("%v: got %v in %d batches, want %v in %d", launches, res.Partial, res.Batches, want, nb)
		}
		seen := make(map[int]bool)
		for _, f := range fs {
			for _, i := range f.got {
				if seen[i] {
					t.Fatalf("%v: batch %d searched twice", launches, i)
				}
				seen[i] = true
			}
		}
		st := j.Status()
		total := 0
		for _, w := range st.Workers {
			total += w.Batches
		}
		if total != nb || st.DoneBatches != nb || st.TotalBatches != nb || st.DoneTasks != st.TotalTasks || st.TotalTasks != int64(nb)*256-3 {
			t.Errorf("%v: status %+v", launches, st)
		}
	}
}

// A worker that fails leaves its batches to the others.
func TestWorkerFailure(t *testing.T) {
	const nb = 500
	var warnings []string
	var mu sync.Mutex
	warn := func(s string) { mu.Lock(); warnings = append(warnings, s); mu.Unlock() }
	bad := &fakeWorker{nb: nb, launch: 32, seed: 1, failAt: 100}
	good := &fakeWorker{nb: nb, launch: 1, seed: 2, failAt: -1, startDelay: 20 * time.Millisecond}
	j, _ := New(Config{Spec: norm(nq.Spec{N: 16, Algo: nq.Symmetry}), Backends: workersOf(bad, good), Plan: fakePlan(nb), NeedPlan: true, Warn: warn})
	res, err := j.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Partial != fakeSum(nb, plan.Shard{}) {
		t.Errorf("sum %v, want %v", res.Partial, fakeSum(nb, plan.Shard{}))
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "fake0: device lost") {
		t.Errorf("warnings %q", warnings)
	}

	// When every worker fails the job fails.
	j, _ = New(Config{Spec: norm(nq.Spec{N: 16, Algo: nq.Symmetry}), Plan: fakePlan(nb),
		Backends: workersOf(&fakeWorker{nb: nb, failAt: 3}, &fakeWorker{nb: nb, failAt: 7})})
	if _, err := j.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "device lost") {
		t.Errorf("all workers failed: error %v", err)
	}

	// Workers that skip batches are caught by the plan check.
	j, _ = New(Config{Spec: norm(nq.Spec{N: 16, Algo: nq.Symmetry}), Plan: fakePlan(nb), NeedPlan: true,
		Backends: workersOf(&fakeWorker{nb: nb - 1, failAt: -1})})
	if _, err := j.Run(context.Background()); !errors.Is(err, ErrIncomplete) {
		t.Errorf("missing batch: error %v", err)
	}
}

// A worker that reports a finished batch again fails the job instead of
// counting it twice.
func TestRepeatedBatchFails(t *testing.T) {
	const nb = 20
	repeat := funcBackend{name: "echo", run: func(ctx context.Context, sel func(int) bool, done func([]int, nq.Partial)) error {
		for i := 0; i < nb; i++ {
			if sel(i) {
				done([]int{i}, fakePartial(i))
			}
		}
		done([]int{nb - 1, 3}, fakePartial(3)) // 3 again
		return nil
	}}
	j, _ := New(Config{Spec: norm(nq.Spec{N: 16, Algo: nq.Symmetry}), Plan: fakePlan(nb), NeedPlan: true, Backends: []Backend{repeat}})
	res, err := j.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("error %v, want a repeated batch", err)
	}
	if res.Partial != fakeSum(nb, plan.Shard{}) {
		t.Errorf("sum %v: the repeated report was added", res.Partial)
	}
}

func TestShards(t *testing.T) {
	const nb = 1001
	// N=28: no published counts to cross-check the fake sums with.
	spec := norm(nq.Spec{N: 28, Algo: nq.Symmetry})
	for _, m := range []int{1, 2, 3, 4, 7} {
		var sum nq.Partial
		var srcs []shard.Source
		for i := 0; i < m; i++ {
			sh := plan.Shard{Index: i, Count: m}
			j, _ := New(Config{Spec: spec, Shard: sh, Plan: fakePlan(nb), NeedPlan: true,
				Backends: workersOf(&fakeWorker{nb: nb, failAt: -1}, &fakeWorker{nb: nb, launch: 9, seed: 5, failAt: -1})})
			res, err := j.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if res.Partial != fakeSum(nb, sh) || res.Batches != sh.Batches(nb) {
				t.Errorf("shard %v: %v in %d batches", sh, res.Partial, res.Batches)
			}
			sum.Add(res.Partial)
			srcs = append(srcs, shard.Source{Name: fmt.Sprint("s", i), Result: sealed(t, shard.NewResult(res.Plan, sh, res.Batches, res.Partial))})
		}
		if sum != fakeSum(nb, plan.Shard{}) {
			t.Errorf("%d shards sum to %v", m, sum)
		}
		mg, err := shard.Merge(srcs, fakePlan(nb))
		if err != nil {
			t.Fatal(err)
		}
		if mg.Counts.C8 != sum[3] {
			t.Errorf("merged %v", mg.Counts)
		}
	}
}

// A run cancelled midway (as by a signal) saves its finished batches; a
// second run resumes from them and counts each batch once in all.
func TestCheckpointResume(t *testing.T) {
	const nb = 400
	dir := t.TempDir()
	path := filepath.Join(dir, "ck.json")
	spec := norm(nq.Spec{N: 16, Algo: nq.Symmetry})
	ctx, cancel := context.WithCancel(context.Background())
	count := 0
	var mu sync.Mutex
	w := funcBackend{name: "w", run: func(c context.Context, sel func(int) bool, done func([]int, nq.Partial)) error {
		for i := 0; i < nb; i++ {
			if c.Err() != nil {
				return c.Err()
			}
			if sel(i) {
				done([]int{i}, fakePartial(i))
				mu.Lock()
				count++
				if count == 150 {
					cancel()
				}
				mu.Unlock()
			}
		}
		return nil
	}}
	j, err := New(Config{Spec: spec, Backends: []Backend{w}, Plan: fakePlan(nb), Checkpoint: path})
	if err != nil {
		t.Fatal(err)
	}
	res, err := j.Run(ctx)
	if !errors.Is(err, context.Canceled) || !res.Saved || res.Batches != 150 || res.Complete {
		t.Fatalf("interrupted run: %+v, %v", res, err)
	}
	ck, err := checkpoint.Load(path)
	if err != nil || ck.Body.DoneBatches != 150 || ck.Body.Complete {
		t.Fatalf("checkpoint %+v, %v", ck, err)
	}

	// Resume with two fake workers: each batch exactly once in all.
	f1, f2 := &fakeWorker{nb: nb, failAt: -1}, &fakeWorker{nb: nb, launch: 10, failAt: -1}
	j, err = New(Config{Spec: spec, Backends: workersOf(f1, f2), Plan: fakePlan(nb), Checkpoint: path})
	if err != nil {
		t.Fatal(err)
	}
	if st := j.Status(); st.ResumedBatches != 150 || st.DoneBatches != 150 {
		t.Errorf("status after resume %+v", st)
	}
	res, err = j.Run(context.Background())
	if err != nil || res.Partial != fakeSum(nb, plan.Shard{}) || !res.Complete || len(f1.got)+len(f2.got) != nb-150 {
		t.Fatalf("resumed run: %+v, %v; searched %d", res, err, len(f1.got)+len(f2.got))
	}
	ck, err = checkpoint.Load(path)
	if err != nil || !ck.Body.Complete || ck.Body.Runs != 2 {
		t.Fatalf("final checkpoint %+v, %v", ck, err)
	}

	// A complete checkpoint gives the result without work.
	f3 := &fakeWorker{nb: nb, failAt: -1}
	j, _ = New(Config{Spec: spec, Backends: workersOf(f3), Plan: fakePlan(nb), Checkpoint: path})
	res, err = j.Run(context.Background())
	if err != nil || !res.AlreadyComplete || res.Partial != fakeSum(nb, plan.Shard{}) || len(f3.got) != 0 {
		t.Errorf("complete checkpoint: %+v, %v", res, err)
	}
}

// A damaged checkpoint, or one for another job, is refused and left as it
// is; nothing else is written next to it.
func TestCheckpointRefused(t *testing.T) {
	const nb = 100
	dir := t.TempDir()
	path := filepath.Join(dir, "ck.json")
	spec := norm(nq.Spec{N: 16, Algo: nq.Symmetry})
	j, _ := New(Config{Spec: spec, Backends: workersOf(&fakeWorker{nb: nb, failAt: -1}), Plan: fakePlan(nb), Checkpoint: path})
	if _, err := j.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(s, old, new string) string {
		if !strings.Contains(s, old) {
			t.Fatalf("checkpoint has no %q", old)
		}
		return strings.Replace(s, old, new, 1)
	}
	tests := []struct {
		name     string
		contents string
		spec     nq.Spec
		shard    plan.Shard
		plan     func(nq.Spec) (plan.Plan, error)
		want     string
	}{
		{"truncated", string(good[:len(good)/2]), spec, plan.Shard{}, fakePlan(nb), "damaged"},
		{"empty", "", spec, plan.Shard{}, fakePlan(nb), "damaged"},
		{"flipped count", flip(string(good), `"done_batches": 100`, `"done_batches": 101`), spec, plan.Shard{}, fakePlan(nb), "checksum"},
		{"flipped runs", flip(string(good), `"runs": 1`, `"runs": 2`), spec, plan.Shard{}, fakePlan(nb), "checksum"},
		{"not JSON", "hello\n", spec, plan.Shard{}, fakePlan(nb), "damaged"},
		{"other N", string(good), norm(nq.Spec{N: 15, Algo: nq.Symmetry}), plan.Shard{}, fakePlan(nb), "another job: N=16, not N=15"},
		{"other algo", string(good), norm(nq.Spec{N: 16, Algo: nq.CarryChain}), plan.Shard{}, fakePlan(nb), "-algo symmetry, not -algo carrychain"},
		{"other task list", string(good), spec, plan.Shard{}, fakePlan(nb + 1), "another task list"},
		{"other batch size", string(good), norm(nq.Spec{N: 16, Algo: nq.Symmetry, Batch: 128}), plan.Shard{}, fakePlan(nb), "in batches of 256, not"},
		{"other shard", string(good), spec, plan.Shard{Index: 1, Count: 2}, fakePlan(nb), "shard 0/1, not shard 1/2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(tt.contents), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := New(Config{Spec: tt.spec, Shard: tt.shard, Backends: workersOf(&fakeWorker{nb: nb, failAt: -1}), Plan: tt.plan, Checkpoint: path})
			var ce *checkpoint.Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "left as it is") {
				t.Errorf("error %v, want a checkpoint error mentioning %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			after, _ := os.ReadFile(path)
			if string(after) != tt.contents {
				t.Error("the file was changed")
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("%d files in the directory", len(ents))
			}
		})
	}
}

// A checkpoint made at another depth, as a run on other GPUs may pick
// when -depth is not given, is refused with the -depth that resumes it.
func TestCheckpointOtherDepth(t *testing.T) {
	const nb = 10
	path := filepath.Join(t.TempDir(), "ck.json")
	depthPlan := func(s nq.Spec) (plan.Plan, error) {
		p, err := fakePlan(nb)(s)
		p.Tasks, p.Depth = "symmetry boards", s.Depth
		return p, err
	}
	cfg := Config{Spec: norm(nq.Spec{N: 16, Algo: nq.Symmetry, Depth: 8}), Backends: workersOf(&fakeWorker{nb: nb, failAt: -1}), Plan: depthPlan, Checkpoint: path}
	j, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	cfg.Spec = norm(nq.Spec{N: 16, Algo: nq.Symmetry}) // the default depth, 6
	_, err = New(cfg)
	want := "was made for another job: symmetry boards of depth 8, not of depth 6; pass -depth 8 to resume it; the file was left as it is"
	var ce *checkpoint.Error
	if !errors.As(err, &ce) || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %v, want a checkpoint error ending %q", err, want)
	}
	cfg.Spec.Depth = 8
	if _, err := New(cfg); err != nil {
		t.Errorf("resuming with the same depth: %v", err)
	}
}

// A board too small to split is counted by the job itself as batch 0,
// without any worker, and reduces to the published counts.
func TestWholeBoards(t *testing.T) {
	tests := []struct {
		n    int
		algo nq.Algo
		want nq.Counts
	}{
		{1, nq.Symmetry, nq.Counts{C1: 1}},
		{2, nq.Mirror, nq.Counts{}},
		{3, nq.Bitmap, nq.Counts{}},
		{4, nq.CarryChain, nq.Counts{C2: 1}},
	}
	for _, tt := range tests {
		j, err := New(Config{Spec: norm(nq.Spec{N: tt.n, Algo: tt.algo}), NeedPlan: true})
		if err != nil {
			t.Fatal(err)
		}
		res, err := j.Run(context.Background())
		if err != nil || res.Counts != tt.want || !res.Complete || res.Batches != 1 || res.Plan.Tasks != "whole board" {
			t.Errorf("N=%d %s: %+v, %v; want %v in one whole-board batch", tt.n, tt.algo, res, err, tt.want)
		}
	}
	// A shard without batch 0 counts nothing and is complete.
	j, _ := New(Config{Spec: norm(nq.Spec{N: 1, Algo: nq.Symmetry}), Shard: plan.Shard{Index: 1, Count: 2}, NeedPlan: true})
	if res, err := j.Run(context.Background()); err != nil || res.Batches != 0 || res.Partial != (nq.Partial{}) {
		t.Errorf("shard 1/2 of N=1: %+v, %v", res, err)
	}
	// A board that splits needs workers.
	if _, err := New(Config{Spec: norm(nq.Spec{N: 8, Algo: nq.Symmetry})}); err == nil {
		t.Error("N=8 without workers accepted")
	}
}

// sealed is r as merge reads it back from a shard run's output: written
// with its checksum and decoded.
func sealed(t *testing.T, r shard.Result) shard.Result {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back shard.Result
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	return back
}
