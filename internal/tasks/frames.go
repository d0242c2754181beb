package tasks

import "fmt"

// Frames is a batch of canonical carry-chain frames of one N as flat arrays.
//
// A frame places the queens of the outer ring: rows 0, 1, N-2, N-1 and
// columns 0, 1, N-2, N-1. Frame i's queens are in Rows[i*N : (i+1)*N], one
// set bit per row that the frame fills and 0 for the rows the inner search
// fills. Weight[i] is 8/|S| for the frame's stabiliser S among the 8
// symmetries of the square: every completion of the frame stands for
// Weight[i] solutions. Sym180[i] is 1 when S holds the half turn; only then
// can a completion be symmetric, and a backend must test each completion
// for half-turn and quarter-turn symmetry (see Classes).
type Frames struct {
	N      int
	Rows   []uint32
	Weight []uint8
	Sym180 []uint8
}

// Len is the number of frames in the batch.
func (f *Frames) Len() int { return len(f.Weight) }

// Frame returns the rows of frame i.
func (f *Frames) Frame(i int) []uint32 { return f.Rows[i*f.N : (i+1)*f.N] }

func (f *Frames) reset() { f.Rows, f.Weight, f.Sym180 = f.Rows[:0], f.Weight[:0], f.Sym180[:0] }

// Weighted sums of completions by class turn into exact orbit counts: a
// completion that is fixed by a quarter turn adds its frame's weight to W2,
// one fixed by a half turn only to W4, any other to W8. Then COUNT2 = W2/2,
// COUNT4 = W4/4 and COUNT8 = W8/8 (Burnside's lemma applied per frame; see
// docs/algorithms.md), and Total = W2 + W4 + W8.
type Weighted struct{ W2, W4, W8 uint64 }

// Pairs lists the (N-1)(N-2) ordered pairs of columns (a, b) with
// |a-b| >= 2 that two adjacent rows can hold, ordered by a then b. Pair i
// and pair len-1-i are mirror images.
func Pairs(n int) [][2]int {
	var ps [][2]int
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			if a-b >= 2 || b-a >= 2 {
				ps = append(ps, [2]int{a, b})
			}
		}
	}
	return ps
}

// A frame is read as four pair indexes (w, n, e, s): the top pair in rows
// 0 and 1, and the same pair turned by 90°, 180° and 270° clockwise for the
// right, bottom and left sides. Turning the board by 90° maps (w, n, e, s)
// to (s, w, n, e); the left-right mirror maps it to
// (L-w, L-s, L-e, L-n) with L the last pair index.
type frameKey [4]int

func (k frameKey) less(o frameKey) bool {
	for i := range k {
		if k[i] != o[i] {
			return k[i] < o[i]
		}
	}
	return false
}

// images returns the 8 images of a frame under the symmetries of the square.
func (k frameKey) images(last int) [8]frameKey {
	var out [8]frameKey
	cur := k
	mir := frameKey{last - k[0], last - k[3], last - k[2], last - k[1]}
	for i := 0; i < 4; i++ {
		out[i] = cur
		out[4+i] = mir
		cur = frameKey{cur[3], cur[0], cur[1], cur[2]}
		mir = frameKey{mir[3], mir[0], mir[1], mir[2]}
	}
	return out
}

// frameBoard tracks the queens a frame has placed so far. No two queens of
// a valid frame share a line, so one bit per row, column and diagonal
// tells whether it is taken.
type frameBoard struct {
	n          int
	rows, cols uint32
	diag, anti uint64     // r+c and r-c+n-1
	word       [32]uint32 // the queen's bit in each row, 0 if none
}

// place puts a queen on (r, c). It reports false, and changes nothing, if
// another queen attacks that square; a queen already on (r, c) is accepted
// and placed again (frames share their corner squares).
func (b *frameBoard) place(r, c int) (placed, ok bool) {
	bit := uint32(1) << c
	if b.word[r] == bit {
		return false, true
	}
	if b.rows>>r&1 != 0 || b.cols&bit != 0 || b.diag>>(r+c)&1 != 0 || b.anti>>(r-c+b.n-1)&1 != 0 {
		return false, false
	}
	b.rows |= 1 << r
	b.cols |= bit
	b.diag |= 1 << (r + c)
	b.anti |= 1 << (r - c + b.n - 1)
	b.word[r] = bit
	return true, true
}

