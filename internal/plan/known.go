package plan

import (
	"context"
	"fmt"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// knownPlans are the plans Make makes for the eightfold counts of N=20
// to 28 at the default split and batch without GPUs. Listing the tasks of
// a large N takes seconds to minutes, and until its plan is known a job
// has no total to report and a job with a checkpoint cannot start; with a
// recorded plan it starts at once and checks the plan beside the workers
// (Verify). docs/long-runs.md has the listing times.
var knownPlans = []Plan{
	{N: 20, Algo: nq.Eightfold, Tasks: eightfoldTasks, Depth: 3, Batch: 256, Batches: 38861, TaskCount: 9947939,
		TaskSHA256: "f89978b15f71f191dd7b2a9da5007e30e51601719931640a9752bc621b1c33ba"},
	{N: 21, Algo: nq.Eightfold, Tasks: eightfoldTasks, Depth: 3, Batch: 256, Batches: 63637, TaskCount: 16290648,
		TaskSHA256: "c8552bc370af40b575c7779791add0c077f27976d4ff93203ae528e2376dc839"},
	{N: 22, Algo: nq.Eightfold, Tasks: eightfoldTasks, Depth: 3, Batch: 256, Batches: 101561, TaskCount: 25999133,
		TaskSHA256: "a2c2e085d7a4cb121b6f49d991fdda0f4da65e854cb46db71b8286649f8a10dc"},
	{N: 23, Algo: nq.Eightfold, Tasks: eightfoldTasks, Depth: 3, Batch: 64, Batches: 626958, TaskCount: 40125230,
		TaskSHA256: "49ee1d53efbaba1700acebb7ac7b403e0941c5df447a41492a774285f566151a"},
	{N: 24, Algo: nq.Eightfold, Tasks: eightfoldTasks, Depth: 4, Batch: 64, Batches: 9477151, TaskCount: 606537555,
		TaskSHA256: "5ccd739e71cf6561df6899c708c58681ad60458f3717c82ac8340a94cdfdd2d4"},
	{N: 25, Algo: nq.Eightfold, Tasks: eightfoldTasks, Depth: 4, Batch: 16, Batches: 60621647, TaskCount: 969946325,
		TaskSHA256: "2c24322e58033b87bd65ea641c8c14692d7958b8b3e2ba5ebd3bc7341b964c62"},
	{N: 26, Algo: nq.Eightfold, Tasks: eightfoldTasks, Depth: 4, Batch: 16, Batches: 94846244, TaskCount: 1517539883,
		TaskSHA256: "3d066be9d5b43387d5e8ceb621520fa30aa9917494cb8ca85812c59709a7bf2b"},
	{N: 27, Algo: nq.Eightfold, Tasks: eightfoldTasks, Depth: 4, Batch: 16, Batches: 144495307, TaskCount: 2311924890,
		TaskSHA256: "ebafcef61d56b38e84883d3fe5371d8521a04c01ee1443e5692cdb1e9053ea9e"},
	{N: 28, Algo: nq.Eightfold, Tasks: eightfoldTasks, Depth: 4, Batch: 32, Batches: 108145970, TaskCount: 3460670980,
		TaskSHA256: "ad2089511f4f925eea6954226b4a7df10ee11a9938138d15d2af7e0414e25ff5"},
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
