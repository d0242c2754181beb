package job

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
	"github.com/nqueens-gpu/nqueens-gpu/internal/plan"
	"github.com/nqueens-gpu/nqueens-gpu/internal/shard"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks/taskstest"
)

// referenceWorker counts the symmetry boards of n in batches of batch
// tasks with taskstest.Reference, a plain recursive search: a real
// worker, without a backend.
func referenceWorker(n, depth, batch int) Backend {
	return funcBackend{name: "reference", run: func(ctx context.Context, sel func(int) bool, done func([]int, nq.Partial)) error {
		i := 0
		return tasks.EnumerateBoards(n, tasks.Symmetry, depth, batch, func(b *tasks.Boards) error {
			defer func() { i++ }()
			if err := ctx.Err(); err != nil {
				return err
			}
			if !sel(i) {
				return nil
			}
			var p nq.Partial
			for k := 0; k < b.Len(); k++ {
				c := taskstest.Reference(b, k)
				p.Add(nq.Partial{0, c[2], c[4], c[8]})
			}
			done([]int{i}, p)
			return nil
		})
	}}
}

// Shards counted for real, written as shard runs write them, read back
// and merged with the plan made again from each record (plan.Make) give
// the published counts.
func TestMergeRealShards(t *testing.T) {
	for _, n := range []int{5, 8, 11, 12} {
		spec := norm(nq.Spec{N: n, Algo: nq.Symmetry, Batch: 8})
		var lines []string
		for i := 0; i < 3; i++ {
			sh := plan.Shard{Index: i, Count: 3}
			j, err := New(Config{Spec: spec, Shard: sh, Backends: []Backend{referenceWorker(n, spec.Depth, spec.Batch)}, NeedPlan: true})
			if err != nil {
				t.Fatal(err)
			}
			res, err := j.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			r := shard.NewResult(res.Plan, sh, res.Batches, res.Partial)
			r.Version, r.Backend, r.Device = "test", "reference", "cpu"
			data, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, string(data))
		}
		srcs, err := shard.ReadResults(strings.NewReader(strings.Join(lines, "\n")), fmt.Sprintf("n%d", n))
		if err != nil {
			t.Fatal(err)
		}
		m, err := shard.Merge(srcs, plan.Make)
		want, _ := known.Lookup(n)
		cl := known.ClassTable[n]
		if err != nil || m.Counts.Total() != want.Total || m.Counts.Unique() != want.Unique ||
			m.Counts.C2 != cl.C2 || m.Counts.C4 != cl.C4 || m.Counts.C8 != cl.C8 {
			t.Errorf("N=%d: %v, %v", n, m.Counts, err)
		}
	}
}
