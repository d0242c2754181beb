// Package symmetry applies the 8 symmetries of the square (the dihedral group
// D4) to N-Queens boards given as column lists: q[r] is the column of the
// queen in row r, with row 0 at the top and column 0 at the left.
package symmetry

// Op names one of the 8 symmetries. Rotations turn the board clockwise.
type Op int

// The symmetries: the four rotations, then a left-right mirror followed by
// each rotation.
const (
	Identity Op = iota
	Rot90
	Rot180
	Rot270
	Mirror
	MirrorRot90
	MirrorRot180
	MirrorRot270
)

// Ops lists all 8 symmetries.
var Ops = [8]Op{Identity, Rot90, Rot180, Rot270, Mirror, MirrorRot90, MirrorRot180, MirrorRot270}

// Point maps square (r, c) of an n×n board through op.
func (op Op) Point(n, r, c int) (int, int) {
	if op >= Mirror {
		c = n - 1 - c
	}
	switch op & 3 {
	case 1: // 90° clockwise
		r, c = c, n-1-r
	case 2:
		r, c = n-1-r, n-1-c
	case 3:
		r, c = n-1-c, r
	}
	return r, c
}

// Apply writes the image of board q under op into out (len(out) == len(q))
// and returns out. A column list is a permutation, so the image is one too.
func Apply(op Op, q, out []int) []int {
	n := len(q)
	for r, c := range q {
		r2, c2 := op.Point(n, r, c)
		out[r2] = c2
	}
	return out
}

// Less reports whether a precedes b in lexicographic order.
func Less(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func equal(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Classify returns the size of the orbit of solution q under the 8
// symmetries (1, 2, 4 or 8) and whether q is its orbit's canonical member,
// the lexicographically smallest column list. scratch must have len(q).
func Classify(q, scratch []int) (orbit int, canonical bool) {
	fixed := 0
	canonical = true
	for _, op := range Ops {
		img := Apply(op, q, scratch)
		if equal(img, q) {
			fixed++
		} else if Less(img, q) {
			canonical = false
		}
	}
	return 8 / fixed, canonical
}

// Orbit returns the size of the orbit of a solution q (len(q) >= 2) from its
// rotational symmetry alone. No reflection fixes an N-Queens solution with
// N >= 2, so the stabiliser is the subgroup of rotations that fix q.
func Orbit(q []int) int {
	n := len(q)
	if n < 2 {
		return 1
	}
	// Fixed by a half turn: q[n-1-r] == n-1-q[r] for every r.
	for r := 0; r < n; r++ {
		if q[n-1-r] != n-1-q[r] {
			return 8
		}
	}
	// Fixed by a quarter turn: the queen (r, c) goes to (c, n-1-r).
	for r := 0; r < n; r++ {
		if q[q[r]] != n-1-r {
			return 4
		}
	}
	return 2
}
