// Package known holds the published solution counts (OEIS A000170 and
// A002562) and the COUNT2/4/8 split for small N. It exists for tests and for
// the cross-check command; no solver may read it.
package known

// Entry is one row of the published table.
type Entry struct {
	N      int
	Total  uint64
	Unique uint64
}

// Table lists Total and Unique for N = 1..27, indexed by N-1. Unique(27)
// is OEIS A002562(27), 29363495934315694; the figure 29363791967678199
// that some sources (and this table before 2026-11-23) give for it is not
// Unique: with the published Total and the 320,403,024 solutions fixed by
// the half turn (internal/burnside) Burnside gives A002562's value.
var Table = []Entry{
	{1, 1, 1}, {2, 0, 0}, {3, 0, 0}, {4, 2, 1}, {5, 10, 2}, {6, 4, 1},
	{7, 40, 6}, {8, 92, 12}, {9, 352, 46}, {10, 724, 92}, {11, 2680, 341},
	{12, 14200, 1787}, {13, 73712, 9233}, {14, 365596, 45752},
	{15, 2279184, 285053}, {16, 14772512, 1846955}, {17, 95815104, 11977939},
	{18, 666090624, 83263591}, {19, 4968057848, 621012754},
	{20, 39029188884, 4878666808}, {21, 314666222712, 39333324973},
	{22, 2691008701644, 336376244042}, {23, 24233937684440, 3029242658210},
	{24, 227514171973736, 28439272956934}, {25, 2207893435808352, 275986683743434},
	{26, 22317699616364044, 2789712466510289}, {27, 234907967154122528, 29363495934315694},
}

// Lookup returns the published entry for n and whether there is one.
func Lookup(n int) (Entry, bool) {
	if n < 1 || n > len(Table) {
		return Entry{}, false
	}
	return Table[n-1], true
}

// Classes is the published COUNT2/COUNT4/COUNT8 split for one N.
type Classes struct{ C2, C4, C8 uint64 }

// ClassTable gives COUNT2/4/8 for N = 4..17 (N=16 and 17 from
// ../shared/bench/refcount.c, an independent C program).
var ClassTable = map[int]Classes{
	4: {1, 0, 0}, 5: {1, 0, 1}, 6: {0, 1, 0}, 7: {0, 2, 4}, 8: {0, 1, 11},
	9: {0, 4, 42}, 10: {0, 3, 89}, 11: {0, 12, 329}, 12: {4, 18, 1765},
	13: {4, 32, 9197}, 14: {0, 105, 45647}, 15: {0, 310, 284743},
	16: {32, 734, 1846189}, 17: {64, 2006, 11975869},
}
