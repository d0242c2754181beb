// The eightfold search loop (efLoop, see eightfold_amd64.go and
// efSearchGo in eightfold.go, the same search in Go) for CPUs with BMI1
// and BMI2.

#include "textflag.h"
#include "go_asm.h"

// Registers:
//   SI  sc: the table at 0, the frames at efScratch_fr
//   AX  f, the current level's untried columns
//   BX  l, DX d, R8 r: the current level's words
//   R9  the level
//   R10 the frame stack's top, a byte offset (efFrame__size per frame)
//   R11 the completions
//   R12 the bit being tried; R13 the table word; R14 nl, DI nd, R15 nr,
//   CX nf
// The pops left are counted down in the argument pops.

// func efLoop(sc *efScratch, pops uint64) (done bool)
TEXT ·efLoop(SB), NOSPLIT, $0-17
	MOVQ sc+0(FP), SI
	MOVQ (efScratch_st+efState_f)(SI), AX
	MOVQ (efScratch_st+efState_l)(SI), BX
	MOVQ (efScratch_st+efState_d)(SI), DX
	MOVQ (efScratch_st+efState_r)(SI), R8
	MOVQ (efScratch_st+efState_lvl)(SI), R9
	MOVQ (efScratch_st+efState_sp)(SI), R10
	MOVQ (efScratch_st+efState_count)(SI), R11
	TESTQ AX, AX
	JEQ pop
	JMP take

	PCALIGN $64
take:
	// bit = f & -f; f ^= bit; t = tab[lvl]
	BLSIQ AX, R12
	XORQ R12, AX
	MOVQ (SI)(R9*8), R13
	// nl, nd, nr = (l|bit) << t, d|bit, (r|bit) >> t (the shift is t's low 6 bits)
	MOVQ BX, R14
	ORQ R12, R14
	SHLXQ R13, R14, R14
	MOVQ DX, DI
	ORQ R12, DI
	MOVQ R8, R15
	ORQ R12, R15
	SHRXQ R13, R15, R15
	// nf = ^(nl | nd | nr | t)
	MOVQ R14, CX
	ORQ DI, CX
	ORQ R15, CX
	ORQ R13, CX
	NOTQ CX
	TESTQ CX, CX
	JEQ next
	TESTQ R13, R13
	JS last
	// push the level (kept only if f != 0), descend
	MOVQ AX, R12
	ORQ R9, R12
	MOVQ R12, efScratch_fr(SI)(R10*1)
	MOVQ BX, (efScratch_fr+8)(SI)(R10*1)
	MOVQ DX, (efScratch_fr+16)(SI)(R10*1)
	MOVQ R8, (efScratch_fr+24)(SI)(R10*1)
	LEAQ efFrame__size(R10), R12
	TESTQ AX, AX
	CMOVQNE R12, R10
	INCQ R9
	MOVQ R14, BX
	MOVQ DI, DX
	MOVQ R15, R8
	MOVQ CX, AX
	JMP take

next:
	TESTQ AX, AX
	JNE take
pop:
	TESTQ R10, R10
	JEQ finished
	SUBQ $1, pops+8(FP)
	JCS budget
	SUBQ $efFrame__size, R10
	MOVQ efScratch_fr(SI)(R10*1), AX
	MOVQ AX, R9
	ANDQ $63, R9
	ANDQ $-64, AX
	MOVQ (efScratch_fr+8)(SI)(R10*1), BX
	MOVQ (efScratch_fr+16)(SI)(R10*1), DX
	MOVQ (efScratch_fr+24)(SI)(R10*1), R8
	JMP take

last:
	// The children of this level are on the level before the last:
	// count the completions of each of its (at most two) free columns
	// b, given g, the last level's free columns without b (last2).
	MOVQ 8(SI)(R9*8), R13
	SHLXQ R13, R14, R14
	SHRXQ R13, R15, R15
	ORQ DI, R14
	ORQ R15, R14
	ORQ R13, R14
	NOTQ R14
	// b1 in R12, b2 in CX
	BLSIQ CX, R12
	XORQ R12, CX
	// completions += g &^ (b1 | b1<<t | b1>>t) != 0
	SHLXQ R13, R12, R15
	ORQ R12, R15
	SHRXQ R13, R12, DI
	ORQ DI, R15
	ANDNQ R14, R15, R15
	XORL DI, DI
	TESTQ R15, R15
	SETNE DI
	ADDQ DI, R11
	// completions += b2 != 0 && g &^ (b2 | b2<<t | b2>>t) != 0
	SHLXQ R13, CX, R12
	ORQ CX, R12
	SHRXQ R13, CX, DI
	ORQ DI, R12
	ANDNQ R14, R12, R12
	TESTQ CX, CX
	CMOVQEQ CX, R12
	XORL DI, DI
	TESTQ R12, R12
	SETNE DI
	ADDQ DI, R11
	JMP next

budget:
	// Out of pops before this one: save the state, not finished.
	MOVQ AX, (efScratch_st+efState_f)(SI)
	MOVQ BX, (efScratch_st+efState_l)(SI)
	MOVQ DX, (efScratch_st+efState_d)(SI)
	MOVQ R8, (efScratch_st+efState_r)(SI)
	MOVQ R9, (efScratch_st+efState_lvl)(SI)
	MOVQ R10, (efScratch_st+efState_sp)(SI)
	MOVQ R11, (efScratch_st+efState_count)(SI)
	MOVB $0, done+16(FP)
	RET

finished:
	MOVQ $0, (efScratch_st+efState_f)(SI)
	MOVQ R10, (efScratch_st+efState_sp)(SI)
	MOVQ R11, (efScratch_st+efState_count)(SI)
	MOVB $1, done+16(FP)
	RET
