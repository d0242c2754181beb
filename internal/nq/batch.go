package nq

// DefaultBatch is the number of tasks in a batch of a count of n unless
// the user asks for another: 256 up to N=22, fewer from N=23 on, so that
// a batch stays a few seconds of CPU work where that is possible.
//
// A batch is the unit that a checkpoint records, a shard is dealt and a
// signal waits for, so its cost is what kill -9 loses beyond the last
// checkpoint, per CPU worker. The cost of a task at the default depth
// (tasks.DefaultDepth: 7 rows up to N=23, 8 from N=24 on), with the
// symmetry algorithm on one core of the development VM (2 cores of an
// "AMD EPYC" as /proc/cpuinfo names it, shared with other jobs; the mean
// of a spread sample of 256-task batches, 2026-11):
//
//	N   boards          per task   batch of 256   DefaultBatch  its batch
//	18      4,388,380     33 µs       8 ms          256           8 ms
//	19      7,724,564    117 µs      30 ms          256          30 ms
//	20     13,757,078    489 µs     0.13 s          256         0.13 s
//	21     22,456,135    2.1 ms     0.53 s          256         0.53 s
//	22     37,537,711    9.1 ms      2.3 s          256          2.3 s
//	23     57,765,474    ~53 ms      ~14 s           64         ~3.4 s
//	24    834,462,428     45 ms       11 s           64          2.8 s
//	25  1,329,247,680   ~0.27 s      ~69 s           16         ~4.3 s
//	26  2,168,130,075    ~1.7 s     ~7 min           16          ~27 s
//	27  3,293,466,812     ~12 s    ~50 min           16         ~3 min
//	28  5,147,588,551     ~81 s     ~6 h             32        ~43 min
//
// N=18 to 22 and 24 are measured (N=24 from 6 batches on a loaded
// machine); the others (~) are extrapolated, N=23 from N=22 and N=25 to
// 28 from N=24, with the growth of the published Total from one N to the
// next (9.0 at N=23, 9.7, 10.1, 10.5, about 10.9 at N=28) divided by the
// growth of the board count.
//
// From N=26 on a single task at the default depth is already a second or
// more, and a batch of one task each would give the job billions of
// batches: a checkpoint's bitmap of hundreds of megabytes, written every
// minute. There the batch is the smallest power of two that keeps the
// symmetry job under 2^28 batches (a bitmap of at most 32 MiB); shorter
// batches need a deeper default depth. Counts of those N are for GPUs,
// whose launches cover many batches, and a signal no longer waits for the
// batches in hand (job.Config.StopWait).
//
// The batch size is part of a job's plan and fingerprint: counts of
// N <= 22 keep the task lists, checkpoints and shards they had.
func DefaultBatch(n int) int {
	switch {
	case n <= 22:
		return 256
	case n <= 24:
		return 64
	case n <= 27:
		return 16
	}
	return 32
}
