package main

import (
	"context"
	"os"
	"time"

	"github.com/nqueens-gpu/nqueens-gpu/internal/buildinfo"
)

// exampleHooks are the real solvers with a clock that always reports a
// quarter of a second and ends every count at the same instant, and a
// fixed build, so that the examples' output does not vary.
func exampleHooks() hooks {
	h := defaultHooks()
	h.Since = func(time.Time) time.Duration { return 250 * time.Millisecond }
	h.Now = func() time.Time { return time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC) }
	h.Build = buildinfo.Info{Version: "v1.0.0", Commit: "0123456789abcdef0123456789abcdef01234567", Go: "go1.26.8", CUDA: "none"}
	return h
}

// The table: a header, then one row per N with the total number of
// solutions, the number of unique ones and the elapsed time.
func Example_table() {
	runWith(context.Background(), []string{"-n", "4-8"}, os.Stdout, os.Stderr, exampleHooks())
	// Output:
	//  N:                 Total                Unique           Elapsed
	//  4:                     2                     1      00:00:00.250
	//  5:                    10                     2      00:00:00.250
	//  6:                     4                     1      00:00:00.250
	//  7:                    40                     6      00:00:00.250
	//  8:                    92                    12      00:00:00.250
}

// With -v the table also splits Unique by the size of the symmetry classes.
func Example_verbose() {
	runWith(context.Background(), []string{"-n", "4-8", "-v"}, os.Stdout, os.Stderr, exampleHooks())
	// Output:
	//  N:                 Total                Unique            C2            C4                    C8           Elapsed
	//  4:                     2                     1             1             0                     0      00:00:00.250
	//  5:                    10                     2             1             0                     1      00:00:00.250
	//  6:                     4                     1             0             1                     0      00:00:00.250
	//  7:                    40                     6             0             2                     4      00:00:00.250
	//  8:                    92                    12             0             1                    11      00:00:00.250
}

// With -json every N is one JSON object on its own line, which says what
// counted it (backend, algorithm, device, workers), which build of the
// program, and when the count ended.
func Example_json() {
	runWith(context.Background(), []string{"-n", "4-8", "-json", "-algo", "symmetry", "-workers", "2"}, os.Stdout, os.Stderr, exampleHooks())
	// Output:
	// {"n":4,"total":2,"unique":1,"count1":0,"count2":1,"count4":0,"count8":0,"seconds":0.25,"backend":"cpu","algo":"symmetry","device":"cpu","version":"v1.0.0","commit":"0123456789abcdef0123456789abcdef01234567","workers":2,"finished":"2026-12-01T09:30:00Z"}
	// {"n":5,"total":10,"unique":2,"count1":0,"count2":1,"count4":0,"count8":1,"seconds":0.25,"backend":"cpu","algo":"symmetry","device":"cpu","version":"v1.0.0","commit":"0123456789abcdef0123456789abcdef01234567","workers":2,"finished":"2026-12-01T09:30:00Z"}
	// {"n":6,"total":4,"unique":1,"count1":0,"count2":0,"count4":1,"count8":0,"seconds":0.25,"backend":"cpu","algo":"symmetry","device":"cpu","version":"v1.0.0","commit":"0123456789abcdef0123456789abcdef01234567","workers":2,"finished":"2026-12-01T09:30:00Z"}
	// {"n":7,"total":40,"unique":6,"count1":0,"count2":0,"count4":2,"count8":4,"seconds":0.25,"backend":"cpu","algo":"symmetry","device":"cpu","version":"v1.0.0","commit":"0123456789abcdef0123456789abcdef01234567","workers":2,"finished":"2026-12-01T09:30:00Z"}
	// {"n":8,"total":92,"unique":12,"count1":0,"count2":0,"count4":1,"count8":11,"seconds":0.25,"backend":"cpu","algo":"symmetry","device":"cpu","version":"v1.0.0","commit":"0123456789abcdef0123456789abcdef01234567","workers":2,"finished":"2026-12-01T09:30:00Z"}
}

// With -print the boards follow the row of their N: the column list (entry
// i is the column of the queen in row i) and the grid, row 0 at the top and
// column 0 at the left.
func Example_print() {
	runWith(context.Background(), []string{"-n", "4", "-print"}, os.Stdout, os.Stderr, exampleHooks())
	// Output:
	//  N:                 Total                Unique           Elapsed
	//  4:                     2                     1      00:00:00.250
	//
	// N=4 board 1 of 2: [1 3 0 2]
	// +-+-+-+-+
	// | |Q| | |
	// +-+-+-+-+
	// | | | |Q|
	// +-+-+-+-+
	// |Q| | | |
	// +-+-+-+-+
	// | | |Q| |
	// +-+-+-+-+
	//
	// N=4 board 2 of 2: [2 0 3 1]
	// +-+-+-+-+
	// | | |Q| |
	// +-+-+-+-+
	// |Q| | | |
	// +-+-+-+-+
	// | | | |Q|
	// +-+-+-+-+
	// | |Q| | |
	// +-+-+-+-+
}
