package tasks

import "testing"

// The symmetry board counts (DigestBoards(n, Symmetry, depth, 256).Tasks)
// the cases below rest on:
//
//	N=14: d5 16641, d6 71429, d7 230022, d8 542147, d9 872106, d10 954065, d11 703725
//	N=15: d5 26890, d6 134251, d7 540547, d8 1628283, d9 3528201, d10 5379977
//	N=16: d6 252277, d7 1168189, d8 4231484, d9 11746540, d10 23892484
//	N=17: d6 427203, d7 2272413, d8 9997517, d9 34106355
//	N=18: d7 4388380, d8 21962258
//	N=20: d7 13757078
func TestDepthFor(t *testing.T) {
	const h100 = 8 * 132 * 2048 // gpu.MinTasks of one H100: 2,162,688
	tests := []struct {
		n, minTasks, want int
	}{
		// No minimum: the default depth.
		{14, 0, 5},
		{16, -1, 6},
		{20, 0, 7},
		{28, 0, 8},
		// Exactly at and just over a depth's count.
		{14, 16641, 5},
		{14, 16642, 6},
		{14, 71429, 6},
		{14, 71430, 7},
		{15, 540547, 7},
		{15, 540548, 8},
		{15, 1628283, 8},
		{15, 1628284, 9},
		{16, 252277, 6},
		{16, 252278, 7},
		{16, 1168190, 8},
		{17, 2272413, 7},
		{17, 2272414, 8},
		{18, 4388380, 7},
		{18, 4388381, 8},
		// One 132-SM GPU.
		{15, h100, 9},
		{16, h100, 8},
		{17, h100, 7},
		{18, h100, 7},
		{20, h100, 7},
		{24, h100, 8},
		{28, h100, 8},
		// Never enough: the last depth that doubled the boards.
		{14, h100, 8},     // d9 has 1.6 times as many
		{15, 8 * h100, 9}, // d10 has 5,379,977: 1.5 times
		{13, h100, 7},     // d8 152,660 against d7 87,139
		{12, h100, 6},     // d7 27,662 against d6 14,441
		{8, h100, 4},      // d5 93 against d4 89
		{7, h100, 3},      // d4 27 against d3 21
		{6, h100, 2},      // d3 9 against d2 6
		// Several GPUs: 8 × 132 SMs.
		{16, 8 * h100, 10},
		{17, 8 * h100, 9},
		// Nothing beyond the default fits.
		{4, h100, 2},
		{5, h100, 2},
		// Never below the default, even when a smaller depth would do.
		{16, 1, 6},
		{20, 1, 7},
	}
	for _, tt := range tests {
		if got := DepthFor(tt.n, tt.minTasks); got != tt.want {
			t.Errorf("DepthFor(%d, %d) = %d, want %d", tt.n, tt.minTasks, got, tt.want)
		}
	}
}

// countSymmetryBoards counts the symmetry boards of n at depth as DepthFor
// does.
func countSymmetryBoards(n, depth int, limit int64) int64 {
	return countTasks(limit, func(emit func(int) error) error {
		return EnumerateBoards(n, Symmetry, depth, 1024, func(b *Boards) error { return emit(b.Len()) })
	})
}

// The counting enumeration agrees with the digest the job's plan uses, and
// stops early at its limit.
func TestCountSymmetryBoards(t *testing.T) {
	for _, c := range []struct{ n, depth int }{{8, 3}, {12, 5}, {14, 8}, {16, 7}} {
		d, err := DigestBoards(c.n, Symmetry, c.depth, 256)
		if err != nil {
			t.Fatal(err)
		}
		if got := countSymmetryBoards(c.n, c.depth, 0); got != d.Tasks {
			t.Errorf("N=%d depth %d: counted %d boards, digest has %d", c.n, c.depth, got, d.Tasks)
		}
	}
	if got := countSymmetryBoards(17, 8, 5000); got < 5000 || got > 5000+1024 {
		t.Errorf("count with limit 5000: %d, want 5000 to 6024", got)
	}
	if got := countSymmetryBoards(3, 2, 0); got != 0 {
		t.Errorf("N=3: %d boards, want 0", got)
	}
}

// Every depth DepthFor returns is one that EnumerateBoards accepts, is
// never below the default and never above n-3.
func TestDepthForRange(t *testing.T) {
	for n := 1; n <= 16; n++ {
		for _, m := range []int{0, 1, 1000, 1 << 21, 1 << 40} {
			if n > 14 && m > 1<<21 {
				continue // enumerates tens of millions of boards
			}
			d := DepthFor(n, m)
			if d != DefaultDepth(n) && (d < DefaultDepth(n) || d > n-3) {
				t.Errorf("DepthFor(%d, %d) = %d, outside %d..%d", n, m, d, DefaultDepth(n), n-3)
			}
			if n >= 4 && d != DefaultDepth(n) {
				if err := EnumerateBoards(n, Symmetry, d, 256, func(*Boards) error { return nil }); err != nil {
					t.Errorf("DepthFor(%d, %d) = %d: %v", n, m, d, err)
				}
			}
		}
	}
}

// SplitFor picks the smallest split that gives enough eightfold tasks,
// counted as the plan's digest counts them, never below the default.
func TestSplitFor(t *testing.T) {
	const h100 = 8 * 2048 * 132
	tests := []struct {
		n, minTasks, want int
	}{
		{16, 0, DefaultSplit(16)},
		{16, h100, 4}, // the default 3 has 861,949 tasks, 4 has 3,230,069
		{17, h100, 4}, // 3 has 1,744,579
		{18, h100, DefaultSplit(18)},
		{4, h100, DefaultSplit(4)},
	}
	for _, tt := range tests {
		got := SplitFor(tt.n, tt.minTasks)
		if got != tt.want {
			t.Errorf("SplitFor(%d, %d) = %d, want %d", tt.n, tt.minTasks, got, tt.want)
			continue
		}
		if tt.minTasks > 0 && tt.n >= 5 {
			d, err := DigestEightfold(tt.n, got, 1024)
			if err != nil {
				t.Fatal(err)
			}
			if d.Tasks < int64(tt.minTasks) {
				t.Errorf("N=%d split %d: %d tasks, fewer than %d", tt.n, got, d.Tasks, tt.minTasks)
			}
			if got > DefaultSplit(tt.n) {
				prev, _ := DigestEightfold(tt.n, got-1, 1024)
				if prev.Tasks >= int64(tt.minTasks) {
					t.Errorf("N=%d: split %d already has %d tasks", tt.n, got-1, prev.Tasks)
				}
			}
		}
	}
}
