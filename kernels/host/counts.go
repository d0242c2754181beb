package host

// Counts are the counters of the C search (nq_counts): canonical solutions
// by orbit size (for the carry chain, completions weighted by their
// frame's weight), and the search's nodes, the queens its loop placed.
type Counts struct {
	C2, C4, C8 uint64
	Nodes      uint64
}

// Add adds o to c.
func (c *Counts) Add(o Counts) {
	c.C2 += o.C2
	c.C4 += o.C4
	c.C8 += o.C8
	c.Nodes += o.Nodes
}
