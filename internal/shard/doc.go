// Package shard records the counts of one shard of a job (Result, the
// JSON line a shard run prints) and merges the records of every shard of a
// job into its counts (Merge), refusing records that are damaged, edited,
// missing, repeated or of another job.
package shard