func (b *frameBoard) remove(r, c int) {
	b.rows &^= 1 << r
	b.cols &^= 1 << c
	b.diag &^= 1 << (r + c)
	b.anti &^= 1 << (r - c + b.n - 1)
	b.word[r] = 0
}

// sideSquares returns the squares of pair p on side s (0 top, 1 right,
// 2 bottom, 3 left).
func sideSquares(n int, p [2]int, side int) [2][2]int {
	a, b := p[0], p[1]
	switch side {
	case 0:
		return [2][2]int{{0, a}, {1, b}}
	case 1:
		return [2][2]int{{a, n - 1}, {b, n - 2}}
	case 2:
		return [2][2]int{{n - 1, n - 1 - a}, {n - 2, n - 1 - b}}
	default:
		return [2][2]int{{n - 1 - a, 0}, {n - 1 - b, 1}}
	}
}

// canonical reports whether key is the smallest of its 8 images and, if
// so, the stabiliser's size and whether it holds the half turn.
func (k frameKey) canonical(last int) (ok bool, stab int, half bool) {
	// The images start with n, e, s (rotations) and L-w, L-n, L-e, L-s
	// (reflections). When w is below all of them, no image can be smaller
	// or equal: canonical, with only the identity fixing it. This settles
	// most frames without building the images.
	w := k[0]
	if w < k[1] && w < k[2] && w < k[3] && w < last-w && w < last-k[1] && w < last-k[2] && w < last-k[3] {
		return true, 1, false
	}
	for i, img := range k.images(last) {
		if img.less(k) {
			return false, 0, false
		}
		if img == k {
			stab++
			half = half || i == 2
		}
	}
	return true, stab, half
}

// EnumerateFrames lists the canonical frames of n (5 <= n <= 28) in batches
// of at most batch frames, with the same reuse and error rules as
// EnumerateBoards. A frame is canonical when its key (w, n, e, s) is the
// smallest of its 8 images; each orbit of frames has one.
func EnumerateFrames(n, batch int, emit func(*Frames) error) error {
	if n < 5 || n > 28 {
		return fmt.Errorf("tasks: no carry-chain frames for N=%d", n)
	}
	if batch < 1 {
		batch = 1
	}
	ps := Pairs(n)
	last := len(ps) - 1
	var squares [4][][2][2]int // squares[side][x]: the two squares of pair x
	for side := range squares {
		squares[side] = make([][2][2]int, len(ps))
		for x, p := range ps {
			squares[side][x] = sideSquares(n, p, side)
		}
	}
	out := &Frames{N: n}
	b := frameBoard{n: n}
	var key frameKey
	var rec func(side int) error
	rec = func(side int) error {
		if side == 4 {
			ok, stab, half := key.canonical(last)
			if !ok {
				return nil
			}
			out.Rows = append(out.Rows, b.word[:n]...)
			out.Weight = append(out.Weight, uint8(8/stab))
			var h uint8
			if half {
				h = 1
			}
			out.Sym180 = append(out.Sym180, h)
			if out.Len() == batch {
				if err := emit(out); err != nil {
					return err
				}
				out.reset()
			}
			return nil
		}
		lo, hi := 0, last
		if side > 0 {
			// A canonical key has w <= x <= last-w for every side x.
			lo, hi = key[0], last-key[0]
		}
		for x := lo; x <= hi; x++ {
			if side == 0 && x > last-x {
				break
			}
			sq := &squares[side][x]
			p0, ok := b.place(sq[0][0], sq[0][1])
			if !ok {
				continue
			}
			p1, ok := b.place(sq[1][0], sq[1][1])
			if ok {
				key[side] = x
				if err := rec(side + 1); err != nil {
					return err
				}
				if p1 {
					b.remove(sq[1][0], sq[1][1])
				}
			}
			if p0 {
				b.remove(sq[0][0], sq[0][1])
			}
		}
		return nil
	}
	if err := rec(0); err != nil {
		return err
	}
	if out.Len() > 0 {
		return emit(out)
	}
	return nil
}
