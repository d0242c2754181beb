package tasks_test

import (
	"fmt"
	"math/bits"
	"testing"

	"github.com/nqueens-gpu/nqueens-gpu/internal/known"
	"github.com/nqueens-gpu/nqueens-gpu/internal/symmetry"
	"github.com/nqueens-gpu/nqueens-gpu/internal/tasks"
)

// completions lists the column lists that complete rows (one bit per row,
// 0 for an empty row) to a solution, by plain backtracking.
func completions(n int, rows []uint32) [][]int {
	q := make([]int, n)
	var out [][]int
	var place func(r int, cols, diag, anti uint64)
	place = func(r int, cols, diag, anti uint64) {
		if r == n {
			out = append(out, append([]int(nil), q...))
			return
		}
		for c := 0; c < n; c++ {
			if r < len(rows) && rows[r] != 0 && rows[r] != 1<<c {
				continue
			}
			if cols>>c&1 != 0 || diag>>(r+c)&1 != 0 || anti>>(r-c+n-1)&1 != 0 {
				continue
			}
			q[r] = c
			place(r+1, cols|1<<c, diag|1<<(r+c), anti|1<<(r-c+n-1))
		}
	}
	place(0, 0, 0, 0)
	return out
}

func key(q []int) string { return fmt.Sprint(q) }

func TestPairs(t *testing.T) {
	for n := 4; n <= 28; n++ {
		ps := tasks.Pairs(n)
		if len(ps) != (n-1)*(n-2) {
			t.Fatalf("N=%d: %d pairs, want %d", n, len(ps), (n-1)*(n-2))
		}
		for i, p := range ps {
			m := ps[len(ps)-1-i]
			if m[0] != n-1-p[0] || m[1] != n-1-p[1] {
				t.Fatalf("N=%d: pair %d %v is not the mirror of pair %d %v", n, i, p, len(ps)-1-i, m)
			}
		}
	}
}

