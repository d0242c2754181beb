package plan

// DefaultBatch is the tasks in a batch of a count of n: 256 up to N=22,
// then fewer, so that a batch stays seconds of CPU work and the symmetry
// job of every N stays under 2^28 batches (a checkpoint bitmap of at most
// 32 MiB). A batch is what a checkpoint records, a shard is dealt and a
// signal waits for. The batch is part of a job's fingerprint: changing it
// for an N invalidates that N's checkpoints and shards. docs/long-runs.md
// has the measured cost of a batch at each N.
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
