package main

import (
	"fmt"
	"io"
	"sort"
)

// dumpCFG prints the blocks of g with their size, successors, the loops
// they belong to and the markers of spec they hold (the -debug flag).
func dumpCFG(w io.Writer, g *CFG, spec *KernelSpec, src *Sources) {
	var ms []Marker
	seen := map[Marker]bool{}
	add := func(l []Marker) {
		for _, m := range l {
			if !seen[m] {
				seen[m] = true
				ms = append(ms, m)
			}
		}
	}
	add(spec.Loop)
	for _, p := range spec.Paths {
		add(p.Need)
		add(p.Avoid)
	}
	marks := make([][]bool, len(ms))
	for i, m := range ms {
		marks[i], _ = src.MarkBlocks(g, m)
		fmt.Fprintf(w, "marker %d: %v\n", i, m)
	}
	for _, l := range g.Loops {
		ids := make([]int, 0, len(l.Blocks))
		for b := range l.Blocks {
			ids = append(ids, b)
		}
		sort.Ints(ids)
		fmt.Fprintf(w, "loop header %d latches %v blocks %v\n", l.Header, l.Latches, ids)
	}
	for _, b := range g.Blocks {
		var mk []int
		for i := range ms {
			if marks[i] != nil && marks[i][b.ID] {
				mk = append(mk, i)
			}
		}
		fmt.Fprintf(w, "block %d [%#x] size %d succ %v exit %v markers %v\n", b.ID, g.Fn.Insts[b.Start].Addr,
			b.Size(), b.Succ, b.Exit, mk)
	}
}
