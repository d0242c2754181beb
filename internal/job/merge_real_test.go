package job_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/cpu"
	"github.com/nqueens-gpu/nqueens-gpu/internal/job"
	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// Shards counted by the CPU, written as shard runs write them, read back
// and merged with the plan made again from each record (job.MakePlan)
// give the published counts, for every algorithm, boards too small to
// split included.
func TestMergeRealShards(t *testing.T) {
	for _, algo := range nq.Algos() {
		for _, n := range []int{1, 4, 9, 11} {
			var lines []string
			for i := 0; i < 3; i++ {
				sh := job.Shard{Index: i, Count: 3}
				w := job.Worker{Name: "cpu", Run: func(ctx context.Context, sel func(int) bool, done func([]int, nq.Partial)) error {
					_, err := cpu.SolvePartial(ctx, n, algo, cpu.Options{Workers: 1, Batch: 8, Select: sel, Done: done})
					return err
				}}
				j, err := job.New(job.Config{Spec: job.Spec{N: n, Algo: algo, Batch: 8}, Shard: sh, Workers: []job.Worker{w}, NeedPlan: true})
				if err != nil {
					t.Fatal(err)
				}
				res, err := j.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				r := job.NewShardResult(res.Plan, sh, res)
				r.Version, r.Backend, r.Device = "test", "cpu", "cpu"
				data, err := json.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				lines = append(lines, string(data))
			}
			srcs, err := job.ReadShardResults(strings.NewReader(strings.Join(lines, "\n")), fmt.Sprintf("%s-%d", algo, n))
			if err != nil {
				t.Fatal(err)
			}
			m, err := job.MergeShards(srcs, job.MakePlan)
			want, _ := known.Lookup(n)
			if err != nil || m.Counts.Total() != want.Total || m.Counts.Unique() != want.Unique {
				t.Errorf("%s N=%d: %v, %v", algo, n, m.Counts, err)
			}
		}
	}
}
