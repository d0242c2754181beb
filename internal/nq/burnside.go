package nq

import "fmt"

// FromBurnside returns the orbit classes of one N >= 2 from Total, the
// number of all solutions, and the numbers of solutions fixed by the half
// turn (s180) and the quarter turn (s90) of the board.
//
// For N >= 2 no solution is fixed by a reflection, so the stabiliser of a
// solution is the group of rotations that fix it: all four for COUNT2, the
// half turn and the identity for COUNT4, the identity alone for COUNT8.
// Counting the solutions fixed by each rotation then gives
// s90 = 2·C2, s180 = 2·C2 + 4·C4, total = 2·C2 + 4·C4 + 8·C8, hence
//
//	C2 = s90/2    C4 = (s180 − s90)/4    C8 = (total − s180)/8
//
// It returns an error, with the numbers, when s90 <= s180 <= total fails
// or a division is not exact: the inputs do not belong to one N. N = 1
// (one solution, fixed by every symmetry) is the caller's.
func FromBurnside(total, s180, s90 uint64) (Counts, error) {
	if s90 > s180 || s180 > total {
		return Counts{}, fmt.Errorf("FromBurnside: want S90 <= S180 <= Total, have S90=%d S180=%d Total=%d", s90, s180, total)
	}
	if s90%2 != 0 {
		return Counts{}, fmt.Errorf("FromBurnside: S90=%d is odd: quarter-turn-symmetric solutions come in orbits of 2", s90)
	}
	if (s180-s90)%4 != 0 {
		return Counts{}, fmt.Errorf("FromBurnside: S180-S90 = %d-%d = %d is not a multiple of 4", s180, s90, s180-s90)
	}
	if (total-s180)%8 != 0 {
		return Counts{}, fmt.Errorf("FromBurnside: Total-S180 = %d-%d = %d is not a multiple of 8", total, s180, total-s180)
	}
	return Counts{C2: s90 / 2, C4: (s180 - s90) / 4, C8: (total - s180) / 8}, nil
}
