package tasks

import (
	"bytes"
	"context"
	"crypto/sha256"
	"testing"
)

// The eightfold digest hashes each border with tasks as the border, its
// weight, its number of tasks and their prefix columns, and tells apart
// lists that differ in any of them; it agrees with the enumeration.
func TestEightfoldDigester(t *testing.T) {
	const x = NoQueen
	// N=6: border A is (row 0, col 1), (row 5, col 4), (row 2, col 0),
	// (row 3, col 5); border B moves the top queen to column 2.
	a := []uint8{1, x, 0, 5, x, 4}
	b := []uint8{2, x, 0, 5, x, 4}
	type run struct {
		border []uint8
		weight byte
		tasks  [][]uint8
	}
	digest := func(runs []run) [32]byte {
		w := &eightfoldDigester{n: 6, h: sha256.New()}
		for _, r := range runs {
			w.border(r.border, r.weight)
			for _, tk := range r.tasks {
				w.task(tk)
			}
		}
		w.flush()
		var s [32]byte
		w.h.Sum(s[:0])
		return s
	}
	var want bytes.Buffer
	want.Write([]byte{1, x, 0, 5, x, 4, 8, 2, 0, 0, 0, 3, 4}) // A, weight 8, 2 tasks, prefixes 3 and 4
	want.Write([]byte{2, x, 0, 5, x, 4, 4, 1, 0, 0, 0, 4})    // B, weight 4, 1 task, prefix 4
	list := []run{{a, 8, [][]uint8{{3}, {4}}}, {b, 4, [][]uint8{{4}}}}
	if got := digest(list); got != sha256.Sum256(want.Bytes()) {
		t.Fatalf("digest of A (2 tasks), B (1 task) is not the hash of its runs")
	}
	if digest(append(list, run{a, 2, nil})) != digest(list) {
		t.Errorf("a border without tasks changes the digest")
	}
	for _, c := range []struct {
		name string
		runs []run
	}{
		{"other prefix", []run{{a, 8, [][]uint8{{3}, {3}}}, {b, 4, [][]uint8{{4}}}}},
		{"other weight", []run{{a, 4, [][]uint8{{3}, {4}}}, {b, 4, [][]uint8{{4}}}}},
		{"other order", []run{{a, 8, [][]uint8{{4}, {3}}}, {b, 4, [][]uint8{{4}}}}},
		{"task moved to the next border", []run{{a, 8, [][]uint8{{3}}}, {b, 4, [][]uint8{{4}, {4}}}}},
		{"one task less", []run{{a, 8, [][]uint8{{3}}}, {b, 4, [][]uint8{{4}}}}},
		{"borders swapped", []run{{b, 4, [][]uint8{{4}}}, {a, 8, [][]uint8{{3}, {4}}}}},
	} {
		if digest(c.runs) == digest(list) {
			t.Errorf("%s: same digest", c.name)
		}
	}
	// The enumeration feeds it each border's tasks as the batches list
	// them.
	for _, c := range []struct{ n, split int }{{7, 0}, {9, 1}, {12, 2}} {
		w := &eightfoldDigester{n: c.n, h: sha256.New()}
		var cols []uint8
		var weights []byte
		err := enumerateEightfold(context.Background(), c.n, c.split, 100, w, func(e *Eightfold) error {
			cols = append(cols, e.Cols...)
			for i := 0; i < e.Len(); i++ {
				weights = append(weights, byte(e.Weight(i)))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		w.flush()
		again := &eightfoldDigester{n: c.n, h: sha256.New()}
		var last []uint8
		for i := range weights {
			row := cols[i*c.n : (i+1)*c.n]
			border := make([]uint8, c.n)
			var prefix []uint8
			for r, q := range row {
				border[r] = NoQueen
				switch {
				case q == NoQueen:
				case r == 0 || r == c.n-1 || q == 0 || int(q) == c.n-1:
					border[r] = q
				default:
					prefix = append(prefix, q)
				}
			}
			if !bytes.Equal(border, last) {
				again.border(border, weights[i])
				last = border
			}
			again.task(prefix)
		}
		again.flush()
		if !bytes.Equal(w.h.Sum(nil), again.h.Sum(nil)) {
			t.Errorf("N=%d split %d: the enumeration's digest differs from its tasks'", c.n, c.split)
		}
	}
}
