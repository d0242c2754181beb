package plan

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is the share i of m of a job: the batches whose index is i modulo m.
// Batches are small (256 tasks) and numbered in enumeration order, so
// dealing them out in turn gives every shard a near-equal slice of every
// part of the task list, and with it a near-equal cost. The zero Shard and
// 0/1 are the whole job.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Whole reports whether s covers the whole job.
func (s Shard) Whole() bool { return s.Count <= 1 }

// Has reports whether batch belongs to s.
func (s Shard) Has(batch int) bool { return s.Count <= 1 || batch%s.Count == s.Index }

// Batches is the number of batches of s among total.
func (s Shard) Batches(total int) int {
	if s.Whole() {
		return total
	}
	if total <= s.Index {
		return 0
	}
	return (total-1-s.Index)/s.Count + 1
}

// String writes s as i/m.
func (s Shard) String() string {
	if s.Whole() {
		return "0/1"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// MaxShards bounds the number of shards of a job.
const MaxShards = 1 << 20

// ParseShard parses "i/m" with 0 <= i < m <= MaxShards.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	digits := func(x string) bool { return x != "" && len(x) <= 9 && strings.Trim(x, "0123456789") == "" }
	if !ok || !digits(a) || !digits(b) {
		return Shard{}, fmt.Errorf("want i/m, the shard i of m counted from 0, as in 0/4")
	}
	i, _ := strconv.Atoi(a)
	m, _ := strconv.Atoi(b)
	if m < 1 || m > MaxShards {
		return Shard{}, fmt.Errorf("the number of shards must be between 1 and %d", MaxShards)
	}
	if i >= m {
		return Shard{}, fmt.Errorf("shards are numbered 0 to %d", m-1)
	}
	return Shard{Index: i, Count: m}, nil
}
