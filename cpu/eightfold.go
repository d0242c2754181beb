package cpu

import (
	"math/bits"
	"runtime"
	"sync/atomic"

	"github.com/nqueens-gpu/nqueens-gpu/internal/eflanes"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// The eightfold search (tasks.Eightfold): Total as Σ weight × completions
// over canonical border pre-placements. Below a task it is a plain bitmap
// search of the task's levels (its empty rows from the start row down,
// pre-filled rows skipped) that knows nothing of symmetry. Words are 64-bit
// with column c at bit c+efCol, the bits below holding the shift to the
// next level; a level is pushed only while it has columns left; the last
// two levels are counted by bit tests (last2). docs/algorithms.md ("The
// eightfold search on the CPU") says why each of these is so.

// efCol is the bit of column 0 in the search's 64-bit words, and efLow
// the bits below it.
const (
	efCol = 6
	efLow = 1<<efCol - 1
)

// efScratch is the search's working memory, reused from task to task.
// Levels and the stack pointer are uint8, so indexing arrays of 256 needs
// no bounds check. The assembly search (eightfold_amd64.s) reads the same
// layout, and keeps its state between calls in st.
type efScratch struct {
	tab [256]uint64  // per level j: the attacks on level j+1 | shift
	fr  [256]efFrame // the frame stack
	st  efState
}

// efFrame is a saved level: its untried columns with the level in bits
// 0..5, and the words it sees.
type efFrame struct{ f, l, d, r uint64 }

// efState is a search in progress, for efLoop: the current level's free
// columns f and words l, d, r, the level, the frame stack's top as a byte
// offset (32 per frame), and the completions so far.
type efState struct{ f, l, d, r, lvl, sp, count uint64 }

// eightfoldBatch adds Σ weight × completions over the tasks of b to
// t.orbit[8], with the vector lanes where efLanes says so, else with
// efSearch task by task. Once stop is set it returns within milliseconds, between
// two tasks or inside one (efSearch), with a partial sum that the caller
// drops.
func eightfoldBatch(b *tasks.Eightfold, t *tally, stop *atomic.Bool) {
	if efLanes {
		st := lanesStates.Get().(*eflanes.State)
		t.orbit[8] += eflanes.Vector(st, b, eflanes.Width, stealLevels, stop)
		lanesStates.Put(st)
		return
	}
	var sc efScratch
	var sum uint64
	for i := 0; i < b.Len(); i++ {
		if stop.Load() {
			break
		}
		sum += b.Weight(i) * eightfoldTask(b.Left[i], b.Right[i], b.Down[i], b.Meta[i], &sc, stop)
	}
	t.orbit[8] += sum
}

// EightfoldTask counts the completions of task i of b and the nodes of
// its search: the queens the search places, one per level but the last (a
// completion's last queen is found by a test, not placed). It runs the
// search cpu runs, with a node counter (eightfoldTaskNodes), exported for
// the tests that compare it with the C search of kernels/host.
func EightfoldTask(b *tasks.Eightfold, i int) (completions, nodes uint64) {
	var sc efScratch
	return eightfoldTaskNodes(b.Left[i], b.Right[i], b.Down[i], b.Meta[i], &sc)
}

// efTable fills sc.tab for a task (see tasks.Eightfold for the words and
// Meta) and returns its number of levels and the free columns of level 0.
// tab[j], for each level j below the last, holds the columns that the
// task's placed queens attack on level j+1 (from bit efCol) and, in bits
// 0..5, the rows from level j to level j+1.
func efTable(left, right uint64, down, meta uint32, sc *efScratch) (levels int, f0 uint64) {
	levels = tasks.EightfoldLevels(meta)
	k := uint(0)
	for j := 0; j < levels-1; j++ {
		s := tasks.EightfoldShift(meta, j)
		k += s
		fixed := uint32(left<<k>>32) | uint32(right>>k)
		sc.tab[uint8(j)] = uint64(fixed)<<efCol | uint64(s)
	}
	return levels, uint64(^(down | uint32(left>>32) | uint32(right))) << efCol
}

// last2 counts the completions of the last two levels from the level
// before them, whose free columns are f and whose words are l, d, r; t is
// its table word. Two rows are left there, so d leaves two columns and f
// holds at most two: a queen b in f completes exactly when the other
// column is free on the last level, given the attacks without b (g) and
// b's own diagonals.
func last2(f, l, d, r, t uint64) uint64 {
	g := ^(l<<(t&63) | d | r>>(t&63) | t)
	b1 := f & -f
	b2 := f ^ b1
	z1 := g &^ (b1 | b1<<(t&63) | b1>>(t&63)) & uint64(int64(b1|-b1)>>63)
	z2 := g &^ (b2 | b2<<(t&63) | b2>>(t&63)) & uint64(int64(b2|-b2)>>63)
	return (z1|-z1)>>63 + (z2|-z2)>>63
}

// eightfoldTask searches one task given its words and Meta (see
// tasks.Eightfold) and returns its completions: efSearch below the table.
// Once stop is set it returns within efBudget pops with a partial count.
func eightfoldTask(left, right uint64, down, meta uint32, sc *efScratch, stop *atomic.Bool) uint64 {
	levels, f := efTable(left, right, down, meta, sc)
	// d0 has every bit that is not a column of the board set.
	d0 := uint64(down)<<efCol | efLow | ^(uint64(1)<<(32+efCol) - 1)
	switch levels {
	case 1:
		return (f | -f) >> 63
	case 2:
		return last2(f, 0, d0, 0, sc.tab[0])
	}
	// The level before the last two is flagged in bit 63 of its table
	// word: its children are counted by last2, not pushed.
	sc.tab[uint8(levels-3)] |= 1 << 63
	return efSearch(sc, f, d0, stop)
}

// efBudget is how many pops efLoop makes per call at most. Between two
// pops the search only descends or tries the columns of one level (about
// 4 steps a pop at N=16), so a call ends within about 5 ms, and efSearch
// looks at the stop flag and yields its P (a task of a large N runs for
// minutes). efSearchGo looks at the flag as often.
const efBudget = 1 << 18

// efSearch runs the search loop from level 0, whose free columns are f
// and whose down word is d0, over sc.tab (flagged), and returns
// the completions: with efLoop where the CPU has it (efAsm), else with
// efSearchGo. Both are the same search as eightfoldTaskNodes without the
// node counter: a change to one is a change to all three. Once stop is
// set it returns within efBudget pops, with the completions found so far.
func efSearch(sc *efScratch, f, d0 uint64, stop *atomic.Bool) uint64 {
	if !efAsm {
		return efSearchGo(sc, f, d0, stop)
	}
	sc.st = efState{f: f, d: d0}
	for !efLoop(sc, efBudget) {
		if stop.Load() {
			break
		}
		// The runtime cannot preempt efLoop (assembly), and this loop
		// has no call where it could stop the goroutine either: a
		// signal that lands in efLoop is lost. With every P searching,
		// the goroutines that a SIGINT wakes (the one that cancels
		// the count, the one that sets stop) then waited up to
		// seconds for a P at N=26. Yield it every call instead.
		runtime.Gosched()
	}
	return sc.st.count
}

// efSearchGo is efSearch in Go.
func efSearchGo(sc *efScratch, f, d0 uint64, stop *atomic.Bool) (count uint64) {
	var lvl, sp uint8
	l, d, r := uint64(0), d0, uint64(0)
	pops := uint64(efBudget)
	for {
		if f == 0 {
			if sp == 0 {
				return count
			}
			if pops--; pops == 0 {
				if stop.Load() {
					return count
				}
				pops = efBudget
			}
			sp--
			p := &sc.fr[sp]
			lvl = uint8(p.f & efLow)
			f = p.f &^ efLow
			l, d, r = p.l, p.d, p.r
		}
		bit := f & -f
		f ^= bit
		t := sc.tab[lvl]
		nl, nd, nr := (l|bit)<<(t&63), d|bit, (r|bit)>>(t&63)
		nf := ^(nl | nd | nr | t)
		if nf == 0 {
			continue
		}
		if int64(t) < 0 {
			// last2(nf, nl, nd, nr, tab[lvl+1]), written out: Go
			// does not inline it, and a call costs spills here.
			t2 := sc.tab[lvl+1]
			g := ^(nl<<(t2&63) | nd | nr>>(t2&63) | t2)
			b1 := nf & -nf
			b2 := nf ^ b1
			z1 := g &^ (b1 | b1<<(t2&63) | b1>>(t2&63))
			z2 := g &^ (b2 | b2<<(t2&63) | b2>>(t2&63)) & uint64(int64(b2|-b2)>>63)
			count += (z1|-z1)>>63 + (z2|-z2)>>63
			continue
		}
		sc.fr[sp] = efFrame{f | uint64(lvl), l, d, r}
		sp += uint8((f | -f) >> 63)
		lvl++
		l, d, r, f = nl, nd, nr, nf
	}
}

// eightfoldTaskNodes is eightfoldTask with a node counter: it returns the
// completions and the queens the search places (see EightfoldTask).
func eightfoldTaskNodes(left, right uint64, down, meta uint32, sc *efScratch) (count, nodes uint64) {
	levels, f := efTable(left, right, down, meta, sc)
	d0 := uint64(down)<<efCol | efLow | ^(uint64(1)<<(32+efCol) - 1)
	switch levels {
	case 1:
		return (f | -f) >> 63, 0
	case 2:
		return last2(f, 0, d0, 0, sc.tab[0]), uint64(bits.OnesCount64(f))
	}
	sc.tab[uint8(levels-3)] |= 1 << 63
	var lvl, sp uint8
	l, d, r := uint64(0), d0, uint64(0)
	for {
		if f == 0 {
			if sp == 0 {
				return count, nodes
			}
			sp--
			p := &sc.fr[sp]
			lvl = uint8(p.f & efLow)
			f = p.f &^ efLow
			l, d, r = p.l, p.d, p.r
		}
		bit := f & -f
		f ^= bit
		nodes++
		t := sc.tab[lvl]
		nl, nd, nr := (l|bit)<<(t&63), d|bit, (r|bit)>>(t&63)
		nf := ^(nl | nd | nr | t)
		if nf == 0 {
			continue
		}
		if int64(t) < 0 {
			count += last2(nf, nl, nd, nr, sc.tab[lvl+1])
			nodes += uint64(bits.OnesCount64(nf))
			continue
		}
		sc.fr[sp] = efFrame{f | uint64(lvl), l, d, r}
		sp += uint8((f | -f) >> 63)
		lvl++
		l, d, r, f = nl, nd, nr, nf
	}
}

// copyEightfoldWords copies into c (a new batch if nil) what the search
// reads of batch e: N, Split and the tasks' words and Meta, not Cols.
func copyEightfoldWords(c, e *tasks.Eightfold) *tasks.Eightfold {
	if c == nil {
		c = &tasks.Eightfold{}
	}
	c.N, c.Split, c.Cols = e.N, e.Split, nil
	c.Left = append(c.Left[:0], e.Left...)
	c.Right = append(c.Right[:0], e.Right...)
	c.Down = append(c.Down[:0], e.Down...)
	c.Meta = append(c.Meta[:0], e.Meta...)
	return c
}
