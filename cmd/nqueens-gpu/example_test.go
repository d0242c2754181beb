package main

import (
	"context"
	"os"
	"time"
)

// exampleHooks are the real solvers with a clock that always reports a
// quarter of a second, so that the examples' output does not vary.
func exampleHooks() hooks {
	h := defaultHooks()
	h.Since = func(time.Time) time.Duration { return 250 * time.Millisecond }
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

// With -json every N is one JSON object on its own line.
func Example_json() {
	runWith(context.Background(), []string{"-n", "4-8", "-json", "-algo", "symmetry"}, os.Stdout, os.Stderr, exampleHooks())
	// Output:
	// {"n":4,"total":2,"unique":1,"count1":0,"count2":1,"count4":0,"count8":0,"seconds":0.25,"backend":"cpu","algo":"symmetry","device":"cpu"}
	// {"n":5,"total":10,"unique":2,"count1":0,"count2":1,"count4":0,"count8":1,"seconds":0.25,"backend":"cpu","algo":"symmetry","device":"cpu"}
	// {"n":6,"total":4,"unique":1,"count1":0,"count2":0,"count4":1,"count8":0,"seconds":0.25,"backend":"cpu","algo":"symmetry","device":"cpu"}
	// {"n":7,"total":40,"unique":6,"count1":0,"count2":0,"count4":2,"count8":4,"seconds":0.25,"backend":"cpu","algo":"symmetry","device":"cpu"}
	// {"n":8,"total":92,"unique":12,"count1":0,"count2":0,"count4":1,"count8":11,"seconds":0.25,"backend":"cpu","algo":"symmetry","device":"cpu"}
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
