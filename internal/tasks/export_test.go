package tasks

// SetOrientMinN sets the smallest N whose borders orient chooses (see
// orientMinN) for a test, and empties the cache of orbits; the function
// it returns restores both. The cache of task lists goes with it.
func SetOrientMinN(n int) (restore func()) {
	old := orientMinN
	orientMinN = n
	forgetOrbits()
	return func() {
		orientMinN = old
		forgetOrbits()
	}
}

func forgetOrbits() {
	orbits.Lock()
	orbits.m = nil
	orbits.Unlock()
	lists.Lock()
	lists.m = nil
	lists.Unlock()
}
