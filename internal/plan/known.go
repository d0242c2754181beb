package plan

import (
	"context"
	"fmt"
	"strings"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// knownPlans are the plans Make makes for the eightfold counts of N=20
// to 28 at the default split and batch without GPUs. Listing the tasks of
// a large N takes seconds to minutes, and until its plan is known a job
// has no total to report and a job with a checkpoint cannot start; with a
// recorded plan it starts at once and checks the plan beside the workers
// (Verify). docs/long-runs.md has the listing times.
var knownPlans = eightfoldPlans(`
N  split batch batches   tasks      task SHA-256
20 3 256 38861 9947939 f89978b15f71f191dd7b2a9da5007e30e51601719931640a9752bc621b1c33ba
21 3 256 63637 16290648 c8552bc370af40b575c7779791add0c077f27976d4ff93203ae528e2376dc839
22 3 256 101561 25999133 a2c2e085d7a4cb121b6f49d991fdda0f4da65e854cb46db71b8286649f8a10dc
23 3 64 626958 40125230 49ee1d53efbaba1700acebb7ac7b403e0941c5df447a41492a774285f566151a
24 4 64 9477151 606537555 5ccd739e71cf6561df6899c708c58681ad60458f3717c82ac8340a94cdfdd2d4
25 4 16 60621647 969946325 2c24322e58033b87bd65ea641c8c14692d7958b8b3e2ba5ebd3bc7341b964c62
26 4 16 94846244 1517539883 3d066be9d5b43387d5e8ceb621520fa30aa9917494cb8ca85812c59709a7bf2b
27 4 16 144495307 2311924890 ebafcef61d56b38e84883d3fe5371d8521a04c01ee1443e5692cdb1e9053ea9e
28 4 32 108145970 3460670980 ad2089511f4f925eea6954226b4a7df10ee11a9938138d15d2af7e0414e25ff5
`)

// eightfoldPlans reads a table of eightfold plans: after a header line,
// one line per plan with N, the split, the batch, the batches, the tasks
// and the task list's SHA-256. A table that does not read is a bug.
func eightfoldPlans(table string) []Plan {
	var ps []Plan
	for _, line := range strings.Split(strings.TrimSpace(table), "\n")[1:] {
		var p Plan
		if _, err := fmt.Sscan(line, &p.N, &p.Depth, &p.Batch, &p.Batches, &p.TaskCount, &p.TaskSHA256); err != nil {
			panic("plan: the known plans' line " + line + ": " + err.Error())
		}
		p.Algo, p.Tasks = nq.Eightfold, eightfoldTasks
		ps = append(ps, p)
	}
	return ps
}

// Known returns the recorded plan of s (normalized) if there is one.
func Known(s nq.Spec) (Plan, bool) {
	for _, p := range knownPlans {
		if p.N == s.N && p.Algo == s.Algo && p.Depth == s.Depth && p.Batch == s.Batch {
			return p, true
		}
	}
	return Plan{}, false
}

// Verify makes the plan of s with MakeContext and returns an
// error if it is not known, the recorded plan: nil when they agree, ctx's
// error when ctx was cancelled first.
func Verify(ctx context.Context, s nq.Spec, known Plan) error {
	p, err := MakeContext(ctx, s)
	if err != nil {
		return err
	}
	if p != known {
		return fmt.Errorf("the task list of N=%d -algo %s is not the recorded one (%s); this build lists its tasks differently and cannot count it",
			s.N, s.Algo, p.Mismatch(known))
	}
	return nil
}
