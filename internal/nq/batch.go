package nq

// DefaultBatch is the number of tasks in a numbered batch of a count of n
// unless the spec says otherwise.
func DefaultBatch(n int) int { return 256 }
