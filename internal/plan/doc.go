// Package plan turns a count's spec into its numbered task list: the
// defaults of a spec (Normalize, the one place they are decided), the
// plan of its tasks in batches with the fingerprint that checkpoints and
// shards carry (Make, Known, Verify), and the shards that deal the
// batches out (Shard).
//
// The unit of work is the batch: the task list of a spec is enumerated in
// a fixed order and cut into batches of Spec.Batch tasks numbered 0, 1,
// 2, ... Every backend numbers them the same way, so a batch index means
// the same tasks on the CPU, on any GPU, in a checkpoint and in a shard.
package plan
