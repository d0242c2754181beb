package job

import (
	"context"
	"fmt"

	"github.com/nqueens-gpu/nqueens-gpu/internal/nq"
)

// knownPlans are the plans MakePlan makes for the eightfold counts of
// N=20 to 28 with the default split and batch (nq.Spec.Normalize without
// GPUs), recorded from its output. Listing the tasks of a large N takes
// long (N=26: 1.5 billion tasks, 22 s of one core; N=28: 3.5 billion,
// over a minute, and several times that beside the workers), and until
// the plan is known a job has no total for its progress reports, and a
// job with a checkpoint cannot start at all. With a known plan the job
// starts at once and checks the plan in the background (Config.Plan nil):
// a task list that no longer matches its record fails the job.
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

// KnownPlan returns the recorded plan of s (normalized) if there is one.
func KnownPlan(s nq.Spec) (Plan, bool) {
	s = s.Normalize()
	for _, p := range knownPlans {
		if p.N == s.N && p.Algo == s.Algo && p.Depth == s.Depth && p.Batch == s.Batch {
			return p, true
		}
	}
	return Plan{}, false
}

// verifyPlan makes the plan of s with MakePlanContext and returns an
// error if it is not known, the recorded plan: nil when they agree, ctx's
// error when ctx was cancelled first.
func verifyPlan(ctx context.Context, s nq.Spec, known Plan) error {
	p, err := MakePlanContext(ctx, s)
	if err != nil {
		return err
	}
	if p != known {
		return fmt.Errorf("job: the task list of N=%d -algo %s is not the recorded one (%s); this build lists its tasks differently and cannot count it",
			s.N, s.Algo, p.mismatch(known))
	}
	return nil
}
