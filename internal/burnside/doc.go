// Package burnside counts the N-Queens solutions that a quarter turn or a
// half turn of the board leaves unchanged, S90 and S180. With the count of
// all solutions, Total, they give the orbit classes by Burnside's lemma
// (see nq.FromBurnside): C2 = S90/2, C4 = (S180−S90)/4, C8 = (Total−S180)/8.
//
// A symmetric solution is decided by part of the board, so the searches
// here place queens in symmetric pairs or quadruples and visit a vanishing
// share of the nodes of the search for Total:
//
//   - Half turn: a queen at (r, c) forces one at (n−1−r, n−1−c). The search
//     fills the rows of the top half from the middle outwards (this order
//     prunes best), each queen with its partner. For odd n the centre
//     square is the only square a half turn fixes, and the middle row's
//     queen must stand on it. The mirror and the quarter turn map these
//     solutions onto each other, so the search restricts two choices (the
//     column of the queen in the row next to the middle, and which row
//     holds a central column) to visit one or two members of each class,
//     and weighs them 4 or 2.
//   - Quarter turn: a queen at (r, c) forces the orbit (r, c), (c, n−1−r),
//     (n−1−r, n−1−c), (n−1−c, r). The search takes the lowest empty row,
//     places a whole orbit at once, and needs n/4 steps. Such solutions
//     exist only for n mod 4 = 0 or 1; for n mod 4 = 1 the queen of the
//     middle row stands on the centre square.
//
// See halfturn.go and quarterturn.go for the bit layouts.
package burnside
