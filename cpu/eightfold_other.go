//go:build !amd64

package cpu

// efAsm is false: efLoop is assembly for amd64 only.
const efAsm = false

// efLoop is never called without efAsm.
func efLoop(sc *efScratch, pops uint64) bool { panic("cpu: efLoop without assembly") }
