package cpu

import "golang.org/x/sys/cpu"

// efAsm reports whether efSearch runs efLoop: the CPU has BMI1 (BLSI,
// ANDN) and BMI2 (SHLX, SHRX).
var efAsm = cpu.X86.HasBMI1 && cpu.X86.HasBMI2

// efLoop runs the search of efSearchGo from sc.st (a search in progress,
// or one just started: f, d set, the rest zero) over sc.tab and sc.fr,
// making at most pops pops, and saves its state back into sc.st. It
// returns true once the search is finished (sc.st.count is then its
// completions), false when the budget ran out first.
//
// It is assembly (eightfold_amd64.s) for two reasons that Go's compiler
// leaves to chance: register allocation (the step's values all stay in
// registers, with no spill) and the loop's alignment (its head on a
// 64-byte boundary; a few bytes of shift in the Go loop cost up to 10%).
//
//go:noescape
func efLoop(sc *efScratch, pops uint64) (done bool)