// Every solution lies below exactly one plain board; every mirror pair has
// exactly one member below a half board; every board's attack words match
// its rows.
func TestPlainAndHalfBoardsPartitionSolutions(t *testing.T) {
	for n := 4; n <= 9; n++ {
		want, _ := known.Lookup(n)
		for _, kind := range []tasks.Kind{tasks.Plain, tasks.Half} {
			for depth := 2; depth <= n-1; depth++ {
				seen := map[string]bool{}
				var total uint64
				err := tasks.EnumerateBoards(n, kind, depth, 5, func(b *tasks.Boards) error {
					for i := 0; i < b.Len(); i++ {
						checkWords(t, b, i)
						for _, q := range completions(n, b.Board(i)) {
							if seen[key(q)] {
								t.Fatalf("N=%d %v depth %d: solution %v below two boards", n, kind, depth, q)
							}
							seen[key(q)] = true
							total++
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if kind == tasks.Half {
					total *= 2
				}
				if total != want.Total {
					t.Errorf("N=%d %v depth %d: boards cover %d solutions, want %d", n, kind, depth, total, want.Total)
				}
			}
		}
	}
}

// checkWords recomputes board i's attack words from its rows.
func checkWords(t *testing.T, b *tasks.Boards, i int) {
	t.Helper()
	var l, d, r uint32
	for _, bit := range b.Board(i) {
		if bits.OnesCount32(bit) != 1 || bit>>b.N != 0 {
			t.Fatalf("board %d has row word %#x", i, bit)
		}
		l, d, r = (l|bit)<<1, d|bit, (r|bit)>>1
	}
	if l != b.Left[i] || d != b.Down[i] || r != b.Right[i] {
		t.Fatalf("board %d: words %#x %#x %#x, want %#x %#x %#x", i, b.Left[i], b.Down[i], b.Right[i], l, d, r)
	}
}

// Symmetry boards: no two boards share a prefix, and the canonical
// solutions below them, weighted by orbit size, add up to the Total.
func TestSymmetryBoardsCoverEachOrbitOnce(t *testing.T) {
	for n := 4; n <= 10; n++ {
		want, _ := known.Lookup(n)
		for depth := 2; depth <= n-1; depth++ {
			prefixes := map[string]bool{}
			var total, unique uint64
			err := tasks.EnumerateBoards(n, tasks.Symmetry, depth, 3, func(b *tasks.Boards) error {
				for i := 0; i < b.Len(); i++ {
					checkWords(t, b, i)
					pre := b.Board(i)
					if k := fmt.Sprint(pre); prefixes[k] {
						t.Fatalf("N=%d depth %d: board %v listed twice", n, depth, pre)
					} else {
						prefixes[k] = true
					}
					ru := tasks.RulesFor(n, pre[0], pre[1])
					for _, q := range completions(n, pre) {
						if !followsRules(&ru, q) {
							continue
						}
						orbit, canon := 8, true
						if !ru.Corner {
							orbit, canon = ru.Canonical(rowBits(q))
						}
						if canon {
							total += uint64(orbit)
							unique++
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if total != want.Total || unique != want.Unique {
				t.Errorf("N=%d depth %d: weighted total %d unique %d, want %d and %d", n, depth, total, unique, want.Total, want.Unique)
			}
		}
	}
}

func rowBits(q []int) []uint32 {
	b := make([]uint32, len(q))
	for r, c := range q {
		b[r] = 1 << c
	}
	return b
}

// followsRules replays a solution through the symmetry search's rules.
func followsRules(ru *tasks.Rules, q []int) bool {
	var l, d, r uint32
	for row, c := range q {
		bit := uint32(1) << c
		if row >= 2 && ru.Free(row, l, d, r)&bit == 0 {
			return false
		}
		l, d, r = (l|bit)<<1, d|bit, (r|bit)>>1
	}
	return true
}

// Frames: each orbit of frames has one canonical member, the weights
// match the orbit sizes, and weight × completions adds up to the Total.
func TestFramesCoverEachSolutionOnce(t *testing.T) {
	for n := 5; n <= 10; n++ {
		want, _ := known.Lookup(n)
		var total uint64
		frames := map[string]bool{}
		err := tasks.EnumerateFrames(n, 4, func(f *tasks.Frames) error {
			for i := 0; i < f.Len(); i++ {
				rows := f.Frame(i)
				k := fmt.Sprint(rows)
				if frames[k] {
					t.Fatalf("N=%d: frame %v listed twice", n, rows)
				}
				frames[k] = true
				w := uint64(f.Weight[i])
				if w != 1 && w != 2 && w != 4 && w != 8 {
					t.Fatalf("N=%d: frame %v has weight %d", n, rows, w)
				}
				for _, q := range completions(n, rows) {
					total += w
					if symmetry.Orbit(q) < 8 && f.Sym180[i] == 0 {
						t.Errorf("N=%d: symmetric completion %v of a frame without the half turn", n, q)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if total != want.Total {
			t.Errorf("N=%d: weighted completions %d, want Total %d", n, total, want.Total)
		}
		// Every solution's frame is the image of exactly one listed frame.
		for _, q := range completions(n, nil) {
			hits := 0
			img := make([]int, n)
			for _, op := range symmetry.Ops {
				if frames[fmt.Sprint(frameOf(n, symmetry.Apply(op, q, img)))] {
					hits++
				}
			}
			if hits == 0 {
				t.Fatalf("N=%d: no listed frame for solution %v", n, q)
			}
		}
	}
}

// frameOf keeps the queens of solution q that lie on the outer ring.
func frameOf(n int, q []int) []uint32 {
	rows := make([]uint32, n)
	for r, c := range q {
		if r < 2 || r > n-3 || c < 2 || c > n-3 {
			rows[r] = 1 << c
		}
	}
	return rows
}

func TestEnumerateRejects(t *testing.T) {
	noop := func(*tasks.Boards) error { return nil }
	if err := tasks.EnumerateBoards(3, tasks.Symmetry, 2, 1, noop); err == nil {
		t.Error("symmetry boards for N=3: no error")
	}
	if err := tasks.EnumerateBoards(8, tasks.Plain, 8, 1, noop); err == nil {
		t.Error("depth 8 for N=8: no error")
	}
	if err := tasks.EnumerateFrames(4, 1, func(*tasks.Frames) error { return nil }); err == nil {
		t.Error("frames for N=4: no error")
	}
}

func ExampleEnumerateFrames() {
	count := 0
	tasks.EnumerateFrames(8, 100, func(f *tasks.Frames) error {
		count += f.Len()
		return nil
	})
	fmt.Println("canonical frames for N=8:", count)
	// Output: canonical frames for N=8: 179
}

var errStop = fmt.Errorf("stop")

// N=28, the first open case, fits the words: the first batches of boards
// and frames place queens only on the board, and the rules' masks cover
// exactly the columns they should.
func TestN28Words(t *testing.T) {
	const n = 28
	mask := uint32(1)<<n - 1
	err := tasks.EnumerateBoards(n, tasks.Symmetry, tasks.DefaultDepth(n), 256, func(b *tasks.Boards) error {
		for i := 0; i < b.Len(); i++ {
			checkWords(t, b, i)
			if b.Down[i]&^mask != 0 || bits.OnesCount32(b.Down[i]) != b.Depth {
				t.Fatalf("board %d: down word %#x", i, b.Down[i])
			}
		}
		return errStop
	})
	if err != errStop {
		t.Fatalf("boards: %v", err)
	}
	ru := tasks.RulesFor(n, 1<<3, 0)
	if want := uint32(0b111) | uint32(0b111)<<(n-3); ru.LastMask != want || ru.Mask != mask || ru.SideMask != 1|1<<(n-1) {
		t.Errorf("N=28 rules %+v, want LastMask %#x", ru, want)
	}
	err = tasks.EnumerateFrames(n, 64, func(f *tasks.Frames) error {
		for i := 0; i < f.Len(); i++ {
			var cols uint32
			placed := 0
			for _, b := range f.Frame(i) {
				if b&^mask != 0 || bits.OnesCount32(b) > 1 {
					t.Fatalf("frame %d has row word %#x", i, b)
				}
				cols |= b
				placed += bits.OnesCount32(b)
			}
			if bits.OnesCount32(cols) != placed || placed < 4 || placed > 8 {
				t.Fatalf("frame %d: %d queens in %d columns", i, placed, bits.OnesCount32(cols))
			}
		}
		return errStop
	})
	if err != errStop {
		t.Fatalf("frames: %v", err)
	}
}
